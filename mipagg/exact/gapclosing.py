"""Gap closing by reduced-cost column enumeration, shared by ``cg`` and ``bp``.

Once column generation has certified a Lagrangian bound L at duals λ, every
partition cheaper than the incumbent UB uses only clusters whose reduced cost
at λ is below UB − L (SSE(π) = Σλ + Σ_{C∈π} w̄_C); enumerating them and solving
the set-partitioning MIP over them either proves the incumbent optimal or
finds the optimum (in the spirit of Baldacci, Christofides & Mingozzi 2008).

When the clusters below UB − L are too many, a *partial* closing still
certifies a bound: a partition that uses a cluster of reduced cost τ or more
costs at least L + τ, so with S_τ the clusters below τ and B the integer
master's bound over S_τ (its optimum, or its dual bound on a time limit),
every partition costs at least min(B, L + τ); if the master's optimum is
below L + τ it is the optimum.  τ is the largest threshold whose clusters
fit in a small budget (UB − L halved until they fit, then 6 bisection
steps): the MIP over a few thousand clusters is solved in seconds, over
2·10⁵ it may not reach its LP bound in minutes (docs/bench/partial_closing.md).
"""

from __future__ import annotations

import time

import numpy as np

from ..partition import Partition
from .bounds import enumerate_below
from .master import cluster_weight, set_partitioning_mip

__all__ = ["close_gap_by_enumeration", "gap_columns", "partial_gap_columns",
           "GAP_CLOSING_OUTCOMES"]

GAP_CLOSING_OUTCOMES = ("not_needed", "optimal", "partial", "too_many_columns",
                        "too_many_nodes", "time_limit", "skipped", "disabled")
TOO_MANY = ("too_many_columns", "too_many_nodes")
PARTIAL_HALVINGS = 20   # the partial closing's threshold: UB − L halved until it fits,
PARTIAL_STEPS = 6       # then bisection steps


def gap_columns(D, k, duals, threshold, best, max_columns, deadline, *, constraints=None,
                ctx=None):
    """The columns of gap closing: the groups of ``best``, then every cluster
    of size k..2k−1 with reduced cost below ``threshold`` at ``duals`` (see
    :func:`close_gap_by_enumeration`).  Returns (outcome, columns, weights):
    outcome "complete", or why the enumeration stopped ("too_many_columns"
    beyond ``max_columns`` clusters, "too_many_nodes", "time_limit"), with the
    columns and their weights w_C (formula (8)) when complete, else None."""
    n = D.shape[0]
    columns = list(best.groups())
    weights = [cluster_weight(D, g) for g in columns]
    left_cap = max_columns
    for eta in range(k, min(2 * k, n + 1)):
        if constraints is not None and constraints.excludes(eta):
            continue
        outcome, found = enumerate_below(
            D, duals if constraints is None else constraints.duals_for(duals, eta), eta,
            threshold, max_columns=left_cap + 1, deadline=deadline,
            constraints=constraints, space=None if ctx is None else ctx.space(eta),
            threads=1 if ctx is None else ctx.threads)
        if outcome == "complete" and len(found) > left_cap:
            outcome = "too_many_columns"
        if outcome != "complete":
            return outcome, None, None
        left_cap -= len(found)
        columns.extend(found)
        if found.size:   # w_C of the whole block at once
            weights.extend(D[found[:, :, None], found[:, None, :]].sum(axis=(1, 2)) / (2.0 * eta))
    return "complete", columns, weights


def partial_gap_columns(D, k, duals, threshold, best, max_columns, deadline, *,
                        constraints=None, ctx=None, steps=PARTIAL_STEPS,
                        halvings=PARTIAL_HALVINGS):
    """The largest τ below ``threshold`` whose clusters fit in ``max_columns``:
    ``threshold`` halved until they fit (at most ``halvings`` times), then
    ``steps`` bisection steps between the last τ that fits and the first that
    did not.  Returns (τ, columns, weights) as :func:`gap_columns` gives
    them, or None when none fits (or ``deadline`` passed)."""
    def attempt(tau):
        return gap_columns(D, k, duals, tau, best, max_columns, deadline,
                           constraints=constraints, ctx=ctx)

    hi, found = float(threshold), None
    for _ in range(halvings):
        outcome, columns, weights = attempt(0.5 * hi)
        if outcome == "complete":
            found = (0.5 * hi, columns, weights)
            break
        if outcome not in TOO_MANY:
            return None
        hi *= 0.5
    if found is None:
        return None
    lo = found[0]
    for _ in range(steps):
        tau = 0.5 * (lo + hi)
        outcome, columns, weights = attempt(tau)
        if outcome == "complete":
            lo, found = tau, (tau, columns, weights)
        elif outcome in TOO_MANY:
            hi = tau
        else:
            break
    return found


