"""Reduced-cost fixing of cluster sizes (``size_fixing``, :func:`mipagg.exact.fixing.fix_sizes`):
brute force of the sizes it excludes, and trees that find the same optimum with it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mipagg.cli import main
from mipagg.exact import checkpoint
from mipagg.exact.bp import branch_and_price
from mipagg.exact.fixing import fix_sizes
from mipagg.exact.master import MasterProblem, squared_distances
from mipagg.exact.pricing._common import reduced_cost
from mipagg.exact.pricing.constraints import PricingConstraints, size_mask
from mipagg.exact.pricing.rounds import PricingContext, pricing_round
from mipagg.generators import lognormal

from _bruteforce import optimal_partition
from _strategies import tiny_instances

# the tree alone: no cuts, gap closing or count row (which closes these trees at the root)
TREE = dict(threads=1, cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
            branching="fractional", count_row=False)


def _minima(D, lam, k, cons):
    """The least reduced cost (cut penalties included) of an allowed cluster
    of each size k..2k−1, by listing them all."""
    n = D.shape[0]
    return {eta: min((reduced_cost(D, lam, list(c), eta) + cons.penalty(c)
                      for c in itertools.combinations(range(n), eta) if cons.allows(c)),
                     default=np.inf)
            for eta in range(k, min(2 * k, n + 1))}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 3), st.floats(-0.5, 2.0))
def test_the_sizes_fixed_are_those_without_a_cluster_below_the_threshold(seed, k, threshold):
    """From 2k − 1 down, a size is excluded exactly while none of its allowed
    clusters (together and apart pairs, subset-row cut penalties) has a
    reduced cost below the threshold; sizes already excluded stay so and are
    not searched (ties and duplicate records included)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2 * k, 10))
    D = squared_distances(rng.integers(0, 4, size=(n, 2)).astype(float))
    lam = rng.uniform(0.0, 3.0, n)
    pairs = list(itertools.combinations(range(n), 2))
    picks = rng.choice(len(pairs), size=3, replace=False)
    cuts = [(tuple(sorted(rng.choice(n, 3, replace=False).tolist())), float(rng.uniform(0, 2)))
            for _ in range(int(rng.integers(0, 3)))]
    cons = PricingConstraints.build(n, together=[pairs[picks[0]]] if seed % 2 else [],
                                    apart=[pairs[i] for i in picks[1:]], cuts=cuts)
    true = _minima(D, lam, k, cons)
    if any(abs(m - threshold) < 1e-7 for m in true.values()):
        return                                  # a tie with the threshold: either answer holds
    expected = 0
    for eta in range(min(2 * k - 1, n), k - 1, -1):
        if true[eta] < threshold:
            break
        expected |= 1 << eta
    ctx = PricingContext(D, k)
    assert fix_sizes(ctx, lam, cons, threshold) == expected
    top = size_mask([2 * k - 1])                # already out: kept, and the search goes on below
    assert fix_sizes(ctx, lam, cons, threshold, top) & top == top


def test_an_excluded_size_is_never_priced_nor_allowed_in_the_master():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 2))
    D = squared_distances(X)
    lam = np.full(12, 5.0)                      # every cluster of every size is negative
    cons = PricingConstraints.build(12, sizes_out=size_mask([4, 5]))
    r = pricing_round(PricingContext(D, 3), lam, mode="enumeration", constraints=cons,
                      complete=True, max_columns=50)
    assert r.columns and {len(c) for c in r.columns} == {3}
    assert r.min_reduced_costs[4] == r.min_reduced_costs[5] == np.inf and r.complete(3)
    mp = MasterProblem(X)
    mp.add_columns([np.arange(i, i + 3) for i in range(0, 12, 3)] + [np.arange(4), np.arange(5)])
    np.testing.assert_array_equal(mp.columns_of_sizes(size_mask([4, 5])),
                                  [False] * 4 + [True, True])


