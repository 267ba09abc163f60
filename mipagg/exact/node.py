"""The column-generation loop of seed 001 section 5.2 for one node: the root
of ``cg`` or any node of branch-and-price.

:func:`solve_node` alternates master solves (restricted LP (9), with the
node's forbidden columns fixed at 0 and the subset-row cut rows) and pricing
rounds (heuristic, then exact, under the node's together/apart pairs and the
cut duals) until no column with negative reduced cost is left, a limit is
hit, or the node's certified bound reaches a cutoff.  A caller-supplied
``on_solution`` sees every master solution (rounding heuristics).  Why the
loop stopped and what it certified is one small value, :class:`StopState`.

Bounds: at any duals λ (rows) and σ ≤ 0 (cut rows) for which every size was
priced exactly, the Lagrangian (Farley-type) bound

    L(λ, σ) = Σ_v λ_v + Σ_S σ_S + n·min(0, min_η r_η/η)

is a lower bound on the best partition allowed at the node
(:func:`mipagg.exact.bounds.lagrangian_bound`); it equals the LP value once
no negative column remains.  Optional dual smoothing (Wentges; Neame) and
the automatic α of Pessoa et al. are kept from the first implementation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from .bounds import lagrangian_bound
from .master import MasterSolution
from .pricing import reduced_cost
from .pricing.rounds import PricingContext, pricing_round
from .settings import LoopSettings, StopCriterion

__all__ = ["LoopSettings", "StopState", "IterationLog", "NodeResult", "solve_node",
           "STOP_REASONS"]

STOP_REASONS = ("converged", "cutoff", "time_limit", "iteration_limit",
                "heuristic_converged", "not_certified")


@dataclass
class StopState:
    """Why a node's loop stopped and what it certified.

    ``reason``: "converged" (no negative column at the master duals: the LP
    over all allowed clusters is solved), "cutoff" (the certified bound
    reached the caller's cutoff, or the Lagrangian bound met the LP value
    within ``gap_tol``), "time_limit", "iteration_limit",
    "heuristic_converged" (heuristic pricing only: nothing certified),
    "not_certified" (an exact pricing call failed).  ``bound`` is always
    certified (or None); ``bound_source`` "lp" or "lagrangian"; ``duals`` and
    ``cut_duals`` are those at which it was certified, ``count_penalty``
    the count row's μ₀ = −σ₀ there (0 without one; a consumer that leaves it
    out prices every cluster μ₀ lower, which only weakens what it proves)."""

    reason: str
    bound: float | None = None
    bound_source: str | None = None
    lp_value: float | None = None
    duals: np.ndarray | None = None
    cut_duals: np.ndarray | None = None
    count_penalty: float = 0.0

    @property
    def certified(self) -> bool:
        return self.bound is not None


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
class NodeResult:
    stop: StopState
    solution: MasterSolution | None  # the last master solution
    iterations: int
    log: list = field(default_factory=list)
    seconds: dict = field(default_factory=dict)


def column_reduced_cost(D, lam, cons, c) -> float:
    """w̄_C at row duals ``lam`` with the cut and count penalties of ``cons``."""
    return reduced_cost(D, lam, c, len(c)) + cons.penalty(c) + cons.count_penalty


def solve_node(master, ctx: PricingContext, node_cons, settings: LoopSettings, *,
               stop: StopCriterion | None = None, cutoff=None, on_solution=None,
               best_sse=None, progress=None, start_iteration=0,
               fixed_rows=None) -> NodeResult:
    """Column generation at one node until convergence, cutoff or a limit.

    ``master``: a :class:`~mipagg.exact.master.MasterProblem` whose columns
    the node forbids are already fixed at 0; ``node_cons``: the node's
    :class:`~mipagg.exact.pricing.constraints.PricingConstraints` (branching
    pairs; cut penalties are taken from the master's cut duals every
    iteration).  ``stop``: the run's :class:`~mipagg.exact.settings.StopCriterion`
    (deadline, iteration limit), or None.  ``cutoff``: a callable returning
    the value at which the node
    can be pruned (e.g. best SSE − tolerance), or None.  ``on_solution(sol)``
    is called with every master solution and may return a new best SSE
    (used by the Lagrangian stop).  ``progress``: a
    :class:`~mipagg.progress.Progress`.  ``fixed_rows``: a mask of records
    already covered by columns fixed at 1 (a dive): the pricing sees them
    with a prohibitive dual, so no new cluster holds one; the bound is then
    not certified for the problem (dives are heuristics).  Each iteration
    costs one warm LP
    solve plus a pricing round (exponential worst case when exact).
    """
    return _NodeLoop(master, ctx, node_cons, settings, stop, cutoff, on_solution, best_sse,
                     progress, start_iteration, fixed_rows).run()


class _NodeLoop:
    """The state of one :func:`solve_node` call: duals certified so far, the
    Wentges center and α, timings; :meth:`run` iterates :meth:`iteration`."""

    def __init__(self, master, ctx, node_cons, settings, stop, cutoff, on_solution, best_sse,
                 progress, start_iteration, fixed_rows):
        self.master, self.ctx, self.node_cons, self.st = master, ctx, node_cons, settings
        self.stop = stop
        self.deadline = None if stop is None else stop.deadline
        self.max_iterations = None if stop is None else stop.max_iterations
        self.cutoff, self.on_solution, self.best_sse = cutoff, on_solution, best_sse
        self.progress, self.start_iteration, self.fixed_rows = progress, start_iteration, fixed_rows
        self.alpha = settings.alpha
        self.best_lb = self.bound_source = None
        self.cert = (None, None, 0.0)
        self.count = (0.0, 0.0)     # the count row's (μ₀, R·σ₀) at the last master solution
        self.center = self.center_lb = None   # Wentges: the stability center and its bound
        self.log: list[IterationLog] = []
        self.t_master = self.t_pricing = self.t_round = 0.0
        self.it = 0
        self.lp_value = None
        self.cuts_shape = None
        self.cons = node_cons
        self.t_node = time.perf_counter()
        self.t_sweep = 0.0

    def close(self, a, b) -> bool:
        return a >= b - self.st.gap_tol * max(abs(b), 1e-12)

    def run(self) -> NodeResult:
        sol = None
        while True:
            if self.max_iterations is not None and self.it >= self.max_iterations:
                reason = "iteration_limit"
                break
            if self.stop is not None and self.stop.expired():  # deadline, or Ctrl-C once
                reason = "time_limit"
                break
            self.it += 1
            t0 = time.perf_counter()
            sol = self.master.solve(None if self.deadline is None else self.deadline - t0)
            self.t_master += (dt_master := time.perf_counter() - t0)
            if sol is None:
                reason = "time_limit"
                self.it -= 1
                break
            reason = self.iteration(sol, dt_master)
            if reason is not None:
                break
        stop = StopState(reason, self.best_lb, self.bound_source, self.lp_value, *self.cert)
        return NodeResult(stop, sol, self.it, self.log,
                          {"master": self.t_master, "pricing": self.t_pricing,
                           "rounding": self.t_round})

    def iteration(self, sol, dt_master) -> str | None:
        """Rounding, pricing and bounds after one master solve; the reason
        to stop, or None."""
        st, n = self.st, self.ctx.n
        self.lp_value = sol.value
        lam, sig = sol.duals, sol.cut_duals
        self.count = (sol.count_penalty, sol.count_term)
        if st.stabilization == "wentges":
            self.center, self.center_lb = _wentges_center(self.ctx, self.center,
                                                          self.center_lb, sig.size)
        if self.fixed_rows is not None:
            lam = lam.copy()
            lam[self.fixed_rows] = -_PROHIBITIVE * (1.0 + float(np.abs(lam).max(initial=0.0)))
        if self.cuts_shape != sig.size:
            # new cut rows since the last iteration: rebuild the pricing structure
            self.cons = _with_cuts(self.node_cons, self.master)
            self.cuts_shape = sig.size
        t0 = time.perf_counter()
        if self.on_solution is not None:
            new_best = self.on_solution(sol)
            if new_best is not None:
                self.best_sse = new_best if self.best_sse is None else min(self.best_sse,
                                                                           new_best)
        self.t_round += (dt_round := time.perf_counter() - t0)
        t0 = time.perf_counter()
        rounds, better, mispriced, duo = self.price(lam, sig)
        lb_it, lb_true = self.bounds(rounds, duo)
        if st.auto_alpha:
            self.alpha = _adapt_alpha(self.alpha, self.ctx.D, duo, self.center, rounds,
                                      self.ctx.k, mispriced, n)
        if st.stabilization == "neame":
            self.center = rounds[0][0].copy()
        self.t_pricing += (dt_price := time.perf_counter() - t0)
        added = self.master.add_columns([c for _, r, _ in rounds for c in r.columns])
        self.log.append(IterationLog(self.start_iteration + self.it, self.lp_value, added,
                                     len(self.master),
                                     np.inf if self.best_sse is None else self.best_sse, lb_it,
                                     lb_true is not None, mispriced, dt_master, dt_price,
                                     dt_round))
        if self.progress is not None:
            self.progress.update(iteration=self.start_iteration + self.it,
                                 columns=len(self.master), lp=self.lp_value, bound=self.best_lb,
                                 best=self.best_sse)
        return self.stop_reason(rounds, better, added, lb_true, lam, sig)

    def price_at(self, mu_rows, mu_cuts, mode=None):
        """One pricing round at (μ rows, μ cuts) under the node's constraints."""
        st = self.st
        c = self.cons if mu_cuts is None or mu_cuts.size == 0 else \
            replace(self.cons, mu=np.maximum(-mu_cuts, 0.0))
        if self.count[0] > 0:
            c = replace(c, count_penalty=self.count[0])
        budget = None
        if st.lagrangian and st.sweep_share is not None:
            # sweeps that only complete the bound get a share of the node's time
            budget = max(1.0, st.sweep_share * (time.perf_counter() - self.t_node)
                         - self.t_sweep)
        t0 = time.perf_counter()
        r = pricing_round(self.ctx, mu_rows, mode=mode or st.pricing, constraints=c,
                          complete=st.lagrangian, max_columns=st.max_columns,
                          deadline=self.deadline, exact_rule=st.exact_rule, sweep_budget=budget,
                          chain=st.size_chain)
        if r.columns and len(r.exact_sizes) > 0:
            self.t_sweep += time.perf_counter() - t0
        return r, c

    def price(self, lam, sig):
        """Pricing, possibly at smoothed duals; a mispricing re-prices at (λ, σ).
        Returns (rounds, improving columns, mispriced, (λ, σ))."""
        st, n, alpha, center = self.st, self.ctx.n, self.alpha, self.center
        duo = np.concatenate([lam, sig])
        smoothing = st.stabilization is not None and center is not None
        duo_p = alpha * center + (1 - alpha) * duo if smoothing else duo
        lam_p, sig_p = duo_p[:n], duo_p[n:]
        if st.stabilization == "neame" and st.pricing in ("auto", "heuristic"):
            r0, c0 = self.price_at(lam_p, sig_p, mode="heuristic")
        else:
            r0, c0 = self.price_at(lam_p, sig_p)
        rounds = [(duo_p, r0, c0)]
        cons_true = c0 if duo_p is duo else replace(self.cons, mu=np.maximum(-sig, 0.0),
                                                    count_penalty=self.count[0])
        D, tol = self.ctx.D, self.ctx.tol

        def improving(r):
            return [c for c in r.columns if column_reduced_cost(D, lam, cons_true, c) < -tol]

        better = improving(r0)
        mispriced = smoothing and not better and not r0.timed_out
        if mispriced:
            r1, c1 = self.price_at(lam, sig)
            rounds.append((duo, r1, c1))
            better = improving(r1)
        return rounds, better, mispriced, duo

    def bounds(self, rounds, duo):
        """Lagrangian bounds of the rounds priced exactly for every size; the
        best is kept with its duals.  Returns (best this iteration, at (λ, σ))."""
        n, k = self.ctx.n, self.ctx.k
        lb_it = lb_true = None
        for mu, r, _ in rounds:
            if r.complete(k) and self.fixed_rows is None:   # a dive's duals certify nothing
                lb = lagrangian_bound(mu[:n], r.min_reduced_costs, k) + float(mu[n:].sum()) \
                    + self.count[1]
                lb_it = lb if lb_it is None else max(lb_it, lb)
                if mu is duo:
                    lb_true = lb
                if self.best_lb is None or lb > self.best_lb:
                    self.best_lb, self.bound_source = lb, "lagrangian"
                    self.cert = (mu[:n].copy(), mu[n:].copy(), self.count[0])
                if self.st.stabilization == "wentges" and lb > self.center_lb:
                    self.center, self.center_lb = mu.copy(), lb
        return lb_it, lb_true

    def stop_reason(self, rounds, better, added, lb_true, lam, sig) -> str | None:
        if any(r.timed_out for _, r, _ in rounds):
            return "time_limit"
        if not better or added == 0:
            if lb_true is not None:
                if self.best_lb is None or lb_true >= self.best_lb:
                    self.best_lb, self.bound_source = lb_true, "lp"
                    self.cert = (lam.copy(), sig.copy(), self.count[0])
                return "converged"
            return "heuristic_converged" if self.st.pricing == "heuristic" else "not_certified"
        limit = None if self.cutoff is None else self.cutoff()
        if self.best_lb is not None and limit is not None and self.best_lb >= limit:
            return "cutoff"
        best_sse = self.best_sse
        if self.st.lagrangian and self.best_lb is not None and (
                self.close(self.best_lb, self.lp_value)
                or (best_sse is not None and self.close(self.best_lb, best_sse))):
            return "cutoff"
        return None


