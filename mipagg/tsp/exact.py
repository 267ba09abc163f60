"""Proven-optimal tours and Hamiltonian paths by branch-and-cut (a Concorde stand-in).

Seed 002 §5.2 and seed 003 ch. 4 use Concorde (branch-and-cut, Applegate et
al.) for their best tours.  This module solves the same symmetric TSP exactly
with the classical Dantzig–Fulkerson–Johnson (1954) model

    min Σ_e d_e x_e   s.t.   x(δ(v)) = 2 ∀v,   x(E(S)) ≤ |S| − 1 ∀S,   x ∈ {0,1}^E

and adds the exponentially many subtour-elimination constraints (SECs)
lazily, on a sparse edge set that is priced out exactly (as Concorde does):

1. Edges — the ``neighbours`` nearest of every node plus a heuristic tour
   (LKH when elkai is installed, else nearest neighbour), which is also the
   incumbent.
2. LP phase — solve the LP relaxation; add the SECs of the connected
   components of the support graph {x_e > 0} or of {x_e ≥ θ} for a few θ,
   else of a global minimum cut below 2 (Stoer–Wagner, networkx); when no SEC
   is violated, compute the reduced costs of all n(n−1)/2 edges from the
   duals, add missing edges with negative reduced cost and repeat.  The duals
   then give a lower bound L valid for every tour (Held–Karp-type bound)
   and reduced costs rc_e: any tour using edge e is at least L + rc_e long.
3. MIP phase — mark x binary, pass the incumbent, solve with HiGHS (or the
   solver chosen by ``solver=`` / ``--solver``, through Pyomo); if the
   optimum has subtours, add their SECs and re-solve.  The optimal tour of
   the sparse graph (length z) is optimal for the complete graph when no
   outside edge has L + rc_e < z (any tour using e is at least L + rc_e
   long); otherwise those edges are added and the MIP is solved again.

The final MIP solution is a single tour and the MIP solver reports it optimal
(HiGHS: relative gap 1e-9; other solvers: gap 0, see
:mod:`mipagg.exact.solvers`) → ``proven_optimal = True``.  If the time limit
stops the search, or the solver ends without proving optimality, the best
known tour is returned with ``proven_optimal = False``.  Each SEC is written
on the smaller side S of the cut.  The LP phase always runs on HiGHS; the
solver sits behind this one module and :mod:`mipagg.exact.solvers` (DESIGN:
narrow solver interface).

Hamiltonian paths (seed 002 §4, Algorithm 1 lines 4–6): a dummy node at
distance 0 from every record is added; an optimal tour of the n + 1 nodes,
cut at the dummy node, is an optimal Hamiltonian path of the records.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError, SolverError
from ..exact.highs import new_highs, set_time_limit
from ..exact.solvers import check_solver, current_solver, pyomo_binary_mip
from ..status import Status
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

    @property
    def status(self) -> Status:
        """"optimal" when proven, else "time_limit" (the only other way out)."""
        return Status.OPTIMAL if self.proven_optimal else Status.TIME_LIMIT

    @property
    def success(self) -> bool:
        return self.proven_optimal

    @property
    def message(self) -> str:
        return self.status.message


def _tour_cost(D, t):
    return float(D[t, np.roll(t, -1)].sum())


def _components(n, I, J, x, tol):
    """Labels of the connected components of the support graph {e : x_e > tol}."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    keep = x > tol
    A = coo_matrix((np.ones(int(keep.sum())), (I[keep], J[keep])), shape=(n, n))
    return connected_components(A, directed=False)[1]


def _groups(labels):
    return [np.flatnonzero(labels == c) for c in range(int(labels.max()) + 1)]


def _violated_sets(n, I, J, x):
    """Sets S with x(δ(S)) < 2: components of the support graph, then of its
    sub-graphs {x_e ≥ θ} (cheap heuristic cuts), finally a global minimum cut
    (Stoer–Wagner, networkx) when the heuristics find nothing."""
    for theta in (1e-9, 0.3, 0.6, 0.9):
        lab = _components(n, I, J, x, theta - 1e-12 if theta > 1e-9 else theta)
        k = int(lab.max()) + 1
        if k == 1:
            continue
        cross = lab[I] != lab[J]
        cut = np.bincount(lab[I][cross], x[cross], k) + np.bincount(lab[J][cross], x[cross], k)
        sizes = np.bincount(lab, minlength=k)
        found = [np.flatnonzero(lab == c) for c in range(k)
                 if cut[c] < 2.0 - 1e-6 and 2 <= sizes[c] <= n - 2]
        if found:
            return found
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(n))
    keep = x > 1e-9
    G.add_weighted_edges_from(zip(I[keep].tolist(), J[keep].tolist(), x[keep].tolist()))
    value, (S, _) = nx.stoer_wagner(G)
    return [np.asarray(sorted(S), dtype=np.int64)] if value < 2.0 - 1e-6 else []


