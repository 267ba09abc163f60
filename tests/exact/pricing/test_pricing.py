"""Pricing subproblems (seed 001 sections 4.2 and 5.1): the three modes against
itertools enumeration, column invariants, forbidden clusters, time limits."""

import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mipagg.errors import DataError, ParameterError
from mipagg.exact.pricing import exact_mode, price, reduced_cost, squared_distances
from mipagg.exact.pricing.enumeration import enumerate_reference
from mipagg.exact.pricing.heuristic import greedy_cluster, heuristic_pricing


@st.composite
def pricing_instances(draw, n_max=10, eta_max=5):
    n = draw(st.integers(3, n_max))
    p = draw(st.integers(1, 3))
    eta = draw(st.integers(2, min(n, eta_max)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # small integer grid: duplicate records and tied distances are common
    X = rng.integers(-3, 4, size=(n, p)).astype(float)
    scale = draw(st.sampled_from([0.0, 0.5, 2.0, 8.0]))
    duals = np.round(rng.normal(scale, 1.0 + scale, size=n), 2)
    return squared_distances(X), duals, eta


def check_columns(D, duals, eta, res, tol=1e-9):
    """Columns are sorted, of size eta, distinct, with the stated negative costs."""
    seen = set()
    assert len(res.columns) == len(res.reduced_costs)
    for c, v in zip(res.columns, res.reduced_costs):
        assert c.shape == (eta,) and np.all(np.diff(c) > 0)
        assert 0 <= c[0] and c[-1] < D.shape[0]
        assert v < -tol
        assert v == pytest.approx(reduced_cost(D, duals, c, eta), abs=1e-9)
        seen.add(tuple(c.tolist()))
    assert len(seen) == len(res.columns)
    assert res.reduced_costs == sorted(res.reduced_costs)


def test_reduced_cost_formula():
    X = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 4.0]])
    D = squared_distances(X)
    # edges 25 + 16 + 9 = 50, divided by eta = 3; minus the duals
    assert reduced_cost(D, [1.0, 2.0, 3.0], [0, 1, 2], 3) == pytest.approx(50 / 3 - 6)


@settings(max_examples=40, deadline=None)
@given(pricing_instances())
def test_enumeration_matches_itertools(inst):
    D, duals, eta = inst
    clusters, costs = enumerate_reference(D, duals, eta)
    res = price(D, duals, eta, "enumeration", max_columns=4)
    assert res.exact and res.status == "optimal"
    assert res.min_reduced_cost == pytest.approx(costs.min(), abs=1e-9)
    check_columns(D, duals, eta, res)
    # the columns are the max_columns best negative clusters
    best = np.sort(costs[costs < -1e-9])[:4]
    assert np.allclose(res.reduced_costs, best, atol=1e-9)


@settings(max_examples=15, deadline=None)
@given(pricing_instances(n_max=8, eta_max=4), st.booleans())
def test_ilp_matches_itertools(inst, triangle_cuts):
    D, duals, eta = inst
    _, costs = enumerate_reference(D, duals, eta)
    res = price(D, duals, eta, "ilp", triangle_cuts=triangle_cuts)
    assert res.exact and res.status == "optimal"
    assert res.min_reduced_cost == pytest.approx(costs.min(), abs=1e-7)
    check_columns(D, duals, eta, res)


@pytest.mark.parametrize("formulation,reduce", [("paper", False), ("compact", False),
                                                ("nodes", True), ("paper", True)])
def test_ilp_formulations_agree(formulation, reduce):
    rng = np.random.default_rng(7)
    for _ in range(4):
        X = rng.normal(size=(9, 2))
        D = squared_distances(X)
        duals = rng.normal(1.0, 1.0, size=9)
        for eta in (2, 3, 4):
            _, costs = enumerate_reference(D, duals, eta)
            res = price(D, duals, eta, "ilp", formulation=formulation, reduce=reduce)
            assert res.min_reduced_cost == pytest.approx(costs.min(), abs=1e-7)


@settings(max_examples=40, deadline=None)
@given(pricing_instances(n_max=12), st.sampled_from(["pseudocode", "increase"]))
def test_heuristic_columns_negative_and_disjoint(inst, criterion):
    D, duals, eta = inst
    res = heuristic_pricing(D, duals, eta, max_columns=100, criterion=criterion)
    assert not res.exact and res.min_reduced_cost is None and res.status == "heuristic"
    check_columns(D, duals, eta, res)
    members = np.concatenate(res.columns) if res.columns else np.zeros(0, dtype=int)
    assert np.unique(members).size == members.size  # pairwise disjoint
    _, costs = enumerate_reference(D, duals, eta)
    assert all(v >= costs.min() - 1e-9 for v in res.reduced_costs)


