"""Reduced-cost fixing on record pairs for branch-and-price (``bp``).

At duals (λ, σ) where a node's bound L is certified (σ ≤ 0 on the
subset-row cut rows; :mod:`mipagg.exact.node`), every partition P allowed at
the node satisfies, for each of its clusters C₀,

    SSE(P) = Σ_v λ_v + Σ_{C∈P} w̄_C + Σ_S σ_S Σ_{C∈P} a_SC ≥ L + w̄_{C₀}

(Σ_{C∈P} a_SC ≤ 1 for an integer partition; every other w̄_C is at least
|C|·min(0, min_η r_η/η), the term of the Lagrangian bound L).  So if every
cluster holding records i and j has w̄ > UB − L, no partition of the node's
subtree with i and j together is as good as the incumbent UB: the pair is
fixed *apart* for the subtree, for free (reduced-cost fixing, Nemhauser &
Wolsey 1988 §II.2.2; on the arcs of routing branch-and-price, Irnich,
Desaulniers, Desrosiers & Hadjar 2010).  At the root the fixing holds for the
whole tree.

The least w̄ over clusters holding i and j is itself a pricing problem; what
is used is the certified bound of the pricing search
(:mod:`mipagg.exact.pricing.search`) at its node S = {i, j}: for every size η,

    w̄_C ≥ D_ij/η − λ_i − λ_j + Σ_{S∋i,j} μ_S ⌊(a_i + a_j)/d_S⌋ + min_{|T|=η−2} Σ_{t∈T} g_t,
    g_t = (D_it + D_jt)/η − λ_t + H[t, η−3]

(a_i/d_S the cut's multipliers, ½ for a subset-row cut; H of
:func:`~mipagg.exact.pricing._common.half_smallest_sums`: the lightest
edges inside T; the cut penalties of T are ≥ 0 and dropped), minimised over
η = k..2k−1.  Only *candidate* pairs are examined: each record with its
``neighbours`` nearest records (farther pairs are pruned by the pricing's own
bounds anyway).  A pair is fixed only when its bound exceeds UB − L by a
margin, so a fixed pair is together in no optimal partition.  At a node
only that comparison matters: :meth:`PairFixing.fix_node` first bounds each
pair's bound from above on its records' nearest neighbours and scans all n
records only for the pairs that this does not dismiss (the same pairs fixed,
3–13× faster on the Census k = 4 trees, docs/bench/casc_gap.md §84).

The same inequality fixes cluster *sizes* (:func:`fix_sizes`): if no allowed
cluster of size η has w̄ below UB − L, no partition of the subtree as good as
the incumbent holds a cluster of size η, and the subtree's pricing and gap
closings skip that size (``size_fixing``).  The proof is one pricing search
in "collect" mode at threshold UB − L that stops at the first cluster below
it.  At the branched nodes of the Census k = 5 tree at 0.022 % (gap 0.12–0.17
SSE units), sizes 8 and 9 were excluded at every node and 6 and 7 at none
(docs/bench/casc_gap.md §58).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cuts import rank1
from .pricing import half_smallest_sums
from .pricing.search import insert_smallest, search_clusters

__all__ = ["PairFixing", "candidate_pairs", "pair_bounds", "columns_with_pairs", "fix_sizes"]


def fix_sizes(ctx, duals, cons, threshold: float, sizes_out: int = 0,
              deadline: float | None = None) -> int:
    """The sizes ``sizes_out`` (a bit mask, :func:`~.pricing.constraints.size_mask`)
    plus those, from 2k − 1 down to k and until one fails, of which no
    cluster allowed by ``cons`` (branching pairs, cut penalties) has a
    reduced cost below ``threshold`` (UB − L plus a margin) at ``duals``,
    where L is certified (module docstring).  ``ctx``: the run's
    :class:`~.pricing.rounds.PricingContext`.  Each size costs one search
    that stops at the first cluster below the threshold; a search cut short
    by ``deadline`` fixes nothing."""
    k = ctx.k
    for eta in range(min(2 * k - 1, ctx.n), k - 1, -1):
        if sizes_out >> eta & 1:
            continue
        out = search_clusters(ctx.space(eta), cons.duals_for(duals, eta), cons, mode="collect",
                              threshold=float(threshold), collect_cap=0, tol=ctx.tol,
                              deadline=deadline)
        if out.status != "complete" or out.columns.shape[0]:
            break
        sizes_out |= 1 << eta
    return sizes_out


def _nearest(D: np.ndarray, neighbours: int) -> np.ndarray:
    """(n, K) int64: the K = min(``neighbours``, n − 1) nearest other
    records of each record (ties in any order)."""
    n = D.shape[0]
    K = int(min(max(neighbours, 1), n - 1))
    if n < 2:
        return np.zeros((n, 0), dtype=np.int64)
    off = D + np.diag(np.full(n, np.inf))
    return np.argpartition(off, K - 1, axis=1)[:, :K].astype(np.int64)


def candidate_pairs(D: np.ndarray, neighbours: int) -> np.ndarray:
    """(m, 2) int64 pairs i < j with j among the ``neighbours`` nearest
    records of i or i among those of j, sorted.  O(n²)."""
    return _pairs_of(_nearest(D, neighbours))


def _pairs_of(near: np.ndarray) -> np.ndarray:
    """The pairs of :func:`candidate_pairs` from the nearest records ``near``."""
    n, K = near.shape
    i = np.repeat(np.arange(n, dtype=np.int64), K)
    j = near.ravel().astype(np.int64)
    a, b = np.minimum(i, j), np.maximum(i, j)
    codes = np.unique(a * n + b)
    return np.stack([codes // n, codes % n], axis=1)


@njit(cache=True, nogil=True)
def _bounds_one_size(D, lam, Hcol, pairs, eta, out):
    n = D.shape[0]
    r = eta - 2
    small = np.empty(max(r, 1))
    for q in range(pairs.shape[0]):
        i = pairs[q, 0]
        j = pairs[q, 1]
        val = D[i, j] / eta - lam[i] - lam[j]
        if r > 0:
            small[:] = np.inf
            for t in range(n):
                if t == i or t == j:
                    continue
                insert_smallest(small, r, (D[i, t] + D[j, t]) / eta - lam[t] + Hcol[t])
            val += small[:r].sum()
        if val < out[q]:
            out[q] = val


@njit(cache=True, nogil=True)
def _pairs_above(D, lam, Hs, sizes, pairs, extra, penalty, limit, near, out):
    """out[q]: pair q's bound (as :func:`pair_bounds`: plus ``extra[q]``,
    then ``penalty``) exceeds ``limit`` at every size of ``sizes`` (the
    columns of ``Hs``).  Each size is first tried on the records of ``near``
    (the nearest of i and of j): any r = η − 2 of them give an upper bound
    on the least completion, so a pair at or below the limit is usually
    dismissed in O(|near|·r) instead of O(n·r)."""
    n = D.shape[0]
    m = near.shape[1]
    small = np.empty(max(2 * m, 1))
    for q in range(pairs.shape[0]):
        i = pairs[q, 0]
        j = pairs[q, 1]
        ok = True
        for stage in range(2):          # 0: the quick upper bounds; 1: the exact bounds
            for s in range(sizes.shape[0]):
                eta = sizes[s]
                r = eta - 2
                val = D[i, j] / eta - lam[i] - lam[j]
                if r > 0:
                    small[:] = np.inf
                    if stage == 0:
                        for a in range(2):
                            row = near[i] if a == 0 else near[j]
                            for b in range(m):
                                t = row[b]
                                if t == i or t == j or (a == 1 and _in(near[i], t)):
                                    continue
                                insert_smallest(small, r, (D[i, t] + D[j, t]) / eta - lam[t]
                                                + Hs[t, s])
                        if small[r - 1] == np.inf:
                            continue            # fewer than r records near: no quick bound
                    else:
                        for t in range(n):
                            if t == i or t == j:
                                continue
                            insert_smallest(small, r, (D[i, t] + D[j, t]) / eta - lam[t]
                                            + Hs[t, s])
                    val += small[:r].sum()
                if val + extra[q] + penalty <= limit:
                    ok = False
                    break
            if not ok:
                break
        out[q] = ok


@njit(cache=True, nogil=True)
def _in(row, t):
    for v in row:
        if v == t:
            return True
    return False


def _cut_extras(cuts, mu, pairs, n) -> np.ndarray:
    """Per pair of ``pairs``, what the pair alone pays of the cuts with
    penalties ``mu`` > 0: Σ_S μ_S ⌊(a_i + a_j)/d_S⌋."""
    out = np.zeros(pairs.shape[0])
    if mu is None or not len(cuts) or not pairs.shape[0]:
        return out
    codes = pairs[:, 0] * n + pairs[:, 1]
    extra: dict = {}
    for S, m in zip(cuts, np.asarray(mu, dtype=float)):
        if m <= 0:
            continue
        cut = rank1(S)
        R, A = cut.rows, cut.nums
        for a in range(len(R)):
            for b in range(a + 1, len(R)):
                f = (A[a] + A[b]) // cut.den
                if f:
                    c = R[a] * n + R[b]
                    extra[c] = extra.get(c, 0.0) + float(m) * f
    if extra:
        keys = np.fromiter(extra.keys(), dtype=np.int64, count=len(extra))
        vals = np.fromiter(extra.values(), dtype=float, count=len(extra))
        order = np.argsort(keys)
        keys, vals = keys[order], vals[order]
        pos = np.clip(np.searchsorted(keys, codes), 0, keys.size - 1)
        hit = keys[pos] == codes
        out[hit] = vals[pos[hit]]
    return out


def _sizes(k, n, sizes_out) -> list:
    return [eta for eta in range(max(k, 2), min(2 * k - 1, n) + 1) if not sizes_out >> eta & 1]


def pair_bounds(D, lam, k, pairs, H=None, cuts=(), mu=None, sizes_out: int = 0) -> np.ndarray:
    """A certified lower bound, per pair of ``pairs``, on the reduced cost
    (row duals ``lam``, cut penalties ``mu`` = −σ ≥ 0 of the cut row sets
    ``cuts``) of every cluster of size k..2k−1 (but those of ``sizes_out``, a
    bit mask) holding both records (module docstring); +inf when no such
    size exists.  ``H``: {η: H[:, η−3]} cache.  O(m·n·k) for m pairs."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    n = D.shape[0]
    out = np.full(pairs.shape[0], np.inf)
    lam = np.asarray(lam, dtype=float)
    for eta in _sizes(k, n, sizes_out):
        col = _h_column(D, eta) if H is None else H[eta]
        _bounds_one_size(D, lam, col, pairs, eta, out)
    return out + _cut_extras(cuts, mu, pairs, n)