def close_gap_by_enumeration(D, X, k, duals, threshold, best, max_columns, deadline, *,
                             constraints=None, ctx=None, cuts=(), presolve="off", lower=None,
                             partial_columns=0, info=None, restart=True):
    """Enumerate the clusters of size k..2k−1 with reduced cost below ``threshold``
    at ``duals`` (where the Lagrangian bound L was certified, threshold = UB − L;
    ``constraints`` carry the cut penalties at the certified cut duals, and
    ``ctx`` a :class:`PricingContext` whose search spaces and threads are reused)
    and solve the set-partitioning MIP over them and the groups of ``best``,
    with the master's rank-1 ``cuts`` as rows (valid for every partition: the
    MIP's relaxation starts at the cut bound, not at the LP bound below it)
    and HiGHS ``presolve`` ("off" or "on") and ``restart`` (:func:`set_partitioning_mip`),
    stopping at ``deadline`` (the enumeration checks it between slices, the MIP
    gets the remaining time).  Returns (outcome, partition, bound): outcome
    "optimal", "too_many_columns", "too_many_nodes", "time_limit" or another
    HiGHS status; partition the MIP's best partition (or None); bound a lower
    bound on the optimum proved by the MIP (its value, or on a time limit its
    dual bound, which is valid because every partition better than UB uses
    only enumerated clusters), or None.

    ``lower``: the certified bound L at ``duals`` (less a tolerance); given
    with ``partial_columns`` > 0, too many clusters below ``threshold`` make
    it a partial closing over at most ``partial_columns`` clusters (module
    docstring): outcome "partial" with bound min(B, L + τ), or "optimal" when
    the master's optimum is below L + τ.  ``info`` (a dict) gets ``tau``
    when the closing was partial."""
    outcome, columns, weights = gap_columns(D, k, duals, threshold, best, max_columns,
                                            deadline, constraints=constraints, ctx=ctx)
    if outcome in TOO_MANY and lower is not None and partial_columns > 0:
        part = partial_gap_columns(D, k, duals, threshold, best,
                                   partial_columns, deadline, constraints=constraints, ctx=ctx)
        if part is None:
            return outcome, None, None
        tau, columns, weights = part
        if info is not None:
            info["tau"] = tau
        status, opt, bound = _solve_master(X, k, columns, weights, best, deadline, cuts,
                                           presolve, restart)
        if bound is None:           # the MIP proved nothing: the full closing's outcome
            return outcome, opt, None
        if status == "optimal" and bound < lower + tau:
            return "optimal", opt, bound
        return "partial", opt, min(bound, lower + tau)
    if outcome != "complete":
        return outcome, None, None
    return _solve_master(X, k, columns, weights, best, deadline, cuts, presolve, restart)


def _solve_master(X, k, columns, weights, best, deadline, cuts, presolve, restart=True):
    """The set-partitioning MIP over ``columns`` (the groups of ``best``
    first, its start) until ``deadline``: (status, partition, bound) as
    :func:`close_gap_by_enumeration` returns them."""
    n = X.shape[0]
    left = None
    if deadline is not None:
        left = deadline - time.perf_counter() - 0.05   # building the model
        if left <= 0:
            return "time_limit", None, None
    info: dict = {}
    status, _, chosen = set_partitioning_mip(n, columns, weights, time_limit=left,
                                             start=range(best.n_groups), info=info,
                                             cuts=cuts, presolve=presolve, restart=restart)
    part = None if chosen is None else Partition.from_groups([columns[j] for j in chosen], X)
    if part is not None and not part.is_feasible(k):   # never expected; be safe
        part = None
    if status == "optimal":
        return "optimal", part, None if part is None else part.sse()
    bound = info.get("dual_bound")
    return status, part, bound if bound is not None and np.isfinite(bound) else None
