"""Gap closing at the nodes of the branch-and-price tree: when to try it
(:class:`NodeClosing`) and the closing itself (:func:`close_node`), with the
pricing constraints of a node's cuts and branching pairs
(:func:`cut_constraints`)."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from .closingvalue import ClosingValue
from .gapclosing import close_gap_by_enumeration
from .pricing.constraints import PricingConstraints

__all__ = ["NodeClosing", "close_node", "cut_constraints", "tight_cuts", "PARTIAL_SHARE"]

PARTIAL_SHARE = 0.5         # at most this share of the tree's time in partial node closings


def cut_constraints(master, n, cut_duals, together=(), apart=(), sizes_out=0,
                    count_penalty=0.0):
    """Pricing constraints carrying the cut penalties −σ at ``cut_duals`` (and
    a node's branching pairs and excluded sizes, and the count row's μ₀,
    ``count_penalty``)."""
    with_cuts = bool(master.cuts) and cut_duals is not None and cut_duals.size > 0
    if not with_cuts and not together and not apart and not sizes_out and \
            not count_penalty > 0:
        return None
    cons = PricingConstraints.build(n, together=together, apart=apart, sizes_out=sizes_out)
    if with_cuts:   # the master's cut table, not each cut built again (casc_gap.md §80)
        rows, nums, den = master.cut_table()
        m = min(rows.shape[0], cut_duals.size)     # cuts added since the duals: left out
        cons = cons.with_cut_table(rows[:m], nums[:m], den[:m],
                                   np.maximum(-np.asarray(cut_duals[:m], dtype=float), 0.0))
    return replace(cons, count_penalty=float(count_penalty)) if count_penalty > 0 else cons


def tight_cuts(cuts, cut_duals) -> list:
    """The cuts of ``cuts`` whose dual σ in ``cut_duals`` is negative (all of
    them when the duals are unknown; a cut added after the duals is left
    out): the rows a node closing's MIP needs (``node_close_cuts`` "tight").
    Any subset of valid cuts leaves the MIP's optimum unchanged, and the
    node's duals stay feasible for the MIP's LP with these rows, so that LP
    starts no lower than the node's bound.  On the Census k = 4
    groups-of-four side about 250 of 3 200 cuts are tight and the MIPs are
    solved 2× sooner (docs/bench/casc_gap.md §81)."""
    if cut_duals is None:
        return list(cuts)
    sigma = np.asarray(cut_duals, dtype=float)
    return [cut for cut, s in zip(cuts, sigma) if s < 0]


class NodeClosing:
    """When to try gap closing at a tree node: where the node's gap is below
    a threshold, at first the root's gap; a failure for too many clusters (or
    search nodes) or for time (``node_close_time``) sets it to 0.8 × that
    node's gap, a success raises it to at least 1.25 × that node's gap; and
    wherever the gap is at most ``floor`` × the incumbent's SSE
    (``node_close_gap``), whatever the threshold; never with ``max_columns``
    0.  ``partial`` counts the node closings that were partial
    (``node_close_partial``), ``better`` those that found a better
    incumbent, ``timed_out`` those stopped by their time limit and
    ``too_large`` those whose full closing found too many clusters (or
    search nodes), a partial one then run or not.  In
    a run with a time limit (``timed``), partial closings at
    nodes too far from the full closing's threshold take at most
    ``PARTIAL_SHARE`` of the time since the closer started (:meth:`restart`):
    on Tarragona k = 3 a partial closing costs about ten times a node's
    column generation (docs/bench/casc_gap.md §16).  Without one they run at
    every such node, so that the tree does not depend on the clock.  With
    ``cost`` (``node_close_cost``) a full closing gets at most the time
    :class:`~mipagg.exact.closingvalue.ClosingValue` (``value``) gives it
    (:meth:`budget`; with ``nested``, ``node_close_nested``, the subtree's
    closings counted in), and a node the threshold lets through is turned
    down when that is too little (:meth:`affords`); ``skipped`` counts those nodes."""

    def __init__(self, max_columns: int, root_gap: float, timed: bool = False,
                 floor: float = 0.0, cost: bool = False, nested: bool = False):
        self.limit = root_gap if max_columns else -np.inf
        self.floor = floor if max_columns else 0.0
        self.timed = timed
        self.tried = self.succeeded = self.partial = self.better = 0
        self.timed_out = self.too_large = self.skipped = 0
        self.value = ClosingValue(nested=nested) if cost and max_columns else None
        self.restart()

    def restart(self) -> None:
        """The time share of partial closings counted from now (a new tree or worker)."""
        self.started, self.partial_seconds = time.perf_counter(), 0.0

    def budget(self, node_gap: float, node_seconds: float) -> float | None:
        """Seconds a full closing at a node with ``node_gap`` may take (None:
        no ``cost`` rule); ``node_seconds``: the node's own so far."""
        return None if self.value is None else self.value.budget(node_gap, node_seconds)

    def wants(self, node_gap: float, incumbent: float = 0.0) -> bool:
        """Whether the threshold lets the full closing through at a node with ``node_gap``."""
        return node_gap <= self.limit or (self.floor > 0 and node_gap <= self.floor * incumbent)

    def affords(self, budget: float | None, node_gap: float | None = None) -> bool:
        """Whether a full closing with ``budget`` seconds (:meth:`budget`) at
        a node with ``node_gap`` is tried; a node turned down counts in ``skipped``."""
        if self.value is None or budget is None or self.value.worth(budget, node_gap):
            return True
        self.skipped += 1
        return False

    def wants_partial(self) -> bool:
        return not self.timed or \
            self.partial_seconds <= PARTIAL_SHARE * (time.perf_counter() - self.started)

    def record(self, outcome: str, node_gap: float, full: bool = True, partial: bool = False,
               better: bool = False, seconds: float = 0.0) -> None:
        """One node closing's ``outcome``; ``full``: the full closing was
        tried (else only a partial one), ``partial``: a partial closing ran,
        ``better``: it improved the incumbent; ``seconds``: its time, which
        counts towards the partial closings' time share when not ``full``."""
        self.tried += 1
        if not full:
            self.partial_seconds += seconds
        self.partial += partial
        self.better += better
        self.succeeded += outcome == "optimal"
        self.timed_out += outcome == "time_limit"
        self.too_large += outcome in ("too_many_columns", "too_many_nodes") or (full and partial)
        if not full:
            return
        if self.value is not None:
            self.value.observe_closing(seconds, outcome == "optimal", node_gap)
        if partial or outcome in ("too_many_columns", "too_many_nodes", "time_limit"):
            self.limit = 0.8 * node_gap         # the full closing did not fit (or finish)
        elif outcome == "optimal":
            self.limit = max(self.limit, 1.25 * node_gap)


