"""The few HiGHS details every solver call of the package shares.

HiGHS's ``time_limit`` option bounds the *cumulative* run time of a
``Highs`` object over all its ``run()`` calls (HiGHS issues #1331 and #1477),
so passing the seconds left to a reused object stops it early once its total
solve time reaches them.  :func:`set_time_limit` passes the run time so far
plus the seconds left instead.

HiGHS 1.16 prints its banner on stdout when the first ``Highs`` object of a
process is built, before ``output_flag`` can be set, and its thread
scheduler is global: a run whose ``threads`` option differs from the
scheduler's size fails.  :func:`new_highs` builds every object of the
package silently and never sets ``threads``.
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["new_highs", "silence_banner", "set_time_limit", "cumulative_limit", "stop_on_request",
           "release_solver_threads"]

_banner_lock = threading.Lock()
_banner_done = False


def silence_banner() -> None:
    """Build one throw-away ``Highs`` object with file descriptor 1 pointed at
    ``/dev/null``, so the once-per-process banner never reaches stdout (where
    ``--json`` output lives).  Idempotent and thread safe."""
    global _banner_done
    if _banner_done:
        return
    import highspy

    with _banner_lock:
        if _banner_done:
            return
        sys.stdout.flush()
        saved = os.dup(1)
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(null)
            os.close(saved)
        _banner_done = True


def new_highs(**options):
    """A silent ``highspy.Highs`` with ``options`` set (``output_flag`` False).

    >>> new_highs(presolve="off").getOptionValue("presolve")[1]
    'off'
    """
    import highspy

    silence_banner()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for name, value in options.items():
        h.setOptionValue(name, value)
    return h


def cumulative_limit(h, seconds: float) -> float:
    """The ``time_limit`` value that lets ``h`` run ``seconds`` more: its run
    time so far plus ``seconds`` (at least 1 ms)."""
    return float(h.getRunTime()) + max(float(seconds), 1e-3)


def set_time_limit(h, seconds: float | None) -> None:
    """Let the next ``h.run()`` use at most ``seconds`` more (None: no limit),
    whatever ``h`` spent in earlier runs.

    >>> h = new_highs()
    >>> set_time_limit(h, 5.0)
    >>> h.getOptionValue("time_limit")[1] >= 5.0
    True
    """
    import highspy

    if seconds is None:
        h.setOptionValue("time_limit", highspy.kHighsInf)
    else:
        h.setOptionValue("time_limit", cumulative_limit(h, seconds))


def stop_on_request(h) -> None:
    """Let a graceful stop request (:class:`~mipagg.interrupts.StopRequest`)
    end ``h``'s MIP solves at HiGHS's next limit check, model status
    ``kInterrupt``, where such a request can come (a
    :func:`~mipagg.interrupts.stoppable` run under
    :func:`~mipagg.interrupts.graceful_stops`).  The check is a Python call
    from HiGHS's MIP loop, which also lets the signal's handler run: without
    it, a MIP under way keeps the main thread until its own limit."""
    from ..interrupts import StopRequest

    if not (StopRequest.enabled and StopRequest.runs):
        return

    def check(event) -> None:
        if StopRequest.requested:
            event.interrupt()

    h.cbMipInterrupt.subscribe(check)


def release_solver_threads() -> None:
    """Stop HiGHS's global thread scheduler in this process before a fork.

    HiGHS 1.16 keeps worker threads of a process-wide task scheduler alive
    after the first solve (the grid runner's warm-up starts them); a
    forked child inherits the scheduler's state but not its threads, and its
    first solve spins at 100 % CPU waiting for workers that do not exist.
    ``Highs.resetGlobalScheduler(True)`` joins those threads, so the child
    (and this process, on its next solve) starts a fresh scheduler."""
    highspy = sys.modules.get("highspy")
    reset = getattr(getattr(highspy, "Highs", None), "resetGlobalScheduler", None)
    if reset is not None:
        reset(True)
