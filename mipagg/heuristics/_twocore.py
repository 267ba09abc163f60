"""Both cores for MDAV's two queries around r (docs/bench/large.md).

An MDAV step asks, of the same remaining records, for the record s farthest
from r and for the k nearest of r (:mod:`mipagg.heuristics._index`; the
farthest query is most of a step's time at large n).  Here both are answered
in one parallel region of two threads: one thread first answers the nearest
query; the top of the tree is cut into a frontier of subtrees, in decreasing
order of their upper bounds, that the threads take one by one from a shared
counter.  Before they start, a dive to the most promising leaf gives a first
distance to prune against; each thread then publishes the best distance it
has found and prunes against the largest published one.

Same answers, ties included.  A node is pruned only when its upper bound is
below a distance that some remaining record reaches, so every record at the
largest distance is scanned by one of the threads, and the two results are
merged by (distance, lowest index).  The counter is read and written without
atomics: a race can only make both threads search the same subtree (each
value read is one more than a value read before, so none is skipped), which
the farthest query tolerates.

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

from . import _index as ix

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
def _dive(T, q, w, qn):
    """The largest distance from ``q`` to the remaining records of the leaf
    reached by always descending to the child of larger upper bound."""
    left, right, cnt, start, end, Xp, talive = T[3], T[4], T[12], T[1], T[2], T[15], T[16]
    v = 0
    while left[v] >= 0:
        a, b = left[v], right[v]
        if cnt[a] == 0 or cnt[b] == 0:
            v = b if cnt[a] == 0 else a
        else:
            v = a if ix.upper_far(T, a, q, w, qn, -1.0) >= ix.upper_far(T, b, q, w, qn, -1.0) else b
    buf = np.empty(T[20])
    ix.leaf_sqdist(Xp, start[v], end[v], q, buf)
    best = -1.0
    for t in range(start[v], end[v]):
        if talive[t]:
            best = max(best, buf[t - start[v]])
    return best


@njit(cache=True)
def _prepare(T, X, alive, r, k):
    """Everything the region needs, allocated outside it: the query's terms,
    the frontier, the counter, the published bests (the two threads', then
    the dive's) and the per-thread results."""
    q = X[r]
    w, qn = ix.far_terms(T, q)
    roots, rb = _frontier(T, q, w, qn)
    shared = np.array([-1.0, -1.0, _dive(T, q, w, qn)])
    return (q, w, qn, roots, rb, np.zeros(1, dtype=np.int64), shared, np.full(2, -1.0),
            np.full(2, -1, dtype=np.int64), np.empty(k, dtype=np.int64))


@njit(cache=True)
def _worker(T, q, w, qn, roots, rb, counter, shared, me):
    """The farthest search of thread ``me`` over the subtrees it is handed."""
    best = -1.0
    arg = -1
    while True:
        c = counter[0]
        counter[0] = c + 1
        if c >= roots.shape[0]:
            return best, arg
        best, arg = ix.farthest_below(T, q, w, qn, roots[c:c + 1], rb[c:c + 1], 1, best, arg,
                                       shared, me)


@njit(cache=True)
def _nearest_into(T, X, alive, q, k, near):
    idx = ix.tree_nearest(T, X, alive, q, k)
    near[:] = idx


@njit(cache=True, parallel=True)
def farthest_and_nearest(T, X, alive, r, k):
    """(s, near): s the remaining record farthest from record ``r`` (lowest
    index on ties, as :func:`_index.tree_farthest`) and ``near`` its k nearest
    (as :func:`_index.tree_nearest`), on two threads."""
    q, w, qn, roots, rb, counter, shared, bb, ba, near = _prepare(T, X, alive, r, k)
    for me in prange(2):
        if me == 1:
            _nearest_into(T, X, alive, q, k, near)
        b, a = _worker(T, q, w, qn, roots, rb, counter, shared, me)
        bb[me] = b
        ba[me] = a
    s = ba[0]
    if bb[1] > bb[0] or (bb[1] == bb[0] and ba[1] >= 0 and ba[1] < s):
        s = ba[1]
    return s, near


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
