"""Column generation for microaggregation: MicroaggregationHeuristicMP.

Seed 001 section 5: the restricted master LP (9) is solved (master phase),
its fractional solution is rounded by SimpleRoundingHeuristic and
RoundingMSTHeuristic, and its duals feed the PricingProblem routine of
section 5.1 (heuristic pricing first, then exact pricing chosen by Table 2
or by the rule measured for this package).  On top of the seed, this module

* computes a certified Farley-type Lagrangian bound whenever pricing was exact
  for every cluster size and stops as soon as it closes the gap (to the LP
  value or to the best SSE) within ``gap_tol``;
* optionally smooths the duals (Wentges smoothing towards the duals with the
  best Lagrangian bound), falling back to the true duals on a mispricing, so
  optimality is only ever concluded from pricing at the master duals;
* honours ``time_limit`` and ``max_iterations``, returning the best partition
  and only a certified bound (or none);
* closes a remaining gap exactly when it is cheap: every cluster whose reduced
  cost at the certified duals is below UB − LB is enumerated and the integer
  master over them is solved (reduced-cost column enumeration; any better
  partition can only use such clusters, since SSE(π) = Σλ + Σ_{C∈π} w̄_C).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..interrupts import stoppable
from ..partition import Partition
from ..status import Status, StatusResult, summary_fields
from ..validation import as_rows, check_k
from .aggregation import AggregationResult, aggregated_root
from .bounds import gap, neighbour_bound
from .gapclosing import close_gap_by_enumeration
from .master import MasterProblem, squared_distances
from .node import IterationLog, solve_node
from .pricing.rounds import PricingContext, PricingRound, pricing_round, table2_exact_mode
from .restriction import restriction
from .rounding import distance_pair_order, rounding_mst, simple_rounding
from .settings import (
    PARTIAL_COLUMNS,
    PRICING_MODES,
    ROUNDINGS,
    STABILIZATIONS,
    WENTGES_MIN_K,
    CGSettings,
    StopCriterion,
    aggregation_on,
    auto_max_columns,
    interrupted,
    merge_settings,
    resolve_lp_algorithm,
)

__all__ = ["column_generation", "ColumnGenerationResult", "ColumnGeneration", "CGSettings",
           "IterationLog", "table2_exact_mode", "pricing_round", "PricingRound",
           "default_threads", "Rounder", "initial_partition", "neighbour_columns",
           "auto_max_columns", "PRICING_MODES", "STABILIZATIONS", "WENTGES_MIN_K", "ROUNDINGS"]


def default_threads() -> int:
    """Threads for the exact pricing: the cores this process may use, at most 8."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


