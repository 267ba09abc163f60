"""Signals while a command runs: Ctrl-C (SIGINT) and SIGTERM stop it cleanly,
and its exit status says which one did (130 or 143, the shell convention).

Used by :mod:`mipagg.cli` and the experiment commands of
:mod:`mipagg.experiments.cli`, which both sit above this module.
"""

from __future__ import annotations

import signal
import threading

__all__ = ["INTERRUPTED", "TERMINATED", "CtrlC", "interrupt_status"]

INTERRUPTED = 130  # 128 + SIGINT, the shell convention
TERMINATED = 143   # 128 + SIGTERM (kill, a batch scheduler's time limit)


class CtrlC:
    """Count every Ctrl-C (SIGINT) or SIGTERM while a command runs, then raise
    KeyboardInterrupt so that partial outputs are removed as for Ctrl-C.

    A KeyboardInterrupt raised while a numba or ctypes callback runs is
    printed and dropped ("Exception ignored ..."), so the run would go on and
    write its outputs; ``mipagg run`` checks :attr:`presses` before writing
    anything and stops instead.  Installed only in the main thread and only
    over the default handlers (a shell may start jobs with SIGINT ignored)."""

    presses = 0
    signum = signal.SIGINT

    def __enter__(self):
        cls = type(self)
        cls.presses, cls.signum = 0, signal.SIGINT
        self._previous = {}
        if threading.current_thread() is threading.main_thread():
            for signum, default in ((signal.SIGINT, signal.default_int_handler),
                                    (signal.SIGTERM, signal.SIG_DFL)):
                if signal.getsignal(signum) is default:
                    self._previous[signum] = signal.signal(signum, cls._handler)
        return self

    @classmethod
    def _handler(cls, signum, frame):
        cls.presses += 1
        cls.signum = signum
        raise KeyboardInterrupt

    def __exit__(self, *exc):
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        return False


def interrupt_status() -> int:
    """Exit status of a command stopped by the last signal: 130 or 143."""
    return TERMINATED if CtrlC.signum == signal.SIGTERM else INTERRUPTED
