"""Branch-and-price for microaggregation with subset-row cuts: method ``bp``.

The master is the set-partitioning LP (9) of seed 001 section 4.1, solved by
the same column-generation loop as ``cg`` (:func:`~mipagg.exact.node.solve_node`)
at every node of a search tree:

* **Root.** Column generation to a certified bound (the Lagrangian bound of
  :mod:`mipagg.exact.node`), then rounds of subset-row cuts
  Σ_C ⌊|C∩S|/2⌋ x_C ≤ 1 on three records (Jepsen, Sigurd, Spoorendonk &
  Pisinger 2008, :mod:`mipagg.exact.cuts`), each followed by column
  generation whose pricing pays the cuts' duals exactly, until no cut is
  violated or a round closes less than ``tail_off`` of the gap.
* **Primal side.** A diving heuristic after the root (:func:`dive`); every
  master solution is rounded (SimpleRounding and
  RoundingMST of seed 001 §5.2); every candidate has its groups of 2k or more
  records split (never optimal, seed 001 Proposition 2.2) and gets the
  local search of :mod:`mipagg.improve`; the integer master over the column
  pool (price-and-branch) runs at the root under its own time budget.
* **Gap closing at the root.** Every cluster whose reduced cost (cut
  penalties included) at the certified duals is below UB − LB is enumerated
  and the integer master over them is solved (as in ``cg``): on success the
  incumbent is optimal without a tree.  The same at tree nodes whose gap is
  small enough (:func:`_close_node`, with the node's branching pairs): a
  success closes the node's whole subtree.
* **Tree.** Ryan–Foster branching (Ryan & Foster 1981; Barnhart, Johnson,
  Nemhauser, Savelsbergh & Vance 1998) on the record pair whose weight
  z_ij = Σ_{C∋i,j} x_C is most fractional: one child keeps i and j
  together, the other apart.  Children reuse the whole column pool, the
  columns a node forbids fixed at 0 in the master; pricing (heuristic and
  exact search) only produces allowed clusters.  Best-bound node selection,
  deeper nodes first on ties (a dive).  Every node bound is certified by
  exact pricing; the global lower bound is the least bound of the open nodes,
  valid at any time.

An artificial column of cost UB₀ + 1 per record (UB₀ the first incumbent)
keeps every node LP feasible; an LP solution that uses one is worth more than
the incumbent or is fractional (Ryan–Foster's theorem also holds with these
singleton columns), so the branching is complete.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError
from ..heuristics._common import as_rows
from ..partition import Partition
from ..univariate import check_k
from .bounds import gap, neighbour_bound
from .colgen import (Rounder, _close_gap, _initial_partition, _lp_algorithm, _settings,
                     auto_max_columns, default_threads)
from .master import MasterProblem, cluster_weight, set_partitioning_mip, squared_distances
from .branching import make_branching
from .fixing import PairFixing
from . import nodecuts
from .node import solve_node
from .treestats import gap_closed, tree_estimate
from .pricing.constraints import PricingConstraints
from .pricing.rounds import PricingContext

__all__ = ["branch_and_price", "BranchAndPriceResult", "branching_pair", "pair_weights", "dive"]

# Root gap closing's own limit under a time limit: beyond it the root MIP rarely
# finishes, and node gap closing in the tree proves those instances sooner
# (11 instances of docs/bench/bp.md: 1195 s → 873 s in total, all proven).
ROOT_CLOSE_SECONDS = 30.0


@dataclass
class BranchAndPriceResult:
    """Outcome of :func:`branch_and_price`.

    ``status``: "optimal" (tree closed, or the global bound reached the best
    SSE within ``gap_tol``), "time_limit" or "node_limit" (the best partition
    and the certified global bound so far).  ``lower_bound``: certified
    (at worst the pricing-free neighbour bound,
    :func:`~mipagg.exact.bounds.neighbour_bound`).  ``root_lp_bound``: the
    root's certified bound before cuts (the LP bound once column generation
    converged, else the best Lagrangian or neighbour bound); ``root_cut_bound`` after the cut
    rounds; ``cuts``: subset-row cuts in the master; ``nodes``: nodes
    processed (the root is 1); ``open_nodes``: left unexplored at return.
    ``closed_by``: "root" (bound met the incumbent), "gap_closing", "tree" or
    None."""

    partition: Partition
    sse: float
    lower_bound: float | None
    status: str
    nodes: int
    open_nodes: int
    root_lp_bound: float | None
    root_cut_bound: float | None
    cuts: int
    cut_rounds: int
    dive_steps: int
    closed_by: str | None
    iterations: int
    columns: int
    max_depth: int
    gap_closing: str
    seconds: dict
    threads: int
    stabilization: str | None = None
    node_closings: int = 0          # gap closings tried at tree nodes
    nodes_enumerated: int = 0       # nodes closed by them
    fixed_pairs: int = 0            # HOOK(fixing): pairs fixed apart at the root (whole tree)
    node_fixed_pairs: int = 0       # HOOK(fixing): pairs fixed at tree nodes (their subtrees)
    candidate_pairs: int = 0        # HOOK(fixing): pairs examined by the fixing
    fixed: tuple = ()               # HOOK(fixing): the root's fixed pairs (i, j), i < j
    branching: str = "fractional"   # HOOK(branching): the rule's name
    tree_estimate: int | None = None  # HOOK(treestats): estimated total nodes at return
    node_cuts: int = 0              # HOOK(node cuts): cuts separated at tree nodes
    strong_evaluations: int = 0     # HOOK(branching): child LPs solved by strong branching
    log: list = field(default_factory=list)

    @property
    def gap(self) -> float | None:
        return gap(self.sse, self.lower_bound)

    @property
    def cut_gap_closed(self) -> float | None:
        """Share (0..1) of the root LP-to-best gap closed by the cuts."""
        lp, cut = self.root_lp_bound, self.root_cut_bound
        if lp is None or cut is None or self.sse - lp <= 0:
            return None
        return (cut - lp) / (self.sse - lp)

    def summary(self) -> dict:
        return {"lower_bound": self.lower_bound, "status": self.status,
                "exact": self.status == "optimal", "gap": self.gap,
                "nodes": self.nodes, "open_nodes": self.open_nodes,
                "root_lp_bound": self.root_lp_bound, "root_cut_bound": self.root_cut_bound,
                "cuts": self.cuts, "cut_rounds": self.cut_rounds, "dive_steps": self.dive_steps,
                "cut_gap_closed": self.cut_gap_closed, "closed_by": self.closed_by,
                "iterations": self.iterations, "columns": self.columns,
                "max_depth": self.max_depth, "gap_closing": self.gap_closing,
                "threads": self.threads, "stabilization": self.stabilization,
                "node_closings": self.node_closings, "nodes_enumerated": self.nodes_enumerated,
                "fixed_pairs": self.fixed_pairs, "node_fixed_pairs": self.node_fixed_pairs,
                "candidate_pairs": self.candidate_pairs,
                "branching": self.branching, "strong_evaluations": self.strong_evaluations,
                "gap_closed": gap_closed(self.lower_bound, self.sse, self.root_lp_bound),
                "tree_estimate": self.tree_estimate, "node_cuts": self.node_cuts,
                **{f"time_{k}": v for k, v in self.seconds.items()}}


@dataclass(order=True)
class _Node:
    bound: float
    depth_key: int                      # −depth: deeper first on equal bounds
    ident: int
    together: tuple = field(compare=False, default=())
    apart: tuple = field(compare=False, default=())

    @property
    def depth(self) -> int:
        return -self.depth_key


def pair_weights(columns, x, n: int, eps: float = 1e-9):
    """z_ij = Σ_{C ∋ i, j} x_C over the master solution, as a sparse (n, n)
    upper-triangular matrix without diagonal (COO)."""
    from scipy.sparse import csc_matrix, triu

    x = np.asarray(x, dtype=float)
    keep = np.flatnonzero(x > eps)
    if keep.size == 0:
        return triu(csc_matrix((n, n)), k=1).tocoo()
    cols = [np.asarray(columns[j], dtype=np.int64) for j in keep]
    start = np.concatenate(([0], np.cumsum([c.size for c in cols]))).astype(np.int64)
    A = csc_matrix((np.ones(start[-1]), np.concatenate(cols), start), shape=(n, keep.size))
    Z = A.multiply(x[keep][None, :]) @ A.T
    return triu(Z, k=1).tocoo()


def branching_pair(columns, x, n: int, eps: float = 1e-6):
    """The Ryan–Foster pair (i, j), i < j, whose weight z_ij is closest to ½,
    ties broken by the smaller (i, j); ``None`` when every z_ij is 0 or 1."""
    Z = pair_weights(columns, x, n)
    frac = (Z.data > eps) & (Z.data < 1 - eps)
    if not frac.any():
        return None
    rows, cols, vals = Z.row[frac], Z.col[frac], Z.data[frac]
    order = np.lexsort((cols, rows, np.abs(vals - 0.5)))
    return int(rows[order[0]]), int(cols[order[0]])


def _integral(sol, eps=1e-6) -> bool:
    return sol.artificial <= 1e-9 and bool(np.all((sol.x < eps) | (sol.x > 1 - eps)))


def branch_and_price(X, k, *, time_limit=None, node_limit=None, initial=None, cuts=True,
                     max_cut_rounds=10, cuts_per_round=None, min_violation=0.05,
                     tail_off=0.02, close_gap=True, close_gap_max_columns=200_000,
                     close_gap_time=None, node_close_max_columns=50_000, mip_time=None,
                     dive_time=None, max_columns="auto", threads=None, lp_algorithm="auto",
                     stabilization="auto", alpha=0.5, gap_tol=1e-6, fixing=True,
                     branching="fractional", node_cut_rounds=0, tree_mip=None,
                     verbose=False) -> BranchAndPriceResult:
    """Branch-and-price with subset-row cuts (module docstring): an optimal
    k-partition, or under a limit the best partition with a certified bound.

    Parameters
    ----------
    X : (n, p) standardized data.  k : minimum group size.
    time_limit, node_limit : stop with status "time_limit"/"node_limit",
        returning the best partition and the least bound of the open nodes.
    initial : an extra k-feasible partition (labels or Partition) whose groups
        seed the master and the incumbent.
    cuts : separate subset-row cuts at the root.  max_cut_rounds,
        cuts_per_round (default max(20, n // 5)), min_violation: per round;
        tail_off: stop when a round raises the bound by less than this share
        of the remaining gap.
    close_gap : enumerate the clusters with reduced cost below UB − LB after
        the root and solve the integer master over them (at most
        ``close_gap_max_columns`` clusters) within ``close_gap_time`` seconds
        (default: a quarter of ``time_limit``, at most ``ROOT_CLOSE_SECONDS`` = 30 s,
        after which node gap closing in the tree takes over; no own limit
        without a ``time_limit``).
    node_close_max_columns : gap closing at the tree's nodes (:func:`_close_node`):
        at most this many clusters per node (0 switches it off).
    dive_time : seconds for the diving heuristic after the root (:func:`dive`;
        default 15 % of ``time_limit``, at most 600 s, 120 s without a limit;
        0 switches it off).
    mip_time : seconds for the integer master over the root's column pool
        (default: 10 % of ``time_limit``, at most 60 s; 60 s without limit).
    max_columns, threads, lp_algorithm, stabilization, alpha : as in
        :func:`~mipagg.exact.colgen.column_generation` (every node's column
        generation is stabilized the same way).
    fixing : reduced-cost fixing of record pairs at the root and at every
        node (:mod:`mipagg.exact.fixing`): a pair that cannot be together in
        an improving partition is kept apart in the subtree.
    branching : the branching rule (:mod:`mipagg.exact.branching`):
        "fractional" (most fractional pair) or "strong" (strong branching on
        the restricted master, 8 candidates; "strong:N" for N).
    node_cut_rounds : subset-row cut rounds at every tree node (with ``cuts``;
        :mod:`mipagg.exact.nodecuts`), each followed by the node's column
        generation; 0 (the default) separates cuts at the root only.
    tree_mip : rerun the pool MIP (``mip_time``, at most half the time left)
        in the tree whenever the pool has grown by this factor since the last
        one (e.g. 1.5); None (the default): only at the root.
    verbose : progress lines on stderr (elapsed, nodes done/open, LB, UB, gap).

    Exponential in the worst case (each node is a column generation, each
    exact pricing a branch and bound).

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [3.], [10.], [11.], [12.], [20.], [21.]])
    >>> r = branch_and_price(X, 2)
    >>> r.status, round(r.sse, 4), round(r.lower_bound, 4)
    ('optimal', 3.5, 3.5)
    """
    from ..heuristics.mdav import mdav_groups
    from ..heuristics.vmdav import vmdav
    from ..improve import local_search, split_large_groups
    from ..progress import Progress

    t_start = time.perf_counter()
    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    settings = _settings("auto", stabilization, alpha, True, time_limit, None, "measured",
                         auto_max_columns(max_columns, n, k), gap_tol, k)
    if node_limit is not None and (int(node_limit) != node_limit or node_limit < 1):
        raise ParameterError(f"node_limit must be a positive integer, got {node_limit!r}")
    if max_cut_rounds < 0 or (cuts_per_round is not None and cuts_per_round < 1):
        raise ParameterError("max_cut_rounds must be >= 0 and cuts_per_round >= 1")
    algorithm = _lp_algorithm(lp_algorithm, k)
    rule = make_branching(branching)          # HOOK(branching)
    node_cuts_added = 0                       # HOOK(node cuts)
    if tree_mip is not None and not (isinstance(tree_mip, (int, float)) and tree_mip >= 1):
        raise ParameterError(f"tree_mip must be None or a number >= 1, got {tree_mip!r}")
    if int(node_cut_rounds) != node_cut_rounds or node_cut_rounds < 0:
        raise ParameterError(f"node_cut_rounds must be an integer >= 0, got {node_cut_rounds!r}")
    deadline = None if time_limit is None else t_start + float(time_limit)
    if mip_time is None:
        mip_time = 60.0 if time_limit is None else min(60.0, 0.1 * float(time_limit))
    if dive_time is None:
        dive_time = 120.0 if time_limit is None else min(600.0, 0.15 * float(time_limit))
    if close_gap_time is None and time_limit is not None:
        close_gap_time = min(ROOT_CLOSE_SECONDS, 0.25 * float(time_limit))
    cuts_per_round = max(20, n // 5) if cuts_per_round is None else int(cuts_per_round)
    D = squared_distances(X)
    ctx = PricingContext(D, k, threads=default_threads() if threads is None else threads)
    progress = Progress("bp", enabled=verbose)

    # incumbent: MDAV, V-MDAV, the initial partition, polished
    groups_mdav = mdav_groups(X, k)
    p_vmdav = vmdav(X, k)
    def polish(p):
        q = local_search(X, p, k)
        return split_large_groups(X, q, k) if q.sizes.max() >= 2 * k else q

    rounder = Rounder(X, D, k, Partition.from_groups(groups_mdav, X), polish=polish)
    rounder.offer(p_vmdav)
    seeds = [groups_mdav, p_vmdav.groups()]
    if initial is not None:
        p0 = _initial_partition(initial, X, k)
        seeds.append(p0.groups())
        rounder.offer(p0)
    master = MasterProblem(X, D, artificial_cost=rounder.best_sse + 1.0, algorithm=algorithm)
    for groups in seeds + [rounder.best.groups()]:
        master.add_columns(groups)

    tol_abs = ctx.tol * n

    def cutoff():
        return rounder.best_sse - max(tol_abs, gap_tol * abs(rounder.best_sse))

    def closed(lb):
        return lb is not None and lb >= cutoff()

    seconds = {"root": 0.0, "cuts": 0.0, "dive": 0.0, "mip": 0.0, "close_gap": 0.0,
               "tree": 0.0, "node_close": 0.0, "fixing": 0.0}
    iterations = 0

    def run_node(cons, start_bound, depth):
        nonlocal iterations
        res = solve_node(master, ctx, cons, settings, deadline=deadline, cutoff=cutoff,
                         on_solution=lambda sol: rounder(master, sol),
                         best_sse=rounder.best_sse, start_iteration=iterations,
                         progress=progress if depth == 0 else None)
        iterations += res.iterations
        b = res.stop.bound
        bound = start_bound if b is None else max(b, start_bound)
        if res.solution is not None and _integral(res.solution):
            sol = res.solution
            cols = master.columns[:sol.x.size]
            rounder.offer(Partition.from_groups([cols[j] for j in np.flatnonzero(sol.x > 0.5)],
                                                X))
        return res, bound

    # ---- root: column generation, then subset-row cut rounds
    t0 = time.perf_counter()
    res, root_bound = run_node(ctx.none, neighbour_bound(D, k, ctx.edge_sums), 0)
    # the root's certified bound before cuts (the neighbour bound when column
    # generation certified nothing better, e.g. stopped early at large k)
    root_lp_bound = root_bound
    seconds["root"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cut_rounds = 0
    while (cuts and cut_rounds < max_cut_rounds and res.stop.reason in ("converged", "cutoff")
           and res.solution is not None and not closed(root_bound)):
        sol = res.solution
        found = separate_cuts(master, sol, n, cuts_per_round, min_violation)
        if not found:
            break
        master.add_cuts(found)
        cut_rounds += 1
        before = root_bound
        res, root_bound = run_node(ctx.none, root_bound, 0)
        progress.update(phase="cuts", round=cut_rounds, cuts=len(master.cuts),
                        lb=root_bound, ub=rounder.best_sse)
        if res.stop.reason not in ("converged", "cutoff"):
            break
        if root_bound - before < tail_off * (rounder.best_sse - before):
            break
    root_cut_bound = root_bound
    seconds["cuts"] = time.perf_counter() - t0
    root_res = res
    rounder.finish()
    # HOOK(fixing): root reduced-cost fixing at the duals certifying the root bound
    fixer = None
    if fixing and res.stop.bound is not None and res.stop.duals is not None:
        t1 = time.perf_counter()
        fixer = PairFixing(D, k)
        fixer.fix_root(res.stop.duals, res.stop.bound, rounder.best_sse, master.cuts,
                       res.stop.cut_duals)
        seconds["fixing"] = time.perf_counter() - t1

    # ---- root diving heuristic: fix columns, re-price, until integral
    t0 = time.perf_counter()
    dive_steps = 0
    if dive_time and not closed(root_bound) and root_res.solution is not None:
        end = t0 + dive_time if deadline is None else min(deadline, t0 + dive_time)
        dive_steps = dive(master, ctx, settings, rounder, X, end)
    seconds["dive"] = time.perf_counter() - t0

    # ---- root gap closing: enumerate every cluster below UB − LB
    gap_closing, closed_by = "not_needed", None
    pool_mip_done = False

    def _root_mip():
        nonlocal pool_mip_done
        pool_mip_done = True
        budget = mip_time if deadline is None else min(mip_time, deadline - time.perf_counter())
        if budget > 0.5:
            _pool_mip(master, rounder, X, k, budget)

    t0, mip0 = time.perf_counter(), seconds["mip"]
    stop = root_res.stop
    gc_deadline = deadline
    if close_gap_time is not None:
        gc_deadline = min(deadline or np.inf, t0 + float(close_gap_time))
    if closed(root_bound):
        closed_by = "root"
    elif not close_gap:
        gap_closing = "disabled"
    elif stop.reason == "converged" and stop.duals is not None and stop.bound is not None:
        # HOOK(fixing): the root gap closing enumerates no cluster holding a fixed pair
        cons = _cut_constraints(master, n, stop.cut_duals,
                                apart=() if fixer is None else _refresh(fixer, rounder))
        for attempt in range(2):
            # second attempt only after the pool MIP improved the incumbent
            gap_closing, opt, bound = _close_gap(
                D, X, k, stop.duals, rounder.best_sse - stop.bound + tol_abs, rounder.best,
                close_gap_max_columns, gc_deadline, constraints=cons, ctx=ctx)
            if opt is not None:
                rounder.offer(opt)
            if gap_closing == "optimal":
                root_bound = max(root_bound, rounder.best_sse)
                closed_by = "gap_closing"
                break
            if bound is not None:
                root_bound = max(root_bound, min(bound, rounder.best_sse))
            if attempt == 1 or gap_closing not in ("too_many_columns", "too_many_nodes"):
                break
            before = rounder.best_sse
            seconds["mip"] += _timed(lambda: _root_mip())
            if rounder.best_sse >= before or closed(root_bound):
                break
    else:
        gap_closing = "skipped"
    seconds["close_gap"] = time.perf_counter() - t0 - (seconds["mip"] - mip0)

    # ---- root primal heuristic (price-and-branch): integer master over the pool
    if not closed(root_bound) and mip_time > 0 and not pool_mip_done:
        seconds["mip"] += _timed(_root_mip)
    pool_at_mip = len(master.columns)          # HOOK(tree MIP): pool size at the last MIP

    # ---- tree: best bound first, Ryan–Foster branching
    t0 = time.perf_counter()
    nodes, max_depth, ident = 1, 0, 0
    heap: list[_Node] = []
    closer = _NodeClosing(node_close_max_columns, rounder.best_sse - root_bound)
    status = None
    if root_res.stop.reason == "time_limit" or (deadline is not None
                                                 and time.perf_counter() >= deadline):
        status = "time_limit"
    if not closed(root_bound) and status is None:
        # HOOK(branching): the rule picks the root's pair
        pair = None if root_res.solution is None else rule.select(
            master, root_res.solution, n, None, rounder.best_sse, deadline)
        if pair is not None:
            for child in _children(pair, (), (), root_bound, 1, ident):
                heapq.heappush(heap, child)
            ident += 2
    while heap and status is None:
        node = heap[0]
        if node.bound >= cutoff():
            heapq.heappop(heap)
            continue
        if deadline is not None and time.perf_counter() >= deadline:
            status = "time_limit"
            break
        if node_limit is not None and nodes >= node_limit:
            status = "node_limit"
            break
        heapq.heappop(heap)
        # HOOK(fixing): the root's fixed pairs join the node's apart pairs
        root_fixed = () if fixer is None else _refresh(fixer, rounder)
        cons = PricingConstraints.build(n, together=node.together, apart=node.apart + root_fixed)
        if not cons.feasible:
            continue
        allowed = master.allowed_under(node.together, node.apart)
        if root_fixed:
            bad = fixer.forbidden_columns(master.columns)
            allowed = ~bad if allowed is None else allowed & ~bad
        master.set_allowed(allowed)
        res, bound = run_node(cons, node.bound, node.depth)
        nodes += 1
        max_depth = max(max_depth, node.depth)
        if res.stop.reason == "time_limit":
            heapq.heappush(heap, _Node(bound, node.depth_key, node.ident, node.together,
                                       node.apart))
            status = "time_limit"
            break
        if tree_mip and mip_time > 0 and len(master.columns) >= tree_mip * pool_at_mip:
            # HOOK(tree MIP): the pool MIP again once the tree has grown the pool
            pool_at_mip = len(master.columns)
            budget = mip_time if deadline is None else \
                min(mip_time, 0.5 * (deadline - time.perf_counter()))
            if budget > 1.0:
                seconds["mip"] += _timed(lambda: _pool_mip(master, rounder, X, k, budget))
        if bound >= cutoff() or res.solution is None:
            continue
        if cuts and node_cut_rounds:
            # HOOK(node cuts): subset-row cut rounds at the node, then its loop again
            res, bound, added = nodecuts.node_cut_rounds(
                master, res, bound, lambda b: run_node(cons, b, node.depth),
                ub=cutoff, rounds=node_cut_rounds, per_round=cuts_per_round,
                min_violation=min_violation, tail_off=tail_off, separate=separate_cuts)
            node_cuts_added += added
            if res.stop.reason == "time_limit":
                heapq.heappush(heap, _Node(bound, node.depth_key, node.ident, node.together,
                                           node.apart))
                status = "time_limit"
                break
            if bound >= cutoff() or res.solution is None:
                continue
        g = rounder.best_sse - res.stop.bound
        if res.stop.reason == "converged" and closer.wants(g):
            t1 = time.perf_counter()
            # HOOK(fixing): node gap closing also skips the root's fixed pairs
            outcome, node_bound = _close_node(D, X, k, master, res.stop,
                                              _Node(node.bound, node.depth_key, node.ident,
                                                    node.together, node.apart + root_fixed),
                                              rounder,
                                              tol_abs, node_close_max_columns, deadline, ctx)
            seconds["node_close"] += time.perf_counter() - t1
            closer.record(outcome, g)
            if outcome == "optimal":
                continue
            if node_bound is not None:
                bound = max(bound, node_bound)
                if bound >= cutoff():
                    continue
        apart = node.apart
        if fixer is not None and res.stop.bound is not None and res.stop.duals is not None:
            # HOOK(fixing): pairs fixed at this node stay apart in its subtree
            t1 = time.perf_counter()
            apart = apart + tuple(fixer.fix_node(res.stop.duals, res.stop.bound,
                                                 rounder.best_sse, master.cuts,
                                                 res.stop.cut_duals, known=node.apart))
            seconds["fixing"] += time.perf_counter() - t1
        # HOOK(branching): the rule picks the node's pair
        pair = rule.select(master, res.solution, n, allowed, rounder.best_sse, deadline)
        if pair is None:      # integral (offered above) or artificial: nothing below
            continue
        for child in _children(pair, node.together, apart, bound, node.depth + 1, ident):
            heapq.heappush(heap, child)
        ident += 2
        glb = _global_bound(heap, rounder.best_sse)
        progress.update(nodes=nodes, open=len(heap), enumerated=closer.succeeded,
                        fixed=0 if fixer is None else int(fixer.fixed.sum()) + fixer.node_fixed,
                        lb=glb, ub=rounder.best_sse, gap=gap(rounder.best_sse, glb),
                        # HOOK(treestats): share of the root gap closed, tree-size estimate
                        closed=gap_closed(glb, rounder.best_sse, root_lp_bound),
                        estimate=tree_estimate(nodes, [nd.depth for nd in heap
                                                       if nd.bound < cutoff()]))
    master.set_allowed(None)
    seconds["tree"] = time.perf_counter() - t0
    rounder.finish()

    open_nodes = [nd for nd in heap if nd.bound < cutoff()]
    if status is None:                      # the tree is exhausted (or was never needed)
        status, lower = "optimal", rounder.best_sse
        closed_by = closed_by or ("tree" if nodes > 1 else "root")
    else:
        lower = min([nd.bound for nd in open_nodes] + [root_bound if not heap and nodes == 1
                                                       else rounder.best_sse])
        lower = min(lower, rounder.best_sse)
        if not np.isfinite(lower):
            lower = None
        elif closed(lower):
            status, closed_by = "optimal", closed_by or "tree"
    total = time.perf_counter() - t_start
    seconds.update(total=total, rounding=rounder.seconds,
                   overrun=0.0 if time_limit is None else max(0.0, total - time_limit))
    progress.done(status=status, nodes=nodes, lb=lower, ub=rounder.best_sse)
    return BranchAndPriceResult(
        partition=rounder.best, sse=rounder.best_sse, lower_bound=lower, status=status,
        nodes=nodes, open_nodes=len(open_nodes), root_lp_bound=root_lp_bound,
        root_cut_bound=root_cut_bound, cuts=len(master.cuts), cut_rounds=cut_rounds,
        dive_steps=dive_steps,
        closed_by=closed_by if status == "optimal" else None, iterations=iterations,
        columns=len(master.columns), max_depth=max_depth, gap_closing=gap_closing,
        seconds=seconds, threads=ctx.threads, stabilization=settings.stabilization,
        node_closings=closer.tried, nodes_enumerated=closer.succeeded,
        branching=rule.name, strong_evaluations=getattr(rule, "evaluations", 0),
        node_cuts=node_cuts_added,
        tree_estimate=nodes if status == "optimal" else tree_estimate(
            nodes, [nd.depth for nd in open_nodes]) if open_nodes else None,
        fixed_pairs=0 if fixer is None else int(fixer.fixed.sum()),
        node_fixed_pairs=0 if fixer is None else fixer.node_fixed,
        candidate_pairs=0 if fixer is None else len(fixer.pairs),
        fixed=() if fixer is None else fixer.root_pairs())


def dive(master, ctx, settings, rounder, X, end) -> int:
    """Diving heuristic of branch-and-price (in the spirit of Sadykov,
    Vanderbeck, Pessoa, Tahiri & Uchoa, Primal heuristics for branch and
    price: the assets of diving methods, INFORMS J. Comput. 2019): fix at 1
    every column with x ≥ 0.999 and the largest fractional columns (disjoint,
    about 5 % of the groups still to form), forbid the columns overlapping
    them, re-run column generation (fixed records get a prohibitive dual, so
    no new cluster holds one; no bound is computed), until the master is
    integral, uses an artificial column (records stranded), or ``end``
    passes; then the groups at 1, completed by sending every uncovered record
    to the nearest group, are offered to ``rounder``.  The master is restored
    (bounds only; the columns found stay in the pool).  Returns the number of
    fixing steps."""
    from dataclasses import replace

    st = replace(settings, pricing="auto", lagrangian=False)
    forbidden = np.flatnonzero(~master.allowed)      # the node's own: restored at the end
    fixed_rows = np.zeros(master.n, dtype=bool)
    fixed: set[int] = set()
    steps = 0

    def mask(extra=()):
        ok = np.ones(len(master.columns), dtype=bool)
        ok[forbidden] = False
        ok[extra] = False
        return ok

    try:
        while time.perf_counter() < end:
            res = solve_node(master, ctx, ctx.none, st, deadline=end,
                             fixed_rows=fixed_rows if fixed else None,
                             on_solution=lambda sol: rounder(master, sol),
                             best_sse=rounder.best_sse)
            sol = res.solution
            if sol is None:
                break
            x = sol.x
            cols = master.columns[:x.size]
            if sol.artificial > 1e-6 or _integral(sol) or res.stop.reason == "time_limit":
                # integral, or a dead end (records stranded by the fixings): complete
                # the chosen groups by sending every uncovered record to the nearest
                rounder.offer(_complete([cols[j] for j in np.flatnonzero(x > 0.5)], X))
                break
            chosen = _dive_choice(x, cols, fixed, fixed_rows, ctx.k)
            if not chosen:
                break
            fixed.update(chosen)
            for j in chosen:
                fixed_rows[cols[j]] = True
            ok = mask(master.columns_holding(np.flatnonzero(fixed_rows)))
            ok[list(fixed)] = True
            master.set_allowed(ok)
            master.fix_columns(fixed)
            steps += 1
    finally:
        master.unfix_columns()
        master.set_allowed(mask() if forbidden.size else None)
    return steps


def _dive_choice(x, cols, fixed, fixed_rows, k) -> list[int]:
    """The columns a dive step fixes: every column at 1 and the largest
    fractional ones, about 5 % of the groups still to form, pairwise disjoint
    and disjoint from the records already fixed."""
    chosen, rows = [], fixed_rows.copy()
    quota = max(1, int((~fixed_rows).sum() / (1.5 * k) / 20))
    fractional = 0
    for j in np.argsort(-x, kind="stable"):
        if x[j] <= 1e-6 or (x[j] < 0.999 and fractional >= quota):
            break
        if j in fixed or rows[cols[j]].any():
            continue
        chosen.append(int(j))
        rows[cols[j]] = True
        fractional += x[j] < 0.999
    return chosen


def _complete(groups, X) -> Partition:
    """A partition of every record: ``groups`` (disjoint, each of ≥ k records)
    plus every uncovered record added to the group of nearest centroid."""
    n = X.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    for g, c in enumerate(groups):
        labels[c] = g
    loose = np.flatnonzero(labels < 0)
    if loose.size:
        cents = np.array([X[c].mean(axis=0) for c in groups])
        d = ((X[loose, None, :] - cents[None, :, :]) ** 2).sum(axis=2)
        labels[loose] = np.argmin(d, axis=1)
    return Partition(labels, X)


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _children(pair, together, apart, bound, depth, ident):
    """The two Ryan–Foster children of a node: records ``pair`` together, apart."""
    return (_Node(bound, -depth, ident, together + (pair,), apart),
            _Node(bound, -depth, ident + 1, together, apart + (pair,)))


def _refresh(fixer, rounder) -> tuple:
    """HOOK(fixing): the root's fixed pairs at the current incumbent."""
    fixer.refresh(rounder.best_sse)
    return fixer.root_pairs()


