"""The branch-and-price tree on several processes and on a Dask cluster
(mipagg.exact.parallel): the same optimum as the serial tree, brute force and
the full MIP; limits honoured with a certified bound; Ctrl-C stops the workers."""

from __future__ import annotations

import json
import multiprocessing as mp

import numpy as np
import pytest
from _strategies import tiny_instances
from _bruteforce import optimal_partition
from hypothesis import given, settings

from mipagg.errors import ParameterError
from mipagg.exact import parallel
from mipagg.exact.bp import branch_and_price
from mipagg.exact.settings import BPSettings
from mipagg.subsets import subset

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)



def _valid(r, X, k):
    assert r.partition.is_feasible(k)
    assert r.sse == pytest.approx(r.partition.sse(), abs=1e-9)


@settings(max_examples=12, deadline=None)
@given(tiny_instances(min_n=8))
def test_two_workers_give_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, threads=1, workers=2, **TREE_ONLY)
    _valid(r, X, k)
    assert r.status == "optimal"
    assert r.sse == pytest.approx(opt, abs=1e-7)
    assert r.lower_bound == pytest.approx(opt, abs=1e-7)


def test_two_workers_give_the_serial_optimum(tree24):
    X, opt = tree24
    serial = branch_and_price(X, 3, **TREE_ONLY)
    two = branch_and_price(X, 3, workers=2, **TREE_ONLY)
    for r in (serial, two):
        _valid(r, X, 3)
        assert r.status == "optimal" and r.closed_by == "tree"
        assert r.sse == pytest.approx(opt, abs=1e-7)
        assert r.lower_bound == pytest.approx(opt, abs=1e-7)
    assert serial.workers == 1 and two.workers == 2
    assert two.nodes > 10 and two.open_nodes == 0 and two.max_depth >= 1
    assert two.seconds["workers"] > 0
    assert two.summary()["workers"] == 2
    for r in (serial, two):          # the workers' branching time is the run's too
        assert 0 < r.seconds["branching"] < r.seconds["total"]


def test_reliability_branching_gives_the_optimum_on_one_and_two_workers(tree24):
    """branching=reliability: the serial optimum on 1 and 2 workers, some
    candidates scored by pseudocosts, the workers' counts added to the run's."""
    X, opt = tree24
    for workers in (1, 2):
        r = branch_and_price(X, 3, workers=workers, branching="reliability:4", **TREE_ONLY)
        _valid(r, X, 3)
        assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
        assert r.branching == "reliability" and r.strong_evaluations > 0
        assert 0 < r.strong_predicted and r.summary()["strong_predicted"] == r.strong_predicted


def test_node_gap_closing_and_fixing_in_the_workers(tree24):
    X, opt = tree24
    r = branch_and_price(X, 3, workers=2, cuts=False, close_gap=False, mip_time=0)
    _valid(r, X, 3)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.node_closings >= r.nodes_enumerated >= 1     # counted in the workers
    assert r.seconds["node_close"] > 0                     # and timed there


def test_partial_node_closings_in_the_workers(tree24):
    X, opt = tree24
    r = branch_and_price(X, 3, workers=2, node_close_partial=200, **TREE_ONLY)
    _valid(r, X, 3)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.node_partial_closings >= 1                 # counted in the workers


def test_a_dask_cluster_gives_the_same_optimum(tree24):
    distributed = pytest.importorskip("distributed")
    X, opt = tree24
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        r = branch_and_price(X, 3, scheduler=client, **TREE_ONLY)
        again = branch_and_price(X, 3, scheduler=client, node_limit=12, **TREE_ONLY)
    _valid(r, X, 3)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.workers == 2 and r.nodes > 10
    assert again.status == "node_limit" and again.nodes <= 12
    assert again.lower_bound <= opt + 1e-7 <= again.sse + 2e-7


def test_the_coordinators_book_keeps_only_the_open_nodes_bases(tree24):
    """A basis a worker sends back with an open node leaves the coordinator's
    book when the node's task returns or the node is pruned, and a cluster
    when no basis holds it: stopped by a node limit the book holds the open
    nodes' clusters, a proven tree leaves it empty."""
    from mipagg.exact.bp import BranchAndPrice

    X, opt = tree24
    for limit in (30, None):
        tree = BranchAndPrice(X, 3, BPSettings(**TREE_ONLY, workers=2, node_limit=limit))
        r = tree.run()
        book = tree.basis_book
        open_nodes = [tree.open.pop() for _ in range(len(tree.open))]
        assert set(book.nodes) <= {nd.ident for nd in open_nodes}
        held = {book.clusters[j].tobytes() for kept in book.nodes.values()
                for j in kept.ids.tolist()}
        assert len(book) == len(held)
        assert book.issued > len(book)                 # clusters were dropped on the way
        if limit is None:
            assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
            assert not book.nodes and len(book) == 0
        else:
            assert r.status == "node_limit" and len(book.nodes) > 0


