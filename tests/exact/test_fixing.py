"""Reduced-cost fixing on record pairs (mipagg.exact.fixing): the pair bound
is below the least reduced cost of every cluster holding the pair (exhaustive
on tiny instances), and ``bp`` with fixing keeps the brute-force optimum and
never fixes apart a pair that is together in some optimal partition."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mipagg.exact.bp import branch_and_price
from mipagg.exact.fixing import PairFixing, candidate_pairs, columns_with_pairs, pair_bounds
from mipagg.exact.master import squared_distances
from mipagg.partition import group_sse

from _strategies import tiny_instances
from _bruteforce import group_partitions, least_pair_reduced_cost, optimal_partition




def _best_together(X, k):
    """(optimum, {pair: least SSE of a partition holding the pair together})."""
    n = X.shape[0]
    best = {}
    opt = np.inf
    for part in group_partitions(list(range(n)), k):
        cost = sum(group_sse(X, g) for g in part)
        opt = min(opt, cost)
        for g in part:
            for a, b in itertools.combinations(sorted(g), 2):
                if cost < best.get((a, b), np.inf):
                    best[(a, b)] = cost
    return opt, best



@settings(max_examples=60, deadline=None)
@given(tiny_instances(max_n=9, max_k=3), st.integers(0, 10_000))
def test_pair_bound_below_every_cluster(inst, seed):
    X, k = inst
    n = X.shape[0]
    D = squared_distances(X)
    rng = np.random.default_rng(seed)
    lam = rng.normal(0.5, 1.0, n)
    cuts = [tuple(sorted(rng.choice(n, 3, replace=False))) for _ in range(2)]
    mu = rng.uniform(0, 1, len(cuts))
    pairs = np.array(list(itertools.combinations(range(n), 2)))
    b = pair_bounds(D, lam, k, pairs, cuts=cuts, mu=mu)
    for q, (i, j) in enumerate(pairs):
        def penalty(C):
            return sum(m * (len(set(C) & set(S)) // 2) for S, m in zip(cuts, mu))

        least = least_pair_reduced_cost(D, lam, k, i, j, penalty)
        assert b[q] <= least + 1e-9


def test_candidate_pairs_and_column_mask():
    X = np.array([[0.], [1.], [2.], [10.], [11.], [30.]])
    D = squared_distances(X)
    P = candidate_pairs(D, 1)
    assert {tuple(p) for p in P} == {(0, 1), (1, 2), (3, 4), (4, 5)}
    codes = np.array([0 * 6 + 2, 3 * 6 + 4])
    cols = [np.array([0, 1]), np.array([2, 0, 1]), np.array([4, 3, 5]), np.array([5, 1])]
    assert columns_with_pairs(cols, codes, 6).tolist() == [False, True, True, False]


@settings(max_examples=30, deadline=None)
@given(tiny_instances(max_n=9, max_k=3), st.sampled_from(["default", "tree"]))
def test_bp_fixing_keeps_optimum_and_fixes_no_optimal_pair(inst, mode):
    X, k = inst
    opt, together = _best_together(X, k)
    assert opt == pytest.approx(optimal_partition(X, k)[0], abs=1e-9)
    kw = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0) \
        if mode == "tree" else {}
    r = branch_and_price(X, k, threads=1, **kw)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.fixed_pairs == len(r.fixed)
    for pair in r.fixed:
        # a fixed pair is together in no optimal partition
        assert together.get(pair, np.inf) > opt + 1e-9, pair
    off = branch_and_price(X, k, threads=1, fixing=False, **kw)
    assert off.fixed_pairs == 0 and off.sse == pytest.approx(r.sse, abs=1e-7)


def test_fixing_on_a_clustered_instance():
    """Three well-separated triples: at the root the gap is closed, so every
    candidate pair across two triples is fixed, none inside one."""
    rng = np.random.default_rng(3)
    X = np.concatenate([c + rng.normal(0, 0.1, (3, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    r = branch_and_price(X, 3, threads=1, close_gap=False)
    assert r.status == "optimal" and r.fixed_pairs > 0
    groups = {tuple(sorted(g)) for g in r.partition.groups()}
    assert groups == {(0, 1, 2), (3, 4, 5), (6, 7, 8)}
    for a, b in r.fixed:
        assert a // 3 != b // 3
    assert r.summary()["fixed_pairs"] == r.fixed_pairs


def test_pair_fixing_object_refresh():
    X = np.array([[0.], [0.1], [5.], [5.1], [9.], [9.2]])
    D = squared_distances(X)
    fx = PairFixing(D, 2)
    lam = np.full(6, 0.0)
    assert fx.fix_root(lam, 0.0, ub=1e9) == 0          # huge gap: nothing fixed
    assert fx.refresh(0.05) > 0                         # tight incumbent: far pairs fixed
    assert (0, 1) not in fx.root_pairs()