@dataclass
class ColumnGenerationResult(StatusResult):
    """Outcome of :func:`column_generation`.

    ``status``: "optimal" (the best partition is proven optimal within
    ``gap_tol``), "converged" (master LP solved over all clusters, or the
    Lagrangian bound reached its value within ``gap_tol``; the bound is
    certified but the partition may not be optimal), "heuristic_converged"
    (heuristic pricing found no more columns: no certified bound),
    "not_certified" (an exact pricing call failed, e.g. the ILP solver gave
    up, so the LP value is not proven; the bound is the best Lagrangian one),
    "time_limit" (in the loop, or in gap closing after convergence: then
    ``bound_source`` is "lp", or "enumeration" when the interrupted MIP
    proved more), "iteration_limit".  ``lower_bound`` is always certified or
    ``None``; ``bound_source`` says where it came from ("lp": converged master,
    "lagrangian": Farley bound at exactly priced duals, "enumeration": gap
    closed by the MIP over all clusters of small reduced cost, so it equals
    the optimum, or on a time limit the MIP's dual bound, valid because every
    partition better than the best one uses only enumerated clusters,
    "partial_closing": the bound of a partial gap closing, ``close_gap_partial``).
    ``lp_bound`` is the certified bound before gap closing.  When a time
    or iteration limit stops the loop before pricing certified anything, the
    bound is :func:`~mipagg.exact.bounds.neighbour_bound` ("neighbour": free
    and weak).  ``seconds`` has
    the time per phase and ``overrun``: seconds past ``time_limit`` at return
    (0 when none or in time; steps that do not check the clock, such as one
    rounding pass or a HiGHS call, can overrun by a fraction of a second).
    """

    partition: Partition
    sse: float
    lower_bound: float | None
    bound_source: str | None
    status: Status
    exact: bool
    lp_value: float | None    # last master LP value (not a bound unless certified)
    lp_bound: float | None    # certified LP/Lagrangian bound before gap closing
    iterations: int
    columns: list
    sse_mdav: float
    sse_vmdav: float
    sse_srh: float | None
    sse_msth: float | None
    log: list
    seconds: dict
    pricing: str = "auto"
    stabilization: str | None = None
    integral_master: bool = False     # the last master LP solution was integral
    gap_closing: str = "not_needed"   # "not_needed" | "optimal" | "too_many_columns" |
                                      # "partial" | "time_limit" | "skipped" | "disabled" |
                                      # HiGHS status
    threads: int = 1
    lp_algorithm: str = "primal"
    aggregation: dict | None = None  # the root's aggregated phase (mipagg.exact.aggregation)

    def __post_init__(self):
        self.status = Status(self.status)

    @property
    def gap(self) -> float | None:
        return gap(self.sse, self.lower_bound)

    def gaps(self) -> dict:
        """Formula (15) gaps (%) of MDAV, V-MDAV, MSTH, SRH and the best solution."""
        lb = self.lower_bound
        return {"gap_mdav": gap(self.sse_mdav, lb), "gap_vmdav": gap(self.sse_vmdav, lb),
                "gap_msth": gap(self.sse_msth, lb), "gap_srh": gap(self.sse_srh, lb),
                "gap": gap(self.sse, lb)}

    def summary(self) -> dict:
        out = summary_fields(self, ("lower_bound", "bound_source", "status", "exact",
                                    "lp_value", "lp_bound", "iterations"))
        out["columns"] = len(self.columns)
        out.update(summary_fields(self, ("sse_mdav", "sse_vmdav", "sse_msth", "sse_srh")))
        out.update(self.gaps())
        out.update(summary_fields(self, ("pricing", "stabilization", "gap_closing",
                                         "integral_master", "threads", "lp_algorithm",
                                         "aggregation")))
        out.update({f"time_{k}": v for k, v in self.seconds.items()})
        out.update(success=self.success, message=self.message)
        return out


def initial_partition(initial, X, k) -> Partition:
    """``initial`` (labels or a Partition) as a k-feasible Partition of X."""
    if isinstance(initial, Partition):
        p = Partition(initial.labels, X)
    else:
        p = Partition(np.asarray(initial), X)
    if not p.is_feasible(k):
        raise ParameterError(f"the initial partition has a group smaller than k = {k}")
    return p


POLISH_MEMO = 32       # polish results a Rounder remembers


