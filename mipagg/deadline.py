"""Time limits that reach every long loop, and compiled loops that return to
Python often enough for Ctrl-C and SIGTERM to be honoured.

A :class:`Deadline` is made once per run from a ``time_limit`` (seconds,
``None`` or ``inf`` for none) and handed down to every loop that can last
more than a second (local search, Lin–Kernighan, 2-opt/Or-opt, RCS, the
portfolio's stages).  Each loop checks :meth:`Deadline.expired` between
*chunks* of work and stops with the best result so far; ``hit`` then
records that the limit bound, so results can say ``time_limited``.

The compiled (numba) kernels work in chunks of a fixed number of steps and
return to Python between chunks: Python runs signal handlers only between
bytecodes, so a kernel that never returns would ignore Ctrl-C.  Chunk sizes
depend only on the instance, never on the clock, so a run whose limit does
not bind makes the same decisions — and returns the same result — every
time.

>>> d = Deadline(None)
>>> d.expired(), d.hit
(False, False)
>>> Deadline(0.0).expired()
True
"""

from __future__ import annotations

import math
import time

from .errors import ParameterError

__all__ = ["NEVER", "Deadline", "chunk_steps"]

NEVER = 1e9   # seconds


class Deadline:
    """A wall-clock limit: ``Deadline(seconds)`` from now (``None``, ``inf``
    or anything from :data:`NEVER` on: never).  ``expired()`` reads the
    clock and sets ``hit`` when the limit has passed; ``left()`` is the time
    remaining (``inf`` without limit)."""

    def __init__(self, seconds=None):
        if seconds is not None and (isinstance(seconds, bool)
                                    or not isinstance(seconds, (int, float))
                                    or math.isnan(seconds) or seconds < 0):
            raise ParameterError(
                f"time_limit must be a non-negative number of seconds, got {seconds!r}")
        # a limit beyond NEVER (about 30 years) cannot bind: treated as none
        self.seconds = None if seconds is None or seconds >= NEVER else float(seconds)
        self.at = None if self.seconds is None else time.perf_counter() + self.seconds
        self.hit = False

    @classmethod
    def of(cls, limit) -> Deadline:
        """``limit`` itself when it is a Deadline (shared by nested loops),
        else a new Deadline of ``limit`` seconds."""
        return limit if isinstance(limit, Deadline) else cls(limit)

    @property
    def bounded(self) -> bool:
        return self.at is not None

    def left(self) -> float:
        return math.inf if self.at is None else self.at - time.perf_counter()

    def expired(self) -> bool:
        if self.at is not None and time.perf_counter() >= self.at:
            self.hit = True
        return self.hit

    def __repr__(self) -> str:
        return f"Deadline({self.seconds!r}, hit={self.hit})"


def chunk_steps(cost_per_step: float, target: float = 2e7, least: int = 16) -> int:
    """Steps per compiled chunk so that one chunk does about ``target``
    elementary operations (≈ 10–50 ms), at least ``least``: a deterministic
    function of the instance size, never of the clock."""
    return max(int(least), int(target // max(float(cost_per_step), 1.0)))