def _global_bound(heap, best):
    return min([nd.bound for nd in heap] + [best])


def separate_cuts(master, sol, n, max_cuts, min_violation):
    """Subset-row cuts violated by the master solution ``sol`` (new ones only)."""
    from .cuts import separate_subset_rows

    found = separate_subset_rows(master.columns[:sol.x.size], sol.x, n, max_cuts=max_cuts,
                                 min_violation=min_violation, existing=master.cuts)
    return [t for t, _ in found]


def _cut_constraints(master, n, cut_duals, together=(), apart=()):
    """Pricing constraints carrying the cut penalties −σ at ``cut_duals`` (and
    a node's branching pairs)."""
    if (not master.cuts or cut_duals is None or cut_duals.size == 0) and \
            not together and not apart:
        return None
    cuts = [] if cut_duals is None else \
        [(S, max(-float(s), 0.0)) for S, s in zip(master.cuts, cut_duals)]
    return PricingConstraints.build(n, together=together, apart=apart, cuts=cuts)


class _NodeClosing:
    """When to try gap closing at a tree node: where the node's gap is below
    a threshold, at first the root's gap; a failure for too many clusters (or
    search nodes) sets it to 0.8 × that node's gap, a success raises it to at
    least 1.25 × that node's gap; never with ``max_columns`` 0."""

    def __init__(self, max_columns: int, root_gap: float):
        self.limit = root_gap if max_columns else -np.inf
        self.tried = self.succeeded = 0

    def wants(self, node_gap: float) -> bool:
        return node_gap <= self.limit

    def record(self, outcome: str, node_gap: float) -> None:
        self.tried += 1
        if outcome == "optimal":
            self.succeeded += 1
            self.limit = max(self.limit, 1.25 * node_gap)
        elif outcome in ("too_many_columns", "too_many_nodes"):
            self.limit = 0.8 * node_gap