def _tour_from_edges(n, I, J, x):
    """Walk the edges with x ≈ 1 (a single Hamiltonian cycle) from node 0."""
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
    from .construction import nn_kernel

    return nn_kernel(D, 0)


class _Model:
    """The DFJ LP/MIP over a growing set of edge columns (HiGHS)."""

    def __init__(self, D, edges):
        import highspy

        self.hs = highspy
        self.D = D
        self.n = n = D.shape[0]
        self.h = h = new_highs(mip_rel_gap=1e-9)
        h.addRows(n, np.full(n, 2.0), np.full(n, 2.0), 0, np.zeros(n, np.int32),
                  np.zeros(0, np.int32), np.zeros(0))
        self.I = np.zeros(0, np.int64)
        self.J = np.zeros(0, np.int64)
        self.col = np.full((n, n), -1, dtype=np.int64)
        self.secs = []                       # member masks of the SEC rows
        self.integer = False
        self.add_edges(edges)

    def add_edges(self, pairs):
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        pairs = np.sort(pairs, axis=1)
        pairs = pairs[(pairs[:, 0] != pairs[:, 1]) & (self.col[pairs[:, 0], pairs[:, 1]] < 0)]
        pairs = np.unique(pairs, axis=0)
        if pairs.size == 0:
            return 0
        a, b = pairs[:, 0], pairs[:, 1]
        m0, k, n = self.I.size, a.size, self.n
        # rows of each new column: its two degree rows, then the SECs holding both ends
        if self.secs:
            M = np.asarray(self.secs)                       # (#SEC, n) membership
            sec_r, sec_c = np.nonzero((M[:, a] & M[:, b]).T)
        else:
            sec_r = sec_c = np.zeros(0, np.int64)
        col_of = np.concatenate([np.arange(k), np.arange(k), sec_r])
        row_of = np.concatenate([a, b, n + sec_c])
        order = np.argsort(col_of, kind="stable")
        flat = row_of[order].astype(np.int32)
        starts = np.searchsorted(col_of[order], np.arange(k)).astype(np.int32)
        self.h.addCols(k, self.D[a, b], np.zeros(k), np.ones(k), flat.size, starts, flat,
                       np.ones(flat.size))
        self.I = np.concatenate([self.I, a])
        self.J = np.concatenate([self.J, b])
        self.col[a, b] = self.col[b, a] = np.arange(m0, m0 + k)
        if self.integer:
            self.h.changeColsIntegrality(k, np.arange(m0, m0 + k, dtype=np.int32),
                                         np.full(k, self.hs.HighsVarType.kInteger))
        return k

    def make_integer(self):
        self.integer = True
        m = self.I.size
        self.h.changeColsIntegrality(m, np.arange(m, dtype=np.int32),
                                     np.full(m, self.hs.HighsVarType.kInteger))

    def pyomo_mip(self, best, time_limit, solver):
        """The current integer DFJ model (degree rows, SECs, the edge columns so
        far) on ``solver`` through Pyomo, the tour ``best`` as warm start:
        ``(status, x or None, dual bound or None)``."""
        n = self.n
        edges = np.arange(self.I.size)
        rows = [(edges[(self.I == v) | (self.J == v)], 2.0, 2.0) for v in range(n)]
        rows += [(np.flatnonzero(S[self.I] & S[self.J]), None, float(S.sum() - 1))
                 for S in self.secs]
        x0 = np.zeros(self.I.size)
        x0[self.col[best, np.roll(best, -1)]] = 1.0
        status, x, bound, _ = pyomo_binary_mip(self.D[self.I, self.J], rows, start=x0,
                                               time_limit=time_limit, solver=solver)
        return status, x, bound

    def add_sec(self, S):
        """x(E(S)) ≤ |S| − 1 on the smaller side of the cut."""
        n = self.n
        if 2 * S.size > n:
            S = np.setdiff1d(np.arange(n), S)
        if S.size < 2:
            return
        mask = np.zeros(n, dtype=bool)
        mask[S] = True
        cols = np.flatnonzero(mask[self.I] & mask[self.J]).astype(np.int32)
        self.h.addRow(-self.hs.kHighsInf, float(S.size - 1), cols.size, cols, np.ones(cols.size))
        self.secs.append(mask)

    def reduced_costs(self):
        """Reduced costs of all n² edges for the current LP duals, and the
        Lagrangian bound valid for every tour (Σ rc over the n most negative)."""
        sol = self.h.getSolution()
        dual = np.asarray(sol.row_dual)
        n = self.n
        u = dual[:n]
        R = self.D - u[:, None] - u[None, :]
        bound = 2.0 * u.sum()
        for r, S in enumerate(self.secs):
            y = dual[n + r]
            if y != 0.0:
                idx = np.flatnonzero(S)
                R[np.ix_(idx, idx)] -= y
                bound += min(y, 0.0) * (idx.size - 1)   # x(E(S)) ∈ [0, |S|−1]
        np.fill_diagonal(R, np.inf)
        I, J = np.triu_indices(n, 1)
        neg = np.minimum(R[I, J], 0.0)
        if neg.size > n:
            neg = np.partition(neg, n)[:n]
        return R, bound + float(neg.sum())


