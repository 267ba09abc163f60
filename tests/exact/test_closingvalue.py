"""Node gap closings given at most the time of the subtree they would save
(``node_close_cost``, mipagg.exact.closingvalue): the abstract branching
model's subtree size against its recursion, the budgets and the nodes turned
down, and bp with the rule on: the brute-force optimum serially and on two
workers, each closing within its budget, the nodes turned down counted, and
the model kept through a checkpoint."""

from __future__ import annotations

import functools
import math
import os
from pathlib import Path

import pytest
from _bruteforce import optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings, strategies as st

from mipagg.cli import main
from mipagg.errors import ParameterError
from mipagg.exact import checkpoint
from mipagg.exact.bp import branch_and_price
from mipagg.exact.closingvalue import (CAP, MIN_FIT, PRIOR_NODES, ClosingValue,
                                      branching_seconds, subtree_nodes)
from mipagg.exact.nodeclosing import NodeClosing
from mipagg.subsets import subset

NODE_CLOSING = dict(cuts=False, close_gap=False, mip_time=0, threads=1)


def _recursion(gap: float, a: float, b: float) -> int:
    """T(g) = 0 for g ≤ 0, else 2 + T(g − a) + T(g − b), as written."""
    return 0 if gap <= 0 else 2 + _recursion(gap - a, a, b) + _recursion(gap - b, a, b)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 24), st.integers(2, 12), st.integers(2, 12))
def test_the_closed_form_counts_the_recursions_nodes(gap, a, b):
    """Quarters are exact in binary, so the boundaries (a gap used up to 0)
    fall the same way in both."""
    assert subtree_nodes(gap / 4, a / 4, b / 4) == _recursion(gap / 4, a / 4, b / 4)


def test_subtree_sizes_by_hand_and_at_the_extremes():
    assert subtree_nodes(3.0, 1.0, 1.0) == 2 * (2 ** 3 - 1)     # a full tree of depth 3
    assert subtree_nodes(1.0, 1.0, 5.0) == 2                    # one branching closes it
    assert subtree_nodes(0.0, 1.0, 1.0) == subtree_nodes(-1.0, 1.0, 1.0) == 0
    assert subtree_nodes(1.0, 0.0, 1.0) == CAP                  # a side that never gains
    assert subtree_nodes(200.0, 1.0, 1.0) == CAP                # 2^200 nodes: capped
    assert subtree_nodes(2.5, 0.5, 2.0) == subtree_nodes(2.5, 2.0, 0.5)


def _value(gain=1.0, node=1.0, closings=((10.0, True),)) -> ClosingValue:
    v = ClosingValue()
    for side in (0, 1):
        v.observe_gain(side, gain)
    v.observe_node(node)
    for seconds, closed in closings:
        v.observe_closing(seconds, closed)
    return v


def test_a_closing_may_take_what_branching_its_subtree_would():
    """Gains of 1 on both sides: a gap of 3 grows 14 nodes below the node, a
    gap of 2 grows 6; at 1 s per node those are the closing's seconds."""
    v = _value()
    assert v.expected_nodes(3.0) == 14 and v.expected_nodes(2.0) == 6
    assert v.budget(3.0, 99.0) == 14.0          # the mean of ended nodes, not this one's
    v.observe_node(2.0)
    assert v.budget(2.0, 99.0) == pytest.approx(6 * 1.5)
    v.observe_gain(0, 3.0)                      # side 0's mean: 2
    assert v.expected_nodes(2.0) == subtree_nodes(2.0, 2.0, 1.0) == 4


def test_before_the_tree_has_taught_it_the_model_takes_priors():
    """No gain yet: PRIOR_NODES nodes; gains of one side only: their mean on
    both; no node ended yet: the current node's seconds; unknown sides and
    infinite gains are left out, a gain below 0 (tolerances) counts as 0."""
    v = ClosingValue()
    assert v.budget(5.0, 2.0) == PRIOR_NODES * 2.0
    v.observe_gain(-1, 1.0)
    v.observe_gain(0, math.inf)
    assert v.expected_nodes(5.0) == PRIOR_NODES
    v.observe_gain(0, 1.0)
    v.observe_gain(0, 2.0)
    assert v.expected_nodes(3.0) == subtree_nodes(3.0, 1.5, 1.5)
    v.observe_gain(1, -3.0)
    assert list(v.gains[1]) == [0.0] and v.expected_nodes(3.0) == CAP


