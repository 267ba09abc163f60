"""Tests of the portfolio (mipagg.portfolio): feasibility, never worse than
the methods it ran, budget, reproducibility, certified bounds, progress."""

import json

import numpy as np
import pytest

from mipagg.api import microaggregate
from mipagg.errors import ParameterError
from mipagg.heuristics.paths import mdav_mhm
from mipagg.heuristics.vmdav import vmdav
from mipagg.methods import METHODS, MethodSpec
from mipagg.portfolio import PORTFOLIO_METHODS, portfolio
from mipagg.tsp_micro import compress, hm2_micro, mdav_lk_mhm


def data(n, p=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, p))


@pytest.fixture(scope="module")
def small_run():
    X = data(60, seed=4)
    return X, portfolio(X, 3, time_limit=120, seed=2)


def test_feasible_json_and_never_worse_than_its_runs(small_run):
    X, r = small_run
    P = r.partition
    assert P.is_feasible(3) and P.sizes.max() <= 5
    s = json.loads(json.dumps(r.summary()))
    assert s["best_sse"] == pytest.approx(P.sse())
    methods = {row["method"] for row in s["runs"]}
    assert {"mdav-mhm", "vmdav", "mdav-lk-mhm", "compress", "tsp-mhm", "bp"} <= methods
    assert all(row["status"] == "ok" for row in s["runs"])
    for row in s["runs"]:
        assert P.sse() <= row["sse_improved"] + 1e-9 <= row["sse"] + 2e-9
    # the same runs made directly, with the seeds the table records
    direct = [mdav_mhm(X, 3), vmdav(X, 3, gamma=0.2), mdav_lk_mhm(X, 3).partition]
    for row in s["runs"]:
        if row["method"] == "compress":
            direct.append(compress(X, 3, c=row["options"]["c"], tour=row["options"]["tour"],
                                   seed=row["seed"]).partition)
        elif row["method"] == "tsp-mhm":
            direct.append(hm2_micro(X, 3, tour=row["options"]["tour"], seed=row["seed"]).partition)
    assert len(direct) == sum(row["method"] not in ("cg", "bp") for row in s["runs"])
    assert P.sse() <= min(d.sse() for d in direct) + 1e-9
    for row, d in zip([r_ for r_ in s["runs"] if r_["method"] not in ("cg", "bp")], direct):
        assert row["sse"] == pytest.approx(d.sse(), rel=1e-12)


def test_certified_bound_below_sse(small_run):
    _, r = small_run
    s = r.summary()
    assert r.lower_bound is not None          # 60 records, k = 3: bp certifies quickly
    assert r.lower_bound <= r.partition.sse() + 1e-6 * r.partition.sse()
    assert s["gap"] >= -1e-6 and s["status"] in ("optimal", "converged", "time_limit")
    assert s["bound_method"] == "bp"             # registered: bp replaces cg by default
    bp_rows = [row for row in s["runs"] if row["method"] == "bp"]
    assert bp_rows[0]["options"]["initial"] is True
    assert bp_rows[0]["lower_bound"] == pytest.approx(r.lower_bound)


def test_seed_reproducibility(small_run):
    X, r = small_run
    assert not r.time_limited, r.skipped      # nothing cut: the run is deterministic
    again = portfolio(X, 3, time_limit=120, seed=2)
    assert np.array_equal(r.partition.labels, again.partition.labels)
    assert [(x.method, x.seed, x.sse, x.sse_improved) for x in r.runs] == \
        [(x.method, x.seed, x.sse, x.sse_improved) for x in again.runs]
    other = portfolio(X, 3, time_limit=30, seed=3, methods=["tsp-mhm"])
    assert [x.seed for x in other.runs] != [x.seed for x in r.runs if x.method == "tsp-mhm"]


def test_budget_respected_on_a_small_instance():
    """400 records, 3 s: the heuristics, searches and column generation are
    cut by the clock, which the summary records."""
    X = data(400, p=5, seed=1)
    r = portfolio(X, 3, time_limit=3.0, seed=0)
    s = r.summary()["budget"]
    assert r.seconds <= 3.0 + 2.0
    assert s["time_limit"] == 3.0 and s["time_limited"]
    assert r.partition.is_feasible(3) and r.partition.sizes.max() <= 5


