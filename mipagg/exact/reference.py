"""Independent exact references for tiny instances (used by the tests of the
column-generation code).

- :func:`optimal_partition_bruteforce`: dynamic programming over subsets of
  records; the group holding the lowest unassigned record is always chosen
  next, so every partition is generated once.  O(2^n · Σ_s C(n−1, s−1)).
- :func:`set_partitioning`: model (9) of seed 001 (section 4.1) with every
  cluster of size k..2k−1 written out (weights (8)), solved as LP or MIP by
  HiGHS through highspy.  Its LP value is the bound column generation
  converges to; its MIP value is the optimal SSE.

Both use group sizes k..2k−1, which contain an optimal partition
(Domingo-Ferrer & Mateo-Sanz 2002; seed 001 Proposition 2.2; seed 004
section 2).  Practical sizes (docs/bench/pricing.md, Census subsets): brute
force n ≤ 16 (≈1-2 s at n = 16); set partitioning n ≤ 25 with k = 2 or 3
(seconds), k = 4 up to n ≈ 21 (20-100 s for the MIP); the LP alone stays
within a few seconds up to 200 000 clusters.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from ..errors import ParameterError, SolverError
from ..partition import Partition
from ..validation import as_rows, check_k
from .highs import new_highs

__all__ = ["optimal_partition_bruteforce", "set_partitioning", "enumerate_clusters"]

MAX_BRUTEFORCE_N = 16
MAX_CLUSTERS = 3_000_000


def enumerate_clusters(X, k, *, max_size=None):
    """Every cluster of size k..max_size (default 2k−1) of the rows of ``X``
    with its SSE (formula (8) of seed 001).

    Returns (clusters, costs): a list of (m_s, s) int arrays, one per size s,
    and the matching list of cost arrays.
    """
    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    top = min(2 * k - 1 if max_size is None else max_size, n)
    total = sum(comb(n, s) for s in range(k, top + 1))
    if total > MAX_CLUSTERS:
        raise ParameterError(f"{total} clusters of size {k}..{top} for n = {n}: too many "
                             f"to enumerate (limit {MAX_CLUSTERS})")
    clusters, costs = [], []
    for s in range(k, top + 1):
        C = np.array(list(itertools.combinations(range(n), s)), dtype=np.int64).reshape(-1, s)
        G = X[C]  # (m, s, p)
        costs.append(((G - G.mean(axis=1, keepdims=True)) ** 2).sum(axis=(1, 2)))
        clusters.append(C)
    return clusters, costs


def optimal_partition_bruteforce(X, k, *, max_size=None) -> tuple[float, Partition]:
    """Optimal k-partition by dynamic programming over subsets (n ≤ 16).

    ``dp[mask]`` is the least SSE of a partition of the records in ``mask``
    into groups of size k..max_size (default 2k−1) in which every group is
    "closed" under the rule that the next group contains the lowest record
    not yet in ``mask``; O(2^n · number of groups).

    >>> sse, part = optimal_partition_bruteforce([[0.], [1.], [10.], [11.]], 2)
    >>> sse, part.labels.tolist()
    (1.0, [0, 0, 1, 1])
    """
    X = as_rows(X)
    n = X.shape[0]
    if n > MAX_BRUTEFORCE_N:
        raise ParameterError(f"brute force is limited to n <= {MAX_BRUTEFORCE_N}, got n = {n}")
    clusters, costs = enumerate_clusters(X, k, max_size=max_size)
    C_all = [c for block in clusters for c in block]
    cost_all = np.concatenate(costs)
    mask_all = np.array([sum(1 << int(v) for v in c) for c in C_all], dtype=np.int64)
    low_all = np.array([int(c[0]) for c in C_all], dtype=np.int64)
    by_low = [np.flatnonzero(low_all == i) for i in range(n)]

    full = (1 << n) - 1
    dp = np.full(1 << n, np.inf)
    choice = np.full(1 << n, -1, dtype=np.int64)
    dp[0] = 0.0
    for mask in range(full):
        if not np.isfinite(dp[mask]):
            continue
        free = ~mask & full
        low = (free & -free).bit_length() - 1
        idx = by_low[low]
        idx = idx[(mask_all[idx] & mask) == 0]
        if idx.size == 0:
            continue
        nxt = mask_all[idx] | mask
        val = dp[mask] + cost_all[idx]
        better = val < dp[nxt]
        dp[nxt[better]] = val[better]
        choice[nxt[better]] = idx[better]
    if not np.isfinite(dp[full]):
        raise SolverError(f"no partition of {n} records into groups of the allowed sizes")
    groups, mask = [], full
    while mask:
        g = choice[mask]
        groups.append(C_all[g])
        mask ^= int(mask_all[g])
    part = Partition.from_groups(groups, X)
    return float(dp[full]), part


def _highs_solve(cost, start, index, n, *, integral, time_limit):
    """Solve min cost·x, Ax = 1, 0 ≤ x ≤ 1 (A given column-wise by start/index)
    with HiGHS; returns (value, x, row duals)."""
    import highspy

    m = cost.size
    lp = highspy.HighsLp()
    lp.num_col_ = m
    lp.num_row_ = n
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(m)
    lp.col_upper_ = np.ones(m)
    lp.row_lower_ = np.ones(n)
    lp.row_upper_ = np.ones(n)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = start.astype(np.int32)
    lp.a_matrix_.index_ = index.astype(np.int32)
    lp.a_matrix_.value_ = np.ones(index.size)
    if integral:
        lp.integrality_ = [highspy.HighsVarType.kInteger] * m
    h = new_highs()
    if integral:
        h.setOptionValue("mip_rel_gap", 0.0)
        h.setOptionValue("mip_abs_gap", 1e-9)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS ended with status {h.modelStatusToString(status)}")
    sol = h.getSolution()
    duals = None if integral else np.asarray(sol.row_dual)
    return float(h.getInfo().objective_function_value), np.asarray(sol.col_value), duals


def set_partitioning(X, k, *, integral: bool, time_limit=None, with_duals=False):
    """Set-partitioning model (9) of seed 001 (section 4.1) over all clusters
    of size k..2k−1, solved by HiGHS (highspy).

    ``integral=False``: LP relaxation, returns (value, x) with x the column
    values in the order of :func:`enumerate_clusters` (sizes k..2k−1
    concatenated), plus the row duals λ if ``with_duals``.  The LP value is
    the lower bound column generation converges to.

    ``integral=True``: returns (optimal SSE, Partition).  The LP is solved
    first and reduced-cost fixing keeps only the columns with reduced cost
    ≤ UB − LB (UB = MDAV's SSE): every column of a solution no worse than UB
    passes this test, so the MIP on the kept columns is still exact.

    Raises ``SolverError`` if HiGHS does not finish optimally (e.g.
    ``time_limit`` seconds reached, applied to each solve).

    >>> v, part = set_partitioning([[0.], [1.], [10.], [11.]], 2, integral=True)
    >>> round(v, 9), part.labels.tolist()
    (1.0, [0, 0, 1, 1])
    """
    X = as_rows(X)
    n = X.shape[0]
    clusters, costs = enumerate_clusters(X, k)
    cost = np.concatenate(costs)
    index = np.concatenate([c.ravel() for c in clusters])
    sizes = np.concatenate([np.full(c.shape[0], c.shape[1]) for c in clusters])
    start = np.concatenate([[0], np.cumsum(sizes)])
    lb, x, duals = _highs_solve(cost, start, index, n, integral=False, time_limit=time_limit)
    if not integral:
        return (lb, x, duals) if with_duals else (lb, x)

    from ..heuristics.mdav import mdav

    ub = mdav(X, k).sse()
    col = np.repeat(np.arange(cost.size), sizes)
    rc = cost - np.bincount(col, weights=duals[index], minlength=cost.size)
    keep = np.flatnonzero(rc <= ub - lb + 1e-7 * max(1.0, abs(ub)))
    k_sizes = sizes[keep]
    k_start = np.concatenate([[0], np.cumsum(k_sizes)])
    k_index = np.concatenate([index[start[j]:start[j + 1]] for j in keep])
    _, xk, _ = _highs_solve(cost[keep], k_start, k_index, n, integral=True,
                            time_limit=time_limit)
    chosen = [index[start[j]:start[j + 1]] for j in keep[xk > 0.5]]
    part = Partition.from_groups(chosen, X)
    return part.sse(), part
