"""Partial gap closing at the root (``close_gap_partial`` of bp and cg,
mipagg.exact.gapclosing) and at tree nodes (``node_close_partial``): when the
clusters below UB − LB are too many, the integer master over those below the
largest threshold τ that fits certifies min(its bound, LB + τ), and proves
its optimum when that is below LB + τ.
Checked against the brute-force optimum on tiny instances and against bp's
own optimum on Census subsets where the full enumeration does not fit."""

from __future__ import annotations

import pytest
from _bruteforce import optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings, strategies as st

from mipagg.errors import ParameterError
from mipagg.exact.bp import branch_and_price
from mipagg.exact.colgen import column_generation
from mipagg.exact.gapclosing import GAP_CLOSING_OUTCOMES
from mipagg.subsets import subset

# the root alone, no cuts, no heuristics: the closing is all that lifts the LP bound
PARTIAL = 2000          # clusters of a partial closing
ROOT = dict(node_limit=1, cuts=False, mip_time=0, dive_time=0, node_close_max_columns=0,
            threads=1)


@pytest.fixture(scope="module")
def block40(census):
    """40 Census records at k = 4 (more than 2 000 clusters below the root's
    gap) and their optimum by bp without limits."""
    s = subset(census, 40, "random", 0)
    return s.X, branch_and_price(s.X, 4, threads=1).sse


def test_partial_closing_proves_the_optimum_the_full_enumeration_cannot_reach(block40):
    X, opt = block40
    full = branch_and_price(X, 4, close_gap_max_columns=2000, close_gap_partial=0, **ROOT)
    assert full.gap_closing == "too_many_columns" and full.status == "node_limit"
    r = branch_and_price(X, 4, close_gap_max_columns=2000, **ROOT)   # the default: 2 000
    assert r.status == "optimal" and r.gap_closing == "optimal"
    assert r.closed_by == "gap_closing" and r.nodes == 1
    assert r.sse == pytest.approx(opt, abs=1e-7) and r.partition.is_feasible(4)
    assert r.lower_bound == pytest.approx(opt, abs=1e-7)


def test_partial_closing_certifies_a_bound_between_the_lp_bound_and_the_optimum(block40):
    X, opt = block40
    r = branch_and_price(X, 4, close_gap_max_columns=2000, close_gap_partial=500, **ROOT)
    assert r.gap_closing == "partial" and r.status == "node_limit"
    assert r.root_lp_bound + 1.0 < r.lower_bound <= opt + 1e-7   # 110.52 -> 112.31 (113.31)
    assert r.closing_bound == pytest.approx(r.lower_bound, abs=1e-9)
    assert r.sse >= opt - 1e-7
    assert r.summary()["gap_closing"] in GAP_CLOSING_OUTCOMES


@settings(max_examples=25, deadline=None)
@given(tiny_instances(min_n=6), st.integers(1, 30), st.booleans())
def test_a_partial_closing_bound_never_exceeds_the_optimum(inst, cap, cuts):
    X, k = inst
    opt = optimal_partition(X, k)[0]
    options = dict(ROOT, cuts=cuts, close_gap_max_columns=cap, close_gap_partial=cap)
    r = branch_and_price(X, k, **options)
    assert r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    if r.status == "optimal":
        assert r.sse == pytest.approx(opt, abs=1e-7)
    tree = branch_and_price(X, k, **dict(options, node_limit=None))
    assert tree.status == "optimal" and tree.sse == pytest.approx(opt, abs=1e-7)


def test_cg_closes_the_gap_partially_as_bp_does(block40):
    """cg's root (no cuts): the full enumeration does not fit in 2 000
    clusters; 2 000 of least reduced cost (the default) prove the optimum,
    500 certify a bound above the LP bound (110.52 -> 112.38, optimum 113.31)."""
    X, opt = block40
    cap = dict(close_gap_max_columns=2000, threads=1)
    full = column_generation(X, 4, close_gap_partial=0, **cap)
    assert full.gap_closing == "too_many_columns" and full.status == "converged"
    assert full.lower_bound == full.lp_bound < opt - 1.0
    r = column_generation(X, 4, **cap)
    assert r.status == "optimal" and r.gap_closing == "optimal"
    assert r.bound_source == "enumeration" and r.partition.is_feasible(4)
    assert r.sse == pytest.approx(opt, abs=1e-7) and r.lower_bound == pytest.approx(opt, abs=1e-7)
    p = column_generation(X, 4, close_gap_partial=500, **cap)
    assert p.gap_closing == "partial" and p.bound_source == "partial_closing"
    assert p.status == "converged"
    assert p.lp_bound + 1.0 < p.lower_bound <= opt + 1e-7 <= p.sse + 1e-7


