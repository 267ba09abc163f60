"""Dynamic constraint aggregation at the root: a remedy for the degenerate
master at large k.

When the restricted master (seed 001, model (9)) starts from a good
partition, its LP optimum sits at that partition for hundreds of
iterations: the basis is primal degenerate (about n/k of n rows have a
positive column), the duals jump between vertices of a huge optimal face,
and pricing keeps finding columns that enter at 0 (Census k = 10,
``docs/bench/aggregation.md``).  Dynamic constraint aggregation (Elhallaoui,
Villeneuve, Soumis & Desaulniers, Dynamic aggregation of set-partitioning
constraints in column generation, Oper. Res. 53(4), 2005; used for minimum
sum-of-squares clustering by Sudoso & Aloise, 2024) solves a smaller master
instead:

* the records are grouped into *aggregates*, at first the groups of the
  incumbent; a column is *compatible* when it is a union of aggregates;
* the aggregated master has one row per aggregate and the compatible
  columns only (the same LP as model (9) restricted to them, since the
  records of an aggregate have identical rows), so it is not degenerate at
  the start and its value falls as columns arrive;
* its duals μ_A are split over the records, λ_v = ν_v + (μ_A − ν(A))/|A|
  for v ∈ A, ν the neighbour duals (:func:`~mipagg.exact.bounds.neighbour_duals`),
  so Σ_{v∈A} λ_v = μ_A and a compatible column's reduced cost is its
  aggregated one; pricing runs at λ over all clusters;
* when pricing returns no negative compatible column, the aggregation is
  refined along the most negative incompatible ones (each aggregate A is
  split into A ∩ C and A \\ C).

Bounds: at any λ for which every size was priced exactly the Lagrangian
bound (:func:`~mipagg.exact.bounds.lagrangian_bound`) is certified; when
pricing at λ finds no negative column at all, λ is dual feasible for the
full master and the aggregated LP value is the LP optimum.  The phase stops
there, at a time or size limit (``max_share`` · n aggregates), and hands
the columns it found to the full master, whose loop
(:func:`~mipagg.exact.node.solve_node`) finishes the root.  Cost per
iteration: one LP of (aggregates × compatible columns), rebuilt, plus one
pricing round.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .bounds import lagrangian_bound, neighbour_duals
from .highs import new_highs
from .pricing import reduced_cost
from .pricing.rounds import pricing_round

__all__ = ["AggregationResult", "aggregated_root", "refine", "compatible", "compatible_mask",
           "disaggregate", "MAX_SHARE", "REFINE_COLUMNS"]

MAX_SHARE = 0.5        # hand over to the full master beyond 0.5·n aggregates
REFINE_COLUMNS = 5     # incompatible columns that refine the aggregation per iteration


@dataclass
class AggregationResult:
    """What the aggregated phase did: ``iterations``, final number of
    ``aggregates``, ``refinements``, the aggregated LP ``value`` at the end,
    the best certified ``bound`` (None if none), ``converged`` (pricing at
    the last duals found no negative column: ``value`` is the LP optimum),
    ``reason`` it stopped and wall ``seconds``."""

    iterations: int
    aggregates: int
    refinements: int
    value: float | None
    bound: float | None
    converged: bool
    reason: str
    seconds: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def labels_of(groups, n: int) -> np.ndarray:
    """The aggregate label of every record (groups of a partition)."""
    lab = np.full(n, -1, dtype=np.int64)
    for a, g in enumerate(groups):
        lab[np.asarray(g, dtype=np.int64)] = a
    if (lab < 0).any():
        raise ValueError("the groups must cover every record")
    return lab


def compatible_mask(labels: np.ndarray, sizes: np.ndarray, columns) -> np.ndarray:
    """Which of ``columns`` are unions of whole aggregates: one sort of the
    (column, aggregate) pairs of all members, O(M log M) for M members.

    >>> lab = np.array([0, 0, 1, 1, 2])
    >>> compatible_mask(lab, np.bincount(lab), [[0, 1, 4], [0, 2], [2, 3]]).tolist()
    [True, False, True]
    """
    lens = np.fromiter((len(c) for c in columns), dtype=np.int64, count=len(columns))
    if not lens.size:
        return np.zeros(0, dtype=bool)
    m = np.int64(sizes.size)
    members = np.concatenate([np.asarray(c, dtype=np.int64) for c in columns])
    pairs, counts = np.unique(np.repeat(np.arange(lens.size), lens) * m + labels[members],
                              return_counts=True)
    cut = counts != sizes[pairs % m]          # an aggregate only partly in the column
    ok = np.ones(lens.size, dtype=bool)
    ok[pairs[cut] // m] = False
    return ok


def compatible(labels: np.ndarray, sizes: np.ndarray, column) -> bool:
    """Whether ``column`` is a union of whole aggregates.

    >>> lab = np.array([0, 0, 1, 1, 2])
    >>> compatible(lab, np.bincount(lab), [0, 1, 4]), compatible(lab, np.bincount(lab), [0, 2])
    (True, False)
    """
    return bool(compatible_mask(labels, sizes, [column])[0])


def refine(labels: np.ndarray, column) -> np.ndarray:
    """The aggregation split along ``column``: every aggregate A becomes
    A ∩ C and A \\ C (labels renumbered 0..m−1).

    >>> refine(np.array([0, 0, 0, 1, 1]), [1, 3, 4]).tolist()
    [0, 1, 0, 2, 2]
    """
    inside = np.zeros(labels.size, dtype=np.int64)
    inside[np.asarray(column, dtype=np.int64)] = 1
    _, new = np.unique(labels * 2 + inside, return_inverse=True)
    return new.astype(np.int64)


def disaggregate(mu: np.ndarray, labels: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """Record duals λ with Σ_{v∈A} λ_v = μ_A for every aggregate A, shaped by
    the reference duals ν: λ_v = ν_v + (μ_A − ν(A))/|A|.

    >>> disaggregate(np.array([3.0, 1.0]), np.array([0, 0, 1]), np.array([0.5, 1.5, 2.0])).tolist()
    [1.0, 2.0, 1.0]
    """
    sizes = np.bincount(labels, minlength=mu.size).astype(float)
    excess = (mu - np.bincount(labels, weights=nu, minlength=mu.size)) / sizes
    return nu + excess[labels]


def _aggregated_lp(columns, weights, labels, m, artificial_cost):
    """Solve min Σ w x over the compatible columns, one row per aggregate
    (plus an artificial column per aggregate): (value, μ)."""
    h = new_highs(presolve="off")
    one = np.ones(m)
    empty = np.zeros(0, dtype=np.int32)
    h.addRows(m, one, one, 0, empty, empty, np.zeros(0))
    idx = np.arange(m, dtype=np.int32)
    h.addCols(m, np.full(m, float(artificial_cost)), np.zeros(m), np.full(m, np.inf),
              m, idx, idx, one)
    if columns:
        starts, rows = [], []
        for c in columns:
            starts.append(len(rows))
            rows.extend(np.unique(labels[c]).tolist())
        q = len(columns)
        h.addCols(q, np.asarray(weights, dtype=float), np.zeros(q), np.full(q, np.inf),
                  len(rows), np.asarray(starts, dtype=np.int32),
                  np.asarray(rows, dtype=np.int32), np.ones(len(rows)))
    h.run()
    sol = h.getSolution()
    return float(h.getInfo().objective_function_value), np.asarray(sol.row_dual, dtype=float)


def aggregated_root(master, ctx, groups, loop, *, deadline=None, max_share=MAX_SHARE,
                    refine_columns=REFINE_COLUMNS, progress=None) -> AggregationResult:
    """The aggregated phase of the root (module docstring), from the
    aggregation ``groups`` (the incumbent's).  Every column priced is added
    to ``master`` (the full restricted master, no cut rows yet); ``loop``:
    the run's :class:`~mipagg.exact.settings.LoopSettings` (pricing mode,
    exact rule, columns per round)."""
    t0 = time.perf_counter()
    n, k = ctx.n, ctx.k
    labels = labels_of(groups, n)
    nu = neighbour_duals(ctx.D, k, ctx.edge_sums)
    cost = master.artificial_cost if master.artificial_cost is not None else \
        float(ctx.D.sum()) + 1.0
    best_lb, value, it, refinements, reason = None, None, 0, 0, "time_limit"
    while deadline is None or time.perf_counter() < deadline:
        it += 1
        m = int(labels.max()) + 1
        sizes = np.bincount(labels, minlength=m)
        comp = np.flatnonzero(compatible_mask(labels, sizes, master.columns))
        value, mu = _aggregated_lp([master.columns[j] for j in comp],
                                   [master.weights[j] for j in comp], labels, m, cost)
        lam = disaggregate(mu, labels, nu)
        r = pricing_round(ctx, lam, mode=loop.pricing, complete=True,
                          max_columns=loop.max_columns, deadline=deadline,
                          exact_rule=loop.exact_rule, chain=loop.size_chain)
        if r.complete(k):
            lb = lagrangian_bound(lam, r.min_reduced_costs, k)
            best_lb = lb if best_lb is None else max(best_lb, lb)
        if progress is not None:
            progress.update(phase="aggregation", iteration=it, aggregates=m, lp=value,
                            bound=best_lb)
        if r.timed_out:
            break
        if not r.columns:
            reason = "converged" if r.complete(k) else "not_certified"
            break
        master.add_columns(r.columns)
        if not compatible_mask(labels, sizes, r.columns).any():
            for c in _most_negative(ctx.D, lam, r.columns, refine_columns):
                labels = refine(labels, c)
                refinements += 1
        if labels.max() + 1 > max_share * n:
            reason = "size_limit"
            break
    return AggregationResult(it, int(labels.max()) + 1, refinements, value, best_lb,
                             reason == "converged", reason, time.perf_counter() - t0)


def _most_negative(D, lam, columns, count):
    rc = [reduced_cost(D, lam, c, len(c)) for c in columns]
    order = np.argsort(rc, kind="stable")[:count]
    return [columns[i] for i in order if rc[i] < 0]
