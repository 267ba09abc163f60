"""Certified lower bounds and gaps for column generation (seed 001).

Only bounds backed by a proof are computed here: the value of a master LP whose
pricing proved that no cluster of size k..2k−1 has a negative reduced cost,
and the Lagrangian (Farley-type) bound below, valid at any duals λ for which
the exact minimum reduced cost of every cluster size is known.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["lagrangian_bound", "gap", "columns_below", "enumerate_below"]


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


@njit(cache=True)
def _columns_below(D, lam, H, eta, thr, out, count_arr, members, nxt, acc, rc, depth_arr,
                   budget):
    """Depth-first enumeration of the clusters of size η with reduced cost < thr,
    appended to ``out`` (``count_arr[0]`` rows used).  All search state lives in
    the arrays (``depth_arr[0]`` is the current depth, −1 once finished), so the
    search runs in slices of at most ``budget`` nodes and the caller can check
    the clock in between.  Returns 1 when the search is complete, 0 when the
    budget ran out (call again to resume), −1 when ``out`` is full."""
    n = D.shape[0]
    count = count_arr[0]
    nodes = 0
    d = depth_arr[0]
    while d >= 0:
        nodes += 1
        if nodes > budget:
            depth_arr[0] = d
            count_arr[0] = count
            return 0
        t = nxt[d]
        if t > n - (eta - d):
            d -= 1
            continue
        nxt[d] = t + 1
        new_rc = rc[d] + acc[d, t] / eta - lam[t]
        r = eta - d - 1                     # records still to add after t
        if r == 0:
            if new_rc < thr:
                if count == out.shape[0]:
                    depth_arr[0] = d
                    count_arr[0] = count
                    return -1
                members[d] = t
                out[count, :] = members
                count += 1
            continue
        # completion T (|T| = r) of members ∪ {t}: each u ∈ T adds its edges to the
        # current members, −λ_u, and at least H[u, r−1] for the edges inside T
        m = n - t - 1
        g = np.empty(m)
        for j in range(m):
            u = t + 1 + j
            g[j] = (acc[d, u] + D[t, u]) / eta - lam[u] + H[u, r - 1]
        g.sort()
        if new_rc + g[:r].sum() >= thr:
            continue
        members[d] = t
        for u in range(n):
            acc[d + 1, u] = acc[d, u] + D[t, u]
        rc[d + 1] = new_rc
        d += 1
        nxt[d] = t + 1
    depth_arr[0] = -1
    count_arr[0] = count
    return 1


_SLICE = 200_000   # search nodes between two clock checks (~10-100 ms)


def enumerate_below(D, duals, eta: int, threshold: float, *, max_columns: int = 200_000,
                    max_nodes: int = 20_000_000, deadline: float | None = None):
    """Every cluster of size η with reduced cost below ``threshold`` (see
    :func:`columns_below`), with an outcome: returns ``(status, clusters)``,
    status "complete" (clusters is the (m, η) array), "too_many_columns"
    (more than ``max_columns``), "too_many_nodes" (more than ``max_nodes``
    search nodes) or "time_limit" (``deadline``, a ``time.perf_counter()``
    value, passed; checked every few hundred thousand nodes); clusters is
    ``None`` unless complete."""
    import time

    from .pricing._common import half_smallest_sums

    D = np.ascontiguousarray(D, dtype=float)
    n = D.shape[0]
    if eta > n:
        return "complete", np.zeros((0, eta), dtype=np.int64)
    H = half_smallest_sums(D, eta)
    lam = np.ascontiguousarray(duals, dtype=float)
    out = np.empty((max_columns, eta), dtype=np.int64)
    count = np.zeros(1, dtype=np.int64)
    members = np.empty(eta, dtype=np.int64)
    nxt = np.zeros(eta, dtype=np.int64)     # next candidate record at each depth
    acc = np.zeros((eta, n))                # acc[d, u] = Σ_{s in members[:d]} D[s, u]
    rc = np.zeros(eta)                      # reduced cost of members[:d]
    depth = np.zeros(1, dtype=np.int64)
    used = 0
    while True:
        if deadline is not None and time.perf_counter() >= deadline:
            return "time_limit", None
        budget = min(_SLICE, int(max_nodes) - used)
        if budget <= 0:
            return "too_many_nodes", None
        code = _columns_below(D, lam, H, eta, float(threshold), out, count, members, nxt,
                              acc, rc, depth, budget)
        used += budget
        if code == 1:
            return "complete", out[:count[0]].copy()
        if code == -1:
            return "too_many_columns", None


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
