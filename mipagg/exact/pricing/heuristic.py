"""Greedy pricing: SolveHeuristicPricing of seed 001 (section 5.1).

Records are sorted by dual λ_v, largest first.  Each still-unassigned record
v in that order seeds a cluster C = {v}; C then grows to size η by adding the
unassigned record w minimising Σ_{c∈C} D[w,c]/η − λ_w/(η−1) (the
pseudocode's criterion: the edge weights of [w : C] minus w's dual spread over
its η−1 edges, as in the objective of model (14)).  If the finished C has
negative reduced cost it is kept and its records leave the unassigned set;
otherwise only v leaves.  The columns found are pairwise disjoint.

Cost O(n²·η).  :func:`heuristic_pricing` runs the whole loop in one compiled
kernel (``compiled=True``, default; 10-20× faster at n = 200, see
docs/bench/cg.md); ``compiled=False`` runs the readable numpy version built on
:func:`greedy_cluster`, which the tests compare it against.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._common import PricingResult, reduced_cost, sorted_result, start_pricing
from .enumeration import _is_forbidden, forbidden_table

__all__ = ["heuristic_pricing", "greedy_cluster"]


def greedy_cluster(D, duals, eta, seed_node, available, *, criterion="pseudocode"):
    """Grow ``{seed_node}`` to size η over the boolean mask ``available``
    (seed_node excluded from it) with the SolveHeuristicPricing rule;
    ``criterion="increase"`` uses the true reduced-cost increase
    Σ D[w,c]/η − λ_w instead.  Returns the cluster (unsorted) or None."""
    weight = 1.0 / (eta - 1) if criterion == "pseudocode" else 1.0
    avail = available.copy()
    avail[seed_node] = False
    if avail.sum() < eta - 1:
        return None
    members = [seed_node]
    edge = D[seed_node].copy()  # Σ_{c∈C} D[w, c] for every w
    for _ in range(eta - 1):
        score = np.where(avail, edge / eta - weight * duals, np.inf)
        w = int(np.argmin(score))
        members.append(w)
        avail[w] = False
        edge += D[w]
    return members


@njit(cache=True)
def _greedy_pricing(D, duals, eta, order, weight, tol, fb_hash, fb_rows, out):
    """Compiled SolveHeuristicPricing loop: the same seeds, argmin choices
    (first minimum) and acceptance test as the numpy version, writing the
    accepted clusters (sorted) to ``out``; returns their number."""
    n = D.shape[0]
    unassigned = np.ones(n, dtype=np.bool_)
    avail = np.empty(n, dtype=np.bool_)
    edge = np.empty(n)
    members = np.empty(eta, dtype=np.int64)
    n_free = n
    count = 0
    for v in order:
        if n_free < eta:
            break
        if not unassigned[v]:
            continue
        unassigned[v] = False
        n_free -= 1
        avail[:] = unassigned
        members[0] = v
        for u in range(n):
            edge[u] = D[v, u]
        for s in range(1, eta):
            w = -1
            best = np.inf
            for u in range(n):
                if avail[u]:
                    score = edge[u] / eta - weight * duals[u]
                    if score < best:
                        best = score
                        w = u
            members[s] = w
            avail[w] = False
            for u in range(n):
                edge[u] += D[w, u]
        srt = np.sort(members)
        rc = 0.0
        for a in range(eta):
            for b in range(a + 1, eta):
                rc += D[srt[a], srt[b]]
        rc = rc / eta
        for a in range(eta):
            rc -= duals[srt[a]]
        if rc < -tol and not (fb_hash.size > 0 and _is_forbidden(srt, fb_hash, fb_rows)):
            out[count, :] = srt
            count += 1
            for a in range(eta):
                if unassigned[srt[a]]:
                    unassigned[srt[a]] = False
                    n_free -= 1
    return count


def heuristic_pricing(D, duals, eta, *, max_columns=10, tol=1e-9, forbidden=None,
                      time_limit=None, criterion="pseudocode", compiled=True) -> PricingResult:
    """SolveHeuristicPricing (seed 001, section 5.1): disjoint clusters of size
    η with negative reduced cost, found greedily; ``exact`` is always False.

    ``forbidden`` clusters are never returned (a forbidden greedy cluster is
    treated like a non-negative one).  At most ``max_columns`` columns are
    returned, best first.  O(n²·η).  ``compiled=True`` runs the loop in one
    numba kernel (same clusters; reduced costs are recomputed by
    :func:`reduced_cost`, and the clock is only checked before it starts),
    ``compiled=False`` the numpy reference.

    >>> D = np.array([[0., 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]])
    >>> r = heuristic_pricing(D, np.full(4, 1.0), 2)
    >>> [c.tolist() for c in r.columns], r.reduced_costs
    ([[0, 1], [2, 3]], [-1.5, -1.5])
    """
    if criterion not in ("pseudocode", "increase"):
        raise ValueError(f"criterion must be 'pseudocode' or 'increase', got {criterion!r}")
    D, duals, eta, clock, banned = start_pricing(D, duals, eta, forbidden, max_columns=max_columns,
                                                 time_limit=time_limit, tol=tol)
    n = D.shape[0]
    found: dict[tuple[int, ...], float] = {}
    status = "heuristic"
    order = np.argsort(-duals, kind="stable")
    if compiled:
        weight = 1.0 / (eta - 1) if criterion == "pseudocode" else 1.0
        fb_hash, fb_rows = forbidden_table(banned, eta)
        out = np.empty((n // eta, eta), dtype=np.int64)
        m = _greedy_pricing(D, duals, eta, order, weight, float(tol), fb_hash, fb_rows, out)
        for row in out[:m]:
            key = tuple(row.tolist())
            found[key] = reduced_cost(D, duals, key, eta)
        return sorted_result(found, exact=False, min_rc=None, status=status, clock=clock,
                             max_columns=max_columns)
    unassigned = np.ones(n, dtype=bool)
    for v in order:
        if unassigned.sum() < eta:
            break
        if not unassigned[v]:
            continue
        if clock.expired():
            status = "time_limit"
            break
        unassigned[v] = False
        members = greedy_cluster(D, duals, eta, v, unassigned, criterion=criterion)
        if members is None:
            break
        key = tuple(sorted(members))
        rc = reduced_cost(D, duals, key, eta)
        if rc < -tol and key not in banned:
            found[key] = rc
            unassigned[list(key)] = False
    return sorted_result(found, exact=False, min_rc=None, status=status, clock=clock,
                         max_columns=max_columns)
