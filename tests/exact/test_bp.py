"""Branch-and-price (method ``bp``): optimal on tiny instances (brute force,
ties and duplicates), equal to the full MIP of mipagg.exact.reference on
Census subsets, certified bounds, limits, and the tree itself (cuts and gap
closing switched off so the instances need branching)."""

from __future__ import annotations

import numpy as np
import pytest
from _strategies import tiny_instances
from _bruteforce import optimal_partition
from hypothesis import given, settings, strategies as st

from mipagg.exact.bp import (BPSettings, BranchAndPrice, branch_and_price, branching_pair,
                             pair_weights)
from mipagg.exact.reference import set_partitioning
from mipagg.subsets import subset

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)
NODE_CLOSING = dict(cuts=False, close_gap=False, mip_time=0)    # the tree + node gap closing



def _check(r, X, k, opt):
    assert r.partition.is_feasible(k)
    assert r.sse == pytest.approx(r.partition.sse(), abs=1e-9)
    assert r.status == "optimal"
    assert r.sse == pytest.approx(opt, abs=1e-7)
    assert r.lower_bound == pytest.approx(r.sse, abs=1e-7)
    assert r.lower_bound <= opt + 1e-7
    if r.root_lp_bound is not None:
        assert r.root_lp_bound <= opt + 1e-7
        assert r.root_cut_bound <= opt + 1e-7
        assert r.root_lp_bound <= r.root_cut_bound + 1e-9


# root gap closing that fails for too many clusters, then is tried again in the tree
RECLOSE = dict(cuts=False, close_gap_max_columns=5, mip_time=0, dive_time=0,
               node_close_max_columns=0, reclose_root=True)
MODES = {"default": {}, "tree": TREE_ONLY, "node-closing": NODE_CLOSING,
         "wentges": dict(TREE_ONLY, stabilization="wentges", alpha="auto"),
         "reclose": RECLOSE,
         "primal-nodes": dict(TREE_ONLY, reopt_lp_algorithm="primal"),
         "neighbourhood": dict(TREE_ONLY, dive_time=0, neighbourhood_time=60),
         # the closing MIPs with HiGHS presolve and the cut rows (default from 100 records)
         "presolve-closing": dict(mip_time=0, close_gap_mip="presolve")}


def test_close_gap_mip_resolves_by_size_and_refuses_unknown_names():
    from mipagg.errors import ParameterError
    from mipagg.exact.settings import PRESOLVE_MIN_N

    rng = np.random.default_rng(0)
    small = BranchAndPrice(rng.normal(size=(PRESOLVE_MIN_N - 1, 2)), 3, BPSettings())
    large = BranchAndPrice(rng.normal(size=(PRESOLVE_MIN_N, 2)), 3, BPSettings())
    assert small.closing_mip() == {"presolve": "off", "cuts": ()}
    assert large.closing_mip()["presolve"] == "on"
    assert large.closing_mip()["cuts"] is large.master.cuts     # the rows added so far
    forced = BranchAndPrice(rng.normal(size=(20, 2)), 3, BPSettings(close_gap_mip="presolve"))
    assert forced.closing_mip()["presolve"] == "on"
    plain = BranchAndPrice(rng.normal(size=(PRESOLVE_MIN_N, 2)), 3,
                           BPSettings(close_gap_mip="plain"))
    assert plain.closing_mip() == {"presolve": "off", "cuts": ()}
    with pytest.raises(ParameterError, match="close_gap_mip"):
        BPSettings(close_gap_mip="fast")


@settings(max_examples=40, deadline=None)
@given(tiny_instances(), st.sampled_from(sorted(MODES)))
def test_bp_equals_brute_force(inst, mode):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, threads=1, **MODES[mode])
    _check(r, X, k, opt)
    assert r.stabilization == ("wentges" if mode == "wentges" else None)


