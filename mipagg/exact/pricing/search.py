"""Branch-and-bound search over clusters of one size η: the engine of the
exact pricing (seed 001 §5.1, SolveCompleteEnumeration made practical) and of
reduced-cost column enumeration (gap closing).

Reduced cost (seed 001 formula (10) plus subset-row cut penalties, see
:mod:`.constraints`)::

    w̄_C = Σ_{i<j∈C} D_ij/η − Σ_{v∈C} λ_v + Σ_S μ_S ⌊|C∩S|/2⌋ .

(a rank-1 cut with multipliers a_i/d charges μ_S ⌊Σ_{i∈S∩C} a_i/d⌋; its
share in the keys below is :func:`_cut_key`).

A node holds a partial cluster S (|S| = m, r = η − m records still to add)
and its candidates, sorted by the key

    g_u = Σ_{s∈S} D_su/η − λ_u + H[u, r−1] + ½ Σ_{S' ∋ u, |S∩S'| odd} μ_S' ,

where H[u, r−1] is half the weight of the r−1 lightest edges at u over 2η
(:func:`~._common.half_smallest_sums`).  Every completion T (|T| = r) then has
w̄(S∪T) ≥ w̄(S) + Σ_{t∈T} g_t: the edges inside T weigh at least
½ Σ_t (its r−1 lightest edges), and a cut with an odd count in S pays μ once
for one or two new records of it, at least μ/2 per new record (an even count
needs two new records for one μ, so it is bounded by 0).  The i-th child
(add candidate i, later candidates only) is bounded by w̄(S) plus the window
g_i + … + g_{i+r−1}, non-decreasing in i, so the first child whose window
reaches the threshold ends the node; a candidate whose key, added to the
r−1 smallest keys, reaches it is dropped from the node for good
(truncation).  A fill computes the keys without their cut share first
(lower bounds: the truncation at them drops nothing it must keep) and adds
the share for the survivors only (1.4–1.7× per search on tree-node duals,
docs/bench/casc_gap.md §44).

Branching constraints (Ryan & Foster 1981) are honoured exactly: records
apart from a member are never candidates; a together component is added as
a whole when its first record (in the node's order) is chosen, and a child
whose component has a record before it in the order is skipped (that cluster
belongs to the earlier record's subtree), so each allowed cluster is
generated once.

All state lives in arrays, so the kernel runs in slices of node expansions
(the caller checks the clock in between) and several kernels run at once in
threads (``nogil``), each on its own share of the root's children; they share
the incumbent minimum only to prune (a stale read prunes less, never wrongly),
and the exact minimum is the least of their own minima.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...interrupts import StopRequest
from .forbidden import forbidden_table

__all__ = ["SearchSpace", "search_clusters", "SearchOutcome"]

_SLICE = 4_000   # node expansions between two clock checks (~10-50 ms at n = 1000)


@njit(cache=True, nogil=True)
def _cut_pen(u, cutcnt, cut_start, cut_idx, cut_num, cut_den, mu):
    """Σ_S μ_S (⌊(c_S + a_u)/d_S⌋ − ⌊c_S/d_S⌋) over the cuts S ∋ u, c_S the
    partial cluster's Σ a_i in S (for a subset-row cut: μ_S when c_S is odd):
    what adding u alone to it would add to the reduced cost."""
    pen = 0.0
    for q in range(cut_start[u], cut_start[u + 1]):
        s = cut_idx[q]
        c = cutcnt[s]
        d = cut_den[s]
        if d == 2:                  # subset-row cut (a = 1): a new μ on an odd count
            if c & 1:
                pen += mu[s]
        else:
            pen += mu[s] * ((c + cut_num[q]) // d - c // d)
    return pen


@njit(cache=True, nogil=True)
def _cut_key(u, cutcnt, cut_start, cut_idx, cut_num, cut_den, mu):
    """Σ_S μ_S max(0, a_u − g_S)/d_S, g_S = d_S − 1 − (c_S mod d_S): a share
    of the cut penalties per new record that sums, over any set T of new
    records, to at most what T adds (⌊(c + Σ_T a)/d⌋ − ⌊c/d⌋ ≥ (Σ_T a − g)/d;
    for a subset-row cut μ/2 when c_S is odd, else 0)."""
    pen = 0.0
    for q in range(cut_start[u], cut_start[u + 1]):
        s = cut_idx[q]
        d = cut_den[s]
        if d == 2:                  # subset-row cut: μ/2 on an odd count
            if cutcnt[s] & 1:
                pen += 0.5 * mu[s]
            continue
        g = d - 1 - cutcnt[s] % d
        if cut_num[q] > g:
            pen += mu[s] * (cut_num[q] - g) / d
    return pen


@njit(cache=True, nogil=True, inline="always")
def insert_smallest(small, size, value):
    """Insert ``value`` into small[:size], the ``size`` smallest values seen
    so far in ascending order (padded with inf), when it belongs there."""
    if value < small[size - 1]:
        p = size - 1
        while p > 0 and small[p - 1] > value:
            small[p] = small[p - 1]
            p -= 1
        small[p] = value


@njit(cache=True, nogil=True)
def _truncate(buf_u, buf_k, keep, r, cut):
    """Keep, in place, the candidates of buf_u[:keep] (keys buf_k) that can
    be in a completion of r records whose keys sum below ``cut``: a key
    plus the r−1 smallest keys must stay below it (the r−1 smallest are
    always kept).  Returns how many are kept.  Valid for lower bounds of
    the keys too."""
    if r > 1:
        small = np.full(r - 1, np.inf)     # the r−1 smallest keys, ascending
        for j in range(keep):
            insert_smallest(small, r - 1, buf_k[j])
        cut -= small.sum()
        top = small[r - 2]
    else:
        top = -np.inf
    m = 0
    for j in range(keep):
        if buf_k[j] < cut or buf_k[j] <= top:
            buf_u[m] = buf_u[j]
            buf_k[m] = buf_k[j]
            m += 1
    return m


@njit(cache=True, nogil=True)
def _fill(D, lh, single, eta, L, r, src, nsrc, acc_src, grp, ngrp, comp_of, comp_start,
          comp_members, banned, cutcnt, cut_start, cut_idx, cut_num, cut_den, mu, mark, stamp,
          rc, thr, cand, keys, acc, poslook, ncand, buf_u, buf_k):
    """Candidates of level L from ``src`` (a parent's candidates, minus the
    records ``grp`` just added), with acc[L] = acc_src + Σ_{g∈grp} D[g, ·],
    keys, sorting and truncation at threshold ``thr``.

    Two passes: the keys without their cut share (lower bounds, so the
    truncation at them drops no candidate of a completion below ``thr``),
    then the cut share for the survivors and the truncation again (a
    level-2 fill keeps 7–9 of 300–450 candidates on the Tarragona k = 5
    tree).  ``lh[r − 1, u]`` = −λ_u + H[u, r−1];
    ``single[u]``: u is alone in its together component.  A record of a
    larger component is a candidate only when its whole component is
    (``mark``); those are keyed after the pass, from the end of the buffers."""
    stamp[0] += 1
    st = stamp[0]
    keep = np.int64(0)
    late = nsrc
    for j in range(nsrc):
        u = src[j]
        if banned[u] > 0:
            continue
        if single[u]:
            a = acc_src[u] + D[grp[0], u]
            for q in range(1, ngrp):
                a += D[grp[q], u]
            acc[L, u] = a
            buf_k[keep] = a / eta + lh[r - 1, u]
            buf_u[keep] = u
            keep += 1
            continue
        c = comp_of[u]
        if comp_start[c + 1] - comp_start[c] > r:
            continue
        skip = False
        for q in range(ngrp):
            if grp[q] == u:
                skip = True
        if skip:
            continue
        mark[u] = st
        late -= 1
        buf_u[late] = u
    for j in range(late, nsrc):
        u = buf_u[j]
        c = comp_of[u]
        ok = True
        for q in range(comp_start[c], comp_start[c + 1]):
            if mark[comp_members[q]] != st:
                ok = False
        if not ok:
            continue
        a = acc_src[u]
        for q in range(ngrp):
            a += D[grp[q], u]
        acc[L, u] = a
        buf_k[keep] = a / eta + lh[r - 1, u]
        buf_u[keep] = u
        keep += 1
    keep = _truncate(buf_u, buf_k, keep, r, thr - rc)
    for j in range(keep):
        u = buf_u[j]
        if cut_start[u] < cut_start[u + 1]:
            if r == 1:
                buf_k[j] += _cut_pen(u, cutcnt, cut_start, cut_idx, cut_num, cut_den, mu)
            else:
                buf_k[j] += _cut_key(u, cutcnt, cut_start, cut_idx, cut_num, cut_den, mu)
    m = _truncate(buf_u, buf_k, keep, r, thr - rc)
    order = np.argsort(buf_k[:m])
    for j in range(m):
        u = buf_u[order[j]]
        cand[L, j] = u
        keys[L, j] = buf_k[order[j]]
        poslook[L, u] = j
    ncand[L] = m


@njit(cache=True, nogil=True)
def _threshold(mode, fixed_thr, shared_best, pool_size, pool_worst, max_pool, tol):
    """Prune below this value.  Mode 1: the fixed threshold.  Mode 0: the
    incumbent minimum, capped at ``fixed_thr`` (the floor: above it the
    minimum need not be exact), or the value a column must beat to enter
    the pool: −tol, the worst pooled column once this thread's pool is full,
    or the least such worst over all threads (``shared_best[1]``: a full
    pool of another thread already holds ``max_pool`` columns below it, so
    nothing above it can be among the best ``max_pool`` of the union)."""
    if mode == 1:
        return fixed_thr
    best = min(shared_best[0], fixed_thr)
    limit = min(-tol, shared_best[1])
    if pool_size[0] == max_pool:
        limit = min(limit, pool_worst[0])
    return max(best, limit)


@njit(cache=True, nogil=True)
def _record(val, members, m, leaf, fb_hash, fb_rows, mode, fixed_thr, shared_best, my_best,
            my_best_members, pool_rc, pool_members, pool_size, pool_worst, tol, out, out_count):
    """A complete cluster members[:m] (= η records) of reduced cost ``val``.
    Returns False when ``out`` is full (mode 1)."""
    for q in range(m):
        leaf[q] = members[q]
    leaf.sort()
    if fb_hash.size > 0:
        h = np.uint64(14695981039346656037)
        for q in range(m):
            h = (h ^ np.uint64(leaf[q])) * np.uint64(1099511628211)
        lo = np.searchsorted(fb_hash, h)
        while lo < fb_hash.size and fb_hash[lo] == h:
            if (fb_rows[lo] == leaf).all():
                return True
            lo += 1
    if mode == 1:
        if val < fixed_thr:
            if out_count[0] == out.shape[0]:
                return False
            out[out_count[0], :] = leaf
            out_count[0] += 1
        return True
    if val < my_best[0]:
        my_best[0] = val
        my_best_members[:] = leaf
    if val < shared_best[0]:
        shared_best[0] = val
    if val < -tol:
        max_pool = pool_rc.size
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
        if pool_size[0] == max_pool:
            worst = pool_rc[0]
            for q in range(1, max_pool):
                if pool_rc[q] > worst:
                    worst = pool_rc[q]
            pool_worst[0] = worst
            if worst < shared_best[1]:
                shared_best[1] = worst
    return True


@njit(cache=True, nogil=True)
def _undo(members, lo, hi, cutcnt, cut_start, cut_idx, cut_num, banned, apart_start,
          apart_idx):
    for q in range(lo, hi):
        v = members[q]
        for z in range(cut_start[v], cut_start[v + 1]):
            cutcnt[cut_idx[z]] -= cut_num[z]
        for z in range(apart_start[v], apart_start[v + 1]):
            banned[apart_idx[z]] -= 1


@njit(cache=True, nogil=True)
def _search(D, lam, lh, single, eta, comp_of, comp_start, comp_members, apart_start, apart_idx,
            cut_start, cut_idx, cut_num, cut_den, mu, cand, keys, acc, poslook, ncand, pos, rcs,
            msize, members,
            level, cutcnt, banned, mark, stamp, buf_u, buf_k, leaf, root_hi, mode, fixed_thr,
            shared_best, my_best, my_best_members, pool_rc, pool_members, pool_size,
            pool_worst, fb_hash, fb_rows, tol, out, out_count, budget):
    """Run the depth-first search from the state in the arrays for at most
    ``budget`` expansions.  Returns 1 when complete, 0 when the budget ran
    out (call again to resume), −1 when ``out`` is full (mode 1)."""
    max_pool = pool_rc.size
    expansions = 0
    L = level[0]
    grp = np.empty(eta, dtype=np.int64)
    while L >= 0:
        i = pos[L]
        r = eta - msize[L]
        n_c = ncand[L]
        hi = root_hi if L == 0 else n_c
        if hi > n_c:
            hi = n_c
        thr = _threshold(mode, fixed_thr, shared_best, pool_size, pool_worst, max_pool, tol)
        if i >= hi or i + r > n_c or (r == 1 and rcs[L] + keys[L, i] >= thr):
            if L > 0:
                _undo(members, msize[L - 1], msize[L], cutcnt, cut_start, cut_idx, cut_num,
                      banned, apart_start, apart_idx)
            L -= 1
            continue
        if r == 1:
            # children are complete clusters; keys[L, i] is their exact increment
            pos[L] = i + 1
            members[msize[L]] = cand[L, i]
            if not _record(rcs[L] + keys[L, i], members, eta, leaf, fb_hash, fb_rows, mode,
                           fixed_thr, shared_best, my_best, my_best_members, pool_rc,
                           pool_members, pool_size, pool_worst, tol, out, out_count):
                level[0] = L
                return -1
            continue
        window = 0.0
        for q in range(i, i + r):
            window += keys[L, q]
        if rcs[L] + window >= thr:
            if L > 0:
                _undo(members, msize[L - 1], msize[L], cutcnt, cut_start, cut_idx, cut_num,
                      banned, apart_start, apart_idx)
            L -= 1
            continue
        pos[L] = i + 1
        t = cand[L, i]
        c = comp_of[t]
        ngrp = np.int64(0)
        skip = False
        for q in range(comp_start[c], comp_start[c + 1]):
            p = comp_members[q]
            if p != t:
                j = poslook[L, p]
                # the partner must be a candidate after t: one before t owns this
                # cluster's subtree, a missing (truncated) one makes it hopeless
                if j <= i or j >= n_c or cand[L, j] != p:
                    skip = True
            grp[ngrp] = p
            ngrp += 1
        if skip:
            continue
        # add the group: reduced cost, cut counts, apart bans
        m0 = msize[L]
        val = rcs[L]
        for q in range(ngrp):
            p = grp[q]
            inc = acc[L, p]
            for z in range(q):
                inc += D[grp[z], p]
            val += inc / eta - lam[p]
            val += _cut_pen(p, cutcnt, cut_start, cut_idx, cut_num, cut_den, mu)
            for z in range(cut_start[p], cut_start[p + 1]):
                cutcnt[cut_idx[z]] += cut_num[z]
            for z in range(apart_start[p], apart_start[p + 1]):
                banned[apart_idx[z]] += 1
            members[m0 + q] = p
        conflict = False
        for q in range(ngrp):   # a together component never holds an apart pair
            if banned[grp[q]] > 0:
                conflict = True
        r_child = r - ngrp
        if conflict or r_child < 0:
            _undo(members, m0, m0 + ngrp, cutcnt, cut_start, cut_idx, cut_num, banned,
                  apart_start, apart_idx)
            continue
        if r_child == 0:
            ok = _record(val, members, eta, leaf, fb_hash, fb_rows, mode, fixed_thr,
                         shared_best, my_best, my_best_members, pool_rc, pool_members,
                         pool_size, pool_worst, tol, out, out_count)
            _undo(members, m0, m0 + ngrp, cutcnt, cut_start, cut_idx, cut_num, banned,
                  apart_start, apart_idx)
            if not ok:
                level[0] = L
                return -1
            continue
        _fill(D, lh, single, eta, L + 1, r_child, cand[L, i + 1:n_c], n_c - i - 1, acc[L], grp,
              ngrp, comp_of, comp_start, comp_members, banned, cutcnt, cut_start, cut_idx,
              cut_num, cut_den, mu, mark, stamp, val, thr, cand, keys, acc, poslook, ncand,
              buf_u, buf_k)
        L += 1
        msize[L] = m0 + ngrp
        rcs[L] = val
        pos[L] = 0
        expansions += 1
        level[1] += 1
        if expansions >= budget:
            level[0] = L
            return 0
    level[0] = -1
    return 1


@dataclass
class SearchSpace:
    """Everything the search needs that does not change with the node: the
    distances, their sorted-edge prefix sums (for H), the cluster size, and
    the node's constraints; built once per (D, η), reused across calls."""

    D: np.ndarray
    eta: int
    H: np.ndarray

    @classmethod
    def build(cls, D, eta, edge_sums=None):
        """``edge_sums[v, r]`` = sum of the r smallest D[v, u], u ≠ v (r up to
        η − 1), e.g. from :func:`edge_prefix_sums`; computed if not given."""
        if edge_sums is None:
            edge_sums = edge_prefix_sums(D, eta - 1)
        H = np.ascontiguousarray(edge_sums[:, :eta] / (2.0 * eta))
        return cls(D, eta, H)


