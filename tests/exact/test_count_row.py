"""The count row Σ_C x_C ≤ ⌊n/k⌋ of bp's master (``count_row``): the LP with
it against scipy's, pricing with its penalty against brute force, proven
optima against brute force with and without it, and trees resumed across it."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from _bruteforce import optimal_partition
from _strategies import tiny_instances
from hypothesis import assume, given, settings, strategies as st
from scipy.optimize import linprog

from mipagg.exact import checkpoint
from mipagg.exact.bp import BPSettings, BranchAndPrice, branch_and_price
from mipagg.exact.master import MasterProblem, cluster_weight, count_limit
from mipagg.exact.pricing import reduced_cost
from mipagg.exact.pricing.constraints import PricingConstraints
from mipagg.exact.pricing.rounds import PricingContext, pricing_round
from mipagg.exact.reference import set_partitioning
from mipagg.subsets import subset

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)


def test_count_limit_only_where_k_does_not_divide_n():
    assert [count_limit(n, 3) for n in (6, 7, 8, 9)] == [None, 2, 2, None]
    assert count_limit(834, 4) == 208 and count_limit(834, 10) == 83


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(7, 14), st.integers(2, 3))
def test_master_with_the_count_row_solves_the_lp_with_it(seed, n, k):
    """The LP value equals scipy's with the row; strong duality splits it
    into Σλ + R·σ₀ (σ₀ ≤ 0), and no column has a negative reduced cost."""
    assume(n % k)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    R = count_limit(n, k)
    cols = [np.sort(rng.choice(n, size=s, replace=False)) for s in rng.integers(k, 2 * k, 60)]
    cols += [np.arange(n)[i::R] for i in range(R)]         # a partition into R groups
    mp = MasterProblem(X, count_limit=R)
    mp.add_columns(cols)
    sol = mp.solve()
    A = np.zeros((n, len(mp.columns)))
    for j, c in enumerate(mp.columns):
        A[c, j] = 1.0
    ref = linprog(mp.weights, A_eq=A, b_eq=np.ones(n), A_ub=np.ones((1, A.shape[1])),
                  b_ub=[R], bounds=(0, None), method="highs")
    assert sol.value == pytest.approx(ref.fun, abs=1e-7)
    assert sol.x.sum() <= R + 1e-7
    assert sol.count_dual <= 0 and sol.count_limit == R
    assert sol.value == pytest.approx(sol.duals.sum() + sol.count_term, abs=1e-7)
    rc = [reduced_cost(mp.D, sol.duals, c, len(c)) + sol.count_penalty for c in mp.columns]
    assert min(rc) >= -1e-7


def test_cut_rows_come_after_the_count_row():
    """A subset-row cut added after the count row gets its own dual, and the
    columns added after the cut get coefficients in both rows."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(10, 2))
    mp = MasterProblem(X, count_limit=3)
    mp.add_columns([np.arange(i, i + 3) for i in range(0, 9, 3)] + [[6, 7, 8, 9]])
    mp.add_cuts([(0, 1, 2)])
    mp.add_columns([[0, 1, 3], [1, 2, 4, 9], [2, 0, 5]])
    sol = mp.solve()
    assert mp.first_cut_row == 11 and sol.cut_duals.size == 1
    h = mp._highs
    assert h.getNumRow() == 12
    lhs = np.asarray(h.getSolution().row_value)
    assert lhs[10] == pytest.approx(sol.x.sum())                   # the count row
    assert lhs[11] == pytest.approx(sum(x for c, x in zip(mp.columns, sol.x)
                                        if len(set(c.tolist()) & {0, 1, 2}) >= 2))


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 3), st.floats(0.01, 2.0))
def test_pricing_with_a_count_penalty_finds_the_brute_force_minimum(seed, k, mu0):
    """Every size η is priced at λ − μ₀/η: the exact minimum reduced cost of
    size η is min over all clusters of w_C − λ(C) + μ₀ (when negative), and
    the size chain, which a count penalty breaks, is not used."""
    rng = np.random.default_rng(seed)
    n = 9
    X = rng.normal(size=(n, 2))
    D = MasterProblem(X).D
    lam = rng.uniform(0.0, 2.0, n)
    cons = replace(PricingConstraints.none(n), count_penalty=mu0)
    assert not cons.nested and cons.trivial
    r = pricing_round(PricingContext(D, k), lam, mode="enumeration", constraints=cons,
                      complete=True, chain=True)
    for eta in range(k, 2 * k):
        best = min(cluster_weight(D, c) - lam[list(c)].sum() + mu0
                   for c in itertools.combinations(range(n), eta))
        assert r.min_reduced_costs[eta] == pytest.approx(min(best, 0.0), abs=1e-9)
    for c in r.columns:
        assert reduced_cost(D, lam, c, len(c)) + mu0 < 0