@settings(max_examples=30, deadline=None)
@given(tiny_instances(), st.sampled_from([1e-6, 0.01, 0.05]))
def test_node_closings_at_every_node_certify_below_the_optimum(inst, gap_tol):
    """Every node's gap closing is tried (``node_close_gap``), under a tight
    or a loose ``gap_tol``: the certified bound stays below the brute-force
    optimum, within ``gap_tol`` of the partition found."""
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, threads=1, gap_tol=gap_tol, node_close_gap=1.0, **NODE_CLOSING)
    assert r.status == "optimal" and r.partition.is_feasible(k)
    assert r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    assert r.sse - r.lower_bound <= gap_tol * r.sse + 1e-7


@pytest.mark.parametrize("criterion,k,size", [("random", 3, 22), ("consecutive", 4, 20),
                                              ("norm", 5, 16), ("random", 2, 25)])
def test_bp_equals_the_full_mip_on_census_subsets(census, criterion, k, size):
    s = subset(census, size, criterion, 0)
    ref = set_partitioning(s.X, k, integral=True)
    opt = ref[0]
    for options in ({}, TREE_ONLY):
        r = branch_and_price(s.X, k, **options)
        _check(r, s.X, k, opt)


def test_the_tree_is_searched_when_cuts_and_gap_closing_are_off(census):
    s = subset(census, 24, "random", 0)
    r = branch_and_price(s.X, 3, **TREE_ONLY)
    ref = set_partitioning(s.X, 3, integral=True)
    opt = ref[0]
    _check(r, s.X, 3, opt)
    assert r.nodes > 1 and r.closed_by == "tree" and r.max_depth >= 1


def test_tree_nodes_use_the_dual_simplex_unless_asked_and_find_the_same_optimum(census):
    """The root's LP method is ``lp_algorithm`` (primal by default); the
    tree's nodes switch the master to ``reopt_lp_algorithm`` ("auto": dual)."""
    from mipagg.errors import ParameterError

    s = subset(census, 24, "random", 0)
    opt = set_partitioning(s.X, 3, integral=True)[0]
    for method, branching in (("auto", "fractional"), ("primal", "fractional"),
                              ("ipm", "strong")):    # strong: dual-simplex probes in between
        tree = BranchAndPrice(s.X, 3, BPSettings(reopt_lp_algorithm=method, branching=branching,
                                                 **TREE_ONLY))
        assert tree.master.algorithm == "primal"            # the root's method
        r = tree.run()
        _check(r, s.X, 3, opt)
        assert r.nodes > 1 and (branching != "strong" or r.strong_evaluations > 0)
        assert tree.master.algorithm == ("dual" if method == "auto" else method)
        solver = tree.master._highs.getOptionValue("solver")[1]
        assert solver == ("ipm" if method == "ipm" else "simplex")
    with pytest.raises(ParameterError, match="reopt_lp_algorithm"):
        BPSettings(reopt_lp_algorithm="barrier")


@pytest.mark.parametrize("node_basis, plunge", [(False, 0.0), (True, 0.0), (True, 0.5),
                                                (True, 1.0)])
def test_plunging_solves_a_child_next_from_its_parents_basis(census, node_basis, plunge):
    """``plunge=1``: after a node branches, one of its children is the next
    node; ``node_basis``: a child's LP starts from its parent's final basis
    (counted in ``warm_starts``); the optimum never changes."""
    s = subset(census, 40, "random", 1)
    opt = set_partitioning(s.X, 3, integral=True)[0]
    order = []

    class Recorded(BranchAndPrice):
        def process(self, node):
            order.append((node.ident, self.ident))
            super().process(node)
            order[-1] += (self.ident,)

    # without the count row (40 = 3·13 + 1), which closes this tree in 7 nodes
    tree = Recorded(s.X, 3, BPSettings(node_basis=node_basis, plunge=plunge, count_row=False,
                                       **TREE_ONLY))
    r = tree.run()
    _check(r, s.X, 3, opt)
    branched = [(i, first, last) for i, first, last in order[:-1] if last > first]
    assert r.nodes > 5 and len(branched) >= 3
    nxt = {i: order[j + 1][0] for j, (i, _, _) in enumerate(order[:-1])}
    plunged = sum(first <= nxt[i] < last for i, first, last in branched)
    if plunge == 1.0:
        assert plunged == len(branched)
    if plunge == 0.0:
        assert plunged < len(branched)
    if node_basis:
        assert r.warm_starts >= (len(branched) if plunge == 1.0 else 1)
    else:
        assert r.warm_starts == 0