class Rounder:
    """Steps 5(b)-(c) of MicroaggregationHeuristicMP (seed 001 §5.2) as a
    callback for :func:`~mipagg.exact.node.solve_node`: the partition of an
    integral master solution, else SimpleRoundingHeuristic and (if feasible)
    RoundingMSTHeuristic; every result has its groups of 2k or more split
    (Proposition 2.2, :func:`mipagg.improve.split_large_groups`) and the best
    is kept.  ``schedule="every"`` rounds every master solution (the seed);
    ``"adaptive"`` (default) rounds the first three and then only while
    at most a ``share`` of the master solutions seen were rounded (rounding
    is O(n² log n) per call and dominated large runs; counted, not timed,
    so that a run is reproducible whatever the machine's load); :meth:`finish` rounds
    the last solution if it was skipped.  ``polish``: an optional function
    applied to every candidate within 2 % of the best before comparing
    (branch-and-price passes the local search of :mod:`mipagg.improve`); it
    must be deterministic: the last ``POLISH_MEMO`` results are remembered
    by their input, so a partition offered again (a tree's node closings
    offer the incumbent over and over) is not polished again (``polish_hits``
    counts those; docs/bench/casc_gap.md §85)."""

    def __init__(self, X, D, k, best: Partition, *, schedule="adaptive", share=0.15,
                 polish=None):
        self.X, self.D, self.k = X, D, k
        self.best, self.best_sse = best, best.sse()
        self.schedule, self.share = schedule, share
        self.sse_srh = self.sse_msth = None
        self.integral = False
        self.seconds = 0.0
        self.calls = 0
        self.seen = 0       # master solutions offered (rounded or not)
        self.start = time.perf_counter()
        self._pair_order = None
        self._pending = None
        self.polish = polish
        self._polished: dict[bytes, Partition] = {}     # input labels → polish's result
        self.polish_hits = 0
        self.rejected = 0
        if polish is not None:
            self.best = polish(best)
            self.best_sse = self.best.sse()

    def offer(self, p: Partition) -> bool:
        """Keep ``p`` (after splitting large groups) if it beats the best; a
        partition with a group smaller than k is never kept (``rejected``
        counts them: none is expected from the rounding heuristics)."""
        from ..refine import split_large_groups

        if p.sizes.min() < self.k:
            self.rejected += 1
            return False
        if p.sizes.max() >= 2 * self.k:
            p = split_large_groups(self.X, p, self.k)
        s = p.sse()
        if self.polish is not None and s < 1.02 * self.best_sse:
            p = self.polished(p)
            s = p.sse()
        if s < self.best_sse:
            self.best, self.best_sse = p, s
            return True
        return False

    def polished(self, p: Partition) -> Partition:
        """``polish(p)``, looked up first among the last ``POLISH_MEMO`` results."""
        key = p.labels.tobytes()
        q = self._polished.get(key)
        if q is not None:
            self.polish_hits += 1
            return q
        q = self.polish(p)
        if len(self._polished) >= POLISH_MEMO:
            del self._polished[next(iter(self._polished))]     # the oldest
        self._polished[key] = q
        return q

    def due(self) -> bool:
        if self.schedule == "every" or self.calls < 3:
            return True
        return self.calls <= self.share * self.seen

    def __call__(self, master, sol):
        self.seen += 1
        if not self.due():
            self._pending = (master, sol)
            return None
        self._pending = None
        t0 = time.perf_counter()
        self.calls += 1
        x = sol.x
        columns = master.columns[:x.size]   # columns added after this solve are not in x
        if sol.artificial <= 1e-9 and np.all((x < 1e-6) | (x > 1 - 1e-6)):
            self.integral = True
            self.offer(Partition.from_groups([columns[j] for j in np.flatnonzero(x > 0.5)],
                                             self.X))
        else:
            self.integral = False
            if self._pair_order is None:
                self._pair_order = distance_pair_order(self.D)
            p = simple_rounding(self.X, columns, x, self.k, weights=master.weights[:x.size])
            s = p.sse()
            self.sse_srh = s if self.sse_srh is None else min(self.sse_srh, s)
            self.offer(p)
            q = rounding_mst(self.X, columns, x, self.k, D=self.D, pair_order=self._pair_order)
            if q is not None:
                s = q.sse()
                self.sse_msth = s if self.sse_msth is None else min(self.sse_msth, s)
                self.offer(q)
        self.seconds += time.perf_counter() - t0
        return self.best_sse

    def finish(self):
        """Round the last master solution if the schedule skipped it."""
        if self._pending is not None:
            master, sol = self._pending
            self.schedule, saved = "every", self.schedule
            self(master, sol)
            self.schedule = saved


