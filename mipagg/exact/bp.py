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
* **Primal side.** A diving heuristic after the root (:func:`dive`), then
  exact neighbourhood search on the incumbent (:mod:`mipagg.exact.neighbourhood`,
  :meth:`BranchAndPrice.neighbourhood_phase`) on files of
  ``NEIGHBOURHOOD_MIN_N`` records or more; every
  master solution is rounded (SimpleRounding and
  RoundingMST of seed 001 §5.2); every candidate has its groups of 2k or more
  records split (never optimal, seed 001 Proposition 2.2) and gets the
  local search of :mod:`mipagg.improve`; the integer master over the column
  pool (price-and-branch) runs at the root under its own time budget.
* **Gap closing at the root.** Every cluster whose reduced cost (cut
  penalties included) at the certified duals is below UB − LB is enumerated
  and the integer master over them is solved (as in ``cg``): on success the
  incumbent is optimal without a tree.  The same at tree nodes whose gap is
  small enough (:func:`~mipagg.exact.nodeclosing.close_node`, with the
  node's branching pairs): a success closes the node's whole subtree.
* **Tree.** Ryan–Foster branching (Ryan & Foster 1981; Barnhart, Johnson,
  Nemhauser, Savelsbergh & Vance 1998) on a record pair of fractional
  weight z_ij = Σ_{C∋i,j} x_C, by default chosen by reliability branching
  (:mod:`mipagg.exact.branching`; "fractional": the most fractional pair):
  one child keeps i and j together, the other apart.  Children reuse the
  whole column pool, the columns a node forbids fixed at 0 in the master;
  pricing (heuristic and exact search) only produces allowed clusters.
  Best-bound node selection, deeper nodes first on ties (a dive).  Every
  node bound is certified by exact pricing; the global lower bound is the
  least bound of the open nodes, valid at any time.

An artificial column of cost UB₀ + 1 per record (UB₀ the first incumbent)
keeps every node LP feasible; an LP solution that uses one is worth more than
the incumbent or is fractional (Ryan–Foster's theorem also holds with these
singleton columns), so the branching is complete.

The root's phases and their default budgets (``ROOT_CLOSE_SECONDS``,
``NEIGHBOURHOOD_MIN_N``, ``MIP_NODES``, …) live in :mod:`mipagg.exact.bproot`
(:class:`~mipagg.exact.bproot.BPRoot`); this module holds the tree
(:class:`BranchAndPrice`), its result and :func:`branch_and_price`.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

from ..interrupts import stoppable
from ..partition import Partition
from ..progress import format_duration
from ..status import Status, summary_fields
from . import checkpoint as checkpoints, nodeclosing, nodecuts
from .bases import BasisBook
from .bounds import gap
from .bproot import BPRoot, earliest
from .cuts import rank1
from .diving import dive
from .fixing import PairFixing, fix_sizes
from .master import Basis
from .nodeclosing import NodeClosing, cut_constraints
from .parallel import explore_in_parallel
from .pricing.constraints import PricingConstraints
from .restriction import describe
from .rules import BRANCHING_ALIASES, Node, branching_pair, branching_rule, pair_weights
from .settings import PARTIAL_COLUMNS, BPSettings, interrupted, merge_settings
from .treestats import BoundTrend, gap_closed, open_gap, seconds_left, tree_estimate

__all__ = ["branch_and_price", "BranchAndPriceResult", "BranchAndPrice", "BPSettings",
           "cut_constraints",
           "branching_pair", "pair_weights", "dive"]

# A node gap closing's own limit under a time limit (a tenth of the limit, at
# most this): one node gap closing in the Tarragona k = 4 tree ran 2 700 s, to the
# deadline, and the proof's replay stopped after 54 nodes (casc_gap §46); the
# Tarragona k = 5 tree made 5× the nodes per second with 120 s (§25)
NODE_CLOSE_SECONDS = 120.0

_SUMMARY = ("lower_bound", "status", "exact", "gap", "nodes", "open_nodes", "root_lp_bound",
            "root_cut_bound", "cuts", "cut_rounds", "dive_steps", "cut_gap_closed", "closed_by",
            "iterations", "columns", "max_depth", "gap_closing", "threads", "stabilization",
            "node_closings", "nodes_enumerated", "node_partial_closings",
            "node_closing_incumbents", "node_closings_timed_out", "node_closings_too_large",
            "node_closings_skipped",
            "fixed_pairs", "node_fixed_pairs", "node_fixed_sizes", "columns_fixed",
            "candidate_pairs", "branching", "strong_evaluations", "strong_predicted", "gap_closed",
            "tree_estimate", "tree_seconds_left", "bound_trend_nodes", "bound_trend_seconds_left",
            "node_cuts", "warm_starts", "bases_kept", "lp_stalls", "lp_retries", "rank1_cuts", "workers",
            "neighbourhood_solves", "closing_bound", "aggregation",
            "resumed_nodes", "checkpoint", "part", "restriction")