def edge_prefix_sums(D: np.ndarray, r: int) -> np.ndarray:
    """S[v, q] = sum of the q smallest D[v, u], u ≠ v, for q = 0..r (columns
    beyond n − 1 repeat the full sum).  O(n² + n r log r)."""
    n = D.shape[0]
    r_eff = min(r, n - 1)
    S = np.zeros((n, r + 1))
    if r_eff > 0:
        off = D + np.diag(np.full(n, np.inf))
        part = np.partition(off, r_eff - 1, axis=1)[:, :r_eff]
        part.sort(axis=1)
        S[:, 1:r_eff + 1] = np.cumsum(part, axis=1)
        S[:, r_eff + 1:] = S[:, [r_eff]]
    return S


@dataclass
class SearchOutcome:
    """Result of :func:`search_clusters`.  ``status``: "complete",
    "time_limit", "too_many_columns" (mode collect) or "too_many_nodes".
    ``min_rc``/``best`` are the exact minimum and a cluster attaining it
    (complete searches, mode "best"); ``columns``/``costs`` the pool (mode
    "best": the ``max_columns`` best below −tol) or every cluster below the
    threshold (mode "collect")."""

    status: str
    min_rc: float | None
    best: np.ndarray | None
    columns: np.ndarray
    costs: np.ndarray
    expansions: int
    seconds: float
    min_exact: bool = False


