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

import time
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ..errors import ParameterError
from ..heuristics._common import as_rows
from ..partition import Partition
from ..univariate import check_k
from .bounds import gap, lagrangian_bound
from .master import MasterProblem, cluster_weight, squared_distances
from .pricing import reduced_cost
from .rounding import distance_pair_order, rounding_mst, simple_rounding

__all__ = ["column_generation", "ColumnGenerationResult", "IterationLog", "table2_exact_mode",
           "pricing_round", "PricingRound"]

PRICING_MODES = ("auto", "heuristic", "enumeration", "ilp")
STABILIZATIONS = (None, "wentges", "neame")


def table2_exact_mode(n: int, eta: int) -> str:
    """Exact pricing routine for size η on n records, seed 001 Table 2:
    complete enumeration ("CE") for η ≤ 5, and for η = 6 up to n = 100 records
    (the table's column 100; at 200 it says "EP"), the ILP (14) otherwise.

    >>> table2_exact_mode(50, 6), table2_exact_mode(200, 6), table2_exact_mode(30, 7)
    ('enumeration', 'ilp', 'ilp')
    """
    if eta <= 5 or (eta == 6 and n <= 100):
        return "enumeration"
    return "ilp"


@dataclass
class PricingRound:
    """What one PricingProblem call produced at one dual vector."""

    columns: list = field(default_factory=list)
    min_reduced_costs: dict = field(default_factory=dict)  # η -> proven minimum (exact calls)
    exact_sizes: set = field(default_factory=set)           # sizes priced exactly to optimality
    timed_out: bool = False
    seconds: float = 0.0

    def complete(self, k: int) -> bool:
        """True when every size k..2k−1 was priced exactly (Lagrangian bound certified)."""
        return all(eta in self.exact_sizes for eta in range(k, 2 * k))


def pricing_round(D, duals, k, mode, *, complete=False, max_columns=10, tol=1e-9,
                  deadline=None, exact_rule="table2") -> PricingRound:
    """PricingProblem(λ, π) of seed 001 section 5.1 for η = k..2k−1.

    ``mode="auto"``: heuristic pricing, then (if it found nothing) the exact
    routine chosen by ``exact_rule`` ("table2": :func:`table2_exact_mode`;
    "measured": :func:`mipagg.exact.pricing.exact_mode`, re-measured for this
    package's pricing codes), stopping at the first η that yields columns.
    ``"heuristic"``, ``"enumeration"`` and ``"ilp"`` use that routine alone.
    With ``complete=True``, once an exact routine has been called the
    remaining sizes are priced exactly too (so the Lagrangian bound at these
    duals is certified); with ``mode`` exact, every size is then priced.
    Costs one pricing call per size tried (exponential worst case when exact).
    """
    from .pricing import exact_mode, price

    n = D.shape[0]
    out = PricingRound()
    t0 = time.perf_counter()
    went_exact = False
    for eta in range(k, 2 * k):
        if eta > n:
            # no cluster of this size exists: its minimum is +inf, trivially proven
            out.min_reduced_costs[eta] = np.inf
            out.exact_sizes.add(eta)
            continue
        if out.columns and not (complete and went_exact):
            break
        left = None
        if deadline is not None:
            left = deadline - time.perf_counter()
            if left <= 0:
                out.timed_out = True
                break
        found = []
        if mode in ("auto", "heuristic") and not went_exact:
            res = price(D, duals, eta, "heuristic", max_columns=max_columns, time_limit=left, tol=tol)
            found = list(res.columns)
        if not found and mode != "heuristic":
            if mode != "auto":
                routine = mode
            elif exact_rule == "table2":
                routine = table2_exact_mode(n, eta)
            else:
                routine = exact_mode(n, eta)
            if deadline is not None:
                left = deadline - time.perf_counter()
            res = price(D, duals, eta, routine, max_columns=max_columns, time_limit=left, tol=tol)
            went_exact = True
            found = list(res.columns)
            if res.exact and res.status == "optimal" and res.min_reduced_cost is not None:
                out.min_reduced_costs[eta] = float(res.min_reduced_cost)
                out.exact_sizes.add(eta)
            elif res.status == "time_limit":
                out.timed_out = True
        out.columns.extend(found)
        if out.timed_out:
            break
    out.seconds = time.perf_counter() - t0
    return out


