"""Both cores for MDAV (docs/bench/large.md).

An MDAV step asks, of the same remaining records, for the record s farthest
from r and for the k nearest of r (:mod:`mipagg.heuristics._index`; the
farthest query is most of a step's time at large n).  Here both are answered
in one parallel region of two threads (:func:`farthest_and_nearest`): one
thread first answers the nearest query; the top of the tree is cut into a
frontier of subtrees, in decreasing order of their upper bounds, that the
threads take one by one from a shared counter; each thread publishes the
best distance it has found and prunes against the largest published one.

The rest of a step, the group of s, then the next step's r (the record
farthest from the centroid of what is left), depends on the answers, so it
would run on one thread.  :func:`group_of_s_and_next` overlaps it with the
next step's queries: one thread forms s's group and finds the next r; the
other guesses that r from where the centroid is expected (about 93 guesses
in 100 are right on SimU), answers the nearest query of the guess and starts
the farthest search from it; if the guess is confirmed, the first thread
joins the search, otherwise the step's queries run as above.

Same answers, ties included.  A node is pruned only when its upper bound is
below a distance that some remaining record reaches, so every record at the
largest distance is scanned by one of the threads, and the two results are
merged by (distance, lowest index).  A search that overlaps the removal of
s's group keeps the k + 1 farthest records it has seen and prunes below the
last of them until the removal is over (below the best remaining one after),
so that the first of its list still remaining is the answer; the removals
write each bound once, from its old value to its new one, so every bound
read stays valid for the records that remain.  The counter is read and
written without an atomic increment: a race can only make both threads
search the same subtree (each value read is one more than a value read
before, so none is skipped), which the farthest query tolerates.  Whatever
the other thread has published when a thread reads it (the guess, the
frontier and its size), the answers stay exact: the guess is only used once
confirmed, and a thread joins the search only once the frontier is
published.  The flags go through :mod:`._shared` (acquire/release).

:class:`Threads` decides, chunk by chunk of a run, whether the two-thread
kernel or the one-thread kernel runs: both give the same groups, and on a
machine whose second core is busy the one-thread kernel is faster.
"""

from __future__ import annotations

import os
import time
from collections import deque

import numba
import numpy as np
from numba import njit, prange

from . import _index as ix, _shared as sh

FRONTIER = 16  # subtrees handed out per farthest query
MIN_N = 50_000  # below this many records a run keeps to one thread
PROBE = 16  # every PROBE-th chunk runs the kernel not in use, to time it again
RECENT = 3  # chunks of each kernel whose fastest decides


@njit(cache=True)
def _frontier(T, q, w, qn):
    """Up to about ``FRONTIER`` subtrees holding every remaining record, in
    decreasing order of their upper bounds on the distance from ``q``."""
    left, right, cnt = T[3], T[4], T[12]
    nodes = np.zeros(1, dtype=np.int64)
    bounds = np.full(1, np.inf)
    grew = True
    while grew and nodes.shape[0] < FRONTIER:  # split inner nodes level by level
        grew = False
        nxt = np.empty(2 * nodes.shape[0], dtype=np.int64)
        nb = np.empty(2 * nodes.shape[0])
        nr = 0
        for t in range(nodes.shape[0]):
            v = nodes[t]
            if left[v] < 0:
                nxt[nr] = v
                nb[nr] = bounds[t]
                nr += 1
                continue
            grew = True
            for c in (left[v], right[v]):
                if cnt[c] > 0:
                    nxt[nr] = c
                    nb[nr] = ix.upper_far(T, c, q, w, qn, -1.0)
                    nr += 1
        nodes = nxt[:nr]
        bounds = nb[:nr]
    order = np.argsort(-bounds)
    return nodes[order], bounds[order]


@njit(cache=True)
def _prepare(T, X, alive, r, k):
    """Everything the region needs, allocated outside it: the query's terms,
    the frontier and its size, the counter, the published bests of the two
    threads, the per-thread lists (one entry each) and the k nearest."""
    q = X[r]
    w, qn = ix.far_terms(T, q)
    roots, rb = _frontier(T, q, w, qn)
    shared = np.full(2, -1.0)
    return (q, w, qn, roots, rb, np.full(1, roots.shape[0]), np.zeros(1, dtype=np.int64), shared,
            np.full((2, 1), -1.0), np.full((2, 1), -1, dtype=np.int64), np.empty(k, dtype=np.int64))


