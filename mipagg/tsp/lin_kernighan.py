"""Lin–Kernighan variable-depth tour improvement started from a given tour.

MDAV-LK-MHM (Heaton & Mukherjee, as seed 002 §5.2 and seed 003 §4.3 describe
it) improves the MDAV path with the Lin–Kernighan heuristic (Lin & Kernighan
1973).  LKH through ``elkai`` cannot start from a given tour, so this module
implements LK itself, in the "2-opt move" form of Johnson & McGeoch (1997,
"The TSP: a case study in local optimization", §3.3):

* a base record t1 (taken from a FIFO queue of *don't-look bits*: a record is
  re-queued only when an edge at it changes; when the queue empties, every
  record is queued again until a whole round finds nothing, because the bits
  alone can miss a move) and t2, either tour neighbour;
* step i removes the edge (t1, t2), adds y = (t2, t3) for a candidate t3 from
  t2's neighbour list with positive partial gain g − d(t2, t3) > 0 (the LK gain
  criterion), removes x = (t3, t4) for the neighbour t4 of t3 that closes a
  valid tour, and closes it with (t4, t1) — one 2-opt reversal; t4 becomes the
  next t2.  Candidates are tried by decreasing d(t3, t4) − d(t2, t3)
  (LK's look-ahead);
* an added edge is never removed and a removed edge never re-added within one
  move (LK's tabu rules); depth ≤ ``max_depth`` reversals (default 6, i.e.
  moves up to 7-opt); all candidates are tried at level 1 (so the result is
  2-opt optimal for the lists), ``breadth`` at level 2, one (the best by
  look-ahead) deeper — backtracking only while no improvement was found;
* the chain is cut back to its best closed tour; it is kept only if that tour
  is shorter by more than 1e-10 (first improvement per base record), so the
  result is never longer than the input.

Open paths use the dummy-node trick of seed 002 §4: a record at distance 0
from every record is added, the tour through it is improved, and it is cut
at the dummy (:func:`lin_kernighan_path`).

Cost: O(n · neighbours · breadth · max_depth) candidate evaluations per round
of the queue, each accepted or undone reversal O(n) (the shorter side is
reversed).  Census from the MDAV path: about 0.3 s, 1.1 % above the optimal
path (2-opt + Or-opt: 3.3 %; docs/bench/tours.md).  The tests check every
result with the readable 2-opt check of :mod:`mipagg.tsp.local_search`
(complete lists: no improving 2-opt move remains).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..deadline import Deadline
from ..errors import ParameterError
from ._common import as_points, check_permutation, dist, path_length, tour_length
from .exact import cut_at_dummy
from .local_search import neighbour_lists, queue_pop, queue_push, reverse_segment, work_queue

__all__ = ["lin_kernighan", "lin_kernighan_path"]

EPS = 1e-10


@njit(cache=True, inline="always")
def _d(X, i, j, n_real):
    """Distance with the dummy node: records ≥ n_real are at distance 0."""
    if i >= n_real or j >= n_real:
        return 0.0
    return dist(X, i, j)


@njit(cache=True, inline="always")
def _succ(tour, pos, v, direction):
    n = tour.shape[0]
    return tour[(pos[v] + direction) % n]


@njit(cache=True, inline="always")
def _dir(tour, pos, a, b):
    """+1 if b follows a in the array order, else −1 (b must be adjacent)."""
    return 1 if tour[(pos[a] + 1) % tour.shape[0]] == b else -1


@njit(cache=True)
def _two_opt_move(tour, pos, a, b, c, d):
    """Remove (a, b), (c, d), add (b, c), (d, a); b is a's neighbour in some
    direction and d is c's neighbour in the opposite one."""
    if _dir(tour, pos, a, b) == 1:
        reverse_segment(tour, pos, pos[b], pos[d])
    else:
        reverse_segment(tour, pos, pos[d], pos[b])


@njit(cache=True)
def _has_edge(edges, count, u, v):
    for e in range(count):
        if (edges[e, 0] == u and edges[e, 1] == v) or (edges[e, 0] == v and edges[e, 1] == u):
            return True
    return False


