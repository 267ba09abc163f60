"""Rounding heuristics that turn a fractional master solution into a k-partition.

Both follow the pseudocode of seed 001 section 5.2 (master phase):
:func:`simple_rounding` is SimpleRoundingHeuristic (with AddRemainingNodes)
and :func:`rounding_mst` is RoundingMSTHeuristic.  Each returns a
:class:`~mipagg.partition.Partition`; the caller keeps the best one (π*).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..partition import Partition
from .bases import ragged

__all__ = ["simple_rounding", "add_remaining_nodes", "rounding_mst", "edge_values",
           "mst_pair_order", "distance_pair_order"]


def add_remaining_nodes(X: np.ndarray, groups: list[np.ndarray], rest) -> list[np.ndarray]:
    """AddRemainingNodes of seed 001 section 5.2: every record of ``rest`` joins
    the group of ``groups`` whose centroid (before any record is added) is
    closest to it.  O(|rest| · |groups| · p)."""
    rest = np.asarray(rest, dtype=np.int64)
    if rest.size == 0:
        return list(groups)
    if not groups:
        return [rest]
    cents = np.array([X[g].mean(axis=0) for g in groups])
    d = ((X[rest][:, None, :] - cents[None, :, :]) ** 2).sum(axis=2)
    near = np.argmin(d, axis=1)
    return [np.sort(np.concatenate([g, rest[near == i]])) for i, g in enumerate(groups)]


def simple_rounding(X: np.ndarray, columns, x, k: int, *, weights=None) -> Partition:
    """SimpleRoundingHeuristic (seed 001 section 5.2).

    Repeatedly take the column with the largest x_C among those disjoint from
    the columns already taken, while at least 2k records are unassigned; then
    the 0 or k..2k−1 left-over records form one group, otherwise they join the
    nearest groups (AddRemainingNodes).  Ties in x_C are broken by the smaller
    SSE per record (``weights[C]/|C|`` when ``weights`` is given), then by
    column order.  O(m log m + m·s) for m columns of size ≤ s.

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.]])
    >>> p = simple_rounding(X, [[0, 1, 2], [3, 4, 5], [2, 3, 4]], [0.5, 0.5, 0.5], 3)
    >>> p.labels.tolist()
    [0, 0, 0, 1, 1, 1]
    """
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    x = np.asarray(x, dtype=float)
    idx, ptr = ragged(columns)
    sizes = np.diff(ptr).astype(float)
    tie = (np.asarray(weights, dtype=float) / sizes) if weights is not None else np.zeros(len(columns))
    order = np.lexsort((np.arange(len(columns)), tie, -x))
    taken, free = _take_disjoint(order, ptr, idx, n, k)
    chosen = [idx[ptr[j]:ptr[j + 1]].copy() for j in taken]
    rest = np.flatnonzero(free)
    if rest.size == 0:
        groups = chosen
    elif k <= rest.size <= 2 * k - 1 or not chosen:
        groups = chosen + [rest]
    else:
        groups = add_remaining_nodes(X, chosen, rest)
    return Partition.from_groups(groups, X)


def _take_disjoint_reference(order, ptr, idx, n, k):
    """The greedy scan of :func:`simple_rounding` in plain Python (reference):
    the columns taken, in ``order``, each disjoint from those before, while at
    least 2k records are free; returns (taken, free mask)."""
    free = np.ones(n, dtype=bool)
    n_free = n
    taken = []
    for j in order:
        if n_free < 2 * k:
            break
        c = idx[ptr[j]:ptr[j + 1]]
        if free[c].all():
            taken.append(int(j))
            free[c] = False
            n_free -= c.size
    return np.array(taken, dtype=np.int64), free


@njit(cache=True)
def _take_disjoint(order, ptr, idx, n, k):
    """Compiled twin of :func:`_take_disjoint_reference` (the same columns):
    the scan usually runs through every column of the master, since the last
    records left rarely make a free column (Census k = 4, about 11 000
    columns: docs/bench/casc_gap.md §85)."""
    free = np.ones(n, dtype=np.bool_)
    n_free = n
    taken = np.empty(order.size, dtype=np.int64)
    m = 0
    for t in range(order.size):
        if n_free < 2 * k:
            break
        j = order[t]
        ok = True
        for q in range(ptr[j], ptr[j + 1]):
            if not free[idx[q]]:
                ok = False
                break
        if ok:
            for q in range(ptr[j], ptr[j + 1]):
                free[idx[q]] = False
            n_free -= ptr[j + 1] - ptr[j]
            taken[m] = j
            m += 1
    return taken[:m], free


def edge_values(n: int, columns, x, *, tol: float = 1e-12) -> np.ndarray:
    """z_ij = Σ_{C ∋ i,j} x_C (step 1 of RoundingMSTHeuristic), as a dense (n, n)
    matrix: z = A·diag(x)·Aᵀ for the record-column incidence matrix A of the
    columns with x_C > tol.  O(n² + Σ|C|²)."""
    from scipy.sparse import csc_matrix

    x = np.asarray(x, dtype=float)
    keep = np.flatnonzero(x > tol)
    if keep.size == 0:
        return np.zeros((n, n))
    cols = [np.asarray(columns[j], dtype=np.int64) for j in keep]
    sizes = np.array([c.size for c in cols])
    A = csc_matrix((np.ones(sizes.sum()), np.concatenate(cols),
                    np.concatenate(([0], np.cumsum(sizes)))), shape=(n, keep.size))
    z = (A.multiply(x[keep][None, :]) @ A.T).toarray()
    np.fill_diagonal(z, 0.0)
    return z


def _glue_reference(ei, ej, n, maxcl):
    """Step 3(a)-(b) of RoundingMSTHeuristic with a plain union-find (reference)."""
    parent = list(range(n))
    size = [1] * n

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for i, j in zip(ei, ej):
        a, b = find(i), find(j)
        if a != b and size[a] + size[b] <= maxcl:
            if size[a] < size[b]:
                a, b = b, a
            parent[b] = a
            size[a] += size[b]
    return np.array([find(a) for a in range(n)])


@njit(cache=True)
def _glue(ei, ej, n, maxcl):
    """Compiled twin of :func:`_glue_reference` (same merges, same roots)."""
    parent = np.arange(n)
    size = np.ones(n, dtype=np.int64)
    for t in range(ei.size):
        a = ei[t]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        b = ej[t]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b and size[a] + size[b] <= maxcl:
            if size[a] < size[b]:
                a, b = b, a
            parent[b] = a
            size[a] += size[b]
    roots = np.empty(n, dtype=np.int64)
    for v in range(n):
        a = v
        while parent[a] != a:
            a = parent[a]
        roots[v] = a
    return roots


def distance_pair_order(D):
    """The pairs i < j of the records sorted by increasing ``D[i, j]`` (ties by
    the row-major order of ``np.triu_indices``), as two int64 arrays: the scan
    order of the pairs with z_ij = 0 in :func:`rounding_mst`.  It depends on D
    only, so column generation computes it once.  O(n² log n)."""
    n = D.shape[0]
    ei, ej = np.triu_indices(n, 1)
    order = np.argsort(D[ei, ej], kind="stable")
    return ei[order].astype(np.int64), ej[order].astype(np.int64)


def mst_pair_order(z, D, pair_order=None):
    """Step 2 of RoundingMSTHeuristic: the pairs i < j by decreasing z_ij,
    ties by increasing D_ij, then by ``np.triu_indices`` order.

    ``pair_order=None`` sorts all n(n−1)/2 pairs (the literal step,
    O(n² log n)); given :func:`distance_pair_order` (D), only the pairs with
    z_ij > 0 — those inside some column with x_C > 0, usually a few thousand
    — are sorted and the precomputed order supplies the z_ij = 0 tail: the
    same sequence in O(P log P + n²) for P positive pairs.
    """
    n = D.shape[0]
    if pair_order is None:
        ei, ej = np.triu_indices(n, 1)
        order = np.lexsort((D[ei, ej], -z[ei, ej]))
        return ei[order].astype(np.int64), ej[order].astype(np.int64)
    pi, pj = np.nonzero(np.triu(z, 1) > 0)          # row-major, like triu_indices
    first = np.lexsort((D[pi, pj], -z[pi, pj]))
    zi, zj = pair_order
    rest = z[zi, zj] == 0
    return (np.concatenate((pi[first].astype(np.int64), zi[rest])),
            np.concatenate((pj[first].astype(np.int64), zj[rest])))


def rounding_mst(X: np.ndarray, columns, x, k: int, *, D=None, compiled: bool = True,
                 pair_order=None):
    """RoundingMSTHeuristic (seed 001 section 5.2).

    With z_ij = Σ_{C ∋ i,j} x_C, for each maxcl = k+1, ..., 2k−1 start from
    singletons and scan the pairs by decreasing z_ij, gluing the groups of i
    and j when their sizes add up to at most maxcl; keep the best k-feasible
    result.  Ties in z_ij (notably the many z_ij = 0) are scanned by increasing
    squared distance ``D`` (our choice; the paper leaves the order open).
    Returns the best feasible :class:`Partition`, or ``None`` when no maxcl
    gives one.  O(n² log n + k n² α(n)); with ``pair_order`` =
    :func:`distance_pair_order` (D) precomputed, the sort costs only
    O(P log P + n²) for the P pairs with z_ij > 0 (same result,
    :func:`mst_pair_order`).  ``compiled=False`` uses the plain union-find.

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.]])
    >>> rounding_mst(X, [[0, 1, 2], [3, 4, 5]], [1.0, 1.0], 3).labels.tolist()
    [0, 0, 0, 1, 1, 1]
    """
    from .master import squared_distances

    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    D = squared_distances(X) if D is None else D
    z = edge_values(n, columns, x)
    ei, ej = mst_pair_order(z, D, pair_order)
    glue = _glue if compiled else _glue_reference
    best, best_sse = None, np.inf
    for maxcl in range(k + 1, 2 * k):
        p = Partition(glue(ei, ej, n, maxcl), X)
        if p.is_feasible(k):
            s = p.sse()
            if s < best_sse:
                best, best_sse = p, s
    return best