@njit(cache=True)
def _worker(T, q, w, qn, roots, rb, nroots, counter, bd, bi, shared, me, alive, final, abort):
    """The farthest search of thread ``me`` over the subtrees it is handed,
    into its list ``bd``, ``bi`` (:func:`_index.farthest_below`), until none
    is left or ``abort[0]`` is set."""
    while sh.load(abort, 0) == 0:
        c = sh.load(counter, 0)
        sh.store(counter, 0, c + 1)
        if c >= sh.load(nroots, 0):
            return
        ix.farthest_below(T, q, w, qn, roots[c:c + 1], rb[c:c + 1], np.int64(1), bd, bi, shared,
                          me, alive, final)


@njit(cache=True)
def _nearest_into(T, X, alive, q, k, near):
    idx = ix.tree_nearest(T, X, alive, q, k)
    near[:] = idx


@njit(cache=True, parallel=True)
def farthest_and_nearest(T, X, alive, r, k):
    """(s, near): s the remaining record farthest from record ``r`` (lowest
    index on ties, as :func:`_index.tree_farthest`) and ``near`` its k nearest
    (as :func:`_index.tree_nearest`), on two threads."""
    q, w, qn, roots, rb, nroots, counter, shared, bd, bi, near = _prepare(T, X, alive, r, k)
    never = np.zeros(1, dtype=np.int64)
    final = np.ones(1, dtype=np.int64)
    for me in prange(2):
        if me == 1:
            _nearest_into(T, X, alive, q, k, near)
        _worker(T, q, w, qn, roots, rb, nroots, counter, bd[me], bi[me], shared, np.int64(me),
                alive, final, never)
    return _first_alive(bd, bi, alive), near


@njit(cache=True)
def _first_alive(bd, bi, alive):
    """The first remaining record of the threads' lists (rows of ``bd``,
    ``bi``) merged by (decreasing distance, lowest index); −1 if none."""
    s = -1
    ds = -1.0
    for me in range(bd.shape[0]):
        for t in range(bd.shape[1]):
            i = bi[me, t]
            if i >= 0 and alive[i]:
                if bd[me, t] > ds or (bd[me, t] == ds and i < s):
                    s = i
                    ds = bd[me, t]
                break  # each list is sorted: its first remaining record is its best
    return s


@njit(cache=True)
def guess_centre(C, X, alive, c, skip):
    """A guess at the remaining record (other than ``skip``) farthest from the
    point ``c``: the scan of :func:`_index.farthest_from_centroid` with its
    order read, never changed, while another thread may be changing it (so
    the answer may be wrong; it is only used once confirmed)."""
    c0, nu, order, jump, work = C[3], C[4], C[5], C[6], C[7]
    L = min(work[3], order.shape[0])
    dc = np.sqrt(ix.sqdist_pts(c, c0))
    best = -1.0
    arg = -1
    pos = 0
    while pos < L:
        y = order[pos]
        if alive[y] and y != skip:
            if (nu[y] + dc) * (nu[y] + dc) < best:
                break
            d = ix.sqdist_row(X, y, c)
            if d > best or (d == best and y < arg):
                best = d
                arg = y
            pos += 1
        else:
            pos = max(pos + 1, jump[pos])  # jump[pos] > pos: all dead up to it
    return arg


@njit(cache=True)
def _hold(slot, t, wait):
    """With ``wait``, spin (a bounded number of times) until ``slot[t]`` is set."""
    if wait:
        for _ in range(10**9):
            if sh.load(slot, t) != -1:
                return


