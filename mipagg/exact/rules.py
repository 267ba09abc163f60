"""Pluggable parts of branch-and-price: branching rules, node selection and
cut families, each a small class behind a :class:`typing.Protocol`, found by
name in a registry.

A registry entry is ``"name": "module:Class"`` (loaded on first use, so a
plug-in module may import anything of :mod:`mipagg.exact` without a cycle).
Adding a rule is one new file with the class and one line in the registry
(docs/developer.md has a worked example).

* :class:`BranchingRule` ``choose(tree, node, solution)`` returns the
  branching decision at a node whose master LP solution is fractional (a
  :class:`Branch`: the children's together/apart pairs), or None when there
  is nothing to branch on.
* :class:`NodeSelection` holds the open nodes: ``push``, ``pop``, ``peek``,
  ``__len__``, ``bounds()``.
* :class:`CutFamily` ``separate(master, solution, n, max_cuts,
  min_violation)`` returns new cuts (record triples for subset-row cuts,
  :class:`~mipagg.exact.cuts.Rank1Cut` for other rank-1 cuts).
"""

from __future__ import annotations

import heapq
import importlib
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import ParameterError

__all__ = ["BranchingRule", "NodeSelection", "CutFamily", "Node", "Branch",
           "BRANCHING_RULES", "NODE_SELECTIONS", "CUT_FAMILIES", "load",
           "RyanFoster", "RyanFosterIndex", "BestBound", "SubsetRowCuts", "pair_weights",
           "branching_pair", "fractional_order", "pair_branch", "branching_rule",
           "BRANCHING_ALIASES"]

BRANCHING_RULES = {
    "ryan_foster": "mipagg.exact.rules:RyanFoster",
    "fractional_index": "mipagg.exact.rules:RyanFosterIndex",
    "strong": "mipagg.exact.branching:StrongBranching",
    "strong_fractional": "mipagg.exact.branching:StrongFractional",
    "reliability": "mipagg.exact.branching:ReliabilityBranching",
}
BRANCHING_ALIASES = {"fractional": "ryan_foster"}     # the command line's name of the rule
NODE_SELECTIONS = {
    "best_bound": "mipagg.exact.rules:BestBound",
}
CUT_FAMILIES = {
    "subset_row": "mipagg.exact.rules:SubsetRowCuts",
    "rank1": "mipagg.exact.rank1:Rank1Cuts",
}


def load(registry: dict, name: str):
    """The class registered as ``name`` in ``registry``."""
    try:
        target = registry[name]
    except KeyError:
        raise ParameterError(f"unknown name {name!r}; expected one of {sorted(registry)}") \
            from None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def branching_rule(spec):
    """A branching rule from ``spec``: a name of :data:`BRANCHING_RULES` (or
    of :data:`BRANCHING_ALIASES`), "name:N" passing N to the rule's class
    (``"strong:8"``: strong branching on 8 candidate pairs)."""
    if not isinstance(spec, str):
        raise ParameterError(f"branching must be a rule's name, got {spec!r}")
    name, sep, arg = spec.partition(":")
    cls = load(BRANCHING_RULES, BRANCHING_ALIASES.get(name, name))
    if not sep:
        return cls()
    try:
        value = int(arg)
    except ValueError:
        raise ParameterError(f"branching {spec!r}: {arg!r} is not an integer") from None
    try:
        return cls(value)
    except TypeError:
        raise ParameterError(f"branching {spec!r}: rule {name!r} takes no argument") from None


@dataclass(order=True)
class Node:
    """An open node of the tree: its bound (the parent's), −depth (deeper
    first on equal bounds), an id, the branching pairs on the path to it and
    the parent's final master basis (:class:`~mipagg.exact.master.Basis`,
    this process only: never sent to a worker or saved in a checkpoint) and
    its index among its parent's children (−1: unknown, as after a
    checkpoint), for :class:`~mipagg.exact.closingvalue.ClosingValue`;
    ``sizes_out``: the cluster sizes no improving partition of its subtree
    uses (bit η for size η, :func:`~mipagg.exact.pricing.constraints.size_mask`;
    ``size_fixing``)."""

    bound: float
    depth_key: int                      # −depth: deeper first on equal bounds
    ident: int
    together: tuple = field(compare=False, default=())
    apart: tuple = field(compare=False, default=())
    basis: object = field(compare=False, default=None, repr=False)
    side: int = field(compare=False, default=-1)
    sizes_out: int = field(compare=False, default=0)

    @property
    def depth(self) -> int:
        return -self.depth_key


@dataclass
class Branch:
    """A branching decision: one (together, apart) pair of tuples per child,
    added to the parent's."""

    children: list


@runtime_checkable
class BranchingRule(Protocol):
    def choose(self, tree, node: Node, solution) -> Branch | None: ...


@runtime_checkable
class NodeSelection(Protocol):
    def push(self, node: Node) -> None: ...

    def pop(self) -> Node: ...

    def peek(self) -> Node: ...

    def __len__(self) -> int: ...

    def bounds(self) -> list: ...


@runtime_checkable
class CutFamily(Protocol):
    def separate(self, master, solution, n: int, max_cuts: int,
                 min_violation: float) -> list: ...


