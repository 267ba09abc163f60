"""The exact core as a framework: statuses, settings, plug-in branching
rules, cut families and pricing solvers (docs/developer.md)."""

from __future__ import annotations

import dataclasses
import heapq
import inspect
import itertools
import json

import numpy as np
import pytest
from _bruteforce import optimal_partition

from mipagg.errors import ParameterError
from mipagg.exact import rules
from mipagg.exact.bp import BranchAndPrice, branch_and_price
from mipagg.exact.colgen import column_generation
from mipagg.exact.pricing import price, squared_distances
from mipagg.exact.pricing.enumeration import enumerate_reference
from mipagg.exact.pricing.solvers import PRICING_ORDERS, PRICING_SOLVERS, PricingSolver
from mipagg.exact.settings import BPSettings, CGSettings, StopCriterion
from mipagg.status import Status

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, dive_time=0,
                 node_close_max_columns=0, threads=1)


def _X(seed, n, p=2):
    return np.random.default_rng(seed).normal(size=(n, p))


# ---------------------------------------------------------------- the guide's plug-ins
class HeaviestPair:
    """docs/developer.md, worked example 1."""

    def choose(self, tree, node, solution):
        Z = rules.pair_weights(tree.master.columns[:solution.x.size], solution.x, tree.n)
        frac = (Z.data > 1e-6) & (Z.data < 1 - 1e-6)
        if not frac.any():
            return None
        best = np.lexsort((Z.col[frac], Z.row[frac], -Z.data[frac]))[0]
        pair = (int(Z.row[frac][best]), int(Z.col[frac][best]))
        return rules.Branch([(node.together + (pair,), node.apart),
                             (node.together, node.apart + (pair,))])


class SharedColumnTriples:
    """docs/developer.md, worked example 2."""

    def separate(self, master, solution, n, max_cuts, min_violation):
        x, cols = solution.x, master.columns[:solution.x.size]
        present, found = set(master.cuts), []
        for j in np.argsort(-x, kind="stable"):
            if not 1e-6 < x[j] < 1 - 1e-6:
                continue
            for S in itertools.combinations(sorted(int(v) for v in cols[j]), 3):
                lhs = sum(x[i] * (len(set(S) & set(cols[i].tolist())) // 2)
                          for i in np.flatnonzero(x > 1e-9))
                if S not in present and lhs > 1 + min_violation:
                    found.append(S)
                    present.add(S)
                    if len(found) >= max_cuts:
                        return found
        return found


class DepthFirst:
    """Deepest node first (ties: best bound): a node selection plug-in."""

    def __init__(self):
        self.heap = []

    def push(self, node):
        heapq.heappush(self.heap, (node.depth_key, node.bound, node.ident, node))

    def pop(self):
        return heapq.heappop(self.heap)[-1]

    def peek(self):
        return self.heap[0][-1]

    def __len__(self):
        return len(self.heap)

    def bounds(self):
        return [e[-1].bound for e in self.heap]


@pytest.fixture
def plugins(monkeypatch):
    monkeypatch.setitem(rules.BRANCHING_RULES, "heaviest_pair", f"{__name__}:HeaviestPair")
    monkeypatch.setitem(rules.CUT_FAMILIES, "shared_triples", f"{__name__}:SharedColumnTriples")
    monkeypatch.setitem(rules.NODE_SELECTIONS, "depth_first", f"{__name__}:DepthFirst")


@pytest.mark.parametrize("seed", range(4))
def test_a_registered_branching_rule_proves_the_optimum(plugins, seed):
    X, k = _X(seed, 11), 3
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, settings={"branching": "heaviest_pair", **TREE_ONLY})
    assert r.status == Status.OPTIMAL and r.success
    assert r.sse == pytest.approx(opt, abs=1e-9) and r.lower_bound == pytest.approx(opt, abs=1e-9)


def test_the_plugged_rule_is_the_one_used(plugins):
    """Seeds where the tree is needed: the two rules explore different trees."""
    used = []
    for seed in range(12):
        X = _X(seed, 12)
        a = branch_and_price(X, 3, settings={"branching": "heaviest_pair", **TREE_ONLY})
        b = branch_and_price(X, 3, **TREE_ONLY)
        assert a.sse == pytest.approx(b.sse, abs=1e-9)
        if b.nodes > 1:
            used.append((a.nodes, b.nodes, a.max_depth, b.max_depth))
    assert used, "no instance needed the tree"
    assert any(x[0] != x[1] or x[2] != x[3] for x in used)


