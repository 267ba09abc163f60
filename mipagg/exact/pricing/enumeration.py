"""Exact pricing by complete enumeration with bounds (SolveCompleteEnumeration
of seed 001, section 5.1, made practical by branch and bound).

Every cluster of size η is enumerated implicitly by a depth-first search that
adds one record at a time.  At a node with partial cluster S (|S| = m) and
r = η − m records still to add, each candidate t gets the key

    g_t = Σ_{s∈S} D[s,t]/η − λ_t + H[t, r−1],

where H[t, r−1] (see ``half_smallest_sums``) is half the weight of the r−1
lightest edges at t: the edges inside the completion T weigh at least
½ Σ_{t∈T} (r−1 lightest edges of t), so w̄(S ∪ T) ≥ w̄(S) + Σ_{t∈T} g_t.
Candidates are sorted by key and the i-th child (add t_i, later candidates
only) is bounded by w̄(S) + g_{t_i} + … + g_{t_{i+r−1}}, a window sum that is
non-decreasing in i, so the first child whose bound reaches the incumbent
ends the loop.  Each subset is generated once (children use only the
candidates after them in the node's order).  Worst case O(C(n, η)·n log n),
in practice a tiny fraction of that (docs/bench/pricing.md).

The search is an iterative compiled kernel whose whole state lives in arrays,
so it runs in slices of nodes and the wall-clock limit is checked between
slices.  ``enumerate_reference`` is the plain itertools version the tests
compare against.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

from ._common import (PricingResult, half_smallest_sums, reduced_cost, sorted_result,
                      start_pricing)

__all__ = ["enumeration_pricing", "enumerate_reference"]

_SLICE = 4_000  # node expansions between two clock checks (~10-50 ms at n = 200)


def enumerate_reference(D, duals, eta):
    """All clusters of size η with their reduced costs, by itertools
    (O(C(n, η)·η²); small n only).  Returns (clusters (m, η) array, costs)."""
    D = np.asarray(D, dtype=float)
    duals = np.asarray(duals, dtype=float)
    combos = list(itertools.combinations(range(D.shape[0]), eta))
    costs = np.array([reduced_cost(D, duals, c, eta) for c in combos])
    return np.array(combos, dtype=np.int64).reshape(-1, eta), costs


@njit(cache=True)
def cluster_hash(members):
    """FNV-1a style hash of a sorted int array (wrapping uint64 arithmetic)."""
    h = np.uint64(14695981039346656037)
    for m in members:
        h = (h ^ np.uint64(m)) * np.uint64(1099511628211)
    return h


def forbidden_table(banned, eta):
    """Hash table of the clusters in ``banned`` (sorted tuples of size η) for
    :func:`_is_forbidden`: (sorted hashes, matching rows)."""
    rows = np.array(sorted(banned), dtype=np.int64).reshape(-1, eta)
    hashes = np.array([cluster_hash(row) for row in rows], dtype=np.uint64)
    order = np.argsort(hashes, kind="stable")
    return hashes[order], np.ascontiguousarray(rows[order])


@njit(cache=True)
def _is_forbidden(sorted_members, fb_hash, fb_rows):
    h = cluster_hash(sorted_members)
    lo = np.searchsorted(fb_hash, h)
    while lo < fb_hash.size and fb_hash[lo] == h:
        if (fb_rows[lo] == sorted_members).all():
            return True
        lo += 1
    return False


@njit(cache=True)
def _expand(D, lam, H, eta, d, start, stop, t, cand, keys, acc, ncand, pos):
    """Create search node d+1 from node d by adding record t; its candidates
    are the parent's candidates at positions start..stop-1."""
    r = eta - d - 1  # records still to add below the new node
    m = stop - start
    buf_c = np.empty(m, dtype=np.int64)
    buf_k = np.empty(m)
    for j in range(m):
        c = cand[d, start + j]
        a = acc[d, c] + D[t, c]
        acc[d + 1, c] = a
        buf_c[j] = c
        buf_k[j] = a / eta - lam[c] + H[c, r - 1]
    order = np.argsort(buf_k)
    for j in range(m):
        cand[d + 1, j] = buf_c[order[j]]
        keys[d + 1, j] = buf_k[order[j]]
    ncand[d + 1] = m
    pos[d + 1] = 0


