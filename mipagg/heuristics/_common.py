"""Small helpers shared by the fixed-size heuristics.

The distance work of MDAV-like heuristics is "squared distances from a point
to a subset of the rows" and "centroid of a subset of the rows".  With numpy
both copy ``X[rows]`` first, which dominates the run time on large n (see
docs/bench/foundation.md); the compiled kernels below read the rows in place.
They add the coordinates in the same order as the numpy references
(``sqdist_to_reference``, ``centroid_reference``), so results are identical,
which the tests check.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _sqdist_rows(X, rows, point):
    m = rows.shape[0]
    p = X.shape[1]
    out = np.empty(m)
    for i in range(m):
        r = rows[i]
        s = 0.0
        for j in range(p):
            d = X[r, j] - point[j]
            s += d * d
        out[i] = s
    return out


@njit(cache=True)
def _centroid_rows(X, rows):
    p = X.shape[1]
    acc = np.zeros(p)
    for i in range(rows.shape[0]):
        r = rows[i]
        for j in range(p):
            acc[j] += X[r, j]
    return acc / rows.shape[0]


def _prep(X, rows):
    return np.asarray(X, dtype=float), np.asarray(rows, dtype=np.int64)


def sqdist_to(X: np.ndarray, rows: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances from ``X[rows]`` to ``point`` (compiled)."""
    X, rows = _prep(X, rows)
    return _sqdist_rows(X, rows, np.ascontiguousarray(point, dtype=float))


def centroid(X: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Mean of ``X[rows]`` (compiled; rows added in order like numpy's axis-0 mean)."""
    X, rows = _prep(X, rows)
    return _centroid_rows(X, rows)


def farthest_from_centroid(X: np.ndarray, rows: np.ndarray) -> int:
    """Position (into ``rows``) of the record farthest from the centroid of
    ``X[rows]`` (first one on ties): the r of MDAV, CBFS, V-MDAV and NPN."""
    return int(np.argmax(sqdist_to(X, rows, centroid(X, rows))))


def sqdist_to_reference(X: np.ndarray, rows: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Readable numpy version of :func:`sqdist_to`."""
    d = X[rows] - point
    return np.einsum("ij,ij->i", d, d)


def centroid_reference(X: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Readable numpy version of :func:`centroid`."""
    return X[rows].mean(axis=0)


@njit(cache=True)
def _k_smallest(d, m):
    """Positions of the m smallest values of d, ascending, ties by position:
    the first m entries of a stable argsort, in one pass (insertion into a
    sorted buffer of length m; O(len(d)·m) worst case, O(len(d)) typically)."""
    idx = np.empty(m, dtype=np.int64)
    val = np.empty(m)
    cnt = 0
    for i in range(d.shape[0]):
        v = d[i]
        if cnt < m:
            j = cnt
            cnt += 1
        elif v < val[m - 1]:
            j = m - 1
        else:
            continue
        while j > 0 and val[j - 1] > v:
            val[j] = val[j - 1]
            idx[j] = idx[j - 1]
            j -= 1
        val[j] = v
        idx[j] = i
    return idx


def k_smallest_reference(d: np.ndarray, m: int) -> np.ndarray:
    """Readable version of the selection in :func:`nearest`."""
    return np.argsort(d, kind="stable")[:m]


def nearest(X: np.ndarray, rows: np.ndarray, point: np.ndarray, m: int) -> np.ndarray:
    """Positions (into ``rows``) of the ``m`` records nearest to ``point``.

    Ties are broken by position in ``rows`` (stable sort), so results are
    deterministic and independent of the numpy version.
    """
    d = sqdist_to(X, rows, point)
    if m >= d.size:
        return np.argsort(d, kind="stable")
    if m <= 64:
        return _k_smallest(d, m)
    # argpartition narrows the candidates; a stable sort of the tie-aware
    # candidate set keeps first-index tie-breaking.
    cut = np.partition(d, m - 1)[m - 1]
    cand = np.flatnonzero(d <= cut)
    return cand[np.argsort(d[cand], kind="stable")[:m]]
