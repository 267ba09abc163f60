"""One pricing round of column generation: PricingProblem(λ, π) of seed 001
section 5.1 over the sizes η = k..2k−1, at the master duals of a node.

:class:`PricingContext` holds what does not change during a run (the
validated distance matrix, the sorted-edge sums behind every completion
bound, one search space per size, the thread count), so a round costs only
the searches themselves.  :func:`pricing_round` prices the sizes in the
seed's order (heuristic first, then an exact routine) under a node's
branching constraints and cut penalties.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from ...errors import ParameterError
from ._common import check_pricing_input
from .constraints import PricingConstraints
from .search import SearchSpace, edge_prefix_sums
from .solvers import EXACT, PRICING_ORDERS, PRICING_SOLVERS

__all__ = ["PricingContext", "PricingRound", "pricing_round", "size_chain", "table2_exact_mode"]


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


def size_chain(r_k: float, k: int, eta: int) -> float:
    """A certified lower bound on the least reduced cost of a cluster of size
    η > k from that of size k, ``r_k`` (exact when negative, or a lower
    bound), where no together pair and no cut penalty applies
    (:attr:`~.constraints.PricingConstraints.nested`): (η/k)·min(r_k, 0).

    Why: a cluster C of size η ≥ 3 has Σ_{v∈C} w(C∖v) = (η−2)·η·w(C)/(η−1)
    for w(C) = Σ_{i<j∈C} D_ij/η (each pair is in η−2 of the η subsets), and
    Σ_{v∈C} λ(C∖v) = (η−1)·λ(C).  So, with w ≥ 0,

        w̄(C) = w(C) − λ(C) ≥ (1/(η−1))·Σ_{v∈C} w̄(C∖v) ≥ η/(η−1)·r_{η−1},

    the slack being w(C)/(η−1)².  Every C∖v is allowed when C is (removing a
    record breaks no apart pair), hence r_η/η ≥ r_{η−1}/(η−1) ≥ … ≥ r_k/k,
    and the Lagrangian bound Σλ + n·min(0, min_η r_η/η) of seed 001
    (:func:`~mipagg.exact.bounds.lagrangian_bound`) needs size k alone: when
    no cluster of size k has a negative reduced cost, none of any size has.
    Cut penalties break the inequality (a subset-row cut with all three rows
    in C charges C once and each of its η subsets once), and so do together
    pairs (C∖v may split one).

    >>> size_chain(-0.6, 3, 5), size_chain(0.4, 3, 4)
    (-1.0, 0.0)
    """
    return eta / k * min(float(r_k), 0.0)


class PricingContext:
    """Per-run pricing data for n records and minimum size k: D validated
    once, the prefix sums of every record's sorted edges (O(n² + n k log k),
    shared by all sizes), one :class:`~.search.SearchSpace` per size, the
    negative-column tolerance ``tol`` = 1e-9·max(1, max D) and ``threads``
    for the exact search.  ``sizes_out``: the cluster sizes no search
    prices (a bit mask, :func:`~.constraints.size_mask`), held by
    :attr:`none`, the constraints of a node without branching."""

    def __init__(self, D, k: int, *, threads: int = 1, sizes_out: int = 0):
        n = D.shape[0]
        D, _, _ = check_pricing_input(D, np.zeros(n), min(2, n))
        self.D = D
        self.n = n
        self.k = int(k)
        self.threads = max(1, int(threads))
        self.tol = 1e-9 * max(1.0, float(D.max(initial=0.0)))
        self.sizes = [eta for eta in range(k, 2 * k) if eta <= n]
        self._edge_sums = edge_prefix_sums(D, 2 * k - 2) if n > 1 else np.zeros((n, 2 * k - 1))
        self._spaces: dict[int, SearchSpace] = {}
        self.none = PricingConstraints.build(n, sizes_out=sizes_out)

    @property
    def edge_sums(self) -> np.ndarray:
        """S[v, q]: sum of the q smallest distances from v (q = 0..2k−2)."""
        return self._edge_sums

    def space(self, eta: int) -> SearchSpace:
        if eta not in self._spaces:
            self._spaces[eta] = SearchSpace.build(self.D, eta, self._edge_sums)
        return self._spaces[eta]


@dataclass
class PricingRound:
    """What one PricingProblem call produced at one dual vector.

    ``min_reduced_costs[η]`` is a certified lower bound on the least reduced
    cost of an allowed cluster of size η (the exact minimum when negative;
    0 when the search proved nothing lies below 0; +inf when no allowed
    cluster of that size exists)."""

    columns: list = field(default_factory=list)
    min_reduced_costs: dict = field(default_factory=dict)
    exact_sizes: set = field(default_factory=set)           # sizes priced exactly
    timed_out: bool = False
    swept: bool = True        # False: the completing sweep ran out of its budget
    seconds: float = 0.0

    def complete(self, k: int) -> bool:
        """True when every size k..2k−1 was priced exactly (Lagrangian bound certified)."""
        return all(eta in self.exact_sizes for eta in range(k, 2 * k))


def pricing_round(ctx: PricingContext, duals, *, mode="auto", constraints=None,
                  complete=False, max_columns=10, deadline=None,
                  exact_rule="measured", sweep_budget=None, chain=False) -> PricingRound:
    """PricingProblem(λ, π) of seed 001 section 5.1 for η = k..2k−1.

    The stages tried per size are :data:`~.solvers.PRICING_ORDERS` ``[mode]``
    (solvers of :data:`~.solvers.PRICING_SOLVERS`).
    ``mode="auto"``: heuristic pricing, then (if it found nothing) the exact
    routine chosen by ``exact_rule`` ("table2": :func:`table2_exact_mode`;
    "measured": :func:`mipagg.exact.pricing.exact_mode`), stopping at the
    first η that yields columns.  ``"heuristic"``, ``"enumeration"`` and
    ``"ilp"`` use that routine alone.  With ``complete=True``, once an exact
    routine has been called the remaining sizes are priced exactly too (so
    the Lagrangian bound at these duals is certified); with ``mode`` exact,
    every size is then priced.  ``constraints``: the node's branching pairs
    and cut penalties (:class:`~.constraints.PricingConstraints`).  Exact
    searches only prove the minimum when it is negative (floor 0), all the
    Lagrangian bound needs.  ``sweep_budget``: seconds for the sizes priced
    only to complete the bound (after an exact size has yielded columns); when
    they run out the sweep is abandoned (no bound at these duals, the columns
    found are kept, ``swept`` False) rather than the round.  Where no
    together pair and no cut penalty applies, size k's exact minimum bounds
    the larger sizes (:func:`size_chain`): when it proves that no cluster of
    size k has a negative reduced cost, the round ends there (no larger
    cluster has one either, so their searches could find nothing), and with
    ``chain`` also when it found some (the larger sizes then get the
    inexact stages only, and the bound is the same).  Costs one
    pricing call per size tried (exponential worst case when exact).
    """
    if mode not in PRICING_ORDERS:
        raise ParameterError(f"pricing mode must be one of {tuple(PRICING_ORDERS)}, "
                             f"got {mode!r}")
    n, k = ctx.n, ctx.k
    cons = constraints if constraints is not None else ctx.none
    state = _RoundState(ctx, duals, cons, PRICING_ORDERS[mode], exact_rule, max_columns,
                        deadline, sweep_budget)
    t0 = time.perf_counter()
    nested = cons.nested
    for eta in range(k, 2 * k):
        if eta > k and nested and k in state.out.exact_sizes and (
                chain or state.out.min_reduced_costs[k] >= 0):
            state.chain_from(eta)       # size k's exact minimum bounds the larger sizes
            break
        if eta == k + 1 and cons.count_penalty > 0 and cons.count_nested \
                and k in state.out.exact_sizes and state.out.min_reduced_costs[k] >= 0 \
                and state.count_chain():
            break                       # so does one more search of size k
        if eta > n or not cons.feasible or cons.excludes(eta):
            # no allowed cluster of this size: its minimum is +inf, trivially proven
            state.out.min_reduced_costs[eta] = np.inf
            state.out.exact_sizes.add(eta)
            continue
        if state.out.columns and not (complete and state.went_exact):
            break
        if not state.price_size(eta):
            break
    state.out.seconds = time.perf_counter() - t0
    return state.out


class _RoundState:
    """One :func:`pricing_round`: what it found, whether an exact routine has
    run, and the completing sweep's own clock."""

    def __init__(self, ctx, duals, cons, stages, exact_rule, max_columns, deadline,
                 sweep_budget):
        self.ctx, self.duals, self.cons, self.stages = ctx, duals, cons, stages
        self.exact_rule, self.max_columns = exact_rule, max_columns
        self.deadline, self.sweep_budget = deadline, sweep_budget
        self.out = PricingRound()
        self.went_exact = False
        self.sweep_end = None

    def price_size(self, eta) -> bool:
        """Price size η through the stages; False when the round must stop."""
        out = self.out
        sweeping = bool(out.columns) and self.sweep_budget is not None
        if sweeping and self.sweep_end is None:
            self.sweep_end = time.perf_counter() + self.sweep_budget
        if self.deadline is not None and self.deadline - time.perf_counter() <= 0:
            out.timed_out = True
            return False
        if sweeping and time.perf_counter() >= self.sweep_end:
            out.swept = False
            return False
        found: list = []
        for stage in self.stages:
            if found:
                break
            s = self.solver(stage, eta)
            if not s.exact:
                if not self.went_exact:
                    found = self.inexact(s, eta)
                continue
            found, go_on = self.exact_stage(s, eta, sweeping)
            if not go_on:
                out.columns.extend(found)
                return False
        out.columns.extend(found)
        return not out.timed_out

    def chain_from(self, first) -> None:
        """Sizes ``first``..2k−1 bounded by size k's minimum (:func:`size_chain`)
        instead of exact searches; the inexact stages still run for their
        columns when size k had some."""
        k, out = self.ctx.k, self.out
        r_k = out.min_reduced_costs[k]
        for eta in range(first, 2 * k):
            out.min_reduced_costs[eta] = np.inf if eta > self.ctx.n or self.cons.excludes(eta) \
                else size_chain(r_k, k, eta)
            out.exact_sizes.add(eta)
        if not out.columns or r_k >= 0:
            return
        for eta in range(first, min(2 * k, self.ctx.n + 1)):
            if self.cons.excludes(eta):
                continue
            s = next((s for s in (self.solver(st, eta) for st in self.stages)
                      if not s.exact), None)
            if s is not None:
                out.columns.extend(self.inexact(s, eta))

    def count_chain(self) -> bool:
        """Under a count penalty μ₀ > 0 (no together pair, no cut penalty):
        one more exact search of size k, at λ_v − μ₀/(2k−1).  If no cluster
        of size k has w_C − λ(C) + kμ₀/(2k−1) < 0, then r_k ≥ −kμ₀/(2k−1)
        for the least w_C − λ(C) of size k, so by :func:`size_chain`'s
        inequality r_η ≥ (η/k)·r_k ≥ −μ₀ for every η ≤ 2k − 1: no cluster
        has a negative reduced cost w_C − λ(C) + μ₀, and the sizes
        k + 1..2k − 1 are proven at 0 (True).  False when that search finds
        such a cluster (none of them is an improving column: each has
        w_C − λ(C) + μ₀ ≥ 0) or stops; the larger sizes are then priced."""
        k, ctx, out = self.ctx.k, self.ctx, self.out
        s = self.solver(EXACT, k)
        left = None if self.deadline is None else self.deadline - time.perf_counter()
        if s.name != "enumeration" or (left is not None and left <= 0):
            return False
        chain_duals = np.asarray(self.duals, dtype=float) - self.cons.count_penalty / (2 * k - 1)
        res = s.solve(ctx.D, chain_duals, k, max_columns=1, time_limit=left, tol=ctx.tol,
                      **s.round_options(ctx, k, replace(self.cons, count_penalty=0.0)))
        if not (res.exact and res.status == "optimal" and not len(res.columns)):
            return False
        for eta in range(k + 1, 2 * k):
            excluded = eta > ctx.n or self.cons.excludes(eta)
            out.min_reduced_costs[eta] = np.inf if excluded else 0.0
            out.exact_sizes.add(eta)
        return True

    def inexact(self, s, eta) -> list:
        """The columns of the inexact (heuristic) solver ``s`` at size η."""
        res = s.solve(self.ctx.D, self.cons.duals_for(self.duals, eta), eta,
                      max_columns=self.max_columns, tol=self.ctx.tol,
                      **s.round_options(self.ctx, eta, self.cons))
        return list(res.columns)

    def solver(self, stage, eta):
        if stage != EXACT:
            return PRICING_SOLVERS[stage]
        n = self.ctx.n
        if self.exact_rule == "table2":
            return PRICING_SOLVERS[table2_exact_mode(n, eta)]
        from . import exact_mode

        return PRICING_SOLVERS[exact_mode(n, eta)]

    def exact_stage(self, s, eta, sweeping):
        """An exact solver at size η within the run's deadline (or the sweep's
        own budget).  Returns (columns, go on)."""
        out, now = self.out, time.perf_counter()
        left = None if self.deadline is None else max(self.deadline - now, 1e-3)
        own_limit = False
        if sweeping:
            sweep_left = max(self.sweep_end - now, 1e-3)
            own_limit = left is None or sweep_left < left
            left = sweep_left if own_limit else left
        options = s.round_options(self.ctx, eta, self.cons)
        res = s.solve(self.ctx.D, self.cons.duals_for(self.duals, eta), eta,
                      max_columns=self.max_columns, time_limit=left, tol=self.ctx.tol,
                      **options)
        self.went_exact = True
        found = list(res.columns)
        if res.exact and res.status == "optimal":
            m = res.min_reduced_cost
            out.min_reduced_costs[eta] = np.inf if m is None else float(min(m, 0.0))
            out.exact_sizes.add(eta)
        elif res.status == "time_limit" and own_limit:
            out.swept = False          # the sweep's own budget, not the run's
            return found, False
        elif res.status == "time_limit":
            out.timed_out = True
        return found, True