@dataclass
class BranchAndPriceResult:
    """Outcome of :func:`branch_and_price`.

    ``status``: "optimal" (tree closed, or the global bound reached the best
    SSE within ``gap_tol``), "time_limit" or "node_limit" (the best partition
    and the certified global bound so far); a :class:`~mipagg.status.Status`,
    equal to its word.  ``success``: status optimal; ``message`` says why it
    stopped.  ``lower_bound``: certified
    (at worst the pricing-free neighbour bound,
    :func:`~mipagg.exact.bounds.neighbour_bound`).  ``root_lp_bound``: the
    root's certified bound before cuts (the LP bound once column generation
    converged, else the best Lagrangian or neighbour bound); ``root_cut_bound`` after the cut
    rounds; ``cuts``: subset-row cuts in the master; ``nodes``: nodes
    processed (the root is 1); ``open_nodes``: left unexplored at return.
    ``closed_by``: "root" (bound met the incumbent), "gap_closing", "tree" or
    None.  ``restriction``: with ``max_groups`` or ``max_size``, the class of
    partitions that ``status`` and ``lower_bound`` speak of (the partition
    itself may lie outside it), else None."""

    partition: Partition
    sse: float
    lower_bound: float | None
    status: Status
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
    node_partial_closings: int = 0  # of node_closings, partial ones (node_close_partial)
    node_closing_incumbents: int = 0  # of node_closings, those that improved the incumbent
    node_closings_timed_out: int = 0  # of node_closings, those stopped by their time limit
    node_closings_too_large: int = 0  # of node_closings, those with too many clusters (or nodes)
    node_closings_skipped: int = 0  # nodes node_close_cost turned down
    fixed_pairs: int = 0            # pairs fixed apart at the root (whole tree)
    node_fixed_pairs: int = 0       # pairs fixed at tree nodes (their subtrees)
    node_fixed_sizes: int = 0       # cluster sizes excluded at tree nodes (size_fixing)
    candidate_pairs: int = 0        # pairs examined by the fixing
    columns_fixed: int = 0          # columns deleted by column fixing (root duals, in the tree too)
    fixed: tuple = ()               # the root's fixed pairs (i, j), i < j
    branching: str = "reliability"  # the branching rule's name
    tree_estimate: int | None = None  # estimated total nodes at return (treestats)
    tree_seconds_left: float | None = None  # the estimate's nodes left at this run's pace
    bound_trend_nodes: int | None = None  # nodes to the cutoff at the bound's pace (treestats)
    bound_trend_seconds_left: float | None = None  # those nodes at this run's pace
    node_cuts: int = 0              # cuts separated at tree nodes
    warm_starts: int = 0            # nodes whose LP started from their parent's basis
    bases_kept: int = 0             # of those, the ones HiGHS still held (a plunge's child)
    lp_stalls: int = 0              # node LPs stopped by ``lp_stall_time`` and run again
    lp_retries: int = 0             # master LP runs after a status "Unknown" (MasterProblem._run)
    rank1_cuts: int = 0             # of ``cuts``, those on four or more rows (family "rank1")
    strong_evaluations: int = 0     # child LPs solved by strong branching
    strong_predicted: int = 0       # candidates scored by pseudocosts (branching "reliability")
    workers: int = 1                # tasks in flight in the tree (mipagg.exact.parallel)
    neighbourhood_solves: int = 0   # sub-problems of the neighbourhood phase
    closing_bound: float | None = None  # certified by root gap closing (with_closing_bound)
    aggregation: dict | None = None  # the root's aggregated phase (mipagg.exact.aggregation)
    resumed_nodes: int = 0          # nodes of the checkpoint this run resumed (mipagg.exact.checkpoint)
    checkpoint: str | None = None   # the checkpoint this run wrote last, or None
    part: dict | None = None        # a part of a split tree (mipagg.exact.treeparts): its bound
    restriction: str | None = None  # the class status and bound cover (max_groups, max_size)
    log: list = field(default_factory=list)

    def __post_init__(self):
        self.status = Status(self.status)

    @property
    def exact(self) -> bool:
        return self.status == Status.OPTIMAL

    @property
    def success(self) -> bool:
        """The partition is proven optimal."""
        return self.exact

    @property
    def message(self) -> str:
        if self.restriction is None:
            return self.status.message
        return (f"{self.status.message} Restricted run: status and bound hold for the "
                f"{self.restriction} only; the partition is the best one found, perhaps "
                "outside that class.")

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

    @property
    def gap_closed(self) -> float | None:
        """Share (0..1) of the root gap closed by the final lower bound
        (:func:`~mipagg.exact.treestats.gap_closed`)."""
        return gap_closed(self.lower_bound, self.sse, self.root_lp_bound)

    def summary(self) -> dict:
        out = summary_fields(self, _SUMMARY)
        out.update({f"time_{k}": v for k, v in self.seconds.items()})
        out.update(success=self.success, message=self.message)
        return out