@settings(max_examples=25, deadline=None)
@given(tiny_instances(min_n=6), st.integers(1, 30))
def test_a_cg_partial_closing_bound_never_exceeds_the_optimum(inst, cap):
    X, k = inst
    opt = optimal_partition(X, k)[0]
    r = column_generation(X, k, close_gap_max_columns=cap, close_gap_partial=cap, threads=1)
    assert r.lp_bound - 1e-7 <= r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    if r.status == "optimal":
        assert r.sse == pytest.approx(opt, abs=1e-7)


@pytest.mark.parametrize("name", ["close_gap_partial", "node_close_partial"])
def test_partial_budgets_must_be_counts(block40, name):
    X, _ = block40
    methods = [lambda **o: branch_and_price(X, 4, **o, **ROOT)]
    if name == "close_gap_partial":
        methods.append(lambda **o: column_generation(X, 4, **o))
    for method in methods:
        for bad in ("yes", True, -1, 2.5):
            with pytest.raises(ParameterError, match=f"{name} must be an integer"):
                method(**{name: bad})


# the tree with no root closing, no pool MIP, no dive, and full node closings
# capped at 50 clusters: too few for the 40-record block's nodes; the
# most-fractional rule, whose first 8 nodes on block40 each reach a node closing
TREE = dict(close_gap=False, mip_time=0, dive_time=0, node_close_max_columns=50, threads=1,
            branching="fractional")


def test_partial_node_closings_find_the_optimum_and_shrink_the_tree(block40):
    X, opt = block40
    plain = branch_and_price(X, 4, **TREE)
    r = branch_and_price(X, 4, node_close_partial=PARTIAL, **TREE)
    for res in (plain, r):
        assert res.status == "optimal" and res.sse == pytest.approx(opt, abs=1e-7)
    assert plain.node_partial_closings == 0
    assert r.node_partial_closings >= 1 and r.node_closing_incumbents >= 1
    assert r.nodes < plain.nodes / 10          # 3 nodes against 333
    assert r.summary()["node_partial_closings"] == r.node_partial_closings


def test_node_close_gap_tries_full_closings_where_failures_lowered_the_threshold(block40):
    """Full node closings capped at 50 clusters fail, and each failure lowers
    the adaptive threshold; ``node_close_gap`` keeps trying them at every node
    whose gap is below that share of the incumbent, and the tree still ends at
    the optimum."""
    X, opt = block40
    plain = branch_and_price(X, 4, node_limit=8, **TREE)
    r = branch_and_price(X, 4, node_limit=8, node_close_gap=1.0, **TREE)
    assert plain.node_closings < 7 and r.node_closings == 7        # 2 and every node but the root
    plain = branch_and_price(X, 4, **TREE)
    r = branch_and_price(X, 4, node_close_gap=0.01, **TREE)
    for res in (plain, r):
        assert res.status == "optimal" and res.sse == pytest.approx(opt, abs=1e-7)
    assert r.node_closings > plain.node_closings          # 63 against 13
    with pytest.raises(ParameterError, match="node_close_gap"):
        branch_and_price(X, 4, node_close_gap=-0.1)


def test_failed_node_closings_are_counted_by_cause(block40, tmp_path, capsys):
    """50 clusters are too few at every node of the 40-record block, 0.1 ms
    too short: the counts by cause add up to the closings, go on in a resumed
    tree and over two workers, and ``mipagg tree`` prints them."""
    from mipagg.cli import main

    X, _ = block40
    options = dict(TREE, node_close_gap=1.0, node_cut_rounds=0)   # every node reaches its closing
    a = branch_and_price(X, 4, node_limit=8, checkpoint=tmp_path / "a.npz", **options)
    assert (a.node_closings, a.node_closings_too_large, a.node_closings_timed_out) == (7, 7, 0)
    b = branch_and_price(X, 4, node_limit=16, resume=tmp_path / "a.npz", **options)
    two = branch_and_price(X, 4, node_limit=16, workers=2, **options)
    for r in (b, two):
        assert r.node_closings == r.node_closings_too_large == 15 and r.nodes_enumerated == 0
    assert b.summary()["node_closings_too_large"] == 15
    timed = branch_and_price(X, 4, node_limit=8, close_gap=False, mip_time=0, dive_time=0,
                             threads=1, node_close_time=1e-4, time_limit=600, node_close_gap=1.0,
                             branching="fractional")
    assert (timed.node_closings, timed.node_closings_timed_out) == (7, 7)
    assert timed.node_closings_too_large == 0
    capsys.readouterr()
    main(["tree", str(tmp_path / "a.npz")])
    assert "0 stopped by their time limit, 7 with too many clusters" in capsys.readouterr().out


