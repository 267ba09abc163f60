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
from ..heuristics._common import as_rows
from ..partition import Partition
from ..univariate import check_k
from .bounds import gap, neighbour_bound
from .master import LP_ALGORITHMS, MasterProblem, cluster_weight, squared_distances
from .node import CGSettings, IterationLog, solve_node
from .pricing.rounds import PricingContext, PricingRound, pricing_round, table2_exact_mode
from .rounding import distance_pair_order, rounding_mst, simple_rounding

__all__ = ["column_generation", "ColumnGenerationResult", "IterationLog", "table2_exact_mode",
           "pricing_round", "PricingRound", "default_threads", "Rounder"]

PRICING_MODES = ("auto", "heuristic", "enumeration", "ilp")
STABILIZATIONS = (None, "wentges", "neame", "auto")
WENTGES_MIN_K = 10     # stabilization="auto": Wentges from this k on (docs/bench/cg_full.md)
ROUNDINGS = ("adaptive", "every")


def default_threads() -> int:
    """Threads for the exact pricing: the cores this process may use, at most 8."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


@dataclass
class ColumnGenerationResult:
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
    partition better than the best one uses only enumerated clusters).
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
    status: str
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
                                      # "time_limit" | "skipped" | "disabled" | HiGHS status
    threads: int = 1
    lp_algorithm: str = "primal"

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
        return {"lower_bound": self.lower_bound, "bound_source": self.bound_source,
                "status": self.status, "exact": self.exact, "lp_value": self.lp_value,
                "lp_bound": self.lp_bound,
                "iterations": self.iterations, "columns": len(self.columns),
                "sse_mdav": self.sse_mdav, "sse_vmdav": self.sse_vmdav,
                "sse_msth": self.sse_msth, "sse_srh": self.sse_srh, **self.gaps(),
                "pricing": self.pricing, "stabilization": self.stabilization,
                "gap_closing": self.gap_closing, "integral_master": self.integral_master,
                "threads": self.threads, "lp_algorithm": self.lp_algorithm,
                **{f"time_{k}": v for k, v in self.seconds.items()}}


def _initial_partition(initial, X, k) -> Partition:
    if isinstance(initial, Partition):
        p = Partition(initial.labels, X)
    else:
        p = Partition(np.asarray(initial), X)
    if not p.is_feasible(k):
        raise ParameterError(f"the initial partition has a group smaller than k = {k}")
    return p


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
    (branch-and-price passes the local search of :mod:`mipagg.improve`)."""

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
        self.rejected = 0
        if polish is not None:
            self.best = polish(best)
            self.best_sse = self.best.sse()

    def offer(self, p: Partition) -> bool:
        """Keep ``p`` (after splitting large groups) if it beats the best; a
        partition with a group smaller than k is never kept (``rejected``
        counts them: none is expected from the rounding heuristics)."""
        from ..improve import split_large_groups

        if p.sizes.min() < self.k:
            self.rejected += 1
            return False
        if p.sizes.max() >= 2 * self.k:
            p = split_large_groups(self.X, p, self.k)
        s = p.sse()
        if self.polish is not None and s < 1.02 * self.best_sse:
            p = self.polish(p)
            s = p.sse()
        if s < self.best_sse:
            self.best, self.best_sse = p, s
            return True
        return False

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
                      close_gap=True, close_gap_max_columns=100_000, threads=None,
                      rounding="adaptive", lp_algorithm="auto", warm_start=None,
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
    verbose : progress lines on stderr (:class:`mipagg.progress.Progress`).

    Each iteration costs one warm LP solve, the rounding when due
    (O(m s + n² log n) for m columns of size ≤ s) and the pricing
    (exponential in the worst case for the exact routines).

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.], [1.], [2.], [10.], [11.], [12.], [20.], [21.], [23.]])
    >>> r = column_generation(X, 3, pricing="enumeration")
    >>> r.status, round(r.sse, 4), round(r.lower_bound, 4)
    ('optimal', 8.6667, 8.6667)
    """
    from ..heuristics.mdav import mdav_groups
    from ..heuristics.vmdav import vmdav
    from ..progress import Progress

    t_start = time.perf_counter()
    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    settings = _settings(pricing, stabilization, alpha, lagrangian, time_limit, max_iterations,
                         exact_rule, auto_max_columns(max_columns, n, k), gap_tol, k)
    if rounding not in ROUNDINGS:
        raise ParameterError(f"rounding must be one of {ROUNDINGS}, got {rounding!r}")
    algorithm = _lp_algorithm(lp_algorithm, k)
    deadline = None if time_limit is None else t_start + float(time_limit)
    D = squared_distances(X)
    ctx = PricingContext(D, k, threads=default_threads() if threads is None else threads)
    tol = ctx.tol

    # steps 1-4: MDAV, V-MDAV, best of them, initial columns
    master = MasterProblem(X, D, algorithm=algorithm)
    groups_mdav = mdav_groups(X, k)
    p_mdav = Partition.from_groups(groups_mdav, X)
    master.add_columns(groups_mdav)
    p_vmdav = vmdav(X, k, gamma=gamma)
    master.add_columns(p_vmdav.groups())
    rounder = Rounder(X, D, k, p_mdav, schedule=rounding)
    rounder.offer(p_vmdav)
    if initial is not None:
        p0 = _initial_partition(initial, X, k)
        master.add_columns(p0.groups())
        rounder.offer(p0)
    if warm_start == "neighbours":
        master.add_columns(neighbour_columns(D, k))
    elif warm_start is not None:
        raise ParameterError(f"warm_start must be None or 'neighbours', got {warm_start!r}")
    progress = Progress("cg", enabled=verbose)
    res = solve_node(master, ctx, ctx.none, settings, deadline=deadline,
                     max_iterations=max_iterations, on_solution=lambda sol: rounder(master, sol),
                     best_sse=rounder.best_sse, progress=progress)
    t0 = time.perf_counter()
    rounder.finish()
    res.seconds["rounding"] += time.perf_counter() - t0
    stop = res.stop
    status = {"cutoff": "converged"}.get(stop.reason, stop.reason)
    best_lb, bound_source = stop.bound, stop.bound_source
    if stop.bound is None and status in ("time_limit", "iteration_limit"):
        # nothing certified by pricing yet: the pricing-free bound of last resort
        best_lb, bound_source = neighbour_bound(D, k, ctx.edge_sums), "neighbour"

    # beyond the seed: close the remaining gap by enumerating every cluster whose
    # reduced cost at the certified duals is below UB − LB and solving the integer
    # set-partitioning problem over them (plus the best partition's groups)
    best, best_sse = rounder.best, rounder.best_sse

    def close(a, b):
        return a >= b - gap_tol * max(abs(b), 1e-12)

    gap_closing, t_close, lp_bound = "not_needed", 0.0, best_lb
    if best_lb is not None and not close(best_lb, best_sse):
        gap_closing = "disabled" if not close_gap else "skipped"
        if close_gap and status == "converged":
            t0 = time.perf_counter()
            if deadline is not None and t0 >= deadline:
                gap_closing = "time_limit"
            else:
                gap_closing, opt, bound = _close_gap(D, X, k, stop.duals,
                                                     best_sse - best_lb + n * tol, best,
                                                     close_gap_max_columns, deadline, ctx=ctx)
                if opt is not None and opt.sse() < best_sse:
                    best, best_sse = opt, opt.sse()
                if bound is not None and bound > best_lb:
                    best_lb, bound_source = min(bound, best_sse), "enumeration"
            t_close = time.perf_counter() - t0
    exact = best_lb is not None and close(best_lb, best_sse)
    if exact and status == "converged":
        status = "optimal"
    elif gap_closing == "time_limit":
        status = "time_limit"
    total = time.perf_counter() - t_start
    progress.done(status=status, bound=best_lb, best=best_sse)
    return ColumnGenerationResult(
        partition=best, sse=best_sse, lower_bound=best_lb, bound_source=bound_source,
        status=status, exact=exact, lp_value=stop.lp_value, lp_bound=lp_bound,
        iterations=res.iterations, columns=list(master.columns), sse_mdav=p_mdav.sse(),
        sse_vmdav=p_vmdav.sse(), sse_srh=rounder.sse_srh, sse_msth=rounder.sse_msth,
        log=res.log,
        seconds={**res.seconds, "close_gap": t_close, "total": total,
                 "overrun": 0.0 if time_limit is None else max(0.0, total - time_limit)},
        gap_closing=gap_closing, integral_master=rounder.integral,
        pricing=pricing, stabilization=settings.stabilization, threads=ctx.threads,
        lp_algorithm=algorithm)


def neighbour_columns(D, k, sizes=None) -> list:
    """Warm-start columns: every record with its η − 1 nearest neighbours, for
    each size η (default k..2k−1).  n·k clusters; O(n² log n)."""
    n = D.shape[0]
    sizes = range(k, min(2 * k, n + 1)) if sizes is None else sizes
    order = np.argsort(D + np.diag(np.full(n, -1.0)), axis=1, kind="stable")
    return [order[v, :eta] for eta in sizes for v in range(n)]


def auto_max_columns(max_columns, n, k):
    """``max_columns="auto"`` resolved: max(10, n // (2k)) columns per pricing call."""
    if isinstance(max_columns, str) and max_columns == "auto":
        return max(10, n // (2 * k))
    return max_columns


def _lp_algorithm(choice, k):
    if choice == "auto":
        # primal simplex from the last basis: measured faster than IPX at k = 5 and
        # k = 10 on the full Census file (docs/bench/cg_full.md)
        return "primal"
    if choice not in LP_ALGORITHMS:
        raise ParameterError(f"lp_algorithm must be 'auto' or one of {LP_ALGORITHMS}, "
                             f"got {choice!r}")
    return choice


def _settings(pricing, stabilization, alpha, lagrangian, time_limit, max_iterations,
              exact_rule, max_columns, gap_tol, k) -> CGSettings:
    """Validate the loop options shared by ``cg`` and ``bp``."""
    if pricing not in PRICING_MODES:
        raise ParameterError(f"pricing must be one of {PRICING_MODES}, got {pricing!r}")
    if stabilization == "none":     # the command line's spelling of None
        stabilization = None
    if stabilization not in STABILIZATIONS:
        raise ParameterError(f"stabilization must be one of {STABILIZATIONS}, got {stabilization!r}")
    if stabilization == "auto":
        if k >= WENTGES_MIN_K:
            stabilization, alpha = "wentges", "auto"
        else:
            stabilization = None
    auto_alpha = isinstance(alpha, str) and alpha == "auto"
    if auto_alpha and stabilization != "wentges":
        raise ParameterError('alpha="auto" needs stabilization="wentges"')
    if auto_alpha:
        alpha = 0.5
    elif isinstance(alpha, str) or not 0.0 <= alpha < 1.0:
        raise ParameterError(f"alpha must be in [0, 1) or 'auto', got {alpha!r}")
    if time_limit is not None and not time_limit > 0:
        raise ParameterError(f"time_limit must be positive, got {time_limit!r}")
    if lagrangian not in (True, False, "auto"):
        raise ParameterError(f"lagrangian must be True, False or 'auto', got {lagrangian!r}")
    if lagrangian == "auto":
        lagrangian = time_limit is not None or max_iterations is not None
    if exact_rule not in ("table2", "measured"):
        raise ParameterError(f"exact_rule must be 'table2' or 'measured', got {exact_rule!r}")
    if max_iterations is not None and (int(max_iterations) != max_iterations or max_iterations < 1):
        raise ParameterError(f"max_iterations must be a positive integer, got {max_iterations!r}")
    if isinstance(max_columns, bool) or not isinstance(max_columns, (int, np.integer)) \
            or max_columns < 1:
        raise ParameterError(f"max_columns must be a positive integer, got {max_columns!r}")
    return CGSettings(pricing=pricing, exact_rule=exact_rule, lagrangian=bool(lagrangian),
                      stabilization=stabilization, alpha=float(alpha), auto_alpha=auto_alpha,
                      max_columns=int(max_columns), gap_tol=gap_tol)


def _close_gap(D, X, k, duals, threshold, best, max_columns, deadline, *, constraints=None,
               ctx=None):
    """Enumerate the clusters of size k..2k−1 with reduced cost below ``threshold``
    at ``duals`` (where the Lagrangian bound L was certified, threshold = UB − L;
    ``constraints`` carry the cut penalties at the certified cut duals, and
    ``ctx`` a :class:`PricingContext` whose search spaces and threads are reused)
    and solve the set-partitioning MIP over them and the groups of ``best``,
    stopping at ``deadline`` (the enumeration checks it between slices, the MIP
    gets the remaining time).  Returns (outcome, partition, bound): outcome
    "optimal", "too_many_columns", "too_many_nodes", "time_limit" or another
    HiGHS status; partition the MIP's best partition (or None); bound a lower
    bound on the optimum proved by the MIP (its value, or on a time limit its
    dual bound, which is valid because every partition better than UB uses
    only enumerated clusters), or None."""
    from .bounds import enumerate_below
    from .master import set_partitioning_mip

    n = D.shape[0]
    columns = list(best.groups())
    weights = [cluster_weight(D, g) for g in columns]
    left_cap = max_columns
    for eta in range(k, min(2 * k, n + 1)):
        outcome, found = enumerate_below(
            D, duals, eta, threshold, max_columns=left_cap + 1, deadline=deadline,
            constraints=constraints, space=None if ctx is None else ctx.space(eta),
            threads=1 if ctx is None else ctx.threads)
        if outcome == "complete" and len(found) > left_cap:
            outcome = "too_many_columns"
        if outcome != "complete":
            return outcome, None, None
        left_cap -= len(found)
        columns.extend(found)
        if found.size:   # w_C (formula (8)) of the whole block at once
            weights.extend(D[found[:, :, None], found[:, None, :]].sum(axis=(1, 2)) / (2.0 * eta))
    left = None
    if deadline is not None:
        left = deadline - time.perf_counter() - 0.05   # building the model
        if left <= 0:
            return "time_limit", None, None
    info: dict = {}
    status, _, chosen = set_partitioning_mip(n, columns, weights, time_limit=left,
                                             start=range(best.n_groups), info=info)
    part = None if chosen is None else Partition.from_groups([columns[j] for j in chosen], X)
    if part is not None and not part.is_feasible(k):   # never expected; be safe
        part = None
    if status == "optimal":
        return "optimal", part, None if part is None else part.sse()
    bound = info.get("dual_bound")
    return status, part, bound if bound is not None and np.isfinite(bound) else None