def column_generation(X, k, *, pricing="auto", time_limit=None, max_iterations=None,
                      stabilization="auto", alpha=0.5, lagrangian="auto", gap_tol=1e-6,
                      initial=None, max_columns="auto", gamma=0.2, exact_rule="measured",
                      close_gap=True, close_gap_max_columns=100_000,
                      close_gap_partial=PARTIAL_COLUMNS, threads=None, rounding="adaptive",
                      lp_algorithm="auto", warm_start=None, aggregation="auto", size_chain=False,
                      settings=None,
                      verbose=False) -> ColumnGenerationResult:
    """Column generation for microaggregation with rounding: seed 001 section 5.2
    (MicroaggregationHeuristicMP) plus a certified Lagrangian stop and an
    optional exact gap-closing step.

    Parameters
    ----------
    X : (n, p) standardized data.  k : minimum group size.
    pricing : "auto" (section 5.1 PricingProblem: heuristic, then an exact
        routine chosen by ``exact_rule``), "heuristic" (SolveHeuristicPricing
        only; no certified bound), "enumeration" or "ilp" (that exact routine).
    exact_rule : "table2" (seed 001 Table 2: ILP for η ≥ 7, and η = 6 beyond
        100 records) or "measured" (default: the rule measured for this
        package's codes, :func:`mipagg.exact.pricing.exact_mode`; the
        branch-and-bound enumeration beats the ILP everywhere measured, see
        docs/bench/cg.md).
    time_limit, max_iterations : stop early with the best partition and the
        best certified bound so far (status "time_limit"/"iteration_limit").
    stabilization : "auto" (default), None, "wentges" or "neame".  "wentges":
        price at α·center + (1−α)·λ, center = the duals with the best
        Lagrangian bound, at first the neighbour duals
        (:func:`~mipagg.exact.bounds.neighbour_duals`, dual feasible, so
        every smoothed pricing is exact pricing near a certified point); on a
        mispricing re-price at the master duals λ, so optimality is only
        concluded at λ.
        "neame": smoothing for the heuristic pricing only (pricing "auto" or
        "heuristic"; otherwise as "wentges" with center = the last priced
        duals): heuristic pricing at α·center + (1−α)·λ with center the
        previous smoothed duals (exponential smoothing, Neame 1999, as
        surveyed by Pessoa et al. 2018), and only when that yields no column
        with negative reduced cost at λ the ordinary pricing (heuristic, then
        exact) at λ.  alpha : smoothing weight, or "auto" (Wentges only):
        start at 0.5 and adapt it every iteration by the supergradient rule
        of Pessoa et al.  All three schemes were measured slower than no
        stabilization on the paper instances (docs/bench/cg.md), but on the
        full CASC files at k = 10 only Wentges gives a useful certified bound
        (docs/bench/cg_full.md): "auto" is Wentges with adaptive α (``alpha``
        ignored) for k ≥ ``WENTGES_MIN_K`` = 10, no stabilization below.
    lagrangian : when an iteration calls exact pricing, price every size
        exactly so the Lagrangian bound is certified (an anytime bound under
        ``time_limit``), and stop when it is within ``gap_tol`` (relative) of
        the LP value or of the best SSE.  ``False`` is the seed's routine
        (stop at the first size with columns).  ``"auto"`` (default): True
        when ``time_limit`` or ``max_iterations`` is given.
    initial : an extra k-feasible partition (labels or Partition) whose groups
        seed the master, next to those of MDAV and V-MDAV (``gamma``).
    max_columns : columns per pricing call, or "auto" (default):
        max(10, n // (2k)), measured on the full Census file (k = 5: 35 s
        with 10, 10 s with 100; docs/bench/cg.md).
    close_gap : after convergence with a gap, enumerate every cluster whose
        reduced cost at the certified duals is below UB − LB and solve the
        integer problem over them (HiGHS MIP): on success the best partition
        is proven optimal (``bound_source="enumeration"``).  Skipped when more
        than ``close_gap_max_columns`` clusters qualify.  Both steps honour
        ``time_limit``.
    close_gap_partial : when more than ``close_gap_max_columns`` clusters
        qualify, close the gap partially over at most this many (default
        ``PARTIAL_COLUMNS`` = 2 000; 0: off): the MIP over the clusters
        below the largest reduced cost τ that fits certifies min(its
        optimum, LB + τ) and proves its optimum when that lies below LB + τ
        (:mod:`mipagg.exact.gapclosing`; ``gap_closing="partial"``,
        ``bound_source="partial_closing"``; docs/bench/partial_closing.md).
    threads : threads of the exact pricing search (default: the cores
        available, :func:`default_threads`); the bound does not depend on it.
    rounding : "adaptive" (default, see :class:`Rounder`) or "every" (the
        seed: SRH and MSTH after every master solve).
    lp_algorithm : the master's LP method, "primal", "dual", "ipm" or "auto"
        (primal simplex warm-started from the last basis: on the full Census
        file at k = 10 its master solves took 74 s in total against 176 s
        with IPX in the same time budget, and IPX was slower at k = 5 too;
        docs/bench/cg_full.md).
    warm_start : None (default) or "neighbours": also seed the master with
        every record and its η − 1 nearest neighbours for η = k..2k−1
        (:func:`neighbour_columns`, n·k columns).
    aggregation : before the root's column generation, the aggregated phase
        of :mod:`mipagg.exact.aggregation` from the best initial partition's
        groups ("on"; needs exact pricing), not ("off"), or "auto": "on" from
        ``AGGREGATION_MIN_K`` = 10 unless ``pricing`` is "heuristic"
        (docs/bench/aggregation.md).
    size_chain : the least reduced cost per record of a cluster larger than
        k is at least that of size k where no together pair and no cut
        penalty applies (all of ``cg``;
        :func:`~mipagg.exact.pricing.rounds.size_chain`), so size k's exact
        search alone certifies the Lagrangian bound.  A round that finds no
        negative cluster of size k ends there in any case; with
        ``size_chain`` the larger sizes are not searched exactly when it
        found some either (the heuristic still prices them).  The bound is
        the same, with one exact search per round instead of k, but fewer
        columns per round: Census k = 10 1.08× faster for 2.1× the
        iterations, k = 5 the same time (docs/bench/cg_full.md).  Off by
        default.
    settings : a :class:`~mipagg.exact.settings.CGSettings` (or a dict, e.g.
        a TOML table) holding these options at once; keyword options that
        differ from their defaults override it.
    verbose : progress lines on stderr (:class:`mipagg.progress.Progress`).

    Each iteration costs one warm LP solve, the rounding when due
    (O(m s + n² log n) for m columns of size ≤ s) and the pricing
    (exponential in the worst case for the exact routines).

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.], [20.], [21.], [23.]])
    >>> r = column_generation(X, 3, pricing="enumeration")
    >>> str(r.status), round(r.sse, 4), round(r.lower_bound, 4), r.success
    ('optimal', 8.6667, 8.6667, True)
    """
    settings = merge_settings(CGSettings, settings, dict(
        pricing=pricing, time_limit=time_limit, max_iterations=max_iterations,
        stabilization=stabilization, alpha=alpha, lagrangian=lagrangian, gap_tol=gap_tol,
        max_columns=max_columns, gamma=gamma, exact_rule=exact_rule, close_gap=close_gap,
        close_gap_max_columns=close_gap_max_columns, close_gap_partial=close_gap_partial,
        threads=threads, rounding=rounding,
        lp_algorithm=lp_algorithm, warm_start=warm_start, aggregation=aggregation,
        size_chain=size_chain))
    with stoppable():   # Ctrl-C under graceful_stops: status "interrupted"
        return ColumnGeneration(X, k, settings, initial=initial, verbose=verbose).run()


