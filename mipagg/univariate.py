"""Optimal univariate microaggregation (Hansen–Mukherjee) and MHM on any order.

Hansen & Mukherjee (IEEE TKDE 15(4), 2003) solve univariate microaggregation
exactly as a shortest path over the sorted values: node j (0..n) stands for
"the first j values are grouped", and arc (i, j) with k ≤ j−i ≤ 2k−1 is the
group of values i+1..j, weighted by its within-group SSE.  MHM (seed 004,
Domingo-Ferrer et al. 2006, section 4.1) applies the same graph to p-variate
records fed in a given order, which yields the best k-partition compatible with
that order (seed 004 Lemma 1).

With prefix sums S1 (per coordinate) and S2 (of squared norms) every arc costs
O(p): SSE(i, j) = (S2[j] − S2[i]) − ||S1[j] − S1[i]||² / (j − i).  The arc
costs are built with numpy, O(k·n·p), and the shortest path over the DAG is a
compiled O(k·n) loop; ``_shortest_path_reference`` is the readable version
the tests compare it with.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .errors import DataError
from .partition import Partition
from .validation import check_k

__all__ = ["mhm", "mhm_labels", "optimal_univariate"]


def arc_costs(Y: np.ndarray, k: int) -> np.ndarray:
    """Matrix C of shape (k, n+1): C[s−k, j] = SSE of rows j−s..j−1 of ``Y``
    (a group of size s ending at position j), ``inf`` where j < s.

    The prefix sums are accumulated in extended precision (``np.longdouble``,
    64-bit mantissa on x86-64): with plain doubles the difference of two large
    prefix sums loses about 1e-8 relative accuracy at n = 10⁶.
    """
    n = Y.shape[0]
    Y = np.asarray(Y, dtype=np.longdouble)
    Y = Y - Y.mean(axis=0)
    S1 = np.zeros((n + 1, Y.shape[1]), dtype=np.longdouble)
    np.cumsum(Y, axis=0, out=S1[1:])
    S2 = np.zeros(n + 1, dtype=np.longdouble)
    np.cumsum((Y * Y).sum(axis=1), out=S2[1:])
    C = np.full((k, n + 1), np.inf)
    for s in range(k, min(2 * k - 1, n) + 1):
        d1 = S1[s:] - S1[:-s]
        cost = (S2[s:] - S2[:-s]) - (d1 * d1).sum(axis=1) / s
        C[s - k, s:] = np.maximum(cost, 0.0).astype(float)
    return C


@njit(cache=True)
def _shortest_path(C, k):
    n = C.shape[1] - 1
    dist = np.full(n + 1, np.inf)
    back = np.zeros(n + 1, dtype=np.int64)
    dist[0] = 0.0
    for j in range(k, n + 1):
        best = np.inf
        arg = 0
        for s in range(k, 2 * k):
            if s > j:
                break
            c = dist[j - s] + C[s - k, j]
            if c < best:
                best = c
                arg = s
        dist[j] = best
        back[j] = arg
    return dist, back


def _shortest_path_reference(C: np.ndarray, k: int):
    """Plain-Python version of the compiled DP (same tie-breaking: smallest s)."""
    n = C.shape[1] - 1
    dist = [0.0] + [float("inf")] * n
    back = [0] * (n + 1)
    for j in range(k, n + 1):
        for s in range(k, min(2 * k - 1, j) + 1):
            c = dist[j - s] + C[s - k, j]
            if c < dist[j]:
                dist[j], back[j] = c, s
    return np.array(dist), np.array(back)


@njit(cache=True)
def _labels_from_back(back, n):
    # walk the back pointers from n (compiled: a Python loop took ~2 s at n = 10**6)
    pos_labels = np.empty(n, dtype=np.int64)
    j, groups = n, 0
    while j > 0:
        j -= back[j]
        groups += 1
    j, g = n, groups - 1
    while j > 0:
        s = back[j]
        pos_labels[j - s:j] = g
        j -= s
        g -= 1
    return pos_labels


def mhm_labels(X: np.ndarray, order, k: int) -> np.ndarray:
    """Labels (in row order) of the best k-partition compatible with ``order``.

    O(k·n·p) for the arc costs plus O(k·n) for the shortest path.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    n = X.shape[0]
    k = check_k(k, n)
    order = np.asarray(order, dtype=np.int64)
    if (order.shape != (n,) or order.min() < 0 or order.max() >= n
            or not (np.bincount(order, minlength=n) == 1).all()):  # O(n), no sort
        raise DataError("order must be a permutation of the rows")
    C = arc_costs(X[order], k)
    _, back = _shortest_path(C, k)
    labels = np.empty(n, dtype=np.int64)
    labels[order] = _labels_from_back(back, n)
    return labels


def mhm(X: np.ndarray, order, k: int) -> Partition:
    """MHM (seed 004 section 4.1): best k-partition compatible with ``order``.

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [0.1], [5.], [5.1], [5.2], [0.2]])
    >>> mhm(X, [0, 1, 5, 2, 3, 4], 3).labels.tolist()
    [0, 0, 1, 1, 1, 0]
    """
    return Partition(mhm_labels(X, order, k), X)


def optimal_univariate(x, k: int) -> Partition:
    """Optimal univariate k-partition (Hansen & Mukherjee 2003), O(k·n) after an
    O(n log n) sort.  ``x`` is a 1-D array; the partition is on ``x`` itself."""
    x = np.asarray(x, dtype=float).ravel()
    if x.size == 0 or not np.isfinite(x).all():
        raise DataError("univariate data must be non-empty and finite")
    order = np.argsort(x)  # ties may be ordered either way: same SSE
    return mhm(x[:, None], order, k)
