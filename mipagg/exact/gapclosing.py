"""Gap closing by reduced-cost column enumeration, shared by ``cg`` and ``bp``.

Once column generation has certified a Lagrangian bound L at duals λ, every
partition cheaper than the incumbent UB uses only clusters whose reduced cost
at λ is below UB − L (SSE(π) = Σλ + Σ_{C∈π} w̄_C); enumerating them and solving
the set-partitioning MIP over them either proves the incumbent optimal or
finds the optimum (in the spirit of Baldacci, Christofides & Mingozzi 2008).
"""

from __future__ import annotations

import time

import numpy as np

from ..partition import Partition
from .bounds import enumerate_below
from .master import cluster_weight, set_partitioning_mip

__all__ = ["close_gap_by_enumeration", "gap_columns", "GAP_CLOSING_OUTCOMES"]

GAP_CLOSING_OUTCOMES = ("not_needed", "optimal", "too_many_columns", "too_many_nodes",
                        "time_limit", "skipped", "disabled")


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
        outcome, found = enumerate_below(
            D, duals, eta, threshold, max_columns=left_cap + 1, deadline=deadline,
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


def close_gap_by_enumeration(D, X, k, duals, threshold, best, max_columns, deadline, *,
                             constraints=None, ctx=None, cuts=(), presolve="off"):
    """Enumerate the clusters of size k..2k−1 with reduced cost below ``threshold``
    at ``duals`` (where the Lagrangian bound L was certified, threshold = UB − L;
    ``constraints`` carry the cut penalties at the certified cut duals, and
    ``ctx`` a :class:`PricingContext` whose search spaces and threads are reused)
    and solve the set-partitioning MIP over them and the groups of ``best``,
    with the master's rank-1 ``cuts`` as rows (valid for every partition: the
    MIP's relaxation starts at the cut bound, not at the LP bound below it)
    and HiGHS ``presolve`` ("off" or "on", :func:`set_partitioning_mip`),
    stopping at ``deadline`` (the enumeration checks it between slices, the MIP
    gets the remaining time).  Returns (outcome, partition, bound): outcome
    "optimal", "too_many_columns", "too_many_nodes", "time_limit" or another
    HiGHS status; partition the MIP's best partition (or None); bound a lower
    bound on the optimum proved by the MIP (its value, or on a time limit its
    dual bound, which is valid because every partition better than UB uses
    only enumerated clusters), or None."""
    n = D.shape[0]
    outcome, columns, weights = gap_columns(D, k, duals, threshold, best, max_columns,
                                            deadline, constraints=constraints, ctx=ctx)
    if outcome != "complete":
        return outcome, None, None
    left = None
    if deadline is not None:
        left = deadline - time.perf_counter() - 0.05   # building the model
        if left <= 0:
            return "time_limit", None, None
    info: dict = {}
    status, _, chosen = set_partitioning_mip(n, columns, weights, time_limit=left,
                                             start=range(best.n_groups), info=info,
                                             cuts=cuts, presolve=presolve)
    part = None if chosen is None else Partition.from_groups([columns[j] for j in chosen], X)
    if part is not None and not part.is_feasible(k):   # never expected; be safe
        part = None
    if status == "optimal":
        return "optimal", part, None if part is None else part.sse()
    bound = info.get("dual_bound")
    return status, part, bound if bound is not None and np.isfinite(bound) else None
