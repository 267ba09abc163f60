"""The root of branch-and-price (method ``bp``): :class:`BPRoot`.

Column generation at the root of the set-partitioning master (seed 001
section 4.1, :class:`~mipagg.exact.colgen.ColumnGeneration`) with a cutoff at
the incumbent, then the root's phases: rounds of subset-row cuts (Jepsen,
Sigurd, Spoorendonk & Pisinger 2008), reduced-cost fixing of record pairs and
of columns (:mod:`mipagg.exact.fixing`), the diving heuristic, exact
neighbourhood search on the incumbent, gap closing at the root's certified
duals (seed 001 §5) and the integer master over the column pool.  The tree
that follows is :class:`~mipagg.exact.bp.BranchAndPrice`, which extends this
class; see :mod:`mipagg.exact.bp` for the whole method.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ..partition import Partition
from ..refine import local_search, split_large_groups
from .bounds import neighbour_bound, node_cutoff
from .colgen import ColumnGeneration, Rounder, initial_partition
from .diving import dive, is_integral
from .fixing import PairFixing
from .gapclosing import close_gap_by_enumeration
from .master import MasterProblem, cluster_weight, set_partitioning_mip
from .neighbourhood import exact_neighbourhood_search
from .nodeclosing import cut_constraints, tight_cuts
from .rules import CUT_FAMILIES, NODE_SELECTIONS, load
from .settings import PRESOLVE_MIN_N, BPSettings, resolve_reopt_lp_algorithm

# Root gap closing's own limit under a time limit: beyond it the root MIP rarely
# finishes, and node gap closing in the tree proves those instances sooner
# (11 instances of docs/bench/bp.md: 1195 s → 873 s in total, all proven).
ROOT_CLOSE_SECONDS = 30.0
MIP_NODES = 1000            # the pool MIP's budget in nodes when no time limit is given
# Exact neighbourhood search after the dive, by default from this many records
# on: on a 4 000-record lognormal file at k = 3 it took the root gap from 0.68 %
# to 0.43 %, on a 300-record Census block at k = 5 the tree found the same
# incumbent without it and the 900-s certificate was 0.150 % without, 0.162 %
# with (docs/bench/bp_primal.md).  Its default budget under a time limit (a
# tenth of the limit, at most this) and the sub-problem sizes tried in turn,
# each to convergence (in groups; on that lognormal file the dive's incumbent
# drops 0.13 % with 8 groups in 21 s and 0.02 % more with 12 in 30 s)
NEIGHBOURHOOD_MIN_N = 2000
NEIGHBOURHOOD_SECONDS = 300.0
NEIGHBOURHOOD_GROUPS = (8, 12)
RETRY_CLOSING = ("too_many_columns", "too_many_nodes", "partial")   # a better UB may change
RECLOSE_AFTER = RETRY_CLOSING + ("time_limit",)        # in the tree, the MIP's time-out too
RECLOSE_STEP = 0.1          # share of the root's UB − LB the incumbent must drop by


class BPRoot(ColumnGeneration):
    """The root of one ``bp`` run: the root of
    :class:`~mipagg.exact.colgen.ColumnGeneration` (with a cutoff at the
    incumbent), then the phases :meth:`cut_rounds`, :meth:`fix_pairs`,
    :meth:`dive_phase`, :meth:`neighbourhood_phase`, :meth:`close_root_gap`
    and :meth:`pool_mip`; the cut families and the queue of open nodes
    (whose bases column fixing keeps, and which a root gap closing empties)
    are objects named in the settings (:mod:`mipagg.exact.rules`)."""

    name = "bp"
    settings: BPSettings

    def __init__(self, X, k, settings: BPSettings, *, initial=None, verbose=False):
        super().__init__(X, k, settings, initial=initial, verbose=verbose)
        st, limit = settings, settings.time_limit
        # the inner budgets read the clock only where a time limit is given
        # (or asked for): otherwise they count work, for reproducible runs
        clock = limit is not None
        self.mip_time = st.mip_time if st.mip_time is not None else \
            (min(60.0, 0.1 * float(limit)) if clock else None)
        self.mip_nodes = st.mip_nodes if st.mip_nodes is not None else \
            (None if clock else MIP_NODES)
        self.dive_time = st.dive_time if st.dive_time is not None else \
            (min(600.0, 0.15 * float(limit)) if clock else None)
        self.neighbourhood_time = st.neighbourhood_time
        if self.neighbourhood_time is None and self.n < NEIGHBOURHOOD_MIN_N:
            self.neighbourhood_time = 0.0
        elif self.neighbourhood_time is None and clock:
            self.neighbourhood_time = min(NEIGHBOURHOOD_SECONDS, 0.1 * float(limit))
        self.neighbourhood_solves = 0
        self.close_gap_time = st.close_gap_time
        if self.close_gap_time is None and limit is not None:
            self.close_gap_time = min(ROOT_CLOSE_SECONDS, 0.25 * float(limit))
        self.cuts_per_round = max(20, self.n // 5) if st.cuts_per_round is None \
            else int(st.cuts_per_round)
        self.tol_abs = self.ctx.tol * self.n
        self.node_loop = replace(self.loop, pricing=st.node_pricing)    # below the root
        self.reopt_algorithm = resolve_reopt_lp_algorithm(st.reopt_lp_algorithm)
        self.open = load(NODE_SELECTIONS, st.node_selection)()
        self.cut_families = [load(CUT_FAMILIES, name)() for name in st.cut_families]
        self.cut_rounds_done = self.dive_steps = 0
        self.gap_closing, self.closed_by, self.pool_mip_done = "not_needed", None, False
        self.pruned_bound = np.inf      # least bound of the nodes cut off (see prune)
        self.fixer: PairFixing | None = None
        self.pool_at_mip = 0            # the pool at the last pool MIP
        self.reclosed_at = np.inf       # the incumbent of the last root gap closing
        self.proven = False             # root gap closing proved the incumbent in the tree
        self.closing_bound = -np.inf    # certified by a root gap closing (with_closing_bound)
        self.columns_fixed = 0          # columns deleted by fix_root_columns
        self.pool_fixed = 0             # the pool after the last fix_root_columns

    def start(self, initial) -> None:
        """The incumbent: MDAV, V-MDAV and ``initial``, polished; the master
        holds their groups and an artificial column of cost UB₀ + 1."""
        from ..heuristics.mdav import mdav_groups
        from ..heuristics.vmdav import vmdav

        X, k = self.X, self.k
        groups_mdav = mdav_groups(X, k)
        p_vmdav = vmdav(X, k)
        self.rounder = Rounder(X, self.D, k, Partition.from_groups(groups_mdav, X),
                               polish=self.polish)
        self.rounder.offer(p_vmdav)
        seeds = [groups_mdav, p_vmdav.groups()]
        if initial is not None:
            p0 = initial_partition(initial, X, k)
            seeds.append(p0.groups())
            self.rounder.offer(p0)
        self.master = MasterProblem(X, self.D, artificial_cost=self.rounder.best_sse + 1.0,
                                    algorithm=self.algorithm,
                                    count_limit=self.count_limit,
                                    max_size=self.settings.max_size)
        for groups in seeds + [self.rounder.best.groups()]:
            self.master.add_columns(groups)
        self.seconds = {"root": 0.0, "cuts": 0.0, "dive": 0.0, "mip": 0.0, "close_gap": 0.0,
                        "tree": 0.0, "node_close": 0.0, "fixing": 0.0, "neighbourhood": 0.0,
                        "branching": 0.0}
        self.node_started = 0.0             # when the node being solved started

    def polish(self, p: Partition) -> Partition:
        """Local search (:mod:`mipagg.improve`), then groups of 2k+ split."""
        q = local_search(self.X, p, self.k)
        return split_large_groups(self.X, q, self.k) if q.sizes.max() >= 2 * self.k else q

    # ------------------------------------------------------------ helpers

    def cutoff(self) -> float:
        return node_cutoff(self.rounder.best_sse, self.settings.gap_tol, self.tol_abs)

    def closed(self, lb) -> bool:
        return lb is not None and lb >= self.cutoff()

    def prune(self, bound) -> bool:
        """Whether a node of this bound is cut off; its bound is kept, as a
        looser ``gap_tol`` cuts off nodes whose bound is below the best SSE
        and the certificate must say so (:meth:`certified_bound`)."""
        if not self.closed(bound):
            return False
        self.pruned_bound = min(self.pruned_bound, float(bound))
        return True

    def certified_bound(self, best: float) -> float:
        """The bound the nodes cut off certify: the best SSE itself when their
        least bound is within 1e-6 (relative, the default ``gap_tol``) of it."""
        if self.pruned_bound >= best - max(self.tol_abs, 1e-6 * abs(best)):
            return best
        return self.pruned_bound

    def run_node(self, cons, start_bound, depth):
        """Column generation at a node; returns (node result, node bound);
        an integral master solution is offered to the incumbent."""
        res = self.solve(cons, cutoff=self.cutoff, start_iteration=self.iterations,
                         progress=self.progress if depth == 0 else None,
                         loop=self.loop if depth == 0 else self.node_loop)
        self.iterations += res.iterations
        b = res.stop.bound
        bound = start_bound if b is None else max(b, start_bound)
        if res.solution is not None and is_integral(res.solution):
            sol = res.solution
            cols = self.master.columns[:sol.x.size]
            self.rounder.offer(Partition.from_groups(
                [cols[j] for j in np.flatnonzero(sol.x > 0.5)], self.X))
        return res, bound

    def with_closing_bound(self, lower):
        """``lower`` or the bound certified by a root gap closing, whichever
        is higher.  A closing below the incumbent UB that enumerated every
        cluster of reduced cost below UB − LB and ended with the integer
        master's dual bound B (its time limit hit) proves that every
        partition better than UB costs at least B, so min(B, UB) bounds the
        optimum from below whatever the tree has done since; it matters for
        the attempts of ``reclose_root``, made after the root's children
        took the root's bound."""
        if lower is None or not np.isfinite(self.closing_bound):
            return lower
        return max(lower, min(self.closing_bound, self.rounder.best_sse))

    def separate_cuts(self, master, solution, n, max_cuts, min_violation) -> list:
        """New cuts of every cut family violated by ``solution``."""
        return [c for fam in self.cut_families
                for c in fam.separate(master, solution, n, max_cuts, min_violation)]

    def adopt_root(self, columns, cuts, fixing) -> None:
        """Take a root solved elsewhere: its ``columns`` and ``cuts`` into the
        master and its pair fixing (:meth:`~mipagg.exact.fixing.PairFixing.state`,
        or None); for the workers of :mod:`mipagg.exact.parallel` and
        :func:`~mipagg.exact.checkpoint.restore`."""
        self.master.add_columns(columns)
        self.master.add_cuts(cuts)
        if fixing is not None:
            self.fixer = PairFixing(self.D, self.k)
            self.fixer.restore(fixing)
        self.pool_at_mip = len(self.master.columns)

    def root_fixed(self) -> tuple:
        """The root's fixed pairs at the current incumbent (the fixing
        refreshed when it improved); () without fixing."""
        if self.fixer is None:
            return ()
        self.fixer.refresh(self.rounder.best_sse)
        return self.fixer.root_pairs()

    # ------------------------------------------------------------ phases

    def root_column_generation(self) -> None:
        """Column generation at the root from the neighbour bound; its
        certified bound before cuts is ``root_lp_bound``."""
        t0 = time.perf_counter()
        start = neighbour_bound(self.D, self.k, self.ctx.edge_sums)
        agg_bound = self.aggregated_phase()
        if agg_bound is not None:
            start = max(start, agg_bound)
        self.root, self.root_bound = self.run_node(self.ctx.none, start, 0)
        self.root_lp_bound = self.root_bound
        self.seconds["root"] = time.perf_counter() - t0

    def cut_rounds(self) -> None:
        """Rounds of cuts, each followed by column generation, until none is
        violated, the root is closed or a round closes < ``tail_off`` of the gap."""
        t0, st, res = time.perf_counter(), self.settings, self.root
        self.master.use_algorithm(self.reopt_algorithm)     # new rows: the basis stays dual feasible
        while (st.cuts and self.cut_rounds_done < st.max_cut_rounds
               and res.stop.reason in ("converged", "cutoff")
               and res.solution is not None and not self.closed(self.root_bound)):
            found = self.separate_cuts(self.master, res.solution, self.n, self.cuts_per_round,
                                       st.min_violation)
            if not found:
                break
            self.master.add_cuts(found)
            self.cut_rounds_done += 1
            before = self.root_bound
            res, self.root_bound = self.run_node(self.ctx.none, self.root_bound, 0)
            self.progress.update(phase="cuts", round=self.cut_rounds_done,
                                 cuts=len(self.master.cuts), lb=self.root_bound,
                                 ub=self.rounder.best_sse)
            if res.stop.reason not in ("converged", "cutoff"):
                break
            if self.root_bound - before < st.tail_off * (self.rounder.best_sse - before):
                break
        self.root_cut_bound = self.root_bound
        self.seconds["cuts"] += time.perf_counter() - t0
        self.root = res
        self.rounder.finish()

    def fix_pairs(self) -> None:
        """Reduced-cost fixing of record pairs (:class:`~mipagg.exact.fixing.PairFixing`)
        at the duals certifying the root bound after the cut rounds: a pair
        that cannot be together in a partition better than the incumbent is
        kept apart in the whole tree and in gap closing (run again after more
        cut rounds, it keeps the pairs fixed before)."""
        stop = self.root.stop
        if not self.settings.fixing or stop.bound is None or stop.duals is None:
            return
        t0, old = time.perf_counter(), self.fixer
        self.fixer = PairFixing(self.D, self.k)
        self.fixer.fix_root(stop.duals, stop.bound, self.rounder.best_sse, self.master.cuts,
                            stop.cut_duals, stop.count_penalty, self.ctx.none.sizes_out)
        if old is not None:             # fixed at earlier duals: still valid
            self.fixer.fixed |= old.fixed
        self.seconds["fixing"] += time.perf_counter() - t0

    def fix_root_columns(self, growth: float = 0.0, current=None) -> None:
        """Reduced-cost fixing of columns at the root (``column_fixing``): at
        the duals certifying the root bound L, every partition holding a
        cluster C costs at least L + w̄_C (:mod:`mipagg.exact.fixing`, the
        same argument as for pairs; cuts added since get σ = 0), so the
        columns with w̄_C > UB − L are in no partition as good as the
        incumbent and leave the master.  Pricing may bring one back; the
        bounds stay certified either way.  A node LP's iterations cost less
        over fewer columns (docs/bench/casc_gap.md §37).  The tree calls it
        again between nodes with ``growth`` = ``refix_growth``: it runs
        once the pool has grown by that share since the last time (the
        columns priced at nodes, §46).  It keeps the columns of the current
        basis and of the saved bases of the open nodes and of ``current``
        (the node about to be solved), and brings those bases to the new
        column indices, so that every child still starts from its parent's
        basis (§47)."""
        stop = self.root.stop
        if not self.settings.column_fixing or stop.bound is None or stop.duals is None \
                or len(self.master.columns) < (1.0 + growth) * self.pool_fixed:
            return
        t0, ub = time.perf_counter(), self.rounder.best_sse
        sigma = np.zeros(len(self.master.cuts))
        if stop.cut_duals is not None:
            sigma[:len(stop.cut_duals)] = stop.cut_duals
        drop = self.master.reduced_costs(stop.duals, sigma) > \
            ub - stop.bound + PairFixing.margin(ub)
        drop[self.master.basic_columns()] = False
        holders = self.nodes_with_bases(current)
        saved = {id(nd.basis): nd.basis for nd in holders}      # siblings share one
        drop[self.master.basic_in(saved.values())] = False
        self.rounder.finish()       # a rounding left pending refers to the columns as they are
        self.columns_fixed += self.master.drop_columns(drop)
        if saved:
            moved = {i: self.master.rebase(b) for i, b in saved.items()}
            for nd in holders:
                nd.basis = moved[id(nd.basis)]
        if self.fixer is not None:
            self.fixer.forget_columns()
        self.pool_fixed = len(self.master.columns)
        self.pool_at_mip = min(self.pool_at_mip, self.pool_fixed)
        self.seconds["fixing"] += time.perf_counter() - t0

    def nodes_with_bases(self, current=None) -> list:
        """The open nodes (none when the node selection cannot be iterated)
        and ``current`` that hold a saved basis."""
        nodes = list(self.open) if hasattr(self.open, "__iter__") else []
        nodes += [] if current is None else [current]
        return [nd for nd in nodes if nd.basis is not None]

    def dive_phase(self) -> None:
        """The diving heuristic (:func:`dive`) within ``dive_time`` (None: no clock)."""
        t0 = time.perf_counter()
        if self.dive_time != 0 and not self.closed(self.root_bound) and \
                self.root.solution is not None:
            end = earliest(None if self.dive_time is None else t0 + self.dive_time,
                            self.stop.deadline)
            self.master.use_algorithm(self.reopt_algorithm)     # columns fixed at 1
            self.dive_steps = dive(self.master, self.ctx, self.loop, self.rounder, self.X, end)
        self.seconds["dive"] = time.perf_counter() - t0

    def neighbourhood_phase(self) -> bool:
        """Exact neighbourhood search on the incumbent
        (:func:`~mipagg.exact.neighbourhood.exact_neighbourhood_search`:
        POPMUSIC with ``bp`` sub-problems, seed 0), with the sub-problem sizes
        of ``NEIGHBOURHOOD_GROUPS`` in turn, each until it converges, within
        ``neighbourhood_time`` (None: no clock, every sub-problem solved to
        optimality).  Whether it lowered the incumbent: then the cut rounds
        resume (:meth:`run`; their tail-off is measured against the gap) and
        the pairs are fixed again, and root gap closing enumerates fewer
        clusters."""
        t0, before = time.perf_counter(), self.rounder.best_sse
        if self.neighbourhood_time == 0 or self.closed(self.root_bound):
            return False
        end = earliest(None if self.neighbourhood_time is None
                        else t0 + float(self.neighbourhood_time), self.stop.deadline)
        for groups in NEIGHBOURHOOD_GROUPS:
            left = None if end is None else end - time.perf_counter()
            if left is not None and left < 0.5:
                break
            r = exact_neighbourhood_search(self.X, self.rounder.best, self.k, groups=groups,
                                           time_limit=left,
                                           move_time=None if end is None else 30.0,
                                           seed=0, threads=1)
            self.neighbourhood_solves += r.solved
            self.rounder.offer(r.partition)
            self.progress.update(phase="neighbourhood", groups=groups, solved=r.solved,
                                 lb=self.root_bound, ub=self.rounder.best_sse)
            if not r.converged or self.closed(self.root_bound):
                break
        self.seconds["neighbourhood"] = time.perf_counter() - t0
        if self.rounder.best_sse >= before:
            return False
        self.master.add_columns(self.rounder.best.groups())
        return True

    def close_root_gap(self) -> None:
        """Enumerate every cluster below UB − LB at the root's certified duals
        and solve the integer master over them (:mod:`mipagg.exact.bp`, "Gap
        closing at the root")."""
        t0, mip0 = time.perf_counter(), self.seconds["mip"]
        stop = self.root.stop
        if self.closed(self.root_bound):
            self.closed_by = "root"
        elif not self.settings.close_gap:
            self.gap_closing = "disabled"
        elif stop.reason == "converged" and stop.duals is not None and stop.bound is not None:
            self._close_root(stop, self.phase_deadline(t0, self.close_gap_time))
        else:
            self.gap_closing = "skipped"
        self.seconds["close_gap"] = time.perf_counter() - t0 - (self.seconds["mip"] - mip0)

    def phase_deadline(self, t0: float, seconds) -> float | None:
        """When a gap closing started at ``t0`` with its own budget of
        ``seconds`` (None: none) must stop; never after the run's deadline."""
        if seconds is None:
            return self.stop.deadline
        return self.stop.until(t0 + float(seconds)).deadline

    def _close_root(self, stop, deadline) -> None:
        """Gap closing at the root; a second attempt only after the pool MIP
        improved the incumbent."""
        for attempt in range(2):
            self._close_at_root(stop, deadline)
            if self.gap_closing == "optimal" or attempt == 1 or \
                    self.gap_closing not in RETRY_CLOSING:
                break
            before = self.rounder.best_sse
            self.pool_mip()
            if self.rounder.best_sse >= before or self.closed(self.root_bound):
                break

    def _close_at_root(self, stop, deadline) -> None:
        """One gap-closing attempt at the root's certified duals (``stop``)
        below the current incumbent."""
        cons = cut_constraints(self.master, self.n, stop.cut_duals, apart=self.root_fixed(),
                               sizes_out=self.ctx.none.sizes_out,
                               count_penalty=stop.count_penalty)
        rounder = self.rounder
        self.reclosed_at = rounder.best_sse
        self.gap_closing, opt, bound = close_gap_by_enumeration(
            self.D, self.X, self.k, stop.duals, rounder.best_sse - stop.bound + self.tol_abs,
            rounder.best, self.settings.close_gap_max_columns, deadline, constraints=cons,
            ctx=self.ctx, lower=stop.bound - self.tol_abs,
            partial_columns=self.settings.close_gap_partial, **self.closing_mip())
        if opt is not None:
            rounder.offer(opt)
        if self.gap_closing == "optimal":
            self.root_bound = max(self.root_bound, rounder.best_sse)
            self.closed_by = "gap_closing"
        elif bound is not None:
            self.root_bound = max(self.root_bound, min(bound, rounder.best_sse))
        if bound is not None:
            self.closing_bound = max(self.closing_bound, min(bound, rounder.best_sse))

    def reclose_root(self) -> None:
        """Root gap closing again, at the root's certified duals, once the
        tree has lowered the incumbent by ``RECLOSE_STEP`` of the root gap
        since the last attempt and that attempt failed for too many clusters
        or ran out of time (``reclose_root``): the clusters
        below UB − LB shrink fast with UB (a 300-record Census block at k = 5:
        3·10⁷ below the dive's incumbent, about 10⁵ below the tree's;
        docs/bench/casc_gap.md).  A success ends the tree (:attr:`proven`)."""
        stop, best = self.root.stop, self.rounder.best_sse
        if not self.settings.reclose_root or self.proven or stop.duals is None \
                or stop.bound is None or self.gap_closing not in RECLOSE_AFTER \
                or best > self.reclosed_at - max(self.tol_abs, RECLOSE_STEP * (
                    self.reclosed_at - stop.bound)):
            return
        t0, mip0 = time.perf_counter(), self.seconds["mip"]
        self._close_at_root(stop, self.phase_deadline(t0, self.close_gap_time))
        self.proven = self.gap_closing == "optimal"
        if self.proven:
            while len(self.open):
                self.open.pop()
        self.seconds["close_gap"] += time.perf_counter() - t0 - (self.seconds["mip"] - mip0)

    def closing_mip(self, node: bool = False, cut_duals=None) -> dict:
        """The gap-closing MIP's options (``close_gap_mip``): from
        ``PRESOLVE_MIN_N`` records, HiGHS presolve and the master's cuts as rows.
        On Census block 600-899 at k = 5 (81 237 clusters) that MIP is proven
        in 322-330 s with both, 385 s with presolve alone, and not in 600 s
        without presolve; on blocks of 100 and 200 records every variant takes
        under 5 s; below 100 records presolve overran tight limits
        (docs/bench/cg.md, docs/bench/casc_gap.md).  At a tree ``node``,
        also ``node_close_restart``, and with ``node_close_cuts`` "tight" only
        the cuts whose dual in ``cut_duals`` (the node's) is nonzero
        (:func:`~mipagg.exact.nodeclosing.tight_cuts`)."""
        mode = self.settings.close_gap_mip
        if mode == "auto":
            mode = "presolve" if self.n >= PRESOLVE_MIN_N else "plain"
        opts: dict = {"presolve": "off", "cuts": ()} if mode == "plain" else \
            {"presolve": "on", "cuts": self.master.cuts}
        if node:
            opts["restart"] = self.settings.node_close_restart
            if opts["cuts"] and self.settings.node_close_cuts == "tight":
                opts["cuts"] = tight_cuts(opts["cuts"], cut_duals)
        return opts

    @property
    def mip_on(self) -> bool:
        """Whether the pool MIP runs at all (``mip_time``/``mip_nodes`` not 0)."""
        return self.mip_time != 0 and self.mip_nodes != 0

    def pool_mip(self, share: float = 1.0, least: float = 0.5) -> None:
        """Price-and-branch: the integer master over the column pool
        (:func:`_pool_mip`) within ``mip_time`` and ``mip_nodes``, and at
        most ``share`` of the time left; skipped when under ``least`` seconds
        would be left for it."""
        t0 = time.perf_counter()
        self.pool_mip_done = True
        left = self.stop.left()
        seconds = earliest(self.mip_time, None if left is None else share * left)
        if seconds is None or seconds > least:
            _pool_mip(self.master, self.rounder, self.X, self.k, seconds, self.mip_nodes)
        self.seconds["mip"] += time.perf_counter() - t0


def earliest(a: float | None, b: float | None) -> float | None:
    """The smaller of two limits, None standing for no limit."""
    return b if a is None else a if b is None else min(a, b)


def _pool_mip(master, rounder, X, k, seconds, nodes):
    """Price-and-branch: the integer master over every pooled column and the
    incumbent's groups (HiGHS MIP within ``seconds`` and ``nodes``, None: no
    such limit); offers the result."""
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
    status, _, chosen = set_partitioning_mip(master.n, columns, weights, time_limit=seconds,
                                             node_limit=nodes, start=start)
    if chosen is not None:
        p = Partition.from_groups([columns[j] for j in chosen], X)
        if p.is_feasible(k):
            rounder.offer(p)
    return status