def exact_matrix_tour(D, *, time_limit=None, initial_tour=None, seed=None,
                      neighbours=10, solver=None) -> ExactTourResult:
    """Optimal tour for a symmetric distance matrix ``D`` by DFJ + lazy SECs
    solved with HiGHS (see module docstring) on a sparse edge set: the
    ``neighbours`` nearest edges of every node plus the initial tour, priced
    out exactly — LP reduced costs of all n(n−1)/2 edges are checked,
    missing edges with negative reduced cost are added, and after the MIP
    every edge that could lie on a shorter tour (LP bound + reduced cost <
    tour length) is added and the MIP re-solved, so optimality on the sparse
    graph is optimality on the complete graph.  Exponential worst case;
    n = 100 records in about a second, n = 400 in a few seconds.  ``solver``
    (default: :func:`~mipagg.exact.solvers.current_solver`, HiGHS unless
    ``--solver`` chose another) solves the MIP phase; the LPs stay on HiGHS."""
    D = np.asarray(D, dtype=float)
    n = D.shape[0]
    t0 = time.perf_counter()
    if time_limit is not None and not time_limit > 0:
        raise ParameterError(f"time_limit must be positive, got {time_limit}")
    solver = check_solver(solver) if solver is not None else current_solver()
    if n <= 3:
        t = np.arange(n, dtype=np.int64)
        c = _tour_cost(D, t) if n > 1 else 0.0
        return ExactTourResult(t, c, True, c)

    best = _initial_tour(D, seed) if initial_tour is None else np.asarray(initial_tour, np.int64)
    best_len = _tour_cost(D, best)
    k = int(min(n - 1, neighbours))
    near = np.argsort(D + np.diag(np.full(n, np.inf)), axis=1, kind="stable")[:, :k]
    edges = np.vstack([np.column_stack([np.repeat(np.arange(n), k), near.ravel()]),
                       np.column_stack([best, np.roll(best, -1)])])
    model = _Model(D, edges)
    clock = _Clock(model.h, time_limit, t0)
    lower, rc, log = _lp_phase(model, n, clock)
    proven, solves = False, 0
    if rc is not None:       # priced out: the MIP phase on the sparse graph
        best, best_len, proven, solves = _mip_phase(model, D, best, best_len, lower, rc,
                                                    clock, solver, log)
    if proven:
        lower = best_len
    return ExactTourResult(best, best_len, proven, min(lower, best_len), len(model.secs), solves,
                           time.perf_counter() - t0, log)


class _Clock:
    """Seconds left of ``time_limit`` from ``t0``, and HiGHS runs within them."""

    def __init__(self, h, time_limit, t0):
        self.h, self.time_limit, self.t0 = h, time_limit, t0

    def left(self):
        return None if self.time_limit is None else \
            self.time_limit - (time.perf_counter() - self.t0)

    def run(self) -> bool:
        """Run HiGHS within the time left; False (no run) when none is left."""
        r = self.left()
        if r is not None and r <= 0:
            return False
        set_time_limit(self.h, r)   # HiGHS counts the object's cumulative run time
        self.h.run()
        return True


def _lp_phase(model, n, clock):
    """Cutting planes (SECs) and pricing of all n(n−1)/2 edges on the LP:
    ``(lower bound, reduced costs of every edge or None if not priced out,
    log)``."""
    h, hs = model.h, model.hs
    lower, rc, I, J = 0.0, None, *np.triu_indices(n, 1)
    while clock.run() and h.getModelStatus() == hs.HighsModelStatus.kOptimal:
        x = np.asarray(h.getSolution().col_value)
        sets = _violated_sets(n, model.I, model.J, x)
        for S in sets:
            model.add_sec(S)
        if sets:
            continue
        R, bound = model.reduced_costs()
        rc = R[I, J]
        missing = (model.col[I, J] < 0) & (rc < -1e-9)
        if not missing.any():
            lower = max(lower, bound)     # duals feasible for the complete graph
            break
        pick = np.flatnonzero(missing)
        model.add_edges(np.column_stack([I[pick], J[pick]])[np.argsort(rc[pick])[:2 * n]])
        rc = None
    log = [{"phase": "lp", "bound": float(lower), "cuts": len(model.secs),
            "edges": int(model.I.size), "priced": rc is not None}]
    return lower, rc, log