def test_heuristic_follows_pseudocode_by_hand():
    # two tight pairs, far apart; the record with the largest dual seeds the first cluster
    X = np.array([[0.0], [0.1], [10.0], [10.1], [5.0]])
    D = squared_distances(X)
    duals = np.array([1.0, 0.5, 2.0, 0.2, 0.0])
    res = heuristic_pricing(D, duals, 2)
    assert [c.tolist() for c in res.columns] == [[2, 3], [0, 1]]  # best first
    assert res.reduced_costs == pytest.approx([0.01 / 2 - 2.2, 0.01 / 2 - 1.5])
    # record 4 (dual 0) has no negative partner left


def test_greedy_step_uses_pseudocode_weight():
    # eta = 3, seed record 0.  Record 1: D = 1, dual 0; record 2: D = 2.5, dual 0.8.
    # pseudocode score D/3 - dual/2 prefers record 1 (0.333 < 0.433);
    # the true cost increase D/3 - dual prefers record 2 (0.033).
    X = np.array([[0.0], [1.0], [-np.sqrt(2.5)], [50.0]])
    D = squared_distances(X)
    duals = np.array([5.0, 0.0, 0.8, 0.0])
    avail = np.array([False, True, True, True])
    assert greedy_cluster(D, duals, 3, 0, avail)[1] == 1
    assert greedy_cluster(D, duals, 3, 0, avail, criterion="increase")[1] == 2


@pytest.mark.parametrize("mode", ["enumeration", "ilp"])
def test_forbidden_clusters_are_skipped(mode):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(10, 2))
    D = squared_distances(X)
    duals = rng.normal(1.5, 0.5, size=10)
    clusters, costs = enumerate_reference(D, duals, 3)
    order = np.argsort(costs)
    banned = [clusters[order[0]][::-1], clusters[order[1]]]  # unsorted input is fine
    res = price(D, duals, 3, mode, forbidden=banned)
    assert res.min_reduced_cost == pytest.approx(costs[order[2]], abs=1e-7)
    got = {tuple(c.tolist()) for c in res.columns}
    assert not got & {tuple(sorted(b.tolist())) for b in banned}
    h = price(D, duals, 3, "heuristic", forbidden=banned)
    assert not {tuple(c.tolist()) for c in h.columns} & {tuple(sorted(b.tolist())) for b in banned}


def test_enumeration_returns_several_columns():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(12, 3))
    D = squared_distances(X)
    duals = np.full(12, 3.0)
    clusters, costs = enumerate_reference(D, duals, 3)
    res = price(D, duals, 3, "enumeration", max_columns=6)
    assert np.allclose(res.reduced_costs, np.sort(costs)[:6])
    check_columns(D, duals, 3, res)


def mdav_duals(X, k, seed=0):
    """Plausible duals: each record gets its MDAV group's SSE share, perturbed."""
    from mipagg.heuristics.mdav import mdav

    part = mdav(X, k)
    share = np.zeros(len(X))
    for g in part.groups():
        share[g] = ((X[g] - X[g].mean(0)) ** 2).sum() / len(g)
    return share * np.random.default_rng(seed).uniform(0.8, 1.6, size=len(X))


@pytest.mark.data
def test_enumeration_equals_ilp_on_census_subset(census):
    rows = np.random.default_rng(11).choice(census.n, 40, replace=False)
    X = census.subset(rows).X
    D = squared_distances(X)
    for eta in (3, 4, 5):
        duals = mdav_duals(X, 3, seed=eta)
        e = price(D, duals, eta, "enumeration")
        i = price(D, duals, eta, "ilp", time_limit=60)
        assert e.exact and i.exact
        assert e.min_reduced_cost == pytest.approx(i.min_reduced_cost, abs=1e-7)


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("eta", [3, 4, 5, 6])
def test_enumeration_equals_ilp_on_larger_subsets(census, tarragona, eta):
    for inst in (census, tarragona):
        rows = np.random.default_rng(eta).choice(inst.n, 80, replace=False)
        X = inst.subset(rows).X
        D = squared_distances(X)
        duals = mdav_duals(X, 3, seed=eta)
        e = price(D, duals, eta, "enumeration", max_columns=20)
        i = price(D, duals, eta, "ilp", time_limit=600)
        assert e.exact and i.exact
        assert e.min_reduced_cost == pytest.approx(i.min_reduced_cost, abs=1e-7)


def hard_matrix(n, density, seed):
    """Distances 1 (random graph edges, given density) or 2, plus tiny noise:
    densest-subgraph-like pricing instances on which the bounds are weak."""
    rng = np.random.default_rng(seed)
    D = np.where(rng.random((n, n)) < density, 1.0, 2.0) + 0.01 * rng.random((n, n))
    D = np.triu(D, 1)
    return D + D.T


