"""bp's ``node_close_restart``: off, the node closings' MIPs run with HiGHS's
``mip_allow_restart`` off (the root's closing keeps it), and the tree still
proves the brute-force optimum."""

from __future__ import annotations

import numpy as np
import pytest
from _bruteforce import optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings

from mipagg.errors import ParameterError
from mipagg.exact import master
from mipagg.exact.bp import BranchAndPrice, branch_and_price
from mipagg.exact.settings import BPSettings
from mipagg.generators import lognormal

# the tree with a closing tried at every node (node_close_gap), no cuts or pool MIP
CLOSINGS = dict(threads=1, cuts=False, mip_time=0, node_close_gap=1.0, branching="fractional")


@settings(max_examples=15, deadline=None)
@given(tiny_instances(min_n=6))
def test_closings_without_restarts_prove_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, node_close_restart=False, close_gap=False, **CLOSINGS)
    assert r.status == "optimal" and r.partition.is_feasible(k)
    assert r.sse == pytest.approx(opt, abs=1e-7) and r.lower_bound == pytest.approx(opt, abs=1e-7)


@pytest.mark.parametrize("restart", [True, False])
def test_the_option_reaches_the_node_closings_mips_only(monkeypatch, restart):
    """Every MIP HiGHS is given records its mip_allow_restart: in a tree whose
    closings all run at nodes (no root closing), each follows the option; the
    root closing's options never carry it (HiGHS's default)."""
    seen = []
    real = master.new_highs

    def spy(**options):
        if "mip_rel_gap" in options:            # a MIP, not a master LP
            seen.append(options.get("mip_allow_restart"))
        return real(**options)

    monkeypatch.setattr(master, "new_highs", spy)
    X = lognormal(40, 3, seed=2).X
    r = branch_and_price(X, 3, node_close_restart=restart, close_gap=False, **CLOSINGS)
    assert r.status == "optimal" and r.nodes > 1
    assert r.node_closings > 0 and r.nodes_enumerated > 0
    assert len(seen) >= r.nodes_enumerated and set(seen) == {restart}
    bp = BranchAndPrice(X, 3, BPSettings(node_close_restart=restart))
    assert "restart" not in bp.closing_mip()
    assert bp.closing_mip(node=True)["restart"] is restart


def test_a_bad_node_close_restart_is_refused():
    with pytest.raises(ParameterError, match="node_close_restart"):
        branch_and_price(np.eye(6), 3, node_close_restart="sometimes")