def pair_weights(columns, x, n: int, eps: float = 1e-9):
    """z_ij = Σ_{C ∋ i, j} x_C over the master solution, as a sparse (n, n)
    upper-triangular matrix without diagonal (COO)."""
    from scipy.sparse import csc_matrix, triu

    x = np.asarray(x, dtype=float)
    keep = np.flatnonzero(x > eps)
    if keep.size == 0:
        return triu(csc_matrix((n, n)), k=1).tocoo()
    cols = [np.asarray(columns[j], dtype=np.int64) for j in keep]
    start = np.concatenate(([0], np.cumsum([c.size for c in cols]))).astype(np.int64)
    A = csc_matrix((np.ones(start[-1]), np.concatenate(cols), start), shape=(n, keep.size))
    Z = A.multiply(x[keep][None, :]) @ A.T
    return triu(Z, k=1).tocoo()


def fractional_order(columns, x, n: int, eps: float = 1e-6, D=None, digits: int = 6):
    """The fractional pairs i < j (0 < z_ij < 1) as an (m, 2) array and their
    z_ij, most fractional first, ties broken by the smaller (i, j).  With
    ``D`` (squared distances), |z_ij − ½| is compared to ``digits`` decimals
    and its ties go to the largest D_ij first: a master often has hundreds of
    pairs at z = ½, and the index order among them picks the dense core's
    pairs before the far-apart records of an odd cycle of outlier clusters
    (docs/bench/casc_gap.md §21)."""
    Z = pair_weights(columns, x, n)
    frac = (Z.data > eps) & (Z.data < 1 - eps)
    rows, cols, vals = Z.row[frac], Z.col[frac], Z.data[frac]
    dist = np.abs(vals - 0.5)
    if D is None:
        order = np.lexsort((cols, rows, dist))
    else:
        far = np.asarray(D[rows, cols]).ravel()
        order = np.lexsort((cols, rows, -far, np.round(dist, digits)))
    return np.stack([rows[order], cols[order]], axis=1).astype(np.int64), vals[order]


def branching_pair(columns, x, n: int, eps: float = 1e-6, D=None):
    """The Ryan–Foster pair (i, j), i < j, whose weight z_ij is closest to ½,
    ties broken by the smaller (i, j) (with ``D``: by the largest D_ij,
    :func:`fractional_order`); ``None`` when every z_ij is 0 or 1."""
    P = fractional_order(columns, x, n, eps, D)[0]
    return None if P.shape[0] == 0 else (int(P[0, 0]), int(P[0, 1]))


def pair_branch(node: Node, pair) -> Branch | None:
    """Ryan–Foster children of ``node`` on ``pair`` (i, j): together, apart;
    None for no pair."""
    if pair is None:
        return None
    return Branch([(node.together + (pair,), node.apart),
                   (node.together, node.apart + (pair,))])


class RyanFoster:
    """Ryan–Foster branching (Ryan & Foster 1981; Barnhart et al. 1998) on the
    most fractional pair weight z_ij (:func:`branching_pair`), ties among
    equally fractional pairs by the largest squared distance D_ij
    (:func:`fractional_order`): one child keeps i and j together, the other
    apart.  On lognormal files of 100–150 records the distance tie-break
    proves trees the index tie-break leaves open after 10 000 nodes
    (docs/bench/bp_tree.md §7)."""

    name = "fractional"

    def choose(self, tree, node: Node, solution) -> Branch | None:
        return pair_branch(node, self.select(tree.master, solution, tree.n))

    def select(self, master, solution, n, allowed=None, ub=None, deadline=None):
        """The pair (i, j) to branch on, None when the solution is integral
        (the signature of strong branching's ``select``)."""
        return branching_pair(master.columns[:solution.x.size], solution.x, n,
                              D=self.distances(master))

    def distances(self, master):
        """The tie-break's squared distances (None: ties by index)."""
        return master.D


class RyanFosterIndex(RyanFoster):
    """Ryan–Foster branching on the most fractional pair, ties by the smaller
    (i, j) (rule "fractional_index"; the default "fractional" before
    2026-11-28, kept for comparisons)."""

    name = "fractional_index"

    def distances(self, master):
        return None


class BestBound:
    """Best-bound node selection, deeper nodes first on equal bounds (a
    dive), then creation order: a heap of :class:`Node`."""

    def __init__(self):
        self.heap: list[Node] = []

    def push(self, node: Node) -> None:
        heapq.heappush(self.heap, node)

    def pop(self) -> Node:
        return heapq.heappop(self.heap)

    def peek(self) -> Node:
        return self.heap[0]

    def remove(self, node: Node) -> bool:
        """Take ``node`` (this very object) off the queue; False when it is
        not there.  O(open nodes); a just-pushed node is found first."""
        heap = self.heap
        for i in range(len(heap) - 1, -1, -1):
            if heap[i] is node:
                heap[i] = heap[-1]
                heap.pop()
                heapq.heapify(heap)
                return True
        return False

    def __len__(self) -> int:
        return len(self.heap)

    def bounds(self) -> list:
        return [nd.bound for nd in self.heap]

    def __iter__(self):
        return iter(self.heap)


class SubsetRowCuts:
    """Subset-row cuts on three records (Jepsen, Sigurd, Spoorendonk &
    Pisinger 2008; :mod:`mipagg.exact.cuts`): new violated ones only."""

    def separate(self, master, solution, n: int, max_cuts: int, min_violation: float) -> list:
        from .cuts import separate_subset_rows

        found = separate_subset_rows(master.columns[:solution.x.size], solution.x, n,
                                     max_cuts=max_cuts, min_violation=min_violation,
                                     existing=master.cuts)
        return [t for t, _ in found]
