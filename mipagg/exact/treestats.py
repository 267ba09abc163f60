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
* Floor: every open node below the cutoff is processed (and counted) before
  the tree ends, unless a better incumbent cuts it off, so both estimates
  are at least the nodes done plus the open nodes.  On the Tarragona k = 5
  tree every weight estimate of the progress series lay below that floor
  (docs/bench/casc_gap.md §36).
* Time left: the estimated nodes still to do at the pace of the run so far
  (its nodes per second in the tree), as crude as the estimate it rests on.
* Bound trend (:class:`BoundTrend`): the gap as progress measure, projected
  (Hendel et al. 2022 forecast each measure's trend): the nodes until the
  certified bound reaches the cutoff if it keeps rising as it did over the
  last half of the nodes seen (at least ``MIN_WINDOW``).  Where the tree
  weight barely moves while the tree grows (every open node's bound below the
  cutoff, as on Tarragona k = 5, docs/bench/casc_gap.md §29), the weight's
  estimate grows with the tree and the trend is the honest one; None while
  the bound has not risen over the window.
"""

from __future__ import annotations

import math

__all__ = ["gap_closed", "finished_weight", "tree_estimate", "seconds_left", "open_gap",
           "BoundTrend"]

MIN_WINDOW = 10         # nodes: the bound trend's shortest window
MAX_SAMPLES = 512       # samples a trend keeps (thinned, every other one, past that)


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
    """Estimated total nodes of the tree, at least the nodes done and open
    (None while nothing is finished)."""
    depths = list(open_depths)
    w = finished_weight(depths)
    if w <= 1e-12:
        return None
    return max(nodes + len(depths), int(round(nodes / w)))


def open_gap(cutoff: float, open_bounds) -> float:
    """Σ (cutoff − bound) over the open nodes below the cutoff: the bound the
    tree must still gain in all (docs/bench/casc_gap.md §35)."""
    return float(sum(cutoff - b for b in open_bounds if b < cutoff))


def seconds_left(estimate: int | None, nodes: int, nodes_run: int, seconds_run: float):
    """Seconds until a tree of ``estimate`` nodes, ``nodes`` of them done, ends
    at the pace of the run so far (``nodes_run`` nodes in ``seconds_run``
    seconds of tree); None without an estimate or before the run's first node."""
    if estimate is None or nodes_run <= 0 or seconds_run <= 0:
        return None
    return max(0, estimate - nodes) * seconds_run / nodes_run


class BoundTrend:
    """The certified bound against the nodes done, sampled after nodes
    (:meth:`observe`), and its projection to a target (:meth:`nodes_to`).
    ``samples`` are (nodes, bound) pairs with rising node counts; a
    checkpoint keeps them, so a resumed tree goes on with its trend."""

    def __init__(self, samples=()):
        self.samples = [(int(n), float(b)) for n, b in samples]

    def observe(self, nodes: int, bound) -> None:
        """The bound after ``nodes`` nodes (ignored when not finite)."""
        if bound is None or not math.isfinite(bound):
            return
        if self.samples and nodes <= self.samples[-1][0]:
            if nodes == self.samples[-1][0]:
                self.samples[-1] = (int(nodes), float(bound))
            return
        self.samples.append((int(nodes), float(bound)))
        if len(self.samples) > MAX_SAMPLES:
            self.samples = self.samples[:-1:2] + self.samples[-1:]

    def slope(self) -> float | None:
        """The bound's rise per node over the window, None before it spans
        ``MIN_WINDOW`` nodes."""
        if len(self.samples) < 2:
            return None
        n_last, b_last = self.samples[-1]
        span = n_last - self.samples[0][0]
        if span < MIN_WINDOW:
            return None
        start = n_last - max(MIN_WINDOW, span / 2)
        n0, b0 = next((n, b) for n, b in reversed(self.samples) if n <= start)
        return (b_last - b0) / (n_last - n0)

    def nodes_to(self, target, open_nodes: int = 0) -> int | None:
        """Nodes until the bound reaches ``target`` at the window's pace, at
        least ``open_nodes`` (the open nodes below it; 0 when the bound is
        there; None without a rise to project)."""
        rate = self.slope()
        if rate is None or target is None or not math.isfinite(target):
            return None
        left = target - self.samples[-1][1]
        if left <= 0:
            return 0
        return None if rate <= 0 else max(open_nodes, int(math.ceil(left / rate)))
