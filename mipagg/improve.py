"""Post-processing of any k-partition: splitting of groups of 2k or more
records (seed 001 Proposition 2.2), deterministic local improvement,
Random Cluster Shuffling (RCS, seed 003 chapter 6, Algorithm 4) and the
exact neighbourhood search of :mod:`mipagg.exact.neighbourhood`.

Local search and RCS keep group sums S1 (g, p), sums of squared norms S2 (g,) and counts, so
the SSE of a group is ``S2 − ||S1||²/n`` and every candidate change is priced
exactly in O(p) per group touched (vectorized over all target groups):

* moving x from group a (size n_a) to b changes SSE by
  ``n_b/(n_b+1)·||x − c_b||² − n_a/(n_a−1)·||x − c_a||²``;
* swapping x_i ∈ a with x_j ∈ b changes it by
  ``||x_j − c_a||² − ||x_i − c_a||² + ||x_i − c_b||² − ||x_j − c_b||²
  − ||x_i − x_j||²·(1/n_a + 1/n_b)``.

Groups never drop below k, so a k-feasible input stays k-feasible.
:func:`local_search` runs as a numba kernel; :func:`local_search_reference` is
the readable numpy version it is tested against (identical partitions).

>>> import numpy as np
>>> from mipagg.partition import Partition
>>> X = np.array([[0.], [1.], [2.], [10.], [11.], [3.]])
>>> P = Partition(np.array([0, 0, 1, 1, 1, 0]), X)     # 2 sits with 10, 11
>>> improve_partition(X, P, 2).labels.tolist()   # 2 joins 0, 1, 3; that group of 4 is split
[0, 0, 1, 2, 2, 1]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ParameterError
from .partition import Partition, group_sse
from .refine import (
    local_search,
    nearest_groups,
    split_group as _split_group,
    split_large_groups,
    sse_tolerance as _tol,
)
from .validation import check_partition as _setup

__all__ = ["improve_partition", "split_large_groups", "merge_split_search", "MergeSplitResult",
           "local_search", "local_search_reference", "random_cluster_shuffling",
           "IMPROVERS"]

IMPROVERS = ("local", "rcs", "exact")


class _Groups:
    """Labels plus per-group sufficient statistics (slots with count 0 are free)."""

    def __init__(self, X: np.ndarray, labels: np.ndarray, slots: int):
        self.X = X
        self.sq = np.einsum("ij,ij->i", X, X)
        self.lab = np.array(labels, dtype=np.int64)
        self.cnt = np.zeros(slots, dtype=np.int64)
        self.S1 = np.zeros((slots, X.shape[1]))
        self.S2 = np.zeros(slots)
        self.refresh()

    def refresh(self):
        """Recompute the statistics from the labels (removes rounding drift)."""
        slots = self.cnt.size
        self.cnt[:] = np.bincount(self.lab, minlength=slots)
        self.S1[:] = 0.0
        np.add.at(self.S1, self.lab, self.X)
        self.S2[:] = np.bincount(self.lab, weights=self.sq, minlength=slots)

    def sse_of(self, g) -> np.ndarray:
        c = np.maximum(self.cnt[g], 1)
        return self.S2[g] - np.einsum("...j,...j->...", self.S1[g], self.S1[g]) / c

    def sse(self) -> float:
        live = np.flatnonzero(self.cnt)
        return float(self.sse_of(live).sum())

    def dist2(self, x: np.ndarray) -> np.ndarray:
        """Squared distance from x to every centroid (inf for free slots)."""
        live = self.cnt > 0
        d = np.full(self.cnt.size, np.inf)
        C = self.S1[live] / self.cnt[live, None]
        diff = C - x
        d[live] = np.einsum("ij,ij->i", diff, diff)
        return d

    def move(self, i: int, b: int):
        a = self.lab[i]
        x = self.X[i]
        self.cnt[a] -= 1
        self.S1[a] -= x
        self.S2[a] -= self.sq[i]
        self.cnt[b] += 1
        self.S1[b] += x
        self.S2[b] += self.sq[i]
        self.lab[i] = b

    def move_delta(self, i: int, d2: np.ndarray) -> np.ndarray:
        """SSE change of moving record i to every group (own group: +inf)."""
        a = self.lab[i]
        na = self.cnt[a]
        out = np.full(d2.size, np.inf)
        if na > 1:
            live = self.cnt > 0
            out[live] = self.cnt[live] / (self.cnt[live] + 1.0) * d2[live] - na / (na - 1.0) * d2[a]
        out[a] = np.inf
        return out


def local_search_reference(X: np.ndarray, partition, k: int, *, swaps: bool = True,
                           neighbours: int = 8, max_passes: int = 100) -> Partition:
    """Readable numpy version of :func:`local_search` (same result; about
    10–15× slower).  Kept as the reference the compiled kernel is tested
    against."""
    X, k, P = _setup(X, partition, k)
    G = _Groups(X, P.labels, P.n_groups)
    eps = _tol(X)
    for _ in range(int(max_passes)):
        G.refresh()
        changed = False
        for i in range(X.shape[0]):
            a = G.lab[i]
            x = X[i]
            d2 = G.dist2(x)
            if G.cnt[a] > k:
                delta = G.move_delta(i, d2)
                b = int(np.argmin(delta))
                if delta[b] < -eps:
                    G.move(i, b)
                    changed = True
                    continue
            if not swaps:
                continue
            near = np.argsort(d2, kind="stable")
            near = near[(near != a) & np.isfinite(d2[near])][:neighbours]
            J = np.flatnonzero(np.isin(G.lab, near))
            if J.size == 0:
                continue
            B = G.lab[J]
            na, nb = G.cnt[a], G.cnt[B]
            ca = G.S1[a] / na
            CB = G.S1[B] / nb[:, None]
            XJ = X[J]
            dij = ((XJ - x) ** 2).sum(axis=1)
            delta = (((XJ - ca) ** 2).sum(axis=1) - d2[a] + ((CB - x) ** 2).sum(axis=1)
                     - ((XJ - CB) ** 2).sum(axis=1) - dij * (1.0 / na + 1.0 / nb))
            t = int(np.argmin(delta))
            if delta[t] < -eps:
                j, b = int(J[t]), int(B[t])
                G.move(i, b)
                G.move(j, a)
                changed = True
        if not changed:
            break
    out = Partition(G.lab, X)
    return out if out.sse() <= P.sse() else P


def random_cluster_shuffling(X: np.ndarray, partition, k: int, *, probability: float = 0.001,
                             max_events: int = 10, seed=None, tol: float = 1e-4,
                             max_passes: int = 100, time_limit=None) -> Partition:
    """Random Cluster Shuffling (seed 003 chapter 6, Algorithm 4).

    Each pass visits the records in row order.  A record of a group with more
    than k records moves to the group with the nearest centroid if that lowers
    SSE; a record of a group of exactly k dissolves the whole group, every
    member going to its nearest other centroid, if that lowers SSE (seed 003
    §6.2 step 1).  After each record, with probability ``probability`` and
    while fewer than ``max_events`` events happened, a shuffling event merges a
    random group with the group of nearest centroid, sorts the merged records
    by distance to its centroid and cuts them into consecutive groups of k
    (the last one takes the remainder, k..2k−1) — this may raise SSE.  Passes
    stop when one improves SSE by less than ``tol`` (relative; the seed's
    0.0001) or after ``max_passes``.  Returns the lowest-SSE partition seen,
    so never worse than the input.  ``probability=0`` gives the deterministic
    "MDAV-RCS 0/0" row of seed 003 Table 6.1.  ``time_limit`` (seconds or a
    :class:`~mipagg.deadline.Deadline`) stops it after the current record.

    O(n·g·p) per pass for g groups.
    """
    X, k, P = _setup(X, partition, k)
    if not 0.0 <= float(probability) <= 1.0:
        raise ParameterError(f"probability must be in [0, 1], got {probability!r}")
    if int(max_events) < 0:
        raise ParameterError(f"max_events must be non-negative, got {max_events!r}")
    from .deadline import Deadline

    deadline = Deadline.of(time_limit)
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    G = _Groups(X, P.labels, max(P.n_groups, n // k))
    eps = _tol(X)
    best_lab, best = G.lab.copy(), G.sse()
    cur = best
    events = 0
    for _ in range(int(max_passes)):
        G.refresh()
        cur = start = G.sse()
        for i in range(n):
            a = int(G.lab[i])
            if G.cnt[a] > k:
                d2 = G.dist2(X[i])
                delta = G.move_delta(i, d2)
                d2[a] = np.inf
                b = int(np.argmin(d2))
                delta = delta[b]
                if delta < -eps:
                    G.move(i, b)
                    cur += delta
            else:
                cur += _try_dissolve(G, a, eps)
            if probability > 0 and events < max_events and rng.random() < probability:
                cur += _shuffle_event(G, k, rng)
                events += 1
            if cur < best - eps:
                best, best_lab = cur, G.lab.copy()
            if deadline.bounded and i % 64 == 63 and deadline.expired():
                break
        if start - cur < tol * start or deadline.hit:
            break
    out = Partition(best_lab, X)
    return out if out.sse() <= P.sse() else P


def _try_dissolve(G: _Groups, a: int, eps: float) -> float:
    """Dissolve group ``a`` into the nearest other centroids if that lowers
    SSE; return the SSE change applied (0 when rejected)."""
    rows = np.flatnonzero(G.lab == a)
    live = np.flatnonzero(G.cnt > 0)
    live = live[live != a]
    if live.size == 0:
        return 0.0
    C = G.S1[live] / G.cnt[live, None]
    d = ((G.X[rows][:, None, :] - C[None]) ** 2).sum(axis=2)
    to = live[np.argmin(d, axis=1)]
    targets = np.unique(to)
    before = G.sse_of(np.r_[a, targets]).sum()
    slot = np.searchsorted(targets, to)
    addS1 = np.zeros((targets.size, G.X.shape[1]))
    np.add.at(addS1, slot, G.X[rows])
    addS2 = np.bincount(slot, weights=G.sq[rows], minlength=targets.size)
    addN = np.bincount(slot, minlength=targets.size)
    S1 = G.S1[targets] + addS1
    after = (G.S2[targets] + addS2 - np.einsum("ij,ij->i", S1, S1) / (G.cnt[targets] + addN)).sum()
    delta = float(after - before)
    if delta >= -eps:
        return 0.0
    for i, b in zip(rows, to):
        G.move(int(i), int(b))
    return delta


def _shuffle_event(G: _Groups, k: int, rng) -> float:
    """Merge a random group with its nearest-centroid neighbour, sort by
    distance to the merged centroid, cut into groups of k (last k..2k−1).
    Returns the SSE change."""
    live = np.flatnonzero(G.cnt > 0)
    if live.size < 2:
        return 0.0
    a = int(rng.choice(live))
    d2 = G.dist2(G.S1[a] / G.cnt[a])
    d2[a] = np.inf
    b = int(np.argmin(d2))
    before = float(G.sse_of(np.array([a, b])).sum())
    rows = np.flatnonzero((G.lab == a) | (G.lab == b))
    cen = G.X[rows].mean(axis=0)
    rows = rows[np.argsort(((G.X[rows] - cen) ** 2).sum(axis=1), kind="stable")]
    q = rows.size // k
    free = np.flatnonzero(G.cnt == 0)
    ids = np.r_[a, b, free][:q]
    chunks = np.split(rows, [k * t for t in range(1, q)])
    for g, chunk in zip(ids, chunks):
        for i in chunk:
            if G.lab[i] != g:
                G.move(int(i), int(g))
    touched = np.unique(np.r_[a, b, ids])
    return float(G.sse_of(touched).sum()) - before


# how="exact" is a plug-in of the exact layer, loaded by name: the exact methods use
# this module's local search, so importing them here would make an import cycle
EXACT_IMPROVER = "mipagg.exact.guide:exact_neighbourhoods"
EXACT_OPTIONS_CHECK = "mipagg.exact.neighbourhood:check_options"


def _load(target: str):
    import importlib

    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _improver(how: str):
    if how == "local":
        return local_search
    if how == "rcs":
        return random_cluster_shuffling
    if how == "exact":
        return _load(EXACT_IMPROVER)
    raise ParameterError(f"unknown improvement {how!r}; available: {', '.join(IMPROVERS)}")


def check_improve_options(how: str, options: dict) -> None:
    """Refuse options the improvement ``how`` does not take (before any work)."""
    import inspect

    params = inspect.signature(_improver(how)).parameters.values()
    accepted = [p.name for p in params
                if p.kind is p.KEYWORD_ONLY and p.name not in ("seed", "verbose")]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ParameterError(f"improvement {how!r} does not take option(s) {unknown}; "
                             f"it takes {accepted}")
    if how == "exact":
        _load(EXACT_OPTIONS_CHECK)(**options)


def improve_partition(X: np.ndarray, partition, k: int, *, how: str = "local", seed=None,
                      verbose: bool = False, **params) -> Partition:
    """Post-process a k-partition: first :func:`split_large_groups` (groups of
    2k or more records are split, seed 001 Proposition 2.2), then
    ``how="local"`` (:func:`local_search`, deterministic, ``seed`` ignored),
    ``how="rcs"`` (:func:`random_cluster_shuffling`, seed 003 Algorithm 4) or
    ``how="exact"`` (:func:`~mipagg.exact.guide.exact_neighbourhoods`,
    progress lines on stderr under ``verbose``); groups the improvement grew to 2k or more are split
    again at the end.  ``params`` go to the chosen function.  The result is
    k-feasible, has no group of 2k or more records, and SSE ≤ the input's.

    ``params["time_limit"]`` (seconds or a :class:`~mipagg.deadline.Deadline`)
    also bounds the two splits for "local" and "rcs": once it expired, groups
    not yet split stay as they are (still k-feasible; the deadline's ``hit``
    says so)."""
    fn = _improver(how)
    if how in ("rcs", "exact"):
        params["seed"] = seed
    if how == "exact":
        params["verbose"] = verbose
        deadline = None
    else:
        from .deadline import Deadline

        deadline = params["time_limit"] = Deadline.of(params.get("time_limit"))
    out = fn(X, split_large_groups(X, partition, k, time_limit=deadline), k, **params)
    return split_large_groups(X, out, k, time_limit=deadline)


# --- merge-and-resplit search --------------------------------------------------------------

MERGE_SCHEDULE = (4, 6, 8, 12, 16, 24)


@dataclass
class MergeSplitResult:
    """Outcome of :func:`merge_split_search`: the partition, moves tried and
    accepted, the SSE after each phase (merge size, SSE), and whether
    ``time_limit`` stopped the search."""

    partition: Partition
    moves: int
    accepted: int
    time_limited: bool
    history: list


def merge_split_search(X: np.ndarray, partition, k: int, *, merge=MERGE_SCHEDULE,
                       cycles: int = 3, seed=None, patience: int | None = None,
                       max_moves: int | None = None, time_limit: float | None = None,
                       verbose: bool = False) -> MergeSplitResult:
    """Large-neighbourhood search built on the split of :func:`split_large_groups`.

    A move draws a random group (``seed``), merges it with its m − 1 nearest
    groups (by centroid) and splits the merged records — at least 2k — again
    as :func:`split_large_groups` does (the better of MHM along the first
    principal direction and MDAV-MHM, then a local search on those records;
    seed 001 Proposition 2.2 guarantees groups of k..2k−1 lose nothing); the
    new groups replace the old ones when that lowers SSE.  One phase per
    merge size m of ``merge`` (an int or a schedule of ints ≥ 2), in order;
    a phase ends after ``patience`` moves in a row without improvement
    (default: the number of groups) or ``max_moves`` moves (default 20 per
    group), then a :func:`local_search` of the whole partition follows.  The
    schedule is repeated up to ``cycles`` times while a cycle improves;
    ``time_limit`` (seconds) stops it early; ``verbose``: a progress line on
    stderr after each phase (:mod:`mipagg.progress`).  Never raises SSE; the
    result is k-feasible with groups of k..2k−1.

    Each move costs O(g·p) to find the nearest groups, O(n) to collect their
    records and the split of their M records (O(M²/k + k·M·p) plus a local
    search on them): about 0.3-1 ms on Census.  Beyond the seeds — the
    merge/re-cut of RCS shuffling events (seed 003 Algorithm 4) with an
    optimizing re-cut; on Census and Tarragona (k = 3, 5, 10) the default
    schedule lowers the IL of a locally optimal (HM)²-Micro partition by 1-5 %
    in about 10 s (docs/bench/portfolio.md).

    >>> import numpy as np
    >>> X = np.random.default_rng(1).normal(size=(60, 2))
    >>> P = Partition(np.arange(60) % 20, X)                   # a poor start
    >>> merge_split_search(X, P, 3, seed=0).partition.sse() < P.sse()
    True
    """
    from .deadline import Deadline
    from .progress import Progress

    X, k, P = _setup(X, partition, k)
    schedule = [merge] if isinstance(merge, (int, np.integer)) else list(merge)
    if not schedule or any(isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 2
                           for m in schedule):
        raise ParameterError(f"merge must be an integer ≥ 2 or a sequence of them, got {merge!r}")
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or cycles < 1:
        raise ParameterError(f"cycles must be a positive integer, got {cycles!r}")
    if time_limit is not None and not isinstance(time_limit, Deadline) and not time_limit > 0:
        raise ParameterError(f"time_limit must be positive, got {time_limit!r}")
    dl = Deadline.of(time_limit)
    deadline = dl.at
    rng = np.random.default_rng(seed)
    start = P
    P = split_large_groups(X, P, k, time_limit=dl)
    moves = accepted = 0
    timed_out = False
    history = []
    progress = Progress("merge-split", enabled=verbose)
    for cycle in range(int(cycles)):
        before = P.sse()
        for m in schedule:
            lab, mv, acc, timed_out = _merge_split_phase(
                X, P, k, int(m), rng, patience, max_moves, deadline)
            moves += mv
            accepted += acc
            Q = split_large_groups(X, local_search(X, Partition(lab, X), k, time_limit=dl), k,
                                   time_limit=dl)
            if Q.sse() <= P.sse():
                P = Q
            history.append((int(m), P.sse()))
            progress.update(cycle=cycle + 1, merge=int(m), moves=moves, accepted=accepted,
                            sse=P.sse())
            if timed_out:
                break
        if timed_out or not P.sse() < before - _tol(X):
            break
    if not P.sse() <= start.sse():   # never expected (every step is non-increasing)
        P = split_large_groups(X, start, k)
    progress.done(moves=moves, accepted=accepted, sse=P.sse())
    return MergeSplitResult(P, moves, accepted, timed_out or dl.hit, history)


def _merge_split_phase(X, P, k, merge, rng, patience, max_moves, deadline):
    """Moves of one merge size (see :func:`merge_split_search`); returns
    (labels, moves, accepted, timed_out)."""
    import time

    lab = np.array(P.labels, dtype=np.int64)
    g0 = P.n_groups
    cap = max(g0, X.shape[0] // k) + 1
    cnt = np.zeros(cap, dtype=np.int64)
    cnt[:g0] = P.sizes
    C = np.zeros((cap, X.shape[1]))
    C[:g0] = P.centroids()
    S = np.zeros(cap)
    S[:g0] = [group_sse(X, g) for g in P.groups()]
    max_moves = 20 * g0 if max_moves is None else int(max_moves)
    patience = g0 if patience is None else int(patience)
    eps = _tol(X)
    moves = accepted = idle = 0
    while moves < max_moves and idle < patience and g0 >= 2:
        if deadline is not None and time.perf_counter() >= deadline:
            return lab, moves, accepted, True
        moves += 1
        idle += 1
        live = np.flatnonzero(cnt)
        g = int(live[rng.integers(live.size)])
        ids = nearest_groups(C[live], live, C[g], merge)
        if ids.size < 2:
            break
        rows = np.flatnonzero(np.isin(lab, ids))
        sub = _split_group(X[rows], k)
        if not sub.sse() < S[ids].sum() - eps:
            continue
        idle = 0
        accepted += 1
        cnt[ids] = 0
        free = np.r_[ids, np.flatnonzero(cnt == 0)]
        free = free[np.sort(np.unique(free, return_index=True)[1])]   # the merged ids first
        new = free[:sub.n_groups]
        lab[rows] = new[sub.labels]
        for j, rows_j in zip(new, sub.groups()):
            members = rows[rows_j]
            cnt[j] = members.size
            C[j] = X[members].mean(axis=0)
            S[j] = group_sse(X, members)
    return lab, moves, accepted, False
