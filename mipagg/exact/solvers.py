"""MIP solver choice: HiGHS directly (default) or any solver Pyomo drives.

``solver="highs"`` (the default) is the direct highspy path of
:func:`~mipagg.exact.master.set_partitioning_mip` and Pyomo's HiGHS
interface for the ILP pricing, unchanged.  Any other name (``cbc``,
``glpk``, ``scip``, ``gurobi``, ``cplex``, or any name Pyomo's
``SolverFactory`` knows) routes

* the integer set-partitioning master (model (9) of seed 001 with integral
  x: gap closing in ``cg`` and ``bp``, the price-and-branch MIP over the
  column pool of ``bp``), and
* the ILP pricing (model (14) of seed 001, ``pricing="ilp"``), and
* the integer DFJ model of the exact TSP tour (:mod:`mipagg.tsp.exact`,
  ``tour="exact"``) through :func:`pyomo_binary_mip`

through Pyomo to that solver.  The LP relaxations (of the master, solved
thousands of times with warm starts and column additions, and of the tour's
cutting-plane and edge-pricing phase) stay on HiGHS (highspy).

The choice is process-wide for the duration of one call (:func:`use_solver`,
entered by :func:`mipagg.microaggregate`, :func:`mipagg.certify`, the grid
runner and ``--solver`` on the command line); a name that is not installed
raises :class:`~mipagg.errors.SolverError` naming it.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np

from ..errors import ParameterError, SolverError

__all__ = ["KNOWN_SOLVERS", "current_solver", "use_solver", "check_solver",
           "available_solvers", "pyomo_set_partitioning_mip", "pyomo_binary_mip",
           "PyomoPricingSolver"]

DEFAULT = "highs"
KNOWN_SOLVERS = ("highs", "cbc", "glpk", "scip", "gurobi", "cplex")
# Pyomo SolverFactory names, and the option name of the time limit per solver
_FACTORY = {"gurobi": "gurobi", "cplex": "cplex", "cbc": "cbc", "glpk": "glpk", "scip": "scip"}
_TIME_OPTION = {"cbc": "seconds", "glpk": "tmlim", "scip": "limits/time",
                "gurobi": "TimeLimit", "cplex": "timelimit"}
_NODE_OPTION = {"cbc": "maxNodes", "scip": "limits/nodes", "gurobi": "NodeLimit",
                "cplex": "mip_limits_nodes"}        # glpk has none: it runs to the end
_GAP_OPTION = {"cbc": ("ratioGap", 0.0), "scip": ("limits/gap", 0.0),
               "gurobi": ("MIPGap", 0.0), "cplex": ("mipgap", 0.0), "glpk": ("mipgap", 0.0)}

_current = DEFAULT


def current_solver() -> str:
    """The solver of the MIPs of the running call ("highs" by default)."""
    return _current


def _factory(name: str):
    import logging

    import pyomo.environ as pyo

    logging.getLogger("pyomo.solvers").setLevel(logging.ERROR)
    return pyo.SolverFactory(_FACTORY.get(name, name))


def check_solver(name) -> str:
    """``name`` normalized, or :class:`SolverError` if Pyomo cannot run it here."""
    if name is None:
        return DEFAULT
    if not isinstance(name, str) or not name.strip():
        raise ParameterError(f"solver must be a solver name such as {', '.join(KNOWN_SOLVERS)}, "
                             f"got {name!r}")
    name = name.strip().lower()
    if name == DEFAULT:
        return name
    try:
        ok = bool(_factory(name).available(exception_flag=False))
    except Exception:
        ok = False
    if not ok:
        hint = " (Debian: apt-get install coinor-cbc)" if name == "cbc" else ""
        raise SolverError(f"MIP solver {name!r} is not available to Pyomo on this machine"
                          f"{hint}; installed: {', '.join(available_solvers())}")
    return name


def available_solvers() -> list[str]:
    """The :data:`KNOWN_SOLVERS` Pyomo can run here (``highs`` always)."""
    out = [DEFAULT]
    for name in KNOWN_SOLVERS[1:]:
        try:
            if _factory(name).available(exception_flag=False):
                out.append(name)
        except Exception:
            pass
    return out


@contextlib.contextmanager
def use_solver(name):
    """Run the MIPs of the enclosed call on ``name`` (checked first)."""
    global _current
    name = check_solver(name)
    previous, _current = _current, name
    try:
        yield name
    finally:
        _current = previous


def _options(name: str, time_limit, node_limit=None) -> dict:
    opts: dict = {}
    if node_limit is not None and name in _NODE_OPTION:
        opts[_NODE_OPTION[name]] = max(int(node_limit), 1)
    if name in _GAP_OPTION:
        key, value = _GAP_OPTION[name]
        opts[key] = value
    if time_limit is not None and name in _TIME_OPTION:
        limit = max(float(time_limit), 1.0 if name in ("cbc", "glpk") else 1e-3)
        opts[_TIME_OPTION[name]] = int(np.ceil(limit)) if name in ("glpk",) else limit
    if name == "glpk" and "tmlim" in opts:
        opts["tmlim"] = int(opts["tmlim"])
    return opts


def _solve(model, name: str, time_limit, warmstart: bool = False, node_limit=None):
    """Solve ``model`` on ``name``: (status, has_solution, proven bound, seconds)."""
    import subprocess

    from pyomo.common.tempfiles import TempfileManager
    from pyomo.opt import TerminationCondition as TC

    opt = _factory(name)
    kw = {}
    if warmstart and getattr(opt, "warm_start_capable", lambda: False)():
        kw["warmstart"] = True       # the variables' current values (CBC, Gurobi, CPLEX)
    if time_limit is not None:
        # the solvers' own limits are not checked in every phase (CBC overran a
        # 29-s limit by minutes in its root LP of 200 000 columns): a wall-clock
        # limit on the solver process as well (Pyomo adds a small margin)
        kw["timelimit"] = max(float(time_limit), 1.0) + 1.0
    t0 = time.perf_counter()
    depth = len(getattr(TempfileManager, "_context_stack", ()))
    try:
        res = opt.solve(model, load_solutions=False,
                        options=_options(name, time_limit, node_limit), **kw)
    except subprocess.TimeoutExpired:
        while len(getattr(TempfileManager, "_context_stack", ())) > depth:
            TempfileManager.pop(remove=True)       # Pyomo leaves its files on this path
        return "time_limit", False, None, time.perf_counter() - t0
    seconds = time.perf_counter() - t0
    term = res.solver.termination_condition
    status = {TC.optimal: "optimal", TC.infeasible: "infeasible",
              TC.maxTimeLimit: "time_limit", TC.maxEvaluations: "node_limit"}.get(term, str(term))
    has_solution = len(res.solution) > 0 and status != "infeasible"
    if has_solution:      # (a time-limited solve is "aborted" for Pyomo: no warning)
        import logging

        log = logging.getLogger("pyomo.core")
        level = log.level
        log.setLevel(logging.ERROR)
        try:
            model.solutions.load_from(res)
        finally:
            log.setLevel(level)
    # a proven bound is taken from an optimal solve only: the lower bounds other
    # solvers report on a time limit are not parsed uniformly by Pyomo, and a
    # missing bound only weakens a certificate, a wrong one would void it
    bound = None
    if status == "optimal" and has_solution:
        bound = float(pyo_value(model.obj))
    return status, has_solution, bound, seconds


def pyomo_set_partitioning_mip(n: int, columns, weights, *, time_limit=None, node_limit=None,
                               start=None, info: dict | None = None,
                               solver: str | None = None, cuts=()):
    """:func:`~mipagg.exact.master.set_partitioning_mip` on ``solver`` through
    Pyomo: min Σ w_j x_j, Σ_{j ∋ i} x_j = 1 for every record i, x binary.
    Same return value ``(status, value, chosen)``; ``start`` (column indices
    of a partition) is passed as a warm start to solvers that take one;
    ``cuts`` become rows ≤ 1 as there."""
    import pyomo.environ as pyo

    from .cuts import cut_matrix

    name = solver or current_solver()
    m = len(columns)
    M = pyo.ConcreteModel()
    M.J = pyo.RangeSet(0, m - 1)
    M.x = pyo.Var(M.J, domain=pyo.Binary)
    covering = [[] for _ in range(n)]
    for j, c in enumerate(columns):
        for i in np.asarray(c, dtype=int).tolist():
            covering[i].append(j)
    if any(not cov for cov in covering):
        return "infeasible", None, None
    M.obj = pyo.Objective(expr=sum(float(w) * M.x[j] for j, w in enumerate(weights)))
    M.cover = pyo.Constraint(pyo.RangeSet(0, n - 1),
                             rule=lambda M, i: sum(M.x[j] for j in covering[i]) == 1)
    A = cut_matrix(columns, cuts, n)
    M.cut = pyo.Constraint(pyo.RangeSet(0, A.shape[0] - 1), rule=lambda M, s: sum(
        float(a) * M.x[int(j)] for j, a in zip(A.indices[A.indptr[s]:A.indptr[s + 1]],
                                                 A.data[A.indptr[s]:A.indptr[s + 1]])) <= 1)
    if start is not None:
        chosen0 = set(np.asarray(start, dtype=int).tolist())
        for j in range(m):
            M.x[j].value = 1.0 if j in chosen0 else 0.0
    status, has_solution, bound, seconds = _solve(M, name, time_limit,
                                                  warmstart=start is not None,
                                                  node_limit=node_limit)
    if info is not None:
        info["seconds"] = seconds
        info["dual_bound"] = bound if bound is not None else -np.inf
        info["solver"] = name
    if not has_solution:
        return status, None, None
    x = np.array([M.x[j].value or 0.0 for j in range(m)])
    chosen = np.flatnonzero(x > 0.5)
    return status, float(np.asarray(weights, dtype=float)[chosen].sum()), chosen


def pyomo_binary_mip(cost, rows, *, start=None, time_limit=None, solver: str | None = None):
    """min c·x over binary x subject to 0/1 rows ``lo ≤ Σ_{j ∈ cols} x_j ≤ hi``
    (``rows``: ``(cols, lo, hi)``, ``None`` for no bound) on ``solver`` through
    Pyomo; ``start`` (0/1 vector) is a warm start where the solver takes one.
    Returns ``(status, x, dual_bound, seconds)``: ``x`` is None without a
    solution, ``dual_bound`` only when the solver proved optimality."""
    import pyomo.environ as pyo

    name = solver or current_solver()
    cost = np.asarray(cost, dtype=float)
    m = cost.size
    M = pyo.ConcreteModel()
    M.J = pyo.RangeSet(0, m - 1)
    M.x = pyo.Var(M.J, domain=pyo.Binary)
    M.obj = pyo.Objective(expr=sum(float(c) * M.x[j] for j, c in enumerate(cost)))
    rows = [(np.asarray(c, dtype=int).tolist(), lo, hi) for c, lo, hi in rows]
    for c, lo, hi in rows:
        if not c and ((lo is not None and lo > 0) or (hi is not None and hi < 0)):
            return "infeasible", None, None, 0.0
    rows = [r for r in rows if r[0]]
    M.rows = pyo.Constraint(pyo.RangeSet(0, len(rows) - 1), rule=lambda M, r: (
        None if rows[r][1] is None else float(rows[r][1]),
        sum(M.x[j] for j in rows[r][0]),
        None if rows[r][2] is None else float(rows[r][2])))
    if start is not None:
        for j, v in enumerate(np.asarray(start, dtype=float).tolist()):
            M.x[j].value = 1.0 if v > 0.5 else 0.0
    status, has_solution, bound, seconds = _solve(M, name, time_limit,
                                                  warmstart=start is not None)
    if not has_solution:
        return status, None, None, seconds
    x = np.array([M.x[j].value or 0.0 for j in range(m)])
    return status, x, bound, seconds


class _Termination:
    def __init__(self, name):
        self.name = name


class _Loader:
    def load_vars(self):      # the solution is loaded into the model by _solve
        return None


class _Results:
    def __init__(self, status, has_solution, model):
        self.termination_condition = _Termination(
            {"optimal": "convergenceCriteriaSatisfied", "infeasible": "provenInfeasible",
             "time_limit": "maxTimeLimit"}.get(status, status))
        self.incumbent_objective = pyo_value(model.obj) if has_solution else None
        self.solution_loader = _Loader()


def pyo_value(obj):
    import pyomo.environ as pyo

    try:
        return float(pyo.value(obj))
    except (ValueError, TypeError):
        return None


class PyomoPricingSolver:
    """The small part of Pyomo's persistent HiGHS interface the ILP pricing
    uses (``set_instance``, ``solve``), for any other solver."""

    def __init__(self, name: str):
        self.name = name

    def set_instance(self, model) -> None:
        return None

    def solve(self, model, *, time_limit=None, **_):
        status, has_solution, _, _ = _solve(model, self.name, time_limit)
        return _Results(status, has_solution, model)
