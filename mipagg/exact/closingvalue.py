"""How long a node gap closing may take (``node_close_cost``).

A closing that closes its node saves the node's subtree; one that fails
costs its time and the subtree is branched anyway.  On the Tarragona k = 5
proof tree a closing cost as much as 50–70 nodes while the subtrees it saved
averaged 46 (docs/bench/casc_gap.md §50); on the 300-record Census blocks a
few closings replace the whole tree.  :class:`ClosingValue` gives each
closing at most what branching the node's subtree would cost: a closing that
runs out of that budget has lost no more than the subtree's time, one that
finishes within it has saved time (the rent-or-buy argument).  The subtree is
the abstract branching model's (Le Bodic & Nemhauser, "An abstract model for
branching and its application to mixed integer programming", Math. Program.
166, 2017): each branching raises the bound by the tree's recent mean gain of
a first child on one side and of a second child on the other, until the gap
to the cutoff is gone (:func:`subtree_nodes`); before a child of each side
has been solved both sides take the mean of the gains seen, and before any
``PRIOR_NODES``.  A node is turned down when its budget is below the fastest
closing so far that closed its node.  Budgets read the clock, so two runs may
try different closings; what they prove is the same.  On several workers each
worker hands what its model saw during a task to the coordinator
(:meth:`ClosingValue.take_fresh`, :meth:`ClosingValue.absorb`), whose model a
checkpoint keeps and every next task takes, so all workers learn from all nodes.
"""

from __future__ import annotations

import math
from collections import deque

__all__ = ["ClosingValue", "subtree_nodes", "WINDOW", "PRIOR_NODES"]

WINDOW = 50          # recent gains, node times and closings kept
PRIOR_NODES = 30     # the subtree before any gain is known: 4 branchings deep on each side
CAP = 1e12           # subtree sizes are counted up to this


def subtree_nodes(gap: float, a: float, b: float, cap: float = CAP) -> float:
    """Nodes solved below a node whose bound is ``gap`` under the cutoff,
    when each branching raises one child's bound by ``a`` and the other's by
    ``b``: T(g) = 0 for g ≤ 0, else 2 + T(g − a) + T(g − b).  A node i
    a-steps and j b-steps down is branched while i·a + j·b < g, so
    T = 2 Σ_j Σ_{i ≤ m_j} C(i + j, j) = 2 Σ_j C(m_j + j + 1, j + 1) with
    m_j the most a-steps left after j b-steps; at most ``cap`` (also for a
    gain ≤ 0)."""
    if gap <= 0:
        return 0.0
    a, b = sorted((a, b))
    if a <= 0 or gap / a >= cap:
        return cap
    total, j = 0, 0
    while j * b < gap:
        m = math.ceil((gap - j * b) / a) - 1
        total += 2 * math.comb(m + j + 1, j + 1)
        if total >= cap:
            return cap
        j += 1
    return float(total)


def _mean(values) -> float:
    return sum(values) / len(values)


class ClosingValue:
    """The tree's recent branching gains per child side, node seconds and
    closings (seconds, closed or not), and the budget of the module
    docstring (:meth:`budget`, :meth:`worth`)."""

    def __init__(self, window: int = WINDOW):
        self.gains: tuple = (deque(maxlen=window), deque(maxlen=window))
        self.node_seconds: deque = deque(maxlen=window)
        self.closings: deque = deque(maxlen=window)
        self.unsent = [0, 0, 0, 0]   # per deque of _deques(): entries since take_fresh()

    def state(self) -> dict:
        """What a checkpoint keeps (:meth:`adopt` takes it back)."""
        return {"gains": [list(g) for g in self.gains], "node_seconds": list(self.node_seconds),
                "closings": [list(c) for c in self.closings]}

    def adopt(self, state: dict) -> None:
        for mine, theirs in zip(self.gains, state["gains"]):
            mine.extend(float(g) for g in theirs)
        self.node_seconds.extend(float(s) for s in state["node_seconds"])
        self.closings.extend((float(s), bool(c)) for s, c in state["closings"])

    def _deques(self) -> tuple:
        return (*self.gains, self.node_seconds, self.closings)

    def take_fresh(self) -> dict:
        """What was observed since the last call (at most the window of each
        kind; the tails of the model's own deques), for :meth:`absorb` elsewhere."""
        tails = [list(d)[len(d) - min(u, len(d)):] for d, u in zip(self._deques(), self.unsent)]
        self.unsent = [0, 0, 0, 0]
        return {"gains": tails[:2], "node_seconds": tails[2], "closings": tails[3]}

    def absorb(self, fresh: dict) -> None:
        """Another model's :meth:`take_fresh`, observed here in its order per kind."""
        for side, gains in enumerate(fresh["gains"]):
            for gain in gains:
                self.observe_gain(side, gain)
        for seconds in fresh["node_seconds"]:
            self.observe_node(seconds)
        for seconds, closed in fresh["closings"]:
            self.observe_closing(seconds, closed)

    def observe_gain(self, side: int, gain: float) -> None:
        """A solved child's bound over its parent's; ``side``: its index
        among its parent's children (else −1: unknown, ignored)."""
        if side in (0, 1) and math.isfinite(gain):
            self.gains[side].append(max(gain, 0.0))
            self.unsent[side] += 1

    def observe_node(self, seconds: float) -> None:
        """A node's seconds, its gap closing left out."""
        self.node_seconds.append(seconds)
        self.unsent[2] += 1

    def observe_closing(self, seconds: float, closed: bool) -> None:
        self.closings.append((seconds, closed))
        self.unsent[3] += 1

    def expected_nodes(self, gap: float) -> float:
        """The model's subtree below a node with ``gap`` (:func:`subtree_nodes`)."""
        if all(self.gains):
            return subtree_nodes(gap, *(_mean(g) for g in self.gains))
        seen = [*self.gains[0], *self.gains[1]]
        return subtree_nodes(gap, _mean(seen), _mean(seen)) if seen else float(PRIOR_NODES)

    def budget(self, gap: float, node_seconds: float) -> float:
        """Seconds a closing at a node with ``gap`` may take: the model's
        subtree times the recent mean node seconds (``node_seconds``, the
        current node's so far, before any node has ended)."""
        node = _mean(self.node_seconds) if self.node_seconds else node_seconds
        return self.expected_nodes(gap) * node

    def worth(self, budget: float) -> bool:
        """Whether a closing with ``budget`` seconds is tried: not when the
        fastest closing so far that closed its node took longer."""
        closed = [s for s, c in self.closings if c]
        return budget > 0 and (not closed or budget >= min(closed))
