"""bp and cg without a time limit read no clock for their decisions (issue 20):
a clock that jumps 1 000 s at every reading gives the same run, and the pool
MIP gets a node budget, no seconds."""

from __future__ import annotations

import time

import pytest

from mipagg.exact import bproot
from mipagg.exact.bp import branch_and_price
from mipagg.exact.bproot import MIP_NODES
from mipagg.exact.colgen import column_generation
from mipagg.generators import lognormal

# no root gap closing and no count row, so that the dive, the pool MIP and the tree all run
OPTIONS = dict(threads=1, close_gap=False, node_close_max_columns=0, count_row=False)


@pytest.fixture
def jumping_clock(monkeypatch):
    """time.perf_counter advancing 1 000 s more at every call: any budget
    counted in seconds runs out at once."""
    real, calls = time.perf_counter, [0]

    def clock():
        calls[0] += 1
        return real() + 1000.0 * calls[0]

    monkeypatch.setattr(time, "perf_counter", clock)
    return calls


def _fingerprint(r):
    return (r.partition.labels.tolist(), r.sse, r.lower_bound, str(r.status), r.nodes,
            r.dive_steps, r.iterations)


@pytest.mark.parametrize("seed", [1, 3])
def test_bp_same_run_whatever_the_clock(seed, jumping_clock, monkeypatch):
    X = lognormal(40, 4, seed=seed).X
    mips = []
    real_mip = bproot.set_partitioning_mip

    def spy(*a, **kw):
        mips.append((kw.get("time_limit"), kw.get("node_limit")))
        return real_mip(*a, **kw)

    monkeypatch.setattr(bproot, "set_partitioning_mip", spy)
    jumped = branch_and_price(X, 3, **OPTIONS)
    assert jumping_clock[0] > 100            # the clock was read, and jumped
    monkeypatch.undo()
    normal = branch_and_price(X, 3, **OPTIONS)
    assert normal.dive_steps > 0 and mips == [(None, MIP_NODES)]
    assert str(normal.status) == "optimal"
    assert _fingerprint(jumped) == _fingerprint(normal)


def test_cg_same_run_whatever_the_clock(jumping_clock, monkeypatch):
    X = lognormal(60, 4, seed=2).X
    jumped = column_generation(X, 3, threads=1)
    monkeypatch.undo()
    normal = column_generation(X, 3, threads=1)
    assert (jumped.partition.labels.tolist(), jumped.lower_bound, jumped.iterations) == \
        (normal.partition.labels.tolist(), normal.lower_bound, normal.iterations)


def test_mip_budgets_validated_and_switch_off():
    from mipagg.errors import ParameterError

    with pytest.raises(ParameterError, match="mip_nodes"):
        branch_and_price(lognormal(12, 2, seed=0).X, 3, mip_nodes=-1)
    X = lognormal(40, 4, seed=1).X
    off = branch_and_price(X, 3, mip_nodes=0, **OPTIONS)
    assert off.seconds["mip"] == 0.0 and str(off.status) == "optimal"
