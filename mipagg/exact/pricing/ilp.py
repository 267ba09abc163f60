"""Exact pricing by the edge-only ILP model (14) of seed 001 (section 4.2),
built in Pyomo and solved by HiGHS (SolveExactPricing of section 5.1).

Model (14) at cluster size η, one binary z_e per edge e = ij:

    min  Σ_e (D_e/η − (λ_i + λ_j)/(η−1)) z_e
    s.t. Σ_e z_e = η(η−1)/2                                   (11)
         Σ_{e∈δ(i)∖ij} z_e − (η−2) z_ij ≥ 0   for all i ≠ j      (12)

(the node weight λ_v is collected as λ_v Σ_{e∈δ(v)} z_e/(η−1)).  By
Proposition 4.2 its binary solutions are exactly the cliques of size η, and
by Corollary 4.3 the triangle inequalities z_ir + z_rj − z_ij ≤ 1 are not
needed; ``triangle_cuts=True`` adds the most violated ones found at
fractional LP solutions as cuts before the MIP solve (section 4.2, end).

``formulation="compact"`` (default) writes (12) as y_i − (η−1) z_ij ≥ 0 with
one continuous y_i = Σ_{e∈δ(i)} z_e per record, i.e. the same polyhedron
projected, with O(n²) instead of O(n³) nonzeros; ``"paper"`` writes (12)
literally; ``"nodes"`` is not model (14) but the classical edge-and-node
model (binary x_v, deg(v) = (η−1)·x_v, z_ij ≤ x_i, Σ x = η) kept for
comparison.  Building the full model at n = 200 in Pyomo takes about 3 s
(compact), 5 s (nodes), 27 s (paper) on the benchmark machine.

Provably valid size reduction (``reduce=True``): a greedy cluster gives an
upper bound U on the minimum.  Every cluster satisfies
w̄_C ≥ Σ_{v∈C} a_v with a_v = H[v, η−1] − λ_v (``half_smallest_sums``), so a
record v whose a_v plus the η−1 smallest other a_u is ≥ U lies in no cluster
better than U and is dropped; likewise an edge ij whose bound
D_ij/η + b_i + b_j + (η−2 smallest a) ≥ U, b_v = H[v, η−2] − λ_v, is fixed to 0.
The minimum is then min(U, optimum of the reduced model).
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
from pyomo.core.expr.numeric_expr import LinearExpression

from ...errors import ParameterError
from ._common import PricingResult, half_smallest_sums, reduced_cost, sorted_result, start_pricing
from .heuristic import greedy_cluster

__all__ = ["ilp_pricing", "build_model", "candidate_graph"]


def best_greedy(D, duals, eta, banned):
    """Best non-forbidden cluster grown greedily from every record
    (reduced-cost increase criterion); (cluster tuple, cost) or (None, inf)."""
    n = D.shape[0]
    every = np.ones(n, dtype=bool)
    best, best_rc = None, np.inf
    for v in range(n):
        for crit in ("increase", "pseudocode"):
            c = tuple(sorted(greedy_cluster(D, duals, eta, v, every, criterion=crit)))
            rc = reduced_cost(D, duals, c, eta)
            if rc < best_rc and c not in banned:
                best, best_rc = c, rc
    return best, best_rc


def candidate_graph(D, duals, eta, upper_bound):
    """Records and edges that can belong to a cluster of size η with reduced
    cost < ``upper_bound`` (bounds in the module docstring).
    Returns (nodes array, edges (m, 2) array of positions into nodes)."""
    n = D.shape[0]
    H = half_smallest_sums(D, eta)
    a = H[:, eta - 1] - duals
    if not np.isfinite(upper_bound):
        nodes = np.arange(n)
    else:
        srt = np.sort(a)
        # η−1 smallest a_u over u ≠ v: drop a_v itself when it is among them
        rest = np.where(a <= srt[eta - 2], srt[:eta].sum() - a, srt[:eta - 1].sum())
        nodes = np.flatnonzero(a + rest < upper_bound)
    iu, ju = np.triu_indices(nodes.size, 1)
    if nodes.size < eta:
        return nodes, np.zeros((0, 2), dtype=np.int64)
    if np.isfinite(upper_bound):
        b = H[nodes, eta - 2] - duals[nodes]
        floor = np.sort(a)[:eta - 2].sum() if eta > 2 else 0.0
        lb = D[nodes[iu], nodes[ju]] / eta + b[iu] + b[ju] + floor
        keep = lb < upper_bound
        iu, ju = iu[keep], ju[keep]
    return nodes, np.column_stack([iu, ju]).astype(np.int64)


def build_model(D, duals, eta, nodes, edges, *, formulation="compact", banned=()):
    """Pyomo model (14) on the candidate graph (``nodes``, ``edges`` as from
    :func:`candidate_graph`); ``banned`` clusters (record ids) get no-good
    cuts Σ_{e⊆C} z_e ≤ η(η−1)/2 − 1."""
    m_edges = edges.shape[0]
    gi, gj = nodes[edges[:, 0]], nodes[edges[:, 1]]
    coef = D[gi, gj] / eta - (duals[gi] + duals[gj]) / (eta - 1)
    incident: list[list[int]] = [[] for _ in range(nodes.size)]
    for e, (i, j) in enumerate(edges.tolist()):
        incident[i].append(e)
        incident[j].append(e)

    M = pyo.ConcreteModel(name=f"pricing_eta{eta}")
    M.E = pyo.RangeSet(0, m_edges - 1)
    M.z = pyo.Var(M.E, domain=pyo.Binary)
    M.obj = pyo.Objective(expr=LinearExpression(
        constant=0.0, linear_coefs=coef.tolist(), linear_vars=[M.z[e] for e in range(m_edges)]))
    M.size = pyo.Constraint(expr=pyo.quicksum(M.z[e] for e in range(m_edges))
                            == eta * (eta - 1) // 2)
    ends = [(e, int(i), int(j)) for e, (i, j) in enumerate(edges.tolist())]
    ends += [(e, int(j), int(i)) for e, (i, j) in enumerate(edges.tolist())]
    M.A = pyo.RangeSet(0, len(ends) - 1)
    if formulation == "compact":
        M.N = pyo.RangeSet(0, nodes.size - 1)
        M.y = pyo.Var(M.N, bounds=(0, None))
        M.degree = pyo.Constraint(M.N, rule=lambda M, v: M.y[v] == pyo.quicksum(
            M.z[e] for e in incident[v]) if incident[v] else M.y[v] == 0)
        M.n2n = pyo.Constraint(M.A, rule=lambda M, a: M.y[ends[a][1]]
                               - (eta - 1) * M.z[ends[a][0]] >= 0)
    elif formulation == "nodes":
        # not model (14): the classical edge-and-node model (seed 001 ref. [20]) for
        # comparison; x_v = 1 iff v in C, deg(v) = (η−1) x_v, z_ij ≤ x_i
        M.N = pyo.RangeSet(0, nodes.size - 1)
        M.x = pyo.Var(M.N, domain=pyo.Binary)
        M.degree = pyo.Constraint(M.N, rule=lambda M, v: pyo.quicksum(
            M.z[e] for e in incident[v]) == (eta - 1) * M.x[v])
        M.card = pyo.Constraint(expr=pyo.quicksum(M.x[v] for v in M.N) == eta)
        M.n2n = pyo.Constraint(M.A, rule=lambda M, a: M.x[ends[a][1]] - M.z[ends[a][0]] >= 0)
    elif formulation == "paper":
        def n2n(M, a):
            e, i, _ = ends[a]
            others = [f for f in incident[i] if f != e]
            return pyo.quicksum(M.z[f] for f in others) - (eta - 2) * M.z[e] >= 0 \
                if others else M.z[e] <= (1 if eta == 2 else 0)
        M.n2n = pyo.Constraint(M.A, rule=n2n)
    else:
        raise ParameterError(f"formulation must be 'compact', 'paper' or 'nodes', "
                             f"got {formulation!r}")
    M.cuts = pyo.ConstraintList()
    pos = {int(v): p for p, v in enumerate(nodes)}
    edge_id = {(int(i), int(j)): e for e, (i, j) in enumerate(edges.tolist())}
    for c in banned:
        if all(v in pos for v in c):
            loc = sorted(pos[v] for v in c)
            es = [edge_id.get((loc[p], loc[q])) for p in range(eta) for q in range(p + 1, eta)]
            if None not in es:  # a cluster with an edge fixed to 0 is already excluded
                M.cuts.add(pyo.quicksum(M.z[e] for e in es) <= eta * (eta - 1) // 2 - 1)
    return M


def _violated_triangles(Z, max_cuts, eps=1e-6):
    """Most violated triangle inequalities Z[i,r] + Z[r,j] − Z[i,j] ≤ 1 at a
    symmetric fractional matrix Z; returns a list of (i, r, j)."""
    m = Z.shape[0]
    found = []
    for r in range(m):
        V = Z[:, r][:, None] + Z[r, :][None, :] - Z - 1.0
        V[r, :] = -1.0
        V[:, r] = -1.0
        np.fill_diagonal(V, -1.0)
        i, j = np.nonzero(np.triu(V > eps, 1))
        found.extend(zip(V[i, j].tolist(), i.tolist(), [r] * i.size, j.tolist()))
    found.sort(reverse=True)
    return [(i, r, j) for _, i, r, j in found[:max_cuts]]


def _solver(time_limit, options):
    from ..solvers import PyomoPricingSolver, current_solver

    if current_solver() != "highs":      # another MIP solver via Pyomo (--solver)
        return PyomoPricingSolver(current_solver()), dict(time_limit=time_limit)
    from pyomo.contrib.solver.solvers.highs import Highs

    from ..highs import silence_banner

    silence_banner()
    opts = {"mip_rel_gap": 1e-9, "mip_abs_gap": 1e-9, "output_flag": False}
    opts.update(options or {})
    return Highs(), dict(time_limit=time_limit, load_solutions=False,
                         raise_exception_on_nonoptimal_result=False, solver_options=opts)


def _limit(solver, left):
    """Pyomo's persistent HiGHS interface reuses one ``Highs`` object across
    solves, and HiGHS's ``time_limit`` counts its cumulative run time
    (HiGHS issues #1331, #1477): pass the run time so far plus ``left``."""
    from ..highs import cumulative_limit

    if left is None:
        return None
    model = getattr(solver, "_solver_model", None)
    return max(left, 1e-3) if model is None else cumulative_limit(model, left)


def ilp_pricing(D, duals, eta, *, max_columns=10, time_limit=None, tol=1e-9, forbidden=None,
                triangle_cuts=False, cut_rounds=5, formulation="compact", reduce=True,
                solver_options=None) -> PricingResult:
    """Exact pricing at size η with model (14) of seed 001 (section 4.2),
    Pyomo + HiGHS, after the valid reduction of the module docstring.

    Returns the optimal cluster if its reduced cost is < −tol (plus the greedy
    cluster used as upper bound if also negative), ``exact=True`` and
    ``min_reduced_cost`` when HiGHS proves optimality; on the time limit
    status "time_limit" with the best clusters known.  Exponential in the
    worst case (MIP); ``info`` records model size and build/solve seconds.
    ``forbidden`` clusters are excluded by no-good cuts.

    >>> D = np.array([[0., 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]])
    >>> r = ilp_pricing(D, np.array([1., 1, 1, 0.5]), 2)
    >>> r.columns[0].tolist(), r.min_reduced_cost, r.exact
    ([0, 1], -1.5, True)
    """
    D, duals, eta, clock, banned = start_pricing(D, duals, eta, forbidden, max_columns=max_columns,
                                                 time_limit=time_limit, tol=tol)
    n = D.shape[0]
    found: dict[tuple[int, ...], float] = {}
    ub_cluster, ub = best_greedy(D, duals, eta, banned) if reduce else (None, np.inf)
    if ub_cluster is not None and ub < -tol:
        found[ub_cluster] = ub
    if reduce:
        nodes, edges = candidate_graph(D, duals, eta, ub)
    else:
        nodes = np.arange(n)
        edges = np.column_stack(np.triu_indices(n, 1)).astype(np.int64)
    info = {"nodes": int(nodes.size), "edges": int(edges.shape[0]), "upper_bound": float(ub)}

    def done(exact, min_rc, status):
        info["seconds_total"] = clock.elapsed()
        return sorted_result(found, exact=exact, min_rc=min_rc, status=status, clock=clock,
                             max_columns=max_columns, info=info)

    if edges.shape[0] < eta * (eta - 1) // 2:  # no clique of size eta beats the bound
        return done(ub_cluster is not None, ub if ub_cluster is not None else None, "optimal")
    M = build_model(D, duals, eta, nodes, edges, formulation=formulation, banned=banned)
    info["seconds_pyomo"] = clock.elapsed()
    solver, kw = _solver(clock.remaining(), solver_options)
    solver.set_instance(M)  # translate to HiGHS now, so the limit below is HiGHS's own time
    info["seconds_build"] = clock.elapsed()
    if clock.expired():
        return done(False, None, "time_limit")

    if triangle_cuts:
        n_cuts = _triangle_rounds(M, solver, kw, clock, nodes, edges, cut_rounds)
        info["triangle_cuts"] = n_cuts
        for z in M.z.values():
            z.domain = pyo.Binary
        if clock.expired():
            return done(False, None, "time_limit")

    left = clock.remaining()
    res = solver.solve(M, **{**kw, "time_limit": _limit(solver, left)})
    info["seconds_solve"] = clock.elapsed() - info["seconds_build"]
    term = res.termination_condition.name
    info["termination"] = term
    if res.incumbent_objective is not None:
        res.solution_loader.load_vars()
        on = [e for e in range(edges.shape[0]) if (M.z[e].value or 0.0) > 0.5]
        c = tuple(sorted({int(nodes[v]) for e in on for v in edges[e]}))
        if len(c) == eta and c not in banned:
            rc = reduced_cost(D, duals, c, eta)
            if rc < -tol:
                found[c] = rc
            info["ilp_objective"] = rc
    if term == "convergenceCriteriaSatisfied":
        if "ilp_objective" not in info:  # not a clique of size eta: should not happen
            return done(False, None, "error")
        return done(True, min(ub, info["ilp_objective"]), "optimal")
    if term in ("provenInfeasible", "infeasibleOrUnbounded"):
        # every clique of the reduced graph is forbidden: the bound is the minimum
        return done(ub_cluster is not None, ub if ub_cluster is not None else None, "optimal")
    if term == "maxTimeLimit":
        return done(False, None, "time_limit")
    return done(False, None, "error")


def _triangle_rounds(M, solver, kw, clock, nodes, edges, cut_rounds) -> int:
    """Rounds of violated triangle inequalities on the LP relaxation of model
    (14) (its z relaxed to [0, 1] here; the caller makes them binary again).
    Returns the number of cuts added."""
    m = nodes.size
    for z in M.z.values():
        z.domain = pyo.UnitInterval
    n_cuts = 0
    for _ in range(cut_rounds):
        left = clock.remaining()
        res = solver.solve(M, **{**kw, "time_limit": _limit(solver, left)})
        if res.termination_condition.name != "convergenceCriteriaSatisfied":
            break
        res.solution_loader.load_vars()
        Z = np.zeros((m, m))
        val = np.array([M.z[e].value for e in range(edges.shape[0])], dtype=float)
        Z[edges[:, 0], edges[:, 1]] = val
        Z += Z.T
        cuts = _violated_triangles(Z, max_cuts=3 * m)
        if not cuts:
            break
        eid = {(int(i), int(j)): e for e, (i, j) in enumerate(edges.tolist())}

        def zterm(p, q):
            e = eid.get((min(p, q), max(p, q)))
            return 0 if e is None else M.z[e]
        for i, r, j in cuts:
            M.cuts.add(zterm(i, r) + zterm(r, j) - zterm(i, j) <= 1)
        n_cuts += len(cuts)
    return n_cuts