class _Worker:
    """Per-thread state of the search at one size."""

    def __init__(self, space: SearchSpace, n: int, max_columns: int, collect_cap: int,
                 n_cuts: int):
        eta = space.eta
        self.cand = np.zeros((eta, n), dtype=np.int64)
        self.keys = np.zeros((eta, n))
        self.acc = np.zeros((eta, n))
        self.poslook = np.zeros((eta, n), dtype=np.int64)
        self.ncand = np.zeros(eta, dtype=np.int64)
        self.pos = np.zeros(eta, dtype=np.int64)
        self.rcs = np.zeros(eta)
        self.msize = np.zeros(eta, dtype=np.int64)
        self.members = np.zeros(eta, dtype=np.int64)
        self.level = np.array([-1, 0], dtype=np.int64)   # current level, expansions
        self.cutcnt = np.zeros(max(n_cuts, 1), dtype=np.int64)
        self.banned = np.zeros(n, dtype=np.int64)
        self.mark = np.zeros(n, dtype=np.int64)
        self.stamp = np.zeros(1, dtype=np.int64)
        self.buf_u = np.zeros(n, dtype=np.int64)
        self.buf_k = np.zeros(n)
        self.leaf = np.zeros(eta, dtype=np.int64)
        self.my_best = np.array([np.inf])
        self.my_best_members = np.full(eta, -1, dtype=np.int64)
        self.pool_rc = np.zeros(max(max_columns, 1))
        self.pool_members = np.zeros((max(max_columns, 1), eta), dtype=np.int64)
        self.pool_size = np.zeros(1, dtype=np.int64)
        self.pool_worst = np.array([np.inf])
        self.out = np.zeros((collect_cap, eta), dtype=np.int64)
        self.out_count = np.zeros(1, dtype=np.int64)

    def start(self, root_cand, root_keys, lo):
        """Reset to the root (level 0) with its children from position ``lo``."""
        m = root_cand.size
        self.cand[0, :m] = root_cand
        self.keys[0, :m] = root_keys
        self.poslook[0, root_cand] = np.arange(m)
        self.acc[0, :] = 0.0
        self.ncand[0] = m
        self.pos[0] = lo
        self.rcs[0] = 0.0
        self.msize[0] = 0
        self.level[0] = 0


