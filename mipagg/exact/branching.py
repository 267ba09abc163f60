"""Branching rules of branch-and-price (``bp``): which Ryan–Foster pair
(i, j) a node branches on (children: i and j together / apart).

* :class:`MostFractional`: the pair whose weight z_ij = Σ_{C∋i,j} x_C is
  closest to ½ (Ryan & Foster 1981; Barnhart et al. 1998), ties by the
  largest squared distance (:func:`~mipagg.exact.rules.fractional_order`).
* :class:`StrongBranching`: among ``candidates`` pairs, the one whose two
  children raise the restricted master's LP value most,
  scored by the product rule max(Δ₋, ε)·max(Δ₊, ε) (Achterberg, Koch &
  Martin 2005), each gain capped at the node's gap.  A child is evaluated by
  re-solving the restricted master with the child's forbidden columns fixed
  at 0 by the dual simplex, at most 500 iterations (no pricing: the first,
  cheap phase of the multi-phase strong branching of Pecin, Pessoa, Poggi de
  Aragão & Uchoa 2017).  The estimate
  only chooses the pair; it bounds nothing (without pricing a child's LP
  value is an upper estimate), so every bound stays certified.  Half the
  candidates are the most fractional pairs, the other half those of largest
  ‖x_i − x_j‖²·min(z_ij, 1 − z_ij) (:func:`candidate_pairs`): a master
  often has hundreds of pairs at z = ½, and the index order among them
  never reaches the far-apart records of a half-integral odd cycle of
  outlier clusters, where one branch can close almost the whole gap
  (Tarragona k = 3: gains of 0.87 and 0.92 SSE units against 0.002–0.04 for
  the first eight pairs at z = ½, docs/bench/casc_gap.md §21).

* :class:`ReliabilityBranching`: strong branching that scores a pair
  already probed ``reliable`` times by its pseudocosts, its mean gain per
  unit of change of z_ij (Achterberg, Koch & Martin 2005), and probes the
  others; its table goes from worker to worker and into checkpoints.

All are branching rules of :mod:`mipagg.exact.rules` (``choose(tree, node,
solution)`` → :class:`~mipagg.exact.rules.Branch`; registered as
"ryan_foster" (alias "fractional"), "strong", "reliability" (as "reliability:4"
the default since 2026-11-29) and "strong_fractional", strong branching on the
most fractional pairs only; "fractional_index" is "fractional"'s index
tie-break of before 2026-11-28); ``choose`` reads the tree's
master, the node's allowed-column mask, the incumbent and the deadline and
calls ``select(master, solution, n, allowed, ub, deadline)``, which returns
a pair (i, j), i < j, or None when every z_ij is 0 or 1.
"""

from __future__ import annotations

import time

import numpy as np

from ..errors import ParameterError
from .rules import RyanFoster, branching_rule, fractional_order, pair_branch

__all__ = ["MostFractional", "ReliabilityBranching", "StrongBranching", "StrongFractional",
           "candidate_pairs", "fractional_pairs", "make_branching"]


def fractional_pairs(columns, x, n: int, eps: float = 1e-6) -> np.ndarray:
    """(m, 2) pairs i < j with 0 < z_ij < 1, most fractional first (ties by
    the smaller (i, j))."""
    return fractional_order(columns, x, n, eps)[0]


def candidate_pairs(columns, x, n: int, D, count: int, eps: float = 1e-6,
                    far: bool = True, weights: bool = False):
    """Up to ``count`` fractional pairs (0 < z_ij < 1) as an (m, 2) array: the
    ⌈count/2⌉ most fractional (:func:`fractional_pairs`), then those of
    largest D_ij·min(z_ij, 1 − z_ij) not already listed (ties by the smaller
    (i, j)); ``D`` the squared distances.  ``far=False``: the ``count`` most
    fractional (the candidates before 2026-11-28, kept for comparisons).
    ``weights=True``: the pairs and their z_ij."""
    P, z = fractional_order(columns, x, n, eps)
    if P.shape[0] <= count or not far:
        keep = np.arange(min(count, P.shape[0]))
    else:
        first = (count + 1) // 2
        weight = np.asarray(D[P[:, 0], P[:, 1]]).ravel() * np.minimum(z, 1.0 - z)
        order = np.lexsort((P[:, 1], P[:, 0], -weight))
        keep = np.concatenate([np.arange(first), order[order >= first][:count - first]])
    return (P[keep], z[keep]) if weights else P[keep]


class _SelectsPair:
    """``choose`` of the tree's protocol by ``select`` on the tree's state."""

    def choose(self, tree, node, solution):
        return pair_branch(node, self.select(tree.master, solution, tree.n, tree.allowed,
                                             tree.rounder.best_sse, tree.stop.deadline))


MostFractional = RyanFoster     # the default rule, which has a ``select`` of its own