@njit(cache=True)
def _candidates(X, tour, pos, nbr, n_real, t1, t2, g, added, n_added, removed, n_removed,
                out, val):
    """Valid t3 for the current (t1, t2) with positive partial gain, sorted
    by decreasing look-ahead d(t3, t4) − d(t2, t3); returns their number."""
    direction = _dir(tour, pos, t1, t2)
    after_t2 = _succ(tour, pos, t2, direction)
    before_t1 = _succ(tour, pos, t1, -direction)
    q = 0
    for r in range(nbr.shape[1]):
        t3 = nbr[t2, r]
        if t3 < 0:
            break
        d23 = _d(X, t2, t3, n_real)
        if g - d23 <= EPS:
            break                                   # lists are sorted by distance
        if t3 == t1 or t3 == after_t2 or t3 == before_t1:
            continue                                # degenerate move
        t4 = _succ(tour, pos, t3, -direction)
        if _has_edge(removed, n_removed, t2, t3) or _has_edge(added, n_added, t3, t4):
            continue                                # LK tabu rules
        v = _d(X, t3, t4, n_real) - d23
        t = q
        while t > 0 and v > val[t - 1]:
            out[t] = out[t - 1]
            val[t] = val[t - 1]
            t -= 1
        out[t] = t3
        val[t] = v
        q += 1
    return q


@njit(cache=True)
def _undo(tour, pos, moves, depth):
    a, b, c, d = moves[depth]
    _two_opt_move(tour, pos, a, d, c, b)


@njit(cache=True)
def _lk_step(X, tour, pos, nbr, n_real, t1, max_depth, breadth, moves, queue, inq, ht):
    """One LK move from base t1 (both tour neighbours as t2).  Applies the
    best closed tour of the first chain that improves; returns its gain
    (0 when none: the tour is then restored)."""
    m = nbr.shape[1]
    cand = np.empty((max_depth + 1, m), dtype=np.int64)
    val = np.empty(m)
    ncand = np.zeros(max_depth + 1, dtype=np.int64)
    idx = np.zeros(max_depth + 1, dtype=np.int64)
    t2s = np.empty(max_depth + 1, dtype=np.int64)
    gs = np.empty(max_depth + 1)
    added = np.empty((max_depth, 2), dtype=np.int64)
    removed = np.empty((max_depth + 1, 2), dtype=np.int64)
    for side in range(2):
        t2 = _succ(tour, pos, t1, 1 if side == 0 else -1)
        t2s[0] = t2
        gs[0] = _d(X, t1, t2, n_real)
        removed[0, 0] = t1
        removed[0, 1] = t2
        ncand[0] = _candidates(X, tour, pos, nbr, n_real, t1, t2, gs[0], added, np.int64(0),
                               removed, np.int64(1), cand[0], val)
        idx[0] = 0
        depth = 0
        best_gain = EPS
        best_depth = 0
        while True:
            limit = ncand[depth]
            if depth == 1:
                limit = min(limit, breadth)
            elif depth > 1:
                limit = min(limit, 1)
            if idx[depth] >= limit:
                if best_depth > 0:                  # commit the best closed tour
                    while depth > best_depth:
                        depth -= 1
                        _undo(tour, pos, moves, depth)
                    for e in range(best_depth):
                        for v in moves[e]:
                            queue_push(queue, inq, ht, v)
                    return best_gain
                if depth == 0:
                    break
                depth -= 1                          # backtrack
                _undo(tour, pos, moves, depth)
                idx[depth] += 1
                continue
            t2 = t2s[depth]
            t3 = cand[depth, idx[depth]]
            t4 = _succ(tour, pos, t3, -_dir(tour, pos, t1, t2))
            _two_opt_move(tour, pos, t1, t2, t3, t4)
            moves[depth, 0] = t1
            moves[depth, 1] = t2
            moves[depth, 2] = t3
            moves[depth, 3] = t4
            added[depth, 0] = t2
            added[depth, 1] = t3
            removed[depth + 1, 0] = t3
            removed[depth + 1, 1] = t4
            g = gs[depth] - _d(X, t2, t3, n_real) + _d(X, t3, t4, n_real)
            close = g - _d(X, t4, t1, n_real)
            depth += 1
            if close > best_gain:
                best_gain = close
                best_depth = depth
            t2s[depth] = t4
            gs[depth] = g
            idx[depth] = 0
            ncand[depth] = 0
            if depth < max_depth:
                ncand[depth] = _candidates(X, tour, pos, nbr, n_real, t1, t4, g, added, depth,
                                           removed, depth + 1, cand[depth], val)
    return 0.0


@njit(cache=True)
def _lk_chunk(X, tour, pos, queue, inq, ht, nbr, n_real, max_depth, breadth, moves, steps):
    """At most ``steps`` base records off the don't-look-bit queue; returns
    the number of improving moves found (the caller loops, so that Python
    can handle signals and the deadline between chunks)."""
    found = 0
    for _ in range(steps):
        if ht[0] >= ht[1]:
            break
        t1 = queue_pop(queue, inq, ht)
        if _lk_step(X, tour, pos, nbr, n_real, t1, max_depth, breadth, moves,
                    queue, inq, ht) > 0.0:
            found += 1
            queue_push(queue, inq, ht, t1)
    return found