@pytest.mark.parametrize("limit", [2, 9, 20])
def test_the_node_limit_is_honoured(tree24, limit):
    X, opt = tree24
    r = branch_and_price(X, 3, workers=2, node_limit=limit, **TREE_ONLY)
    _valid(r, X, 3)
    assert r.status == "node_limit"
    assert r.nodes <= limit and r.open_nodes > 0
    assert r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    assert r.closed_by is None and r.gap > 0


def test_the_time_limit_is_honoured(census):
    s = subset(census, 60, "random", 1)
    r = branch_and_price(s.X, 3, workers=2, time_limit=1.5, **TREE_ONLY)
    _valid(r, s.X, 3)
    # about 1 700 nodes, 3.9 s on two idle workers (2026-11-28): not solved in 1.5 s
    assert r.status == "time_limit"
    assert r.lower_bound is not None and r.lower_bound <= r.sse + 1e-9
    assert r.seconds["total"] < 1.5 + 5.0
    assert r.open_nodes > 0 and r.gap > 0 and r.nodes > 1


def test_ctrl_c_stops_the_workers(tree24, monkeypatch):
    X, _ = tree24
    calls = []

    def interrupt(self, result):
        calls.append(result)
        raise KeyboardInterrupt

    monkeypatch.setattr(parallel._Coordinator, "merge", interrupt)
    with pytest.raises(KeyboardInterrupt):
        branch_and_price(X, 3, workers=2, **TREE_ONLY)
    assert calls
    assert not [p for p in mp.active_children() if p.is_alive()]


def test_a_snapshot_rebuilds_the_run_in_a_worker(tree24):
    """A worker tree (built here, in this process) from the snapshot of a run
    stopped after its root solves a subtree task of the root: 5 nodes, open
    nodes whose bounds lie between the root's and the optimum."""
    X, opt = tree24
    from mipagg.exact.bp import BranchAndPrice

    tree = BranchAndPrice(X, 3, BPSettings(**TREE_ONLY, node_limit=1))
    assert tree.run().status == "node_limit"
    snap = parallel.snapshot(tree)
    assert len(snap.columns) == len(tree.master.columns) and snap.settings.workers == 1
    task = parallel.SubtreeTask(tree.root_bound, 0, (), (), tree.rounder.best_sse,
                                tree.rounder.best.labels, None, 5)
    r = parallel.run_task(snap, task)
    assert r.counts["nodes"] == 5 and len(r.open) >= 1
    assert all(tree.root_bound - 1e-7 <= b <= opt + 1e-7 for b, *_ in r.open)
    # each open node carries its parent's LP support: columns of the pool
    # that cover every record (the master's rows are partitioning equalities)
    for *_, hints, basis, side, sizes_out in r.open:
        assert side in (0, 1) and sizes_out == 0    # made by a branching in the task
        assert hints and all(len(c) >= 3 for c in hints)
        assert set(np.concatenate(hints).tolist()) == set(range(len(X)))
        assert basis is not None and basis.row_status.size == len(X) + len(snap.cuts)
    again = parallel.run_task(snap, task)             # the cached worker tree
    assert again.counts["nodes"] == 5


