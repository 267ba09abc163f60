"""Certified lower bounds and gaps for column generation (seed 001).

Only bounds backed by a proof are computed here: the value of a master LP whose
pricing proved that no cluster of size k..2k−1 has a negative reduced cost,
and the Lagrangian (Farley-type) bound below, valid at any duals λ for which
the exact minimum reduced cost of every cluster size is known.
"""

from __future__ import annotations

import numpy as np

__all__ = ["lagrangian_bound", "neighbour_duals", "neighbour_bound", "record_bound", "gap", "node_cutoff",
           "columns_below", "enumerate_below"]


def lagrangian_bound(duals: np.ndarray, min_reduced_costs: dict, k: int) -> float:
    """Farley-type Lagrangian lower bound on the optimal SSE.

    For any duals λ and r_η = min over clusters C with |C| = η of the reduced
    cost w_C − Σ_{v∈C} λ_v (seed 001 formula (10)), every partition π into
    groups of sizes k..2k−1 satisfies
    SSE(π) = Σ_v λ_v + Σ_{C∈π} r_C ≥ Σ_v λ_v + n·min(0, min_η r_η/η),
    because the group sizes add up to n; an optimal partition with such sizes
    exists (seed 001 Proposition 2.2).  With master duals, Σ_v λ_v is the
    master LP value, so the bound equals it once no negative column remains.
    O(n + k).

    ``min_reduced_costs`` maps every η in k..2k−1 to its proven minimum
    (a missing size raises ``KeyError``: the bound would not be certified).

    >>> import numpy as np
    >>> lagrangian_bound(np.array([1.0, 1.0, 1.0, 1.0]), {2: -0.5, 3: 0.2}, 2)
    3.0
    """
    duals = np.asarray(duals, dtype=float)
    n = duals.size
    ratio = min(min_reduced_costs[eta] / eta for eta in range(k, 2 * k))
    return float(duals.sum() + n * min(0.0, ratio))


def neighbour_duals(D: np.ndarray, k: int, edge_sums=None) -> np.ndarray:
    """Dual-feasible duals of the master LP (9) without any pricing:
    λ_v = min_{η = k..2k−1} S_v(η − 1)/(2η), S_v(m) the sum of the m smallest
    squared distances from record v to the others.

    Every cluster C of size η has w_C = Σ_{v∈C} Σ_{u∈C} D_uv/(2η) ≥ Σ_{v∈C} λ_v,
    so every reduced cost is ≥ 0 and Σ_v λ_v is a lower bound on the optimal
    SSE (an optimal partition with sizes k..2k−1 exists, seed 001 Prop. 2.2).
    Weak (about 60-75 % of the best known SSE of the CASC files) but free: the bound
    of last resort when column generation has certified nothing yet.
    ``edge_sums``: :func:`~mipagg.exact.pricing.search.edge_prefix_sums`
    (D, 2k − 2) when the caller has it already.  O(n² + n k log k).

    >>> import numpy as np
    >>> D = np.array([[0., 1, 4], [1, 0, 1], [4, 1, 0]])
    >>> neighbour_duals(D, 2).tolist()
    [0.25, 0.25, 0.25]
    """
    from .pricing.search import edge_prefix_sums

    D = np.asarray(D, dtype=float)
    n = D.shape[0]
    sizes = [eta for eta in range(k, 2 * k) if eta <= n]
    if n < 2 or not sizes:
        return np.zeros(n)
    S = edge_prefix_sums(D, 2 * k - 2) if edge_sums is None else edge_sums
    return np.min(np.stack([S[:, eta - 1] / (2.0 * eta) for eta in sizes]), axis=0)


def neighbour_bound(D: np.ndarray, k: int, edge_sums=None) -> float:
    """Σ_v λ_v of :func:`neighbour_duals`: a certified lower bound on the optimum."""
    return float(neighbour_duals(D, k, edge_sums).sum())


def record_bound(D: np.ndarray, k: int, duals: np.ndarray, edge_sums=None) -> float:
    """A per-record Lagrangian lower bound on the optimal SSE, valid at any
    duals λ (no pricing, no convergence needed).

    Every partition π into groups of sizes k..2k−1 (an optimal one exists,
    seed 001 Prop. 2.2) puts each record v in exactly one group, so
    SSE(π) = Σ_v λ_v + Σ_{C∈π} w̄_C = Σ_v [λ_v + w̄_{C(v)}/|C(v)|]
           ≥ Σ_v [λ_v + min_{η} ρ_v(η)/η],
    with w̄_C = w_C − Σ_{u∈C} λ_u (seed 001 formula (10)) and ρ_v(η) a lower
    bound on w̄_C over the groups C ∋ v of size η: writing
    w_C = Σ_{u∈C} Σ_{x∈C} D_ux/(2η) and bounding the edges of each other
    member u by its η−1 lightest ones, or by D_uv plus its η−2 lightest,
    ρ_v(η) = −λ_v + (sum of the η−1 smallest a_u, u ≠ v),
    a_u = [D_vu + max(S_u(η−1), D_uv + S_u(η−2))]/(2η) − λ_u,
    S_u(m) the sum of the m smallest squared distances at u.
    Farley's bound (:func:`lagrangian_bound`) charges every record the most
    negative reduced cost per record of the whole instance; this one charges
    each record only what its own neighbourhood allows and needs no exact
    pricing.  At the :func:`neighbour_duals` it is at least their sum.
    Measured on full Census, k = 10 (docs/bench/cg_full.md): IL 7.51 at the
    neighbour duals (their sum: 7.34), but far below zero at the master
    duals of a heuristic column generation, whose per-record terms are too
    loose there; 0.2–0.3 s per call, so the column generation loop does not
    use it.  ``edge_sums``: as in :func:`neighbour_duals`.  O(k·n²).

    >>> import numpy as np
    >>> D = np.array([[0., 1, 4], [1, 0, 1], [4, 1, 0]])
    >>> record_bound(D, 2, np.array([0.25, 0.25, 0.25])) >= 0.75 - 1e-12
    True
    """
    from .pricing.search import edge_prefix_sums

    D = np.asarray(D, dtype=float)
    lam = np.asarray(duals, dtype=float)
    n = D.shape[0]
    sizes = [eta for eta in range(k, 2 * k) if eta <= n]
    if n < 2 or not sizes:
        return 0.0
    S = edge_prefix_sums(D, 2 * k - 2) if edge_sums is None else edge_sums
    best = np.full(n, np.inf)
    for eta in sizes:
        A = (D + np.maximum(S[:, eta - 1][None, :], D + S[:, eta - 2][None, :])) / (2.0 * eta) \
            - lam[None, :]
        np.fill_diagonal(A, np.inf)
        smallest = np.partition(A, eta - 2, axis=1)[:, :eta - 1].sum(axis=1)
        best = np.minimum(best, (smallest - lam) / eta)
    return float(lam.sum() + best.sum())