class StrongBranching(_SelectsPair):
    """Strong branching on the restricted master (module docstring):
    ``candidates`` pairs (:func:`candidate_pairs`, ``far``), 2 LP re-solves
    each.  ``evaluations`` counts the LP re-solves, ``seconds`` their time."""

    name = "strong"

    def __init__(self, candidates: int = 8, eps: float = 1e-6, max_iterations: int = 500,
                 far: bool = True):
        if int(candidates) != candidates or candidates < 1:
            raise ParameterError(f"strong branching candidates must be >= 1, got {candidates!r}")
        self.candidates, self.eps, self.far = int(candidates), eps, bool(far)
        self.max_iterations = int(max_iterations)
        self.evaluations, self.seconds = 0, 0.0

    def select(self, master, solution, n, allowed=None, ub=None, deadline=None):
        P, Z = candidate_pairs(master.columns[:solution.x.size], solution.x, n, master.D,
                               self.candidates, far=self.far, weights=True)
        if P.shape[0] <= 1:
            return None if P.shape[0] == 0 else (int(P[0, 0]), int(P[0, 1]))
        t0 = time.perf_counter()
        parent = solution.value
        cap = np.inf if ub is None else max(ub - parent, self.eps)
        m = len(master.columns)
        base = np.ones(m, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
        base = np.concatenate([base, np.ones(m - base.size, dtype=bool)])
        self.last_gains = []          # (i, j, together gain, apart gain) of this call
        best, best_score = (int(P[0, 0]), int(P[0, 1])), -np.inf
        try:
            for (i, j), z in zip(P, Z):
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                gains = self.gains(master, base, int(i), int(j), float(z), parent, deadline)
                if gains is None:
                    return best
                gains = [min(max(g, self.eps), cap) for g in gains]
                score = gains[0] * gains[1]
                self.last_gains.append((int(i), int(j), *gains))
                if score > best_score:
                    best, best_score = (int(i), int(j)), score
        finally:
            master.end_probes()
            master.set_allowed(None if allowed is None else base)
            self.seconds += time.perf_counter() - t0
        return best

    def gains(self, master, base, i: int, j: int, z: float, parent: float, deadline):
        """The two children's LP gains over ``parent`` (together, apart) of
        the pair (i, j) of weight ``z`` by re-solving the restricted master,
        or None when a probe fails."""
        ci, cj = set(master.columns_of(i)), set(master.columns_of(j))
        gains = []
        for forbid in (ci ^ cj, ci & cj):          # together child, apart child
            mask = base.copy()
            mask[list(forbid)] = False
            master.set_allowed(mask)
            value = master.probe_value(self.max_iterations, deadline)
            self.evaluations += 1
            if value is None:
                return None
            gains.append(value - parent)
        return gains


class ReliabilityBranching(StrongBranching):
    """Reliability branching (Achterberg, Koch & Martin 2005) on Ryan–Foster
    pairs: a candidate pair probed ``reliable`` times already is scored by
    its pseudocosts instead of two LP re-solves.  A pair's pseudocosts are
    its mean gains per unit of change of z_ij over its probes, at any node:
    the together child moves z_ij by 1 − z_ij, the apart child by z_ij.
    ``predicted`` counts the candidates scored without a probe.

    A probe is an *observation* (i, j, together gain per unit, apart gain per
    unit): the parallel tree hands a worker's new ones (:meth:`take_fresh`)
    to the other workers (:meth:`observe`), and a checkpoint keeps the table
    (:meth:`state`, :meth:`adopt`), so workers and resumed runs start from
    every probe made before."""

    name = "reliability"

    def __init__(self, candidates: int = 8, reliable: int = 2, **kwargs):
        super().__init__(candidates, **kwargs)
        if int(reliable) != reliable or reliable < 1:
            raise ParameterError(f"reliability branching needs reliable >= 1, got {reliable!r}")
        self.reliable = int(reliable)
        self.pseudocosts: dict = {}     # (i, j) -> [Σ together/(1 − z), Σ apart/z, probes]
        self.fresh: list | None = None  # own observations not yet taken; None: not kept
        self.predicted = 0

    def gains(self, master, base, i: int, j: int, z: float, parent: float, deadline):
        entry = self.pseudocosts.get((i, j))
        if entry is not None and entry[2] >= self.reliable:
            self.predicted += 1
            return [entry[0] / entry[2] * (1 - z), entry[1] / entry[2] * z]
        gains = super().gains(master, base, i, j, z, parent, deadline)
        if gains is not None:
            seen = (i, j, max(gains[0], 0.0) / (1 - z), max(gains[1], 0.0) / z)
            self.observe([seen])
            if self.fresh is not None:
                self.fresh.append(seen)
        return gains

    def _add(self, i, j, together, apart, probes: int) -> None:
        entry = self.pseudocosts.setdefault((int(i), int(j)), [0.0, 0.0, 0])
        entry[0] += float(together)
        entry[1] += float(apart)
        entry[2] += int(probes)

    def observe(self, observations) -> None:
        """Add observations (i, j, together per unit, apart per unit)."""
        for i, j, together, apart in observations:
            self._add(i, j, together, apart, 1)

    def take_fresh(self) -> list:
        """This rule's own observations since the last call.  The first call
        starts keeping them (a serial tree never calls, and keeps none)."""
        fresh, self.fresh = self.fresh or [], []
        return fresh

    def state(self) -> tuple:
        """The table as arrays: pairs (m, 2), gain sums (m, 2), probes (m,)."""
        keys = sorted(self.pseudocosts)
        rows = [self.pseudocosts[key] for key in keys]
        return (np.array(keys, dtype=np.int64).reshape(-1, 2),
                np.array([r[:2] for r in rows], dtype=float).reshape(-1, 2),
                np.array([r[2] for r in rows], dtype=np.int64))

    def adopt(self, state) -> None:
        """Add a table of :meth:`state` to this one."""
        for (i, j), (together, apart), probes in zip(*state):
            self._add(i, j, together, apart, probes)


class StrongFractional(StrongBranching):
    """Strong branching on the ``candidates`` most fractional pairs only (rule
    "strong_fractional"; "strong" before 2026-11-28, kept for comparisons)."""

    name = "strong_fractional"

    def __init__(self, candidates: int = 8):
        super().__init__(candidates, far=False)


def make_branching(rule):
    """A branching rule from its name ("fractional", "strong", "strong:N"
    with N candidates, any name of :data:`~mipagg.exact.rules.BRANCHING_RULES`)
    or a rule object (:func:`~mipagg.exact.rules.branching_rule`)."""
    if hasattr(rule, "choose"):
        return rule
    return branching_rule(rule)
