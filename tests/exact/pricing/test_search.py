"""The exact pricing search and the heuristic pricing under branch-and-price
node constraints (together/apart pairs) and subset-row cut penalties, against
brute force over every cluster; subset-row separation against brute force;
the master's cut rows against an independent reduced-cost computation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mipagg.exact.cuts import Rank1Cut, cut_lhs, separate_subset_rows
from mipagg.exact.master import MasterProblem, cluster_weight, squared_distances
from mipagg.exact.pricing._common import reduced_cost
from mipagg.exact.pricing.constraints import PricingConstraints
from mipagg.exact.pricing.enumeration import enumeration_pricing
from mipagg.exact.pricing.heuristic import heuristic_pricing
from mipagg.exact.pricing.rounds import PricingContext, pricing_round, size_chain
from mipagg.exact.pricing.search import SearchSpace, search_clusters
from mipagg.exact.rank1 import PATTERNS


def _reduced_cost(D, lam, cuts, c):
    """w_C − Σλ_v + Σ_S μ_S ⌊Σ_{i∈S∩C} a_i/d⌋ (⌊|C∩S|/2⌋ for a triple),
    computed from scratch."""
    c = list(c)
    w = sum(D[a, b] for a, b in itertools.combinations(c, 2)) / len(c)
    pen = 0.0
    for S, mu in cuts:
        if isinstance(S, Rank1Cut):
            pen += mu * (sum(a for v, a in zip(S.rows, S.nums) if v in c) // S.den)
        else:
            pen += mu * (len(set(S) & set(c)) // 2)
    return w - lam[c].sum() + pen


def _allowed(c, together, apart):
    s = set(c)
    return all((a in s) == (b in s) for a, b in together) and \
        not any(a in s and b in s for a, b in apart)


@st.composite
def node_problem(draw):
    n = draw(st.integers(5, 10))
    eta = draw(st.integers(2, min(5, n)))
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 2)).astype(float)      # ties and duplicates
    D = squared_distances(X)
    lam = rng.uniform(0.0, 3.0, n)
    pairs = list(itertools.combinations(range(n), 2))
    picks = rng.choice(len(pairs), size=min(len(pairs), 4), replace=False)
    together = [pairs[i] for i in picks[:draw(st.integers(0, 2))]]
    apart = [pairs[i] for i in picks[2:2 + draw(st.integers(0, 2))]]
    cuts = [(tuple(sorted(rng.choice(n, 3, replace=False).tolist())), float(rng.uniform(0, 2)))
            for _ in range(draw(st.integers(0, 3)))]
    for _ in range(draw(st.integers(0, 3))):       # rank-1 cuts on 4 and 5 rows
        size = int(rng.choice([s for s in PATTERNS if s <= n]))
        nums, den = PATTERNS[size]
        rows = tuple(rng.choice(n, size, replace=False).tolist())
        cuts.append((Rank1Cut(rows, nums, den), float(rng.uniform(0, 2))))
    return D, lam, eta, together, apart, cuts


@settings(max_examples=80, deadline=None)
@given(node_problem(), st.sampled_from([1, 2]))
def test_search_minimum_equals_brute_force_under_constraints(problem, threads):
    D, lam, eta, together, apart, cuts = problem
    n = D.shape[0]
    cons = PricingConstraints.build(n, together=together, apart=apart, cuts=cuts)
    allowed = [c for c in itertools.combinations(range(n), eta) if _allowed(c, together, apart)]
    out = search_clusters(SearchSpace.build(D, eta), lam, cons, mode="best", max_columns=50,
                          threads=threads)
    assert out.status == "complete"
    if not allowed or not cons.feasible:
        assert out.min_rc is None or out.min_rc == np.inf
        return
    expected = min(_reduced_cost(D, lam, cuts, c) for c in allowed)
    assert out.min_rc == pytest.approx(expected, abs=1e-9)
    for c, cost in zip(out.columns, out.costs):
        assert _allowed(c.tolist(), together, apart)
        assert cost == pytest.approx(_reduced_cost(D, lam, cuts, c.tolist()), abs=1e-9)
        assert cost < 0


@settings(max_examples=60, deadline=None)
@given(node_problem())
def test_collect_mode_finds_every_allowed_cluster_below_threshold(problem):
    D, lam, eta, together, apart, cuts = problem
    n = D.shape[0]
    cons = PricingConstraints.build(n, together=together, apart=apart, cuts=cuts)
    thr = 0.5
    expected = {c for c in itertools.combinations(range(n), eta)
                if cons.feasible and _allowed(c, together, apart)
                and _reduced_cost(D, lam, cuts, c) < thr - 1e-9}
    out = search_clusters(SearchSpace.build(D, eta), lam, cons, mode="collect", threshold=thr)
    got = {tuple(c) for c in out.columns.tolist()}
    assert expected <= got
    assert all(_reduced_cost(D, lam, cuts, c) < thr + 1e-9 for c in got)


@settings(max_examples=60, deadline=None)
@given(node_problem())
def test_no_pricing_mode_proposes_a_forbidden_cluster(problem):
    D, lam, eta, together, apart, cuts = problem
    n = D.shape[0]
    cons = PricingConstraints.build(n, together=together, apart=apart, cuts=cuts)
    heur = heuristic_pricing(D, lam, eta, max_columns=20, constraints=cons)
    exact = enumeration_pricing(D, lam, eta, max_columns=20, constraints=cons)
    for c in list(heur.columns) + list(exact.columns):
        assert _allowed(list(c), together, apart)
        assert _reduced_cost(D, lam, cuts, list(c)) < 0
    # the heuristic never beats the exact minimum
    if heur.columns and exact.min_reduced_cost is not None:
        best_h = min(_reduced_cost(D, lam, cuts, list(c)) for c in heur.columns)
        assert best_h >= exact.min_reduced_cost - 1e-9


def test_floor_gives_a_valid_bound_when_the_minimum_is_positive():
    rng = np.random.default_rng(3)
    D = squared_distances(rng.normal(size=(9, 2)))
    lam = np.zeros(9)                            # every reduced cost is w_C > 0
    cons = PricingConstraints.none(9)
    out = search_clusters(SearchSpace.build(D, 3), lam, cons, mode="best", floor=0.0)
    true_min = min(cluster_weight(D, c) for c in itertools.combinations(range(9), 3))
    assert out.status == "complete" and not out.min_exact
    assert out.min_rc <= true_min


def test_infeasible_node_is_detected():
    cons = PricingConstraints.build(4, together=[(0, 1), (1, 2)], apart=[(0, 2)])
    assert not cons.feasible


def test_no_pricing_mode_prices_in_an_infeasible_node():
    """A hypothesis find: together (0,3), (0,5) and apart (3,5) once made the
    greedy heuristic propose {0, 3, 5}."""
    D = squared_distances(np.array([[0., 0], [2, 2], [0, 0], [1, 0], [0, 1], [1, 0]]))
    lam = np.array([2.98, 1.33, 0.19, 1.74, 1.67, 0.35])
    cons = PricingConstraints.build(6, together=[(0, 3), (0, 5)], apart=[(3, 5)])
    assert not cons.feasible
    assert heuristic_pricing(D, lam, 3, max_columns=20, constraints=cons).columns == []
    assert enumeration_pricing(D, lam, 3, max_columns=20, constraints=cons).columns == []


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 9))
def test_separation_matches_brute_force(seed, n):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 8))
    cols = [np.sort(rng.choice(n, size=int(rng.integers(2, min(5, n) + 1)), replace=False))
            for _ in range(m)]
    x = rng.uniform(0, 1, m)
    cover = np.zeros(n)
    for c, xc in zip(cols, x):
        cover[c] += xc
    x /= max(1.0, cover.max())                    # as in a master LP: every row covered ≤ 1
    found = dict(separate_subset_rows(cols, x, n, max_cuts=10_000, min_violation=0.01,
                                      max_per_record=10_000))
    for S in itertools.combinations(range(n), 3):
        lhs = cut_lhs(cols, x, S)
        if lhs > 1.01 + 1e-9:
            assert S in found and found[S] == pytest.approx(lhs)
        if S in found:
            assert lhs > 1.01 - 1e-9


def test_master_cut_rows_and_reduced_costs_match_an_independent_computation():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(8, 2))
    mp = MasterProblem(X)
    cols = [c for c in itertools.combinations(range(8), 3)] + [(0, 1), (2, 3), (4, 5), (6, 7)]
    mp.add_columns(cols[:30])
    cuts = [(0, 1, 2), (3, 4, 5), (1, 5, 7)]
    mp.add_cuts(cuts)
    mp.add_columns(cols[30:])                     # columns added after the cuts get them too
    sol = mp.solve()
    rc = mp.reduced_costs(sol.duals, sol.cut_duals)
    D = squared_distances(X)
    mu = sol.penalties
    for c, r in zip(mp.columns, rc):
        assert r == pytest.approx(_reduced_cost(D, sol.duals, list(zip(cuts, mu)), c.tolist()),
                                  abs=1e-9)
    assert rc.min() >= -1e-7                      # LP optimal: no negative column in the master
    for S in cuts:                                # the cut rows hold at the LP solution
        assert cut_lhs(mp.columns, sol.x, S) <= 1 + 1e-7


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_two_threads_return_the_same_best_pool_as_one(seed):
    """Threads prune with the least full-pool worst of all threads; the union
    of their pools must still hold the true best ``max_columns`` clusters."""
    rng = np.random.default_rng(seed)
    n, eta = int(rng.integers(10, 22)), int(rng.integers(2, 6))
    D = squared_distances(rng.normal(size=(n, 2)))
    lam = rng.uniform(0, 3, n)
    space, cons = SearchSpace.build(D, eta), PricingConstraints.none(n)
    one = search_clusters(space, lam, cons, mode="best", max_columns=4, threads=1)
    two = search_clusters(space, lam, cons, mode="best", max_columns=4, threads=2)
    assert one.min_rc == pytest.approx(two.min_rc, abs=1e-9)
    assert np.sort(one.costs) == pytest.approx(np.sort(two.costs), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(node_problem())
def test_master_node_mask_agrees_with_the_pricing_constraints(problem):
    """The columns a node keeps in the master are exactly those its pricing may produce."""
    D, lam, eta, together, apart, cuts = problem
    n = D.shape[0]
    X = np.random.default_rng(n).normal(size=(n, 2))
    mp = MasterProblem(X)
    cols = [c for s in (2, 3) for c in itertools.combinations(range(n), s)][:200]
    mp.add_columns(cols)
    cons = PricingConstraints.build(n, together=together, apart=apart)
    mask = mp.allowed_under(cons.together, cons.apart)
    expected = np.array([cons.allows(c) for c in mp.columns])
    assert (np.ones(len(cols), bool) if mask is None else mask).tolist() == expected.tolist()
    holding = set(mp.columns_holding([0, 1]).tolist())
    assert holding == {j for j, c in enumerate(mp.columns) if 0 in c or 1 in c}


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["enumeration", "auto"]))
def test_a_parallel_pricing_round_equals_the_sequential_one(seed, mode):
    """threads = 2 splits each size's search between two threads; the
    certified minima per size and the columns are those of the one-thread
    round."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(9, 20)), int(rng.integers(2, 4))
    D = squared_distances(rng.integers(0, 4, size=(n, 2)).astype(float))
    lam = rng.uniform(0.0, 4.0, n)
    rounds = [pricing_round(PricingContext(D, k, threads=t), lam, mode=mode, complete=True,
                            max_columns=3) for t in (1, 2)]
    one, two = rounds
    assert one.exact_sizes == two.exact_sizes
    assert one.min_reduced_costs.keys() == two.min_reduced_costs.keys()
    for eta, m in one.min_reduced_costs.items():
        assert two.min_reduced_costs[eta] == pytest.approx(m, abs=1e-9)
    costs = [sorted(round(reduced_cost(D, lam, c, len(c)), 9) for c in r.columns)
             for r in rounds]
    assert costs[0] == costs[1]
    assert not two.timed_out and two.swept


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=9), st.integers(1, 4),
       st.floats(-10, 10), st.integers(0, 10_000))
