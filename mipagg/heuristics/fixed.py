"""Fixed-size microaggregation: maximum distance (MD) and CBFS.

Both follow seed 004 (Domingo-Ferrer, Martínez-Ballesté, Mateo-Sanz & Sebé
2006), section 4.2, where they also serve as path constructions
(:mod:`mipagg.heuristics.paths`).

* MD (§4.2.2; Mateo-Sanz & Domingo-Ferrer 1999, "diameter-based fixed-size"
  in Laszlo & Mukherjee 2005): repeatedly take the two most distant remaining
  records r and s; form a group of r and its k−1 nearest remaining records,
  then a group of s and its k−1 nearest remaining records; while at least 2k
  records remain.  k..2k−1 leftovers form a group; fewer than k leftovers join
  the group whose centroid is closest to their centroid.
* CBFS (§4.2.3; Laszlo & Mukherjee 2005): like MDAV but one group per
  centroid: r = the remaining record farthest from the centroid of the
  remaining records, grouped with its k−1 nearest; while at least 2k records
  remain; the k..2k−1 last records form the last group.

Ties (equal distances) are broken by the lowest row index.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..partition import Partition
from ..validation import as_rows, check_k
from . import _index as ix
from ._common import centroid as _centroid, farthest_from_centroid, nearest, sqdist_to

__all__ = ["md", "md_groups", "md_groups_reference", "cbfs", "cbfs_groups",
           "cbfs_groups_reference"]




def group_around(X, free, center, k):
    """Take ``center`` and its k−1 nearest free records out of ``free``;
    return them (centre first)."""
    rows = np.flatnonzero(free)
    g = _centre_first(rows[nearest(X, rows, X[center], k)], center, k)
    free[g] = False
    return g


def _centre_first(g, center, k):
    """The k nearest ``g`` of ``center`` with the centre first (duplicates at
    distance 0 may put another record first, or leave the centre out)."""
    if g[0] != center:
        g = np.concatenate(([center], g[g != center][: k - 1]))
    return g


def _attach_leftovers(X, groups, left):
    """Seed 004 §4.2.2 step 4 / §4.2.3 step 5: fewer than k leftovers join the
    group whose centroid is closest to the leftovers' centroid."""
    c = X[left].mean(axis=0)
    cents = np.array([X[g].mean(axis=0) for g in groups])
    j = int(np.argmin(((cents - c) ** 2).sum(axis=1)))
    groups[j] = np.concatenate((groups[j], left))


def pair_groups(X, free, r, s, k, groups):
    """Seed 004 §4.2.2 step 1b / §4.2.3 step 2: a group around r, then one
    around s (if s went into r's group — all records equidistant — the
    farthest free record from r takes its place)."""
    groups.append(group_around(X, free, r, k))
    if not free[s]:
        rest = np.flatnonzero(free)
        s = int(rest[int(np.argmax(sqdist_to(X, rest, X[r])))])
    groups.append(group_around(X, free, s, k))


def close_groups(X, free, k, groups):
    """The last step: k or more leftovers form a group, fewer join the nearest."""
    left = np.flatnonzero(free)
    if left.size >= k:
        groups.append(left)
    elif left.size:
        _attach_leftovers(X, groups, left)
    return groups


def _farthest_scan(X, rows, of):
    """For every record of ``of``: its farthest record among ``rows`` (lowest
    index on ties) and the squared distance, by a scan (O(|of|·|rows|·p))."""
    far = np.empty(len(of), dtype=np.int64)
    fd = np.empty(len(of))
    for t, i in enumerate(of):
        d = sqdist_to(X, rows, X[i])
        j = int(np.argmax(d))
        far[t], fd[t] = rows[j], d[j]
    return far, fd


def _farthest_upper(X, T):
    """An upper bound on every record's farthest squared distance, (‖x − c₀‖ +
    R)² with c₀ the index's reference point and R the largest ‖x − c₀‖ (the
    triangle inequality, with a margin far above rounding): O(n·p)."""
    nu = np.sqrt(((X - T[14]) ** 2).sum(axis=1))
    return (nu + nu.max()) ** 2 * (1.0 + 1e-9) + 1e-300


def _md_candidates(X, T, free, far, fd, heap):
    """The records i whose cached farthest distance fd[i] is within 1e-9
    (relative) of the largest, ascending, after recomputing the stale ones
    (partner grouped) — lazily: a stale record is recomputed (by the index,
    against the remaining records) only when its old distance, an upper bound
    on its new one, reaches the top of the max-heap ``heap`` of
    (−fd[i], i, far[i]); the same set as recomputing every stale record.
    ``far[i]`` = −1: not computed yet, ``fd[i]`` an upper bound."""
    best = None
    popped = []
    while heap:
        v, i, j = heap[0]
        if not free[i] or far[i] != j or fd[i] != -v:  # outdated entry
            heapq.heappop(heap)
            continue
        if best is not None and -v < best - 1e-9 * max(1.0, best):
            break
        heapq.heappop(heap)
        if j < 0 or not free[j]:  # unknown or stale: recompute, back into the heap
            ix.farthest_each(T, X, free, np.array([i]), far, fd)
            heapq.heappush(heap, (-fd[i], i, far[i]))
            continue
        popped.append(i)
        if best is None:
            best = -v
    for i in popped:
        heapq.heappush(heap, (-fd[i], i, far[i]))
    return np.array(sorted(popped), dtype=np.int64)


