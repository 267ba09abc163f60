"""Where a partition's gap lies: its groups priced at the root's duals.

At duals (π, σ) of the set-partitioning master with rank-1 cuts (π_i for
record i, σ_c ≤ 0 for cut c, right-hand side 1), a cluster C has the reduced
cost

    rc(C) = SSE(C) − Σ_{i∈C} π_i − Σ_c σ_c a_c(C),

a_c(C) its coefficient in cut c (:func:`mipagg.exact.cuts.cut_matrix`).  For a
partition P the groups' reduced costs add up to its SSE less the dual
objective D = Σ_i π_i + Σ_c σ_c, apart from the cuts P does not fill:

    SSE(P) − D = Σ_{C∈P} rc(C) + Σ_c σ_c (a_c(P) − 1),   a_c(P) = Σ_{C∈P} a_c(C) ≤ 1,

and both sums are non-negative when the duals are those of a converged
master (every cluster then has rc ≥ 0, column generation's stopping rule, seed
001 §4).  D is the root's LP bound, so the identity splits the root gap
UB − LB among the groups of the incumbent: a group whose reduced cost is a
large share of the gap is one the LP would rather not form, the first place
to look for a better partition or for a pair to branch on (on Tarragona
k = 3 one group of four outliers carried 95 % of the gap, and one branch
there closed it, docs/bench/casc_gap.md §21); a gap spread thinly over many
groups is the relaxation's.  Used by ``mipagg tree --data`` on a checkpoint's
root duals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DataError

__all__ = ["GapShares", "gap_shares"]


@dataclass
class GapShares:
    """The groups of a partition priced at one set of duals (see the module).

    ``groups``: the group labels, ``reduced_costs`` aligned with them;
    ``cut_slack`` Σ_c σ_c (a_c(P) − 1); ``sse`` of the partition and
    ``dual_objective`` D = Σπ + Σσ, so that ``sse − dual_objective ==
    reduced_costs.sum() + cut_slack`` up to rounding."""

    groups: np.ndarray
    reduced_costs: np.ndarray
    cut_slack: float
    sse: float
    dual_objective: float

    @property
    def gap(self) -> float:
        """SSE − D, the gap these duals certify for the partition."""
        return self.sse - self.dual_objective

    def top(self, count: int = 10) -> list[tuple[int, float]]:
        """The ``count`` groups of largest reduced cost, (label, reduced cost)."""
        order = np.argsort(-self.reduced_costs, kind="stable")[:count]
        return [(int(self.groups[i]), float(self.reduced_costs[i])) for i in order]

    def share(self, count: int = 10) -> float | None:
        """The share of the gap carried by the ``count`` groups of largest
        reduced cost (None when the gap is not positive)."""
        if not self.gap > 0:
            return None
        return sum(rc for _, rc in self.top(count)) / self.gap

    def summary(self, count: int = 10) -> dict:
        return {"groups": int(self.groups.size), "gap": self.gap,
                "dual_objective": self.dual_objective, "cut_slack": self.cut_slack,
                "top_groups": [{"group": g, "reduced_cost": rc} for g, rc in self.top(count)],
                "top_share": self.share(count)}


def gap_shares(X: np.ndarray, labels, duals, cuts=(), cut_duals=None) -> GapShares:
    """Price the groups of the partition ``labels`` of ``X`` at the record
    duals ``duals`` and the duals ``cut_duals`` of ``cuts`` (record triples or
    :class:`~mipagg.exact.cuts.Rank1Cut`, as in a bp checkpoint).

    >>> X = np.array([[0.0], [1.0], [5.0], [6.0]])
    >>> s = gap_shares(X, [0, 0, 1, 1], [0.25, 0.25, 0.25, 0.0])
    >>> s.reduced_costs.tolist(), s.gap
    ([0.0, 0.25], 0.25)
    """
    from ..partition import group_sse
    from .cuts import cut_matrix

    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    pi = np.asarray(duals, dtype=float)
    n = X.shape[0]
    cuts = list(cuts)
    sigma = np.zeros(0) if cut_duals is None else np.asarray(cut_duals, dtype=float)
    if labels.shape != (n,) or pi.shape != (n,):
        raise DataError(f"{n} records: labels of shape {labels.shape} and duals of shape "
                        f"{pi.shape} do not match")
    if sigma.shape != (len(cuts),):
        raise DataError(f"{len(cuts)} cuts but {sigma.size} cut duals")
    groups, inverse = np.unique(labels, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    members = np.split(order, np.cumsum(np.bincount(inverse))[:-1])
    sse = np.array([group_sse(X, m) for m in members])
    rc = sse - np.bincount(inverse, weights=pi, minlength=groups.size)
    slack = 0.0
    if cuts:
        A = cut_matrix(members, cuts, n)             # cuts × groups
        rc -= A.T @ sigma
        slack = float(sigma @ (np.asarray(A.sum(axis=1)).ravel() - 1.0))
    return GapShares(groups, rc, slack, float(sse.sum()), float(pi.sum() + sigma.sum()))