def test_master_switches_lp_method_with_the_same_value():
    from mipagg.errors import ParameterError
    from mipagg.exact.master import MasterProblem

    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 2))
    mp = MasterProblem(X, artificial_cost=100.0)
    mp.add_columns([list(range(i, i + 3)) for i in range(10)] + [[9, 10, 11], [0, 11, 5]])
    values = []
    for method in ("primal", "dual", "ipm", "primal"):
        mp.use_algorithm(method)
        assert mp.algorithm == method
        values.append(mp.solve().value)
        mp.set_allowed(np.arange(len(mp)) % 4 != 1)     # a node's fixing, then free again
        values.append(mp.solve().value)
        mp.set_allowed(None)
    assert values[0::2] == pytest.approx([values[0]] * 4, abs=1e-7)
    assert values[1::2] == pytest.approx([values[1]] * 4, abs=1e-7)
    assert values[1] >= values[0] - 1e-9
    with pytest.raises(ParameterError, match="algorithm"):
        mp.use_algorithm("barrier")


class _FailingRuns:
    """A ``Highs`` whose first ``fails`` runs report the status "Unknown"."""

    def __init__(self, h, fails):
        self._h, self.fails = h, fails

    def __getattr__(self, name):
        return getattr(self._h, name)

    def run(self):
        self.fails -= 1
        return self._h.run()

    def getModelStatus(self):
        import highspy

        if self.fails >= 0:
            return highspy.HighsModelStatus.kUnknown
        return self._h.getModelStatus()


class _FailingRunsSeen(_FailingRuns):
    """:class:`_FailingRuns` that notes HiGHS's perturbations at each run."""

    def run(self):
        from mipagg.exact.master import PERTURBATIONS

        self.seen = getattr(self, "seen", []) + [
            [self._h.getOptionValue(o)[1] for o in PERTURBATIONS]]
        return super().run()

    def setBasis(self, basis):
        self.set_again = getattr(self, "set_again", 0) + 1
        return self._h.setBasis(basis)


@pytest.mark.parametrize("method", ["primal", "dual"])
def test_master_runs_again_after_a_failed_lp_and_raises_when_all_fail(method):
    from mipagg.errors import SolverError
    from mipagg.exact.master import PERTURBATIONS, MasterProblem

    rng = np.random.default_rng(5)
    X = rng.normal(size=(15, 2))
    clusters = [list(range(i, i + 3)) for i in range(13)] + [[0, 7, 14], [12, 13, 14]]
    values = []
    for fails in (0, 1, 2, 3):
        mp = MasterProblem(X, artificial_cost=100.0, algorithm=method)
        mp.add_columns(clusters)
        mp._highs = _FailingRunsSeen(mp._highs, fails)
        values.append(mp.solve().value)
        assert mp.lp_retries == fails
        assert mp._highs.getOptionValue("simplex_strategy")[1] == (4 if method == "primal" else 1)
        # the first retry runs unperturbed, the others perturbed again
        assert mp._highs.seen == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [1.0, 1.0]][:fails + 1]
        # a run after "Unknown" sets the basis where it stopped again (not the cold start)
        assert getattr(mp._highs, "set_again", 0) == min(fails, 2)
        assert [mp._highs.getOptionValue(o)[1] for o in PERTURBATIONS] == [1.0, 1.0]
    assert values == pytest.approx([values[0]] * 4, abs=1e-9)
    mp = MasterProblem(X, artificial_cost=100.0, algorithm=method)
    mp.add_columns(clusters)
    mp._highs = _FailingRuns(mp._highs, 4)
    with pytest.raises(SolverError, match="Unknown"):
        mp.solve()
    assert mp.lp_retries == 3