def md_groups(X: np.ndarray, k: int, *, verbose: bool = False) -> list[np.ndarray]:
    """Groups of maximum distance (seed 004 §4.2.2), in formation order; each
    group starts with its centre (r or s).  Exactly the groups of
    :func:`md_groups_reference`, in O(n·p) memory: the partners are computed
    lazily (only for the records that could still reach the top, from an
    upper bound) and the k nearest found, by the exact index of
    :mod:`mipagg.heuristics._index`; progress on stderr when ``verbose``."""
    from ..progress import Progress

    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    progress = Progress("md", enabled=verbose)
    free = np.ones(n, dtype=bool)
    T = ix.build_tree(X, ix.LEAF_SIZE)
    far = np.full(n, -1, dtype=np.int64)
    fd = _farthest_upper(X, T)
    heap = [(-fd[i], i, -1) for i in range(n)]
    heapq.heapify(heap)
    groups: list[np.ndarray] = []
    m = n
    while m >= 2 * k:
        ix.maybe_rebuild(T, X, free, m)
        cand = _md_candidates(X, T, free, far, fd, heap)
        r, s = _md_pair(X, cand, far, np.flatnonzero(free))
        groups.append(_indexed_group(X, T, free, r, k))
        if not free[s]:
            s = int(ix.tree_farthest(T, X, free, X[r]))
        groups.append(_indexed_group(X, T, free, s, k))
        m -= 2 * k
        progress.update(records=f"{n - m}/{n} grouped")
    progress.done(records=f"{n}/{n} grouped")
    return close_groups(X, free, k, groups)


def md_groups_reference(X: np.ndarray, k: int) -> list[np.ndarray]:
    """The readable O(n²) reference of :func:`md_groups`: the farthest partner
    of every remaining record is cached and recomputed by a scan only when
    that partner is grouped (so the O(n³/k) worst case of Lemma 3 is rarely
    reached).  Of the most distant pair, r is the record farther from the
    centroid of the remaining records (the seed leaves this open; this choice
    reproduces more of seed 004 Table 5 than "lower row index first")."""
    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    free = np.ones(n, dtype=bool)
    rows = np.arange(n)
    far, fd = _farthest_scan(X, rows, rows)
    groups: list[np.ndarray] = []
    while free.sum() >= 2 * k:
        rows = np.flatnonzero(free)
        stale = rows[~free[far[rows]]]      # partner grouped: recompute against the rest
        far[stale], fd[stale] = _farthest_scan(X, rows, stale)
        best = fd[rows].max()
        r, s = _md_pair(X, rows[fd[rows] >= best - 1e-9 * max(1.0, best)], far, rows)
        pair_groups(X, free, r, s, k, groups)
    return close_groups(X, free, k, groups)


def _md_pair(X, cand, far, rows):
    """(r, s): of the candidate pairs (i, far[i]) (ascending i) the most distant
    by the direct formula (first on ties), r the end farther from the
    centroid of ``rows`` (ties: the lower row index)."""
    exact = np.array([((X[i] - X[far[i]]) ** 2).sum() for i in cand])
    i = int(cand[int(np.argmax(exact))])
    a, b = min(i, int(far[i])), max(i, int(far[i]))
    da, db = sqdist_to(X, np.array([a, b]), _centroid(X, rows))
    return (a, b) if da >= db else (b, a)


def _indexed_group(X, T, free, center, k):
    """:func:`group_around` by the index: the same group, centre first."""
    g = _centre_first(ix.tree_nearest(T, X, free, X[center], k), center, k)
    free[g] = False
    ix.remove_rows(T, X, free, g)
    return g


def cbfs_groups(X: np.ndarray, k: int, *, verbose: bool = False) -> list[np.ndarray]:
    """Groups of CBFS (seed 004 §4.2.3, Laszlo & Mukherjee 2005), in formation
    order; each group starts with its centre r.  Exactly the groups of
    :func:`cbfs_groups_reference`, the queries answered by the index of
    :mod:`mipagg.heuristics._index`; O(n) memory."""
    X = as_rows(X)
    k = check_k(k, X.shape[0])
    groups, alive = ix.centre_groups_list(X, k, False, "cbfs", verbose)
    groups.append(np.flatnonzero(alive))
    return groups


def cbfs_groups_reference(X: np.ndarray, k: int) -> list[np.ndarray]:
    """Readable O(n²/k) version of :func:`cbfs_groups` (ties: lowest row index;
    the centroid is the sequential sum of the remaining rows in ascending
    order divided by their number)."""
    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    free = np.ones(n, dtype=bool)
    groups: list[np.ndarray] = []
    while free.sum() >= 2 * k:
        rows = np.flatnonzero(free)
        r = int(rows[farthest_from_centroid(X, rows)])
        groups.append(group_around(X, free, r, k))
    groups.append(np.flatnonzero(free))
    return groups


def md(X: np.ndarray, k: int, *, verbose: bool = False) -> Partition:
    """Maximum distance fixed-size microaggregation (seed 004 §4.2.2).

    Groups of k records, the last one k..2k−1 (or a group that received
    fewer than k leftovers).  O(n³/k) distance computations in the worst
    case (seed 004 Lemma 3), far fewer with the cached farthest partners
    and the index (:func:`md_groups`).

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.], [5.]])
    >>> md(X, 3).sizes.tolist()
    [4, 3]
    """
    X = as_rows(X)
    return Partition.from_groups(md_groups(X, k, verbose=verbose), X)


def cbfs(X: np.ndarray, k: int, *, verbose: bool = False) -> Partition:
    """CBFS, centroid-based fixed-size microaggregation (Laszlo & Mukherjee
    2005; seed 004 §4.2.3).  O(n²/k) distance computations.

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.], [5.]])
    >>> cbfs(X, 3).sizes.tolist()
    [4, 3]
    """
    X = as_rows(X)
    return Partition.from_groups(cbfs_groups(X, k, verbose=verbose), X)