def test_a_node_starts_from_its_parents_basis_on_another_worker(tree24):
    """An open node a worker sends back carries its parent's final basis; a
    second worker, whose pool lacks the first one's new columns, solves it
    warm (a warm start counted) and in fewer pivots than from its own last
    basis; a node without a basis starts cold."""
    from mipagg.exact.bp import BranchAndPrice

    X, opt = tree24
    tree = BranchAndPrice(X, 3, BPSettings(**TREE_ONLY, node_limit=1))
    tree.run()
    snap = parallel.snapshot(tree)
    first, second = parallel.build_worker(snap), parallel.build_worker(snap)
    parallel.solve_subtree(second, parallel.SubtreeTask(
        tree.root_bound, 0, (), (), tree.rounder.best_sse, tree.rounder.best.labels, None, 3))
    root = parallel.SubtreeTask(tree.root_bound, 0, (), (), tree.rounder.best_sse,
                                tree.rounder.best.labels, None, 6)
    out = parallel.solve_subtree(first, root)
    bound, depth, together, apart, hints, basis, _, _ = max(out.open, key=lambda o: o[1])
    assert basis is not None
    pivots = []
    for b in (None, basis):
        worker = parallel.build_worker(snap)
        first_solve = worker.master.solve

        def solve(*args, **kwargs):
            sol = first_solve(*args, **kwargs)
            if len(pivots) < want:
                pivots.append(sol.simplex_iterations)
            return sol

        want = len(pivots) + 1
        worker.master.solve = solve
        task = parallel.SubtreeTask(bound, depth, together, apart, tree.rounder.best_sse,
                                    tree.rounder.best.labels, None, 1, hints=hints, basis=b)
        r = parallel.solve_subtree(worker, task)
        assert r.counts["nodes"] == 1 and r.counts["warm_starts"] == (b is not None)
    assert pivots[1] < pivots[0]
    r = parallel.solve_subtree(second, task)            # a worker with another pool
    assert r.counts["warm_starts"] == 1


def test_workers_share_reliability_pseudocosts_and_count_each_probe_once(tree24, tmp_path):
    """The coordinator's pseudocost table (kept by the checkpoint) holds each
    probe of every process once: two LP re-solves per observation; a worker
    adds another worker's observation once however often it is sent, and
    never its own again."""
    import os
    import threading

    from mipagg.exact import checkpoint
    from mipagg.exact.bp import BranchAndPrice

    X, opt = tree24
    r = branch_and_price(X, 3, workers=2, branching="reliability:4",
                         checkpoint=tmp_path / "w.npz", **TREE_ONLY)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    pairs, sums, probes = checkpoint.load(tmp_path / "w.npz").pseudocosts
    assert probes.sum() * 2 == r.strong_evaluations > 0 and pairs.shape == (probes.size, 2)
    assert (sums >= 0).all() and (pairs[:, 0] < pairs[:, 1]).all()

    tree = BranchAndPrice(X, 3, BPSettings(**TREE_ONLY, node_limit=1,
                                           branching="reliability:4"))
    tree.run()
    assert tree.branching.fresh is None                 # the serial tree keeps no log
    worker = parallel.build_worker(parallel.snapshot(tree))
    me, seen = f"{os.getpid()}:{threading.get_ident()}", (0, 1, 0.5, 0.25)
    before = list(worker.branching.pseudocosts.get((0, 1), [0.0, 0.0, 0]))
    task = parallel.SubtreeTask(tree.root_bound, 0, (), (), tree.rounder.best_sse,
                                tree.rounder.best.labels, None, 2,
                                observations=[("other", 0, seen), ("other", 0, seen),
                                              (me, 1, seen)])
    out = parallel.solve_subtree(worker, task)
    again = parallel.solve_subtree(worker, task)             # sent once more: not added
    own = [o for o in out.observations + again.observations if o[:2] == (0, 1)]
    entry = worker.branching.pseudocosts[(0, 1)]
    assert entry[2] == before[2] + 1 + len(own)
    assert entry[0] == pytest.approx(before[0] + 0.5 + sum(o[2] for o in own))
    assert out.observations and all(len(o) == 4 for o in out.observations)


@pytest.mark.parametrize("options,match", [
    (dict(workers=0), "workers"), (dict(workers=1.5), "workers"),
    (dict(workers=None), "workers"), (dict(scheduler=""), "scheduler"),
    (dict(scheduler=3), "scheduler")])
def test_bad_parallel_options_are_refused(options, match):
    with pytest.raises(ParameterError, match=match):
        BPSettings(**options)


def test_one_worker_is_the_serial_tree(tree24):
    X, _ = tree24
    a = branch_and_price(X, 3, **TREE_ONLY)
    b = branch_and_price(X, 3, workers=1, **TREE_ONLY)
    assert (a.nodes, a.sse, a.workers) == (b.nodes, b.sse, 1)
    assert "workers" not in a.seconds
    assert np.array_equal(a.partition.labels, b.partition.labels)