def test_the_automatic_stall_cap_follows_the_longest_recent_lp():
    from mipagg.exact.master import STALL_FACTOR, STALL_FLOOR, STALL_WINDOW, MasterProblem

    rng = np.random.default_rng(5)
    X = rng.normal(size=(15, 2))
    mp = MasterProblem(X, artificial_cost=100.0)
    assert mp.stall_cap() is None                       # nothing run yet: no limit
    mp.add_columns([list(range(i, i + 3)) for i in range(13)])
    mp.solve()
    assert len(mp.lp_seconds) == 1 and 0 < mp.lp_seconds[0] < STALL_FLOOR / STALL_FACTOR
    assert mp.stall_cap() == STALL_FLOOR
    mp.lp_seconds.append(7.5)                           # one long run among short ones
    assert mp.stall_cap() == pytest.approx(STALL_FACTOR * 7.5)
    mp.lp_seconds.extend([0.5] * (STALL_WINDOW - 1))    # ... until it leaves the window
    assert mp.stall_cap() == pytest.approx(STALL_FACTOR * 7.5)
    mp.lp_seconds.append(0.5)
    assert mp.stall_cap() == STALL_FLOOR


def test_lp_stall_time_takes_auto_everywhere():
    from mipagg.api import check_seconds
    from mipagg.cli import _build_parser
    from mipagg.errors import ParameterError

    assert BPSettings().lp_stall_time == "auto"
    check_seconds({"lp_stall_time": "auto"})
    with pytest.raises(ParameterError, match="close_gap_time"):
        BPSettings(close_gap_time="auto")           # "auto" only where AUTO_SECONDS says
    with pytest.raises(ParameterError, match="lp_stall_time"):
        BPSettings(lp_stall_time="often")
    args = ["run", "x.csv", "-k", "3", "--method", "bp"]
    assert _build_parser().parse_args(args + ["--lp-stall-time", "auto"]).lp_stall_time == "auto"
    assert _build_parser().parse_args(args + ["--lp-stall-time", "4.5"]).lp_stall_time == 4.5
    with pytest.raises(SystemExit):
        _build_parser().parse_args(args + ["--lp-stall-time", "soon"])


class _StalledRuns(_FailingRuns):
    """A ``Highs`` whose first ``fails`` runs stop at the time limit, as a
    run past ``stall_time`` does, after running for real (the basis moves)."""

    def run(self):
        self.fails -= 1
        from mipagg.exact.master import PERTURBATIONS

        self.perturbations = [self._h.getOptionValue(o)[1] for o in PERTURBATIONS]
        return self._h.run()

    def getModelStatus(self):
        import highspy

        if self.fails >= 0:
            return highspy.HighsModelStatus.kTimeLimit
        return self._h.getModelStatus()


@pytest.mark.parametrize("method", ["primal", "dual"])
def test_a_stalled_master_lp_runs_again_unperturbed_and_is_dumped(method, tmp_path):
    import os

    import highspy

    from mipagg.exact.master import PERTURBATIONS, MasterProblem

    rng = np.random.default_rng(5)
    X = rng.normal(size=(15, 2))
    clusters = [list(range(i, i + 3)) for i in range(13)] + [[0, 7, 14], [12, 13, 14]]
    plain = MasterProblem(X, artificial_cost=100.0, algorithm=method)
    plain.add_columns(clusters)
    want = plain.solve().value
    mp = MasterProblem(X, artificial_cost=100.0, algorithm=method)
    mp.add_columns(clusters)
    mp.stall_time, mp.stall_dump = 30.0, str(tmp_path)
    mp._highs = _StalledRuns(mp._highs, 1)
    assert mp.solve().value == pytest.approx(want, abs=1e-9)
    assert mp.lp_stalls == 1 and mp.lp_retries == 0
    assert mp._highs.perturbations == [0.0, 0.0]        # the second run: unperturbed
    for o in PERTURBATIONS:
        assert mp._highs.getOptionValue(o)[1] == 1.0    # and restored after it
    mps, bas = (tmp_path / f"stall_{os.getpid()}_1.{e}" for e in ("mps", "bas"))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(mps))
    assert bas.exists() and h.getNumCol() == len(mp) + 15
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(want, abs=1e-7)
    mp._highs = _StalledRuns(mp._highs._h, 1)
    mp.add_columns([[1, 2, 9]])
    mp.stall_time = None                                # no cap: a time limit is a time limit
    assert mp.solve(time_limit=5.0) is None and mp.lp_stalls == 1