def test_truncation_keeps_every_member_of_a_completion_below_the_cut(keys, r, cut, seed):
    """``_truncate`` on keys, and on lower bounds of them (the search's first
    pass, without the cut share): every candidate of an r-subset whose true
    keys sum below the cut stays (brute force over the subsets)."""
    from mipagg.exact.pricing.search import _truncate

    true = np.array(keys)
    lower = true - np.random.default_rng(seed).uniform(0, 2, true.size)
    needed = {j for T in itertools.combinations(range(true.size), r)
              if true[list(T)].sum() < cut for j in T}
    for k in (true, lower):
        u, kk = np.arange(k.size), k.copy()
        kept = _truncate(u, kk, k.size, r, cut)
        assert needed <= set(u[:kept].tolist())
        assert np.array_equal(kk[:kept], k[u[:kept]])       # each key moved with its record


def _brute_minima(D, lam, k, cons):
    """The least reduced cost of an allowed cluster of every size k..2k−1
    (cut penalties included), by listing them all."""
    n = D.shape[0]
    out = {}
    for eta in range(k, min(2 * k, n + 1)):
        costs = [reduced_cost(D, lam, list(c), eta) + cons.penalty(c)
                 for c in itertools.combinations(range(n), eta) if cons.allows(c)]
        out[eta] = min(costs, default=np.inf)
    return out


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 3), st.integers(0, 3))
def test_the_size_chain_bounds_every_larger_size_by_size_k(seed, k, n_apart):
    """r_η/η ≥ min(r_k, 0)/k for allowed clusters under apart pairs only
    (ties and duplicate records included), by brute force; a round that
    prices size k exactly and chains the others reports bounds below every
    size's true minimum, and no column only when no size has one."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2 * k, 11))
    D = squared_distances(rng.integers(0, 4, size=(n, 2)).astype(float))
    lam = rng.uniform(0.0, 4.0, n) * rng.uniform(0.2, 1.5)
    pairs = list(itertools.combinations(range(n), 2))
    apart = [pairs[i] for i in rng.choice(len(pairs), n_apart, replace=False)]
    cons = PricingConstraints.build(n, apart=apart)
    assert cons.nested
    true = _brute_minima(D, lam, k, cons)
    for eta, m in true.items():
        assert m / eta >= size_chain(true[k], k, eta) / eta - 1e-9
    r = pricing_round(PricingContext(D, k), lam, mode="auto", constraints=cons, complete=True,
                      max_columns=3, chain=True)
    if r.complete(k):
        for eta, m in true.items():
            assert r.min_reduced_costs[eta] <= m + 1e-9
    if not r.columns:
        assert r.complete(k) and all(m >= -1e-9 for m in true.values())


def test_cut_penalties_and_together_pairs_break_the_chain_so_each_size_is_priced():
    """Three records at one point with a subset-row cut on them: the triple
    pays μ once where each of its pairs pays it, so the pair minimum does not
    bound the triple; with the cut (or a together pair) every size is priced
    exactly and the bound is the true one."""
    D = squared_distances(np.array([[0.0, 0.0]] * 3 + [[5.0, 5.0]] * 3))
    lam = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    cut = PricingConstraints.build(6, cuts=[((0, 1, 2), 1.5)])
    true = _brute_minima(D, lam, 2, cut)
    assert true[2] == pytest.approx(-0.5) and true[3] == pytest.approx(-1.5)
    assert true[3] / 3 < size_chain(true[2], 2, 3) / 3          # the chain would be wrong
    assert not cut.nested and not PricingConstraints.build(6, together=[(0, 1)]).nested
    r = pricing_round(PricingContext(D, 2), lam, mode="enumeration", constraints=cut,
                      complete=True, chain=True)
    assert r.min_reduced_costs[3] == pytest.approx(-1.5)


@pytest.mark.parametrize("chain", [True, False])
def test_a_chained_round_skips_the_exact_searches_of_the_larger_sizes(monkeypatch, chain):
    """Without cuts and together pairs, only size k is searched exactly with
    ``chain``, the larger sizes' bounds following from its minimum; without
    it, the larger sizes are searched unless size k has no negative cluster."""
    from mipagg.exact.pricing import enumeration

    rng = np.random.default_rng(5)
    D = squared_distances(rng.normal(size=(40, 2)))
    sizes = []
    real = enumeration.search_clusters

    def counting(space, *args, **kwargs):
        sizes.append(space.eta)
        return real(space, *args, **kwargs)

    monkeypatch.setattr(enumeration, "search_clusters", counting)
    ctx = PricingContext(D, 3)
    lam = np.sort(D, axis=1)[:, 1:3].sum(axis=1) * 0.6
    r = pricing_round(ctx, lam, mode="enumeration", complete=True, chain=chain)
    assert sizes == ([3] if chain else [3, 4, 5]) and r.complete(3) and r.columns
    if chain:
        assert r.min_reduced_costs[5] == pytest.approx(5 / 3 * r.min_reduced_costs[3])
    sizes.clear()
    none = pricing_round(ctx, np.zeros(40), mode="enumeration", complete=True, chain=chain)
    assert sizes == [3] and not none.columns and none.complete(3)
    assert all(none.min_reduced_costs[eta] == 0.0 for eta in (3, 4, 5))
