"""Ctrl-C once stops ``cg`` and ``bp`` as at a time limit (mipagg.interrupts):
status "interrupted", the best partition, a certified bound and bp's
checkpoint; a second signal aborts.  The signals are real (os.kill to this
process), sent from inside the run by a patched step."""

from __future__ import annotations

import os
import signal
import threading
import time

import multiprocessing as mp
import numpy as np
import pytest

from mipagg.exact import parallel
from mipagg.exact.bp import BranchAndPrice, branch_and_price
from mipagg.exact.colgen import Rounder, column_generation
from mipagg.exact.master import set_partitioning_mip, squared_distances
from mipagg.exact.pricing.constraints import PricingConstraints
from mipagg.exact.pricing import search
from mipagg.exact.pricing.search import SearchSpace, search_clusters
from mipagg.exact.settings import StopCriterion
from mipagg.interrupts import CtrlC, StopRequest, graceful_stops, stoppable

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)



@pytest.fixture(autouse=True)
def default_sigint():
    """SIGINT with Python's default handler, which CtrlC replaces: a job
    started in the background (CI's runner, an xdist worker) ignores it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _press():
    os.kill(os.getpid(), signal.SIGINT)


def _press_at(cls, method: str, call: int, monkeypatch) -> list:
    """Patch ``cls.method`` to send SIGINT on its ``call``-th call."""
    real, calls = getattr(cls, method), []

    def pressing(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            _press()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(cls, method, pressing)
    return calls


def test_first_signal_is_a_request_only_inside_a_stoppable_run_under_graceful_stops():
    with CtrlC():
        with pytest.raises(KeyboardInterrupt), stoppable():     # not allowed: aborts
            _press()
        with graceful_stops():
            with pytest.raises(KeyboardInterrupt):              # no run on: aborts
                _press()
            with stoppable():
                _press()                                        # a request, no raise
                assert StopRequest.requested and StopCriterion().expired()
                assert StopCriterion().left() == 0.0
                with pytest.raises(KeyboardInterrupt):          # the second one aborts
                    _press()
            assert not StopRequest.requested                    # ends with the run
            assert not StopCriterion().expired() and StopCriterion().left() is None
    assert CtrlC.presses == 3 and not StopRequest.enabled       # the three that aborted


def test_interrupted_tree_keeps_a_certified_bound_and_resumes_to_the_optimum(tree24, tmp_path,
                                                                            monkeypatch):
    X, opt = tree24
    path = tmp_path / "t.npz"
    calls = _press_at(BranchAndPrice, "process", 6, monkeypatch)
    with CtrlC(), graceful_stops():
        r = branch_and_price(X, 3, checkpoint=str(path), **TREE_ONLY)
    assert r.status == "interrupted" and not r.success and "Interrupted" in r.message
    assert r.partition.is_feasible(3)
    assert r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    assert r.open_nodes > 0 and r.checkpoint == str(path)
    assert r.nodes == len(calls) + 1 == 7    # the root, then the node in progress: no other
    assert CtrlC.presses == 0
    monkeypatch.undo()
    resumed = branch_and_price(X, 3, resume=str(path), **TREE_ONLY)
    assert resumed.status == "optimal" and resumed.sse == pytest.approx(opt, abs=1e-7)


def test_interrupted_tree_on_two_workers_gives_up_the_tasks_out(tree24, monkeypatch):
    X, opt = tree24
    _press_at(parallel._Coordinator, "merge", 2, monkeypatch)
    with CtrlC(), graceful_stops():
        r = branch_and_price(X, 3, workers=2, **TREE_ONLY)
    assert r.status == "interrupted" and r.workers == 2
    assert r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7 and r.open_nodes > 0
    assert not [p for p in mp.active_children() if p.is_alive()]


def test_without_graceful_stops_ctrl_c_aborts_bp(tree24, monkeypatch):
    X, _ = tree24
    _press_at(BranchAndPrice, "process", 3, monkeypatch)
    with CtrlC(), pytest.raises(KeyboardInterrupt):
        branch_and_price(X, 3, **TREE_ONLY)


def test_interrupted_column_generation(tree24, monkeypatch):
    X, opt = tree24
    calls = _press_at(Rounder, "__call__", 3, monkeypatch)     # once per iteration
    with CtrlC(), graceful_stops():
        r = column_generation(X, 3, rounding="every")
    assert r.status == "interrupted" and r.partition.is_feasible(3)
    assert r.iterations == len(calls) == 3      # the loop stopped at its next check
    assert r.lower_bound is None or r.lower_bound <= opt + 1e-7


def _hard_set_partitioning(n=90, m=30_000, seed=1):
    """A set-partitioning MIP HiGHS needs about 30 s for (lognormal records,
    random clusters of 3–5 with noisy SSE weights, consecutive triples for
    feasibility)."""
    rng = np.random.default_rng(seed)
    X = rng.lognormal(size=(n, 4))
    cols = [list(range(i, i + 3)) for i in range(0, n, 3)]
    cols += [sorted(rng.choice(n, rng.integers(3, 6), replace=False).tolist()) for _ in range(m)]
    w = [float(((X[c] - X[c].mean(0)) ** 2).sum() + 0.5) * rng.uniform(0.9, 1.1) for c in cols]
    return n, cols, w


def test_a_stop_request_ends_a_highs_mip_under_way_as_at_its_time_limit():
    """A MIP under way (a node gap closing, the pool MIP) stops at HiGHS's
    next limit check, and the signal's handler runs inside it: without the
    check the main thread stays in HiGHS until the MIP's own limit."""
    n, cols, w = _hard_set_partitioning()
    timer = threading.Timer(1.0, _press)
    info: dict = {}
    with CtrlC(), graceful_stops(), stoppable():
        timer.start()
        t0 = time.perf_counter()
        status, value, chosen = set_partitioning_mip(n, cols, w, time_limit=120, info=info)
        seconds = time.perf_counter() - t0
        assert StopRequest.requested
    timer.join()
    assert status == "time_limit" and seconds < 15
    assert value is not None and info["dual_bound"] <= value + 1e-9
    assert sorted(v for j in chosen for v in cols[j]) == list(range(n))


def test_a_stop_request_ends_an_enumeration_with_a_deadline_only(monkeypatch):
    """The exact search honours a request between slices where it has a
    deadline (a node gap closing's budget); pricing without one finishes
    its search.  One expansion per slice, so that a small search has many."""
    monkeypatch.setattr(search, "_SLICE", 1)
    rng = np.random.default_rng(3)
    D = squared_distances(rng.normal(size=(120, 3)))
    lam = np.sort(D, axis=1)[:, 1:5].sum(axis=1) / 10     # the least reduced cost near 0
    space, cons = SearchSpace.build(D, 5), PricingConstraints.none(120)
    whole = search_clusters(space, lam, cons, mode="best", max_columns=5)
    assert whole.status == "complete" and whole.expansions > 100
    with CtrlC(), graceful_stops(), stoppable():
        _press()
        far = time.perf_counter() + 3600
        cut = search_clusters(space, lam, cons, mode="best", max_columns=5, deadline=far)
        free = search_clusters(space, lam, cons, mode="best", max_columns=5)
    assert cut.status == "time_limit" and cut.expansions < 5 and cut.min_rc is None
    assert free.status == "complete" and free.min_rc == whole.min_rc