def test_an_unperturbed_master_runs_a_stopped_or_failed_lp_again_perturbed():
    from mipagg.exact.master import PERTURBATIONS, MasterProblem

    rng = np.random.default_rng(5)
    X = rng.normal(size=(15, 2))
    clusters = [list(range(i, i + 3)) for i in range(13)] + [[0, 7, 14], [12, 13, 14]]
    plain = MasterProblem(X, artificial_cost=100.0, algorithm="dual")
    plain.add_columns(clusters)
    want = plain.solve().value
    for runs in (_StalledRuns, _FailingRunsSeen):
        mp = MasterProblem(X, artificial_cost=100.0, algorithm="dual")
        mp.use_perturbation(False)
        mp.add_columns(clusters)
        mp.stall_time = 30.0
        mp._highs = runs(mp._highs, 1)
        assert mp.solve().value == pytest.approx(want, abs=1e-9)
        if runs is _StalledRuns:
            assert mp.lp_stalls == 1 and mp._highs.perturbations == [1.0, 1.0]
        else:
            assert mp.lp_retries == 1 and mp._highs.seen == [[0.0, 0.0], [1.0, 1.0]]
        assert [mp._highs.getOptionValue(o)[1] for o in PERTURBATIONS] == [0.0, 0.0]


def test_a_stall_limit_in_the_tree_finds_the_same_optimum(census, tmp_path, monkeypatch):
    """With ``lp_stall_time`` 0 (and HiGHS's time limit at the run time so
    far, not 1 ms more) every node LP is stopped, dumped and run again
    unperturbed: the optimum is unchanged."""
    import mipagg.exact.highs as highs
    from mipagg.errors import ParameterError

    real = highs.set_time_limit

    def at_once(h, seconds):
        if seconds == 0.0:
            h.setOptionValue("time_limit", float(h.getRunTime()))
        else:
            real(h, seconds)

    monkeypatch.setattr(highs, "set_time_limit", at_once)
    s = subset(census, 24, "random", 0)
    opt = set_partitioning(s.X, 3, integral=True)[0]
    r = branch_and_price(s.X, 3, lp_stall_time=0.0, lp_stall_dump=str(tmp_path), **TREE_ONLY)
    _check(r, s.X, 3, opt)
    assert r.nodes > 1 and r.lp_stalls >= r.nodes - 1
    calm = branch_and_price(s.X, 3, node_lp_perturbation=False, **TREE_ONLY)
    _check(calm, s.X, 3, opt)
    assert len(list(tmp_path.glob("*.mps"))) == len(list(tmp_path.glob("*.bas"))) == r.lp_stalls
    with pytest.raises(ParameterError, match="lp_stall_dump"):
        BPSettings(lp_stall_dump=str(tmp_path / "missing"))
    with pytest.raises(ParameterError, match="lp_stall_time"):
        BPSettings(lp_stall_time=-1)
    with pytest.raises(ParameterError, match="node_lp_perturbation"):
        BPSettings(node_lp_perturbation="off")


def test_node_gap_closing_closes_subtrees_at_the_optimum(census):
    s = subset(census, 24, "random", 0)
    opt = set_partitioning(s.X, 3, integral=True)[0]
    tree = branch_and_price(s.X, 3, **TREE_ONLY)
    r = branch_and_price(s.X, 3, **NODE_CLOSING)
    _check(r, s.X, 3, opt)
    assert tree.node_closings == 0
    assert r.node_closings >= r.nodes_enumerated >= 1
    assert r.nodes < tree.nodes
    assert r.summary()["nodes_enumerated"] == r.nodes_enumerated


def test_node_gap_closing_keeps_to_its_time_budget(census, closing_deadlines):
    """``node_close_time``: each node closing gets a deadline that many
    seconds after it starts (under the run's own); 0 switches closing off;
    the tree reaches the optimum either way."""
    s = subset(census, 24, "random", 0)
    opt = set_partitioning(s.X, 3, integral=True)[0]
    seen = closing_deadlines
    r = branch_and_price(s.X, 3, node_close_time=0.5, time_limit=600, **NODE_CLOSING)
    _check(r, s.X, 3, opt)
    assert r.node_closings >= 1 and len(seen) == r.node_closings
    assert all(0 < left <= 0.5 for left in seen)
    seen.clear()
    off = branch_and_price(s.X, 3, node_close_time=0, **NODE_CLOSING)
    _check(off, s.X, 3, opt)
    assert off.node_closings == 0 and not seen
    from mipagg.errors import ParameterError

    with pytest.raises(ParameterError, match="node_close_time"):
        branch_and_price(s.X, 3, node_close_time=-1)


