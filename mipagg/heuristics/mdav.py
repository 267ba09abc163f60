"""Fixed-size microaggregation: MDAV (maximum distance to average vector).

MDAV-generic as given by Domingo-Ferrer & Torra (2005) and used as a baseline
in every seed (e.g. seed 004 section 4.2.3, seed 001 section 6): while at
least 3k records remain, take the record r farthest from the centroid of the
remaining records and the record s farthest from r, and form a group of r with
its k−1 nearest records and then of s with its k−1 nearest remaining records;
with 2k..3k−1 records left, form one group around r and leave the rest as the
last group; with fewer than 2k left, they form the last group.

:func:`mdav_groups` answers the farthest and nearest queries with the exact
index of :mod:`mipagg.heuristics._index` (sub-quadratic in practice; 10⁶
uniform records in 10 dimensions: 1.4–2 minutes on one thread, about 1.5×
less on two, :mod:`._twocore`, docs/bench/large.md);
:func:`mdav_groups_reference` is the readable
O(n²/k) version it is tested against: same groups, same order, ties to the
lowest row index.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..partition import Partition
from ..validation import as_rows, check_k
from . import _index as ix, _twocore as tc
from ._common import farthest_from_centroid, nearest, sqdist_to

__all__ = ["mdav", "mdav_groups", "mdav_groups_reference"]


def _take_group(X, remaining, center_pos, k):
    """Remove from ``remaining`` the record at ``center_pos`` and its k−1 nearest."""
    pos = nearest(X, remaining, X[remaining[center_pos]], k)
    if center_pos not in pos:  # duplicates at distance 0: keep the centre itself
        pos = np.concatenate(([center_pos], pos[pos != center_pos][: k - 1]))
    keep = np.ones(remaining.size, dtype=bool)
    keep[pos] = False
    return remaining[pos], remaining[keep]


@njit(cache=True)
def _pairs(X, k, T, C, alive, out, sizes, st, budget):
    """At most ``budget`` MDAV steps (two groups each) while at least 3k
    records remain, from state ``st`` = (remaining, written, groups)."""
    m, pos, g = st[0], st[1], st[2]
    steps = 0
    while m >= 3 * k and steps < budget:
        ix.maybe_rebuild(T, X, alive, m)
        r = ix.farthest_from_centroid(C, X, alive, m)
        s = ix.tree_farthest(T, X, alive, X[r])
        pos = ix.take_group(T, C, X, alive, r, k, out, pos, np.bool_(False))
        if not alive[s]:  # only when every remaining record is equidistant from r
            s = ix.tree_farthest(T, X, alive, X[r])
        pos = ix.take_group(T, C, X, alive, s, k, out, pos, np.bool_(False))
        sizes[g] = k
        sizes[g + 1] = k
        g += 2
        m -= 2 * k
        steps += 1
    st[0], st[1], st[2] = m, pos, g


@njit(cache=True)
def _last_groups(X, k, T, C, alive, out, sizes, st):
    """The last groups once fewer than 3k records remain: one around the
    farthest record r when 2k or more remain, then the rest."""
    m, pos, g = st[0], st[1], st[2]
    if m >= 2 * k:
        r = ix.farthest_from_centroid(C, X, alive, m)
        pos = ix.take_group(T, C, X, alive, r, k, out, pos, np.bool_(False))
        sizes[g] = k
        g += 1
        m -= k
    for i in range(X.shape[0]):
        if alive[i]:
            out[pos] = i
            pos += 1
    sizes[g] = m
    g += 1
    st[0], st[1], st[2] = m, pos, g


def _mdav_steps(X, k, T, C, alive, out, sizes, st, budget, two, hits):
    """At most ``budget`` MDAV steps (:func:`_pairs`, or with ``two`` on two
    threads: :func:`._twocore.mdav_pairs`, same groups, ``hits`` counting its
    guesses), then the last groups; True once every group is formed.

    The choice is made here, not in a kernel, so that a run on one thread
    never compiles the two-thread kernels (about half of MDAV's first-call
    compilation, docs/benchmarks.md); one kernel call per chunk, as before."""
    if two:
        tc.mdav_pairs(X, k, T, C, alive, out, sizes, st, budget, hits)
    else:
        _pairs(X, k, T, C, alive, out, sizes, st, budget)
    if st[0] >= 3 * k:
        return False
    _last_groups(X, k, T, C, alive, out, sizes, st)
    return True


def mdav_groups(X: np.ndarray, k: int, *, verbose: bool = False,
                threads: int | None = None) -> list[np.ndarray]:
    """The groups of MDAV, in the order they are formed (each starts with its
    centre r or s), exactly those of :func:`mdav_groups_reference`.

    The farthest and nearest queries go to the compiled index of
    :mod:`mipagg.heuristics._index` (k-d tree with removals, scan by distance
    to a moving centre); O(n) memory.  ``threads``: 1 or 2 threads for the
    steps (:func:`._twocore.mdav_pairs`), or None to choose as the run goes
    (two on large files when they are faster; :class:`._twocore.Threads`);
    the groups are the same.  ``verbose`` prints progress to stderr.
    """
    X = as_rows(X)
    k = check_k(k, X.shape[0])
    choice = tc.Threads(threads, X.shape[0])
    T, C, alive, out, st = ix.start(X)
    sizes = np.empty(X.shape[0] // k + 1, dtype=np.int64)
    hits = np.zeros(2, dtype=np.int64)
    ix.in_chunks(choice.steps(lambda budget, two: _mdav_steps(X, k, T, C, alive, out, sizes, st,
                                                              budget, two, hits)),
                 st, X.shape[0], "mdav", verbose)
    return np.split(out, np.cumsum(sizes[:st[2]])[:-1])


def mdav_groups_reference(X: np.ndarray, k: int) -> list[np.ndarray]:
    """The groups of MDAV, in the order they are formed (each starts with its
    centre r or s).  O(n²/k) distance computations (seed 004 Lemma 4).

    Ties go to the lowest row index: the farthest record is the first maximum
    and the k−1 nearest the first by a stable sort, over the remaining rows in
    ascending order; the centroid is their sequential sum divided by their
    number.  Readable reference of :func:`mdav_groups`."""
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


def mdav(X: np.ndarray, k: int, *, verbose: bool = False, threads: int | None = None) -> Partition:
    """MDAV fixed-size microaggregation (Domingo-Ferrer & Torra 2005; seed 004
    section 4.2.3).  Every group has k records except possibly the last
    (k..2k−1).  O(n²/k) distance computations.  ``threads``: see
    :func:`mdav_groups` (the partition does not depend on it).

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.]])
    >>> mdav(X, 3).sizes.tolist()
    [3, 3]
    """
    return Partition.from_groups(mdav_groups(X, k, verbose=verbose, threads=threads), X)