@settings(max_examples=40, deadline=None)
@given(tiny_instances(), st.sampled_from(["default", "tree"]))
def test_bp_with_and_without_the_count_row_equals_brute_force(inst, mode):
    """Both find the brute-force optimum; the root LP bound with the row is
    at least the one without it and at most the optimum."""
    X, k = inst
    opt, _ = optimal_partition(X, k)
    options = TREE_ONLY if mode == "tree" else {}
    on = branch_and_price(X, k, threads=1, count_row=True, **options)
    off = branch_and_price(X, k, threads=1, count_row=False, **options)
    for r in (on, off):
        assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
        assert r.partition.is_feasible(k)
    if on.root_lp_bound is not None and off.root_lp_bound is not None:
        assert off.root_lp_bound - 1e-7 <= on.root_lp_bound <= opt + 1e-7


@pytest.mark.parametrize("first, second", [(False, True), (True, False)])
def test_a_tree_resumes_across_the_count_row(census, tmp_path, first, second):
    """A checkpoint written with (or without) the count row resumes without
    (or with) it: the saved bases get the row's status put in or taken out,
    and the resumed tree proves the optimum of the full MIP."""
    s = subset(census, 40, "random", 1)             # 40 = 3·13 + 1
    opt = set_partitioning(s.X, 3, integral=True)[0]
    path = tmp_path / "tree.npz"
    part = BranchAndPrice(s.X, 3, BPSettings(node_limit=3, checkpoint=str(path),
                                             count_row=first, **TREE_ONLY)).run()
    assert part.status == "node_limit"
    assert checkpoint.summary(checkpoint.load(path))["count_row"] == (13 if first else None)
    tree = BranchAndPrice(s.X, 3, BPSettings(resume=str(path), count_row=second, **TREE_ONLY))
    assert tree.master.count_rows == int(second)
    r = tree.run()
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 3), st.floats(0.0, 1.0))
def test_the_count_chain_proves_the_larger_sizes_only_when_they_hold_nothing(seed, k, shift):
    """Without together pairs and cut penalties, a round whose size k holds
    no negative column under a count penalty may prove the larger sizes by
    one more search of size k (``count_chain``).  Whatever it proves must
    hold: every size's recorded minimum is at most the brute-force minimum
    of w_C − λ(C) + μ₀ (or that minimum is ≥ 0)."""
    rng = np.random.default_rng(seed)
    n = 9
    X = rng.normal(size=(n, 2))
    D = MasterProblem(X).D
    # duals near the neighbour duals, so that size k often holds nothing negative
    from mipagg.exact.bounds import neighbour_duals
    lam = neighbour_duals(D, k) * (1.0 + 0.5 * shift)
    mu0 = float(rng.uniform(0.01, 1.0))
    cons = replace(PricingConstraints.none(n), count_penalty=mu0)
    r = pricing_round(PricingContext(D, k), lam, mode="enumeration", constraints=cons,
                      complete=True)
    assert r.complete(k)
    for eta in range(k, 2 * k):
        best = min(cluster_weight(D, c) - lam[list(c)].sum() + mu0
                   for c in itertools.combinations(range(n), eta))
        assert r.min_reduced_costs[eta] <= max(best, 0.0) + 1e-9
        if best < -1e-9 and not r.columns:
            raise AssertionError(f"size {eta} holds a negative column the round missed")


def test_the_count_chain_spares_the_larger_sizes_at_dual_feasible_duals(monkeypatch):
    """At the neighbour duals (no cluster has a negative w_C − λ(C)) and a
    count penalty, the round searches size k twice (at λ − μ₀/k, then at
    λ − μ₀/(2k−1)) and no larger size, and proves every size at 0."""
    from mipagg.exact.bounds import neighbour_duals
    from mipagg.exact.pricing import solvers

    rng = np.random.default_rng(7)
    X = rng.normal(size=(12, 2))
    D, k = MasterProblem(X).D, 3
    searched = []
    solve = solvers.EnumerationSolver.solve

    def spy(self, D, duals, eta, **options):
        searched.append(eta)
        return solve(self, D, duals, eta, **options)

    monkeypatch.setattr(solvers.EnumerationSolver, "solve", spy)
    cons = replace(PricingConstraints.none(12), count_penalty=0.3)
    r = pricing_round(PricingContext(D, k), neighbour_duals(D, k), mode="enumeration",
                      constraints=cons, complete=True)
    assert searched == [3, 3] and not r.columns
    assert r.complete(k) and all(r.min_reduced_costs[eta] == 0.0 for eta in range(3, 6))