def close_node(D, X, k, master, stop, node, rounder, tol_abs, max_columns, deadline, ctx,
                mip, partial=0, info=None):
    """Gap closing at a tree node (route enumeration in the spirit of Baldacci,
    Christofides & Mingozzi 2008): at the duals where the node's column
    generation converged (bound L), every cluster of a partition of the node's
    subtree cheaper than the incumbent UB has a reduced cost (cut penalties
    included) below UB − L; the allowed ones are enumerated and the integer
    master over them and the incumbent's groups is solved.  Returns
    (outcome, bound): outcome "optimal" when the subtree is closed (the MIP's
    partition offered to ``rounder``), else why not; bound a lower bound for
    the subtree proved by a time-limited MIP, or None.  Costs one enumeration
    per size (at most ``max_columns`` clusters in all) plus one MIP, whose
    options ``mip`` gives (:meth:`~mipagg.exact.bp.BranchAndPrice.closing_mip`).  With
    ``partial`` > 0, too many clusters make it a partial closing over at most
    ``partial`` of them (:func:`~mipagg.exact.gapclosing.close_gap_by_enumeration`;
    ``max_columns`` 0 goes straight to it), whose bound min(B, L + τ) holds
    for the subtree; ``info`` (a dict) then gets its threshold ``tau``."""
    cons = cut_constraints(master, master.n, stop.cut_duals, node.together, node.apart,
                           node.sizes_out, stop.count_penalty)
    outcome, opt, bound = close_gap_by_enumeration(
        D, X, k, stop.duals, rounder.best_sse - stop.bound + tol_abs, rounder.best, max_columns,
        deadline, constraints=cons, ctx=ctx, lower=stop.bound - tol_abs,
        partial_columns=partial, info=info, **mip)
    if opt is not None:
        rounder.offer(opt)
    if outcome == "optimal" or bound is None:
        return outcome, None
    return outcome, min(bound, rounder.best_sse)
