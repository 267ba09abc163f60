"""bp's ``node_close_cuts``: a node closing's MIP gets as rows only the cuts
whose dual at the node is nonzero ("tight", the default) or all of the
master's ("all"); either way the tree proves the brute-force optimum."""

from __future__ import annotations

import numpy as np
import pytest
from _bruteforce import optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings

from mipagg.errors import ParameterError
from mipagg.exact import gapclosing, nodeclosing
from mipagg.exact.bp import branch_and_price
from mipagg.exact.nodeclosing import tight_cuts
from mipagg.generators import lognormal

# a closing tried at every node, its MIP with presolve and the master's cuts as rows
CLOSINGS = dict(threads=1, mip_time=0, node_close_gap=1.0, branching="fractional",
                close_gap=False, close_gap_mip="presolve")


def test_tight_cuts_keeps_the_cuts_of_negative_dual():
    cuts = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (1, 4, 7)]
    assert tight_cuts(cuts, np.array([-0.5, 0.0, -1e-3, 0.0])) == [(0, 1, 2), (6, 7, 8)]
    assert tight_cuts(cuts, None) == cuts
    # a cut added after the duals has none: left out
    assert tight_cuts(cuts, np.array([0.0, -2.0])) == [(3, 4, 5)]
    assert tight_cuts(cuts, np.zeros(4)) == []


@settings(max_examples=15, deadline=None)
@given(tiny_instances(min_n=6))
def test_closings_with_the_tight_cuts_prove_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, node_close_cuts="tight", **CLOSINGS)
    assert r.status == "optimal" and r.partition.is_feasible(k)
    assert r.sse == pytest.approx(opt, abs=1e-7) and r.lower_bound == pytest.approx(opt, abs=1e-7)


@pytest.mark.parametrize("mode", ["tight", "all"])
def test_each_node_closing_mip_gets_the_cuts_the_option_names(monkeypatch, mode):
    """A spy on the node closings sees the master's cuts and the node's cut
    duals; each MIP's cut rows are the tight ones ("tight") or all ("all"),
    and somewhere the tight ones are fewer, so the option changes the MIP."""
    expected, given_ = [], []
    close, solve = nodeclosing.close_node, gapclosing.set_partitioning_mip

    def close_node(D, X, k, master, stop, *args, **kw):
        cuts = list(master.cuts)
        expected.append((cuts, tight_cuts(cuts, stop.cut_duals)))
        return close(D, X, k, master, stop, *args, **kw)

    def set_partitioning_mip(n, columns, weights, **kw):
        given_.append(list(kw.get("cuts", ())))
        return solve(n, columns, weights, **kw)

    monkeypatch.setattr(nodeclosing, "close_node", close_node)
    monkeypatch.setattr(gapclosing, "set_partitioning_mip", set_partitioning_mip)
    X = lognormal(60, 3, seed=2).X          # two cut rounds leave a tree of 3 nodes
    r = branch_and_price(X, 3, node_close_cuts=mode, max_cut_rounds=2, **CLOSINGS)
    assert r.status == "optimal" and r.nodes > 1 and r.nodes_enumerated > 0
    assert len(given_) == len(expected) > 0
    for (cuts, tight), seen in zip(expected, given_):
        assert seen == (tight if mode == "tight" else cuts)
    assert any(len(tight) < len(cuts) for cuts, tight in expected)


def test_a_bad_node_close_cuts_is_refused():
    with pytest.raises(ParameterError, match="node_close_cuts"):
        branch_and_price(np.eye(6), 3, node_close_cuts="some")