@njit(cache=True, parallel=True)
def group_of_s_and_next(T, C, X, alive, s, k, m, out, pos, guess, late):
    """The group of s (written to ``out[pos:]`` and removed) and, with luck,
    the next MDAV step's r, its s and its k nearest, on two threads.

    ``m`` records remain, s among them; ``guess`` is the point where the
    centroid of the records left after s's group is expected.  Thread 1 finds
    and removes s's group, then the next r exactly (record farthest from the
    centroid of the m − k left).  Meanwhile thread 0 guesses r from
    ``guess``, publishes the frontier of the farthest search from it, answers
    the 2k nearest of the guess and starts the search.  If thread 1's r is
    the guess, it joins the search; otherwise it stops thread 0.  Thread 0 may have seen some of
    s's group before thread 1 removed them (removals write each bound once,
    so every bound read stays valid for the others): the first k of its 2k
    nearest still remaining are the k nearest, and each thread keeps its
    k + 1 farthest, the first of them still remaining being the farthest from
    r of the records left (:func:`_index.farthest_below`).  Returns
    (confirmed, r, s of r or −1, the k nearest of r); the group of r is not
    removed.

    ``late`` (0 outside the tests) holds thread 0 back before it publishes the guess
    until thread 1 is done (1), or before it publishes the frontier until
    thread 1 has found r (2; thread 1 then waits for the guess and the
    frontier); or holds thread 1 back until the guess is published (3: in
    time, whatever the scheduler)."""
    slot = np.full(4, -1, dtype=np.int64)  # r guessed, r found, 1: guess confirmed, 1: done
    # thread 1 joins the search only once the frontier is published (nroots > 0)
    nroots = np.zeros(1, dtype=np.int64)
    roots = np.zeros(2 * FRONTIER, dtype=np.int64)  # root and no bound until published
    rb = np.full(2 * FRONTIER, np.inf)
    counter = np.zeros(1, dtype=np.int64)
    abort = np.zeros(1, dtype=np.int64)
    final = np.zeros(1, dtype=np.int64)  # set once s's group is removed
    shared = np.full(2, -1.0)
    bd = np.full((2, k + 1), -1.0)
    bi = np.full((2, k + 1), -1, dtype=np.int64)
    near = np.full(2 * k, -1, dtype=np.int64)
    for me in prange(2):
        if me == 1:
            idx = ix.tree_nearest(T, X, alive, X[s], k)
            ix.take_nearest(T, C, X, alive, s, idx, k, out, pos, np.bool_(False))
            sh.store(final, 0, 1)
            r = ix.farthest_from_centroid(C, X, alive, m - k)
            slot[1] = r
            _hold(slot, np.int64(0), late >= 2)
            if r == sh.load(slot, 0):  # decided here once: the guess may be published later
                slot[2] = 1
                while sh.load(nroots, 0) == 0:  # thread 0 is about to publish its frontier
                    pass
                w, qn = ix.far_terms(T, X[r])
                _worker(T, X[r], w, qn, roots, rb, nroots, counter, bd[1], bi[1], shared,
                        np.int64(1), alive, final, abort)
            else:
                sh.store(abort, 0, 1)
            sh.store(slot, 3, 1)
        else:
            g = guess_centre(C, X, alive, guess, s)
            _hold(slot, np.int64(3), late == 1)
            sh.store(slot, 0, g)
            if g >= 0:
                w, qn = ix.far_terms(T, X[g])
                nodes, bounds = _frontier(T, X[g], w, qn)
                _hold(slot, np.int64(1), late == 2)
                roots[:nodes.shape[0]] = nodes
                rb[:nodes.shape[0]] = bounds
                sh.store(nroots, 0, max(1, nodes.shape[0]))  # none: the root, unbounded
                near2 = ix.tree_nearest(T, X, alive, X[g], 2 * k)
                near[:near2.shape[0]] = near2
                _worker(T, X[g], w, qn, roots, rb, nroots, counter, bd[0], bi[0], shared,
                        np.int64(0), alive, final, abort)
    if slot[2] != 1:
        return False, slot[1], -1, near[:k]
    t = 0
    for i in near:  # the k nearest of r left after s's group, in order
        if i >= 0 and alive[i] and t < k:
            near[t] = i
            t += 1
    return True, slot[1], _first_alive(bd, bi, alive), near[:k]