def test_node_closing_threshold_shrinks_after_a_failure_and_grows_after_a_success():
    """A closing that ran out of clusters or of its time budget lowers the gap
    below which nodes are closed to 0.8 × that node's gap; a success raises
    it to 1.25 × at least; 0 clusters switches closing off."""
    from mipagg.exact.nodeclosing import NodeClosing

    c = NodeClosing(50_000, 1.0)
    assert c.wants(1.0) and not c.wants(1.01)
    for outcome in ("too_many_columns", "too_many_nodes", "time_limit"):
        c.limit = 1.0
        c.record(outcome, 0.5)
        assert c.limit == pytest.approx(0.4) and not c.wants(0.5)
    assert (c.too_large, c.timed_out) == (2, 1)
    c.record("optimal", 0.4)
    assert c.limit == pytest.approx(0.5) and c.tried == 4 and c.succeeded == 1
    c.record("optimal", 0.5, partial=True)      # the full one did not fit, a partial one closed
    assert c.limit == pytest.approx(0.4) and c.succeeded == 2 and c.partial == 1
    c.record("partial", 0.3, full=False, partial=True)    # only a partial closing: no change
    assert c.limit == pytest.approx(0.4) and c.partial == 2
    assert (c.too_large, c.timed_out) == (3, 1)         # the full one that did not fit counts
    assert not NodeClosing(0, 1.0).wants(0.0)
    floored = NodeClosing(50_000, 1.0, floor=0.01)       # node_close_gap: 1 % of the incumbent
    floored.record("time_limit", 0.05)
    assert floored.limit == pytest.approx(0.04) and not floored.wants(0.05)
    assert floored.wants(0.05, 10.0) and floored.wants(0.1, 10.0) and not floored.wants(0.11, 10.0)
    assert not floored.wants(0.05, 1.0)             # the floor follows the incumbent
    assert not NodeClosing(0, 1.0, floor=0.01).wants(0.0, 10.0)


# full root closing capped, and no partial one: the root's gap stays open
RECLOSE_BASE = dict(cuts=False, close_gap_max_columns=2000, close_gap_partial=0, mip_time=0,
                    dive_time=0, node_close_max_columns=0, threads=1)


_RECLOSE_RUNS: dict = {}


def _reclose_run(X, reclose_root):
    """bp with ``RECLOSE_BASE`` on ``X`` (the same 40-record subset in every
    test that asks), run once per ``reclose_root`` and shared."""
    if reclose_root not in _RECLOSE_RUNS:
        _RECLOSE_RUNS[reclose_root] = (X.copy(), branch_and_price(X, 4, reclose_root=reclose_root,
                                                                  **RECLOSE_BASE))
    data, result = _RECLOSE_RUNS[reclose_root]
    assert np.array_equal(data, X)
    return result


@pytest.mark.parametrize("workers", [1, 2])
def test_root_gap_closing_again_in_the_tree_proves_the_incumbent(census, workers):
    """At the dive-less incumbent the root's gap holds more than 2 000 clusters;
    once the tree has improved the incumbent it holds fewer, and the root's
    gap closing, tried again, proves the optimum (fewer nodes than the tree)."""
    s = subset(census, 40, "random", 0)
    off = _reclose_run(s.X, False)
    on = (_reclose_run(s.X, True) if workers == 1 else
          branch_and_price(s.X, 4, reclose_root=True, workers=workers, **RECLOSE_BASE))
    assert off.status == on.status == "optimal" and off.closed_by == "tree"
    assert on.sse == pytest.approx(off.sse, abs=1e-9)
    assert on.lower_bound == pytest.approx(on.sse, abs=1e-9)
    if workers == 1:
        assert on.closed_by == "gap_closing" and on.gap_closing == "optimal"
        assert on.nodes < off.nodes