def test_a_node_is_turned_down_when_its_budget_cannot_fit_a_closing_that_closes():
    v = ClosingValue()
    assert v.worth(1e-9) and not v.worth(0.0)
    v.observe_closing(5.0, False)               # failures do not set the floor
    assert v.worth(1.0)
    v.observe_closing(10.0, True)
    v.observe_closing(12.0, True)
    assert not v.worth(9.9) and v.worth(10.0)


def test_a_slow_closing_at_a_large_gap_does_not_bar_smaller_gaps():
    v = ClosingValue()
    v.observe_closing(9.6, True, 0.13)           # the first closing of a resumed tree
    assert not v.worth(0.5, 0.13) and not v.worth(0.5, 0.2) and not v.worth(0.5)
    assert v.worth(0.5, 0.05)                    # no closing closed at a gap this small
    v.observe_closing(0.1, False, 0.01)          # failures still do not set the floor
    assert v.worth(0.05, 0.02)
    v.observe_closing(0.2, True, 0.01)
    assert not v.worth(0.1, 0.02) and v.worth(0.2, 0.02) and not v.worth(0.1, 0.5)


def test_the_threshold_comes_first_and_turned_down_nodes_are_counted():
    c = NodeClosing(50_000, 1.0, cost=True)
    c.value = _value(closings=((100.0, True),))
    assert c.budget(0.5, 0.0) == 2.0                    # 2 nodes × 1 s
    assert not c.wants(2.0) and c.wants(0.5)            # the threshold, as without the rule
    assert not c.affords(2.0) and c.skipped == 1        # 2 s against 100 s
    assert c.affords(100.0) and c.affords(None) and c.skipped == 1
    c.record("optimal", 0.5, seconds=1.0)
    assert list(c.value.closings)[-1] == (1.0, True, 0.5)
    plain = NodeClosing(50_000, 1.0)
    assert plain.value is None and plain.budget(0.5, 1.0) is None
    assert NodeClosing(0, 1.0, cost=True).value is None


@settings(max_examples=10, deadline=None)
@given(tiny_instances(min_n=8))
def test_bp_with_the_rule_reaches_the_brute_force_optimum(inst):
    X, k = inst
    opt = optimal_partition(X, k)[0]
    r = branch_and_price(X, k, node_close_cost=True, **NODE_CLOSING)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)


def _branching(gap, a, b, node, closing, fail):
    """B(g) = 2·node + W(g − a) + W(g − b), W(h) = min(B(h), c(h) + fail·B(h)), as written."""
    @functools.lru_cache(maxsize=None)
    def w(h):
        if h <= 1e-9:
            return 0.0
        return min(bb(h), closing(h) + fail * bb(h))

    def bb(h):
        return 2 * node + w(round(h - a, 9)) + w(round(h - b, 9))
    return bb(gap) if gap > 1e-9 else 0.0


_GAINS = st.floats(0.2, 3.0)


@settings(max_examples=150, deadline=None)
@given(st.floats(0.0, 3.0), _GAINS, _GAINS, st.floats(0.01, 5.0), st.floats(0.0, 1.0),
       st.floats(0.0, 3.0), st.floats(0.0, 2.0))
def test_branching_with_the_subtrees_closings_by_its_recursion(gap, a, b, node, fail, c0, c1):
    """branching_seconds is its recursion; never above branching without
    closings (node × subtree_nodes), and equal to it when closings cost
    more than any subtree."""
    a, b = round(a, 2), round(b, 2)
    gap = round(gap, 2) + 0.001         # every state at least 0.001 from the cutoff
    closing = lambda h: c0 + c1 * h * h                                  # noqa: E731
    got = branching_seconds(gap, a, b, node, closing, fail)
    assert got == pytest.approx(_branching(gap, a, b, node, closing, fail), rel=1e-9)
    plain = node * subtree_nodes(gap, a, b)
    assert got <= plain * (1 + 1e-12)
    never = branching_seconds(gap, a, b, node, lambda h: math.inf, fail)
    assert never == pytest.approx(plain, rel=1e-12)