@njit(cache=True)
def mdav_pairs(X, k, T, C, alive, out, sizes, st, budget, hits):
    """The MDAV steps of ``mdav._mdav_steps`` (while at least 3k records
    remain, at most ``budget`` from state ``st``) on two threads, the same
    groups: the queries around r in one region (:func:`farthest_and_nearest`)
    and, while a next step follows in the budget, the group of s together with
    the next step's r, s and nearest (:func:`group_of_s_and_next`).
    ``hits`` counts the guesses of r confirmed and missed
    (``benchmarks/bench_mdav_guess.py``)."""
    m, pos, g = st[0], st[1], st[2]
    steps = 0
    r = -1  # r of the next step when found ahead, with s and near
    s = -1
    near = np.empty(k, dtype=np.int64)
    while m >= 3 * k and steps < budget:
        if r < 0:
            ix.maybe_rebuild(T, X, alive, m)
            r = ix.farthest_from_centroid(C, X, alive, m)
            s, near = farthest_and_nearest(T, X, alive, r, k)
        pos = ix.take_nearest(T, C, X, alive, r, near, k, out, pos, np.bool_(False))
        if s < 0 or not alive[s]:  # only when every remaining record is equidistant from r
            s = ix.tree_farthest(T, X, alive, X[r])
        sizes[g] = k
        sizes[g + 1] = k
        g += 2
        steps += 1
        if m - 2 * k >= 3 * k and steps < budget:
            guess = (C[0] - k * X[s]) / (m - 2 * k)
            ok, r, s, near = group_of_s_and_next(T, C, X, alive, s, k, m - k, out, pos, guess,
                                                  np.int64(0))
            pos += k
            m -= 2 * k
            ix.maybe_rebuild(T, X, alive, m)  # no query is under way
            if ok:
                hits[0] += 1
            else:
                hits[1] += 1
                s, near = farthest_and_nearest(T, X, alive, r, k)
        else:
            pos = ix.take_group(T, C, X, alive, s, k, out, pos, np.bool_(False))
            m -= 2 * k
            r = -1
    st[0], st[1], st[2] = m, pos, g


_TWO_IN: list[int] = []  # the process that ran the two-thread kernel, if any


class Threads:
    """Chunk by chunk, whether a run's kernel uses two threads.

    ``threads`` = 1 or 2 fixes it; None (the default) measures: runs under
    ``MIN_N`` records or with one numba thread keep to one; otherwise the
    first chunks time both kernels, the faster per step runs (seconds per
    step, the least of the kernel's last ``RECENT`` chunks among the last
    ``PROBE`` + 1: a shared machine only ever adds time, and a step's cost
    drifts along a run), and every ``PROBE``-th chunk times the other again
    (the machine's load changes).  The groups do not depend on the choice.

    A process forked from one that ran the two-thread kernel keeps to one
    thread: GNU OpenMP, numba's usual threading layer, cannot start a
    parallel region there (numba terminates the process)."""

    def __init__(self, threads: int | None, n: int) -> None:
        if threads not in (None, 1, 2):
            raise ValueError(f"threads must be 1, 2 or None (automatic), got {threads!r}")
        if threads is None and (n < MIN_N or numba.get_num_threads() < 2):
            threads = 1
        if _TWO_IN and _TWO_IN[0] != os.getpid():
            threads = 1
        self.fixed = threads
        self.recent: dict[int, deque[tuple[int, float]]] = {1: deque(maxlen=RECENT),
                                                            2: deque(maxlen=RECENT)}
        self.chunks = {1: 0, 2: 0}

    def pick(self) -> int:
        if self.fixed is not None:
            return self.fixed
        now = sum(self.chunks.values())
        cost = {}
        for mode in (1, 2):
            fresh = [c for t, c in self.recent[mode] if t >= now - PROBE - 1]
            if not fresh:
                return mode
            cost[mode] = min(fresh)
        best = 1 if cost[1] <= cost[2] else 2
        return 3 - best if now % PROBE == PROBE - 1 else best

    def steps(self, kernel):
        """``steps(budget)`` for :func:`_index.in_chunks` from
        ``kernel(budget, two)``, timing each chunk."""

        def run(budget: int) -> bool:
            mode = self.pick()
            if mode == 2 and not _TWO_IN:
                _TWO_IN.append(os.getpid())
            t = time.perf_counter()
            done = kernel(budget, mode == 2)
            now = sum(self.chunks.values())
            self.recent[mode].append((now, (time.perf_counter() - t) / budget))
            self.chunks[mode] += 1
            return done

        return run