def test_neighbourhood_phase_lowers_the_incumbent_without_a_clock(census, monkeypatch):
    """From NEIGHBOURHOOD_MIN_N records (here lowered to 150: the default is
    larger than Census) the incumbent gets exact neighbourhood search after
    the dive (to convergence without a time limit, so two runs agree); the
    lower incumbent lets the cut rounds go on (their tail-off is relative to
    the gap), so the root bound can only rise."""
    import mipagg.exact.bproot as bproot

    NEIGHBOURHOOD_MIN_N = 150
    monkeypatch.setattr(bproot, "NEIGHBOURHOOD_MIN_N", NEIGHBOURHOOD_MIN_N)
    s = subset(census, NEIGHBOURHOOD_MIN_N, "random", 1)
    base = dict(node_limit=1, close_gap=False, mip_time=0, dive_time=0, threads=1)
    off = branch_and_price(s.X, 3, neighbourhood_time=0, **base)
    on = branch_and_price(s.X, 3, **base)
    again = branch_and_price(s.X, 3, **base)
    assert off.neighbourhood_solves == 0 and off.seconds["neighbourhood"] == 0
    assert on.neighbourhood_solves >= NEIGHBOURHOOD_MIN_N // 5     # every group, at least
    assert on.root_lp_bound == pytest.approx(off.root_lp_bound, rel=1e-9)
    assert on.root_cut_bound >= off.root_cut_bound - 1e-9
    assert on.cut_rounds >= off.cut_rounds
    assert on.partition.is_feasible(3)
    assert on.lower_bound <= on.sse < off.sse - 1e-6
    assert np.array_equal(on.partition.labels, again.partition.labels)
    small = subset(census, NEIGHBOURHOOD_MIN_N - 1, "random", 0).X
    assert BranchAndPrice(small, 3, BPSettings()).neighbourhood_time == 0
    assert BranchAndPrice(s.X, 3, BPSettings(time_limit=100)).neighbourhood_time == 10


