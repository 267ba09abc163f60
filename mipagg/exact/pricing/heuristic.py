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

from ...errors import ParameterError
from ._common import PricingResult, reduced_cost, sorted_result, start_pricing
from .constraints import PricingConstraints
from .forbidden import forbidden_table, is_forbidden

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


@njit(cache=True, nogil=True)
def _take(w, D, avail, edge, banned, cutcnt, apart_start, apart_idx, cut_start, cut_idx,
          cut_num):
    """Put record ``w`` into the cluster being grown: mark it used, add its
    distances to ``edge``, ban its apart partners, count it in its cuts."""
    avail[w] = False
    for u in range(D.shape[0]):
        edge[u] += D[w, u]
    for z in range(apart_start[w], apart_start[w + 1]):
        banned[apart_idx[z]] += 1
    for z in range(cut_start[w], cut_start[w + 1]):
        cutcnt[cut_idx[z]] += cut_num[z]


@njit(cache=True, nogil=True)
def _greedy_pricing(D, duals, eta, order, weight, tol, fb_hash, fb_rows, out, comp_of,
                    comp_start, comp_members, apart_start, apart_idx, cut_start, cut_idx, mu,
                    cut_num, cut_den):
    """Compiled SolveHeuristicPricing loop: the same seeds, argmin choices
    (first minimum) and acceptance test as the numpy version, writing the
    accepted clusters (sorted) to ``out``; returns their number.

    Node constraints and cuts (:mod:`.constraints`): a record apart from a
    member is never chosen, a record joins with its whole together component
    (or not at all, when the component does not fit or is not free), and a
    record's score and the cluster's reduced cost include the cut penalties.
    With no constraint and no cut this is exactly the seed's routine."""
    n = D.shape[0]
    unassigned = np.ones(n, dtype=np.bool_)
    avail = np.empty(n, dtype=np.bool_)
    edge = np.empty(n)
    banned = np.zeros(n, dtype=np.int64)
    cutcnt = np.zeros(max(mu.size, 1), dtype=np.int64)
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
        cv = comp_of[v]
        if comp_start[cv + 1] - comp_start[cv] > eta:
            continue
        avail[:] = unassigned
        banned[:] = 0
        cutcnt[:] = 0
        for u in range(n):
            edge[u] = 0.0
        size = 0
        ok = True
        # seed: v with its component
        for q in range(comp_start[cv], comp_start[cv + 1]):
            w = comp_members[q]
            if w != v and not avail[w]:
                ok = False
            members[size] = w
            size += 1
        if not ok:
            continue
        for q in range(size):
            _take(members[q], D, avail, edge, banned, cutcnt, apart_start, apart_idx,
                  cut_start, cut_idx, cut_num)
        while size < eta and ok:
            w = -1
            best = np.inf
            for u in range(n):
                if avail[u] and banned[u] == 0:
                    cu = comp_of[u]
                    if comp_start[cu + 1] - comp_start[cu] > eta - size:
                        continue
                    fits = True
                    for q in range(comp_start[cu], comp_start[cu + 1]):
                        x = comp_members[q]
                        if not avail[x] or banned[x] > 0:
                            fits = False
                    if not fits:
                        continue
                    score = edge[u] / eta - weight * duals[u]
                    for z in range(cut_start[u], cut_start[u + 1]):
                        s = cut_idx[z]
                        c = cutcnt[s]
                        score += mu[s] * ((c + cut_num[z]) // cut_den[s] - c // cut_den[s])
                    if score < best:
                        best = score
                        w = u
            if w < 0:
                ok = False
                break
            cw = comp_of[w]
            for q in range(comp_start[cw], comp_start[cw + 1]):
                x = comp_members[q]
                members[size] = x
                size += 1
                _take(x, D, avail, edge, banned, cutcnt, apart_start, apart_idx,
                      cut_start, cut_idx, cut_num)
        if not ok or size != eta:
            continue
        srt = np.sort(members)
        rc = 0.0
        for a in range(eta):
            for b in range(a + 1, eta):
                rc += D[srt[a], srt[b]]
        rc = rc / eta
        for a in range(eta):
            rc -= duals[srt[a]]
        for s in range(mu.size):
            if cutcnt[s] >= cut_den[s]:
                rc += mu[s] * (cutcnt[s] // cut_den[s])
        if rc < -tol and not (fb_hash.size > 0 and is_forbidden(srt, fb_hash, fb_rows)):
            out[count, :] = srt
            count += 1
            for a in range(eta):
                if unassigned[srt[a]]:
                    unassigned[srt[a]] = False
                    n_free -= 1
    return count


def heuristic_pricing(D, duals, eta, *, max_columns=10, tol=1e-9, forbidden=None,
                      time_limit=None, criterion="pseudocode", compiled=True,
                      constraints=None, checked=False) -> PricingResult:
    """SolveHeuristicPricing (seed 001, section 5.1): disjoint clusters of size
    η with negative reduced cost, found greedily; ``exact`` is always False.

    ``forbidden`` clusters are never returned (a forbidden greedy cluster is
    treated like a non-negative one).  At most ``max_columns`` columns are
    returned, best first.  O(n²·η).  ``compiled=True`` runs the loop in one
    numba kernel (same clusters; reduced costs are recomputed by
    :func:`reduced_cost`, and the clock is only checked before it starts),
    ``compiled=False`` the numpy reference.  ``constraints``: a node's
    branching pairs and cut penalties (:class:`.constraints.PricingConstraints`,
    compiled kernel only); no returned column violates them and reported
    reduced costs include the penalties.  ``checked=True`` skips the input
    validation (callers that validated D once, e.g. column generation).

    >>> D = np.array([[0., 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1], [9, 9, 1, 0]])
    >>> r = heuristic_pricing(D, np.full(4, 1.0), 2)
    >>> [c.tolist() for c in r.columns], r.reduced_costs
    ([[0, 1], [2, 3]], [-1.5, -1.5])
    """
    if criterion not in ("pseudocode", "increase"):
        raise ValueError(f"criterion must be 'pseudocode' or 'increase', got {criterion!r}")
    D, duals, eta, clock, banned = start_pricing(D, duals, eta, forbidden, max_columns=max_columns,
                                                 time_limit=time_limit, tol=tol, checked=checked)
    n = D.shape[0]
    found: dict[tuple[int, ...], float] = {}
    status = "heuristic"
    order = np.argsort(-duals, kind="stable")
    cons = constraints if constraints is not None else PricingConstraints.none(n)
    if not compiled and not cons.trivial:
        raise ParameterError("the numpy reference (compiled=False) takes no constraints")
    if not cons.feasible:          # an apart pair inside a together component: no partition
        return sorted_result(found, exact=False, min_rc=None, status=status, clock=clock,
                             max_columns=max_columns)
    if compiled:
        weight = 1.0 / (eta - 1) if criterion == "pseudocode" else 1.0
        fb_hash, fb_rows = forbidden_table(banned, eta)
        out = np.empty((n // eta, eta), dtype=np.int64)
        m = _greedy_pricing(D, duals, eta, order, weight, float(tol), fb_hash, fb_rows, out,
                            cons.comp_of, cons.comp_start, cons.comp_members, cons.apart_start,
                            cons.apart_idx, cons.cut_start, cons.cut_idx, cons.mu,
                            cons.cut_num, cons.cut_den)
        for row in out[:m]:
            key = tuple(row.tolist())
            found[key] = reduced_cost(D, duals, key, eta) + cons.penalty(key)
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