def test_the_command_line_takes_workers(tmp_path, capsys, tree24):
    import json

    from mipagg.cli import main

    X, _ = tree24
    data = tmp_path / "tree24.csv"
    np.savetxt(data, X, delimiter=",", header=",".join(f"x{j}" for j in range(X.shape[1])),
               comments="")
    runs = {}
    for extra in ([], ["--workers", "2"]):
        assert main(["run", str(data), "-k", "3", "--method", "bp", "--json", "--quiet",
                     *extra]) == 0
        runs[len(extra)] = json.loads(capsys.readouterr().out)
    assert runs[2]["status"] == runs[0]["status"] == "optimal"
    assert runs[2]["sse"] == pytest.approx(runs[0]["sse"], rel=1e-9)
    assert main(["run", str(data), "-k", "3", "--method", "mdav", "--workers", "2"]) == 2
    assert "does not take --workers" in capsys.readouterr().err


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(c) for c in fh.read().split()]
    except OSError:
        return []


@pytest.mark.slow
@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/task"), reason="needs /proc")
def test_ctrl_c_in_a_terminal_stops_the_command_and_its_workers(tmp_path, census):
    """SIGINT to the whole process group (a terminal's Ctrl-C) once the
    workers run (Census centroid-3, n = 100, k = 5: a tree of hundreds of
    nodes with the default options): the workers ignore it, the tree stops
    as at a time limit (status "interrupted", its bound below its SSE), the
    tasks out are given up, and no worker is left."""
    import os
    import signal
    import subprocess
    import sys
    import time

    X = subset(census, 100, "centroid", 3).X
    data = tmp_path / "big.csv"
    np.savetxt(data, X, delimiter=",", comments="",
               header=",".join(f"x{j}" for j in range(X.shape[1])))
    proc = subprocess.Popen([sys.executable, "-m", "mipagg.cli", "run", str(data), "-k", "5",
                             "--method", "bp", "--workers", "2", "--quiet", "--json"],
                            start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE,   # SIGINT as in a terminal, not ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        end = time.time() + 240
        while len(_children(proc.pid)) < 2 and proc.poll() is None and time.time() < end:
            time.sleep(0.2)
        workers = _children(proc.pid)
        if proc.poll() is not None:
            pytest.skip("the run ended before its tree started")
        assert len(workers) >= 2
        time.sleep(1.0)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        summary = json.loads(out)
        assert summary["status"] == "interrupted" and summary["workers"] == 2
        assert summary["lower_bound"] <= summary["sse"] and summary["open_nodes"] > 0
        time.sleep(0.5)
        assert not [w for w in workers if os.path.exists(f"/proc/{w}")
                    and open(f"/proc/{w}/stat").read().split()[2] != "Z"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_inside_a_daemonic_process_the_tree_runs_serially(tree24):
    X, opt = tree24
    me = mp.current_process()
    me.daemon = True            # as in a worker of a process pool
    try:
        with pytest.warns(RuntimeWarning, match="serially"):
            r = branch_and_price(X, 3, workers=2, **TREE_ONLY)
    finally:
        me.daemon = False
    assert r.status == "optimal" and r.workers == 1
    assert r.sse == pytest.approx(opt, abs=1e-7)


def test_settings_with_a_client_as_dict_by_address():
    """BPSettings.as_dict() names a Client by its scheduler's address (no deep copy)."""
    from distributed import Client, LocalCluster

    from mipagg.exact.settings import BPSettings

    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        d = BPSettings(scheduler=client).as_dict()
        assert d["scheduler"] == client.scheduler.address and d["workers"] == 1


@pytest.mark.parametrize("workers", [1, 2])
def test_a_loose_gap_tolerance_reports_the_bound_it_proved(tree24, workers):
    """gap_tol = 2 %: the nodes within 2 % of the best SSE are cut off and the
    run is "optimal" within that tolerance, but the bound it reports is the
    least bound of those nodes, never the best SSE itself."""
    X, opt = tree24
    r = branch_and_price(X, 3, gap_tol=0.02, workers=workers, **TREE_ONLY)
    _valid(r, X, 3)
    assert r.status == "optimal"
    assert r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7
    assert r.sse - r.lower_bound <= 0.02 * r.sse + 1e-9
    exact = branch_and_price(X, 3, workers=workers, **TREE_ONLY)
    assert exact.lower_bound == pytest.approx(opt, rel=1e-9)
    assert r.nodes < exact.nodes and r.lower_bound < exact.lower_bound
