"""Refinements of a k-partition that never raise SSE: deterministic local
search and the splitting of groups of 2k or more records (seed 001
Proposition 2.2).

These are the steps every other module builds on (the exact methods split
their start partitions, :mod:`mipagg.improve` and :mod:`mipagg.portfolio`
post-process with them), so they sit below both; :mod:`mipagg.improve`
re-exports them with the improvements that need the exact methods.

>>> import numpy as np
>>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.]])
>>> split_large_groups(X, np.zeros(6, int), 3).sizes.tolist()
[3, 3]
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .errors import ParameterError
from .partition import Partition
from .validation import as_rows, check_partition

__all__ = ["local_search", "split_large_groups", "split_group", "nearest_groups",
           "sse_tolerance"]


def nearest_groups(C: np.ndarray, ids: np.ndarray, centre: np.ndarray, m: int) -> np.ndarray:
    """The ``m`` ids whose centroid (row of ``C``, aligned with ``ids``) is
    nearest ``centre`` (ties: earlier row first); the seed group itself is
    among them when its centroid is ``centre``."""
    d = ((C - centre) ** 2).sum(axis=1)
    return ids[np.argsort(d, kind="stable")[:m]]


def sse_tolerance(X) -> float:
    """Absolute tolerance 1e-10·(1 + SST of ``X``) under which an SSE change
    counts as none (a move must gain more to be taken)."""
    return 1e-10 * (1.0 + float(((X - X.mean(axis=0)) ** 2).sum()))



def local_search(X: np.ndarray, partition, k: int, *, swaps: bool = True, neighbours: int = 8,
                 max_passes: int = 100, time_limit=None) -> Partition:
    """Deterministic local improvement of a k-partition: passes over the
    records in row order; each record moves to the group that lowers SSE the
    most (only if its group keeps ≥ k records), else swaps with the record of
    one of its ``neighbours`` nearest groups (by centroid; ties → lower group
    label) that lowers SSE the most.  Stops after a pass without improvement.
    Never increases SSE; stays k-feasible.

    In the spirit of the cluster post-processing that RCS (seed 003 §6.2,
    step 1) builds on.  O(n·(g + m)·p + n²) per pass for g groups and m
    records in the neighbouring groups.  Compiled with numba; it makes the
    same decisions as the numpy :func:`local_search_reference` (tested), up to
    floating-point summation order on exact ties.  Census, MDAV start, k=3..6:
    0.04–0.08 s against about 0.6 s for the reference in the same run
    (docs/bench/tsp_micro.md).  The kernel runs in chunks of records and
    returns to Python between them (Ctrl-C is honoured); ``time_limit``
    (seconds or a :class:`~mipagg.deadline.Deadline`) stops it between
    chunks with the partition as it stands.

    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [3.]])
    >>> local_search(X, np.array([0, 0, 1, 1, 1, 0]), 2).labels.tolist()
    [0, 0, 0, 1, 1, 0]
    """
    X, k, P = check_partition(X, partition, k)
    if int(neighbours) < 1:
        raise ParameterError(f"neighbours must be at least 1, got {neighbours!r}")
    from .deadline import Deadline, chunk_steps

    deadline = Deadline.of(time_limit)
    lab = np.array(P.labels, dtype=np.int64)
    n, p = X.shape
    g = P.n_groups
    cnt = np.zeros(g, dtype=np.int64)
    S1 = np.zeros((g, p))
    eps = sse_tolerance(X)
    step = chunk_steps((g + (n if swaps else 0)) * (p + 1.0))
    for _ in range(int(max_passes)):
        _group_sums(X, lab, cnt, S1)
        changed = False
        for lo in range(0, n, step):
            changed |= _local_search_kernel(X, lab, cnt, S1, k, bool(swaps), int(neighbours),
                                            eps, lo, min(n, lo + step))
            if deadline.expired():
                break
        if not changed or deadline.hit:
            break
    out = Partition(lab, X)
    return out if out.sse() <= P.sse() else P


@njit(cache=True)
def _group_sums(X, lab, cnt, S1):
    """Counts and coordinate sums of the groups (recomputed every pass)."""
    cnt[:] = 0
    S1[:] = 0.0
    for i in range(X.shape[0]):
        cnt[lab[i]] += 1
        for c in range(X.shape[1]):
            S1[lab[i], c] += X[i, c]


@njit(cache=True)
def _sqdist_to_centroid(X, i, S1, cnt, b):
    s = 0.0
    for c in range(X.shape[1]):
        t = S1[b, c] / cnt[b] - X[i, c]
        s += t * t
    return s


@njit(cache=True)
def _local_search_kernel(X, lab, cnt, S1, k, swaps, m, eps, lo, hi):
    """Records ``lo..hi−1`` of one pass of :func:`local_search_reference`
    (same formulas, same order of decisions) with the group counts and sums
    ``cnt``, ``S1`` of the pass; modifies ``lab``, ``cnt``, ``S1`` in place
    and returns whether anything changed."""
    n, p = X.shape
    g = cnt.shape[0]
    d2 = np.empty(g)
    near = np.empty(m, dtype=np.int64)
    isnear = np.zeros(g, dtype=np.bool_)
    ca = np.empty(p)
    changed = False
    for i in range(lo, hi):
        a = lab[i]
        for b in range(g):
            d2[b] = _sqdist_to_centroid(X, i, S1, cnt, b) if cnt[b] > 0 else np.inf
        na = cnt[a]
        if na > k:
            best = np.inf
            bb = np.int64(-1)
            for b in range(g):
                if cnt[b] == 0 or b == a:
                    continue
                v = cnt[b] / (cnt[b] + 1.0) * d2[b] - na / (na - 1.0) * d2[a]
                if v < best:
                    best = v
                    bb = b
            if bb >= 0 and best < -eps:
                _kernel_move(X, lab, cnt, S1, i, bb)
                changed = True
                continue
        if not swaps:
            continue
        # the m nearest other groups, by (d2, label) as a stable argsort
        q = 0
        for b in range(g):
            if b == a or cnt[b] == 0:
                continue
            if q < m:
                q += 1
            elif not d2[b] < d2[near[q - 1]]:
                continue
            t = q - 1
            while t > 0 and d2[b] < d2[near[t - 1]]:
                near[t] = near[t - 1]
                t -= 1
            near[t] = b
        if q == 0:
            continue
        for t in range(q):
            isnear[near[t]] = True
        for c in range(p):
            ca[c] = S1[a, c] / na
        best = np.inf
        bj = np.int64(-1)
        for j in range(n):
            b = lab[j]
            if not isnear[b]:
                continue
            nb = cnt[b]
            s_ja = 0.0
            s_bx = 0.0
            s_jb = 0.0
            dij = 0.0
            for c in range(p):
                cb = S1[b, c] / nb
                u = X[j, c] - ca[c]
                s_ja += u * u
                u = cb - X[i, c]
                s_bx += u * u
                u = X[j, c] - cb
                s_jb += u * u
                u = X[j, c] - X[i, c]
                dij += u * u
            v = s_ja - d2[a] + s_bx - s_jb - dij * (1.0 / na + 1.0 / nb)
            if v < best:
                best = v
                bj = j
        for t in range(q):
            isnear[near[t]] = False
        if bj >= 0 and best < -eps:
            b = lab[bj]
            _kernel_move(X, lab, cnt, S1, i, b)
            _kernel_move(X, lab, cnt, S1, bj, a)
            changed = True
    return changed


@njit(cache=True)
def _kernel_move(X, lab, cnt, S1, i, b):
    a = lab[i]
    cnt[a] -= 1
    cnt[b] += 1
    for c in range(X.shape[1]):
        S1[a, c] -= X[i, c]
        S1[b, c] += X[i, c]
    lab[i] = b


# --- splitting of large groups (seed 001 Proposition 2.2) ---------------------------------

def split_large_groups(X: np.ndarray, partition, k: int, *, time_limit=None) -> Partition:
    """Split every group of 2k or more records into groups of k..2k−1.

    Seed 001 Proposition 2.2: splitting a group never raises SSE (each part
    is at least as close to its own centroid as to the centroid of the
    whole), so an optimal partition has no group of 2k or more.  Each large
    group is split on its own records: the better of (a) MHM (seed 004 §4.1,
    the Hansen–Mukherjee shortest path) along the group's first principal
    direction — the best split compatible with that order — and (b)
    MDAV-MHM (seed 004 §4.3) on the group, then :func:`local_search`
    restricted to the group's records; a subgroup the local search grew to
    2k or more is split again by (a)/(b).  Groups below 2k are untouched and
    every new group lies inside one old group, so the result refines the
    input, is k-feasible and has SSE ≤ the input's.  Returns the input
    partition itself when no group has 2k records.

    O(m²/k + k·m·p) per large group of m records (MDAV path, MHM) plus the
    local search on the group.  ``time_limit`` (seconds or a
    :class:`~mipagg.deadline.Deadline`): groups not split when it expires
    stay whole (the deadline's ``hit`` says so).

    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.]])
    >>> split_large_groups(X, np.zeros(6, int), 3).labels.tolist()
    [0, 0, 0, 1, 1, 1]
    """
    X, k, P = check_partition(X, partition, k)
    sizes = P.sizes
    large = np.flatnonzero(sizes >= 2 * k)
    if large.size == 0:
        return P
    from .deadline import Deadline

    deadline = Deadline.of(time_limit)
    labels = np.array(P.labels, dtype=np.int64)
    nxt = P.n_groups
    for g in large:
        if deadline.expired():
            break
        rows = np.flatnonzero(P.labels == g)
        sub = split_group(X[rows], k, deadline).labels        # 0..q−1
        labels[rows] = np.where(sub == 0, g, nxt + sub - 1)
        nxt += int(sub.max())
    return Partition(labels, X)


def _split_candidates(Y: np.ndarray, k: int) -> Partition:
    """The better of MHM along the first principal direction and MDAV-MHM
    on the records ``Y`` (all group sizes k..2k−1)."""
    from .heuristics.paths import mdav_mhm
    from .univariate import mhm

    Yc = Y - Y.mean(axis=0)
    _, _, vt = np.linalg.svd(Yc, full_matrices=False)
    order = np.argsort(Yc @ vt[0], kind="stable")
    best = mhm(Y, order, k)
    other = mdav_mhm(Y, k)
    return other if other.sse() < best.sse() else best


def split_group(Y: np.ndarray, k: int, deadline=None) -> Partition:
    """Split one group (rows ``Y``, at least 2k) into groups of k..2k−1."""
    Y = as_rows(Y)
    best = _split_candidates(Y, k)
    if best.n_groups == 1:
        return best
    out = local_search(Y, best, k, time_limit=deadline)
    sizes = out.sizes
    if sizes.max() >= 2 * k:   # the local search grew a group: split it again
        labels = np.array(out.labels, dtype=np.int64)
        nxt = out.n_groups
        for g in np.flatnonzero(sizes >= 2 * k):
            rows = np.flatnonzero(out.labels == g)
            sub = _split_candidates(Y[rows], k).labels
            labels[rows] = np.where(sub == 0, g, nxt + sub - 1)
            nxt += int(sub.max())
        out = Partition(labels, Y)
    return out if out.sse() <= best.sse() else best
