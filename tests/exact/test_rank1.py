"""Rank-1 cuts on four and five rows (mipagg.exact.rank1, Pecin et al. 2017):
no integer partition violates one (exhaustive), the separator reports true
left-hand sides, the master's rows, the pricing penalties and the pair-fixing
bound agree with a computation from scratch, and ``bp`` with the family keeps
the brute-force optimum with every bound below it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _bruteforce import group_partitions, least_pair_reduced_cost, optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings, strategies as st

from mipagg.errors import DataError
from mipagg.exact.bp import BranchAndPrice
from mipagg.exact.cuts import Rank1Cut, cut_coefficient, cut_lhs, cut_matrix, rank1
from mipagg.exact.fixing import pair_bounds
from mipagg.exact.master import (MasterProblem, cluster_weight, set_partitioning_mip,
                                 squared_distances)
from mipagg.exact.pricing.constraints import PricingConstraints
from mipagg.exact.rank1 import PATTERNS, separate_rank1
from mipagg.exact.settings import BPSettings




@pytest.mark.parametrize("n,k", [(8, 2), (9, 3)])
def test_no_partition_violates_a_rank1_cut(n, k):
    rng = np.random.default_rng(n)
    cuts = [Rank1Cut(tuple(rng.permutation(n)[:size].tolist()), nums, den)
            for size, (nums, den) in PATTERNS.items() for _ in range(40)]
    for part in group_partitions(list(range(n)), k):
        for cut in cuts:
            assert sum(cut_coefficient(cut, g) for g in part) <= 1


def test_rank1_rejects_cuts_without_right_hand_side_one():
    for bad in (Rank1Cut((0, 1, 2, 3), (1, 1, 1, 1), 2),     # ⌊2⌋ = 2
                Rank1Cut((0, 1, 1), (1, 1, 1), 2), Rank1Cut((0, 1), (3, 1), 3), (0, 1, 2, 3)):
        with pytest.raises(DataError):
            rank1(bad)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 10))
def test_separator_reports_true_violated_cuts(seed, n):
    rng = np.random.default_rng(seed)
    cols = [np.sort(rng.choice(n, size=int(rng.integers(2, min(6, n) + 1)), replace=False))
            for _ in range(int(rng.integers(3, 12)))]
    x = rng.uniform(0, 1, len(cols))
    cover = np.zeros(n)
    for c, xc in zip(cols, x):
        cover[c] += xc
    x /= max(1.0, cover.max())
    found = separate_rank1(cols, x, n, min_violation=0.01, max_cuts=1000,
                           max_per_record=1000)
    for cut, lhs in found:
        assert lhs == pytest.approx(cut_lhs(cols, x, cut), abs=1e-9)
        assert lhs > 1.01
        assert rank1(cut) == cut


def test_the_k_subsets_of_a_group_are_cut():
    """k = 5: the six 5-subsets of six close records at ⅕ each give every
    5-row cut on them a left-hand side of 6/5."""
    cols = [np.array(c) for c in itertools.combinations(range(6), 5)]
    found = separate_rank1(cols, np.full(6, 0.2), 6, sizes=(5,), min_violation=0.05)
    assert found and all(v == pytest.approx(1.2) for _, v in found)


def _mixed_cuts(rng, n, m=4):
    cuts = []
    for _ in range(m):
        size = int(rng.choice([3] + [s for s in PATTERNS if s <= n]))
        rows = tuple(rng.choice(n, size, replace=False).tolist())
        cuts.append(rows if size == 3 else Rank1Cut(rows, *PATTERNS[size]))
    return cuts


def test_master_rows_reduced_costs_and_pricing_penalties_agree():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(9, 2))
    D = squared_distances(X)
    mp = MasterProblem(X)
    cols = [c for s in (3, 4, 5) for c in itertools.combinations(range(9), s)]
    mp.add_columns(cols[:60])
    cuts = _mixed_cuts(rng, 9, 6)
    assert mp.add_cuts(cuts) == len({rank1(c) for c in cuts})
    assert mp.add_cuts(cuts) == 0                              # present already
    mp.add_columns(cols[60:])
    sol = mp.solve()
    mu = sol.penalties
    cons = PricingConstraints.build(9, cuts=list(zip(mp.cuts, mu)))
    rc = mp.reduced_costs(sol.duals, sol.cut_duals)
    for c, r in zip(mp.columns, rc):
        coef = [cut_coefficient(rank1(S), c.tolist()) for S in mp.cuts]
        assert cons.coefficients(c).tolist() == coef
        w = sum(D[a, b] for a, b in itertools.combinations(c.tolist(), 2)) / c.size
        assert r == pytest.approx(w - sol.duals[c].sum() + float(np.dot(coef, mu)), abs=1e-9)
        assert cons.penalty(c) == pytest.approx(float(np.dot(coef, mu)), abs=1e-12)
    assert rc.min() >= -1e-7
    for S in mp.cuts:
        assert cut_lhs(mp.columns, sol.x, S) <= 1 + 1e-7


@pytest.mark.parametrize("seed", range(6))
def test_node_closing_constraints_from_the_cut_table_price_as_cut_by_cut(seed):
    """cut_constraints takes the master's cut table: for every cluster the
    same penalty and the same branching verdict as the constraints built
    cut by cut with μ = max(−σ, 0), also when cuts came in after the duals
    (those cuts are left out)."""
    from mipagg.exact.nodeclosing import cut_constraints

    rng = np.random.default_rng(seed)
    n = 9
    mp = MasterProblem(rng.normal(size=(n, 2)))
    mp.add_cuts(_mixed_cuts(rng, n, 8))
    sigma = rng.uniform(-2.0, 1.0, len(mp.cuts) - int(rng.integers(0, 3)))
    together, apart = [(0, 1)], [(2, 3), (1, 4)]
    got = cut_constraints(mp, n, sigma, together, apart, count_penalty=0.25)
    want = PricingConstraints.build(
        n, together=together, apart=apart,
        cuts=[(S, max(-s, 0.0)) for S, s in zip(mp.cuts, sigma)])
    assert got.count_penalty == 0.25
    for size in (3, 4, 5):
        for c in itertools.combinations(range(n), size):
            c = np.array(c)
            assert got.penalty(c) == pytest.approx(want.penalty(c), abs=1e-12)
            assert got.allows(c) == want.allows(c)


def test_rank1_remembers_tuples_and_still_refuses_bad_cuts():
    first = rank1((7, 2, 5))
    assert rank1((np.int64(7), 2, 5)) is first == Rank1Cut((2, 5, 7), (1, 1, 1), 2)
    assert rank1((5, 7, 2)) == first
    assert rank1([7, 2, 5]) == first                            # a list: computed
    assert rank1((np.array(7), 2, 5)) == first                  # unhashable member: computed
    for _ in range(2):                                          # refusals are not remembered
        with pytest.raises(DataError):
            rank1((1, 1, 2))


@settings(max_examples=40, deadline=None)
@given(tiny_instances(max_n=9, max_k=3), st.integers(0, 10_000))
def test_pair_bound_below_every_cluster_with_rank1_cuts(inst, seed):
    X, k = inst
    n = X.shape[0]
    if n < 5:
        return
    D = squared_distances(X)
    rng = np.random.default_rng(seed)
    lam = rng.normal(0.5, 1.0, n)
    cuts = _mixed_cuts(rng, n)
    mu = rng.uniform(0, 1, len(cuts))
    pairs = np.array(list(itertools.combinations(range(n), 2)))
    b = pair_bounds(D, lam, k, pairs, cuts=cuts, mu=mu)
    for q, (i, j) in enumerate(pairs):
        def penalty(C):
            return sum(m * cut_coefficient(rank1(S), C) for S, m in zip(cuts, mu))

        least = least_pair_reduced_cost(D, lam, k, i, j, penalty)
        assert b[q] <= least + 1e-9


@st.composite
def fractional_instances(draw):
    """Continuous data (fractional master LPs are common), n 6..11, k 2..3."""
    n = draw(st.integers(6, 11))
    k = draw(st.integers(2, 3))
    rng = np.random.default_rng(draw(st.integers(0, 100_000)))
    return rng.normal(size=(n, draw(st.integers(1, 3)))), k


@settings(max_examples=30, deadline=None)
@given(st.one_of(fractional_instances(), tiny_instances(min_n=5, max_n=10, max_k=3)))
def test_bp_with_rank1_cuts_equals_brute_force(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = BranchAndPrice(X, k, BPSettings(threads=1, min_violation=0.01,
                                        cut_families=("subset_row", "rank1"))).run()
    assert r.status == "optimal"
    assert r.sse == pytest.approx(opt, abs=1e-7)
    assert r.lower_bound <= opt + 1e-7
    assert 0 <= r.rank1_cuts <= r.cuts
    if r.root_lp_bound is not None:
        assert r.root_lp_bound <= r.root_cut_bound + 1e-9
        assert r.root_cut_bound <= opt + 1e-7


@pytest.mark.parametrize("seed", range(12))
def test_search_collects_every_cluster_below_thresholds_under_dense_rank1_cuts(seed):
    """Many overlapping cuts with large penalties: the search's per-record
    share of the cut penalties (its keys) must never exceed what a
    completion pays, or a cluster below the threshold would be lost."""
    from mipagg.exact.pricing.search import SearchSpace, search_clusters

    rng = np.random.default_rng(seed)
    n, eta = 10, int(rng.integers(3, 7))
    D = squared_distances(rng.normal(size=(n, 2)))
    lam = rng.uniform(0.5, 3.0, n)
    cuts = _mixed_cuts(rng, n, 10)
    mu = rng.uniform(0.5, 3.0, len(cuts))
    cons = PricingConstraints.build(n, cuts=list(zip(cuts, mu)))
    space = SearchSpace.build(D, eta)
    costs = {}
    for c in itertools.combinations(range(n), eta):
        w = sum(D[a, b] for a, b in itertools.combinations(c, 2)) / eta
        costs[c] = w - lam[list(c)].sum() + sum(m * cut_coefficient(rank1(S), c)
                                                 for S, m in zip(cuts, mu))
    values = np.sort(np.fromiter(costs.values(), dtype=float))
    for thr in np.quantile(values, [0.01, 0.05, 0.2, 0.5]):
        out = search_clusters(space, lam, cons, mode="collect", threshold=float(thr))
        got = {tuple(c) for c in out.columns.tolist()}
        assert {c for c, v in costs.items() if v < thr - 1e-9} <= got
    best = search_clusters(space, lam, cons, mode="best", max_columns=5)
    assert best.min_rc == pytest.approx(values[0], abs=1e-9)


@st.composite
def columns_and_cuts(draw):
    """(n, columns, cuts): random record sets and random cuts of every pattern
    (subset-row triples and the rank-1 patterns of PATTERNS)."""
    n = draw(st.integers(7, 14))
    rng = np.random.default_rng(draw(st.integers(0, 100_000)))
    columns = [rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False)
               for _ in range(draw(st.integers(0, 30)))]
    cuts = [tuple(rng.permutation(n)[:3].tolist()) for _ in range(draw(st.integers(0, 5)))]
    cuts += [Rank1Cut(tuple(rng.permutation(n)[:size].tolist()), nums, den)
             for size, (nums, den) in PATTERNS.items() if size <= n
             for _ in range(draw(st.integers(0, 4)))]
    return n, columns, cuts


@settings(max_examples=60, deadline=None)
@given(columns_and_cuts())
def test_cut_matrix_holds_every_cut_coefficient(case):
    n, columns, cuts = case
    A = cut_matrix(columns, cuts, n).toarray()
    assert A.shape == (len(cuts), len(columns))
    for s, cut in enumerate(cuts):
        for j, c in enumerate(columns):
            assert A[s, j] == cut_coefficient(rank1(cut), c.tolist())


def _all_clusters(n, k):
    return [np.asarray(c) for eta in range(k, min(2 * k, n + 1))
            for c in itertools.combinations(range(n), eta)]


@settings(max_examples=25, deadline=None)
@given(tiny_instances(min_n=6, max_n=9, max_k=3), st.integers(0, 10_000))
def test_cut_rows_leave_the_integer_master_optimum_unchanged(inst, seed):
    X, k = inst
    n, rng = len(X), np.random.default_rng(seed)
    D = squared_distances(X)
    columns = _all_clusters(n, k)
    weights = [cluster_weight(D, c) for c in columns]
    cuts = [Rank1Cut(tuple(rng.permutation(n)[:size].tolist()), nums, den)
            for size, (nums, den) in PATTERNS.items() if size <= n for _ in range(10)]
    cuts += [tuple(rng.permutation(n)[:3].tolist()) for _ in range(20)]
    status, value, chosen = set_partitioning_mip(n, columns, weights, cuts=cuts)
    assert status == "optimal"
    assert value == pytest.approx(optimal_partition(X, k)[0], abs=1e-7)
    assert sorted(np.concatenate([columns[j] for j in chosen]).tolist()) == list(range(n))


def test_cut_rows_lift_the_relaxation_of_the_integer_master():
    """Three pairs at ½ cover three records for 1.5; the subset-row cut on the
    three leaves only the triple (2.5) in the LP relaxation as in the MIP."""
    import highspy

    from mipagg.exact.highs import new_highs
    from mipagg.exact.master import _add_cut_rows, _add_set_partitioning

    columns = [np.array(c) for c in ((0, 1), (0, 2), (1, 2), (0, 1, 2))]
    weights = [1.0, 1.0, 1.0, 2.5]
    values = []
    for cuts in ((), [(0, 1, 2)]):
        h = new_highs()
        m = _add_set_partitioning(h, highspy, 3, columns, weights)
        h.changeColsIntegrality(m, np.arange(m, dtype=np.int32),
                                np.full(m, highspy.HighsVarType.kContinuous))
        _add_cut_rows(h, cut_matrix(columns, cuts, 3))
        h.run()
        values.append(h.getInfo().objective_function_value)
    assert values == pytest.approx([1.5, 2.5])
    assert set_partitioning_mip(3, columns, weights, cuts=[(0, 1, 2)])[:2] == ("optimal", 2.5)


def test_cli_cut_families_flag(capsys):
    """``--cut-families subset_row,rank1`` reaches bp (the same optimum as the
    default family on a shipped instance); an unknown family is refused."""
    import json
    from pathlib import Path

    from mipagg.cli import main

    data = str(Path(__file__).resolve().parents[2] / "instances" / "companies.csv")
    run = ["run", data, "-k", "3", "--columns", "surface,employees", "--method", "bp",
           "--json", "--quiet"]
    assert main(run) == 0
    default = json.loads(capsys.readouterr().out)
    assert main(run + ["--cut-families", "subset_row,rank1"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert default["status"] == both["status"] == "optimal"
    assert both["sse"] == pytest.approx(default["sse"], abs=1e-9)
    assert both["options"]["cut_families"] == ["subset_row", "rank1"]
    assert default["rank1_cuts"] == 0 and 0 <= both["rank1_cuts"] <= both["cuts"]
    assert main(run + ["--cut-families", "subset_row,nope"]) == 2
    assert "cut_families must be names of" in capsys.readouterr().err


def test_bp_separates_rank1_cuts_by_name_and_counts_them():
    """lognormal n60 seed 1, k = 3: the named family ``rank1`` adds 4- and
    5-row cuts at the root (docs/bench/cuts.md §3 finds them violated after the
    subset-row cuts on such files); the bound after them stays below the
    optimum of a default run, which the tree proves."""
    from mipagg.exact.bp import branch_and_price
    from mipagg.generators import lognormal

    X = lognormal(60, 11, seed=1).X
    root = branch_and_price(X, 3, node_limit=1, threads=1, max_cut_rounds=30, tail_off=0,
                            cut_families=("subset_row", "rank1"), close_gap=False,
                            dive_time=0, mip_time=0)
    assert 0 < root.rank1_cuts < root.cuts
    opt = branch_and_price(X, 3, threads=1)
    assert opt.status == "optimal" and opt.rank1_cuts == 0
    assert root.root_lp_bound <= root.root_cut_bound <= opt.sse + 1e-7