def test_time_limits_are_honoured():
    D = hard_matrix(200, 0.2, seed=1)
    duals = np.full(200, 10.0)  # every cluster is negative
    t0 = time.perf_counter()
    res = price(D, duals, 9, "enumeration", time_limit=0.3, max_columns=5)
    assert time.perf_counter() - t0 < 1.5
    assert res.status == "time_limit" and not res.exact and res.min_reduced_cost is None
    check_columns(D, duals, 9, res)
    assert len(res.columns) == 5  # negative columns found so far are returned

    D = hard_matrix(40, 0.3, seed=2)
    duals = np.full(40, 10.0)
    price(D, duals, 3, "ilp")  # import and warm up Pyomo outside the timed call
    t0 = time.perf_counter()
    res = price(D, duals, 7, "ilp", time_limit=1.0)
    assert time.perf_counter() - t0 < 3.0
    assert res.status == "time_limit" and not res.exact and res.min_reduced_cost is None
    check_columns(D, duals, 7, res)
    assert res.columns  # at least the greedy upper-bound cluster


def test_bad_input():
    D = squared_distances(np.arange(6.0))
    with pytest.raises(ParameterError):
        price(D, np.zeros(6), 3, "magic")
    with pytest.raises(ParameterError):
        price(D, np.zeros(6), 7, "enumeration")
    with pytest.raises(ParameterError):
        price(D, np.zeros(6), 1, "heuristic")
    with pytest.raises(DataError):
        price(D, np.zeros(5), 3, "ilp")
    with pytest.raises(DataError):
        price(-D, np.zeros(6), 3, "enumeration")
    with pytest.raises(DataError):
        price(D + np.triu(np.ones((6, 6)), 1), np.zeros(6), 3, "heuristic")
    with pytest.raises(ParameterError):
        price(D, np.zeros(6), 3, "enumeration", time_limit=0)
    with pytest.raises(DataError):
        price(D, np.zeros(6), 3, "enumeration", forbidden=[[0, 1, 9]])


def test_exact_mode_table():
    # measured (docs/bench/pricing.md): enumeration beats the ILP everywhere
    for n in (30, 50, 100, 200):
        for eta in range(2, 10):
            assert exact_mode(n, eta) == "enumeration"
    with pytest.raises(ParameterError):
        exact_mode(0, 3)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(4, 40), st.integers(2, 7), st.booleans(),
       st.sampled_from(["pseudocode", "increase"]), st.integers(0, 3))
def test_compiled_heuristic_equals_reference(seed, n, eta, dup, criterion, n_banned):
    """The numba SolveHeuristicPricing kernel returns exactly the columns and
    reduced costs of the numpy version (duplicates/ties and forbidden clusters
    included, since a forbidden greedy cluster changes the later seeds)."""
    rng = np.random.default_rng(seed)
    eta = min(eta, n)
    X = rng.normal(size=(n, 3))
    if dup:
        X[: n // 2] = X[0]
    D = squared_distances(X)
    duals = rng.normal(D.mean() * eta / 4, D.mean() * eta / 4 + 1e-3, size=n)
    ref = heuristic_pricing(D, duals, eta, max_columns=n, criterion=criterion, compiled=False)
    banned = [c[::-1] for c in ref.columns[:n_banned]]
    ref = heuristic_pricing(D, duals, eta, max_columns=n, criterion=criterion, compiled=False,
                            forbidden=banned)
    got = heuristic_pricing(D, duals, eta, max_columns=n, criterion=criterion, compiled=True,
                            forbidden=banned)
    assert [c.tolist() for c in got.columns] == [c.tolist() for c in ref.columns]
    assert got.reduced_costs == ref.reduced_costs
    assert got.status == ref.status == "heuristic"


def test_compiled_heuristic_equals_reference_on_casc_duals(census):
    """Same check at master duals of a real run (census 120 records, k = 4)."""
    from mipagg.exact.master import MasterProblem
    from mipagg.heuristics.mdav import mdav_groups

    X = census.subset(np.arange(300, 420)).X
    D = squared_distances(X)
    mp = MasterProblem(X, D)
    mp.add_columns(mdav_groups(X, 4))
    duals = mp.solve().duals
    for _ in range(8):
        for eta in range(4, 8):
            a = heuristic_pricing(D, duals, eta, max_columns=50, compiled=False)
            b = heuristic_pricing(D, duals, eta, max_columns=50)
            assert [c.tolist() for c in a.columns] == [c.tolist() for c in b.columns]
            assert a.reduced_costs == b.reduced_costs
            mp.add_columns(b.columns)
        duals = mp.solve().duals
