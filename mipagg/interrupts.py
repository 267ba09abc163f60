"""Signals while a command runs: Ctrl-C (SIGINT) and SIGTERM stop it cleanly,
and its exit status says which one did (130 or 143, the shell convention).

Graceful stops: inside :func:`graceful_stops` (``mipagg run --method cg|bp``,
the bound stage of ``scripts/casc.py``), the first signal while ``cg`` or
``bp`` runs (:func:`stoppable`) only asks that run to stop: it stops at its
next check as at a time limit, with status "interrupted", its best partition
and its certified bound (and ``bp``'s checkpoint); a second signal aborts as
before.  Solvers (HiGHS, Gurobi, SCIP) treat Ctrl-C the same way.  From
Python: ``with CtrlC(), graceful_stops(): r = branch_and_price(X, k)``.

Used by :mod:`mipagg.cli`, the experiment commands of
:mod:`mipagg.experiments.cli` and :mod:`mipagg.exact`, which all sit above
this module.
"""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager

__all__ = ["INTERRUPTED", "TERMINATED", "CtrlC", "StopRequest", "graceful_stops", "stoppable",
           "interrupt_status"]

INTERRUPTED = 130  # 128 + SIGINT, the shell convention
TERMINATED = 143   # 128 + SIGTERM (kill, a batch scheduler's time limit)


class CtrlC:
    """Count every Ctrl-C (SIGINT) or SIGTERM while a command runs, then raise
    KeyboardInterrupt so that partial outputs are removed as for Ctrl-C.

    A KeyboardInterrupt raised while a numba or ctypes callback runs is
    printed and dropped ("Exception ignored ..."), so the run would go on and
    write its outputs; ``mipagg run`` checks :attr:`presses` before writing
    anything and stops instead.  Installed only in the main thread and only
    over the default handlers (a shell may start jobs with SIGINT ignored).
    Under :func:`graceful_stops` a signal may become a stop request instead
    (module docstring)."""

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
        cls.signum = signum
        if StopRequest.ask():
            return
        cls.presses += 1
        raise KeyboardInterrupt

    def __exit__(self, *exc):
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        return False


class StopRequest:
    """Whether a graceful stop was asked for (:class:`CtrlC`): the exact
    methods' stop criterion (:class:`mipagg.exact.settings.StopCriterion`)
    counts it as a deadline already passed."""

    enabled = False         # the caller allows graceful stops (graceful_stops)
    runs = 0                # stoppable runs on (nested ones count once each)
    requested = False

    @classmethod
    def ask(cls) -> bool:
        """A signal came: True when it became a stop request (the first one
        while a stoppable run is on and graceful stops are allowed)."""
        if not (cls.enabled and cls.runs) or cls.requested:
            return False
        cls.requested = True
        print("mipagg: stopping at the next check, as at a time limit; the best partition "
              "and bound so far are kept (press Ctrl-C again to abort)", file=sys.stderr)
        return True


@contextmanager
def graceful_stops(on: bool = True):
    """Let the first signal stop a :func:`stoppable` run gracefully (under
    :class:`CtrlC`, whose handler asks :class:`StopRequest`)."""
    before, StopRequest.enabled = StopRequest.enabled, bool(on)
    try:
        yield
    finally:
        StopRequest.enabled = before


@contextmanager
def stoppable():
    """The span of a run that stops on :attr:`StopRequest.requested`; the
    request ends with the outermost one."""
    StopRequest.runs += 1
    try:
        yield
    finally:
        StopRequest.runs -= 1
        if not StopRequest.runs:
            StopRequest.requested = False


def interrupt_status() -> int:
    """Exit status of a command stopped by the last signal: 130 or 143."""
    return TERMINATED if CtrlC.signum == signal.SIGTERM else INTERRUPTED