def _lk_run(X, tour, nbr, n_real, max_depth, breadth, deadline=None) -> int:
    """Lin–Kernighan with don't-look bits, repeated with every record queued
    until a whole round finds no improving move (don't-look bits alone can
    miss a move whose positive partial gain sits at a record that was not
    re-queued); returns the number of improving moves.  Works in compiled
    chunks of a fixed number of base records; between chunks Python handles
    signals and ``deadline`` (:class:`mipagg.deadline.Deadline`) may stop
    the search with the tour as it stands (always a valid, never longer
    tour)."""
    from ..deadline import chunk_steps

    n = tour.shape[0]
    steps = chunk_steps(n * 40.0 + nbr.shape[1] * breadth * max_depth * 50.0, least=4)
    moves = np.empty((max_depth, 4), dtype=np.int64)
    count = 0
    while True:
        pos, queue, inq, ht = work_queue(tour)
        found = 0
        while ht[0] < ht[1]:
            found += _lk_chunk(X, tour, pos, queue, inq, ht, nbr, n_real, max_depth, breadth,
                               moves, steps)
            if deadline is not None and deadline.expired():
                return count + found
        count += found
        if found == 0:
            return count


# --------------------------------------------------------------------------
# public entry points
# --------------------------------------------------------------------------
def _check_params(neighbours, max_depth, breadth):
    for name, v in (("neighbours", neighbours), ("max_depth", max_depth), ("breadth", breadth)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ParameterError(f"{name} must be a positive integer, got {v!r}")


def _lk_lists(A: np.ndarray, m: int, dummy: bool) -> np.ndarray:
    """Neighbour lists of the records (dummy first when present: distance 0)
    plus an empty list (−1) for the dummy itself."""
    n = A.shape[0]
    nbr = neighbour_lists(A, m)
    if not dummy:
        return nbr
    out = np.full((n + 1, nbr.shape[1] + 1), -1, dtype=np.int64)
    out[:n, 0] = n
    out[:n, 1:] = nbr
    return out


def lin_kernighan(X, tour, *, neighbours=8, max_depth=6, breadth=3,
                  time_limit=None) -> np.ndarray:
    """Improve a closed tour with Lin–Kernighan (Lin & Kernighan 1973, in the
    2-opt-move form of Johnson & McGeoch 1997) started from ``tour`` — the
    "LK" of MDAV-LK-MHM (seed 002 §5.2; seed 003 §4.3).  Details and cost in
    the module docstring.  Deterministic; never longer than the input; the
    result is 2-opt optimal for the candidate lists (``neighbours`` nearest
    records; ``None``: all).  ``time_limit`` (seconds or a
    :class:`~mipagg.deadline.Deadline`) stops the search early with the
    tour as it stands; Ctrl-C is honoured between compiled chunks.

    >>> X = [[0, 0], [1, 1], [1, 0], [0, 1]]
    >>> lin_kernighan(X, [0, 1, 2, 3]).tolist()
    [0, 2, 1, 3]
    """
    A = as_points(X)
    n = A.shape[0]
    t = check_permutation(tour, n).copy()
    neighbours = n if neighbours is None else neighbours
    _check_params(neighbours, max_depth, breadth)
    if n < 5:
        from .local_search import improve_tour

        return improve_tour(A, t, moves=("2opt",), neighbours=None) if n == 4 else t
    _lk_run(A, t, _lk_lists(A, int(neighbours), False), n, int(max_depth), int(breadth),
            Deadline.of(time_limit))
    return t if tour_length(A, t) <= tour_length(A, tour) else check_permutation(tour, n)


def lin_kernighan_path(X, path, *, neighbours=8, max_depth=6, breadth=3,
                       time_limit=None) -> np.ndarray:
    """Improve an open Hamiltonian path with Lin–Kernighan through the
    dummy-node trick of seed 002 §4: a node at distance 0 from every record
    closes the path into a tour, :func:`lin_kernighan` improves that tour
    (the dummy is in every record's candidate list), and the tour is cut at
    the dummy.  Never longer than the input path.  ``time_limit`` as in
    :func:`lin_kernighan`.

    >>> lin_kernighan_path([[0.0], [2.0], [1.0], [3.0], [4.0]], [0, 1, 2, 3, 4]).tolist()
    [0, 2, 1, 3, 4]
    """
    A = as_points(X)
    n = A.shape[0]
    p = check_permutation(path, n, "path").copy()
    neighbours = n if neighbours is None else neighbours
    _check_params(neighbours, max_depth, breadth)
    if n < 4:
        return p
    t = np.append(p, n)
    _lk_run(A, t, _lk_lists(A, int(neighbours), True), n, int(max_depth), int(breadth),
            Deadline.of(time_limit))
    out = cut_at_dummy(t, n)
    return out if path_length(A, out) <= path_length(A, p) else p
