"""bp's pricing at tree nodes (``node_pricing``): with "exact" the nodes skip
heuristic pricing and the tree still proves the brute-force optimum."""

from __future__ import annotations

import numpy as np
import pytest
from _bruteforce import optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings

from mipagg.errors import ParameterError
from mipagg.exact.bp import branch_and_price
from mipagg.exact.pricing import solvers
from mipagg.generators import lognormal

TREE = dict(threads=1, cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
            branching="fractional")


@settings(max_examples=15, deadline=None)
@given(tiny_instances(min_n=6))
def test_exact_node_pricing_proves_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, node_pricing="exact", **TREE)
    assert r.status == "optimal" and r.partition.is_feasible(k)
    assert r.sse == pytest.approx(opt, abs=1e-7) and r.lower_bound == pytest.approx(opt, abs=1e-7)


def test_exact_node_pricing_calls_the_heuristic_at_the_root_only(monkeypatch):
    """The heuristic's calls in a whole tree with node_pricing="exact" are
    those of the root alone (node_limit=1), fewer than with "auto"."""
    X = lognormal(60, 3, seed=4).X
    calls = []
    solve = solvers.HeuristicSolver.solve

    def counted(self, *args, **kwargs):
        calls.append(1)
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(solvers.HeuristicSolver, "solve", counted)

    def heuristic_calls(**options):
        calls.clear()
        r = branch_and_price(X, 3, **TREE, **options)
        return len(calls), r

    root, _ = heuristic_calls(node_limit=1)
    exact, r_exact = heuristic_calls(node_pricing="exact")
    auto, r_auto = heuristic_calls()
    assert r_auto.nodes > 1 and r_exact.status == r_auto.status == "optimal"
    assert r_exact.sse == pytest.approx(r_auto.sse, abs=1e-9)
    assert exact == root < auto


def test_an_unknown_node_pricing_is_refused():
    with pytest.raises(ParameterError, match="node_pricing must be one of"):
        branch_and_price(np.eye(6), 3, node_pricing="heuristic")
