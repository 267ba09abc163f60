"""The diving heuristic of branch-and-price (:func:`dive`), run by
:mod:`mipagg.exact.bp` after the root's cut rounds."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ..partition import Partition
from .node import solve_node
from .settings import StopCriterion

__all__ = ["dive", "is_integral", "DIVE_SHARE"]

DIVE_SHARE = 0.05           # share of the groups still to form that a dive step fixes


def is_integral(sol, eps=1e-6) -> bool:
    """A master LP solution with every column at 0 or 1 and no artificial column."""
    return sol.artificial <= 1e-9 and bool(np.all((sol.x < eps) | (sol.x > 1 - eps)))


def dive(master, ctx, settings, rounder, X, end) -> int:
    """Diving heuristic of branch-and-price (in the spirit of Sadykov,
    Vanderbeck, Pessoa, Tahiri & Uchoa, Primal heuristics for branch and
    price: the assets of diving methods, INFORMS J. Comput. 2019): fix at 1
    every column with x ≥ 0.999 and the largest fractional columns (disjoint,
    about 5 % of the groups still to form), forbid the columns overlapping
    them, re-run column generation (fixed records get a prohibitive dual, so
    no new cluster holds one; no bound is computed), until the master is
    integral, uses an artificial column (records stranded), or ``end``
    passes (None: no clock); then the groups at 1, completed by sending every
    uncovered record to the nearest group, are offered to ``rounder``.  When
    the time left before ``end``, at the pace of the steps so far, would not
    reach the end of the dive, a step fixes more than 5 % (:func:`_dive_share`):
    a dive cut short leaves most records to that nearest-group completion.
    The master is restored (bounds only; the columns found stay in the pool).
    Returns the number of fixing steps."""
    st = replace(settings, pricing="auto", lagrangian=False)
    forbidden = np.flatnonzero(~master.allowed)      # the node's own: restored at the end
    fixed_rows = np.zeros(master.n, dtype=bool)
    fixed: set[int] = set()
    steps = 0
    started = time.perf_counter()

    def mask(extra=()):
        ok = np.ones(len(master.columns), dtype=bool)
        ok[forbidden] = False
        ok[extra] = False
        return ok

    try:
        while end is None or time.perf_counter() < end:
            res = solve_node(master, ctx, ctx.none, st, stop=StopCriterion(deadline=end),
                             fixed_rows=fixed_rows if fixed else None,
                             on_solution=lambda sol: rounder(master, sol),
                             best_sse=rounder.best_sse)
            sol = res.solution
            if sol is None:
                break
            x = sol.x
            cols = master.columns[:x.size]
            if sol.artificial > 1e-6 or is_integral(sol) or res.stop.reason == "time_limit":
                # integral, or a dead end (records stranded by the fixings): complete
                # the chosen groups by sending every uncovered record to the nearest
                rounder.offer(_complete([cols[j] for j in np.flatnonzero(x > 0.5)], X))
                break
            groups_left = int((~fixed_rows).sum()) / (1.5 * ctx.k)   # groups of about 1.5 k
            share = _dive_share(groups_left, steps + 1, started, end, time.perf_counter())
            # (1e-9: 5 % of exactly 20 groups is one group, whatever the rounding)
            quota = max(1, int(groups_left * share + 1e-9))
            chosen = _dive_choice(x, cols, fixed, fixed_rows, quota)
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


def _dive_share(groups_left: float, solves: int, started: float, end: float | None,
                now: float) -> float:
    """Share of the groups still to form (about ``groups_left``) that the next
    dive step fixes: 5 %, or, when ``end`` is near, the share s with
    groups_left·(1 − s)^m ≤ 1 over the m steps that the time left allows at
    the mean pace of the ``solves`` master solves so far (1: fix all it can)."""
    if end is None:
        return DIVE_SHARE
    steps_left = (end - now) / max((now - started) / solves, 1e-9)
    if steps_left < 1.0:
        return 1.0
    return min(1.0, max(DIVE_SHARE, 1.0 - max(groups_left, 1.0) ** (-1.0 / steps_left)))


def _dive_choice(x, cols, fixed, fixed_rows, quota: int) -> list[int]:
    """The columns a dive step fixes: every column at 1 and the ``quota``
    largest fractional ones, pairwise disjoint and disjoint from the records
    already fixed."""
    chosen, rows = [], fixed_rows.copy()
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
