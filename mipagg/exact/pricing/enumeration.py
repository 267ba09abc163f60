"""Exact pricing by complete enumeration with bounds (SolveCompleteEnumeration
of seed 001, section 5.1, made practical by branch and bound).

Every cluster of size η is enumerated implicitly by the depth-first branch
and bound of :mod:`.search` (sorted candidate keys with a completion bound,
window pruning, truncation, branching constraints and subset-row cut
penalties, parallel root split).  Worst case O(C(n, η)·n log n), in practice
a tiny fraction of that (docs/bench/pricing.md).  ``enumerate_reference`` is
the plain itertools version the tests compare against; the forbidden-cluster
hash table is in :mod:`.forbidden`, shared with the heuristic pricing.
"""

from __future__ import annotations

import itertools

import numpy as np

from ._common import PricingResult, reduced_cost, sorted_result, start_pricing
from .constraints import PricingConstraints
from .forbidden import forbidden_table
from .search import SearchSpace, search_clusters

__all__ = ["enumeration_pricing", "enumerate_reference"]


def enumerate_reference(D, duals, eta):
    """All clusters of size η with their reduced costs, by itertools
    (O(C(n, η)·η²); small n only).  Returns (clusters (m, η) array, costs)."""
    D = np.asarray(D, dtype=float)
    duals = np.asarray(duals, dtype=float)
    combos = list(itertools.combinations(range(D.shape[0]), eta))
    costs = np.array([reduced_cost(D, duals, c, eta) for c in combos])
    return np.array(combos, dtype=np.int64).reshape(-1, eta), costs


def enumeration_pricing(D, duals, eta, *, max_columns=10, time_limit=None, tol=1e-9,
                        forbidden=None, constraints=None, floor=None, threads=1,
                        space=None, checked=False) -> PricingResult:
    """Exact pricing at size η by implicit complete enumeration (seed 001,
    section 5.1, SolveCompleteEnumeration, with the bounds of
    :mod:`.search`).

    Returns the ``max_columns`` clusters of least reduced cost among those
    below −tol, best first; ``exact`` and ``min_reduced_cost`` (over all
    clusters allowed by ``constraints`` and not in ``forbidden``) when the
    search completes, else status "time_limit" and the columns found so far.
    ``floor``: the minimum is only needed when below it (``info["min_exact"]``
    False and ``min_reduced_cost`` = floor, a valid lower bound, otherwise).
    ``threads`` > 1 searches the root's children in parallel; ``space`` a
    prebuilt :class:`.search.SearchSpace` (skips O(n²) set-up).  Worst case
    O(C(n, η)·n log n).

    >>> D = np.array([[0., 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]])
    >>> r = enumeration_pricing(D, np.array([1., 1, 1, 0.5]), 2)
    >>> r.columns[0].tolist(), r.min_reduced_cost, r.exact
    ([0, 1], -1.5, True)
    """

    D, duals, eta, clock, banned = start_pricing(D, duals, eta, forbidden, max_columns=max_columns,
                                                 time_limit=time_limit, tol=tol, checked=checked)
    n = D.shape[0]
    cons = constraints if constraints is not None else PricingConstraints.none(n)
    space = space if space is not None else SearchSpace.build(D, eta)
    deadline = None if time_limit is None else clock.start + float(time_limit)
    out = search_clusters(space, duals, cons, mode="best", max_columns=max_columns, tol=tol,
                          floor=floor, forbidden=forbidden_table(banned, eta) if banned else None,
                          deadline=deadline, threads=threads)
    # recompute with the plain formula so reported costs do not depend on summation order
    found = {tuple(c.tolist()): reduced_cost(D, duals, c, eta) + cons.penalty(c)
             for c in out.columns}
    found = {c: v for c, v in found.items() if v < -tol}
    info = {"expansions": out.expansions, "min_exact": out.min_exact}
    if out.status != "complete":
        return sorted_result(found, exact=False, min_rc=None, status="time_limit", clock=clock,
                             max_columns=max_columns, info=info)
    if out.min_rc is None:   # no allowed cluster of size η at all
        return sorted_result({}, exact=True, min_rc=None, status="optimal", clock=clock,
                             max_columns=max_columns, info={**info, "all_forbidden": True})
    min_rc = out.min_rc
    if out.min_exact:
        min_rc = reduced_cost(D, duals, out.best, eta) + cons.penalty(out.best)
    return sorted_result(found, exact=True, min_rc=min_rc, status="optimal", clock=clock,
                         max_columns=max_columns, info=info)
