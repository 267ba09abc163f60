"""Tour construction heuristics: nearest neighbour and the insertion family.

These are the construction heuristics compared in seed 002 (Maya-López et
al. 2020, "(HM)²-Micro", section 5.2 and Table 1) and described in seed 003
(Maya-López thesis, §2.2.3 "Path construction based on TSP heuristics"):
nearest neighbour, repetitive nearest neighbour, and nearest / farthest /
cheapest / arbitrary insertion (Rosenkrantz, Stearns & Lewis 1977), as
implemented in the R package TSP (Hahsler & Hornik) the seeds used.  Every
heuristic starts from a random record drawn from ``seed`` (except repetitive
NN, which tries every start) and works on the full Euclidean distance matrix:
O(n²) time (O(n²) expected for cheapest insertion; O(n² log n) for the
neighbour sorting plus the n scans of repetitive NN) and O(n²) memory.

Ties are broken towards the lowest record index, so duplicate rows are legal
and every result is a deterministic function of ``(X, seed)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import ParameterError
from ._common import as_points, distance_matrix

__all__ = [
    "nearest_neighbor_tour", "repetitive_nn_tour", "insertion_tour",
    "tours_from_every_start", "INSERTION_RULES",
]

INSERTION_RULES = ("nearest", "farthest", "cheapest", "arbitrary")


# --------------------------------------------------------------------------
# nearest neighbour
# --------------------------------------------------------------------------
@njit(cache=True)
def nn_kernel(D, start):
    """Nearest-neighbour tour over the distance matrix ``D`` from ``start``
    (ties: lowest index), compiled."""
    n = D.shape[0]
    tour = np.empty(n, dtype=np.int64)
    visited = np.zeros(n, dtype=np.bool_)
    cur = start
    tour[0] = cur
    visited[cur] = True
    for step in range(1, n):
        best = -1
        bestd = np.inf
        row = D[cur]
        for j in range(n):
            if not visited[j] and row[j] < bestd:
                bestd = row[j]
                best = j
        tour[step] = best
        visited[best] = True
        cur = best
    return tour


@njit(cache=True)
def _rnn_chunk(D, S, visited, lo, hi, best):
    """Starts ``lo..hi−1`` of repetitive NN; ``best`` = [length, start] of the
    best tour so far (updated).  S[i] = records sorted by distance from i
    (stable, so ties go to the lowest index).  A start is abandoned as soon
    as its partial length reaches the best full length."""
    n = D.shape[0]
    for start in range(lo, hi):
        visited[:] = False
        cur = start
        visited[cur] = True
        length = 0.0
        done = True
        for step in range(1, n):
            row = S[cur]
            q = 0
            while visited[row[q]]:
                q += 1
            nxt = row[q]
            length += D[cur, nxt]
            visited[nxt] = True
            cur = nxt
            if length >= best[0]:
                done = False
                break
        if done:
            length += D[cur, start]
            if length < best[0]:
                best[0] = length
                best[1] = start


def _rnn_kernel(D, S, deadline=None) -> int:
    """Start of the best nearest-neighbour tour over all starts, in compiled
    chunks of starts (Ctrl-C is honoured between them); under a ``deadline``
    that expires, the best over the starts tried (at least one chunk)."""
    from ..deadline import chunk_steps

    n = D.shape[0]
    visited = np.zeros(n, dtype=np.bool_)
    best = np.array([np.inf, 0.0])
    steps = chunk_steps(float(n) * n)
    for lo in range(0, n, steps):
        _rnn_chunk(D, S, visited, lo, min(n, lo + steps), best)
        if lo + steps < n and deadline is not None and deadline.expired():
            break
    return int(best[1])


@njit(cache=True)
def _nn_points_chunk(X, tour, visited, step, steps):
    """Steps ``step .. step+steps−1`` of the nearest-neighbour tour, with
    squared distances computed from the rows of X (no n×n matrix); ties go
    to the lowest index.  Returns the next step."""
    n, p = X.shape
    end = min(n, step + steps)
    for t in range(step, end):
        cur = tour[t - 1]
        best = -1
        bestd = np.inf
        for j in range(n):
            if visited[j]:
                continue
            s = 0.0
            for c in range(p):
                d = X[j, c] - X[cur, c]
                s += d * d
            if s < bestd:
                bestd = s
                best = j
        tour[t] = best
        visited[best] = True
    return end


def _nn_points(A, start, deadline=None) -> np.ndarray:
    """Nearest-neighbour tour from ``start`` in O(n·p) memory, in compiled
    chunks (Python handles signals between them).  Under a ``deadline``
    that expires, the unvisited records follow in index order (still a
    tour; the deadline's ``hit`` says so)."""
    from ..deadline import chunk_steps

    n, p = A.shape
    tour = np.empty(n, dtype=np.int64)
    visited = np.zeros(n, dtype=np.bool_)
    tour[0] = start
    visited[start] = True
    step, steps = 1, chunk_steps(n * (p + 1.0))
    while step < n:
        step = _nn_points_chunk(A, tour, visited, step, steps)
        if step < n and deadline is not None and deadline.expired():
            tour[step:] = np.flatnonzero(~visited)
            break
    return tour


def nearest_neighbor_tour(X, *, seed=None, start=None, time_limit=None) -> np.ndarray:
    """Nearest-neighbour tour (seed 002 §5.2; seed 003 §2.2.3).

    Start at a random record (drawn from ``seed``) or at ``start``, then
    repeatedly move to the nearest unvisited record (squared distances from
    the coordinates: O(n²·p) time, O(n·p) memory, compiled chunks).
    ``time_limit`` (seconds or a :class:`~mipagg.deadline.Deadline`): when
    it expires, the unvisited records follow in index order.

    >>> nearest_neighbor_tour([[0.0], [5.0], [1.0], [2.0]], start=0).tolist()
    [0, 2, 3, 1]
    """
    A = as_points(X)
    n = A.shape[0]
    if start is None:
        start = int(np.random.default_rng(seed).integers(n))
    if not 0 <= int(start) < n:
        raise ParameterError(f"start must be in range({n}), got {start}")
    from ..deadline import Deadline

    return _nn_points(A, int(start), Deadline.of(time_limit))


def repetitive_nn_tour(X, *, time_limit=None) -> np.ndarray:
    """Repetitive nearest neighbour (seed 002 §5.2; seed 003 §2.2.3): the shortest
    of the n nearest-neighbour tours, one from every start.

    Deterministic (ties → lowest start index).  O(n² log n) to sort the
    neighbour lists, then n scans that stop early once they cannot win.
    ``time_limit`` (seconds or a :class:`~mipagg.deadline.Deadline`): when
    it expires, the shortest tour over the starts tried so far.

    >>> repetitive_nn_tour([[0.0], [5.0], [1.0], [2.0]]).tolist()
    [0, 2, 3, 1]
    """
    A = as_points(X)
    D = distance_matrix(A)
    S = np.argsort(D, axis=1, kind="stable").astype(np.int64)
    from ..deadline import Deadline

    return nn_kernel(D, _rnn_kernel(D, S, Deadline.of(time_limit)))


# --------------------------------------------------------------------------
# insertion family
# --------------------------------------------------------------------------
@njit(cache=True)
def _cheapest_position(D, nxt, start, c):
    """Edge (a, nxt[a]) of the current tour where inserting c costs least."""
    best_a = start
    best = np.inf
    a = start
    while True:
        b = nxt[a]
        cost = D[a, c] + D[c, b] - D[a, b]
        if cost < best:
            best = cost
            best_a = a
        a = b
        if a == start:
            break
    return best_a, best


@njit(cache=True)
def _walk(nxt, start):
    n = nxt.shape[0]
    tour = np.empty(n, dtype=np.int64)
    a = start
    for i in range(n):
        tour[i] = a
        a = nxt[a]
    return tour


@njit(cache=True)
def _select_insert_chunk(D, start, rule, order, nxt, in_tour, mind, step, steps):
    """Steps ``step .. step+steps−1`` of nearest (rule 0), farthest (1) or
    arbitrary (2, records taken in ``order``) insertion: choose a record,
    insert it at its cheapest edge.  Returns the next step."""
    n = D.shape[0]
    end = min(n, step + steps)
    for t in range(step, end):
        if rule == 2:
            c = order[t - 1]
        else:
            c = -1
            for j in range(n):
                if in_tour[j]:
                    continue
                if c < 0 or (rule == 0 and mind[j] < mind[c]) or (rule == 1 and mind[j] > mind[c]):
                    c = j
        a, _ = _cheapest_position(D, nxt, start, c)
        nxt[c] = nxt[a]
        nxt[a] = c
        in_tour[c] = True
        if rule != 2:
            for j in range(n):
                if D[c, j] < mind[j]:
                    mind[j] = D[c, j]
    return end


def _partial_tour(nxt, start, in_tour) -> np.ndarray:
    """The tour built so far, then the records outside it in index order
    (what an insertion heuristic returns when its deadline expires)."""
    inserted = int(in_tour.sum())
    return np.concatenate([_walk(nxt, start)[:inserted],
                           np.flatnonzero(~in_tour)]).astype(np.int64)


def _select_insert_kernel(D, start, rule, order, deadline=None):
    """Nearest / farthest / arbitrary insertion in compiled chunks of steps
    (Ctrl-C is honoured between them; :func:`_partial_tour` on a deadline)."""
    from ..deadline import chunk_steps

    n = D.shape[0]
    nxt = np.empty(n, dtype=np.int64)
    nxt[start] = start
    in_tour = np.zeros(n, dtype=np.bool_)
    in_tour[start] = True
    mind = D[start].copy()      # distance of each record to the partial tour
    step, steps = 1, chunk_steps(3.0 * n)
    while step < n:
        step = _select_insert_chunk(D, start, rule, order, nxt, in_tour, mind, step, steps)
        if step < n and deadline is not None and deadline.expired():
            return _partial_tour(nxt, start, in_tour)
    return _walk(nxt, start)


@njit(cache=True)
def _cheapest_insert_chunk(D, start, nxt, in_tour, best_a, best_cost, step, steps):
    """Steps ``step .. step+steps−1`` of cheapest insertion: the (record,
    edge) pair of least added length.  Each outside record keeps its best
    edge; after an insertion of c into (a, b) only the two new edges are
    tried, except for records whose best edge was (a, b), which are
    rescanned — O(n²) expected.  Returns the next step."""
    n = D.shape[0]
    end = min(n, step + steps)
    for _ in range(step, end):
        c = -1
        for j in range(n):
            if not in_tour[j] and (c < 0 or best_cost[j] < best_cost[c]):
                c = j
        a = best_a[c]
        b = nxt[a]
        nxt[c] = b
        nxt[a] = c
        in_tour[c] = True
        for u in range(n):
            if in_tour[u]:
                continue
            if best_a[u] == a:
                best_a[u], best_cost[u] = _cheapest_position(D, nxt, start, u)
            else:
                cost1 = D[a, u] + D[u, c] - D[a, c]
                cost2 = D[c, u] + D[u, b] - D[c, b]
                if cost1 < best_cost[u]:
                    best_cost[u] = cost1
                    best_a[u] = a
                if cost2 < best_cost[u]:
                    best_cost[u] = cost2
                    best_a[u] = c
    return end


def _cheapest_insert_kernel(D, start, deadline=None):
    """Cheapest insertion in compiled chunks of steps (Ctrl-C is honoured
    between them; :func:`_partial_tour` on a deadline)."""
    from ..deadline import chunk_steps

    n = D.shape[0]
    nxt = np.empty(n, dtype=np.int64)
    nxt[start] = start
    in_tour = np.zeros(n, dtype=np.bool_)
    in_tour[start] = True
    best_a = np.full(n, start, dtype=np.int64)
    best_cost = 2.0 * D[start]
    step, steps = 1, chunk_steps(8.0 * n)
    while step < n:
        step = _cheapest_insert_chunk(D, start, nxt, in_tour, best_a, best_cost, step, steps)
        if step < n and deadline is not None and deadline.expired():
            return _partial_tour(nxt, start, in_tour)
    return _walk(nxt, start)


def insertion_tour(X, rule="nearest", *, seed=None, start=None, time_limit=None) -> np.ndarray:
    """Insertion heuristics of Rosenkrantz, Stearns & Lewis (1977) as compared
    in seed 002 §5.2 (Table 1) and seed 003 §2.2.3 ("Insertion Algorithms").

    Start from one random record (from ``seed``, or ``start``); at each step
    pick an outside record and insert it where it lengthens the tour least.
    ``rule`` picks the record: ``"nearest"`` (closest to the tour),
    ``"farthest"`` (farthest from the tour), ``"cheapest"`` (least insertion
    cost over all records and edges), ``"arbitrary"`` (random order from
    ``seed``).  O(n²) time (cheapest: O(n²) expected).  ``time_limit``
    (seconds or a :class:`~mipagg.deadline.Deadline`): when it expires, the
    records not yet inserted follow the partial tour in index order.

    >>> insertion_tour([[0.0], [5.0], [1.0], [2.0]], "farthest", start=0).tolist()
    [0, 2, 3, 1]
    """
    if rule not in INSERTION_RULES:
        raise ParameterError(f"unknown insertion rule {rule!r}; choose one of {INSERTION_RULES}")
    A = as_points(X)
    n = A.shape[0]
    rng = np.random.default_rng(seed)
    if start is None:
        start = int(rng.integers(n))
    if not 0 <= int(start) < n:
        raise ParameterError(f"start must be in range({n}), got {start}")
    start = int(start)
    D = distance_matrix(A)
    from ..deadline import Deadline

    deadline = Deadline.of(time_limit)
    if rule == "cheapest":
        return _cheapest_insert_kernel(D, start, deadline)
    others = np.delete(np.arange(n, dtype=np.int64), start)
    order = rng.permutation(others) if rule == "arbitrary" else others
    code = {"nearest": 0, "farthest": 1, "arbitrary": 2}[rule]
    return _select_insert_kernel(D, start, code, order, deadline)


def tours_from_every_start(X, method="nn", *, seed=None) -> np.ndarray:
    """(n, n) array whose row i is the ``method`` tour started at record i,
    computing the distance matrix once — the n Hamiltonian paths of seed 003
    ch. 3 (MF-TSP, Algorithm 1 lines 3–5).  O(n³) time, O(n²) memory.

    ``method``: ``"nn"`` or an insertion rule.  Row i equals
    ``nearest_neighbor_tour(X, start=i)`` / ``insertion_tour(X, method,
    start=i)``; for ``"arbitrary"`` row i equals ``insertion_tour(X,
    "arbitrary", seed=g[i], start=i)`` with ``g = default_rng(seed).spawn(n)``
    (the only method that uses ``seed``).

    >>> tours_from_every_start([[0.0], [5.0], [1.0]]).tolist()
    [[0, 2, 1], [1, 2, 0], [2, 0, 1]]
    """
    if method != "nn" and method not in INSERTION_RULES:
        raise ParameterError(f"method must be 'nn' or one of {INSERTION_RULES}, got {method!r}")
    A = as_points(X)
    n = A.shape[0]
    D = distance_matrix(A)
    out = np.empty((n, n), dtype=np.int64)
    if method == "nn":   # one compiled O(n²) call per start: Ctrl-C is honoured between them
        for i in range(n):
            out[i] = nn_kernel(D, i)
        return out
    gens = np.random.default_rng(seed).spawn(n) if method == "arbitrary" else None
    code = {"nearest": 0, "farthest": 1, "arbitrary": 2}.get(method, -1)
    for i in range(n):
        if method == "cheapest":
            out[i] = _cheapest_insert_kernel(D, i)
            continue
        others = np.delete(np.arange(n, dtype=np.int64), i)
        order = gens[i].permutation(others) if gens is not None else others
        out[i] = _select_insert_kernel(D, i, code, order)
    return out