def branch_and_price(X, k, *, time_limit=None, node_limit=None, initial=None, cuts=True,
                     max_cut_rounds=10, cuts_per_round=None, min_violation=0.05,
                     tail_off=0.02, close_gap=True, close_gap_max_columns=200_000,
                     close_gap_time=None, close_gap_mip="auto",
                     close_gap_partial=PARTIAL_COLUMNS, aggregation="auto",
                     node_close_max_columns=50_000, node_close_time=None,
                     node_close_partial=0, node_close_gap=0.0, node_close_cost=None,
                     node_close_nested=False, node_close_restart=True, node_close_cuts="tight",
                     mip_time=None, mip_nodes=None, dive_time=None, neighbourhood_time=None,
                     max_columns="auto", threads=None, lp_algorithm="auto",
                     reopt_lp_algorithm="auto", stabilization="auto", alpha=0.5, gap_tol=1e-6,
                     fixing=True, size_chain=False, column_fixing=False, size_fixing=False,
                     node_pricing="auto", node_basis=True, plunge=0.0,
                     branching="reliability:4", node_selection="best_bound",
                     node_cut_rounds=1, cut_families=("subset_row",),
                     tree_mip=None, reclose_root=False, workers=1, scheduler=None,
                     checkpoint=None, checkpoint_every=600.0, checkpoint_bases=16384,
                     retire_cuts=True, resume=None, lp_stall_time="auto", lp_stall_dump=None,
                     node_lp_perturbation=False, count_row=True, max_groups=None,
                     max_size=None, settings=None,
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
    close_gap_partial : when the clusters below UB − LB at the root are more
        than ``close_gap_max_columns``, enumerate those below the largest
        τ < UB − LB of which at most this many exist and solve the integer
        master over them (0: off; default ``PARTIAL_COLUMNS`` = 2 000, a MIP
        of seconds): it certifies min(its bound, LB + τ)
        (:mod:`mipagg.exact.gapclosing`) and proves its optimum when that is
        below LB + τ (docs/bench/partial_closing.md).
    close_gap_mip : that MIP (root and nodes) with HiGHS presolve and the
        master's cuts as rows ("presolve"), with neither ("plain"), or "auto":
        "presolve" from ``PRESOLVE_MIN_N`` = 100 records (:meth:`BranchAndPrice.closing_mip`).
    aggregation : before the root's column generation, the aggregated phase
        of :mod:`mipagg.exact.aggregation` from the incumbent's groups
        ("on"), not ("off"), or "auto": "on" from ``AGGREGATION_MIN_K`` = 10.
    node_close_max_columns : gap closing at the tree's nodes
        (:func:`~mipagg.exact.nodeclosing.close_node`): at most this many
        clusters per node (0 switches it off).
    node_close_time : seconds each node's gap closing (enumeration and MIP)
        may take (default: a tenth of ``time_limit``, at most
        ``NODE_CLOSE_SECONDS`` = 120 s; without a time limit, none; 0
        switches it off); past it the node keeps the MIP's certified bound,
        if any, and is branched.
    node_close_partial : at a node whose gap is too large for the full node
        closing (or whose full closing finds too many clusters), a partial
        closing over at most this many clusters, as ``close_gap_partial`` at
        the root (0: off, the default): its MIP searches the node's
        least-reduced-cost clusters for a better partition and lifts the
        node's bound to min(its bound, L + τ).  In a run with a time limit,
        those at nodes above the full closing's threshold take at most
        ``nodeclosing.PARTIAL_SHARE`` (half) of the tree's time; without one they run at
        every such node, so the tree does not depend on the clock.
    node_close_gap : the full node closing is tried at every node whose gap
        is at most this fraction of the incumbent's SSE, however low failed
        closings elsewhere have set the adaptive threshold (0: off, the
        default; docs/bench/casc_gap.md §25).
    node_close_cost : a full node closing gets at most the time branching
        the node's subtree would take, by the abstract branching model over
        the tree's recent bound gains and node seconds, and is not tried when
        that is less than the fastest closing so far that closed its node
        at a gap no larger (:mod:`~mipagg.exact.closingvalue`; default: on
        with a time limit, off without one, since it reads the clock;
        docs/bench/casc_gap.md §51, §61).
    node_close_nested : with ``node_close_cost``, the subtree that sets a
        closing's budget is branched with the closings it would try
        counted in, at the seconds and failure rate of the recent closings
        (:func:`~mipagg.exact.closingvalue.branching_seconds`; default off;
        docs/bench/casc_gap.md §53).
    node_close_restart : let HiGHS restart the node closings' MIPs after
        its root (``mip_allow_restart``; default on; off: docs/bench/casc_gap.md §63).
    node_close_cuts : the master's cuts a node closing's MIP gets as rows
        (with ``close_gap_mip`` "presolve"): "tight", those with a nonzero
        dual at the node (the default since 2026-12-05: on the Census k = 4
        groups-of-four side, 250 of 3 200 cuts, and the MIPs 2× faster,
        docs/bench/casc_gap.md §81), or "all".
    dive_time : seconds for the diving heuristic after the root (:func:`dive`;
        default 15 % of ``time_limit``, at most 600 s; without a limit the
        dive runs until its master is integral or stuck, reading no clock;
        0 switches it off; when the budget cannot hold the dive's steps at
        their pace so far, each step fixes a larger share,
        :func:`~mipagg.exact.diving._dive_share`).
    neighbourhood_time : seconds for exact neighbourhood search on the
        incumbent after the dive (:meth:`BranchAndPrice.neighbourhood_phase`);
        default: off under ``NEIGHBOURHOOD_MIN_N`` records, else a tenth of
        ``time_limit`` (at most ``NEIGHBOURHOOD_SECONDS``), or without a
        limit until the search converges (no clock); a number turns it on at
        any size, 0 off.
    mip_time, mip_nodes : budgets of the integer master over the column
        pool (:meth:`BranchAndPrice.pool_mip`) in seconds and in HiGHS
        branch-and-bound nodes.  Defaults: with a ``time_limit``, 10 % of it
        and at most 60 s, no node budget; without one, ``MIP_NODES`` nodes
        and no clock, so that two runs with the same input take the same
        path on any machine.  0 (either) switches it off.
    max_columns, threads, lp_algorithm, stabilization, alpha : as in
        :func:`~mipagg.exact.colgen.column_generation` (every node's column
        generation is stabilized the same way); ``lp_algorithm`` is the
        root's LP method.
    reopt_lp_algorithm : the master's LP method once the root's LP has
        converged (cut rounds, dive, the tree's nodes), "auto" (the dual
        simplex: new cut rows, columns fixed at 1 by the dive or at 0 by a
        node leave the last basis dual feasible; 3.2× the nodes per second of
        the primal simplex on a resumed Tarragona k = 5 tree,
        docs/bench/casc_gap.md §26), "primal", "dual" or "ipm".
    fixing : reduced-cost fixing of record pairs at the root and at every
        node (:mod:`mipagg.exact.fixing`): a pair that cannot be together in
        an improving partition is kept apart in the subtree.
    size_chain : as in :func:`~mipagg.exact.colgen.column_generation`: the
        root's column generation before the cuts, and nodes without together
        pairs or cut penalties, search only size k exactly.
    size_fixing : at every node that branches, exclude from its subtree
        each cluster size η (from 2k − 1 down, while it holds) of which no
        allowed cluster has a reduced cost below UB − L at the node's
        certified duals (:func:`~mipagg.exact.fixing.fix_sizes`): the
        subtree's pricing and node closings skip it (off by default).
    node_pricing : the pricing rounds of tree nodes: "auto" (seed 001's
        heuristic pricing, then the exact routine when it finds nothing) or
        "exact" (the exact routine alone; measured in docs/bench/casc_gap.md
        §62).  The root's column generation prices as ``"auto"`` either way.
    column_fixing : when the tree starts (or resumes), delete from the
        master the columns whose reduced cost at the root's certified duals
        exceeds UB − L (in no partition as good as the incumbent, by the
        argument of :mod:`mipagg.exact.fixing`), and again between nodes
        whenever the pool has grown by a tenth (on each worker too): node
        LPs over fewer columns (:meth:`BranchAndPrice.fix_root_columns`; off
        by default, measured on the Tarragona k = 5 tree only,
        docs/bench/casc_gap.md §37, §46).
    node_basis : a node's children start their master LP from its final
        basis instead of the basis the last node left (docs/bench/casc_gap.md
        §43).
    plunge : after a node branches, solve one of its children next (the
        first not cut off, from the parent's basis) when its bound is within
        this share of the gap between the least open bound and the cutoff:
        0 (default) never, 1 always; else the least open bound first.  With
        the optimal incumbent known the order changes no node's fate, only
        how warm each LP starts (docs/bench/casc_gap.md §43).  A node
        selection without ``remove`` never plunges.
    branching : the branching rule (:mod:`mipagg.exact.branching`):
        "reliability:4" (the default since 2026-11-29: strong branching on
        4 candidate pairs, a pair probed twice scored by its pseudocosts;
        "reliability" for 8), "strong" (strong branching on the restricted
        master, 8 candidates; "strong:N" for N), "fractional" (most
        fractional pair, the rule "ryan_foster", the default before);
        any name of :data:`~mipagg.exact.rules.BRANCHING_RULES`.
    node_selection : which open node comes next, a name of
        :data:`~mipagg.exact.rules.NODE_SELECTIONS`: "best_bound" (the
        default), "depth_first", or a registered plug-in.
    node_cut_rounds : subset-row cut rounds at every tree node (with ``cuts``;
        :mod:`mipagg.exact.nodecuts`), each followed by the node's column
        generation; 1 by default (faster on every measured tree of 40 nodes
        or more, casc_gap §65–67); 0 separates cuts at the root only.
    cut_families : the cut families separated each round, names of
        :data:`~mipagg.exact.rules.CUT_FAMILIES`: "subset_row" (the default)
        and "rank1" (four- and five-row rank-1 cuts, :mod:`mipagg.exact.rank1`).
    tree_mip : rerun the pool MIP (``mip_time``, at most half the time left)
        in the tree whenever the pool has grown by this factor since the last
        one (e.g. 1.5); None (the default): only at the root.
    reclose_root : after root gap closing found too many clusters or ran out
        of time, try it again (root duals, ``close_gap_time``) whenever the
        tree has lowered the incumbent by a tenth of the root gap; a success
        proves the incumbent optimal and ends the tree
        (:meth:`BranchAndPrice.reclose_root`).  Off by default.
    workers : solve the tree's nodes on this many local processes
        (:mod:`mipagg.exact.parallel`; the same optimum, the tree may differ).
    scheduler : solve them on a Dask cluster instead: a scheduler's address,
        "local" (a ``LocalCluster`` of ``workers`` processes) or a
        ``distributed.Client``.
    checkpoint : write the tree's state to this file (:mod:`mipagg.exact.checkpoint`)
        when the tree stops, and every ``checkpoint_every`` seconds between
        nodes (with workers: as tasks return, the tasks still out saved as
        open nodes); checked before any work (never the
        ``resume`` file).  Nothing is written when the root did not finish.
    checkpoint_bases : the checkpoint also keeps the parent's final master
        basis of this many open nodes, lowest bounds first, so that a resumed
        run starts them warm (about 750 bytes each on Tarragona; docs/bench/casc_gap.md §48;
        on Census k = 5, all 5 926 open nodes' in 1.9 s a save and 3.6 MB against
        4 096 in 1.36 s and 3.0 MB, §60).
    retire_cuts : the checkpoint leaves out the cuts separated at nodes
        (``node_cut_rounds``) that no saved basis holds tight, and their rows
        from the bases (:mod:`mipagg.exact.cutretire`); the running tree keeps
        them.  On by default.
    resume : a checkpoint of this data and k: skip the root phases and go on
        with its open nodes, column pool, cuts, pair fixing and incumbent
        (the other options may differ; counts such as ``nodes`` continue, so
        ``node_limit`` counts the resumed nodes too; ``resumed_nodes`` says
        where the run started).
    lp_stall_time : a node's master LP that runs this many seconds is
        stopped and run again from its starting basis with HiGHS's
        perturbations off (:meth:`MasterProblem._unstall
        <mipagg.exact.master.MasterProblem._unstall>`; ``lp_stalls`` counts
        them).  "auto" (default): ten times the longest of the process's
        last 100 LPs, at least 20 s, and no limit before its first LP
        (:meth:`MasterProblem.stall_cap
        <mipagg.exact.master.MasterProblem.stall_cap>`); None: no limit.
        Node LPs of the Tarragona k = 5 tree have run for 20 minutes in
        HiGHS's clean-up (docs/bench/casc_gap.md §72).
    lp_stall_dump : an existing directory; each stalled LP and its starting
        basis are written there (MPS and HiGHS basis files) to study offline.
    node_lp_perturbation : run the master's LPs at tree nodes with HiGHS's
        cost and bound perturbations (HiGHS's default) or, by default,
        without them (:meth:`MasterProblem.use_perturbation
        <mipagg.exact.master.MasterProblem.use_perturbation>`); a stopped or
        failed LP runs again the other way.  Whether a perturbed node LP
        stalls depends on the perturbation drawn; unperturbed, the node LPs
        of three trees took as long or less (docs/bench/casc_gap.md §73).
    count_row : when k does not divide n, the master gets the row
        Σ_C x_C ≤ ⌊n/k⌋, valid for every k-partition
        (:func:`~mipagg.exact.master.count_limit`).  Without it the LP covers
        the records with n/k groups of size k, a fraction more than any
        partition has; at the open nodes of the Tarragona k = 5 tree
        (n = 834) it raised the node LP bound by about 0.012 SSE units, more
        than the gap left (docs/bench/casc_gap.md §75).
    max_groups, max_size : restrict the run to the partitions into at most
        ``max_groups`` groups (the count row with that limit) or into groups
        of at most ``max_size`` records (larger clusters never enter): the
        status and the bound then hold for that class only (the result's
        ``restriction``), while the partition returned is the best found,
        perhaps outside it.  The two sides of a proof split on the number of
        groups (:mod:`~mipagg.exact.countsplit`).
    settings : a :class:`~mipagg.exact.settings.BPSettings` (or a dict, e.g.
        a TOML table) holding these options at once; keyword options that
        differ from their defaults override it.
    verbose : progress lines on stderr (elapsed, nodes done/open, LB, UB, gap).

    Exponential in the worst case (each node is a column generation, each
    exact pricing a branch and bound).

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [3.], [10.], [11.], [12.], [20.], [21.]])
    >>> r = branch_and_price(X, 2)
    >>> str(r.status), round(r.sse, 4), round(r.lower_bound, 4), r.success
    ('optimal', 3.5, 3.5, True)
    """
    settings = merge_settings(BPSettings, settings, dict(
        time_limit=time_limit, node_limit=node_limit, cuts=cuts, max_cut_rounds=max_cut_rounds,
        cuts_per_round=cuts_per_round, min_violation=min_violation, tail_off=tail_off,
        close_gap=close_gap, close_gap_max_columns=close_gap_max_columns,
        close_gap_time=close_gap_time, close_gap_mip=close_gap_mip,
        close_gap_partial=close_gap_partial, aggregation=aggregation,
        node_close_max_columns=node_close_max_columns, node_close_time=node_close_time,
        node_close_partial=node_close_partial, node_close_gap=node_close_gap,
        node_close_cost=node_close_cost, node_close_nested=node_close_nested,
        node_close_restart=node_close_restart, node_close_cuts=node_close_cuts,
        mip_time=mip_time, mip_nodes=mip_nodes, dive_time=dive_time,
        neighbourhood_time=neighbourhood_time, max_columns=max_columns, threads=threads,
        lp_algorithm=lp_algorithm, reopt_lp_algorithm=reopt_lp_algorithm,
        stabilization=stabilization, alpha=alpha, gap_tol=gap_tol, fixing=fixing,
        size_chain=size_chain, column_fixing=column_fixing, size_fixing=size_fixing,
        node_pricing=node_pricing, node_basis=node_basis,
        plunge=plunge,
        branching=BRANCHING_ALIASES.get(branching, branching)
        if isinstance(branching, str) else branching, node_selection=node_selection,
        node_cut_rounds=node_cut_rounds, cut_families=cut_families, tree_mip=tree_mip,
        reclose_root=reclose_root, workers=workers, scheduler=scheduler, checkpoint=checkpoint,
        checkpoint_every=checkpoint_every, checkpoint_bases=checkpoint_bases,
        retire_cuts=retire_cuts, resume=resume, lp_stall_time=lp_stall_time,
        lp_stall_dump=lp_stall_dump, node_lp_perturbation=node_lp_perturbation,
        count_row=count_row, max_groups=max_groups, max_size=max_size))
    with stoppable():   # Ctrl-C under graceful_stops: status "interrupted"
        return BranchAndPrice(X, k, settings, initial=initial, verbose=verbose).run()

class BranchAndPrice(BPRoot):
    """One run of ``bp``: the root of :class:`~mipagg.exact.bproot.BPRoot`
    (column generation, cut rounds, pair fixing, dive, neighbourhood search,
    root gap closing, pool MIP), then :meth:`explore_tree`; the tree's state
    (open nodes, counts, incumbent, bounds) is held in fields.  The branching
    rule and node selection are objects named in the settings
    (:mod:`mipagg.exact.rules`)."""

    refix_growth = 0.1      # pool growth (share) after which the tree fixes columns again

    def __init__(self, X, k, settings: BPSettings, *, initial=None, verbose=False):
        self.resume_from = checkpoints.prepare(X, k, settings)     # before any work
        super().__init__(X, k, settings, initial=initial, verbose=verbose)
        st, limit = settings, settings.time_limit
        self.stop.node_limit = st.node_limit
        self.node_close_time = st.node_close_time
        if self.node_close_time is None and limit is not None:
            self.node_close_time = min(NODE_CLOSE_SECONDS, 0.1 * float(limit))
        self.node_close_cost = limit is not None if st.node_close_cost is None \
            else st.node_close_cost
        self.branching = branching_rule(st.branching)
        self.nodes, self.max_depth, self.ident = 1, 0, 0
        self.tree_status: str | None = None
        self.allowed = None             # the current node's allowed-column mask (None: all)
        self.node_cuts = 0
        self.retired_cuts = 0           # left out of checkpoints (retire_cuts)
        self.warm_starts = 0        # nodes whose LP started from their parent's basis
        self.children: list[Node] = []      # those of the last node branched (plunge)
        self.workers_used = 1           # tasks in flight in a parallel tree
        self.tree_started = False       # the open nodes cover the problem (a checkpoint may be written)
        self.resumed_nodes = 0
        self.part: dict | None = None   # resumed from a part of a split tree (treeparts)
        self.tree_clock = (time.perf_counter(), 0)  # start and nodes done when the tree started
        self.trend = BoundTrend()       # the certified bound against nodes (treestats)
        self.checkpoint_written: str | None = None
        self.checkpoint_at = time.perf_counter()
        self.in_flight: list = []       # nodes out on workers (mipagg.exact.parallel)
        self.basis_book = BasisBook()   # the open nodes' bases sent back by workers
        self.branched = None            # the master solution the last children came from
        self.node_fixed_sizes = 0       # (node, size) exclusions by fix_node_sizes

    def global_bound(self) -> float:
        """The least bound of the open nodes (and of those in flight on
        workers), or the bound of a root gap closing when higher
        (:meth:`with_closing_bound`)."""
        return self.with_closing_bound(min(self.open.bounds() + [self.rounder.best_sse]
                                           + [nd.bound for nd in self.in_flight]))

    def open_below_cutoff(self) -> list | None:
        """The open nodes below the cutoff (None when the node selection
        cannot be iterated)."""
        if not hasattr(self.open, "__iter__"):
            return None
        cutoff = self.cutoff()
        return [nd for nd in self.open if nd.bound < cutoff]

    def open_depths(self) -> list | None:
        """Depths of the open nodes below the cutoff (None when the node
        selection cannot be iterated)."""
        live = self.open_below_cutoff()
        return None if live is None else [nd.depth for nd in live]

    def portable_basis(self, node: Node) -> tuple:
        """(key, the basis ``node`` starts from as a
        :class:`~mipagg.exact.bases.PortableBasis` or None): its parent's,
        saved by this process or sent back by a worker (``basis_book``);
        siblings share a key."""
        if node.basis is not None:
            return id(node.basis), self.master.export_basis(node.basis)
        kept = self.basis_book.get(node.ident)
        return id(kept), None if kept is None else self.basis_book.basis(kept)

    def saved_basis(self, node: Node, pool) -> tuple:
        """:meth:`portable_basis` for a checkpoint, without building one:
        (key, None or (the positions in ``pool``, a
        :class:`~mipagg.exact.bases.SavedPool` of this master's columns, of
        the basic clusters; the basic artificial columns; the row statuses))."""
        basis: Basis | None = node.basis      # type: ignore[assignment]  # Node holds any object
        if basis is not None:
            found = self.master.basis_positions(basis)
            return id(basis), None if found is None else (*found, basis.row_status)
        kept = self.basis_book.get(node.ident)
        return id(kept), None if kept is None else (
            self.basis_book.in_pool(kept, pool), kept.artificial, kept.row_status)

    def explore_tree(self) -> None:
        """Process open nodes in the order of the node selection until none
        is left below the cutoff or a limit is hit (``tree_status``)."""
        t0 = time.perf_counter()
        root = self.root
        self.closer = NodeClosing(self.settings.node_close_max_columns,
                                   self.rounder.best_sse - self.root_bound,
                                   self.stop.deadline is not None, self.settings.node_close_gap,
                                   self.node_close_cost, self.settings.node_close_nested)
        self.pool_at_mip = len(self.master.columns)         # the pool at the last pool MIP
        if root.stop.reason == "time_limit" or self.stop.expired():
            self.tree_status = "time_limit"
        if self.tree_status is None and root.solution is not None:
            self.tree_started = True
            self.tree_clock = (time.perf_counter(), self.nodes)
            if not self.prune(self.root_bound):
                self.branch(Node(self.root_bound, 0, -1, sizes_out=self.ctx.none.sizes_out),
                            root.solution, self.root_bound)
        self.search_tree(t0)

    def search_tree(self, t0: float) -> None:
        """The tree after the root (or from a checkpoint): the open nodes on
        the workers or here, a checkpoint every ``checkpoint_every`` seconds
        between nodes (:mod:`~mipagg.exact.parallel` writes its own) and one
        at the end."""
        self.fix_root_columns()
        if self.settings.workers > 1 or self.settings.scheduler is not None:
            explore_in_parallel(self)       # open nodes are left only on a limit
        while (node := self.next_node()) is not None:
            self.fix_root_columns(self.refix_growth, node)
            self.process(node)
            self.observe_bound()
            self.reclose_root()
            if self.checkpoint_due():
                self.save_checkpoint()
        self.master.set_allowed(None)
        self.allowed = None
        self.seconds["tree"] = time.perf_counter() - t0
        self.rounder.finish()
        self.save_checkpoint(final=True)

    def checkpoint_due(self) -> bool:
        """Whether ``checkpoint_every`` seconds have passed since the last checkpoint."""
        return time.perf_counter() - self.checkpoint_at >= self.settings.checkpoint_every

    def save_checkpoint(self, final: bool = False) -> None:
        """The tree's state to the ``checkpoint`` file, when one is asked for
        and the open nodes (with those ``in_flight`` on workers) cover the
        problem (:mod:`mipagg.exact.checkpoint`); the ``final`` call warns
        when none could be written."""
        self.checkpoint_at = time.perf_counter()
        path = self.settings.checkpoint
        if path is None:
            return
        if not self.tree_started:
            if final:
                warnings.warn(f"no checkpoint written to {path}: the root did not finish "
                              "before the limit", RuntimeWarning, stacklevel=2)
            return
        t0 = self.checkpoint_at
        self.checkpoint_written = str(checkpoints.save(self, path))
        self.checkpoint_at = time.perf_counter()
        self.seconds["checkpoint"] = self.seconds.get("checkpoint", 0.0) + self.checkpoint_at - t0

    def resume_tree(self) -> None:
        """The tree from the checkpoint ``resume`` (:func:`~mipagg.exact.checkpoint.restore`)."""
        t0 = time.perf_counter()
        self.closer = NodeClosing(self.settings.node_close_max_columns, 0.0,
                                   self.stop.deadline is not None, self.settings.node_close_gap,
                                   self.node_close_cost, self.settings.node_close_nested)
        checkpoints.restore(self, self.resume_from)
        self.tree_started = True
        self.tree_clock = (time.perf_counter(), self.nodes)
        self.report_progress()
        self.search_tree(t0)

    def next_node(self) -> Node | None:
        """The next open node below the cutoff, taken off the queue; None when
        none is left or a limit is hit (``tree_status`` says which)."""
        while len(self.open) and self.tree_status is None:
            node = self.open.peek()
            if self.prune(node.bound):
                self.open.pop()
                continue
            if self.stop.expired():
                self.tree_status = "time_limit"
            elif self.stop.nodes_exhausted(self.nodes):
                self.tree_status = "node_limit"
            else:
                return self.plunge_child(node.bound) or self.open.pop()
        return None

    def plunge_child(self, least: float) -> Node | None:
        """A child of the last node branched, taken off the queue, when
        ``plunge`` allows one (its bound within that share of the gap between
        ``least``, the least open bound, and the cutoff); else None."""
        children, self.children = self.children, []
        share = self.settings.plunge
        if share <= 0 or not hasattr(self.open, "remove"):
            return None
        limit = least + share * (self.cutoff() - least)
        for child in children:
            if not self.prune(child.bound) and child.bound <= limit \
                    and self.open.remove(child):
                return child
        return None

    def process(self, node: Node) -> None:
        """Column generation at ``node`` (the root's fixed pairs kept apart),
        the pool MIP again when the pool has grown (``tree_mip``), cut rounds
        (``node_cut_rounds``), gap closing when its gap is small, else
        reduced-cost fixing at the node and branching.  With
        ``node_close_cost`` the node's seconds (its closing left out) go to
        the closing rule's model."""
        self.node_started = time.perf_counter()
        value = self.closer.value
        if value is None:
            return self._process(node)
        closing, nodes = self.seconds["node_close"], self.nodes
        self._process(node)
        if self.nodes > nodes:
            value.observe_node(time.perf_counter() - self.node_started
                               - self.seconds["node_close"] + closing)

    def observe_gain(self, node: Node, bound) -> None:
        """``node``'s bound gain over its parent's, for ``node_close_cost``."""
        if self.closer.value is not None and bound is not None:
            self.closer.value.observe_gain(node.side, bound - node.bound)

    def _process(self, node: Node) -> None:
        fixed = self.root_fixed()
        cons = PricingConstraints.build(self.n, together=node.together, apart=node.apart + fixed,
                                        sizes_out=node.sizes_out)
        if not cons.feasible:
            return
        self.allowed = self.master.allowed_under(node.together, node.apart)
        for bad in (self.fixer.forbidden_columns(self.master.columns) if fixed else None,
                    self.master.columns_of_sizes(node.sizes_out) if node.sizes_out else None):
            if bad is not None:
                self.allowed = ~bad if self.allowed is None else self.allowed & ~bad
        self.master.use_algorithm(self.reopt_algorithm)
        stall = self.settings.lp_stall_time
        self.master.stall_time = self.master.stall_cap() if stall == "auto" else stall
        self.master.stall_dump = self.settings.lp_stall_dump
        self.master.use_perturbation(self.settings.node_lp_perturbation)
        self.master.set_allowed(self.allowed)
        if node.basis is not None and self.master.load_basis(node.basis):
            self.warm_starts += 1
        res, bound = self.run_node(cons, node.bound, node.depth)
        self.nodes += 1
        self.max_depth = max(self.max_depth, node.depth)
        if self.interrupted(res, node, bound):
            return
        self.tree_pool_mip()
        if res.solution is None:
            return
        if self.prune(bound):
            self.observe_gain(node, bound)
            return
        if self.settings.cuts and self.settings.node_cut_rounds:
            res, bound = self.node_cut_rounds(cons, res, bound, node)
            if self.interrupted(res, node, bound) or res.solution is None \
                    or self.prune(bound):
                return
        self.observe_gain(node, bound)
        bound = self.close_node_gap(res, replace(node, apart=node.apart + fixed), bound)
        if bound is None:
            self.report_progress()          # closed by gap closing: the line goes on too
            return
        # the node's final LP basis for its children (gap closing leaves the master's LP alone)
        basis = self.master.save_basis() if self.settings.node_basis else None
        node = replace(node, basis=basis, sizes_out=self.fix_node_sizes(res, node))
        node = replace(node, apart=node.apart + self.fix_node(res, node))
        if not self.branch(node, res.solution, bound):
            return      # integral (offered) or artificial: nothing below
        self.report_progress()

    def interrupted(self, res, node: Node, bound: float) -> bool:
        """The node's loop hit the time limit: the node goes back open and the
        tree stops."""
        if res.stop.reason != "time_limit":
            return False
        self.open.push(replace(node, bound=bound))
        self.tree_status = "time_limit"
        return True

    def tree_pool_mip(self) -> None:
        """The pool MIP again in the tree (``tree_mip``): once the pool has
        grown by that factor since the last one, within ``mip_time`` and half
        the time left."""
        factor, pool = self.settings.tree_mip, len(self.master.columns)
        if not factor or not self.mip_on or pool < factor * self.pool_at_mip:
            return
        self.pool_at_mip = pool
        self.pool_mip(share=0.5, least=1.0)

    def node_cut_rounds(self, cons, res, bound: float, node: Node):
        """Cut rounds at a tree node (:func:`~mipagg.exact.nodecuts.node_cut_rounds`),
        each followed by the node's column generation; returns (result, bound)."""
        st = self.settings
        res, bound, added = nodecuts.node_cut_rounds(
            self.master, res, bound, lambda b: self.run_node(cons, b, node.depth),
            ub=self.cutoff, rounds=st.node_cut_rounds, per_round=self.cuts_per_round,
            min_violation=st.min_violation, tail_off=st.tail_off, separate=self.separate_cuts)
        self.node_cuts += added
        return res, bound

    def close_node_gap(self, res, node: Node, bound: float) -> float | None:
        """Gap closing at ``node`` (its apart pairs with the root's fixed
        ones) when its gap is small
        (:func:`~mipagg.exact.nodeclosing.close_node`), else (or when it finds
        too many clusters) a partial closing over ``node_close_partial``
        clusters: the node's bound, None when its subtree is closed."""
        g = self.rounder.best_sse - res.stop.bound
        st, closer = self.settings, self.closer
        if res.stop.reason != "converged" or self.node_close_time == 0:
            return bound
        t1 = time.perf_counter()
        full = closer.wants(g, self.rounder.best_sse)
        budget = closer.budget(g, t1 - self.node_started) if full else None
        full = full and closer.affords(budget, g)
        if not (full or (st.node_close_partial and closer.wants_partial())):
            return bound
        seconds = earliest(self.node_close_time, budget) if full else self.node_close_time
        before, info = self.rounder.best_sse, {}
        outcome, node_bound = nodeclosing.close_node(self.D, self.X, self.k, self.master, res.stop,
                                          node, self.rounder, self.tol_abs,
                                          st.node_close_max_columns if full else 0,
                                          self.phase_deadline(t1, seconds), self.ctx,
                                          self.closing_mip(node=True, cut_duals=res.stop.cut_duals),
                                          st.node_close_partial,
                                          info)
        spent = time.perf_counter() - t1
        self.seconds["node_close"] += spent
        closer.record(outcome, g, full=full, partial="tau" in info,
                      better=self.rounder.best_sse < before, seconds=spent)
        if outcome == "optimal":
            return None
        if node_bound is not None:
            bound = max(bound, node_bound)
            if self.prune(bound):
                return None
        return bound

    def fix_node(self, res, node: Node) -> tuple:
        """Pairs fixed apart by reduced costs at the node's duals
        (:meth:`~mipagg.exact.fixing.PairFixing.fix_node`), for its subtree,
        over the cluster sizes it allows."""
        stop = res.stop
        if self.fixer is None or stop.bound is None or stop.duals is None:
            return ()
        t0 = time.perf_counter()
        found = self.fixer.fix_node(stop.duals, stop.bound, self.rounder.best_sse,
                                    self.master.cuts, stop.cut_duals, known=node.apart,
                                    sizes_out=node.sizes_out, count_penalty=stop.count_penalty)
        self.seconds["fixing"] += time.perf_counter() - t0
        return tuple(found)

    def fix_node_sizes(self, res, node: Node) -> int:
        """The cluster sizes excluded for the subtree of ``node`` (its own and
        those :func:`~mipagg.exact.fixing.fix_sizes` adds at the node's duals,
        under its pairs and the root's fixed ones; ``size_fixing``).  Before
        the node's pair fixing, whose bounds then leave these sizes out."""
        stop = res.stop
        if not self.settings.size_fixing or stop.bound is None or stop.duals is None:
            return node.sizes_out
        t0, ub = time.perf_counter(), self.rounder.best_sse
        cons = cut_constraints(self.master, self.n, stop.cut_duals, node.together,
                               node.apart + self.root_fixed(), node.sizes_out,
                               stop.count_penalty) or self.ctx.none
        out = fix_sizes(self.ctx, stop.duals, cons, ub - float(stop.bound) + PairFixing.margin(ub),
                        node.sizes_out, deadline=self.stop.deadline)
        self.node_fixed_sizes += bin(out & ~node.sizes_out).count("1")
        self.seconds["fixing"] += time.perf_counter() - t0
        return out

    def report_progress(self) -> None:
        """A progress line: nodes, open nodes below the cutoff (as
        ``open_nodes`` of the result and ``mipagg tree``: a node queued before
        the incumbent fell below its bound is cut off when it comes up),
        bounds, fixed pairs, share of the root gap closed, the tree-size
        estimate and the time it leaves at this run's pace
        (:mod:`mipagg.exact.treestats`), and the nodes and time to the
        cutoff at the bound's recent pace (:meth:`observe_bound`), and the
        open nodes' summed gap to the cutoff (``open_gap``)."""
        if not self.progress.enabled:
            return
        lb, ub, fixer = self.global_bound(), self.rounder.best_sse, self.fixer
        cutoff = self.cutoff()
        live = self.open_below_cutoff()
        depths = None if live is None else [nd.depth for nd in live]
        estimate = None if depths is None else tree_estimate(self.nodes, depths)
        by_bound = self.trend.nodes_to(cutoff, len(depths or ()))
        self.progress.update(nodes=self.nodes,
                             open=len(self.open) if depths is None else len(depths),
                             enumerated=self.closer.succeeded,
                             fixed=0 if fixer is None else int(fixer.fixed.sum())
                             + fixer.node_fixed, lb=lb, ub=ub, gap=gap(ub, lb),
                             closed=gap_closed(lb, ub, self.root_lp_bound), estimate=estimate,
                             left=format_duration(self.seconds_left(estimate)),
                             bound_trend=by_bound,
                             bound_left=format_duration(self.trend_seconds_left(by_bound)),
                             open_gap=None if live is None
                             else open_gap(cutoff, [nd.bound for nd in live]))

    def observe_bound(self) -> None:
        """The certified bound after this node (or batch of workers' nodes)
        into the bound trend (:class:`~mipagg.exact.treestats.BoundTrend`)."""
        self.trend.observe(self.nodes, self.global_bound())

    def pace(self) -> tuple[int, float]:
        """Nodes this run has processed in the tree and the seconds since its
        tree started (after the root, or after the resumed checkpoint)."""
        started, nodes = self.tree_clock
        return self.nodes - nodes, time.perf_counter() - started

    def seconds_left(self, estimate: int | None) -> float | None:
        """Seconds until a tree of ``estimate`` nodes ends at this run's pace."""
        return seconds_left(estimate, self.nodes, *self.pace())

    def trend_seconds_left(self, nodes_left: int | None) -> float | None:
        """Seconds for ``nodes_left`` more nodes (the bound trend's) at this run's pace."""
        return None if nodes_left is None else self.seconds_left(self.nodes + nodes_left)

    def branch(self, node: Node, solution, bound: float) -> bool:
        """Push the children the branching rule makes of ``node``; False when
        it finds nothing to branch on."""
        t0 = time.perf_counter()
        decision = self.branching.choose(self, node, solution)
        self.seconds["branching"] += time.perf_counter() - t0
        if decision is None:
            return False
        self.branched = solution
        self.children = [Node(bound, -(node.depth + 1), self.ident + i, together, apart,
                              node.basis, side=i, sizes_out=node.sizes_out)
                         for i, (together, apart) in enumerate(decision.children)]
        for child in self.children:
            self.open.push(child)
        self.ident += len(decision.children)
        return True

    def result(self) -> BranchAndPriceResult:  # type: ignore[override]  # richer result
        rounder, best = self.rounder, self.rounder.best_sse
        open_bounds = [b for b in self.open.bounds() if not self.prune(b)]
        status, closed_by = self.tree_status, self.closed_by
        if status is None:                  # the tree is exhausted (or was never needed)
            status, lower = "optimal", self.certified_bound(best)
            closed_by = closed_by or ("tree" if self.nodes > 1 else "root")
        else:
            rest = self.root_bound if not len(self.open) and self.nodes == 1 else best
            tree_lower = min(min(open_bounds + [rest]), self.certified_bound(best))
            lower = self.with_closing_bound(tree_lower)
            if not np.isfinite(lower):
                lower = None
            elif self.closed(lower):
                status = "optimal"
                closed_by = closed_by or ("tree" if lower <= tree_lower else "gap_closing")
        status = interrupted(status)
        part = None
        if self.part is not None:       # a bound for the part's subtrees, not for the problem
            part = dict(self.part, lower_bound=lower, closed=status == "optimal")
            status, lower = ("part_closed" if status == "optimal" else status), None
        total = time.perf_counter() - self.t_start
        self.seconds.update(total=total, rounding=rounder.seconds,
                            overrun=self.stop.overrun(total))
        self.progress.done(status=status, nodes=self.nodes, lb=lower, ub=best)
        estimate = self.final_estimate(status, open_bounds)
        by_bound = None if status == "optimal" else self.trend.nodes_to(self.cutoff(),
                                                                          len(open_bounds))
        return BranchAndPriceResult(
            partition=rounder.best, sse=best, lower_bound=lower, status=status,
            nodes=self.nodes, open_nodes=len(open_bounds), root_lp_bound=self.root_lp_bound,
            root_cut_bound=self.root_cut_bound, cuts=len(self.master.cuts),
            cut_rounds=self.cut_rounds_done, dive_steps=self.dive_steps,
            closed_by=closed_by if status == "optimal" else None, iterations=self.iterations,
            columns=len(self.master.columns), max_depth=self.max_depth,
            gap_closing=self.gap_closing, seconds=self.seconds, threads=self.ctx.threads,
            stabilization=self.loop.stabilization, node_closings=self.closer.tried,
            nodes_enumerated=self.closer.succeeded, node_partial_closings=self.closer.partial,
            node_closing_incumbents=self.closer.better,
            node_closings_timed_out=self.closer.timed_out,
            node_closings_too_large=self.closer.too_large,
            node_closings_skipped=self.closer.skipped, node_cuts=self.node_cuts,
            warm_starts=self.warm_starts, bases_kept=self.master.bases_kept,
            lp_stalls=self.master.lp_stalls,
            lp_retries=self.master.lp_retries,
            rank1_cuts=sum(len(rank1(c).rows) > 3 for c in self.master.cuts),
            branching=getattr(self.branching, "name", self.settings.branching),
            strong_evaluations=getattr(self.branching, "evaluations", 0),
            strong_predicted=getattr(self.branching, "predicted", 0),
            tree_estimate=estimate, tree_seconds_left=None if status == "optimal"
            else self.seconds_left(estimate), bound_trend_nodes=by_bound,
            bound_trend_seconds_left=self.trend_seconds_left(by_bound), workers=self.workers_used,
            neighbourhood_solves=self.neighbourhood_solves,
            aggregation=None if self.aggregated is None else self.aggregated.as_dict(),
            closing_bound=float(self.closing_bound) if np.isfinite(self.closing_bound) else None,
            resumed_nodes=self.resumed_nodes, checkpoint=self.checkpoint_written,
            columns_fixed=self.columns_fixed, node_fixed_sizes=self.node_fixed_sizes, part=part,
            restriction=describe(self.settings.max_groups, self.settings.max_size),
            **self.fixing_fields())

    def final_estimate(self, status, open_bounds) -> int | None:
        """The tree-size estimate at return: the nodes done when optimal."""
        if status == "optimal":
            return self.nodes
        depths = self.open_depths()
        return tree_estimate(self.nodes, depths) if open_bounds and depths is not None else None

    def fixing_fields(self) -> dict:
        """The result's fields of the pair fixing (:mod:`mipagg.exact.fixing`)."""
        fixer = self.fixer
        if fixer is None:
            return {}
        return {"fixed_pairs": int(fixer.fixed.sum()), "node_fixed_pairs": fixer.node_fixed,
                "candidate_pairs": len(fixer.pairs), "fixed": fixer.root_pairs()}

    def run(self) -> BranchAndPriceResult:  # type: ignore[override]  # richer result
        if self.resume_from is not None:
            self.resume_tree()
            return self.result()
        self.root_column_generation()
        self.cut_rounds()
        self.fix_pairs()
        self.dive_phase()
        if self.neighbourhood_phase():      # a lower incumbent: less tail-off, more fixing
            self.cut_rounds()
            self.fix_pairs()
        self.close_root_gap()
        if not self.closed(self.root_bound) and self.mip_on and not self.pool_mip_done:
            self.pool_mip()
        self.explore_tree()
        return self.result()