def _mip_phase(model, D, best, best_len, lower, rc, clock, solver, log):
    """Lazy SECs on the sparse graph's MIP, then the pricing check (an
    outside edge e can only lie on a shorter tour if lower + rc_e < best):
    ``(best tour, its length, proven, MIP solves)``."""
    n = D.shape[0]
    I, J = np.triu_indices(n, 1)
    if solver == "highs":
        model.make_integer()
    proven, solves = False, 0
    while True:
        optimal, x, entry = _mip_solve(model, best, clock, solver)
        if x is None:
            solves += entry is not None
            break
        solves += 1
        comps = _groups(_components(n, model.I, model.J, x, 0.5))
        log.append({**entry, "subtours": len(comps), "edges": int(model.I.size)})
        if len(comps) == 1:                    # a tour (optimal or not)
            t = _tour_from_edges(n, model.I, model.J, x)
            if _tour_cost(D, t) < best_len:
                best, best_len = t, _tour_cost(D, t)
        if not optimal:                        # proven only when the solver proved it
            break
        if len(comps) > 1:
            for S in comps:
                model.add_sec(S)
            continue
        need = (model.col[I, J] < 0) & (lower + rc < best_len - 1e-7)
        if not need.any():
            proven = True
            break
        model.add_edges(np.column_stack([I[need], J[need]]))
    return best, best_len, proven, solves


def _mip_solve(model, best, clock, solver):
    """One solve of the sparse MIP from the tour ``best``: ``(optimal, x,
    log entry)``; x is None when the time ran out (entry None: not even
    started).  :class:`SolverError` when the solver returns no solution."""
    if solver != "highs":
        r = clock.left()
        if r is not None and r <= 0:
            return False, None, None
        word, x, dual = model.pyomo_mip(best, r, solver)
        if x is None:
            if word == "time_limit":
                return False, None, {}
            raise SolverError(f"{solver} returned no tour: {word}")
        return word == "optimal", x, {
            "phase": "mip", "solver": solver, "status": word,
            "objective": float(model.D[model.I, model.J] @ np.round(x)),
            "bound": float("nan") if dual is None else dual}
    h, hs = model.h, model.hs
    sol = hs.HighsSolution()
    x0 = np.zeros(model.I.size)
    x0[model.col[best, np.roll(best, -1)]] = 1.0
    sol.col_value = x0.tolist()
    h.setSolution(sol)
    if not clock.run():
        return False, None, None
    status = h.getModelStatus()
    info = h.getInfo()
    if info.primal_solution_status == 0:  # no solution at all
        if status == hs.HighsModelStatus.kTimeLimit:
            return False, None, {}
        raise SolverError(f"HiGHS returned no tour: {h.modelStatusToString(status)}")
    return status == hs.HighsModelStatus.kOptimal, np.asarray(h.getSolution().col_value), {
        "phase": "mip", "status": h.modelStatusToString(status),
        "objective": float(info.objective_function_value),
        "bound": float(info.mip_dual_bound)}


def exact_tour(X, *, time_limit=None, seed=None, solver=None):
    """Proven-optimal closed tour of the rows of ``X`` (Concorde stand-in of
    seed 002 §5.2 / seed 003 ch. 4): DFJ model with lazily added subtour
    cuts solved by HiGHS (or ``solver``, see :func:`exact_matrix_tour`).  Returns ``(tour, length, proven_optimal)``;
    ``proven_optimal`` is False only when ``time_limit`` (seconds) stopped
    the search, in which case the tour is the best found.  Exponential worst
    case; n = 100 records in seconds.

    >>> t, length, ok = exact_tour([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> round(length, 6), ok
    (4.0, True)
    """
    A = as_points(X)
    r = exact_matrix_tour(distance_matrix(A), time_limit=time_limit, seed=seed, solver=solver)
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


def exact_path(X, *, time_limit=None, seed=None, solver=None):
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
    r = exact_matrix_tour(dummy_matrix(distance_matrix(A)), time_limit=time_limit, seed=seed,
                          solver=solver)
    return cut_at_dummy(r.tour, n), r.length, r.proven_optimal