@pytest.mark.parametrize("seed", range(3))
def test_a_registered_cut_family_and_node_selection_keep_the_optimum(plugins, seed):
    X, k = _X(seed + 20, 11), 3
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, settings=dict(TREE_ONLY, cuts=True,
                                             cut_families=["shared_triples", "subset_row"],
                                             node_selection="depth_first"))
    assert r.status == "optimal"
    assert r.sse == pytest.approx(opt, abs=1e-9) and r.lower_bound == pytest.approx(opt, abs=1e-9)


def test_best_bound_removes_one_node_and_keeps_the_order():
    """``BestBound.remove`` (plunging takes a child off the queue) removes
    that very node and leaves the others in best-bound order."""
    q = rules.BestBound()
    nodes = [rules.Node(b, -d, i) for i, (b, d) in enumerate(
        [(3.0, 1), (1.0, 2), (2.0, 0), (1.0, 3), (5.0, 1), (2.0, 2)])]
    for nd in nodes:
        q.push(nd)
    twin = rules.Node(1.0, -3, 3)            # equal to nodes[3], but another object
    assert not q.remove(twin) and len(q) == 6
    assert q.remove(nodes[3]) and not q.remove(nodes[3]) and len(q) == 5
    assert q.remove(nodes[4]) and len(q) == 4
    assert [q.pop().ident for _ in range(4)] == [1, 5, 2, 0]


def test_plunging_is_skipped_by_a_node_selection_without_remove(plugins):
    X, k = _X(21, 11), 3
    opt, _ = optimal_partition(X, k)
    # without the count row (11 = 3·3 + 2), which closes this tree in one node
    r = branch_and_price(X, k, node_selection="depth_first", plunge=1.0, count_row=False,
                         **TREE_ONLY)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-9) and r.nodes > 2


@pytest.mark.parametrize("function, settings", [(branch_and_price, BPSettings),
                                                (column_generation, CGSettings)])
def test_every_setting_is_a_keyword_with_its_default(function, settings):
    """Each field of the settings class is a keyword option of the function
    (so ``microaggregate``, ``mipagg run --option`` and ``casc.py
    --bp-option`` reach it) with the same default."""
    params = inspect.signature(function).parameters
    for f in dataclasses.fields(settings):
        assert f.name in params, f.name
        assert params[f.name].default == f.default, f.name


def test_unregistered_names_are_refused():
    for bad in ({"branching": "nope"}, {"node_selection": "nope"}, {"cut_families": ["x"]}):
        with pytest.raises(ParameterError):
            BPSettings(**bad)
    with pytest.raises(ParameterError):
        rules.load(rules.BRANCHING_RULES, "nope")


def test_builtin_plugins_satisfy_their_protocols():
    assert isinstance(rules.load(rules.BRANCHING_RULES, "ryan_foster")(), rules.BranchingRule)
    assert isinstance(rules.load(rules.NODE_SELECTIONS, "best_bound")(), rules.NodeSelection)
    assert isinstance(rules.load(rules.CUT_FAMILIES, "subset_row")(), rules.CutFamily)
    for s in PRICING_SOLVERS.values():
        assert isinstance(s, PricingSolver)


# ---------------------------------------------------------------- statuses
def test_status_words_json_and_success():
    assert Status("time_limit") is Status.TIME_LIMIT and Status.OPTIMAL == "optimal"
    assert json.dumps({"s": Status.NODE_LIMIT}) == '{"s": "node_limit"}'
    assert [s.value for s in Status if s.success] == ["optimal", "converged",
                                                      "heuristic_converged", "ok"]
    with pytest.raises(ValueError):
        Status("done")


def test_results_carry_status_success_and_message():
    X = _X(1, 14)
    cg = column_generation(X, 3, pricing="enumeration")
    assert isinstance(cg.status, Status) and cg.success and cg.message
    s = cg.summary()
    assert s["status"] in ("optimal", "converged") and type(s["status"]) is str
    assert s["success"] is True and s["message"] == cg.status.message
    json.dumps(s)
    bp = branch_and_price(X, 3, node_limit=1, **TREE_ONLY)
    assert bp.status in ("optimal", "node_limit")
    assert bp.success == (bp.status == "optimal") == bp.summary()["exact"]
    limited = column_generation(_X(2, 40), 3, max_iterations=1)
    assert limited.status == "iteration_limit" and not limited.success


# ---------------------------------------------------------------- settings
def test_settings_validate_themselves():
    for bad in (dict(pricing="x"), dict(alpha=1.0), dict(time_limit=0), dict(max_iterations=0),
                dict(exact_rule="x"), dict(lagrangian="yes"), dict(rounding="x"),
                dict(lp_algorithm="x"), dict(warm_start="x"), dict(max_columns=0)):
        with pytest.raises(ParameterError):
            CGSettings(**bad)
    for bad in (dict(node_limit=0), dict(max_cut_rounds=-1), dict(dive_time=-1)):
        with pytest.raises(ParameterError):
            BPSettings(**bad)
    assert CGSettings(stabilization="none").stabilization is None
    with pytest.raises(ParameterError):
        CGSettings.from_dict({"pricing": "auto", "unknown": 1})