@pytest.mark.parametrize("cap", [50, 300])
def test_small_partial_node_closings_lift_bounds_that_stay_below_the_optimum(block40, cap):
    """Full node closings off, partial ones over too few clusters to find
    the optimum at once: the bounds after 8 nodes lie between the plain tree's and the
    optimum, and the whole tree still ends at the optimum."""
    X, opt = block40
    options = dict(TREE, node_close_max_columns=0)
    plain = branch_and_price(X, 4, node_limit=8, **options)
    r = branch_and_price(X, 4, node_limit=8, node_close_partial=cap, **options)
    assert r.node_closings == 7                          # every node but the root
    assert 1 <= r.node_partial_closings <= 7             # those where a threshold fitted
    assert plain.lower_bound < r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    tree = branch_and_price(X, 4, node_close_partial=cap, **options)
    assert tree.status == "optimal" and tree.sse == pytest.approx(opt, abs=1e-7)


def test_partial_node_closings_take_at_most_their_share_of_the_time(monkeypatch):
    """In a run with a time limit; without one the share does not apply."""
    from mipagg.exact import nodeclosing
    clock = [100.0]
    monkeypatch.setattr(nodeclosing.time, "perf_counter", lambda: clock[0])
    untimed = nodeclosing.NodeClosing(50_000, 1.0)
    untimed.record("partial", 2.0, full=False, partial=True, seconds=50.0)
    assert untimed.wants_partial()
    closer = nodeclosing.NodeClosing(50_000, 1.0, timed=True)
    clock[0] = 110.0                         # 10 s since the closer started
    assert closer.wants_partial()
    closer.record("partial", 2.0, full=False, partial=True, seconds=5.0)
    assert closer.wants_partial()            # 5 s of 10: the share, not above it
    closer.record("partial", 2.0, full=False, partial=True, seconds=0.5)
    assert not closer.wants_partial()
    clock[0] = 111.0
    assert closer.wants_partial()            # 5.5 s of 11
    assert (closer.tried, closer.partial, closer.limit) == (2, 2, 1.0)   # threshold kept
    closer.restart()
    assert closer.partial_seconds == 0.0 and closer.started == 111.0


def test_without_a_time_limit_partial_node_closings_do_not_depend_on_the_clock(block40,
                                                                             monkeypatch):
    """Every partial closing reports a minute more than it took (as if the
    machine were slow): an untimed tree is the same tree, serially and on
    one worker."""
    from mipagg.exact import nodeclosing
    X, opt = block40
    options = dict(TREE, node_close_max_columns=0, node_close_partial=300)
    trees = [branch_and_price(X, 4, **options)]
    record = nodeclosing.NodeClosing.record
    monkeypatch.setattr(nodeclosing.NodeClosing, "record",
                        lambda self, *a, seconds=0.0, **kw: record(self, *a, seconds=seconds + 60,
                                                                   **kw))
    trees += [branch_and_price(X, 4, **options), branch_and_price(X, 4, workers=1, **options)]
    assert trees[0].node_partial_closings >= 2
    for t in trees:
        assert t.status == "optimal" and t.sse == pytest.approx(opt, abs=1e-7)
        assert (t.nodes, t.node_partial_closings) == (trees[0].nodes,
                                                      trees[0].node_partial_closings)


@settings(max_examples=25, deadline=None)
@given(tiny_instances(min_n=6), st.integers(1, 30), st.integers(1, 4))
def test_partial_node_closings_keep_every_bound_certified(inst, cap, nodes):
    """Full node closings off (``node_close_max_columns`` 0): every node
    closing is partial, over at most ``cap`` clusters."""
    X, k = inst
    opt = optimal_partition(X, k)[0]
    options = dict(close_gap=False, mip_time=0, dive_time=0, cuts=False, threads=1,
                   node_close_max_columns=0, node_close_partial=cap)
    r = branch_and_price(X, k, node_limit=nodes, **options)
    assert r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    assert r.node_partial_closings <= r.node_closings
    tree = branch_and_price(X, k, **options)
    assert tree.status == "optimal" and tree.sse == pytest.approx(opt, abs=1e-7)


@pytest.mark.parametrize("cap", [1, 5, 40, 300])
def test_the_partial_threshold_is_the_largest_that_fits_to_the_bisection(cap):
    """partial_gap_columns on 16 random points at k = 3 with zero duals: at
    most ``cap`` clusters (besides the incumbent's groups) below τ, more than
    ``cap`` below 2τ (the halving stops at the first τ that fits, the
    bisection only raises it), even when fewer fit below a 64th of the
    threshold than the old bisection-only search could reach."""
    import numpy as np

    from mipagg.exact.gapclosing import gap_columns, partial_gap_columns
    from mipagg.partition import Partition

    rng = np.random.default_rng(cap)
    X = rng.normal(size=(16, 2))
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    best = Partition(np.arange(16) // 4, X)
    duals = np.zeros(16)                   # reduced cost = SSE of the cluster
    threshold = 50.0
    assert gap_columns(D, 3, duals, threshold, best, cap, None)[0] == "too_many_columns"
    tau, columns, _ = partial_gap_columns(D, 3, duals, threshold, best, cap, None)
    assert 0 < tau < threshold and len(columns) - best.n_groups <= cap
    assert gap_columns(D, 3, duals, 2 * tau, best, cap, None)[0] == "too_many_columns"