def _root(keys, sizes, eta, thr):
    """Root candidates: every record whose together component (of ``sizes``
    records) fits, sorted by ``keys`` (−λ_u + H[u, η−1]), truncated at
    ``thr``."""
    ok = sizes <= eta
    idx = np.flatnonzero(ok)
    order = idx[np.argsort(keys[idx], kind="stable")]
    k_sorted = keys[order]
    if eta >= 1 and order.size:
        prefix = np.concatenate(([0.0], np.cumsum(k_sorted)))
        # candidate j ≥ η−1 needs the η−1 smallest keys before it
        need = prefix[eta - 1] + k_sorted
        bad = np.flatnonzero((np.arange(order.size) >= eta - 1) & (need >= thr))
        if bad.size:
            order, k_sorted = order[:bad[0]], k_sorted[:bad[0]]
    return np.ascontiguousarray(order), np.ascontiguousarray(k_sorted)


def _chunks(m: int, threads: int):
    """Root-children ranges: single children first (they hold most of the
    work), then growing blocks."""
    out, lo, size = [], 0, 1
    while lo < m:
        hi = min(m, lo + size)
        out.append((lo, hi))
        lo = hi
        if lo >= 8 * threads:
            size = min(size * 2, 64)
    return out


def search_clusters(space: SearchSpace, lam, cons, *, mode="best", max_columns=10,
                    threshold=None, floor=None, tol=1e-9, forbidden=None, deadline=None,
                    threads=1, max_nodes=None, collect_cap=200_000) -> SearchOutcome:
    """Exact search over the clusters of size η = ``space.eta`` allowed by
    ``cons`` (a :class:`~.constraints.PricingConstraints`), with the
    reduced costs of the module docstring at duals ``lam``.

    ``mode="best"``: the exact minimum (and a cluster attaining it) and the
    ``max_columns`` best clusters below −tol; with a ``floor`` (e.g. 0), the
    minimum is exact only when below it, else ``min_rc`` is the floor, a
    valid lower bound (``min_exact`` False) — all a Lagrangian bound
    Σλ + n·min(0, min_η r_η/η) needs, at a fraction of the search.  ``mode="collect"``: every
    cluster with reduced cost below ``threshold`` (at most ``collect_cap``).
    ``forbidden``: (hashes, rows) table of clusters to skip
    (:func:`~.forbidden.forbidden_table`).  ``threads`` > 1 splits the
    root's children between threads.  ``deadline``: a ``time.perf_counter()``
    value, checked between slices, where a graceful stop request
    (:class:`~mipagg.interrupts.StopRequest`) counts as reaching it.  Worst case O(C(n, η)·n log n).
    """
    t0 = time.perf_counter()
    D = space.D
    n = D.shape[0]
    eta = space.eta
    lam = np.ascontiguousarray(lam, dtype=float)
    collect = mode == "collect"
    fixed_thr = float(threshold) if collect else (np.inf if floor is None else float(floor))
    fb_hash, fb_rows = forbidden if forbidden is not None else forbidden_table(set(), eta)
    empty_cols = np.zeros((0, eta), dtype=np.int64)
    if not cons.feasible or eta > n:
        return SearchOutcome("complete", None, None, empty_cols, np.zeros(0), 0,
                             time.perf_counter() - t0)
    root_thr = fixed_thr if collect else np.inf
    lh = np.ascontiguousarray(space.H.T - lam)      # lh[r − 1, u] = −λ_u + H[u, r − 1]
    sizes = np.diff(cons.comp_start)[cons.comp_of]  # of each record's together component
    single = sizes == 1
    root_cand, root_keys = _root(lh[eta - 1], sizes, eta, root_thr)
    shared_best = np.array([np.inf, np.inf])   # least minimum; least full-pool worst
    chunks = _chunks(root_cand.size, threads)
    lock = threading.Lock()
    state = {"next": 0, "status": "complete", "nodes": 0}
    n_cuts = cons.cut_rows.shape[0]
    workers = [_Worker(space, n, max_columns, collect_cap if collect else 1, n_cuts)
               for _ in range(max(1, threads))]

    def work(w: _Worker):
        while True:
            with lock:
                if state["status"] != "complete" or state["next"] >= len(chunks):
                    return
                lo, hi = chunks[state["next"]]
                state["next"] += 1
            w.start(root_cand, root_keys, lo)
            while True:
                code = _search(D, lam, lh, single, eta, cons.comp_of, cons.comp_start,
                               cons.comp_members, cons.apart_start, cons.apart_idx,
                               cons.cut_start, cons.cut_idx, cons.cut_num, cons.cut_den,
                               cons.mu, w.cand, w.keys, w.acc,
                               w.poslook, w.ncand, w.pos, w.rcs, w.msize, w.members, w.level,
                               w.cutcnt, w.banned, w.mark, w.stamp, w.buf_u, w.buf_k, w.leaf,
                               hi, 1 if collect else 0, fixed_thr, shared_best, w.my_best,
                               w.my_best_members, w.pool_rc, w.pool_members, w.pool_size,
                               w.pool_worst, fb_hash, fb_rows, float(tol), w.out, w.out_count,
                               _SLICE)
                if code == 1:
                    break
                with lock:
                    if code == -1:
                        state["status"] = "too_many_columns"
                    elif deadline is not None and (time.perf_counter() >= deadline
                                                   or StopRequest.requested):
                        state["status"] = "time_limit"      # a stop request: as at it
                    else:
                        state["nodes"] += _SLICE
                        if max_nodes is not None and state["nodes"] > max_nodes:
                            state["status"] = "too_many_nodes"
                    if state["status"] != "complete":
                        return

    if len(workers) == 1 or len(chunks) <= 1:
        work(workers[0])
    else:
        ts = [threading.Thread(target=work, args=(w,)) for w in workers]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    return _gather(workers, state["status"], collect, eta, max_columns, floor, t0)


