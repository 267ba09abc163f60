"""What a pricing problem must respect besides the cluster size: branching
constraints of a branch-and-price node and the duals of subset-row cuts.

* **Ryan–Foster branching** (Ryan & Foster 1981; Barnhart et al. 1998): a
  ``together`` pair (i, j) allows only clusters holding both records or
  neither; an ``apart`` pair allows only clusters holding at most one.
  Together pairs are closed transitively into *components* (records that
  must always be in the same cluster); an apart pair inside one component
  makes the node infeasible.
* **Subset-row cuts** (Jepsen, Sigurd, Spoorendonk & Pisinger 2008): for a
  row set S (three records), Σ_C ⌊|C∩S|/2⌋ x_C ≤ 1.  With the cut's dual
  σ_S ≤ 0 in the master (a "≤" row of a minimisation), a cluster pays the
  penalty μ_S = −σ_S ≥ 0 once for every two of its records in S, so its
  reduced cost (seed 001 formula (10) extended by the cuts) is

      w̄_C = Σ_{i<j∈C} D_ij/|C| − Σ_{v∈C} λ_v + Σ_S μ_S ⌊|C∩S|/2⌋ .

  A rank-1 cut (:class:`~mipagg.exact.cuts.Rank1Cut`, multipliers a_i/d)
  charges μ_S ⌊Σ_{i∈S∩C} a_i/d⌋ instead; the kernels count Σ a_i per cut.

Everything is stored as flat integer arrays (CSR) for the compiled kernels.

>>> c = PricingConstraints.build(5, together=[(0, 1)], apart=[(1, 2)],
...                              cuts=[((2, 3, 4), 0.5)])
>>> c.allows([0, 1, 3]), c.allows([0, 3, 4]), c.allows([0, 1, 2])
(True, False, False)
>>> c.penalty([2, 3]), c.penalty([2, 3, 4]), c.penalty([3])
(0.5, 0.5, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ...errors import DataError

__all__ = ["PricingConstraints", "csr", "size_mask"]


def size_mask(sizes) -> int:
    """The bit mask of a set of cluster sizes (bit η for size η), as
    :attr:`PricingConstraints.sizes_out` holds it.

    >>> size_mask([8, 9]), PricingConstraints.build(3, sizes_out=size_mask([2])).excludes(2)
    (768, True)
    """
    m = 0
    for eta in sizes:
        m |= 1 << int(eta)
    return m


def csr(n: int, pairs) -> tuple[np.ndarray, np.ndarray]:
    """Adjacency lists of ``n`` nodes from (a, b) pairs, both directions, as
    (start, index) int64 arrays."""
    pairs = np.asarray(list(pairs), dtype=np.int64).reshape(-1, 2)
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    order = np.argsort(src, kind="stable")
    start = np.zeros(n + 1, dtype=np.int64)
    np.add.at(start, src + 1, 1)
    return np.cumsum(start), dst[order]


def _cut_index(n: int, rows: np.ndarray, nums: np.ndarray) -> tuple:
    """(cut_start, cut_idx, cut_num): the cuts holding each record (CSR over
    records, cuts in increasing order) and its numerator in each."""
    held = rows >= 0
    src = rows[held]
    dst = np.nonzero(held)[0].astype(np.int64)
    num = nums[held].astype(np.int64)
    order = np.argsort(src, kind="stable")
    start = np.zeros(n + 1, dtype=np.int64)
    np.add.at(start, src + 1, 1)
    return np.cumsum(start), dst[order], num[order]


@dataclass(frozen=True, eq=False)
class PricingConstraints:
    """Branching constraints and cut penalties for the pricing of one node.

    ``comp_of[v]``: component id of record v; ``comp_start``/``comp_members``:
    the records of every component (CSR; singletons included).
    ``apart_start``/``apart_idx``: records that may not share a cluster with v.
    ``cut_rows``: (m, s) records of each cut (sorted, padded with −1; s = 3
    for subset-row cuts), ``cut_w`` their numerators a_i (0 for padding),
    ``cut_den`` the denominator d per cut, ``mu``: penalty μ ≥ 0 per cut;
    ``cut_start``/``cut_idx``/``cut_num``: the cuts holding each record and
    its numerator in each.  ``feasible`` is False when a together component
    holds an apart pair (no cluster can satisfy the node).
    ``count_penalty``: μ₀ ≥ 0, what every cluster pays for the master's count
    row Σ_C x_C ≤ R (minus its dual; :class:`~mipagg.exact.master.MasterProblem`).
    A search of size η takes it as λ_v − μ₀/η (:meth:`duals_for`).
    """

    n: int
    together: tuple
    apart: tuple
    comp_of: np.ndarray
    comp_start: np.ndarray
    comp_members: np.ndarray
    apart_start: np.ndarray
    apart_idx: np.ndarray
    cut_rows: np.ndarray
    mu: np.ndarray
    cut_start: np.ndarray
    cut_idx: np.ndarray
    feasible: bool
    cut_num: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    cut_den: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    cut_w: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    sizes_out: int = 0
    count_penalty: float = 0.0

    @classmethod
    def build(cls, n: int, *, together=(), apart=(), cuts=(),
              sizes_out: int = 0) -> "PricingConstraints":
        """``together``/``apart``: iterables of record pairs; ``cuts``: iterable
        of (rows, μ) with μ ≥ 0 the penalty (minus the cut's master dual);
        ``sizes_out``: the cluster sizes a node excludes, as a bit mask
        (:func:`size_mask`)."""
        together = tuple(sorted({tuple(sorted(map(int, p))) for p in together}))
        apart = tuple(sorted({tuple(sorted(map(int, p))) for p in apart}))
        for a, b in together + apart:
            if not (0 <= a < n and 0 <= b < n) or a == b:
                raise DataError(f"branching pair ({a}, {b}) is not two records of 0..{n - 1}")
        parent = list(range(n))

        def find(a):
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for a, b in together:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        roots = np.array([find(v) for v in range(n)], dtype=np.int64)
        _, comp_of = np.unique(roots, return_inverse=True)
        comp_of = comp_of.astype(np.int64)
        order = np.argsort(comp_of, kind="stable")
        comp_start = np.concatenate(([0], np.cumsum(np.bincount(comp_of)))).astype(np.int64)
        comp_members = order.astype(np.int64)
        feasible = all(comp_of[a] != comp_of[b] for a, b in apart)
        apart_start, apart_idx = csr(n, apart)
        from ..cuts import cut_arrays, rank1

        specs, mus = [], []
        for r, m in cuts:
            try:
                spec = rank1(r)
            except DataError:
                raise DataError(f"cut {r} is not a rank-1 cut of distinct records") from None
            if not all(0 <= v < n for v in spec.rows):
                raise DataError(f"cut rows {list(spec.rows)} are not records of 0..{n - 1}")
            if not m >= 0:
                raise DataError(f"cut penalty must be >= 0, got {m!r}")
            specs.append(spec)
            mus.append(float(m))
        cut_rows, cut_w, cut_den = cut_arrays(specs, max((len(c.rows) for c in specs), default=3))
        cut_start, cut_idx, cut_num = _cut_index(n, cut_rows, cut_w)
        return cls(n, together, apart, comp_of, comp_start, comp_members, apart_start,
                   apart_idx, cut_rows, np.array(mus, dtype=float), cut_start, cut_idx,
                   feasible, cut_num, cut_den, cut_w, int(sizes_out))

    def with_cut_table(self, rows: np.ndarray, nums: np.ndarray,
                       den: np.ndarray, mu: np.ndarray | None = None) -> "PricingConstraints":
        """These constraints with the cuts of a master's
        :meth:`~mipagg.exact.master.MasterProblem.cut_table` (rows, numerators,
        denominators; valid rank-1 cuts of records 0..n−1) instead of their
        own, with penalties ``mu`` ≥ 0 (default every penalty 0): no cut is
        built again cut by cut."""
        cut_start, cut_idx, cut_num = _cut_index(self.n, rows, nums)
        return replace(self, cut_rows=rows, cut_w=nums, cut_den=den,
                       mu=np.zeros(rows.shape[0]) if mu is None else mu,
                       cut_start=cut_start, cut_idx=cut_idx, cut_num=cut_num)

    @classmethod
    def none(cls, n: int) -> "PricingConstraints":
        """No branching constraint and no cut."""
        return cls.build(n)

    @property
    def trivial(self) -> bool:
        """True when nothing restricts or penalises a cluster in the search
        (the count penalty goes in through the duals, :meth:`duals_for`)."""
        return not self.together and not self.apart and not (self.mu > 0).any()

    @property
    def nested(self) -> bool:
        """True when every record of an allowed cluster can leave it and
        leave an allowed cluster that pays no cut penalty: no together pair
        and no positive cut or count penalty (apart pairs may remain).  Then
        the least reduced costs of the sizes obey r_η/η ≥ r_{η−1}/(η−1)
        (:func:`~.rounds.size_chain`); a count penalty favours the larger
        sizes and breaks it (:attr:`count_nested`)."""
        return self.count_nested and not self.count_penalty > 0

    @property
    def count_nested(self) -> bool:
        """:attr:`nested` but for a positive count penalty: no together pair
        and no positive cut penalty (:meth:`~.rounds._RoundState.count_chain`)."""
        return not self.together and not (self.mu > 0).any()

    def duals_for(self, duals, eta: int) -> np.ndarray:
        """The duals a search of clusters of size η prices with: λ_v − μ₀/η,
        so that Σ_{v∈C} of them is λ(C) − μ₀ (``count_penalty``)."""
        if not self.count_penalty > 0:
            return duals
        return np.asarray(duals, dtype=float) - self.count_penalty / eta

    def excludes(self, eta: int) -> bool:
        """Does the node exclude every cluster of size η (``sizes_out``)?"""
        return bool(self.sizes_out >> int(eta) & 1)

    def component_sizes(self) -> np.ndarray:
        return np.diff(self.comp_start)

    def allows(self, cluster) -> bool:
        """Does ``cluster`` satisfy every together/apart pair?"""
        members = {int(v) for v in cluster}
        for a, b in self.together:
            if (a in members) != (b in members):
                return False
        return not any(a in members and b in members for a, b in self.apart)

    def coefficients(self, cluster) -> np.ndarray:
        """⌊Σ_{i∈S∩C} a_i/d⌋ for every cut S (⌊|C∩S|/2⌋ for a subset-row
        cut): the column's entries in the cut rows."""
        if self.cut_rows.shape[0] == 0:
            return np.zeros(0)
        members = np.zeros(self.n + 1, dtype=np.int64)   # the last entry: padding (−1)
        members[np.asarray(cluster, dtype=np.int64)] = 1
        return ((members[self.cut_rows] * self.cut_w).sum(axis=1) // self.cut_den).astype(float)

    def penalty(self, cluster) -> float:
        """Σ_S μ_S ⌊Σ_{i∈S∩C} a_i/d⌋: what the cuts add to the reduced cost of
        ``cluster`` (the count penalty is in the duals a search takes,
        :meth:`duals_for`)."""
        if self.cut_rows.shape[0] == 0:
            return 0.0
        return float(self.coefficients(cluster) @ self.mu)