@njit(cache=True)
def _search(D, lam, H, eta, cand, keys, acc, ncand, pos, rcs, members, depth_arr,
            best, best_members, pool_rc, pool_members, pool_size, fb_hash, fb_rows,
            tol, budget):
    """Run the depth-first search for at most ``budget`` node expansions.
    Returns True when the search is complete.  All state is in the arrays."""
    max_pool = pool_rc.size
    leaf = np.empty(eta, dtype=np.int64)
    expansions = 0
    d = depth_arr[0]
    while d >= 0:
        i = pos[d]
        r = eta - d
        n_c = ncand[d]
        if i + r > n_c:
            d -= 1
            continue
        # bound to beat: the incumbent minimum, or the worst kept column while
        # fewer than max_pool columns beat it (so the best max_pool are kept)
        thr = max(best[0], pool_rc.max() if pool_size[0] == max_pool else -tol)
        if r == 1:
            # children are complete clusters; keys[d, i] is their exact increment
            val = rcs[d] + keys[d, i]
            if val >= thr:
                d -= 1
                continue
            pos[d] = i + 1
            for q in range(d):
                leaf[q] = members[q]
            leaf[d] = cand[d, i]
            leaf.sort()
            if fb_hash.size > 0 and _is_forbidden(leaf, fb_hash, fb_rows):
                continue
            if val < best[0]:
                best[0] = val
                best_members[:] = leaf
            if val < -tol:
                if pool_size[0] < max_pool:
                    pool_rc[pool_size[0]] = val
                    pool_members[pool_size[0]] = leaf
                    pool_size[0] += 1
                else:
                    w = 0
                    for q in range(1, max_pool):
                        if pool_rc[q] > pool_rc[w]:
                            w = q
                    if val < pool_rc[w]:
                        pool_rc[w] = val
                        pool_members[w] = leaf
            continue
        window = 0.0
        for q in range(i, i + r):
            window += keys[d, q]
        if rcs[d] + window >= thr:
            d -= 1
            continue
        pos[d] = i + 1
        t = cand[d, i]
        members[d] = t
        rcs[d + 1] = rcs[d] + acc[d, t] / eta - lam[t]
        _expand(D, lam, H, eta, d, i + 1, n_c, t, cand, keys, acc, ncand, pos)
        d += 1
        expansions += 1
        if expansions >= budget:
            depth_arr[0] = d
            return False
    depth_arr[0] = -1
    return True


def enumeration_pricing(D, duals, eta, *, max_columns=10, time_limit=None, tol=1e-9,
                        forbidden=None) -> PricingResult:
    """Exact pricing at size η by implicit complete enumeration (seed 001,
    section 5.1, SolveCompleteEnumeration, with the bounds described in the
    module docstring).

    Returns the ``max_columns`` clusters of least reduced cost among those
    below −tol, best first (the search bound is the larger of the incumbent
    minimum and the worst kept column); ``exact`` and
    ``min_reduced_cost`` (over all clusters not in ``forbidden``) when the
    search completes, else status "time_limit" and the columns found so far.
    Worst case O(C(n, η)·n log n).

    >>> D = np.array([[0., 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]])
    >>> r = enumeration_pricing(D, np.array([1., 1, 1, 0.5]), 2)
    >>> r.columns[0].tolist(), r.min_reduced_cost, r.exact
    ([0, 1], -1.5, True)
    """
    D, duals, eta, clock, banned = start_pricing(D, duals, eta, forbidden, max_columns=max_columns,
                                                 time_limit=time_limit, tol=tol)
    n = D.shape[0]
    fb_hash, fb_rows = forbidden_table(banned, eta)

    H = half_smallest_sums(D, eta)
    cand = np.zeros((eta, n), dtype=np.int64)
    keys = np.zeros((eta, n))
    acc = np.zeros((eta, n))
    root_keys = -duals + H[:, eta - 1]
    root = np.argsort(root_keys, kind="stable")
    cand[0] = root
    keys[0] = root_keys[root]
    ncand = np.zeros(eta, dtype=np.int64)
    ncand[0] = n
    pos = np.zeros(eta, dtype=np.int64)
    rcs = np.zeros(eta)
    members = np.zeros(eta, dtype=np.int64)
    depth = np.zeros(1, dtype=np.int64)
    best = np.array([np.inf])
    best_members = np.full(eta, -1, dtype=np.int64)
    pool_rc = np.zeros(max_columns)
    pool_members = np.zeros((max_columns, eta), dtype=np.int64)
    pool_size = np.zeros(1, dtype=np.int64)

    done = False
    while True:
        done = _search(D, duals, H, eta, cand, keys, acc, ncand, pos, rcs, members, depth,
                       best, best_members, pool_rc, pool_members, pool_size, fb_hash,
                       fb_rows, float(tol), _SLICE)
        if done or clock.expired():
            break
    found = {tuple(pool_members[q].tolist()): float(pool_rc[q]) for q in range(pool_size[0])}
    # recompute with the plain formula so reported costs do not depend on summation order
    found = {c: reduced_cost(D, duals, c, eta) for c in found}
    found = {c: v for c, v in found.items() if v < -tol}
    if done:
        min_rc = reduced_cost(D, duals, best_members, eta) if best_members[0] >= 0 else None
        if min_rc is None:  # every cluster of size eta is forbidden
            return sorted_result({}, exact=True, min_rc=None, status="optimal", clock=clock,
                                 max_columns=max_columns, info={"all_forbidden": True})
        return sorted_result(found, exact=True, min_rc=min_rc, status="optimal", clock=clock,
                             max_columns=max_columns)
    return sorted_result(found, exact=False, min_rc=None, status="time_limit", clock=clock,
                         max_columns=max_columns)
