"""The branch-and-price tree on several cores or a Dask cluster (``bp
--workers N`` / ``--scheduler ADDRESS``).

The root phases run in the calling process as in the serial tree; then the
open nodes are solved concurrently.  The calling process (the *coordinator*)
keeps the queue of open nodes (best bound first), the incumbent and the
global bound, and hands out *subtree tasks* (:class:`SubtreeTask`): a node
(its bound and together/apart pairs), the incumbent, the seconds left and a
node budget.  A worker solves up to that many nodes of the node's subtree,
best bound first, with the serial node processing of
:class:`~mipagg.exact.bp.BranchAndPrice` (``process``: column generation,
gap closing, pair fixing, branching) and returns the nodes it left open, the
best partition it found and its counts (:class:`SubtreeResult`).  Tasks go
through one concurrent.futures-style interface with two backends: forked
local processes (:class:`ProcessBackend`) and a Dask cluster
(:class:`DaskBackend`, a ``distributed.Client``).

A worker rebuilds the run once (cached per process and thread,
:func:`run_task`) from a :class:`Snapshot`: the data and the settings, the
root's column pool and cuts, the root's pair fixing and node gap-closing
threshold, and reliability branching's pseudocosts; its own pool then grows
with the nodes it solves.  The columns and the strong-branching probes
(pseudocost observations) each worker finds reach the others with their
next tasks; so do the node gap-closing threshold a worker's closing sets
and what its ``node_close_cost`` model sees, through the coordinator; so
do the cuts of node cut rounds, which the coordinator numbers
(:mod:`mipagg.exact.cutorder`) and a checkpoint keeps.  Each
node travels with its parent's final master basis, its basic columns as
clusters (:class:`~mipagg.exact.bases.PortableBasis`, kept by the
coordinator in a :class:`~mipagg.exact.bases.BasisBook`), so that its first
LP starts warm on whichever worker takes it.

The proven optimum does not depend on the schedule (the same SSE whatever
the number of workers; the tree's size and, among equal optima, the
partition may differ): every node bound is certified by that node's own
column generation, a node's bound holds for its whole subtree, so the global
lower bound is the least bound of the open and in-flight nodes, and a node is
pruned only against a partition some process found.  A worker prunes against
the incumbent it was sent (or better), the coordinator against the best
returned so far.

With a ``checkpoint`` file, the coordinator writes one every
``checkpoint_every`` seconds as tasks come back: the queue plus the nodes
of the tasks still out (:func:`~mipagg.exact.checkpoint.save`), whose
bounds hold for their subtrees; a run resumed from it solves them again.
"""

from __future__ import annotations

import concurrent.futures as cf
import copy
import multiprocessing as mp
import os
import signal
import threading
import time
import uuid
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..interrupts import StopRequest
from ..partition import Partition
from .bases import PortableBasis
from .closingvalue import ClosingValue
from .colgen import default_threads
from .cutorder import CanonicalCuts, CutOrder
from .highs import release_solver_threads
from .node import NodeResult
from .rules import Node
from .settings import StopCriterion

__all__ = ["explore_in_parallel", "Snapshot", "SubtreeTask", "SubtreeResult", "snapshot",
           "build_worker", "solve_subtree", "run_task", "ProcessBackend", "DaskBackend",
           "SUBTREE_NODES"]

SUBTREE_NODES = 8       # nodes a task may solve (fewer under a node limit)
GRACE_SECONDS = 30.0    # past the deadline, tasks still out are given up (their nodes stay open)
POLL_SECONDS = 1.0      # the coordinator wakes at least this often
HINTS = True            # send each node its parent's LP support columns
SHARE_PROBES = True     # send each worker the others' pseudocost observations

_SECONDS = ("node_close", "fixing", "branching")     # a worker's node work, added to the run's
_COUNTS = ("nodes", "iterations", "node_closings", "nodes_enumerated", "node_partial_closings",
           "node_closing_incumbents", "node_closings_timed_out", "node_closings_too_large",
           "node_closings_skipped",
           "node_fixed_pairs", "node_fixed_sizes", "columns_fixed",
           "warm_starts", "bases_kept", "lp_stalls", "lp_retries", "strong_evaluations", "strong_predicted") \
    + tuple(f"time_{k}" for k in _SECONDS)