@dataclass
class IterationLog:
    """One pass of the loop: master solve, rounding, pricing."""

    iteration: int
    lp_value: float
    columns_added: int
    n_columns: int
    best_sse: float
    lagrangian_bound: float | None
    pricing_exact: bool       # pricing at the master duals proved the minimum for every size
    mispriced: bool           # smoothed duals gave no column improving the master
    master_seconds: float
    pricing_seconds: float
    rounding_seconds: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


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
    ``lp_bound`` is the certified bound before gap closing.  ``seconds`` has
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
                **{f"time_{k}": v for k, v in self.seconds.items()}}


def _initial_partition(initial, X, k) -> Partition:
    if isinstance(initial, Partition):
        p = Partition(initial.labels, X)
    else:
        p = Partition(np.asarray(initial), X)
    if not p.is_feasible(k):
        raise ParameterError(f"the initial partition has a group smaller than k = {k}")
    return p


def _rounding_step(X, D, k, master, sol, tol=1e-6, pair_order=None):
    """Steps 5(b)-(c) of MicroaggregationHeuristicMP (seed 001 §5.2): the
    partition of an integral master solution, else the SimpleRoundingHeuristic
    and (if feasible) RoundingMSTHeuristic partitions.  Returns (partitions,
    integral)."""
    x = sol.x
    if np.all((x < tol) | (x > 1 - tol)):
        chosen = [master.columns[j] for j in np.flatnonzero(x > 0.5)]
        return [Partition.from_groups(chosen, X)], True
    out = [simple_rounding(X, master.columns, x, k, weights=master.weights)]
    p_msth = rounding_mst(X, master.columns, x, k, D=D, pair_order=pair_order)
    if p_msth is not None:
        out.append(p_msth)
    return out, False