def node_cutoff(best: float, gap_tol: float, tol_abs: float = 0.0) -> float:
    """The bound at or above which a node cannot lead to a partition better than
    ``best`` by more than the relative ``gap_tol`` (or the absolute ``tol_abs``).

    >>> node_cutoff(1000.0, 1e-3)
    999.0
    """
    return best - max(tol_abs, gap_tol * abs(best))


def gap(sse: float | None, lower_bound: float | None) -> float | None:
    """Gap (%) of a heuristic, seed 001 formula (15): 100·(SSE_H − LB)/SSE_H.

    >>> gap(10.0, 9.0)
    10.0
    """
    if sse is None or lower_bound is None:
        return None
    if sse <= 0:
        return 0.0
    return 100.0 * (sse - lower_bound) / sse


def enumerate_below(D, duals, eta: int, threshold: float, *, max_columns: int = 200_000,
                    max_nodes: int = 20_000_000, deadline: float | None = None,
                    constraints=None, space=None, threads: int = 1):
    """Every cluster of size η with reduced cost below ``threshold`` (see
    :func:`columns_below`), with an outcome: returns ``(status, clusters)``,
    status "complete" (clusters is the (m, η) array), "too_many_columns"
    (more than ``max_columns``), "too_many_nodes" (more than ``max_nodes``
    search nodes) or "time_limit" (``deadline``, a ``time.perf_counter()``
    value, passed; checked every few thousand nodes); clusters is ``None``
    unless complete.  ``constraints``: a node's branching pairs, cut
    penalties and excluded sizes (none of whose clusters is returned;
    :class:`~mipagg.exact.pricing.constraints.PricingConstraints`);
    the search is :func:`~mipagg.exact.pricing.search.search_clusters` in
    "collect" mode."""
    from .pricing.constraints import PricingConstraints
    from .pricing.search import SearchSpace, search_clusters

    D = np.ascontiguousarray(D, dtype=float)
    n = D.shape[0]
    cons = constraints if constraints is not None else PricingConstraints.none(n)
    if eta > n or cons.excludes(eta):
        return "complete", np.zeros((0, eta), dtype=np.int64)
    space = space if space is not None else SearchSpace.build(D, eta)
    out = search_clusters(space, np.ascontiguousarray(duals, dtype=float), cons, mode="collect",
                          threshold=float(threshold), deadline=deadline, threads=threads,
                          max_nodes=max_nodes, collect_cap=int(max_columns) + 1)
    if out.status != "complete":
        return out.status, None
    if out.columns.shape[0] > max_columns:
        return "too_many_columns", None
    return "complete", out.columns


def columns_below(D, duals, eta: int, threshold: float, *, max_columns: int = 200_000,
                  max_nodes: int = 20_000_000):
    """Every cluster of size η whose reduced cost w_C − Σ_{v∈C} λ_v (seed 001
    formula (10)) is below ``threshold``, as a (m, η) array of sorted record
    indices; ``None`` when there are more than ``max_columns`` or the search
    needs more than ``max_nodes`` nodes (:func:`enumerate_below` says which,
    and takes a deadline).

    Used to close the gap after column generation: with duals λ at which the
    exact minimum reduced cost r_η of every size is known, an optimal partition
    better than an upper bound UB only uses clusters with reduced cost below
    UB − Σλ + n·max(0, −min_η r_η), since SSE(π) = Σλ + Σ_{C∈π} w̄_C.  Branch and
    bound with the bound of :func:`~mipagg.exact.pricing._common.half_smallest_sums`;
    worst case O(C(n, η)·n log n).

    >>> import numpy as np
    >>> D = np.array([[0., 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]])
    >>> columns_below(D, np.ones(4), 2, 0.0).tolist()
    [[0, 1], [2, 3]]
    """
    status, found = enumerate_below(D, duals, eta, threshold, max_columns=max_columns,
                                    max_nodes=max_nodes)
    return found