@dataclass
class Snapshot:
    """What a worker needs to rebuild the run: ``cls`` (the tree's class),
    the data, the worker's settings (no node limit, one worker), the incumbent's
    labels, the root's columns and cuts, the root's pair fixing
    (:meth:`~mipagg.exact.fixing.PairFixing.state`), the node gap-closing
    threshold, the root bounds, the branching rule's pseudocost table
    (:meth:`~mipagg.exact.branching.ReliabilityBranching.state`, or None) and
    the root's stop state (its duals fix columns again, ``column_fixing``).
    ``token`` names the run."""

    token: str
    cls: type
    X: np.ndarray
    k: int
    settings: object
    labels: np.ndarray
    columns: list
    cuts: list
    fixing: tuple | None
    closer: object
    root_bound: float
    root_lp_bound: float | None
    pseudocosts: tuple | None = None
    root_stop: object = None


@dataclass
class SubtreeTask:
    """Solve at most ``max_nodes`` nodes of the subtree of the node (``bound``,
    ``depth``, ``together``, ``apart``) with the incumbent (``ub``,
    ``labels``) within ``seconds`` (None: no limit).  ``hints``: the columns
    of the node's parent's last master solution (added to the worker's pool,
    so the node starts where its parent ended whichever worker solved that);
    ``columns``: the columns other workers found since this worker's last
    task (the pools stay close to the serial tree's one pool);
    ``observations``: likewise the pseudocost observations of the others'
    probes (reliability branching), as (worker, log index, observation): the
    worker that takes the task may not be the one guessed, so it drops its
    own and those it has had (an observation counts once).  ``basis``: the
    parent's final master basis (:class:`~mipagg.exact.bases.PortableBasis`,
    or None), so that the node's first LP starts where its parent's ended
    whichever worker solved that (a first LP from an unrelated basis took
    6× the pivots of a warm one: docs/bench/casc_gap.md §48).  ``side``:
    the node's index among its parent's children (:class:`~mipagg.exact.rules.Node`).
    ``closing_limit`` and ``closing_model``: the coordinator's node
    gap-closing threshold (:class:`~mipagg.exact.nodeclosing.NodeClosing`)
    and ``node_close_cost`` model (:meth:`ClosingValue.state
    <mipagg.exact.closingvalue.ClosingValue.state>`, which holds what every
    worker handed over), which the worker takes up; None: it keeps its own.
    ``sizes_out``: the cluster sizes excluded in the node's subtree
    (:class:`~mipagg.exact.rules.Node`).  ``cuts``: the coordinator's cuts
    from its ``cut_start``-th on (node cut rounds; the basis's rows are in
    their order, :mod:`mipagg.exact.cutorder`)."""

    bound: float
    depth: int
    together: tuple
    apart: tuple
    ub: float
    labels: np.ndarray
    seconds: float | None
    max_nodes: int
    hints: list = field(default_factory=list)
    columns: list = field(default_factory=list)
    observations: list = field(default_factory=list)
    basis: PortableBasis | None = None
    side: int = -1
    closing_limit: float | None = None
    closing_model: dict | None = None
    sizes_out: int = 0
    cut_start: int = 0
    cuts: list = field(default_factory=list)


@dataclass
class SubtreeResult:
    """The nodes a task left open, as (bound, depth, together, apart, hints,
    basis: a :class:`~mipagg.exact.bases.PortableBasis` or None, side: the
    index among its parent's children or −1, sizes_out: the sizes excluded in
    its subtree); the
    worker's incumbent when better than the one sent (``sse``, ``labels``,
    else None); counts (``_COUNTS``); the deepest node solved; whether the
    time limit interrupted it; its busy seconds; the columns it found,
    which worker (process and thread) it is, the least bound of the nodes
    it cut off, its own pseudocost observations (reliability branching),
    what its ``node_close_cost`` model saw during the task, or None, its
    node gap-closing threshold when a closing in the task moved it, or None,
    the cuts it found that the coordinator has not numbered yet and how many
    of the coordinator's cuts it knows (the open nodes' bases list their
    rows in that order: :meth:`~mipagg.exact.cutorder.CutOrder.canonical`)."""

    open: list
    sse: float | None
    labels: np.ndarray | None
    counts: dict
    max_depth: int
    time_limit: bool
    seconds: float
    columns: list = field(default_factory=list)
    worker: str = ""
    pruned: float = np.inf          # least bound of the nodes it cut off
    observations: list = field(default_factory=list)
    closing_value: dict | None = None   # ClosingValue.take_fresh() of node_close_cost
    closing_limit: float | None = None  # NodeClosing.limit, when the task moved it
    cuts: list = field(default_factory=list)
    cut_width: int = 0


