"""Small numpy helpers shared by the fixed-size heuristics."""

from __future__ import annotations

import numpy as np


def sqdist_to(X: np.ndarray, rows: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances from ``X[rows]`` to ``point``."""
    d = X[rows] - point
    return np.einsum("ij,ij->i", d, d)


def nearest(X: np.ndarray, rows: np.ndarray, point: np.ndarray, m: int) -> np.ndarray:
    """Positions (into ``rows``) of the ``m`` records nearest to ``point``.

    Ties are broken by position in ``rows`` (stable sort), so results are
    deterministic and independent of the numpy version.
    """
    d = sqdist_to(X, rows, point)
    if m >= d.size:
        return np.argsort(d, kind="stable")
    # argpartition narrows the candidates; a stable sort of the tie-aware
    # candidate set keeps first-index tie-breaking.
    cut = np.partition(d, m - 1)[m - 1]
    cand = np.flatnonzero(d <= cut)
    return cand[np.argsort(d[cand], kind="stable")[:m]]