def test_methods_subset_and_validation():
    X = data(30, seed=5)
    r = portfolio(X, 4, time_limit=10, methods=["mdav-mhm", "vmdav"])
    assert {x.method for x in r.runs} == {"mdav-mhm", "vmdav"}
    assert r.lower_bound is None and "lower_bound" not in r.summary()
    assert r.partition.sse() <= min(mdav_mhm(X, 4).sse(), vmdav(X, 4).sse()) + 1e-12
    assert "bp" in PORTFOLIO_METHODS          # dropped silently while not registered
    if "bp" not in METHODS:
        assert all(x.method != "bp" for x in portfolio(X, 4, time_limit=5,
                                                       methods=["vmdav", "bp"]).runs)
    for bad in (["mdav"], [], "anneal"):
        with pytest.raises(ParameterError):
            portfolio(X, 4, methods=bad)
    for bad in (0, -1.0, float("inf"), "60"):
        with pytest.raises(ParameterError):
            portfolio(X, 4, time_limit=bad)
    with pytest.raises(ParameterError):
        portfolio(X, 4, seed=-1)


def test_duplicates_and_tiny_instances():
    X = np.repeat(data(4, p=2, seed=6), 6, axis=0)       # 24 rows, 4 distinct points
    r = portfolio(X, 3, time_limit=10, seed=0)
    assert r.partition.is_feasible(3) and r.partition.sse() == pytest.approx(0.0, abs=1e-9)
    # SSE 0 is optimal (bound 0): everything after the first run is skipped
    assert (r.status, r.bound_method, r.lower_bound) == ("optimal", "trivial", 0.0)
    assert [x.method for x in r.runs] == ["mdav-mhm"] and r.seconds < 5
    for n in (3, 5):                                      # one group only: optimal
        r = portfolio(data(n, seed=n), 3, time_limit=5, seed=0)
        assert r.partition.n_groups == 1 and r.status == "optimal" and len(r.runs) == 1


def test_branch_and_price_slot_gets_initial_and_its_bound(monkeypatch):
    """When a ``bp`` method is registered it runs after cg with the best
    partition as ``initial``; its certified bound is used.  Stand-in: column
    generation registered as ``bp``."""
    monkeypatch.setitem(METHODS, "bp", MethodSpec("bp", "mipagg.exact.colgen:column_generation",
                                                 "stand-in", "test"))
    X = data(45, seed=9)
    r = portfolio(X, 3, time_limit=20, seed=0, methods=["vmdav", "tsp-mhm", "bp"])
    rows = [x for x in r.runs if x.method == "bp"]
    assert len(rows) == 1 and rows[0].options["initial"] is True
    assert rows[0].details["lower_bound"] is not None
    assert r.bound_method == "bp" and r.lower_bound <= r.partition.sse() * (1 + 1e-6)


def test_api_and_registry():
    X = data(40, seed=7)
    res = microaggregate(X, 3, "portfolio", time_limit=10, seed=1, methods=["mdav-mhm", "tsp-mhm"])
    s = res.summary()
    json.dumps(s)
    assert s["best_method"].split(" + ")[0] in ("mdav-mhm", "tsp-mhm")
    assert res.partition.is_feasible(3)
    assert set(METHODS["portfolio"].options()) >= {"time_limit", "seed", "methods", "verbose"}


def test_verbose_lines_on_stderr_only(capsys, monkeypatch):
    from mipagg.progress import Progress

    X = data(30, seed=8)
    portfolio(X, 3, time_limit=5, methods=["mdav-mhm", "vmdav"])
    assert capsys.readouterr() == ("", "")
    monkeypatch.setitem(Progress.__init__.__kwdefaults__, "every", 0.0)
    portfolio(X, 3, time_limit=5, methods=["mdav-mhm", "vmdav"], verbose=True)
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert lines and all(line.startswith("[portfolio ") for line in lines)
    assert any("stage vmdav" in line and "best_il" in line for line in lines)
    assert "stage done" in lines[-1]


@pytest.mark.data
def test_census_short_budget_beats_mdav(census):
    """Census, k = 5, 8 s: below MDAV-MHM and V-MDAV after post-processing
    and within the budget (plus one uninterruptible step)."""
    X = census.X
    r = portfolio(X, 5, time_limit=8.0, seed=0, methods=["mdav-mhm", "vmdav", "mdav-lk-mhm"])
    assert r.seconds <= 8.0 + 3.0
    assert r.partition.il() < 8.1     # MDAV-MHM 9.07, V-MDAV 8.88 before post-processing
    assert r.partition.sizes.max() <= 9
