"""Fixed-size microaggregation: MDAV (maximum distance to average vector).

MDAV-generic as given by Domingo-Ferrer & Torra (2005) and used as a baseline
in every seed (e.g. seed 004 section 4.2.3, seed 001 section 6): while at
least 3k records remain, take the record r farthest from the centroid of the
remaining records and the record s farthest from r, and form a group of r with
its k−1 nearest records and then of s with its k−1 nearest remaining records;
with 2k..3k−1 records left, form one group around r and leave the rest as the
last group; with fewer than 2k left, they form the last group.
"""

from __future__ import annotations

import numpy as np

from ..partition import Partition
from ..validation import as_rows, check_k
from ._common import farthest_from_centroid
from ._common import nearest, sqdist_to

__all__ = ["mdav", "mdav_groups"]


def _take_group(X, remaining, center_pos, k):
    """Remove from ``remaining`` the record at ``center_pos`` and its k−1 nearest."""
    pos = nearest(X, remaining, X[remaining[center_pos]], k)
    if center_pos not in pos:  # duplicates at distance 0: keep the centre itself
        pos = np.concatenate(([center_pos], pos[pos != center_pos][: k - 1]))
    keep = np.ones(remaining.size, dtype=bool)
    keep[pos] = False
    return remaining[pos], remaining[keep]


def mdav_groups(X: np.ndarray, k: int) -> list[np.ndarray]:
    """The groups of MDAV, in the order they are formed (each starts with its
    centre r or s).  O(n²/k) distance computations (seed 004 Lemma 4)."""
    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    remaining = np.arange(n)
    groups = []
    while remaining.size >= 3 * k:
        r_pos = farthest_from_centroid(X, remaining)
        r = remaining[r_pos]
        s_pos = int(np.argmax(sqdist_to(X, remaining, X[r])))
        s = remaining[s_pos]
        g, remaining = _take_group(X, remaining, r_pos, k)
        groups.append(g)
        if s in g:  # only when every remaining record is equidistant from r
            s_pos = int(np.argmax(sqdist_to(X, remaining, X[r])))
        else:
            s_pos = int(np.flatnonzero(remaining == s)[0])
        g, remaining = _take_group(X, remaining, s_pos, k)
        groups.append(g)
    if remaining.size >= 2 * k:
        r_pos = farthest_from_centroid(X, remaining)
        g, remaining = _take_group(X, remaining, r_pos, k)
        groups.append(g)
    groups.append(remaining)
    return groups


def mdav(X: np.ndarray, k: int) -> Partition:
    """MDAV fixed-size microaggregation (Domingo-Ferrer & Torra 2005; seed 004
    section 4.2.3).  Every group has k records except possibly the last
    (k..2k−1).  O(n²/k) distance computations.

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.]])
    >>> mdav(X, 3).sizes.tolist()
    [3, 3]
    """
    return Partition.from_groups(mdav_groups(X, k), X)