def column_generation(X, k, *, pricing="auto", time_limit=None, max_iterations=None,
                      stabilization=None, alpha=0.5, lagrangian="auto", gap_tol=1e-6,
                      initial=None, max_columns=10, gamma=0.2, exact_rule="measured",
                      close_gap=True, close_gap_max_columns=100_000) -> ColumnGenerationResult:
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
    stabilization : None (default), "wentges" or "neame".  "wentges": price
        at α·center + (1−α)·λ, center = the duals with the best Lagrangian
        bound (before any bound, the last priced duals); on a mispricing
        re-price at the master duals λ, so optimality is only concluded at λ.
        "neame": smoothing for the heuristic pricing only (pricing "auto" or
        "heuristic"; otherwise as "wentges" with center = the last priced
        duals): heuristic pricing at α·center + (1−α)·λ with center the
        previous smoothed duals (exponential smoothing, Neame 1999, as
        surveyed by Pessoa et al. 2018), and only when that yields no column
        with negative reduced cost at λ the ordinary pricing (heuristic, then
        exact) at λ.  alpha : smoothing weight, or "auto" (Wentges only):
        start at 0.5 and adapt it every iteration by the supergradient rule
        of Pessoa et al. (:func:`_adapt_alpha`).  All three schemes were
        measured slower than no stabilization on the paper instances
        (1.2-2.6× with pricing "auto", docs/bench/cg.md), hence off.
    lagrangian : when an iteration calls exact pricing, price every size
        exactly so the Lagrangian bound is certified (an anytime bound under
        ``time_limit``), and stop when it is within ``gap_tol`` (relative) of
        the LP value or of the best SSE.  ``False`` is the seed's routine
        (stop at the first size with columns).  ``"auto"`` (default): True
        when ``time_limit`` or ``max_iterations`` is given (an anytime bound
        matters), else False — without a limit the run reaches the certified
        LP bound anyway and the sweep made it 1.7-2.2× slower at n ≥ 100
        (docs/bench/cg.md).
    initial : an extra k-feasible partition (labels or Partition) whose groups
        seed the master, next to those of MDAV and V-MDAV (``gamma``).
    max_columns : columns per pricing call.
    close_gap : after convergence with a gap, enumerate every cluster whose
        reduced cost at the certified duals is below UB − LB and solve the
        integer problem over them (HiGHS MIP): on success the best partition
        is proven optimal (``bound_source="enumeration"``).  Skipped when more
        than ``close_gap_max_columns`` clusters qualify (``gap_closing`` says
        what happened).  Both steps honour ``time_limit`` (the enumeration
        checks the clock between slices, the MIP gets the remaining time);
        when it runs out the status is "time_limit", with the best partition
        (the MIP's incumbent if better) and the certified bound.

    Each iteration costs one warm LP solve, O(m s + n² log n) rounding for m
    columns of size ≤ s, and the pricing (exponential in the worst case for
    the exact routines).

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

    t_start = time.perf_counter()
    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    if pricing not in PRICING_MODES:
        raise ParameterError(f"pricing must be one of {PRICING_MODES}, got {pricing!r}")
    if stabilization not in STABILIZATIONS:
        raise ParameterError(f"stabilization must be one of {STABILIZATIONS}, got {stabilization!r}")
    auto_alpha = isinstance(alpha, str) and alpha == "auto"
    if auto_alpha and stabilization != "wentges":
        raise ParameterError('alpha="auto" needs stabilization="wentges"')
    if auto_alpha:
        alpha = 0.5
    elif isinstance(alpha, str) or not 0.0 <= alpha < 1.0:
        raise ParameterError(f"alpha must be in [0, 1) or 'auto', got {alpha!r}")
    if time_limit is not None and time_limit <= 0:
        raise ParameterError(f"time_limit must be positive, got {time_limit!r}")
    if lagrangian not in (True, False, "auto"):
        raise ParameterError(f"lagrangian must be True, False or 'auto', got {lagrangian!r}")
    if lagrangian == "auto":
        lagrangian = time_limit is not None or max_iterations is not None
    if exact_rule not in ("table2", "measured"):
        raise ParameterError(f"exact_rule must be 'table2' or 'measured', got {exact_rule!r}")
    if max_iterations is not None and (int(max_iterations) != max_iterations or max_iterations < 1):
        raise ParameterError(f"max_iterations must be a positive integer, got {max_iterations!r}")
    deadline = None if time_limit is None else t_start + float(time_limit)
    D = squared_distances(X)
    tol = 1e-9 * max(1.0, float(D.max()))   # a column is negative below −tol

    # steps 1-4: MDAV, V-MDAV, best of them, initial columns
    master = MasterProblem(X, D)
    groups_mdav = mdav_groups(X, k)
    p_mdav = Partition.from_groups(groups_mdav, X)
    master.add_columns(groups_mdav)
    sse_mdav = p_mdav.sse()
    best, best_sse = p_mdav, sse_mdav
    p_vmdav = vmdav(X, k, gamma=gamma)
    sse_vmdav = p_vmdav.sse()
    master.add_columns(p_vmdav.groups())
    if sse_vmdav < best_sse:
        best, best_sse = p_vmdav, sse_vmdav
    if initial is not None:
        p0 = _initial_partition(initial, X, k)
        master.add_columns(p0.groups())
        sse_0 = p0.sse()
        if sse_0 < best_sse:
            best, best_sse = p0, sse_0

    sse_srh = sse_msth = None
    best_lb, bound_source = None, None
    center = cert_duals = None
    log: list[IterationLog] = []
    t_master = t_pricing = t_rounding = 0.0
    status, lp_value = None, None
    integral_master = False
    pair_order = None          # pairs by distance, for RoundingMSTHeuristic (computed once)
    it = 0

    def close(a, b):  # a ≥ b within the relative tolerance
        return a >= b - gap_tol * max(abs(b), 1e-12)

    def improving_at(lam, r):  # columns of r with negative reduced cost at the master duals
        return [c for c in r.columns if reduced_cost(D, lam, c, len(c)) < -tol]

    price_at = partial(pricing_round, D, k=k, mode=pricing, complete=lagrangian,
                       max_columns=max_columns, tol=tol, deadline=deadline,
                       exact_rule=exact_rule)

    while True:
        if max_iterations is not None and it >= max_iterations:
            status = "iteration_limit"
            break
        if deadline is not None and time.perf_counter() >= deadline:
            status = "time_limit"
            break
        it += 1
        # (a) master
        t0 = time.perf_counter()
        sol = master.solve(None if deadline is None else deadline - t0)
        dt_master = time.perf_counter() - t0
        t_master += dt_master
        if sol is None:
            status = "time_limit"
            it -= 1
            break
        lp_value = sol.value
        lam = sol.duals

        # (b)-(c) integral master solution or rounding
        t0 = time.perf_counter()
        if pair_order is None:
            pair_order = distance_pair_order(D)
        candidates, integral_master = _rounding_step(X, D, k, master, sol,
                                                     pair_order=pair_order)
        sses = [p.sse() for p in candidates]
        if not integral_master:   # candidates are [SRH] or [SRH, MSTH]
            sse_srh = sses[0] if sse_srh is None else min(sse_srh, sses[0])
            if len(sses) > 1:
                sse_msth = sses[1] if sse_msth is None else min(sse_msth, sses[1])
        for p, s in zip(candidates, sses):
            if s < best_sse:
                best, best_sse = p, s
        dt_round = time.perf_counter() - t0
        t_rounding += dt_round

        # (d) pricing, possibly at smoothed duals; a mispricing re-prices at λ
        t0 = time.perf_counter()
        smoothing = stabilization is not None and center is not None
        lam_p = alpha * center + (1 - alpha) * lam if smoothing else lam
        if stabilization == "neame" and pricing in ("auto", "heuristic"):
            # heuristic pricing only at the smoothed duals; exact pricing (and so
            # every certificate) only at λ, in the mispricing round below
            rounds = [(lam_p, price_at(lam_p, mode="heuristic"))]
        else:
            rounds = [(lam_p, price_at(lam_p))]
        improving = improving_at(lam, rounds[0][1])
        mispriced = smoothing and not improving and not rounds[0][1].timed_out
        if mispriced:
            rounds.append((lam, price_at(lam)))
            improving = improving_at(lam, rounds[1][1])
        timed_out = any(r.timed_out for _, r in rounds)
        lb_it = lb_true = None
        for mu, r in rounds:
            if r.complete(k):
                lb = lagrangian_bound(mu, r.min_reduced_costs, k)
                lb_it = lb if lb_it is None else max(lb_it, lb)
                if mu is lam:
                    lb_true = lb
                if best_lb is None or lb > best_lb:
                    best_lb, bound_source = lb, "lagrangian"
                    cert_duals = mu
                    if stabilization == "wentges":
                        center = mu.copy()
        if auto_alpha:
            alpha = _adapt_alpha(alpha, D, lam, center, rounds, k, mispriced)
        if stabilization == "neame" or (stabilization == "wentges" and best_lb is None):
            # Neame: exponential smoothing of the priced duals; Wentges before any
            # certified bound: smooth towards the last priced duals
            center = lam_p.copy()
        dt_price = time.perf_counter() - t0
        t_pricing += dt_price

        added = master.add_columns([c for _, r in rounds for c in r.columns])
        log.append(IterationLog(it, lp_value, added, len(master), best_sse, lb_it,
                                lb_true is not None, mispriced, dt_master, dt_price, dt_round))

        # (e)-(6) termination
        if timed_out:
            status = "time_limit"
            break
        if not improving or added == 0:
            if lb_true is not None:
                # exact pricing at the master duals found no negative column: the LP
                # is solved over all clusters; the bound at λ is its value (up to tol)
                if lb_true >= best_lb:
                    best_lb, bound_source, cert_duals = lb_true, "lp", lam
                status = "converged"
            else:
                status = "heuristic_converged" if pricing == "heuristic" else "not_certified"
            break
        if lagrangian and best_lb is not None and (close(best_lb, lp_value) or close(best_lb, best_sse)):
            status = "converged"
            break

    # beyond the seed: close the remaining gap by enumerating every cluster whose
    # reduced cost at the certified duals is below UB − LB and solving the integer
    # set-partitioning problem over them (plus the best partition's groups)
    gap_closing, t_close, lp_bound = "not_needed", 0.0, best_lb
    if best_lb is not None and not close(best_lb, best_sse):
        gap_closing = "disabled" if not close_gap else "skipped"
        if close_gap and status == "converged":
            t0 = time.perf_counter()
            if deadline is not None and t0 >= deadline:
                gap_closing = "time_limit"
            else:
                gap_closing, opt, bound = _close_gap(D, X, k, cert_duals,
                                                     best_sse - best_lb + n * tol, best,
                                                     close_gap_max_columns, deadline)
                if opt is not None and opt.sse() < best_sse:
                    best, best_sse = opt, opt.sse()
                if bound is not None and bound > best_lb:
                    # the MIP's proven bound over every cluster that can improve on UB
                    best_lb, bound_source = min(bound, best_sse), "enumeration"
            t_close = time.perf_counter() - t0
    exact = best_lb is not None and close(best_lb, best_sse)
    if exact and status == "converged":
        status = "optimal"
    elif gap_closing == "time_limit":
        status = "time_limit"
    total = time.perf_counter() - t_start
    return ColumnGenerationResult(
        partition=best, sse=best_sse, lower_bound=best_lb, bound_source=bound_source,
        status=status, exact=exact, lp_value=lp_value, lp_bound=lp_bound, iterations=it,
        columns=list(master.columns), sse_mdav=sse_mdav, sse_vmdav=sse_vmdav,
        sse_srh=sse_srh, sse_msth=sse_msth, log=log,
        seconds={"master": t_master, "pricing": t_pricing, "rounding": t_rounding,
                 "close_gap": t_close, "total": total,
                 "overrun": 0.0 if time_limit is None else max(0.0, total - time_limit)},
        gap_closing=gap_closing, integral_master=integral_master,
        pricing=pricing, stabilization=stabilization)


def _adapt_alpha(alpha, D, lam, center, rounds, k, mispriced, step=0.1):
    """Automatic smoothing weight after the rule of Pessoa, Sadykov, Uchoa and
    Vanderbeck (In-out separation and column generation stabilization by dual
    price smoothing, SEA 2013; INFORMS J. Comput. 2018): take a supergradient
    g of the Lagrangian function L(μ) = Σμ + n·min(0, min_η r_η(μ)/η) at the
    smoothed duals μ; if g·(λ − center) > 0, L still increases towards the
    master duals λ, so smooth less (α − step), else more (α + step, at most
    0.9).  A mispricing also lowers α.  g_v = 1 − (n/η*)·[v ∈ C*] for the
    cluster C* of least reduced cost per record (size η*), or 1 when no
    cluster has negative reduced cost.  O(n + columns)."""
    if center is None:
        return alpha
    if mispriced:
        return max(0.0, alpha - step)
    mu, r = rounds[0]
    if not r.complete(k):
        return alpha
    n = lam.size
    g = np.ones(n)
    ratio = {eta: v / eta for eta, v in r.min_reduced_costs.items()}
    eta_s = min(ratio, key=ratio.get)
    if ratio[eta_s] < 0:
        cands = [c for c in r.columns if len(c) == eta_s]
        if cands:
            best = min(cands, key=lambda c: reduced_cost(D, mu, c, eta_s))
            g[best] -= n / eta_s
    if float(g @ (lam - center)) > 0:
        return max(0.0, alpha - step)
    return min(0.9, alpha + step)


def _close_gap(D, X, k, duals, threshold, best, max_columns, deadline):
    """Enumerate the clusters of size k..2k−1 with reduced cost below ``threshold``
    at ``duals`` (where the Lagrangian bound L was certified, threshold = UB − L)
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
        outcome, found = enumerate_below(D, duals, eta, threshold, max_columns=left_cap + 1,
                                         deadline=deadline)
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
