"""The certified gap of any partition: ``mipagg gap`` and :func:`certify`.

A researcher's heuristic gives a partition; how far is it from optimal?
:func:`certify` recomputes the partition's SSE and IL independently
(:func:`mipagg.verify.verify_table`, exact arithmetic, as ``mipagg verify``),
then runs branch-and-price (``bp``) or column generation (``cg``) with that
partition as the first incumbent and its groups in the master, within a time
limit, and reports

* the certified lower bound LB on the optimal SSE (never above the optimum:
  the least bound of the open nodes of ``bp``, the Lagrangian / LP bound of
  ``cg``, at worst the pricing-free neighbour bound), its source and status;
* the gap of the given partition, seed 001 formula (15):
  gap = 100·(SSE − LB)/SSE (0 means the given partition is proven optimal);
* the better partition the search found, if any (its SSE and IL recomputed
  the same way).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ParameterError
from .verify import LabelsError

if TYPE_CHECKING:
    from .partition import Partition

__all__ = ["CertifyResult", "NotFeasibleError", "certify", "BOUND_METHODS"]

BOUND_METHODS = ("bp", "cg")
DEFAULT_TIME_LIMIT = 60.0
# the given partition counts as proven optimal when within this share of the bound
OPTIMAL_RTOL = 1e-6


class NotFeasibleError(LabelsError):
    """The partition has a group smaller than k (``mipagg gap`` exits 1, as ``verify``)."""


@dataclass
class CertifyResult:
    """Outcome of :func:`certify`.

    ``sse``, ``sst``, ``il``: the given partition, recomputed exactly
    (:mod:`mipagg.verify`); ``lower_bound``: certified lower bound on the
    optimal SSE (``None`` only if none could be computed); ``bound_method``
    "bp" or "cg"; ``bound_source``: what proved it; ``bound_status``:
    "optimal" (the bound equals the best SSE found) or why the search stopped;
    ``better``: a partition with lower SSE found by the search, else ``None``.
    """

    k: int
    n: int
    sse: float
    sst: float
    il: float
    groups: int
    lower_bound: float | None
    bound_method: str
    bound_source: str | None
    bound_status: str
    seconds: float
    better: Partition | None = field(default=None, repr=False)
    better_sse: float | None = None
    better_il: float | None = None
    details: dict = field(default_factory=dict, repr=False)

    @property
    def gap(self) -> float | None:
        """100·(SSE − LB)/SSE of the given partition (%), 0 if proven optimal."""
        if self.lower_bound is None:
            return None
        if self.sse <= 0:
            return 0.0
        return max(0.0, 100.0 * (self.sse - self.lower_bound) / self.sse)

    @property
    def lower_bound_il(self) -> float | None:
        """The bound as an IL (100·LB/SST)."""
        return None if self.lower_bound is None else 100.0 * self.lower_bound / self.sst

    @property
    def proven_optimal(self) -> bool:
        """The given partition's SSE meets the certified bound."""
        return (self.lower_bound is not None
                and self.sse <= self.lower_bound + OPTIMAL_RTOL * max(1.0, abs(self.sse)))

    def summary(self) -> dict:
        return {"k": self.k, "n": self.n, "sse": self.sse, "sst": self.sst, "il": self.il,
                "groups": self.groups, "lower_bound": self.lower_bound,
                "lower_bound_il": self.lower_bound_il, "gap": self.gap,
                "proven_optimal": self.proven_optimal, "bound_method": self.bound_method,
                "bound_source": self.bound_source, "bound_status": self.bound_status,
                "better_sse": self.better_sse, "better_il": self.better_il,
                "seconds": self.seconds}


def _labels_of(labels, n: int) -> list[int]:
    """Integer labels from an array, a Partition or a RunResult."""
    for attr in ("partition", "labels"):
        while hasattr(labels, attr) and not isinstance(labels, np.ndarray):
            labels = getattr(labels, attr)
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise LabelsError(f"labels must be one-dimensional, got shape {arr.shape}")
    if arr.size != n:
        raise LabelsError(f"{arr.size} labels for {n} data records")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr.astype(float))) or np.any(arr != np.round(arr)):
            raise LabelsError("labels must be integers")
    if arr.size and arr.min() < 0:
        raise LabelsError("labels must be non-negative integers")
    return [int(v) for v in arr]


