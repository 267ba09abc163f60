"""MIP solver choice (mipagg.exact.solvers): HiGHS by default, any solver
Pyomo drives otherwise (tested with CBC, skipped when it is not installed),
the same optima; a missing solver is a clear error naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from _bruteforce import optimal_partition
from hypothesis import given, settings, strategies as st

import mipagg
from mipagg.cli import main
from mipagg.errors import SolverError
from mipagg.exact import solvers
from mipagg.exact.master import cluster_weight, set_partitioning_mip, squared_distances
from mipagg.exact.pricing.ilp import ilp_pricing

ROOT = Path(__file__).resolve().parents[2]
COMPANIES = ROOT / "instances" / "companies.csv"
KEYS = "surface,employees"

needs_cbc = pytest.mark.skipif(
    shutil.which("cbc") is None,
    reason="CBC is not installed (Debian: apt-get install coinor-cbc); the Pyomo path is "
           "tested with it")


def test_missing_solver_is_named(capsys):
    with pytest.raises(SolverError, match="'nosuchsolver' is not available"):
        solvers.check_solver("nosuchsolver")
    with pytest.raises(SolverError, match="nosuchsolver"):
        mipagg.microaggregate(np.arange(6.0)[:, None], 3, "cg", solver="nosuchsolver")
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--method", "bp",
                 "--solver", "nosuchsolver", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "'nosuchsolver'" in err and len(err.strip().splitlines()) == 1
    assert solvers.current_solver() == "highs"          # restored after the error


def test_highs_is_the_default_and_always_available():
    assert solvers.check_solver(None) == "highs" and "highs" in solvers.available_solvers()
    with solvers.use_solver("HiGHS"):
        assert solvers.current_solver() == "highs"


@st.composite
def column_sets(draw):
    n = draw(st.integers(3, 9))
    rng = np.random.default_rng(draw(st.integers(0, 10_000)))
    X = rng.normal(size=(n, 2))
    D = squared_distances(X)
    cols = [tuple(sorted(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)))
            for _ in range(draw(st.integers(3, 25)))]
    cols += [(i,) for i in range(n) if draw(st.booleans())]       # sometimes infeasible
    cols = list(dict.fromkeys(cols))
    return n, [np.asarray(c) for c in cols], [cluster_weight(D, c) + 0.1 for c in cols]


@needs_cbc
@settings(max_examples=15, deadline=None)
@given(column_sets())
def test_cbc_integer_master_equals_highs(case):
    n, cols, w = case
    ref = set_partitioning_mip(n, cols, w)
    with solvers.use_solver("cbc"):
        got = set_partitioning_mip(n, cols, w)
    assert got[0] == ref[0]
    if ref[0] == "optimal":
        assert got[1] == pytest.approx(ref[1], abs=1e-7)
        assert sum(w[j] for j in got[2]) == pytest.approx(ref[1], abs=1e-7)
        covered = np.concatenate([cols[j] for j in got[2]])
        assert sorted(covered.tolist()) == list(range(n))


def _needs_branching():
    """A set-partitioning MIP that HiGHS does not solve at its root node."""
    rng = np.random.default_rng(28)
    n = 24
    cols = [np.sort(rng.choice(n, size=rng.integers(2, 5), replace=False)) for _ in range(300)]
    cols += [np.array([i]) for i in range(n)]
    return n, cols, [len(c) + 2 * rng.random() if len(c) > 1 else 10.0 for c in cols]


@pytest.mark.parametrize("solver", ["highs", pytest.param("cbc", marks=needs_cbc)])
def test_node_limit_counts_nodes(solver):
    """A node budget (bp's pool MIP without a time limit) stops the MIP with
    status "node_limit" and a feasible partition no better than the optimum."""
    n, cols, w = _needs_branching()
    ref = set_partitioning_mip(n, cols, w)
    with solvers.use_solver(solver):
        cut = set_partitioning_mip(n, cols, w, node_limit=1)
        full = set_partitioning_mip(n, cols, w, node_limit=10_000)
    assert ref[0] == "optimal" and cut[0] == "node_limit"
    assert cut[1] >= ref[1] - 1e-7
    assert sorted(np.concatenate([cols[j] for j in cut[2]]).tolist()) == list(range(n))
    assert full[0] == "optimal" and full[1] == pytest.approx(ref[1], abs=1e-7)


@needs_cbc
def test_cbc_integer_master_with_cut_rows_equals_highs():
    """Rank-1 cut rows (gap closing passes the master's cuts) on the Pyomo
    path: the same optimum as HiGHS with and without them."""
    n, cols, w = _needs_branching()
    rng = np.random.default_rng(3)
    cuts = [tuple(rng.permutation(n)[:3].tolist()) for _ in range(40)]
    ref = set_partitioning_mip(n, cols, w)
    with solvers.use_solver("cbc"):
        got = set_partitioning_mip(n, cols, w, cuts=cuts)
    assert got[0] == ref[0] == "optimal"
    assert got[1] == pytest.approx(ref[1], abs=1e-7)
    assert set_partitioning_mip(n, cols, w, cuts=cuts)[1] == pytest.approx(ref[1], abs=1e-7)


@needs_cbc
def test_cbc_takes_a_warm_start():
    X = np.random.default_rng(8).normal(size=(8, 2))
    D = squared_distances(X)
    cols = [np.array([i, j]) for i in range(8) for j in range(i + 1, 8)]
    cols += [np.array([0, 1, 2, 3]), np.array([4, 5, 6, 7])]
    w = [cluster_weight(D, c) for c in cols]
    ref = set_partitioning_mip(8, cols, w)
    with solvers.use_solver("cbc"):
        got = set_partitioning_mip(8, cols, w, start=[len(cols) - 2, len(cols) - 1])
    assert got[0] == "optimal" and got[1] == pytest.approx(ref[1], abs=1e-9)


@needs_cbc
@pytest.mark.parametrize("eta", [2, 3, 4])
def test_cbc_ilp_pricing_equals_highs(eta):
    rng = np.random.default_rng(eta)
    X = rng.normal(size=(14, 2))
    D = squared_distances(X)
    duals = rng.uniform(0.5, 2.0, size=14)
    ref = ilp_pricing(D, duals, eta, reduce=False)
    with solvers.use_solver("cbc"):
        got = ilp_pricing(D, duals, eta, reduce=False)
    assert ref.exact and got.exact
    assert got.min_reduced_cost == pytest.approx(ref.min_reduced_cost, abs=1e-7)


@needs_cbc
def test_cbc_runs_the_pricing_and_gap_closing_of_cg(monkeypatch):
    calls = []
    real = solvers._solve
    monkeypatch.setattr(solvers, "_solve", lambda *a, **kw: calls.append(a[1]) or real(*a, **kw))
    X = np.random.default_rng(3).normal(size=(11, 2))
    inst = mipagg.from_array(X)
    opt, _ = optimal_partition(inst.X, 3)
    r = mipagg.microaggregate(inst, 3, "cg", pricing="ilp", solver="cbc")
    assert calls and set(calls) == {"cbc"}
    assert r.options["solver"] == "cbc"
    assert r.raw.lower_bound <= opt + 1e-7 and r.partition.sse() >= opt - 1e-9
    c = mipagg.certify(inst, r.labels, 3, time_limit=20, solver="cbc")
    assert c.lower_bound <= opt + 1e-7


@needs_cbc
def test_cli_solver_cbc(capsys):
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--method", "bp",
                 "--solver", "cbc", "--json", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "optimal" and out["options"]["solver"] == "cbc"
    assert out["il"] == pytest.approx(34.02, abs=0.01)     # seed 004 Example 1


@needs_cbc
@pytest.mark.slow
@pytest.mark.parametrize("start,k", [(0, 3), (60, 3), (0, 5)])   # MIPs run on these
def test_bp_same_optimum_with_highs_and_cbc_on_census_blocks(census, start, k):
    X = census.subset(range(start, start + 60)).X
    a = mipagg.microaggregate(X, k, "bp", time_limit=600)
    b = mipagg.microaggregate(X, k, "bp", time_limit=600, solver="cbc")
    assert a.raw.status == b.raw.status == "optimal"
    assert a.partition.sse() == pytest.approx(b.partition.sse(), rel=1e-9)


def test_a_solver_process_past_its_wall_clock_limit_is_a_time_limit(monkeypatch):
    import subprocess

    from pyomo.common.tempfiles import TempfileManager

    class Stuck:
        def solve(self, model, **kw):
            assert kw["timelimit"] >= 5.0          # the solver's limit plus a margin
            TempfileManager.push()                 # as Pyomo's shell solvers do
            raise subprocess.TimeoutExpired("cbc", kw["timelimit"])

    monkeypatch.setattr(solvers, "_factory", lambda name: Stuck())
    depth = len(TempfileManager._context_stack)
    status, value, chosen = solvers.pyomo_set_partitioning_mip(
        2, [np.array([0, 1])], [1.0], time_limit=4.0, solver="cbc")
    assert (status, value, chosen) == ("time_limit", None, None)
    assert len(TempfileManager._context_stack) == depth
