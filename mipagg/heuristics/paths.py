"""Paths through the records and the path + MHM heuristics of seed 004.

Seed 004 (Domingo-Ferrer et al. 2006) section 4: build a path (an order of
the rows), then MHM (:func:`mipagg.univariate.mhm`, §4.1) returns the best
k-partition compatible with it.  The paths:

* NPN, nearest point next (§4.2.1): start at the record farthest from the
  centroid, then repeatedly go to the nearest unvisited record.  O(n²).
* MD, MDAV, CBFS (§4.2.2-4.2.3): form the fixed-size groups of the heuristic,
  order the groups by NPN on their centroids starting from the first group
  formed (step 6 of §4.2.3), then order the records group by group (step 7):
  the first group starts at its centre r, the others at the record nearest to
  the centroid of the preceding group; the other records of a group follow by
  increasing distance to the group's first record.

MDAV groups for the path follow §4.2.3 literally (two groups per centroid
while at least 2k records remain; k..2k−1 leftovers form a group; fewer than
k join the group whose centroid is closest to theirs).  This differs from
:func:`mipagg.heuristics.mdav.mdav` (MDAV-generic: two groups while at least
3k remain, then one group around r and a last group) only when n mod 2k is
between 1 and k−1 (on the CASC files and k ∈ {3, 5, 10}: Tarragona, k = 5).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..partition import Partition
from ..univariate import mhm
from ..validation import as_rows, check_k
from . import _index as ix
from ._common import farthest_from_centroid, sqdist_to
from .fixed import cbfs_groups, close_groups, md_groups, pair_groups

__all__ = [
    "npn_order", "npn_order_reference", "md_order", "mdav_order", "cbfs_order", "groups_order",
    "mdav_path_groups", "mdav_path_groups_reference", "npn_mhm", "md_mhm", "mdav_mhm", "cbfs_mhm",
]


@njit(cache=True)
def _npn_kernel(X, start):
    n, p = X.shape
    order = np.empty(n, dtype=np.int64)
    rem = np.empty(n - 1, dtype=np.int64)  # unvisited rows, ascending
    m = 0
    for i in range(n):
        if i != start:
            rem[m] = i
            m += 1
    cur = start
    for t in range(n):
        order[t] = cur
        if m == 0:
            break
        best, arg = np.inf, 0
        for a in range(m):
            r = rem[a]
            s = 0.0
            for j in range(p):
                d = X[r, j] - X[cur, j]
                s += d * d
            if s < best:
                best, arg = s, a
        cur = rem[arg]
        for a in range(arg, m - 1):  # keep ascending order: ties go to the lowest row
            rem[a] = rem[a + 1]
        m -= 1
    return order


def npn_order(X: np.ndarray, start: int | None = None) -> np.ndarray:
    """Nearest point next (seed 004 §4.2.1): a permutation of the rows that
    starts at ``start`` (default: the record farthest from the centroid) and
    always moves to the nearest unvisited record (ties: lowest row index).
    Each step is a nearest-remaining query to the k-d tree of
    :mod:`mipagg.heuristics._index` (the n(n+1)/2 − 1 distance computations
    of Lemma 2 only in the worst case); checked against
    :func:`npn_order_reference` and the compiled quadratic loop
    ``_npn_kernel``.

    >>> import numpy as np
    >>> npn_order(np.array([[0.], [5.], [1.], [9.]])).tolist()
    [3, 1, 2, 0]
    """
    X = as_rows(X)
    n = X.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if start is None:
        start = farthest_from_centroid(X, np.arange(n))
    return ix.npn_path(X, int(start))


def npn_order_reference(X: np.ndarray, start: int | None = None) -> np.ndarray:
    """Readable numpy version of :func:`npn_order` (same result)."""
    X = as_rows(X)
    n = X.shape[0]
    if start is None:
        start = farthest_from_centroid(X, np.arange(n))
    order = np.empty(n, dtype=np.int64)
    free = np.ones(n, dtype=bool)
    cur = int(start)
    for t in range(n):
        order[t] = cur
        free[cur] = False
        if t == n - 1:
            break
        rows = np.flatnonzero(free)
        cur = int(rows[int(np.argmin(sqdist_to(X, rows, X[cur])))])
    return order


def groups_order(X: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    """Point-level path from groups in formation order (seed 004 §4.2.3 steps
    6-7; each group's first element is its centre r or s)."""
    X = as_rows(X)
    cents = np.array([X[g].mean(axis=0) for g in groups])
    gorder = npn_order(cents, start=0)
    out = []
    prev = None
    for gi in gorder:
        g = np.asarray(groups[gi])
        if prev is None:
            first = int(g[0])
        else:
            first = int(g[int(np.argmin(sqdist_to(X, g, cents[prev])))])
        rest = g[g != first]
        rest = rest[np.argsort(sqdist_to(X, rest, X[first]), kind="stable")]
        out.append(np.concatenate(([first], rest)))
        prev = gi
    return np.concatenate(out).astype(np.int64)


def mdav_path_groups(X: np.ndarray, k: int, *, verbose: bool = False) -> list[np.ndarray]:
    """MDAV groups as seed 004 §4.2.3 steps 1-5 describe them (formation
    order, centre first): exactly those of :func:`mdav_path_groups_reference`,
    the queries answered by the index of :mod:`mipagg.heuristics._index`."""
    X = as_rows(X)
    k = check_k(k, X.shape[0])
    groups, alive = ix.centre_groups_list(X, k, True, "mdav path", verbose)
    return close_groups(X, alive, k, groups)


def mdav_path_groups_reference(X: np.ndarray, k: int) -> list[np.ndarray]:
    """Readable version of :func:`mdav_path_groups`.  O(n²/k) distance
    computations (Lemma 4)."""
    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    free = np.ones(n, dtype=bool)
    groups: list[np.ndarray] = []
    while free.sum() >= 2 * k:
        rows = np.flatnonzero(free)
        r = int(rows[farthest_from_centroid(X, rows)])
        s = int(rows[int(np.argmax(sqdist_to(X, rows, X[r])))])
        pair_groups(X, free, r, s, k, groups)
    return close_groups(X, free, k, groups)


def md_order(X: np.ndarray, k: int, *, verbose: bool = False) -> np.ndarray:
    """Maximum-distance path (seed 004 §4.2.2 steps 1-6)."""
    return groups_order(X, md_groups(X, k, verbose=verbose))


def mdav_order(X: np.ndarray, k: int, *, verbose: bool = False) -> np.ndarray:
    """MDAV path (seed 004 §4.2.3 steps 1-7).

    >>> import numpy as np
    >>> mdav_order(np.array([[0.], [1.], [2.], [10.], [11.], [12.]]), 3).tolist()
    [0, 1, 2, 3, 4, 5]
    """
    return groups_order(X, mdav_path_groups(X, k, verbose=verbose))


def cbfs_order(X: np.ndarray, k: int, *, verbose: bool = False) -> np.ndarray:
    """CBFS path (seed 004 §4.2.3, last paragraph, with steps 6-7)."""
    return groups_order(X, cbfs_groups(X, k, verbose=verbose))


def npn_mhm(X: np.ndarray, k: int) -> Partition:
    """NPN-MHM (seed 004 §4.3): MHM on the nearest-point-next path.  O(n²)."""
    return mhm(X, npn_order(X), k)


def md_mhm(X: np.ndarray, k: int, *, verbose: bool = False) -> Partition:
    """MD-MHM (seed 004 §4.3): MHM on the maximum-distance path.  O(n³/k) worst case."""
    return mhm(X, md_order(X, k, verbose=verbose), k)


def mdav_mhm(X: np.ndarray, k: int, *, verbose: bool = False) -> Partition:
    """MDAV-MHM (seed 004 §4.3): MHM on the MDAV path.  O(n²/k)."""
    return mhm(X, mdav_order(X, k, verbose=verbose), k)


def cbfs_mhm(X: np.ndarray, k: int, *, verbose: bool = False) -> Partition:
    """CBFS-MHM (seed 004 §4.3): MHM on the CBFS path.  O(n²/k)."""
    return mhm(X, cbfs_order(X, k, verbose=verbose), k)
