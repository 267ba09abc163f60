"""Subset-row cut rounds at tree nodes of ``bp`` (branch-cut-and-price).

The root separates subset-row cuts (Jepsen, Sigurd, Spoorendonk & Pisinger
2008; :mod:`mipagg.exact.cuts`) until they tail off; in a degenerate tree the
node LPs then barely move under Ryan–Foster branching (issue 22: hundreds of
nodes, none pruned).  A cut is valid for every partition, so cuts separated
at a node's fractional solution join the master's global rows and every node
after it pays their duals; the node's column generation is re-run after each
round.
"""

from __future__ import annotations

__all__ = ["node_cut_rounds"]


def node_cut_rounds(master, res, bound, rerun, *, ub, rounds, per_round, min_violation,
                    tail_off, separate):
    """At most ``rounds`` rounds at one node: separate cuts violated by the
    node's master solution (``separate(master, sol, n, per_round,
    min_violation)``), add them, re-run the node's column generation
    (``rerun(bound)`` → (result, bound)); stop when no cut is violated, the
    node's loop did not converge, or a round raised the bound by less than
    ``tail_off`` of the gap ``ub() − bound``.  Returns (result, bound, cuts
    added)."""
    added = 0
    for _ in range(rounds):
        if res.stop.reason != "converged" or res.solution is None or bound >= ub():
            break
        found = separate(master, res.solution, master.n, per_round, min_violation)
        if not found:
            break
        new = master.add_cuts(found)
        if not new:
            break
        added += new
        before = bound
        res, bound = rerun(bound)
        if bound - before < tail_off * max(ub() - before, 0.0):
            break
    return res, bound, added
