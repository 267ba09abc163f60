"""Exact neighbourhood search (POPMUSIC with ``bp`` sub-problems)."""

import json

import numpy as np
import pytest
from _bruteforce import optimal_partition
from hypothesis import given, settings, strategies as st
from test_cli import COMPANIES, KEYS
from test_improve import partitions

from mipagg.api import microaggregate
from mipagg.cli import main
from mipagg.errors import ParameterError
from mipagg.exact.neighbourhood import exact_neighbourhood_search
from mipagg.heuristics.mdav import mdav
from mipagg.improve import IMPROVERS, improve_partition
from mipagg.partition import Partition, group_sse


def _sse(X, labels):
    return sum(group_sse(X, np.flatnonzero(labels == g)) for g in np.unique(labels))


@settings(max_examples=25, deadline=None)
@given(partitions(max_n=12), st.integers(0, 3))
def test_whole_instance_neighbourhood_reaches_the_brute_force_optimum(data, seed):
    X, k, P = data
    # groups = n covers every group, also after groups of 2k or more are split
    r = exact_neighbourhood_search(X, P, k, groups=X.shape[0], seed=seed)
    best, _ = optimal_partition(X, k)
    assert r.partition.is_feasible(k)
    assert r.partition.sse() == pytest.approx(_sse(X, r.partition.labels), abs=1e-9)
    assert r.partition.sse() == pytest.approx(best, abs=1e-7)
    assert r.converged and r.unproven == 0 and not r.time_limited
    if P.sse() <= best + 1e-9:
        assert r.improved == 0      # no move without a gain
    assert r.improved <= r.solved


@settings(max_examples=25, deadline=None)
@given(partitions(max_n=30), st.integers(2, 3), st.integers(0, 3))
def test_small_neighbourhoods_never_worse_and_feasible(data, groups, seed):
    X, k, P = data
    r = exact_neighbourhood_search(X, P, k, groups=groups, seed=seed)
    assert r.partition.is_feasible(k) and r.partition.sizes.max() < 2 * k
    assert r.partition.sse() <= P.sse() + 1e-9
    assert r.partition.sse() == pytest.approx(_sse(X, r.partition.labels), abs=1e-9)
    assert r.converged and r.solved >= Partition(P.labels, X).n_groups
    sses = [s for _, s in r.history]
    assert all(b < a for a, b in zip(sses, sses[1:]))     # each accepted move gains


def test_interleaved_pairs_are_untangled():
    X = np.array([[0.], [1.], [2.], [3.], [10.], [11.], [12.], [13.]])
    r = exact_neighbourhood_search(X, [0, 1, 0, 1, 2, 3, 2, 3], 2, groups=2, seed=0)
    assert r.partition.labels.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert r.improved >= 1 and r.partition.sse() == pytest.approx(4 * 0.5)


def test_seeded_runs_repeat_and_time_limit_returns_the_input(census):
    X = census.X[:120]
    start = mdav(X, 4)
    a = exact_neighbourhood_search(X, start, 4, groups=4, seed=7)
    b = exact_neighbourhood_search(X, start, 4, groups=4, seed=7)
    assert a.partition.labels.tolist() == b.partition.labels.tolist()
    assert a.solved == b.solved and a.improved == b.improved
    assert a.partition.sse() < start.sse()          # MDAV is not locally optimal here
    stopped = exact_neighbourhood_search(X, start, 4, groups=4, seed=7, time_limit=1e-9)
    assert stopped.time_limited and not stopped.converged and stopped.solved == 0
    assert stopped.partition.sse() <= start.sse()
    one = exact_neighbourhood_search(X, start, 4, groups=4, seed=7, max_solves=1)
    assert one.solved == 1 and not one.converged


def test_improve_exact_through_the_api_and_its_errors(companies):
    assert "exact" in IMPROVERS
    r = microaggregate(companies, 3, "mdav", improve="exact", seed=0,
                       improve_options={"groups": 11, "time_limit": 30})
    assert r.details["improve"] == "exact" and r.partition.is_feasible(3)
    assert r.partition.sse() <= r.details["sse_before_improve"] + 1e-9
    # groups = 11 covers every group of the 11 companies: the optimum (seed 004 Example 1)
    assert r.partition.sse() / r.partition.sst() == pytest.approx(0.34, abs=5e-3)
    for bad in ({"groups": 1}, {"time_limit": 0}, {"move_time": -1.0}, {"threads": 2}):
        with pytest.raises(ParameterError):
            microaggregate(companies, 3, "mdav", improve="exact", improve_options=bad)
    with pytest.raises(ParameterError):
        improve_partition(companies.X, mdav(companies.X, 3), 3, how="exact", groups=True)


def test_command_line_improve_exact(capsys):
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--improve", "exact",
                 "--improve-time", "20", "--json", "--quiet"])
    out, err = capsys.readouterr()
    s = json.loads(out)
    assert code == 0 and s["improve"] == "exact"
    assert s["options"]["improve_options"] == {"time_limit": 20.0}
    assert s["sse"] <= s["sse_before_improve"] + 1e-9
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--improve", "local",
                 "--improve-time", "20", "--json"])    # bounds every improvement (issue 20)
    assert code == 0 and json.loads(capsys.readouterr().out)["improve_time_limited"] is False