def exact_report(inst, labels: list[int], k: int) -> dict:
    """:func:`mipagg.verify.verify_table` on the instance's key columns, SSE
    and SST in the units of ``inst.X`` (standardized with ``inst.ddof``)."""
    from .verify import verify_table

    rep = verify_table(list(inst.columns), inst.raw.tolist(), labels, k)
    scale = (inst.n - inst.ddof) / (inst.n - 1)   # verify standardizes with n − 1
    rep["sse"] *= scale
    rep["sst"] *= scale
    return rep


def _as_instance(data):
    from .instance import Instance, from_array

    return data if isinstance(data, Instance) else from_array(data)


def certify(data, labels, k: int, *, time_limit: float | None = DEFAULT_TIME_LIMIT,
            method: str = "bp", verbose: bool = False, solver: str | None = None,
            **options) -> CertifyResult:
    """The certified gap of ``labels`` (array, Partition or RunResult) as a
    k-partition of ``data`` (an :class:`~mipagg.instance.Instance` or array).

    ``method``: "bp" (branch-and-price, default) or "cg" (column
    generation); ``options`` go to it (e.g. ``cuts=False``); the given
    partition is its ``initial`` incumbent; ``solver`` runs its MIPs on that
    solver through Pyomo (:mod:`mipagg.exact.solvers`, default HiGHS).  Raises
    :class:`NotFeasibleError` when a group has fewer than k records and
    :class:`~mipagg.verify.LabelsError` when the labels do not fit the data.

    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.]])
    >>> r = certify(X, [0, 0, 1, 1, 1, 1], 2, time_limit=10)
    >>> r.gap > 0, r.proven_optimal, r.better_sse is not None
    (True, False, True)
    """
    from .partition import Partition
    from .univariate import check_k

    if method not in BOUND_METHODS:
        raise ParameterError(f"bound method must be one of {', '.join(BOUND_METHODS)}, "
                             f"got {method!r}")
    if time_limit is not None and not (float(time_limit) > 0):
        raise ParameterError(f"time_limit must be positive, got {time_limit!r}")
    inst = _as_instance(data)
    labs = _labels_of(labels, inst.n)
    rep = exact_report(inst, labs, k)
    if not rep["feasible"]:
        raise NotFeasibleError(
            f"not {k}-feasible: {rep['small_groups']} group(s) smaller than k "
            f"(smallest has {rep['min_group']} record(s))")
    k = check_k(k, inst.n)
    given = Partition(np.asarray(labs), inst.X)
    from .exact.solvers import use_solver

    with use_solver(solver):
        return _certify(inst, rep, given, k, time_limit, method, verbose, options)


def _certify(inst, rep, given, k, time_limit, method, verbose, options) -> CertifyResult:
    t0 = time.perf_counter()
    res: Any   # a BranchAndPriceResult or a ColumnGenerationResult
    if method == "bp":
        from .exact.bp import branch_and_price

        res = branch_and_price(inst.X, k, time_limit=time_limit, initial=given,
                               verbose=verbose, **options)
        source = ({"root": "bp root bound", "gap_closing": "bp gap closing",
                   "tree": "bp search tree"}.get(res.closed_by)
                  or ("bp root bound (stopped before the tree)" if res.nodes <= 1
                      else "bp least bound of the open nodes"))
    else:
        from .exact.colgen import column_generation

        res = column_generation(inst.X, k, time_limit=time_limit, initial=given,
                                verbose=verbose, **options)
        source = f"cg {res.bound_source}" if res.bound_source else None
    seconds = time.perf_counter() - t0
    lower = res.lower_bound
    if lower is None:       # cg with heuristic pricing only: the pricing-free bound
        from .exact.bounds import neighbour_bound
        from .exact.master import squared_distances

        lower, source = neighbour_bound(squared_distances(inst.X), k), "neighbour bound"
    better = better_sse = better_il = None
    found = res.partition
    if found.is_feasible(k) and found.sse() < rep["sse"] - OPTIMAL_RTOL * max(1.0, rep["sse"]):
        check = exact_report(inst, found.labels.tolist(), k)
        if check["feasible"] and check["sse"] < rep["sse"]:
            better, better_sse, better_il = found, check["sse"], check["il"]
    return CertifyResult(k=k, n=inst.n, sse=rep["sse"], sst=rep["sst"], il=rep["il"],
                         groups=rep["groups"], lower_bound=lower, bound_method=method,
                         bound_source=source, bound_status=res.status, seconds=seconds,
                         better=better, better_sse=better_sse, better_il=better_il,
                         details=res.summary())