def test_a_timed_out_closing_in_the_tree_lifts_the_certified_bound(census, monkeypatch):
    """A root gap closing attempted again in the tree (``reclose_root``) that
    stops on its time limit still certifies min(its MIP dual bound, UB); the
    reported bound takes it when the open nodes' bounds are lower.  The
    closing is replaced by one that times out with the optimum as dual bound
    (a valid bound), at the node where the real closing proved it."""
    import mipagg.exact.bproot as bproot

    s = subset(census, 40, "random", 0)
    base = dict(RECLOSE_BASE, reclose_root=True)
    real = _reclose_run(s.X, True)
    assert real.closed_by == "gap_closing" and real.closing_bound == pytest.approx(real.sse)
    cut = branch_and_price(s.X, 4, node_limit=real.nodes, **dict(base, reclose_root=False))
    assert cut.status == "node_limit" and cut.closing_bound is None
    assert cut.lower_bound < real.sse - 1e-6
    calls = []

    def timed_out(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:                         # the root's own attempt
            return "too_many_columns", None, None
        return "time_limit", None, real.sse

    monkeypatch.setattr(bproot, "close_gap_by_enumeration", timed_out)
    r = branch_and_price(s.X, 4, node_limit=real.nodes, **base)
    assert len(calls) == 2 and r.sse == pytest.approx(real.sse)
    assert r.closing_bound == pytest.approx(real.sse)
    assert r.status == "optimal" and r.closed_by == "gap_closing"
    assert r.lower_bound == pytest.approx(real.sse)


def test_cuts_raise_the_root_bound(census):
    s = subset(census, 50, "random", 0)
    r = branch_and_price(s.X, 3, count_row=False)     # the row alone closes this gap
    assert r.cuts > 0 and r.root_cut_bound > r.root_lp_bound + 1e-6
    assert 0 < r.cut_gap_closed <= 1
    assert r.status == "optimal"


def test_node_limit_returns_a_certified_bound(census):
    s = subset(census, 30, "random", 0)
    ref = set_partitioning(s.X, 3, integral=True)
    opt = ref[0]
    r = branch_and_price(s.X, 3, node_limit=2, **TREE_ONLY)
    assert r.partition.is_feasible(3)
    assert r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    if r.status == "node_limit":
        assert r.open_nodes > 0 and r.nodes == 2


def test_time_limited_run_returns_a_valid_partition_and_bound(census):
    s = subset(census, 300, "random", 0)
    # a fresh install has no numba cache: each of the first runs compiles the
    # kernels of the phases it reaches (up to a minute in all), so the limit is
    # checked on the first run that compiles nothing new (at most 5 runs)
    totals = []
    for _ in range(5):
        r = branch_and_price(s.X, 4, time_limit=1.5)
        assert r.partition.is_feasible(4)
        assert r.sse == pytest.approx(r.partition.sse())
        assert r.status in ("time_limit", "optimal")
        if r.lower_bound is not None:
            assert r.lower_bound <= r.sse + 1e-9
        totals.append(r.seconds["total"])
        if len(totals) >= 2 and abs(totals[-1] - totals[-2]) < 1.0:
            break
    assert totals[-1] < 1.5 + 5.0, totals


def test_pair_weights_and_branching_pair():
    cols = [np.array([0, 1, 2]), np.array([0, 1, 3]), np.array([2, 3, 4]), np.array([3, 4])]
    x = np.array([0.5, 0.5, 0.5, 0.0])
    Z = pair_weights(cols, x, 5).toarray()
    assert Z[0, 1] == pytest.approx(1.0)
    assert Z[0, 2] == pytest.approx(0.5) and Z[2, 3] == pytest.approx(0.5)
    assert Z[3, 4] == pytest.approx(0.5)            # the x = 0 column does not count
    assert branching_pair(cols, x, 5) == (0, 2)
    assert branching_pair(cols[:1], np.ones(1), 5) is None


def test_bp_is_registered_with_its_papers():
    from mipagg.methods import get_method

    spec = get_method("bp")
    assert "Ryan" in spec.reference and "Jepsen" in spec.reference
    assert "time_limit" in spec.options()


def test_parameters_are_checked():
    from mipagg.errors import DataError, ParameterError

    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ParameterError):
        branch_and_price(X, 2, node_limit=0)
    with pytest.raises(ParameterError):
        branch_and_price(X, 2, time_limit=-1)
    for bad in ({"tail_off": "x"}, {"tail_off": -0.1}, {"min_violation": None}):
        with pytest.raises(ParameterError, match="must be a number >= 0"):
            branch_and_price(X, 2, **bad)
    with pytest.raises((ParameterError, DataError)):
        branch_and_price(X, 7)


@settings(max_examples=200, deadline=None)
@given(groups=st.floats(0.5, 2000), solves=st.integers(1, 200), pace=st.floats(1e-3, 100),
       left=st.floats(0, 1e4), more=st.floats(0, 1e4))
def test_dive_share_fixes_more_as_the_dive_runs_out_of_time(groups, solves, pace, left, more):
    """A dive step fixes 5 % of the groups still to form (and exactly that
    without a clock); when the steps that fit in the time left at the pace so
    far cannot form them, the share grows so that they can (all at once when
    not even one step fits), and it grows as the time left shrinks."""
    from mipagg.exact.diving import DIVE_SHARE, _dive_share

    now = solves * pace                                  # started at 0, `solves` solves so far
    share = _dive_share(groups, solves, 0.0, now + left, now)
    assert _dive_share(groups, solves, 0.0, None, now) == DIVE_SHARE
    assert DIVE_SHARE <= share <= 1.0
    assert _dive_share(groups, solves, 0.0, now + left + more, now) <= share
    steps = ((now + left) - now) / max((now - 0.0) / solves, 1e-9)   # as _dive_share does
    if steps < 1:
        assert share == 1.0
    elif share > DIVE_SHARE:                             # just enough steps
        assert max(groups, 1.0) * (1 - share) ** steps == pytest.approx(1.0, rel=1e-6)
    else:                                                # 5 % per step is enough
        assert max(groups, 1.0) * (1 - DIVE_SHARE) ** steps <= 1.0 + 1e-9