# ---------------------------------------------------------------- the worker side

def snapshot(tree) -> Snapshot:
    """The :class:`Snapshot` of ``tree`` after its root phases.  Each worker's
    pricing gets ``threads`` (default: the cores shared out among the local
    workers, 1 on a Dask cluster)."""
    st = tree.settings
    threads = st.threads
    if threads is None:
        threads = 1 if st.scheduler is not None else max(1, default_threads() // st.workers)
    # the time limit stays (the budgets derived from it are the serial tree's);
    # each task brings its own deadline
    worker = st.replace(node_limit=None, workers=1, scheduler=None, threads=threads,
                        checkpoint=None, resume=None)
    return Snapshot(uuid.uuid4().hex, type(tree), tree.X, tree.k, worker,
                    tree.rounder.best.labels.copy(), list(tree.master.columns),
                    list(tree.master.cuts), None if tree.fixer is None else tree.fixer.state(),
                    copy.copy(tree.closer), tree.root_bound, tree.root_lp_bound,
                    tree.branching.state() if hasattr(tree.branching, "state") else None,
                    tree.root.stop)


def build_worker(snap: Snapshot):
    """A tree of ``snap.cls`` holding the snapshot's state: its own
    master (the root's columns and cuts), incumbent, pair fixing and node
    gap-closing threshold and pseudocosts."""
    tree = snap.cls(snap.X, snap.k, snap.settings, initial=snap.labels)
    tree.adopt_root(snap.columns, snap.cuts, snap.fixing)
    if snap.pseudocosts is not None and hasattr(tree.branching, "adopt"):
        tree.branching.adopt(snap.pseudocosts)
    tree.heard = set()          # the log indices of the observations it has had
    tree.closer = copy.deepcopy(snap.closer)
    tree.closer.restart()
    if tree.closer.value is not None:
        tree.closer.value.take_fresh()      # the coordinator has seen those already
    tree.root_bound, tree.root_lp_bound = snap.root_bound, snap.root_lp_bound
    tree.root = NodeResult(snap.root_stop, None, 0)     # its duals fix columns again
    tree.pool_fixed = len(tree.master.columns)
    tree.cut_order = CutOrder(tree.master)
    return tree


def _counts(tree) -> dict:
    fixer, closer = tree.fixer, tree.closer
    return {"nodes": tree.nodes, "iterations": tree.iterations,
            "node_closings": closer.tried, "nodes_enumerated": closer.succeeded,
            "node_partial_closings": closer.partial, "node_closing_incumbents": closer.better,
            "node_closings_timed_out": closer.timed_out,
            "node_closings_too_large": closer.too_large, "node_closings_skipped": closer.skipped,
            "node_fixed_pairs": 0 if fixer is None else fixer.node_fixed,
            "node_fixed_sizes": tree.node_fixed_sizes, "columns_fixed": tree.columns_fixed,
            "warm_starts": tree.warm_starts, "bases_kept": tree.master.bases_kept,
            "lp_stalls": tree.master.lp_stalls,
            "lp_retries": tree.master.lp_retries,
            "strong_evaluations": getattr(tree.branching, "evaluations", 0),
            "strong_predicted": getattr(tree.branching, "predicted", 0),
            **{f"time_{k}": tree.seconds[k] for k in _SECONDS}}


def solve_subtree(tree, task: SubtreeTask) -> SubtreeResult:
    """Solve up to ``task.max_nodes`` nodes of the task's subtree best bound
    first on the worker ``tree`` (:func:`build_worker`)."""
    t0 = time.perf_counter()
    rounder = tree.rounder
    if task.ub < rounder.best_sse:
        rounder.best = Partition(task.labels, tree.X)
        rounder.best_sse = rounder.best.sse()
    tree.stop = StopCriterion.start(task.seconds, gap_tol=tree.settings.gap_tol)
    tree.open = type(tree.open)()
    tree.tree_status, tree.max_depth, tree.ident = None, 0, 1
    tree.pruned_bound = np.inf
    if task.closing_limit is not None:
        tree.closer.limit = task.closing_limit
    if task.closing_model is not None and tree.closer.value is not None:
        old = tree.closer.value
        tree.closer.value = ClosingValue(old.node_seconds.maxlen, old.nested)
        tree.closer.value.adopt(task.closing_model)     # nothing of it goes back
    limit = tree.closer.limit
    before = _counts(tree)
    tree.fix_root_columns(tree.refix_growth)   # before the task's columns and hints come in
    tree.master.add_columns(task.columns + task.hints)
    order = tree.cut_order
    order.sync(task.cut_start, task.cuts)
    given = None if task.basis is None else order.to_local(task.basis)
    basis = None if given is None else tree.master.import_basis(given)
    tree.open.push(Node(task.bound, -task.depth, 0, task.together, task.apart, basis,
                        side=task.side, sizes_out=task.sizes_out))
    me = f"{os.getpid()}:{threading.get_ident()}"
    learns = hasattr(tree.branching, "take_fresh")
    if learns:
        tree.branching.take_fresh()             # keeps this task's probes (none are left over)
        new = {g: o for origin, g, o in task.observations
               if origin != me and g not in tree.heard}
        tree.branching.observe(new.values())
        tree.heard.update(g for _, g, _ in task.observations)
    pool = len(tree.master.columns)
    hints = {0: task.hints}
    solved = 0
    while solved < task.max_nodes and (node := tree.next_node()) is not None:
        first = tree.ident
        tree.process(node)
        solved += 1
        if tree.ident > first:                      # children: their parent's support
            support = _support(tree.master, tree.branched)
            hints.update((i, support) for i in range(first, tree.ident))
    tree.master.set_allowed(None)
    tree.allowed = None
    left, portable = [], {}         # siblings share their parent's basis
    while len(tree.open):
        nd = tree.open.pop()
        if not tree.prune(nd.bound):
            if nd.basis is not None and id(nd.basis) not in portable:
                out = tree.master.export_basis(nd.basis)
                portable[id(nd.basis)] = None if out is None else order.canonical(out)
            left.append((nd.bound, nd.depth, nd.together, nd.apart, hints.get(nd.ident, []),
                         None if nd.basis is None else portable[id(nd.basis)], nd.side,
                         nd.sizes_out))
    after = _counts(tree)
    better = rounder.best_sse < task.ub
    value = tree.closer.value
    return SubtreeResult(left, rounder.best_sse if better else None,
                         rounder.best.labels.copy() if better else None,
                         {c: after[c] - before[c] for c in _COUNTS}, tree.max_depth,
                         tree.tree_status == "time_limit", time.perf_counter() - t0,
                         list(tree.master.columns[pool:]),
                         me, tree.pruned_bound,
                         tree.branching.take_fresh() if learns else [],
                         None if value is None else value.take_fresh(),
                         None if tree.closer.limit == limit else tree.closer.limit,
                         order.unsynced(), order.width)


def _support(master, solution) -> list:
    """The columns with a positive value in ``solution``, the master LP
    solution a node was branched on (no column is deleted within a task, so
    its indices still hold)."""
    return [master.columns[j] for j in np.flatnonzero(solution.x > 1e-9)]


_WORKERS: dict = {}        # thread id -> (run token, worker tree): one run cached per thread
_SNAPSHOT: list = []       # the snapshot of a forked worker process (set by its initializer)


def run_task(snap: Snapshot, task: SubtreeTask) -> SubtreeResult:
    """A task on this process and thread: the worker tree of the snapshot's
    run, built on first use (:func:`build_worker`), solves it."""
    key = threading.get_ident()
    cached = _WORKERS.get(key)
    if cached is None or cached[0] != snap.token:
        _WORKERS.pop(key, None)                     # the previous run's tree goes first
        cached = _WORKERS[key] = (snap.token, build_worker(snap))
    return solve_subtree(cached[1], task)


def _init_process(snap: Snapshot) -> None:
    """A worker process: Ctrl-C is the coordinator's (it stops the workers),
    SIGTERM kills (the command's own handler is inherited through fork)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _SNAPSHOT[:] = [snap]


def _run_in_process(task: SubtreeTask) -> SubtreeResult:
    return run_task(_SNAPSHOT[0], task)


# ---------------------------------------------------------------- backends

class ProcessBackend:
    """``workers`` local processes (forked on POSIX, after the HiGHS
    scheduler reset of :func:`~mipagg.exact.highs.release_solver_threads`)
    of a ``concurrent.futures.ProcessPoolExecutor``; the snapshot is given
    to each once, by its initializer."""

    def __init__(self, snap: Snapshot, workers: int):
        ctx = mp.get_context("fork") if os.name == "posix" else None
        release_solver_threads()        # the workers are forked at the first submit
        self.capacity = int(workers)
        self.ex = cf.ProcessPoolExecutor(max_workers=self.capacity, mp_context=ctx,
                                         initializer=_init_process, initargs=(snap,))

    def submit(self, task: SubtreeTask):
        return self.ex.submit(_run_in_process, task)

    def wait(self, futures, timeout: float) -> set:
        return cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED).done

    def close(self, abort: bool) -> None:
        """Shut the pool down; ``abort``: kill the workers first (Ctrl-C, or
        tasks given up past the deadline)."""
        procs = list((getattr(self.ex, "_processes", None) or {}).values()) if abort else []
        for proc in procs:
            proc.kill()
        # The pool's manager thread reaps the killed workers; waiting for it
        # (rather than joining them here too) leaves no half-reaped process.
        self.ex.shutdown(wait=True, cancel_futures=True)


class DaskBackend:
    """A Dask cluster: ``scheduler`` is a scheduler's address, "local" (a
    ``LocalCluster`` of ``workers`` one-thread processes, closed at the end)
    or a ``distributed.Client``.  The snapshot is scattered to every worker
    once; as many tasks are in flight as the cluster has threads."""

    def __init__(self, snap: Snapshot, scheduler, workers: int):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ParameterError("scheduler needs the 'distributed' package "
                                 "(pip install 'mipagg[experiments]')") from None
        self.cluster = None
        if isinstance(scheduler, Client):
            self.client, self.own = scheduler, False
        elif scheduler == "local":
            self.cluster = LocalCluster(n_workers=max(1, int(workers)), threads_per_worker=1,
                                        processes=True, dashboard_address=":0")
            self.client, self.own = Client(self.cluster), True
        else:
            try:
                self.client, self.own = Client(scheduler, timeout=30), True
            except (OSError, ValueError, TypeError) as exc:
                raise ParameterError(f"cannot reach the Dask scheduler {scheduler!r}: "
                                     f"{exc}") from None
        self.futures: list = []
        try:
            self.capacity = max(1, sum(self.client.nthreads().values()))
            self.snap = self.client.scatter(snap, broadcast=True)
        except BaseException:
            self.close(abort=True)
            raise

    def submit(self, task: SubtreeTask):
        fut = self.client.submit(run_task, self.snap, task, pure=False)
        self.futures.append(fut)
        return fut

    def wait(self, futures, timeout: float) -> set:
        from distributed import wait

        try:
            return set(wait(futures, timeout=timeout, return_when="FIRST_COMPLETED").done)
        except TimeoutError:
            return set()

    def close(self, abort: bool) -> None:
        pending = [f for f in self.futures if not f.done()]
        if pending:
            self.client.cancel(pending)
        if self.own:
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()


def open_backend(tree):
    """The backend of ``tree``'s settings: Dask with a ``scheduler``, else
    local processes."""
    st, snap = tree.settings, snapshot(tree)
    if st.scheduler is not None:
        return DaskBackend(snap, st.scheduler, st.workers)
    return ProcessBackend(snap, st.workers)


# ---------------------------------------------------------------- the coordinator

def explore_in_parallel(tree) -> None:
    """Solve ``tree``'s open nodes on its workers (module docstring) until none
    is left below the cutoff or a limit is hit (``tree.tree_status``); the
    counts, the incumbent and the open queue of ``tree`` are updated as in the
    serial tree, so its ``result()`` holds for both."""
    if not len(tree.open) or tree.global_bound() >= tree.cutoff() \
            or tree.tree_status is not None or tree.stop.expired() \
            or tree.stop.nodes_exhausted(tree.nodes):
        return                          # nothing to farm out: the serial loop ends the run
    if tree.settings.scheduler is None and mp.current_process().daemon:
        warnings.warn("bp: workers > 1 inside a daemonic process (e.g. a worker of a "
                      "process pool) cannot start processes: the tree runs serially",
                      RuntimeWarning, stacklevel=2)
        return
    backend = open_backend(tree)
    search = _Coordinator(tree, backend)
    try:
        search.run()
    except BaseException:
        backend.close(abort=True)
        raise
    backend.close(abort=bool(search.pending))
    tree.workers_used = backend.capacity


class _Coordinator:
    """The coordinator's loop: keep ``capacity`` tasks in flight, merge what
    comes back."""

    def __init__(self, tree, backend):
        self.tree, self.backend = tree, backend
        self.pending: dict = {}         # future -> (node, node budget)
        self.hints: dict = {}           # open node's ident -> its hint columns
        self.log: list = []             # (worker, column) of every column the workers found
        self.probes: list = []          # (worker, observation) of every pseudocost observation
        self.synced: dict = {}          # worker -> how much of each log it has seen
        self.idle: list = []            # workers that returned, oldest first
        self.busy = 0.0
        self.cuts = CanonicalCuts(tree.master)
        self.cut_base = len(tree.master.cuts)   # the cuts every worker starts with
        self.cut_synced: dict = {}      # worker -> how many of the cuts it knows

    def run(self) -> None:
        tree = self.tree
        while True:
            self.submit()
            if not self.pending:
                break
            done = self.backend.wait(list(self.pending), POLL_SECONDS)
            for fut in done:
                node, _ = self.pending.pop(fut)
                tree.basis_book.release(node.ident)
                self.merge(fut.result())
            tree.in_flight = [nd for nd, _ in self.pending.values()]
            if done:
                tree.observe_bound()
                tree.report_progress()
                if tree.checkpoint_due():     # the tasks still out are saved as open
                    tree.save_checkpoint()
            if StopRequest.requested or (not done and tree.stop.deadline is not None and
                                         time.perf_counter() > tree.stop.deadline + GRACE_SECONDS):
                self.give_up()      # Ctrl-C once: the tasks out go back open at once
                break
        tree.seconds["workers"] = self.busy

    def submit(self) -> None:
        tree, stop = self.tree, self.tree.stop
        while len(self.pending) < self.backend.capacity and len(tree.open) \
                and tree.tree_status is None:
            node = tree.open.peek()
            if tree.prune(node.bound):
                ident = tree.open.pop().ident
                self.hints.pop(ident, None)
                tree.basis_book.release(ident)
                continue
            if stop.expired():
                tree.tree_status = "time_limit"
                return
            budget = SUBTREE_NODES
            if stop.node_limit is not None:
                budget = min(budget, stop.node_limit - tree.nodes
                             - sum(b for _, b in self.pending.values()))
                if budget <= 0:
                    if not self.pending:
                        tree.tree_status = "node_limit"
                    return
            tree.open.pop()
            task = SubtreeTask(node.bound, node.depth, node.together, node.apart,
                               tree.rounder.best_sse, tree.rounder.best.labels, stop.left(),
                               budget, self.hints.pop(node.ident, []) if HINTS else [],
                               *self.news(), basis=self.basis_of(node), side=node.side,
                               closing_limit=tree.closer.limit,
                               closing_model=None if tree.closer.value is None
                               else tree.closer.value.state(), sizes_out=node.sizes_out,
                               **self.cut_news())
            self.pending[self.backend.submit(task)] = (node, budget)
            tree.in_flight.append(node)

    def basis_of(self, node) -> PortableBasis | None:
        """The basis ``node`` starts from (its parent's, kept until its task
        returns: a checkpoint saves it with the node); None with
        ``node_basis`` off."""
        return self.tree.portable_basis(node)[1] if self.tree.settings.node_basis else None

    def news(self) -> tuple:
        """The columns and pseudocost observations for the next task: those
        found by others since the worker most likely to take it (the one idle
        longest) last heard."""
        if not self.idle:
            return [], []
        w = self.idle.pop(0)
        (col, obs), self.synced[w] = self.synced.get(w, (0, 0)), (len(self.log), len(self.probes))
        return ([c for origin, c in self.log[col:] if origin != w],
                [(origin, g, o) for g, (origin, o) in enumerate(self.probes[obs:], obs)
                 if origin != w] if SHARE_PROBES else [])

    def cut_news(self) -> dict:
        """The coordinator's cuts from the first one some worker may not
        know (whichever worker takes the task)."""
        known = self.cut_synced.values()
        start = min(known) if len(self.cut_synced) >= self.backend.capacity else self.cut_base
        return {"cut_start": start, "cuts": self.cuts.since(start)}

    def merge(self, r: SubtreeResult) -> None:
        tree = self.tree
        tree.node_cuts += self.cuts.absorb(r.cuts)     # each distinct cut once
        self.cut_synced[r.worker] = r.cut_width
        self.log.extend((r.worker, c) for c in r.columns)
        self.probes.extend((r.worker, o) for o in r.observations)
        if hasattr(tree.branching, "observe"):      # the table a checkpoint keeps
            tree.branching.observe(r.observations)
        if r.worker in self.idle:
            self.idle.remove(r.worker)
        self.idle.append(r.worker)
        if r.labels is not None and r.sse is not None and r.sse < tree.rounder.best_sse:
            best = Partition(r.labels, tree.X)
            tree.rounder.best, tree.rounder.best_sse = best, best.sse()
            tree.root_fixed()                   # the root fixing at the better incumbent
            tree.reclose_root()
        kept: dict = {}                 # siblings share their parent's basis
        for bound, depth, together, apart, hints, basis, side, sizes_out in \
                [] if tree.proven else r.open:
            if hints:
                self.hints[tree.ident] = hints
            if basis is not None:
                if id(basis) not in kept:
                    kept[id(basis)] = tree.basis_book.keep(
                        self.cuts.place(basis, r.cut_width, r.cuts))
                tree.basis_book.attach(tree.ident, kept[id(basis)])
            tree.open.push(Node(bound, -depth, tree.ident, together, apart, side=side,
                                sizes_out=sizes_out))
            tree.ident += 1
        c = r.counts
        tree.nodes += c["nodes"]
        tree.iterations += c["iterations"]
        tree.closer.tried += c["node_closings"]
        tree.closer.succeeded += c["nodes_enumerated"]
        tree.closer.partial += c["node_partial_closings"]
        tree.closer.better += c["node_closing_incumbents"]
        tree.closer.timed_out += c["node_closings_timed_out"]
        tree.closer.too_large += c["node_closings_too_large"]
        tree.closer.skipped += c["node_closings_skipped"]
        if r.closing_value is not None and tree.closer.value is not None:
            tree.closer.value.absorb(r.closing_value)   # the model a checkpoint keeps
        if r.closing_limit is not None:     # the threshold the latest closing set
            tree.closer.limit = r.closing_limit
        if tree.fixer is not None:
            tree.fixer.node_fixed += c["node_fixed_pairs"]
        tree.columns_fixed += c["columns_fixed"]
        tree.node_fixed_sizes += c["node_fixed_sizes"]
        tree.warm_starts += c["warm_starts"]
        tree.master.lp_stalls += c["lp_stalls"]
        tree.master.bases_kept += c["bases_kept"]
        tree.master.lp_retries += c["lp_retries"]
        if hasattr(tree.branching, "evaluations"):
            tree.branching.evaluations += c["strong_evaluations"]
        if hasattr(tree.branching, "predicted"):
            tree.branching.predicted += c["strong_predicted"]
        for k in _SECONDS:
            tree.seconds[k] += c[f"time_{k}"]
        tree.max_depth = max(tree.max_depth, r.max_depth)
        tree.pruned_bound = min(tree.pruned_bound, r.pruned)
        if r.time_limit:
            tree.tree_status = "time_limit"
        self.busy += r.seconds

    def give_up(self) -> None:
        """Tasks still out long past the deadline or at a graceful stop
        (:class:`~mipagg.interrupts.StopRequest`): their nodes go back open
        (their bounds still hold) and the tree stops on the time limit."""
        for node, _ in self.pending.values():
            self.tree.open.push(node)
        self.tree.in_flight = []
        self.tree.tree_status = "time_limit"
