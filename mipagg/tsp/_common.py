"""Shared helpers of the TSP package: input validation, distances, lengths.

A *tour* is a permutation of ``range(n)`` read as a closed cycle; a *path* is
the same permutation read as an open chain.  Distances are Euclidean between
rows of ``X`` (in mipagg, the standardized key attributes).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from scipy.spatial.distance import cdist

from ..errors import DataError

__all__ = ["as_points", "distance_matrix", "check_permutation", "tour_length", "path_length"]


def as_points(X) -> np.ndarray:
    """Return ``X`` as a C-contiguous (n, p) float array with n ≥ 1; clear
    :class:`DataError` for anything else (1-D input is read as one column)."""
    try:
        A = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"points must be numeric: {exc}") from None
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise DataError(f"points must be a 2-D array (n, p), got shape {A.shape}")
    if A.shape[0] == 0:
        raise DataError("points are empty: a tour needs at least one record")
    if not np.all(np.isfinite(A)):
        raise DataError("points contain NaN or infinite values")
    return np.ascontiguousarray(A)


def distance_matrix(X: np.ndarray) -> np.ndarray:
    """Full (n, n) Euclidean distance matrix, O(n² p) time and O(n²) memory.

    Computed from coordinate differences (``scipy.spatial.distance.cdist``), so
    duplicate rows are at distance exactly 0 and the matrix is exactly symmetric.
    """
    return cdist(X, X)


def check_permutation(order, n: int, what: str = "tour") -> np.ndarray:
    """Validate that ``order`` is a permutation of ``range(n)``; return it as int64."""
    a = np.asarray(order)
    if a.ndim != 1 or a.shape[0] != n:
        raise DataError(f"{what} must be a 1-D permutation of range({n}), got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise DataError(f"{what} must hold integer record indices, got dtype {a.dtype}")
    a = a.astype(np.int64)
    if n and (a.min() < 0 or a.max() >= n or np.unique(a).size != n):
        raise DataError(f"{what} is not a permutation of range({n})")
    return a


def _edge_lengths(X: np.ndarray, order: np.ndarray, closed: bool) -> np.ndarray:
    nxt = np.roll(order, -1) if closed else order[1:]
    prev = order if closed else order[:-1]
    diff = X[prev] - X[nxt]
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def tour_length(X, tour) -> float:
    """Length of the closed tour (sum of n Euclidean edges, last back to first).

    >>> tour_length([[0, 0], [0, 1], [1, 1], [1, 0]], [0, 1, 2, 3])
    4.0
    """
    A = as_points(X)
    t = check_permutation(tour, A.shape[0])
    return float(_edge_lengths(A, t, closed=True).sum())


def path_length(X, path) -> float:
    """Length of the open Hamiltonian path (n − 1 edges).

    >>> path_length([[0, 0], [0, 1], [1, 1], [1, 0]], [0, 1, 2, 3])
    3.0
    """
    A = as_points(X)
    p = check_permutation(path, A.shape[0], "path")
    return float(_edge_lengths(A, p, closed=False).sum())


@njit(cache=True, inline="always")
def dist(X, i, j):
    """Euclidean distance between rows i and j of X (compiled)."""
    s = 0.0
    for c in range(X.shape[1]):
        d = X[i, c] - X[j, c]
        s += d * d
    return np.sqrt(s)
