"""Branching rules of bp (mipagg.exact.branching) and the tree statistics
(mipagg.exact.treestats): strong branching keeps the brute-force optimum, the
rules agree with the most fractional pair where they must, bad names are
refused, the tree-size estimate and gap share are what their formulas say,
and the run's JSON carries the proof's ingredients."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mipagg.cli import main
from mipagg.errors import ParameterError
from mipagg.exact.bp import branch_and_price, branching_pair
from mipagg.exact.branching import (MostFractional, ReliabilityBranching, StrongBranching,
                                    fractional_pairs, make_branching)
from mipagg.exact.master import MasterProblem, squared_distances
from mipagg.exact.treestats import (BoundTrend, MAX_SAMPLES, MIN_WINDOW, finished_weight,
                                    gap_closed, open_gap, seconds_left, tree_estimate)
from mipagg.progress import format_duration

from _strategies import tiny_instances
from _bruteforce import optimal_partition

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)
TREE_ONLY_BUT_MIP = dict(cuts=False, close_gap=False, node_close_max_columns=0)
COMPANIES = Path(__file__).resolve().parents[2] / "instances" / "companies.csv"



@settings(max_examples=30, deadline=None)
@given(tiny_instances(min_n=5), st.sampled_from(["strong", "strong:2", "fractional",
                                                     "fractional_index", "reliability",
                                                     "reliability:2"]),
       st.booleans())
def test_rules_keep_the_brute_force_optimum(inst, rule, tree_only):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, threads=1, branching=rule, **(TREE_ONLY if tree_only else {}))
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.lower_bound == pytest.approx(opt, abs=1e-7)
    assert r.branching == rule.split(":")[0]
    assert r.tree_estimate == r.nodes and r.tree_seconds_left is None
    assert r.bound_trend_nodes is None and r.bound_trend_seconds_left is None
    if rule.startswith("fractional"):
        assert r.strong_evaluations == 0


def test_the_default_rule_is_reliability_branching_on_four_candidates(census):
    """Since 2026-11-29 (docs/bench/bp_tree.md §8): the same tree as
    ``branching="reliability:4"``, not the most-fractional one."""
    from mipagg.exact.settings import BPSettings
    from mipagg.subsets import subset

    X = subset(census, 24, "random", 0).X
    default = branch_and_price(X, 3, threads=1, **TREE_ONLY)
    same = branch_and_price(X, 3, threads=1, branching="reliability:4", **TREE_ONLY)
    fractional = branch_and_price(X, 3, threads=1, branching="fractional", **TREE_ONLY)
    assert BPSettings().branching == "reliability:4" and default.branching == "reliability"
    assert (default.nodes, default.strong_evaluations) == (same.nodes, same.strong_evaluations)
    assert default.strong_evaluations > 0 and fractional.strong_evaluations == 0
    assert default.sse == pytest.approx(fractional.sse, abs=1e-7)


@settings(max_examples=25, deadline=None)
@given(tiny_instances(min_n=5))
def test_node_cuts_keep_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, threads=1, close_gap=False, mip_time=0, node_close_max_columns=0,
                         node_cut_rounds=2, max_cut_rounds=0)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.cuts == r.node_cuts                         # no root round: every cut from a node


@settings(max_examples=15, deadline=None)
@given(tiny_instances(min_n=5))
def test_tree_mip_keeps_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, threads=1, tree_mip=1.0, mip_time=5, **TREE_ONLY_BUT_MIP)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)


def test_node_cuts_on_a_tree():
    from mipagg.generators import lognormal
    X = lognormal(60, 6, seed=4).X
    kw = dict(threads=1, close_gap=False, mip_time=0, node_close_max_columns=0,
              max_cut_rounds=0)
    plain = branch_and_price(X, 3, node_cut_rounds=0, **kw)
    cut = branch_and_price(X, 3, node_cut_rounds=3, **kw)
    assert plain.status == cut.status == "optimal"
    assert cut.sse == pytest.approx(plain.sse, abs=1e-7)
    assert plain.node_cuts == 0 and (cut.nodes == 1 or cut.node_cuts > 0)
    with pytest.raises(ParameterError):
        branch_and_price(X, 3, node_cut_rounds=-1)
    with pytest.raises(ParameterError):
        branch_and_price(X, 3, tree_mip=0.5)


def _fractional_master():
    # two records 0, 1 each shareable with 2 or 3: an LP with z_01 = 0 and fractional pairs
    X = np.array([[0.], [0.3], [1.], [1.2], [5.], [5.1]])
    m = MasterProblem(X, squared_distances(X), artificial_cost=100.0)
    m.add_columns([[0, 1, 2], [3, 4, 5], [0, 2, 3], [1, 4, 5], [0, 1, 3], [2, 4, 5],
                   [0, 1], [2, 3], [4, 5]])
    return m, m.solve()


def test_most_fractional_equals_branching_pair_and_strong_restores_the_master():
    m, sol = _fractional_master()
    cols = m.columns[:sol.x.size]
    assert MostFractional().select(m, sol, 6) == branching_pair(cols, sol.x, 6, D=m.D)
    allowed = np.ones(len(m.columns), dtype=bool)
    allowed[0] = False
    m.set_allowed(allowed)
    sol = m.solve()
    rule = StrongBranching(candidates=3)
    pair = rule.select(m, sol, 6, allowed, ub=sol.value + 10)
    assert pair is None or (pair[0] < pair[1])
    assert (m.allowed == allowed).all()                 # the node's mask is back
    assert m.solve().value == pytest.approx(sol.value)


def test_reliability_branching_scores_a_reliable_pair_by_its_pseudocosts():
    """Reliability branching probes a pair until it has ``reliable`` probes,
    then predicts its gains from pseudocosts (mean gain per unit change of
    z_ij): at the same LP solution the prediction equals the probe, so it
    picks the pair strong branching picks, with no LP re-solve."""
    # three triangles of records, each covered by its pairs at ½ or by its triple
    X = np.array([[0.0], [0.1], [0.2], [3.0], [3.4], [3.5], [10.0], [20.0], [30.0]])
    m = MasterProblem(X, squared_distances(X), artificial_cost=1000.0)
    m.add_columns([[a + i, a + j] for a in (0, 3, 6) for i, j in ((0, 1), (1, 2), (0, 2))]
                  + [[a, a + 1, a + 2] for a in (0, 3, 6)])
    sol = m.solve()
    assert len(fractional_pairs(m.columns[:sol.x.size], sol.x, 9)) == 9
    strong, rel = StrongBranching(candidates=4), ReliabilityBranching(candidates=4, reliable=1)
    ub = sol.value + 10
    pair = strong.select(m, sol, 9, None, ub=ub)
    assert rel.select(m, sol, 9, None, ub=ub) == pair
    probes, probed = rel.evaluations, rel.last_gains
    assert probes == strong.evaluations > 0 and rel.predicted == 0
    assert all(rel.pseudocosts[(i, j)][2] == 1 for i, j, *_ in probed)
    assert rel.fresh is None and rel.take_fresh() == []     # kept only once asked for
    assert rel.select(m, sol, 9, None, ub=ub) == pair
    assert rel.evaluations == probes and rel.predicted == len(probed)   # no LP re-solve
    assert np.allclose(rel.last_gains, probed, rtol=1e-9, atol=1e-12)
    assert m.solve().value == pytest.approx(sol.value)                  # the master untouched
    twice = ReliabilityBranching(candidates=4)                          # reliable = 2
    twice.select(m, sol, 9, None, ub=ub)
    assert twice.take_fresh() == []
    twice.select(m, sol, 9, None, ub=ub)
    assert twice.predicted == 0 and twice.evaluations == 2 * probes
    assert len(twice.take_fresh()) == len(probed) and twice.take_fresh() == []
    twice.select(m, sol, 9, None, ub=ub)
    assert twice.predicted == len(probed) and twice.evaluations == 2 * probes
    assert make_branching("reliability:3").candidates == 3
    with pytest.raises(ParameterError):
        ReliabilityBranching(reliable=0)


def test_strong_candidates_reach_far_apart_pairs_at_one_half():
    """Half the strong-branching candidates are the most fractional pairs, the
    rest those of largest D_ij·min(z, 1 − z): with six close pairs at z = ½
    listed first by index, two candidates still reach a far-apart pair at ½
    (the odd cycle of outliers of Tarragona k = 3); every candidate is
    fractional and listed once."""
    from mipagg.exact.branching import candidate_pairs

    # records 0..5 close together, 6..8 far apart; every cluster of two at ½
    X = np.array([[0.0], [0.1], [0.2], [0.3], [0.4], [0.5], [10.0], [20.0], [30.0]])
    cols = [np.array(c) for c in ([0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3],
                                  [6, 7], [7, 8], [8, 6])]
    x = np.full(len(cols), 0.5)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=2)
    every = fractional_pairs(cols, x, 9)
    assert every[:2].tolist() == [[0, 1], [0, 2]]           # index order among the ties
    two = candidate_pairs(cols, x, 9, D, 2)
    assert two.tolist() == [[0, 1], [6, 8]]                 # the farthest pair at ½
    four = candidate_pairs(cols, x, 9, D, 4)
    assert four[:2].tolist() == every[:2].tolist()
    assert four[2:].tolist() == [[6, 8], [6, 7]]             # ties by the smaller pair
    assert candidate_pairs(cols, x, 9, D, 50).tolist() == every.tolist()
    assert candidate_pairs(cols, x, 9, D, 4, far=False).tolist() == every[:4].tolist()
    y = np.linspace(0.1, 0.9, len(cols))          # each pair's weight z_ij from weights=True
    for count, far in ((3, True), (50, True), (3, False)):
        P, z = candidate_pairs(cols, y, 9, D, count, far=far, weights=True)
        assert P.tolist() == candidate_pairs(cols, y, 9, D, count, far=far).tolist()
        assert z.tolist() == pytest.approx([sum(y[c] for c, C in enumerate(cols)
                                                if i in C and j in C) for i, j in P])
    old = make_branching("strong_fractional:4")
    assert isinstance(old, StrongBranching) and (old.candidates, old.far) == (4, False)


def test_fractional_breaks_ties_at_one_half_by_distance():
    """Rule "fractional" (the default): the most fractional pair, ties (to 6
    decimals, so LP noise around ½ is a tie) by the largest D_ij, then the
    smaller pair; a pair nearer to ½ still wins over a farther one.  Rule
    "fractional_index" keeps the index order."""
    from mipagg.exact.rules import RyanFoster, RyanFosterIndex, branching_rule, fractional_order

    X = np.array([[0.0], [0.1], [0.2], [0.3], [0.4], [0.5], [10.0], [20.0], [30.0]])
    cols = [np.array(c) for c in ([0, 1], [1, 2], [2, 0], [3, 4], [4, 5], [5, 3],
                                  [6, 7], [7, 8], [8, 6])]
    D = squared_distances(X)
    x = np.full(len(cols), 0.5)
    x[0] += 1e-9                                        # LP noise on the close pair (0, 1)
    assert branching_pair(cols, x, 9) == (0, 2)         # index order (noise breaks (0, 1))
    assert branching_pair(cols, x, 9, D=D) == (6, 8)    # D = 400, the largest at ½
    P, z = fractional_order(cols, x, 9, D=D)
    assert P[:3].tolist() == [[6, 8], [6, 7], [7, 8]]   # D 400, then the two at 100 by index
    assert np.all(np.abs(z - 0.5) < 1e-6)
    x[8] = x[2] = 0.45                                  # (6, 8) and (0, 2) leave ½
    assert branching_pair(cols, x, 9, D=D) == (6, 7)    # the farthest pair still at ½
    assert type(branching_rule("fractional")) is RyanFoster
    assert isinstance(branching_rule("fractional_index"), RyanFosterIndex)
    assert branching_pair(cols, np.zeros(len(cols)), 9, D=D) is None


@pytest.mark.parametrize("bad", ["best", "strong:0", "strong:x", "fractional:3", "reliability:0",
                                 3])
def test_bad_branching_is_refused(bad):
    with pytest.raises(ParameterError):
        make_branching(bad)
    with pytest.raises(ParameterError):
        branch_and_price(np.arange(8.0)[:, None], 2, branching=bad)


def test_tree_statistics():
    assert finished_weight([]) == 1.0
    assert finished_weight([1, 2]) == pytest.approx(0.25)
    assert tree_estimate(10, [1, 1]) is None            # a dive that finished nothing
    assert tree_estimate(10, [1, 2]) == 40
    assert tree_estimate(3, []) == 3
    assert tree_estimate(10, [5, 5, 5]) == 13           # 10/(1 − 3/32) = 11 < 10 done + 3 open
    assert open_gap(10.0, [9.0, 9.5, 10.0, 11.0]) == 1.5   # nodes at or above the cutoff add 0
    assert gap_closed(11.0, 12.0, 10.0) == pytest.approx(0.5)
    assert gap_closed(None, 12.0, 10.0) is None and gap_closed(12.0, 12.0, 12.0) is None
    assert seconds_left(40, 10, 5, 2.0) == pytest.approx(12.0)   # 30 nodes at 0.4 s
    assert seconds_left(8, 10, 5, 2.0) == 0.0             # the estimate is already passed
    assert seconds_left(None, 10, 5, 2.0) is None and seconds_left(40, 10, 0, 0.0) is None
    assert [format_duration(s) for s in (None, 42.4, 150, 3 * 3600, 1.4e7)] == [
        None, "42 s", "2.5 min", "3 h", "162 d"]


def test_estimates_never_fall_below_the_nodes_done_and_open():
    """Every open node below the cutoff is processed before the tree ends
    when the incumbent is already optimal, so nodes + open nodes at a node
    limit never exceed the finished tree (95 nodes here), and both estimates
    respect that floor."""
    from mipagg.generators import lognormal
    X = lognormal(50, 6, seed=2).X
    tree_only = dict(TREE_ONLY, dive_time=0, neighbourhood_time=0, fixing=False, threads=1,
                     branching="fractional", count_row=False)   # a tree of more than one node
    best = branch_and_price(X, 3, **tree_only)
    full = branch_and_price(X, 3, initial=best.partition, **tree_only)
    assert full.status == "optimal" and full.sse == pytest.approx(best.sse)
    assert full.nodes > 40
    for limit in (5, 15, 30):          # the premise of the floor (treestats)
        part = branch_and_price(X, 3, initial=best.partition, node_limit=limit, **tree_only)
        assert part.status == "node_limit" and part.open_nodes > 0
        assert part.nodes + part.open_nodes <= full.nodes
        assert part.tree_estimate is None or part.tree_estimate >= part.nodes + part.open_nodes
        assert part.bound_trend_nodes is None or part.bound_trend_nodes >= part.open_nodes
    assert part.tree_estimate is not None and part.bound_trend_nodes is not None


def test_bound_trend_projects_the_recent_half():
    """The trend's slope is the bound's rise over the last half of the nodes
    seen (at least MIN_WINDOW): a bound that rose fast early and slowly late
    is projected at the late pace."""
    t = BoundTrend()
    assert t.nodes_to(1.0) is None
    for n in range(0, 5):
        t.observe(n, float(n))
    assert t.slope() is None                            # fewer than MIN_WINDOW nodes
    t = BoundTrend()
    for n in range(0, 101):                             # 1 per node, then 0.01 per node
        t.observe(n, n if n <= 40 else 40 + 0.01 * (n - 40))
    assert t.slope() == pytest.approx(0.01)
    assert t.nodes_to(40.6 + 1.0) == 100                # 1.0 above the last bound
    assert t.nodes_to(40.0) == 0
    assert t.nodes_to(40.6 + 1.0, open_nodes=150) == 150   # each open node is still to do
    assert t.nodes_to(40.0, open_nodes=150) == 0
    t.observe(100, 41.0)                                # the same node: the sample is replaced
    t.observe(99, 50.0)                                 # an older node count: ignored
    assert t.samples[-1] == (100, 41.0) and len(t.samples) == 101
    t.observe(101, float("nan"))
    flat = BoundTrend([(0, 5.0), (MIN_WINDOW, 5.0)])
    assert flat.slope() == 0.0 and flat.nodes_to(6.0) is None   # no rise: no projection
    long = BoundTrend()
    for n in range(3 * MAX_SAMPLES):
        long.observe(n, 0.5 * n)
    assert len(long.samples) <= MAX_SAMPLES + 1 and long.samples[0] == (0, 0.0)
    assert long.samples[-1] == (3 * MAX_SAMPLES - 1, 0.5 * (3 * MAX_SAMPLES - 1))
    assert long.slope() == pytest.approx(0.5)


def test_json_records_the_proof(capsys):
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", "surface,employees",
                 "--method", "bp", "--branching", "strong", "--json", "--quiet"])
    s = json.loads(capsys.readouterr().out)
    assert code == 0 and s["status"] == "optimal"
    for key in ("root_lp_bound", "root_cut_bound", "cuts", "nodes", "fixed_pairs",
                "node_fixed_pairs", "gap_closed", "tree_estimate", "bound_trend_nodes",
                "time_root", "time_cuts",
                "time_tree", "time_fixing", "time_branching"):
        assert key in s, key
    assert s["branching"] == "strong" and s["gap_closed"] in (None, 1.0)
    assert main(["run", str(COMPANIES), "-k", "3", "--method", "bp", "--branching",
                 "best", "--quiet"]) == 2


def test_gap_tol_flag_stops_at_the_gap_and_reports_the_bound(capsys):
    """--gap-tol 0.05 on SimU 200: the root's bound is within 5 %, so the run
    stops there, "optimal" within the tolerance, with that bound (not the SSE)."""
    data = str(COMPANIES.parent / "simu_n200_seed1.csv")
    assert main(["run", data, "-k", "3", "--method", "bp", "--gap-tol", "0.05", "--json",
                 "--quiet"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["status"] == "optimal" and s["nodes"] == 1
    assert s["lower_bound"] == s["root_cut_bound"] < s["sse"]
    assert 0 < s["gap"] <= 5.0
    assert main(["run", data, "-k", "3", "--method", "bp", "--gap-tol", "1.5", "--quiet"]) == 2
    assert "gap_tol" in capsys.readouterr().err
