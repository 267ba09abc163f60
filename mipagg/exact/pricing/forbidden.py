"""Tables of forbidden clusters for the pricing searches: a cluster (sorted
record indices) is looked up by its FNV-1a hash in a sorted hash array."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["cluster_hash", "forbidden_table", "is_forbidden"]


@njit(cache=True)
def cluster_hash(members):
    """FNV-1a style hash of a sorted int array (wrapping uint64 arithmetic)."""
    h = np.uint64(14695981039346656037)
    for m in members:
        h = (h ^ np.uint64(m)) * np.uint64(1099511628211)
    return h


def forbidden_table(banned, eta):
    """Hash table of the clusters in ``banned`` (sorted tuples of size η) for
    :func:`is_forbidden`: (sorted hashes, matching rows)."""
    rows = np.array(sorted(banned), dtype=np.int64).reshape(-1, eta)
    hashes = np.array([cluster_hash(row) for row in rows], dtype=np.uint64)
    order = np.argsort(hashes, kind="stable")
    return hashes[order], np.ascontiguousarray(rows[order])


@njit(cache=True)
def is_forbidden(sorted_members, fb_hash, fb_rows):
    h = cluster_hash(sorted_members)
    lo = np.searchsorted(fb_hash, h)
    while lo < fb_hash.size and fb_hash[lo] == h:
        if (fb_rows[lo] == sorted_members).all():
            return True
        lo += 1
    return False