def test_the_closing_seconds_fit_and_the_nested_budget():
    v = ClosingValue(nested=True)
    for side in (0, 1):
        v.observe_gain(side, 0.1)
    v.observe_node(1.0)
    for g in (0.1, 0.2, 0.3, 0.4):
        v.observe_closing(math.exp(-2 + 5 * g), True, g)
    assert MIN_FIT == 5 and v.closing_seconds(0.5) == math.inf
    assert v.budget(0.35, 0.0) == 1.0 * subtree_nodes(0.35, 0.1, 0.1)   # no fit yet
    v.observe_closing(math.exp(-2 + 5 * 0.5), True, 0.5)
    v.observe_closing(99.0, False, 0.6)                 # failures do not enter the fit
    v.observe_closing(5.0, True)                        # nor closings of unknown gap
    assert v.closing_seconds(0.25) == pytest.approx(math.exp(-0.75))
    want = branching_seconds(0.35, 0.1, 0.1, 1.0, v.closing_seconds, 1 / 7)
    assert v.budget(0.35, 0.0) == pytest.approx(want)
    assert want < 1.0 * subtree_nodes(0.35, 0.1, 0.1)  # children closed for less than branched
    v.observe_closing(1.0, True, 10.0)                  # slower closings at smaller gaps: β = 0
    v.observe_closing(1e4, True, 0.01)
    assert v.closing_seconds(100.0) == v.closing_seconds(0.0)
    old = ClosingValue()
    old.adopt({"gains": [[], []], "node_seconds": [], "closings": [[2.0, True]]})
    assert list(old.closings) == [(2.0, True, None)]  # a checkpoint from before the gaps


@settings(max_examples=10, deadline=None)
@given(tiny_instances(min_n=8))
def test_bp_with_nested_budgets_reaches_the_brute_force_optimum(inst):
    X, k = inst
    opt = optimal_partition(X, k)[0]
    r = branch_and_price(X, k, node_close_cost=True, node_close_nested=True, **NODE_CLOSING)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)



@pytest.mark.parametrize("workers", [1, 2])
def test_turned_down_closings_are_counted_and_the_optimum_stays(tree24, monkeypatch, workers):
    """With the rule saying no to every node the tree tries no closing and
    proves the optimum by branching alone; the nodes turned down are counted
    (on two workers, added up from theirs)."""
    X, opt = tree24
    on = branch_and_price(X, 3, **NODE_CLOSING)
    assert on.node_closings >= 1
    monkeypatch.setattr(ClosingValue, "worth", lambda self, budget, gap=None: False)
    r = branch_and_price(X, 3, node_close_cost=True, workers=workers, **NODE_CLOSING)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.node_closings == 0 and r.node_closings_skipped >= 1
    assert r.nodes > on.nodes
    assert r.summary()["node_closings_skipped"] == r.node_closings_skipped


def test_the_count_survives_a_checkpoint(tree24, tmp_path, monkeypatch, capsys):
    X, opt = tree24
    monkeypatch.setattr(ClosingValue, "worth", lambda self, budget, gap=None: False)
    path = tmp_path / "t.npz"
    r = branch_and_price(X, 3, node_close_cost=True, node_limit=6, checkpoint=str(path),
                         **NODE_CLOSING)
    assert r.status == "node_limit" and r.node_closings_skipped >= 1
    s = checkpoint.summary(checkpoint.load(path))
    assert s["node_closings_skipped"] == r.node_closings_skipped
    assert main(["tree", str(path)]) == 0
    assert f"{r.node_closings_skipped:,} nodes turned down" in capsys.readouterr().out
    kept = checkpoint.load(path).meta["closer"]["value"]      # the model goes on from it
    assert len(kept["node_seconds"]) == r.nodes - 1 and sum(map(len, kept["gains"])) >= 1
    again = ClosingValue()
    again.adopt(kept)
    assert again.state() == kept
    adopted = []
    real = ClosingValue.adopt
    monkeypatch.setattr(ClosingValue, "adopt", lambda self, st: adopted.append(st) or
                        real(self, st))
    done = branch_and_price(X, 3, node_close_cost=True, resume=str(path), **NODE_CLOSING)
    assert adopted == [checkpoint.load(path).meta["closer"]["value"]]
    assert done.status == "optimal" and done.sse == pytest.approx(opt, abs=1e-7)
    assert done.node_closings_skipped > r.node_closings_skipped


_OBSERVATION = st.one_of(
    st.tuples(st.just("gain"), st.sampled_from([-1, 0, 1]), st.floats(-1, 10)),
    st.tuples(st.just("node"), st.floats(0, 5)),
    st.tuples(st.just("closing"), st.floats(0, 5), st.booleans()))


