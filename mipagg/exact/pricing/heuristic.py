"""Greedy pricing: SolveHeuristicPricing of seed 001 (section 5.1).

Records are sorted by dual λ_v, largest first.  Each still-unassigned record
v in that order seeds a cluster C = {v}; C then grows to size η by adding the
unassigned record w minimising Σ_{c∈C} D[w,c]/η − λ_w/(η−1) (the
pseudocode's criterion: the edge weights of [w : C] minus w's dual spread over
its η−1 edges, as in the objective of model (14)).  If the finished C has
negative reduced cost it is kept and its records leave the unassigned set;
otherwise only v leaves.  The columns found are pairwise disjoint.

Cost O(n²·η) with the inner argmin vectorised over the unassigned records.
"""

from __future__ import annotations

import numpy as np

from ._common import (Clock, PricingResult, check_pricing_input, forbidden_set,
                      reduced_cost, sorted_result)

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


def heuristic_pricing(D, duals, eta, *, max_columns=10, tol=1e-9, forbidden=None,
                      time_limit=None, criterion="pseudocode") -> PricingResult:
    """SolveHeuristicPricing (seed 001, section 5.1): disjoint clusters of size
    η with negative reduced cost, found greedily; ``exact`` is always False.

    ``forbidden`` clusters are never returned (a forbidden greedy cluster is
    treated like a non-negative one).  At most ``max_columns`` columns are
    returned, best first.  O(n²·η).

    >>> D = np.array([[0., 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]])
    >>> r = heuristic_pricing(D, np.full(4, 1.0), 2)
    >>> [c.tolist() for c in r.columns], r.reduced_costs
    ([[0, 1], [2, 3]], [-1.5, -1.5])
    """
    if criterion not in ("pseudocode", "increase"):
        raise ValueError(f"criterion must be 'pseudocode' or 'increase', got {criterion!r}")
    D, duals, eta = check_pricing_input(D, duals, eta, max_columns=max_columns,
                                        time_limit=time_limit, tol=tol)
    clock = Clock(time_limit)
    n = D.shape[0]
    banned = forbidden_set(forbidden, eta, n)
    unassigned = np.ones(n, dtype=bool)
    found: dict[tuple[int, ...], float] = {}
    status = "heuristic"
    for v in np.argsort(-duals, kind="stable"):
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
