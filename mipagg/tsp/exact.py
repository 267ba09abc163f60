"""Proven-optimal tours and Hamiltonian paths with HiGHS (a Concorde stand-in).

Seed 002 §5.2 and seed 003 ch. 4 use Concorde (branch-and-cut, Applegate et
al.) for their best tours.  This module solves the same symmetric TSP exactly
with the classical Dantzig–Fulkerson–Johnson (1954) model

    min Σ_e d_e x_e   s.t.   x(δ(v)) = 2 ∀v,   x(E(S)) ≤ |S| − 1 ∀S,   x ∈ {0,1}^E

and adds the exponentially many subtour-elimination constraints (SECs)
lazily:

1. LP phase — solve the LP relaxation; add every SEC violated by a connected
   component of the support graph, else the one from a global minimum cut
   (Stoer–Wagner, networkx) when it is below 2; repeat.
2. MIP phase — mark x binary, pass a heuristic tour (LKH when elkai is
   installed, else nearest neighbour) as incumbent, solve with HiGHS; if the
   optimum has subtours, add their SECs and re-solve.

The final MIP solution is a single tour and HiGHS reports it optimal (relative
gap 1e-9) → ``proven_optimal = True``.  If the time limit stops the search,
the best known tour is returned with ``proven_optimal = False``.  Each SEC is
written on the smaller side S of the cut.  The solver sits behind this one
module (DESIGN: narrow solver interface).

Hamiltonian paths (seed 002 §4, Algorithm 1 lines 4–6): a dummy node at
distance 0 from every record is added; an optimal tour of the n + 1 nodes,
cut at the dummy node, is an optimal Hamiltonian path of the records.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError, SolverError
from ._common import as_points, distance_matrix

__all__ = ["exact_tour", "exact_path", "exact_matrix_tour", "ExactTourResult"]


@dataclass
class ExactTourResult:
    """Outcome of :func:`exact_matrix_tour`."""

    tour: np.ndarray
    length: float
    proven_optimal: bool
    lower_bound: float
    cuts: int = 0
    mip_solves: int = 0
    seconds: float = 0.0
    log: list = field(default_factory=list)


def _tour_cost(D, t):
    return float(D[t, np.roll(t, -1)].sum())


def _components(n, I, J, x, tol):
    """Connected components of the support graph {e : x_e > tol}."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    keep = x > tol
    A = coo_matrix((np.ones(keep.sum()), (I[keep], J[keep])), shape=(n, n))
    k, lab = connected_components(A, directed=False)
    return [np.flatnonzero(lab == c) for c in range(k)]


def _min_cut(n, I, J, x, tol):
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(n))
    keep = x > tol
    for i, j, w in zip(I[keep].tolist(), J[keep].tolist(), x[keep].tolist()):
        G.add_edge(i, j, weight=w)
    value, (S, _) = nx.stoer_wagner(G)
    return value, np.asarray(sorted(S), dtype=np.int64)


def _tour_from_edges(n, I, J, x):
    """Walk the edges with x ≈ 1; returns the cycle through node 0 (may be a
    subtour) as an array."""
    nb = [[] for _ in range(n)]
    for e in np.flatnonzero(x > 0.5):
        nb[I[e]].append(int(J[e]))
        nb[J[e]].append(int(I[e]))
    tour, prev, cur = [0], -1, 0
    while True:
        nxt = nb[cur][0] if nb[cur][0] != prev else nb[cur][1]
        if nxt == 0:
            return np.asarray(tour, dtype=np.int64)
        tour.append(nxt)
        prev, cur = cur, nxt


def _initial_tour(D, seed):
    from .lkh import elkai_available, lkh_matrix_tour

    if elkai_available():
        return lkh_matrix_tour(D, seed=0 if seed is None else seed, runs=1)
    from .construction import _nn_kernel

    return _nn_kernel(D, 0)