@given(st.lists(_OBSERVATION, max_size=150), st.integers(0, 150))
@settings(max_examples=60, deadline=None)
def test_what_a_worker_saw_reaches_the_coordinators_model(events, cut):
    """A worker's fresh observations (``take_fresh``), absorbed by another
    model in one or two hand-overs, leave both with the same recent window;
    a hand-over is never repeated."""
    worker, coordinator = ClosingValue(), ClosingValue()
    for i, (kind, *args) in enumerate(events):
        getattr(worker, f"observe_{kind}")(*args)
        if i + 1 == cut:
            coordinator.absorb(worker.take_fresh())
    coordinator.absorb(worker.take_fresh())
    assert coordinator.state() == worker.state()
    assert worker.take_fresh() == {"gains": [[], []], "node_seconds": [], "closings": []}


def test_on_two_workers_the_checkpoint_keeps_what_the_workers_learnt(tree24, tmp_path,
                                                                    monkeypatch):
    """The coordinator solves no node after the root; the model it saves is
    the workers' (one node time per node they solved)."""
    X, _ = tree24
    monkeypatch.setattr(ClosingValue, "worth", lambda self, budget, gap=None: False)
    path = tmp_path / "t.npz"
    r = branch_and_price(X, 3, node_close_cost=True, node_limit=8, workers=2,
                         checkpoint=str(path), **NODE_CLOSING)
    assert r.status == "node_limit" and r.nodes > 2
    kept = checkpoint.load(path).meta["closer"]["value"]
    assert len(kept["node_seconds"]) == r.nodes - 1 and sum(map(len, kept["gains"])) >= 2


def test_the_rule_learns_in_a_real_tree(census, monkeypatch):
    """Unpatched, on 40 Census records at k = 4 with node closings capped at
    50 clusters (most fail) and tried at every node (``node_close_gap``):
    every closing the threshold lets through is weighed with a positive
    budget, the counts add up, and the optimum is the one found without the
    rule (the budgets read the clock, so the tree's size may vary)."""
    X = subset(census, 40, "random", 0).X
    options = dict(NODE_CLOSING, dive_time=0, node_close_max_columns=50, node_close_gap=1.0,
                   branching="fractional")
    plain = branch_and_price(X, 4, **options)
    seen = []
    real = ClosingValue.worth

    def spy(self, budget, gap=None):
        assert gap is not None and gap >= 0
        out = real(self, budget, gap)
        seen.append((budget, out))
        return out

    monkeypatch.setattr(ClosingValue, "worth", spy)
    r = branch_and_price(X, 4, node_close_cost=True, **options)
    assert r.status == plain.status == "optimal"
    assert r.sse == pytest.approx(plain.sse, abs=1e-7)
    assert plain.node_closings_skipped == 0
    assert all(budget > 0 for budget, _ in seen)
    assert r.node_closings == sum(out for _, out in seen)
    assert r.node_closings_skipped == sum(not out for _, out in seen)


def test_on_by_default_with_a_time_limit_only(tree24, monkeypatch):
    """Like ``node_close_time``, the rule reads the clock: bp's default turns
    it on in a run with a time limit (and on its workers), off without one."""
    from mipagg.exact import nodeclosing

    made = []

    class Counted(ClosingValue):
        def __init__(self, *args, **kwargs):
            made.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(nodeclosing, "ClosingValue", Counted)
    X, opt = tree24
    for options, on in [({}, False), ({"time_limit": 600}, True),
                        ({"time_limit": 600, "node_close_cost": False}, False),
                        ({"node_close_cost": True}, True)]:
        made.clear()
        r = branch_and_price(X, 3, **options, **NODE_CLOSING)
        assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
        assert bool(made) == on, options


def test_the_option_is_a_flag():
    with pytest.raises(ParameterError, match="node_close_cost"):
        branch_and_price([[0.0], [1.0], [2.0], [3.0]], 2, node_close_cost="yes")
    with pytest.raises(ParameterError, match="node_close_nested"):
        branch_and_price([[0.0], [1.0], [2.0], [3.0]], 2, node_close_nested="yes")