_PROHIBITIVE = 1e6


def _wentges_center(ctx, center, center_lb, n_cuts):
    """The Wentges stability center: at first the neighbour duals
    (:func:`~mipagg.exact.bounds.neighbour_duals`, zero cut duals), which are
    dual feasible for every node (branching only removes columns; a subset-row
    cut with a zero dual changes no reduced cost), so the center always holds
    a certified Lagrangian bound, ``center_lb``, and smoothing starts from a
    point where exact pricing is cheap; padded with zero duals when cut rows
    were added since."""
    from .bounds import neighbour_duals

    if center is None:
        nu = neighbour_duals(ctx.D, ctx.k, ctx.edge_sums)
        return np.concatenate([nu, np.zeros(n_cuts)]), float(nu.sum())
    if center.size < ctx.n + n_cuts:
        center = np.concatenate([center, np.zeros(ctx.n + n_cuts - center.size)])
    return center, center_lb


def _with_cuts(node_cons, master):
    """The node's branching constraints plus the master's cut rows (penalties
    set per iteration), from the master's cut table: with thousands of cuts
    from node cut rounds, nothing is built again cut by cut at every node."""
    if not master.cuts:
        return node_cons
    return node_cons.with_cut_table(*master.cut_table())


def _adapt_alpha(alpha, D, duo, center, rounds, k, mispriced, n, step=0.1):
    """Automatic smoothing weight after the rule of Pessoa, Sadykov, Uchoa and
    Vanderbeck (In-out separation and column generation stabilization by dual
    price smoothing, SEA 2013; INFORMS J. Comput. 2018): take a supergradient
    g of the Lagrangian function L(μ) = Σμ + n·min(0, min_η r_η(μ)/η) at the
    smoothed duals μ; if g·(λ − center) > 0, L still increases towards the
    master duals λ, so smooth less (α − step), else more (α + step, at most
    0.9).  A mispricing also lowers α.  g_v = 1 − (n/η*)·[v ∈ C*] for the
    cluster C* of least reduced cost per record (size η*), or 1 when no
    cluster has negative reduced cost (cut rows: g = 1 − (n/η*)·a_SC*).
    O(n + columns)."""
    if center is None:
        return alpha
    if mispriced:
        return max(0.0, alpha - step)
    mu, r, cons = rounds[0]
    if not r.complete(k):
        return alpha
    g = np.ones(duo.size)
    ratio = {eta: v / eta for eta, v in r.min_reduced_costs.items() if np.isfinite(v)}
    if ratio:
        eta_s = min(ratio, key=ratio.get)
        if ratio[eta_s] < 0:
            cands = [c for c in r.columns if len(c) == eta_s]
            if cands:
                best = min(cands, key=lambda c: column_reduced_cost(D, mu[:n], cons, c))
                g[best] -= n / eta_s
                if duo.size > n:
                    g[n:] -= (n / eta_s) * cons.coefficients(best)
    if float(g @ (duo - center)) > 0:
        return max(0.0, alpha - step)
    return min(0.9, alpha + step)