def test_the_size_mask_follows_columns_added_and_dropped():
    """columns_of_sizes keeps the column sizes between calls: they must
    follow every column added and every drop (a new epoch)."""
    rng = np.random.default_rng(2)
    mp = MasterProblem(rng.normal(size=(12, 2)))
    mp.add_columns([np.arange(i, i + 3) for i in range(0, 12, 3)])
    assert not mp.columns_of_sizes(size_mask([4, 5])).any()
    mp.add_columns([np.arange(4), np.arange(5)])
    mp.solve()
    drop = np.zeros(len(mp.columns), dtype=bool)
    drop[mp.columns_of_sizes(size_mask([4])).nonzero()[0]] = True   # nonbasic: 0..3 cover
    assert mp.drop_columns(drop) == 1
    mp.add_columns([np.arange(6, 12)])
    want = [len(c) in (5, 6) for c in mp.columns]
    np.testing.assert_array_equal(mp.columns_of_sizes(size_mask([5, 6])), want)
    assert want == [False] * 4 + [True, True]


@settings(max_examples=25, deadline=None)
@given(tiny_instances(max_n=9, max_k=3))
def test_bp_with_size_fixing_finds_the_optimum(inst):
    X, k = inst
    r = branch_and_price(X, k, size_fixing=True, **TREE)
    assert r.status == "optimal"
    assert r.sse == pytest.approx(optimal_partition(X, k)[0], abs=1e-7)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_tree_excludes_sizes_and_keeps_its_optimum(workers):
    """A 50-record lognormal tree of 75 nodes (k = 3): with size fixing it
    excludes sizes at its nodes and proves the same optimum, serially and
    on two workers."""
    X = lognormal(50, 6, seed=2).X
    off = branch_and_price(X, 3, **TREE)
    on = branch_and_price(X, 3, size_fixing=True, workers=workers, **TREE)
    assert off.status == on.status == "optimal" and off.nodes > 20
    assert on.sse == pytest.approx(off.sse, abs=1e-7)
    assert off.node_fixed_sizes == 0 and on.node_fixed_sizes > 0
    assert on.summary()["node_fixed_sizes"] == on.node_fixed_sizes


def test_a_checkpoint_keeps_the_sizes_a_node_excludes(tmp_path):
    X = lognormal(50, 6, seed=2).X
    path = tmp_path / "t.npz"
    part = branch_and_price(X, 3, size_fixing=True, node_limit=30, checkpoint=path, **TREE)
    assert part.status == "node_limit" and part.node_fixed_sizes > 0
    saved = checkpoint.load(path)
    assert any(nd.sizes_out for nd in saved.nodes)
    assert all(nd.sizes_out & ~size_mask([4, 5]) == 0 for nd in saved.nodes)
    again = branch_and_price(X, 3, resume=path, size_fixing=True, **TREE)
    off = branch_and_price(X, 3, **TREE)
    assert again.status == "optimal" and again.sse == pytest.approx(off.sse, abs=1e-7)
    assert again.node_fixed_sizes >= part.node_fixed_sizes


def test_mipagg_tree_counts_the_open_nodes_excluding_each_size(tmp_path, capsys):
    """The summary counts, per size, the open nodes whose mask excludes it,
    as a direct count over the saved nodes does; ``mipagg tree`` prints them."""
    X = lognormal(50, 6, seed=2).X
    path = tmp_path / "t.npz"
    branch_and_price(X, 3, size_fixing=True, node_limit=30, checkpoint=path, **TREE)
    saved = checkpoint.load(path)
    s = checkpoint.summary(saved)
    live = [saved.nodes[i] for i in saved.live()]
    want = {str(eta): sum(bool(nd.sizes_out >> eta & 1) for nd in live) for eta in (3, 4, 5)}
    assert s["open_sizes_out"] == {eta: c for eta, c in want.items() if c}
    assert s["open_sizes_out"] and set(s["open_sizes_out"]) <= {"4", "5"}
    assert s["node_fixed_sizes"] == saved.meta["counts"]["node_fixed_sizes"] > 0
    assert main(["tree", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"size fixing: {s['node_fixed_sizes']:,} sizes excluded at nodes" in out
    for eta, c in s["open_sizes_out"].items():
        assert f"size {eta}: {c:,}" in out


def test_sizes_out_counts_reads_each_bit():
    assert checkpoint.sizes_out_counts([size_mask([8, 9]), size_mask([9]), 0]) == {"8": 1, "9": 2}
    assert checkpoint.sizes_out_counts([]) == {}