@pytest.mark.parametrize("workers", [1, 2])
def test_nested_budgets_in_the_tree_and_its_workers(tree24, monkeypatch, workers):
    """With ``node_close_nested`` every budget (on two workers too, whose
    models a task replaces) is the nested one; the optimum stays."""
    X, opt = tree24
    nested = []
    real = ClosingValue.budget
    monkeypatch.setattr(ClosingValue, "budget", lambda self, gap, seconds: nested.append(
        self.nested) or real(self, gap, seconds))
    r = branch_and_price(X, 3, node_close_cost=True, node_close_nested=True, workers=workers,
                         time_limit=600, **NODE_CLOSING)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    if workers == 1:
        assert nested and all(nested)


def test_a_closing_keeps_to_its_budget(tree24, monkeypatch, closing_deadlines):
    """Each full closing's deadline is its budget after it starts (the
    default ``node_close_time`` above it); the optimum is unchanged."""
    X, opt = tree24
    seen = closing_deadlines
    monkeypatch.setattr(ClosingValue, "budget", lambda self, gap, seconds: 0.5)
    r = branch_and_price(X, 3, node_close_cost=True, time_limit=600, **NODE_CLOSING)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.node_closings >= 1 and len(seen) == r.node_closings
    assert all(0 < left <= 0.5 for left in seen)


def test_the_cli_takes_it_as_on_or_off(capsys):
    path = str(Path(__file__).resolve().parents[2] / "instances" / "normal_n11_p3_seed1.csv")
    assert main(["run", path, "-k", "3", "--method", "bp", "--node-close-cost", "off",
                 "--time-limit", "30"]) == 0
    assert "'node_close_cost': False" in capsys.readouterr().out
    assert main(["run", path, "-k", "3", "--method", "bp", "--node-close-nested", "on",
                 "--time-limit", "30"]) == 0
    assert "'node_close_nested': True" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["run", path, "-k", "3", "--method", "bp", "--node-close-cost", "yes"])
    assert stop.value.code == 2 and "expected on or off" in capsys.readouterr().err


def test_on_two_workers_the_closing_threshold_is_one(tree24, tmp_path, monkeypatch):
    """The node gap-closing threshold a worker's closing sets goes back to
    the coordinator, which the checkpoint keeps and the next task takes up.
    Here each closing sets it to its worker's process id: the coordinator,
    which closes no node after the root, then holds a worker's."""
    X, _ = tree24
    real = NodeClosing.record

    def record(self, *args, **kw):
        real(self, *args, **kw)
        self.limit = float(os.getpid())

    monkeypatch.setattr(NodeClosing, "record", record)
    path = tmp_path / "t.npz"
    r = branch_and_price(X, 3, workers=2, checkpoint=str(path), **NODE_CLOSING)
    assert r.node_closings >= 1
    kept = checkpoint.load(path).meta["closer"]["limit"]
    assert kept.is_integer() and kept != os.getpid()


def test_a_worker_takes_up_the_coordinators_threshold_and_model(tree24):
    """A task brings the coordinator's threshold and model (all the workers'
    observations) to its worker, which keeps its own settings
    (``node_close_nested``) and hands back only its own observations: the
    node time of the node it solved, no threshold (it closed no node)."""
    X, _ = tree24
    from mipagg.exact import parallel
    from mipagg.exact.bp import BranchAndPrice
    from mipagg.exact.settings import BPSettings

    tree = BranchAndPrice(X, 3, BPSettings(**NODE_CLOSING, node_close_cost=True, node_limit=1,
                                           node_close_nested=True))
    assert tree.run().status == "node_limit"
    worker = parallel.build_worker(parallel.snapshot(tree))
    model = {"gains": [[1.0], [2.0]], "node_seconds": [123.0], "closings": [[4.0, True]]}
    task = parallel.SubtreeTask(tree.root_bound, 0, (), (), tree.rounder.best_sse,
                                tree.rounder.best.labels, None, 1, closing_limit=-1.0,
                                closing_model=model)
    r = parallel.solve_subtree(worker, task)
    assert r.counts["nodes"] == 1 and r.closing_limit is None
    assert worker.closer.limit == -1.0 and worker.closer.value.nested
    seen = worker.closer.value.state()
    assert seen["node_seconds"][0] == 123.0 and len(seen["node_seconds"]) == 2
    assert seen["gains"][0][0] == 1.0 and seen["closings"][0] == [4.0, True, None]
    assert r.closing_value["node_seconds"] == seen["node_seconds"][1:]