def test_settings_from_toml_match_keyword_options(tmp_path):
    path = tmp_path / "exact.toml"
    path.write_text('[cg]\npricing = "enumeration"\nmax_columns = 5\nrounding = "every"\n'
                    '[bp]\nnode_limit = 3\ncuts = false\n')
    st = CGSettings.from_toml(path, table="cg")
    assert st == CGSettings(pricing="enumeration", max_columns=5, rounding="every")
    X = _X(3, 15)
    a = column_generation(X, 3, settings=st)
    b = column_generation(X, 3, pricing="enumeration", max_columns=5, rounding="every")
    assert (a.sse, a.lower_bound, a.iterations, str(a.status)) == \
        (b.sse, b.lower_bound, b.iterations, str(b.status))
    # a keyword option that differs from its default overrides the settings
    c = column_generation(X, 3, settings=st, max_columns=7)
    d = column_generation(X, 3, pricing="enumeration", max_columns=7, rounding="every")
    assert (c.lower_bound, c.iterations) == (d.lower_bound, d.iterations)
    assert BPSettings.from_toml(path, table="bp").node_limit == 3
    with pytest.raises(ParameterError):
        CGSettings.from_toml(path, table="nope")


def test_stop_criterion():
    s = StopCriterion.start(time_limit=10.0, node_limit=4, now=100.0)
    assert s.deadline == 110.0 and s.until(105.0).deadline == 105.0
    assert s.until(120.0).deadline == 110.0 and s.until(None) is s
    assert s.nodes_exhausted(4) and not s.nodes_exhausted(3)
    assert s.expired(now=110.0) and not s.expired(now=109.9)
    assert s.overrun(12.5) == 2.5 and StopCriterion().overrun(5.0) == 0.0
    assert StopCriterion(gap_tol=1e-6).meets(1.0 - 1e-7, 1.0)


def test_branch_and_price_is_an_object_with_named_phases():
    X, k = _X(5, 12), 3
    tree = BranchAndPrice(X, k, BPSettings(**TREE_ONLY))
    tree.root_column_generation()
    assert tree.root_lp_bound is not None and tree.nodes == 1
    tree.cut_rounds()
    tree.dive_phase()
    tree.close_root_gap()
    tree.explore_tree()
    r = tree.result()
    opt, _ = optimal_partition(X, k)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-9)
    assert r.root_lp_bound <= opt + 1e-9


# ---------------------------------------------------------------- pricing
@pytest.mark.parametrize("mode", ["heuristic", "enumeration", "ilp"])
def test_every_pricing_solver_through_the_one_interface(mode):
    D = squared_distances(_X(7, 10))
    duals = np.full(10, 1.2)
    r = price(D, duals, 3, mode, max_columns=50)
    _, costs = enumerate_reference(D, duals, 3)
    if PRICING_SOLVERS[mode].exact:
        assert r.exact and r.min_reduced_cost == pytest.approx(costs.min(), abs=1e-9)
    assert all(c < -1e-9 for c in r.reduced_costs) and min(r.reduced_costs) >= costs.min() - 1e-9


def test_pricing_orders_are_data():
    assert PRICING_ORDERS["auto"][0] == "heuristic" and len(PRICING_ORDERS["auto"]) == 2
    assert set(PRICING_ORDERS) == {"auto", "exact", "heuristic", "enumeration", "ilp"}
    assert PRICING_ORDERS["exact"] == PRICING_ORDERS["auto"][1:]     # bp's node_pricing
    with pytest.raises(ParameterError):
        price(np.zeros((3, 3)), np.zeros(3), 2, "nope")


def test_a_grid_passes_a_settings_table(tmp_path):
    """``options = { settings = { ... } }`` in a grid's method table reaches ``bp``."""
    from mipagg.api import microaggregate
    from mipagg.experiments.grid import Grid
    from mipagg.generators import normal_small

    doc = {"name": "t", "k": [3], "instances": [{"generator": "normal_small", "seeds": [0]}],
           "methods": [{"name": "bp", "options": {"settings": {"node_limit": 1, "cuts": False,
                                                              "threads": 1}}}]}
    runs = Grid.from_dict(doc).runs()
    assert len(runs) == 1 and runs[0].options["settings"]["node_limit"] == 1
    inst = normal_small(seed=0)
    r = microaggregate(inst, 3, "bp", **runs[0].options)
    assert r.raw.nodes == 1 and r.raw.cuts == 0
    assert r.summary()["status"] in ("optimal", "node_limit")