class ColumnGeneration:
    """One run of ``cg``: the root of the search tree, without cuts or tree
    (:class:`~mipagg.exact.bp.BranchAndPrice` extends it with both).

    The state of the run is held in fields: the data (``X``, ``D``, ``n``,
    ``k``), the pricing context ``ctx``, the restricted ``master``, the
    ``rounder`` (incumbent), the ``stop`` criterion and the resolved
    ``loop`` options.  Phases: :meth:`start` (initial heuristics and
    columns), :meth:`root_column_generation`, :meth:`close_root_gap`, then
    :meth:`result`; :meth:`run` does them in order."""

    name = "cg"

    def __init__(self, X, k, settings: CGSettings, *, initial=None, verbose=False):
        from ..progress import Progress

        self.t_start = time.perf_counter()
        self.X = as_rows(X)
        self.n = self.X.shape[0]
        self.k = check_k(k, self.n)
        self.settings = settings
        self.loop = settings.loop(self.n, self.k)
        self.algorithm = resolve_lp_algorithm(settings.lp_algorithm)
        self.stop = StopCriterion.start(settings.time_limit,
                                        max_iterations=getattr(settings, "max_iterations", None),
                                        gap_tol=settings.gap_tol, now=self.t_start)
        self.D = squared_distances(self.X)
        threads = settings.threads
        # a run restricted to one side of a split proof (bp's max_groups, max_size)
        self.count_limit, sizes_out = restriction(
            self.n, self.k, getattr(settings, "max_groups", None),
            getattr(settings, "max_size", None), getattr(settings, "count_row", False))
        self.ctx = PricingContext(self.D, self.k, sizes_out=sizes_out,
                                  threads=default_threads() if threads is None else threads)
        self.progress = Progress(self.name, enabled=verbose)
        self.iterations = 0
        self.seconds: dict = {}
        self.aggregated: AggregationResult | None = None   # the root's aggregated phase
        self.start(initial)

    # ------------------------------------------------------------ phases

    def start(self, initial) -> None:
        """Steps 1-4 of MicroaggregationHeuristicMP: MDAV, V-MDAV, the best of
        them, the initial columns (plus ``initial`` and the warm start)."""
        from ..heuristics.mdav import mdav_groups
        from ..heuristics.vmdav import vmdav

        X, k, st = self.X, self.k, self.settings
        self.master = MasterProblem(X, self.D, algorithm=self.algorithm)
        groups_mdav = mdav_groups(X, k)
        self.p_mdav = Partition.from_groups(groups_mdav, X)
        self.master.add_columns(groups_mdav)
        self.p_vmdav = vmdav(X, k, gamma=st.gamma)
        self.master.add_columns(self.p_vmdav.groups())
        self.rounder = Rounder(X, self.D, k, self.p_mdav, schedule=st.rounding)
        self.rounder.offer(self.p_vmdav)
        if initial is not None:
            p0 = initial_partition(initial, X, k)
            self.master.add_columns(p0.groups())
            self.rounder.offer(p0)
        if st.warm_start == "neighbours":
            self.master.add_columns(neighbour_columns(self.D, k))

    def solve(self, cons, *, cutoff=None, progress=None, start_iteration=0, loop=None):
        """Column generation at one node (:func:`~mipagg.exact.node.solve_node`)
        with the run's master, context, loop options (or ``loop``) and stop
        criterion."""
        return solve_node(self.master, self.ctx, cons, loop or self.loop, stop=self.stop,
                          cutoff=cutoff,
                          on_solution=lambda sol: self.rounder(self.master, sol),
                          best_sse=self.rounder.best_sse, progress=progress,
                          start_iteration=start_iteration)

    def aggregation_on(self) -> bool:
        """Whether the root starts with the aggregated phase (``aggregation``;
        "auto": from ``AGGREGATION_MIN_K``, with exact pricing)."""
        return aggregation_on(self.settings.aggregation, self.k,
                              getattr(self.settings, "pricing", "auto"))

    def aggregated_phase(self) -> float | None:
        """The aggregated phase (:func:`~mipagg.exact.aggregation.aggregated_root`,
        from the incumbent's groups) when it is on; its columns go to the
        master.  Returns its certified bound, or None."""
        if not self.aggregation_on():
            return None
        agg = aggregated_root(self.master, self.ctx, self.rounder.best.groups(), self.loop,
                              deadline=self.stop.deadline, progress=self.progress)
        self.aggregated, self.seconds["aggregation"] = agg, agg.seconds
        return agg.bound

    def root_column_generation(self) -> None:
        """Column generation at the root to convergence or a limit, after the
        aggregated phase when it is on; sets ``root`` (the node result),
        ``status``, ``lower_bound`` and ``bound_source`` (the neighbour bound
        when pricing certified nothing)."""
        agg_bound = self.aggregated_phase()
        res = self.solve(self.ctx.none, progress=self.progress)
        self.iterations += res.iterations
        self.root = res
        t0 = time.perf_counter()
        self.rounder.finish()
        res.seconds["rounding"] += time.perf_counter() - t0
        stop = res.stop
        self.status = {"cutoff": "converged"}.get(stop.reason, stop.reason)
        self.lower_bound, self.bound_source = stop.bound, stop.bound_source
        if stop.bound is None and self.status in ("time_limit", "iteration_limit"):
            # nothing certified by pricing yet: the pricing-free bound of last resort
            self.lower_bound = neighbour_bound(self.D, self.k, self.ctx.edge_sums)
            self.bound_source = "neighbour"
        if agg_bound is not None and (self.lower_bound is None or agg_bound > self.lower_bound):
            self.lower_bound, self.bound_source = agg_bound, "lagrangian"

    def close_root_gap(self) -> None:
        """Beyond the seed: close the remaining gap by enumerating every cluster
        whose reduced cost at the certified duals is below UB − LB and solving
        the integer set-partitioning problem over them (plus the best
        partition's groups); sets ``gap_closing`` and maybe a better bound."""
        st, stop, rounder = self.settings, self.root.stop, self.rounder
        best_lb, best_sse = self.lower_bound, rounder.best_sse
        self.lp_bound, self.gap_closing, t_close = best_lb, "not_needed", 0.0
        if best_lb is not None and not self.stop.meets(best_lb, best_sse):
            self.gap_closing = "disabled" if not st.close_gap else "skipped"
            if st.close_gap and self.status == "converged":
                t0 = time.perf_counter()
                if self.stop.expired(t0):
                    self.gap_closing = "time_limit"
                else:
                    tol = self.n * self.ctx.tol
                    self.gap_closing, opt, bound = close_gap_by_enumeration(
                        self.D, self.X, self.k, stop.duals, best_sse - best_lb + tol,
                        rounder.best, st.close_gap_max_columns, self.stop.deadline,
                        ctx=self.ctx, lower=stop.bound - tol,
                        partial_columns=st.close_gap_partial)
                    if opt is not None and opt.sse() < best_sse:
                        rounder.best, rounder.best_sse = opt, opt.sse()
                    if bound is not None and bound > best_lb:
                        self.lower_bound = min(bound, rounder.best_sse)
                        self.bound_source = ("partial_closing" if self.gap_closing == "partial"
                                             else "enumeration")
                t_close = time.perf_counter() - t0
        self.seconds["close_gap"] = t_close

    def result(self) -> ColumnGenerationResult:
        rounder, res = self.rounder, self.root
        best_lb, best_sse = self.lower_bound, rounder.best_sse
        exact = best_lb is not None and self.stop.meets(best_lb, best_sse)
        status = self.status
        if exact and status == "converged":
            status = "optimal"
        elif self.gap_closing == "time_limit":
            status = "time_limit"
        status = interrupted(status)
        total = time.perf_counter() - self.t_start
        self.progress.done(status=status, bound=best_lb, best=best_sse)
        return ColumnGenerationResult(
            partition=rounder.best, sse=best_sse, lower_bound=best_lb,
            bound_source=self.bound_source, status=status, exact=exact,
            lp_value=res.stop.lp_value, lp_bound=self.lp_bound, iterations=res.iterations,
            columns=list(self.master.columns), sse_mdav=self.p_mdav.sse(),
            sse_vmdav=self.p_vmdav.sse(), sse_srh=rounder.sse_srh, sse_msth=rounder.sse_msth,
            log=res.log,
            seconds={**res.seconds, **self.seconds, "total": total,
                     "overrun": self.stop.overrun(total)},
            gap_closing=self.gap_closing, integral_master=rounder.integral,
            pricing=self.settings.pricing, stabilization=self.loop.stabilization,
            threads=self.ctx.threads, lp_algorithm=self.algorithm,
            aggregation=None if self.aggregated is None else self.aggregated.as_dict())

    def run(self) -> ColumnGenerationResult:
        self.root_column_generation()
        self.close_root_gap()
        return self.result()


def neighbour_columns(D, k, sizes=None) -> list:
    """Warm-start columns: every record with its η − 1 nearest neighbours, for
    each size η (default k..2k−1).  n·k clusters; O(n² log n)."""
    n = D.shape[0]
    sizes = range(k, min(2 * k, n + 1)) if sizes is None else sizes
    order = np.argsort(D + np.diag(np.full(n, -1.0)), axis=1, kind="stable")
    return [order[v, :eta] for eta in sizes for v in range(n)]
