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
closing so far that closed its node at a gap no larger (docs/bench/casc_gap.md
§61).  Budgets read the clock, so two runs may try different closings; what
they prove is the same.

With ``nested`` (``node_close_nested``) the subtree is branched the way the
tree would branch it, closings included: a node of the subtree at gap h is
closed when a closing there is expected to cost less than branching it.  A
closing's seconds at gap h come from a log-linear fit over the recent
closings that closed their node, and a closing fails (and the node is
branched anyway) at the recent failure rate.  So the budget is the cost of
branching the node once and finishing its children the cheaper way, never
more than the budget without ``nested``.  On the Census k = 5 tree the
closings that closed their node took from under a second to over a minute,
the longer ones at larger gaps (docs/bench/casc_gap.md §53).  On several workers each
worker hands what its model saw during a task to the coordinator
(:meth:`ClosingValue.take_fresh`, :meth:`ClosingValue.absorb`), whose model a
checkpoint keeps and every next task takes, so all workers learn from all nodes.
"""

from __future__ import annotations

import math
from collections import deque

__all__ = ["ClosingValue", "subtree_nodes", "branching_seconds", "WINDOW", "PRIOR_NODES"]

WINDOW = 50          # recent gains, node times and closings kept
PRIOR_NODES = 30     # the subtree before any gain is known: 4 branchings deep on each side
CAP = 1e12           # subtree sizes are counted up to this
MIN_FIT = 5          # closings that closed, with their gap, before ``nested`` fits their seconds
MAX_STATES = 20_000  # subtree states ``nested`` evaluates; beyond, the budget without it


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


def branching_seconds(gap: float, a: float, b: float, node: float, closing,
                      fail: float) -> float | None:
    """Seconds to finish a node ``gap`` under the cutoff by branching it, its
    children's bounds ``a`` and ``b`` higher, each child's column generation
    ``node`` seconds, and each node below finished the cheaper way: closed
    (``closing(h)`` seconds at gap h, failing with probability ``fail``,
    after which it is branched) or branched.  B(g) = 2·node + W(g − a) +
    W(g − b), W(h) = 0 for h ≤ 0, else min(B(h), closing(h) + fail·B(h));
    with closings never cheaper, node × :func:`subtree_nodes`.  None when
    the subtree has over ``MAX_STATES`` states (or a gain ≤ 0)."""
    if gap <= 0:
        return 0.0
    a, b = sorted((a, b))
    if a <= 0 or (gap / a + 1) * (gap / b + 1) > MAX_STATES:
        return None
    rows, cols = math.ceil(gap / a) + 1, math.ceil(gap / b) + 1
    w = [[0.0] * (cols + 1) for _ in range(rows + 1)]     # W at gap − i·a − j·b
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            h = gap - i * a - j * b
            if h <= 0:
                continue
            branch = 2 * node + w[i + 1][j] + w[i][j + 1]
            if i == 0 and j == 0:
                return branch
            w[i][j] = min(branch, closing(h) + fail * branch)
    return 0.0


def _mean(values) -> float:
    return sum(values) / len(values)


def _closing(seconds, closed, gap=None) -> tuple:
    return float(seconds), bool(closed), None if gap is None else float(gap)


class ClosingValue:
    """The tree's recent branching gains per child side, node seconds and
    closings (seconds, closed or not, the node's gap or None), and the
    budget of the module docstring (:meth:`budget`, :meth:`worth`)."""

    def __init__(self, window: int = WINDOW, nested: bool = False):
        self.nested = nested
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
        self.closings.extend(_closing(*c) for c in state["closings"])

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
        for closing in fresh["closings"]:
            self.observe_closing(*closing)

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

    def observe_closing(self, seconds: float, closed: bool, gap: float | None = None) -> None:
        """A closing's seconds, whether it closed its node, and the node's gap."""
        self.closings.append(_closing(seconds, closed, gap))
        self.unsent[3] += 1

    def _gains(self) -> tuple[float, float] | None:
        """The mean gain of each child side (both sides' mean before each
        side has one; None before any)."""
        if all(self.gains):
            return _mean(self.gains[0]), _mean(self.gains[1])
        seen = [*self.gains[0], *self.gains[1]]
        return (_mean(seen), _mean(seen)) if seen else None

    def expected_nodes(self, gap: float) -> float:
        """The model's subtree below a node with ``gap`` (:func:`subtree_nodes`)."""
        gains = self._gains()
        return float(PRIOR_NODES) if gains is None else subtree_nodes(gap, *gains)

    def closing_seconds(self, gap: float) -> float:
        """A closing's seconds at ``gap`` (:meth:`closing_model`)."""
        return self.closing_model()(gap)

    def closing_model(self):
        """A closing's seconds as a function of the gap: exp(α + β·gap),
        β ≥ 0, fitted by least squares to the log seconds of the recent
        closings that closed their node; infinite before ``MIN_FIT`` of them."""
        seen = [(g, math.log(max(s, 1e-3))) for s, c, g in self.closings if c and g is not None]
        if len(seen) < MIN_FIT:
            return lambda gap: math.inf
        gm, ym = _mean([g for g, _ in seen]), _mean([y for _, y in seen])
        var = sum((g - gm) ** 2 for g, _ in seen)
        slope = 0.0 if var <= 0 else max(0.0, sum((g - gm) * (y - ym) for g, y in seen) / var)
        return lambda gap: math.exp(min(700.0, ym + slope * (gap - gm)))

    def budget(self, gap: float, node_seconds: float) -> float:
        """Seconds a closing at a node with ``gap`` may take: the model's
        subtree times the recent mean node seconds (``node_seconds``, the
        current node's so far, before any node has ended); with ``nested``,
        :func:`branching_seconds` where it can be had."""
        node = _mean(self.node_seconds) if self.node_seconds else node_seconds
        gains = self._gains()
        if self.nested and gains is not None and self.closings:
            fail = sum(not c for _, c, _ in self.closings) / len(self.closings)
            a, b = gains
            seconds = branching_seconds(gap, a, b, node, self.closing_model(), fail)
            if seconds is not None:
                return seconds
        return self.expected_nodes(gap) * node

    def worth(self, budget: float, gap: float | None = None) -> bool:
        """Whether a closing with ``budget`` seconds at a node with ``gap`` is
        tried: not when the fastest closing so far that closed its node, at
        a gap no larger (any gap when either is unknown), took longer.  A
        closing's time grows with the gap (§53), so one slow success at a
        large gap does not bar the fast ones below it, which would otherwise
        never be tried again to show it (docs/bench/casc_gap.md §61)."""
        closed = [s for s, c, g in self.closings
                  if c and (gap is None or g is None or g <= gap)]
        return budget > 0 and (not closed or budget >= min(closed))