def _close_node(D, X, k, master, stop, node, rounder, tol_abs, max_columns, deadline, ctx):
    """Gap closing at a tree node (route enumeration in the spirit of Baldacci,
    Christofides & Mingozzi 2008): at the duals where the node's column
    generation converged (bound L), every cluster of a partition of the node's
    subtree cheaper than the incumbent UB has a reduced cost (cut penalties
    included) below UB − L; the allowed ones are enumerated and the integer
    master over them and the incumbent's groups is solved.  Returns
    (outcome, bound): outcome "optimal" when the subtree is closed (the MIP's
    partition offered to ``rounder``), else why not; bound a lower bound for
    the subtree proved by a time-limited MIP, or None.  Costs one enumeration
    per size (at most ``max_columns`` clusters in all) plus one MIP."""
    cons = _cut_constraints(master, master.n, stop.cut_duals, node.together, node.apart)
    outcome, opt, bound = _close_gap(D, X, k, stop.duals, rounder.best_sse - stop.bound + tol_abs,
                                     rounder.best, max_columns, deadline, constraints=cons,
                                     ctx=ctx)
    if opt is not None:
        rounder.offer(opt)
    if outcome == "optimal" or bound is None:
        return outcome, None
    return outcome, min(bound, rounder.best_sse)


def _pool_mip(master, rounder, X, k, budget):
    """Price-and-branch: the integer master over every pooled column and the
    incumbent's groups (HiGHS MIP, ``budget`` seconds); offers the result."""
    best = rounder.best
    columns = list(master.columns)
    weights = list(master.weights)
    index = {tuple(c.tolist()): j for j, c in enumerate(columns)}
    start = []
    for g in best.groups():
        key = tuple(sorted(int(v) for v in g))
        if key not in index:
            index[key] = len(columns)
            columns.append(np.asarray(key))
            weights.append(cluster_weight(master.D, key))
        start.append(index[key])
    status, _, chosen = set_partitioning_mip(master.n, columns, weights, time_limit=budget,
                                             start=start)
    if chosen is not None:
        p = Partition.from_groups([columns[j] for j in chosen], X)
        if p.is_feasible(k):
            rounder.offer(p)
    return status