def exact_matrix_tour(D, *, time_limit=None, initial_tour=None, seed=None) -> ExactTourResult:
    """Optimal tour for a symmetric distance matrix ``D`` by DFJ + lazy SECs
    solved with HiGHS (see module docstring).  Exponential worst case; about
    n = 100 Euclidean records in seconds."""
    import highspy

    D = np.asarray(D, dtype=float)
    n = D.shape[0]
    t0 = time.perf_counter()
    if time_limit is not None and not time_limit > 0:
        raise ParameterError(f"time_limit must be positive, got {time_limit}")
    if n <= 3:
        t = np.arange(n, dtype=np.int64)
        c = _tour_cost(D, t) if n > 1 else 0.0
        return ExactTourResult(t, c, True, c)

    best = _initial_tour(D, seed) if initial_tour is None else np.asarray(initial_tour, np.int64)
    best_len = _tour_cost(D, best)

    I, J = np.triu_indices(n, 1)
    m = I.shape[0]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 1e-9)
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    h.addVars(m, np.zeros(m), np.ones(m))
    h.changeColsCost(m, np.arange(m, dtype=np.int32), D[I, J])
    # degree rows: x(δ(v)) = 2
    inc = [[] for _ in range(n)]
    for e in range(m):
        inc[I[e]].append(e)
        inc[J[e]].append(e)
    starts = np.cumsum([0] + [len(r) for r in inc[:-1]]).astype(np.int32)
    idx = np.concatenate([np.asarray(r, dtype=np.int32) for r in inc])
    h.addRows(n, np.full(n, 2.0), np.full(n, 2.0), idx.size, starts, idx, np.ones(idx.size))

    pos = np.full((n, n), -1, dtype=np.int64)
    pos[I, J] = np.arange(m)
    pos[J, I] = np.arange(m)
    log, cuts = [], 0

    def add_sec(S):
        nonlocal cuts
        S = np.asarray(S, dtype=np.int64)
        if 2 * S.size > n:
            S = np.setdiff1d(np.arange(n), S)
        if S.size < 2:
            return
        a, b = np.triu_indices(S.size, 1)
        cols = np.sort(pos[S[a], S[b]]).astype(np.int32)
        h.addRow(-inf, float(S.size - 1), cols.size, cols, np.ones(cols.size))
        cuts += 1

    def remaining():
        if time_limit is None:
            return None
        return time_limit - (time.perf_counter() - t0)

    def run():
        r = remaining()
        if r is not None:
            if r <= 0:
                return False
            h.setOptionValue("time_limit", float(r))
        h.run()
        return True

    # ---- LP phase -------------------------------------------------------
    lp_bound = 0.0
    for _ in range(200):
        if not run():
            break
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            break
        x = np.asarray(h.getSolution().col_value)
        lp_bound = h.getInfo().objective_function_value
        comps = _components(n, I, J, x, 1e-9)
        if len(comps) > 1:
            for S in comps:
                add_sec(S)
            continue
        value, S = _min_cut(n, I, J, x, 1e-9)
        if value < 2.0 - 1e-6:
            add_sec(S)
            continue
        break
    log.append({"phase": "lp", "bound": lp_bound, "cuts": cuts})

    # ---- MIP phase ------------------------------------------------------
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32),
                            np.full(m, highspy.HighsVarType.kInteger))
    proven, lower, solves = False, lp_bound, 0
    while True:
        sol = highspy.HighsSolution()
        x0 = np.zeros(m)
        x0[pos[best, np.roll(best, -1)]] = 1.0
        sol.col_value = x0.tolist()
        h.setSolution(sol)
        if not run():
            break
        solves += 1
        status = h.getModelStatus()
        info = h.getInfo()
        if info.mip_dual_bound > lower and np.isfinite(info.mip_dual_bound):
            lower = float(info.mip_dual_bound)
        if info.primal_solution_status == 0:  # no solution at all
            if status == highspy.HighsModelStatus.kTimeLimit:
                break
            raise SolverError(f"HiGHS returned no tour: {h.modelStatusToString(status)}")
        x = np.asarray(h.getSolution().col_value)
        comps = _components(n, I, J, x, 0.5)
        log.append({"phase": "mip", "status": h.modelStatusToString(status),
                    "objective": info.objective_function_value, "bound": info.mip_dual_bound,
                    "subtours": len(comps)})
        if len(comps) == 1:
            t = _tour_from_edges(n, I, J, x)
            if _tour_cost(D, t) < best_len:
                best, best_len = t, _tour_cost(D, t)
            proven = status == highspy.HighsModelStatus.kOptimal
            break
        for S in comps:
            add_sec(S)
        if status != highspy.HighsModelStatus.kOptimal:
            break
    if proven:
        lower = best_len
    return ExactTourResult(best, best_len, proven, min(lower, best_len), cuts, solves,
                           time.perf_counter() - t0, log)


def exact_tour(X, *, time_limit=None, seed=None):
    """Proven-optimal closed tour of the rows of ``X`` (Concorde stand-in of
    seed 002 §5.2 / seed 003 ch. 4): DFJ model with lazily added subtour
    cuts solved by HiGHS.  Returns ``(tour, length, proven_optimal)``;
    ``proven_optimal`` is False only when ``time_limit`` (seconds) stopped
    the search, in which case the tour is the best found.  Exponential worst
    case; n = 100 records in seconds.

    >>> t, length, ok = exact_tour([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> round(length, 6), ok
    (4.0, True)
    """
    A = as_points(X)
    r = exact_matrix_tour(distance_matrix(A), time_limit=time_limit, seed=seed)
    return r.tour, r.length, r.proven_optimal


def dummy_matrix(D: np.ndarray) -> np.ndarray:
    """D with an extra last node at distance 0 from every record (seed 002 §4)."""
    n = D.shape[0]
    out = np.zeros((n + 1, n + 1))
    out[:n, :n] = D
    return out


def cut_at_dummy(tour: np.ndarray, dummy: int) -> np.ndarray:
    """Open a tour of the dummy-augmented problem into the path of records
    that starts right after the dummy node (seed 002 Algorithm 1, line 6)."""
    k = int(np.flatnonzero(tour == dummy)[0])
    return np.concatenate([tour[k + 1:], tour[:k]]).astype(np.int64)


def exact_path(X, *, time_limit=None, seed=None):
    """Optimal Hamiltonian path (shortest open path through all rows of ``X``):
    exact tour of the dummy-augmented problem cut at the dummy node (seed 002
    §4).  Returns ``(path, length, proven_optimal)``.

    >>> p, length, ok = exact_path([[0.0], [3.0], [1.0], [2.0]])
    >>> round(length, 6), ok
    (3.0, True)
    """
    A = as_points(X)
    n = A.shape[0]
    if n == 1:
        return np.zeros(1, dtype=np.int64), 0.0, True
    r = exact_matrix_tour(dummy_matrix(distance_matrix(A)), time_limit=time_limit, seed=seed)
    return cut_at_dummy(r.tour, n), r.length, r.proven_optimal