def _h_column(D, eta):
    if eta < 3:
        return np.zeros(D.shape[0])
    return np.ascontiguousarray(half_smallest_sums(D, eta)[:, eta - 3])


def columns_with_pairs(columns, codes: np.ndarray, n: int) -> np.ndarray:
    """Mask of the ``columns`` (record index arrays) holding both records of
    some pair whose code i·n + j (i < j) is in the sorted array ``codes``."""
    out = np.zeros(len(columns), dtype=bool)
    if codes.size == 0 or not columns:
        return out
    by_size: dict[int, list[int]] = {}
    for q, c in enumerate(columns):
        by_size.setdefault(len(c), []).append(q)
    for size, idx in by_size.items():
        if size < 2:
            continue
        M = np.sort(np.array([columns[q] for q in idx], dtype=np.int64), axis=1)
        a, b = np.triu_indices(size, k=1)
        pc = M[:, a] * n + M[:, b]
        pos = np.clip(np.searchsorted(codes, pc), 0, codes.size - 1)
        out[np.asarray(idx)] = (codes[pos] == pc).any(axis=1)
    return out


class PairFixing:
    """Reduced-cost fixing on the candidate pairs of one instance (module
    docstring).  ``neighbours`` nearest records per record (default 2k) give
    the candidate pairs; ``fixed`` (a boolean mask over :attr:`pairs`) holds
    the root fixings, valid for the whole tree."""

    def __init__(self, D, k, neighbours=None):
        self.D, self.k, self.n = D, int(k), D.shape[0]
        self.near = _nearest(D, 2 * self.k)      # also the quick bounds' records (fix_node)
        self.pairs = _pairs_of(self.near if neighbours in (None, 2 * self.k)
                               else _nearest(D, neighbours))
        self.codes = self.pairs[:, 0] * self.n + self.pairs[:, 1]
        self.H = {eta: _h_column(D, eta) for eta in range(max(k, 2), 2 * k)}
        self._sizes = sorted(self.H)
        self._Hs = np.stack([self.H[eta] for eta in self._sizes], axis=1) if self.H \
            else np.zeros((self.n, 0))
        self.fixed = np.zeros(self.pairs.shape[0], dtype=bool)
        self._root = None            # (pair bounds, L) at the root's duals
        self.node_fixed = 0          # pairs fixed at tree nodes (for their subtrees), in all

    @staticmethod
    def margin(ub: float) -> float:
        """How far beyond UB − L a pair bound must be (rounding)."""
        return 1e-7 * max(1.0, abs(ub))

    def bounds(self, duals, cuts=(), cut_duals=None, mask=None, sizes_out=0,
               count_penalty=0.0) -> np.ndarray:
        """Pair bounds of the candidate pairs (``mask``: a subset) at the duals,
        over the sizes not in ``sizes_out``; ``count_penalty``: the count
        row's μ₀ ≥ 0, which every cluster pays."""
        mu = None if cut_duals is None else np.maximum(-np.asarray(cut_duals, dtype=float), 0)
        pairs = self.pairs if mask is None else self.pairs[mask]
        return pair_bounds(self.D, duals, self.k, pairs, self.H, cuts, mu, sizes_out) \
            + max(float(count_penalty), 0.0)

    def fix_root(self, duals, bound, ub, cuts=(), cut_duals=None, count_penalty=0.0,
                 sizes_out=0) -> int:
        """Root fixing at the duals where ``bound`` is certified (over the
        sizes not in ``sizes_out``, those of a restricted run); returns the
        number of pairs fixed for the whole tree."""
        self._root = (self.bounds(duals, cuts, cut_duals, sizes_out=sizes_out,
                                  count_penalty=count_penalty), float(bound))
        return self.refresh(ub)

    def refresh(self, ub) -> int:
        """Re-apply the root fixing with a (better) incumbent ``ub``."""
        if self._root is not None:
            b, L = self._root
            self.fixed |= b > ub - L + self.margin(ub)
        return int(self.fixed.sum())

    def free(self, known=()) -> np.ndarray:
        """Mask of the candidate pairs fixed neither at the root nor in ``known``."""
        free = ~self.fixed
        if known:
            kc = np.array([a * self.n + b for a, b in known], dtype=np.int64)
            free &= ~np.isin(self.codes, kc)
        return free

    def fix_node(self, duals, bound, ub, cuts=(), cut_duals=None, known=(),
                 sizes_out=0, count_penalty=0.0) -> list:
        """Pairs (not fixed at the root nor in ``known``) fixed apart for the
        subtree of a node whose bound is certified at the duals, where no
        improving partition has a cluster of a size in ``sizes_out``: those
        whose :meth:`bounds` exceed UB − L (plus the margin), found by
        :func:`_pairs_above` without computing every bound in full."""
        free = self.free(known)
        if not free.any():
            return []
        pairs = self.pairs[free]
        mu = None if cut_duals is None else np.maximum(-np.asarray(cut_duals, dtype=float), 0)
        sizes = _sizes(self.k, self.n, sizes_out)
        hit = np.ones(pairs.shape[0], dtype=bool)
        if sizes:
            Hs = self._Hs[:, [s - self._sizes[0] for s in sizes]]
            _pairs_above(self.D, np.asarray(duals, dtype=float), np.ascontiguousarray(Hs),
                         np.asarray(sizes, dtype=np.int64), pairs,
                         _cut_extras(cuts, mu, pairs, self.n), max(float(count_penalty), 0.0),
                         ub - float(bound) + self.margin(ub), self.near, hit)
        sel = pairs[hit]
        self.node_fixed += int(hit.sum())
        return [(int(a), int(c)) for a, c in sel]

    def forbidden_columns(self, columns) -> np.ndarray:
        """Mask of ``columns`` holding a root-fixed pair (cached: only new
        columns are checked while the root fixing is unchanged)."""
        nfix = int(self.fixed.sum())
        cached = getattr(self, "_cols", None)
        if cached is None or cached[0] != nfix:
            cached = (nfix, np.zeros(0, dtype=bool))
        done = cached[1]
        if done.size < len(columns):
            extra = columns_with_pairs(list(columns[done.size:]), self.root_codes(), self.n)
            done = np.concatenate([done, extra])
        self._cols = (nfix, done)
        return done[:len(columns)]

    def forget_columns(self) -> None:
        """Drop the cache of :meth:`forbidden_columns` (columns were deleted)."""
        self._cols = None

    def state(self) -> tuple:
        """The root fixing (mask, and the root's pair bounds with L), for a copy
        in another process (:meth:`restore`; :mod:`mipagg.exact.parallel`)."""
        return self.fixed.copy(), self._root

    def restore(self, state) -> None:
        """Take the root fixing of :meth:`state` (same data, k and neighbours)."""
        fixed, root = state
        if fixed.shape != self.fixed.shape:
            raise ValueError("the fixing state is of another instance")
        self.fixed, self._root = fixed.copy(), root

    def root_pairs(self) -> tuple:
        return tuple((int(a), int(b)) for a, b in self.pairs[self.fixed])

    def root_codes(self) -> np.ndarray:
        return self.codes[self.fixed]