def _gather(workers, status, collect, eta, max_columns, floor, t0) -> SearchOutcome:
    """The outcome of a search from its workers' pools and best clusters."""
    empty_cols = np.zeros((0, eta), dtype=np.int64)
    expansions = int(sum(w.level[1] for w in workers))
    seconds = time.perf_counter() - t0
    if collect:
        if status != "complete":
            return SearchOutcome(status, None, None, empty_cols, np.zeros(0), expansions, seconds)
        cols = np.concatenate([w.out[:w.out_count[0]] for w in workers]) if workers \
            else empty_cols
        return SearchOutcome(status, None, None, cols, np.zeros(cols.shape[0]), expansions,
                             seconds)
    rc = np.concatenate([w.pool_rc[:w.pool_size[0]] for w in workers])
    cols = np.concatenate([w.pool_members[:w.pool_size[0]] for w in workers]).reshape(-1, eta)
    order = np.argsort(rc, kind="stable")[:max_columns]
    min_rc, best = None, None
    min_exact = False
    if status == "complete":
        i = int(np.argmin([w.my_best[0] for w in workers]))
        found = float(workers[i].my_best[0])
        if floor is not None and not found < floor:
            min_rc = float(floor)      # nothing below the floor: a lower bound
        elif np.isfinite(found):
            min_rc, best = found, workers[i].my_best_members.copy()
            min_exact = True
    return SearchOutcome(status, min_rc, best, cols[order], rc[order], expansions, seconds,
                         min_exact)
