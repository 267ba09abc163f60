"""One status vocabulary for every result object (``cg``, ``bp``, the
portfolio, the exact tour, the exact neighbourhood search, :class:`RunResult`).

:class:`Status` is a ``str`` enum, so a status compares equal to its word
(``Status.OPTIMAL == "optimal"``) and JSON output and stored records keep
the words they always had.  :func:`status_fields` gives the ``success`` and
``message`` every result object carries, in the manner of
``scipy.optimize.OptimizeResult``.

>>> Status("time_limit") is Status.TIME_LIMIT, Status.OPTIMAL == "optimal"
(True, True)
>>> Status.TIME_LIMIT.success, Status.CONVERGED.success
(False, True)
>>> import json; json.dumps({"status": Status.NODE_LIMIT})
'{"status": "node_limit"}'
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Status", "as_status", "summary_fields", "StatusResult"]


class Status(str, Enum):
    """How a method stopped.  ``success``: the method did what it was asked
    (a proof, or convergence of its own loop); a limit or a failure is not
    success, although the best solution found is always returned."""

    OPTIMAL = "optimal"                           # proven optimal within the gap tolerance
    CONVERGED = "converged"                       # loop converged; bound certified, gap may remain
    HEURISTIC_CONVERGED = "heuristic_converged"   # heuristic pricing found nothing: no bound
    NOT_CERTIFIED = "not_certified"               # an exact pricing call failed
    TIME_LIMIT = "time_limit"
    ITERATION_LIMIT = "iteration_limit"
    NODE_LIMIT = "node_limit"
    INTERRUPTED = "interrupted"                   # Ctrl-C or SIGTERM, once (mipagg.interrupts)
    PART_CLOSED = "part_closed"                   # bp on one part of a split tree: that part closed
    OK = "ok"                                     # a heuristic run that finished
    ERROR = "error"

    def __str__(self) -> str:
        return self.value

    @property
    def success(self) -> bool:
        return self in _SUCCESS

    @property
    def message(self) -> str:
        return _MESSAGES[self]


_SUCCESS = frozenset({Status.OPTIMAL, Status.CONVERGED, Status.HEURISTIC_CONVERGED, Status.OK})

_MESSAGES = {
    Status.OPTIMAL: "Optimal: the lower bound meets the best SSE (within the gap tolerance).",
    Status.CONVERGED: "Converged: the bound is certified, a gap may remain.",
    Status.HEURISTIC_CONVERGED: "Heuristic pricing converged: no certified bound.",
    Status.NOT_CERTIFIED: "An exact pricing call failed: the LP value is not certified.",
    Status.TIME_LIMIT: "Time limit reached: best solution and certified bound so far.",
    Status.ITERATION_LIMIT: "Iteration limit reached: best solution and certified bound so far.",
    Status.NODE_LIMIT: "Node limit reached: best solution and certified bound so far.",
    Status.INTERRUPTED: "Interrupted (Ctrl-C or SIGTERM): best solution and certified bound "
                        "so far.",
    Status.PART_CLOSED: ("Part closed: no partition in this part's subtrees is below the best "
                         "SSE; the problem is proven once every part of the split is closed "
                         "(mipagg tree --combine)."),
    Status.OK: "Finished.",
    Status.ERROR: "Failed.",
}


class StatusResult:
    """Mixin of a result object with a ``status`` field: ``success`` and
    ``message`` read from it (scipy's ``OptimizeResult`` fields)."""

    status: Status

    @property
    def success(self) -> bool:
        return Status(self.status).success

    @property
    def message(self) -> str:
        return Status(self.status).message


def as_status(value) -> Status:
    """``value`` (a Status or its word) as a :class:`Status`.

    >>> as_status("converged")
    <Status.CONVERGED: 'converged'>
    """
    return value if isinstance(value, Status) else Status(value)


def summary_fields(result, names) -> dict:
    """``{name: value}`` of the dataclass fields (or properties) ``names`` of
    ``result``, statuses as their words: the base of every ``summary()``.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class R:
    ...     status: Status
    ...     nodes: int
    >>> summary_fields(R(Status.OPTIMAL, 3), ("status", "nodes"))
    {'status': 'optimal', 'nodes': 3}
    """
    out = {}
    for name in names:
        v = getattr(result, name)
        out[name] = v.value if isinstance(v, Status) else v
    return out
