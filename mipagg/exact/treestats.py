"""How far a branch-and-price tree is from its end: the share of the gap
closed and a tree-size estimate, for the progress line and the run's JSON.

* Gap closed: (LB − L₀)/(UB − L₀), L₀ the root's LP bound before cuts (0 at
  the root, 1 when LB reaches UB).
* Tree-size estimate by the tree weight (used by SCIP's tree-size
  estimation, Hendel, Anderson, Le Bodic & Pfetsch, Estimating the size of
  branch-and-bound trees, INFORMS J. Comput. 2022): a binary tree's finished
  leaves at depths d cover Σ 2^−d of it; after N nodes with finished weight
  w, the whole tree is estimated at N / w nodes (None while w = 0, e.g. a
  dive that prunes nothing).  The finished weight is 1 − Σ 2^−d over the
  open nodes, so no bookkeeping is needed where nodes are pruned.
* Time left: the estimated nodes still to do at the pace of the run so far
  (its nodes per second in the tree), as crude as the estimate it rests on.
"""

from __future__ import annotations

import math

__all__ = ["gap_closed", "finished_weight", "tree_estimate", "seconds_left"]


def gap_closed(lb, ub, root_lb) -> float | None:
    """Share (0..1) of the root gap UB − L₀ closed by the bound ``lb``."""
    if lb is None or ub is None or root_lb is None or not math.isfinite(ub) or ub - root_lb <= 0:
        return None
    return min(1.0, max(0.0, (lb - root_lb) / (ub - root_lb)))


def finished_weight(open_depths) -> float:
    """Share of the binary tree finished: 1 − Σ 2^−d over the open nodes
    (a branched node hands its weight to its two children, a finished one
    keeps it)."""
    return max(0.0, 1.0 - sum(2.0 ** -d for d in open_depths))


def tree_estimate(nodes: int, open_depths) -> int | None:
    """Estimated total nodes of the tree (None while nothing is finished)."""
    w = finished_weight(open_depths)
    if w <= 1e-12:
        return None
    return max(nodes, int(round(nodes / w)))


def seconds_left(estimate: int | None, nodes: int, nodes_run: int, seconds_run: float):
    """Seconds until a tree of ``estimate`` nodes, ``nodes`` of them done, ends
    at the pace of the run so far (``nodes_run`` nodes in ``seconds_run``
    seconds of tree); None without an estimate or before the run's first node."""
    if estimate is None or nodes_run <= 0 or seconds_run <= 0:
        return None
    return max(0, estimate - nodes) * seconds_run / nodes_run
