"""The exact tour's MIP on the chosen solver (``solver=`` / ``--solver``,
mipagg.exact.solvers): CBC finds the same optimal tours as HiGHS, a tour is
proven only when the solver proved its MIP, a missing solver is named."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mipagg
from mipagg.cli import main
from mipagg.errors import SolverError
from mipagg.exact import solvers
from mipagg.tsp import distance_matrix, exact_matrix_tour, exact_path, tour_length

ROOT = Path(__file__).resolve().parents[2]
COMPANIES = ROOT / "instances" / "companies.csv"
KEYS = "surface,employees"

needs_cbc = pytest.mark.skipif(
    shutil.which("cbc") is None,
    reason="CBC is not installed (Debian: apt-get install coinor-cbc); the Pyomo path of "
           "the exact tour is tested with it")


@pytest.fixture
def solver_calls(monkeypatch):
    """The solver names of every Pyomo MIP solve (the HiGHS path makes none)."""
    calls = []
    real = solvers._solve
    monkeypatch.setattr(solvers, "_solve", lambda *a, **kw: calls.append(a[1]) or real(*a, **kw))
    return calls


def _brute_tour(D):
    n = len(D)
    return min(sum(D[t[i], t[(i + 1) % n]] for i in range(n))
               for t in ((0,) + p for p in itertools.permutations(range(1, n))))


@needs_cbc
@settings(max_examples=12, deadline=None)
@given(st.integers(5, 8), st.integers(0, 10_000), st.sampled_from(["normal", "integer"]))
def test_cbc_tour_equals_highs_and_brute_force(n, seed, kind):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) if kind == "normal" else rng.integers(0, 3, (n, 2)) * 1.0
    D = distance_matrix(X)
    # a poor start and 2 neighbours: the MIP must improve, add SECs and price edges
    start = np.arange(n)
    a = exact_matrix_tour(D, initial_tour=start, neighbours=2)
    b = exact_matrix_tour(D, initial_tour=start, neighbours=2, solver="cbc")
    assert a.proven_optimal and b.proven_optimal and b.mip_solves >= 1
    assert b.length == pytest.approx(a.length, abs=1e-9)
    assert b.length == pytest.approx(_brute_tour(D), abs=1e-9)
    assert sorted(b.tour.tolist()) == list(range(n))
    assert tour_length(X, b.tour) == pytest.approx(b.length, abs=1e-9)
    assert all(e.get("solver") == "cbc" for e in b.log if e["phase"] == "mip")


@needs_cbc
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cbc_tour_and_path_equal_highs_on_30_records(seed, solver_calls):
    X = np.random.default_rng(seed).normal(size=(30, 3))
    D = distance_matrix(X)
    a = exact_matrix_tour(D, initial_tour=np.arange(30))
    with solvers.use_solver("cbc"):                       # as --solver does
        b = exact_matrix_tour(D, initial_tour=np.arange(30))
        _, plen, pproven = exact_path(X)
    assert solver_calls and set(solver_calls) == {"cbc"}
    assert a.proven_optimal and b.proven_optimal and pproven
    assert b.length == pytest.approx(a.length, abs=1e-9)
    assert b.lower_bound == pytest.approx(b.length)
    assert plen == pytest.approx(exact_path(X)[1], abs=1e-9)


def test_highs_default_makes_no_pyomo_call(solver_calls):
    X = np.random.default_rng(4).normal(size=(20, 2))
    r = exact_matrix_tour(distance_matrix(X), initial_tour=np.arange(20))
    assert r.proven_optimal and r.mip_solves >= 1 and solver_calls == []


@needs_cbc
def test_unproven_solver_status_leaves_the_tour_unproven(monkeypatch):
    real = solvers._solve

    def stopped(model, name, time_limit, warmstart=False):
        status, has_solution, _, seconds = real(model, name, time_limit, warmstart)
        assert status == "optimal"
        return "time_limit", has_solution, None, seconds     # as if the limit hit first

    monkeypatch.setattr(solvers, "_solve", stopped)
    X = np.random.default_rng(5).normal(size=(15, 2))
    D = distance_matrix(X)
    r = exact_matrix_tour(D, initial_tour=np.arange(15), solver="cbc")
    ref = exact_matrix_tour(D)
    assert not r.proven_optimal and r.status == "time_limit"
    assert r.lower_bound <= ref.length + 1e-9 and r.length >= ref.length - 1e-9
    assert sorted(r.tour.tolist()) == list(range(15))


def test_missing_solver_is_named_for_the_tour():
    X = np.random.default_rng(6).normal(size=(8, 2))
    with pytest.raises(SolverError, match="'nosuchsolver' is not available"):
        exact_matrix_tour(distance_matrix(X), solver="nosuchsolver")
    with pytest.raises(SolverError, match="nosuchsolver"):
        mipagg.microaggregate(X, 3, "tsp-mhm", tour="exact", solver="nosuchsolver")


@needs_cbc
def test_cli_tsp_mhm_exact_tour_on_cbc(capsys, solver_calls):
    args = ["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--method", "tsp-mhm",
            "--tour", "exact", "--json", "--quiet"]
    assert main(args) == 0
    ref = json.loads(capsys.readouterr().out)
    assert solver_calls == []
    assert main(args + ["--solver", "cbc"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert solver_calls and set(solver_calls) == {"cbc"}
    assert out["options"]["solver"] == "cbc" and out["path_proven_optimal"] is True
    assert out["path_length"] == pytest.approx(ref["path_length"], abs=1e-9)
    assert out["il"] == pytest.approx(ref["il"], abs=1e-9)
