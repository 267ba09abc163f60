"""Exhaustive references for tiny instances (test helpers, not package code)."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from mipagg.partition import group_sse


def optimal_partition(X, k):
    """Minimum-SSE k-partition by a DP over subsets (n ≤ ~14): returns
    ``(sse, groups)``; groups are sorted tuples of row indices.  Only group
    sizes k..2k−1 are needed (a larger group splits without raising SSE)."""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]

    @lru_cache(maxsize=None)
    def best(mask):
        if mask == 0:
            return 0.0, ()
        rows = [i for i in range(n) if mask >> i & 1]
        if len(rows) < k:
            return np.inf, ()
        first, rest = rows[0], rows[1:]
        out = (np.inf, ())
        for size in range(k, min(2 * k - 1, len(rows)) + 1):
            for others in itertools.combinations(rest, size - 1):
                g = (first, *others)
                m = mask
                for i in g:
                    m &= ~(1 << i)
                sub, groups = best(m)
                cost = sub + group_sse(X, g)
                if cost < out[0]:
                    out = (cost, (g, *groups))
        return out

    return best((1 << n) - 1)


def order_compatible_partitions(n, k):
    """Every k-partition of positions 0..n−1 into consecutive blocks of size ≥ k
    (as lists of (start, stop))."""
    if n == 0:
        yield []
        return
    for size in range(k, n + 1):
        if n - size != 0 and n - size < k:
            continue
        for tail in order_compatible_partitions(n - size, k):
            yield [(0, size)] + [(a + size, b + size) for a, b in tail]


def group_partitions(items, k):
    """Every partition of ``items`` into blocks of k..2k−1 records (tuples)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for size in range(k, 2 * k):
        for others in itertools.combinations(rest, size - 1):
            left = [v for v in rest if v not in others]
            for tail in group_partitions(left, k):
                yield [(first, *others)] + tail


def least_pair_reduced_cost(D, lam, k, i, j, penalty, sizes=None):
    """The least reduced cost SSE(C) − Σ λ + penalty(C) over the clusters C
    of k..2k−1 records (those of ``sizes`` only, when given) holding both i
    and j (the bound pair fixing needs)."""
    n = D.shape[0]
    least = np.inf
    others = [v for v in range(n) if v not in (i, j)]
    for eta in range(k, 2 * k) if sizes is None else sizes:
        for T in itertools.combinations(others, eta - 2):
            C = (i, j, *T)
            w = sum(D[a, c] for a, c in itertools.combinations(C, 2)) / eta
            least = min(least, w - lam[list(C)].sum() + penalty(C))
    return least
