"""Subset-row cuts for the set-partitioning master (Jepsen, Sigurd,
Spoorendonk & Pisinger 2008): for three records S = {a, b, c},

    Σ_C ⌊|C∩S|/2⌋ x_C ≤ 1 ,

a rank-1 Chvátal–Gomory cut of the three partition rows with multipliers ½
(two clusters of an integer partition cannot both hold two of the three
records).  It cuts the typical fractional solution of microaggregation
LPs: k-subsets of a natural group of k + 1 or more records, each at a
fraction (for k = 3 and four records, the four triples at ⅓ give a left-hand
side of 4/3).

With z_uv = Σ_{C∋u,v} x_C and w_S = Σ_{C⊇S} x_C, the left-hand side is
z_ab + z_ac + z_bc − 2 w_S, since a cluster holding all three records counts
in the three pair sums but once in the cut.  :func:`separate_subset_rows`
enumerates, for every record v, the pairs of its neighbours in the support
graph (z > 0), so every triple with at least two positive pairs — every
candidate for a violation — is examined; O(Σ_v deg(v)² + Σ_C |C|²).

Every cut of the master is a *rank-1* Chvátal–Gomory cut of the partition
rows with right-hand side 1 (:class:`Rank1Cut`): rows S, multipliers
p_i = a_i/d, coefficient ⌊Σ_{i∈S∩C} a_i / d⌋ for a column C and
⌊Σ_i a_i/d⌋ = 1.  A plain tuple of three records is the subset-row cut
(a_i = 1, d = 2); :mod:`mipagg.exact.rank1` separates cuts on four and five
rows (Pecin, Pessoa, Poggi de Aragão & Uchoa 2017).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from numba import njit

from ..errors import DataError

__all__ = ["separate_subset_rows", "cut_lhs", "Rank1Cut", "rank1", "cut_coefficient", "cut_arrays",
           "cut_matrix", "support_incidence", "pair_matrix"]


class Rank1Cut(NamedTuple):
    """A rank-1 cut Σ_C ⌊Σ_{i∈S∩C} a_i/d⌋ x_C ≤ 1: ``rows`` (sorted records),
    ``nums`` (the a_i, aligned with ``rows``) and ``den`` (d)."""

    rows: tuple
    nums: tuple
    den: int


def rank1(cut) -> Rank1Cut:
    """The :class:`Rank1Cut` of ``cut``: a Rank1Cut (rows sorted with their
    numerators) or a plain record set (the subset-row cut, a_i = 1, d = 2).
    Raises :class:`~mipagg.errors.DataError` unless the rows are distinct,
    0 < a_i < d and ⌊Σ a_i/d⌋ = 1 (every cut row has right-hand side 1).
    A tuple's answer is remembered (:func:`_rank1_of_tuple`): a tree asks
    for the same few thousand cuts at every node.

    >>> rank1((5, 2, 7))
    Rank1Cut(rows=(2, 5, 7), nums=(1, 1, 1), den=2)
    >>> rank1(Rank1Cut((9, 1, 4, 3), (2, 1, 1, 1), 3))
    Rank1Cut(rows=(1, 3, 4, 9), nums=(1, 1, 1, 2), den=3)
    """
    if isinstance(cut, tuple):      # a Rank1Cut too
        try:
            return _rank1_of_tuple(cut)
        except TypeError:   # an unhashable member (or a member int() refuses, refused below)
            pass            # (one hash, not two: a hashability test first costs 1.7× here)
    return _rank1(cut)


@functools.lru_cache(maxsize=1 << 16)
def _rank1_of_tuple(cut: tuple) -> Rank1Cut:
    """:func:`_rank1` of a tuple, remembered (computed, its 1.84 million calls
    took 9.5 of a Census k = 4 tree sample's 88 s; docs/bench/casc_gap.md §80)."""
    return _rank1(cut)


def _rank1(cut) -> Rank1Cut:
    """:func:`rank1` computed."""
    if isinstance(cut, Rank1Cut):
        pairs = sorted(zip((int(v) for v in cut.rows), (int(a) for a in cut.nums)))
        rows, nums, den = tuple(v for v, _ in pairs), tuple(a for _, a in pairs), int(cut.den)
        if len(cut.rows) != len(cut.nums):
            raise DataError(f"cut {cut}: one numerator per row expected")
    else:
        rows = tuple(sorted(int(v) for v in cut))
        nums, den = (1,) * len(rows), 2
    if len(set(rows)) != len(rows) or not all(0 < a < den for a in nums) \
            or sum(nums) // den != 1:
        raise DataError(f"cut on rows {rows} with multipliers {nums}/{den} is not a rank-1 "
                        "cut of right-hand side 1 (distinct rows, 0 < a_i < d, "
                        "floor(sum a_i / d) = 1)")
    return Rank1Cut(rows, nums, den)


def cut_coefficient(cut: Rank1Cut, cluster) -> int:
    """⌊Σ_{i∈S∩C} a_i/d⌋: the coefficient of column ``cluster`` in the cut."""
    members = {int(v) for v in cluster}
    return sum(a for v, a in zip(cut.rows, cut.nums) if v in members) // cut.den


def cut_arrays(cuts, width: int) -> tuple:
    """(rows, numerators, denominators) of ``cuts`` (:class:`Rank1Cut`) as
    arrays: (m, ``width``) records padded with −1, (m, ``width``) a_i (0 for
    padding) and (m,) d."""
    rows = np.full((len(cuts), width), -1, dtype=np.int64)
    nums = np.zeros((len(cuts), width), dtype=np.int64)
    for s, c in enumerate(cuts):
        rows[s, :len(c.rows)] = c.rows
        nums[s, :len(c.rows)] = c.nums
    return rows, nums, np.array([c.den for c in cuts], dtype=np.int64)


def cut_matrix(columns, cuts, n: int):
    """The coefficients of ``columns`` (record sets) in ``cuts`` (record
    triples or :class:`Rank1Cut`) as a ``scipy.sparse`` CSR matrix, one row per
    cut: entry ⌊Σ_{i∈S∩C} a_i/d⌋, zeros dropped; one sparse product
    (clusters × records by records × cuts) for all of them.

    >>> cut_matrix([[0, 1], [2, 3], [0, 1, 2]], [(0, 1, 2)], 4).toarray()
    array([[1, 0, 1]])
    """
    from scipy import sparse

    cuts = [rank1(S) for S in cuts]
    sizes = np.fromiter((len(c) for c in columns), dtype=np.int64, count=len(columns))
    if not cuts or not len(columns):
        return sparse.csr_matrix((len(cuts), len(columns)), dtype=np.int64)
    members = np.concatenate([np.asarray(c, dtype=np.int64) for c in columns])
    incidence = sparse.csr_matrix(
        (np.ones(members.size, dtype=np.int64), members,
         np.concatenate([[0], np.cumsum(sizes)])), shape=(len(columns), n))
    rows = np.concatenate([np.asarray(c.rows, dtype=np.int64) for c in cuts])
    nums = np.concatenate([np.asarray(c.nums, dtype=np.int64) for c in cuts])
    which = np.repeat(np.arange(len(cuts)), [len(c.rows) for c in cuts])
    numerators = sparse.csr_matrix((nums, (rows, which)), shape=(n, len(cuts)))
    counts = (incidence @ numerators).tocoo()
    den = np.array([c.den for c in cuts], dtype=np.int64)
    coef = counts.data // den[counts.col]
    keep = coef > 0
    return sparse.csr_matrix((coef[keep], (counts.col[keep], counts.row[keep])),
                             shape=(len(cuts), len(columns)))


def cut_lhs(columns, x, S) -> float:
    """Σ_C ⌊Σ_{i∈S∩C} a_i/d⌋ x_C: the left-hand side of the cut ``S`` (a
    :class:`Rank1Cut` or a record triple, ⌊|C∩S|/2⌋)."""
    cut = rank1(S)
    return float(sum(xc * cut_coefficient(cut, c.tolist())
                     for c, xc in zip(columns, x) if xc > 0))


@njit(cache=True)
def _triples(n, col_start, col_members, col_x, rec_start, rec_cols, z_start, z_idx, z_val,
             min_lhs, out, out_lhs):
    """For every record v, the triples {v, b, c} (b, c neighbours of v with
    b < c) whose left-hand side exceeds ``min_lhs``; returns their number
    (duplicates possible: a triple can be found from several centres)."""
    count = 0
    pos = np.full(n, -1, dtype=np.int64)
    for v in range(n):
        lo, hi = z_start[v], z_start[v + 1]
        deg = hi - lo
        if deg < 2:
            continue
        for q in range(deg):
            pos[z_idx[lo + q]] = q
        # W[i, j] = Σ_{C ∋ v, nb_i, nb_j} x_C
        W = np.zeros((deg, deg))
        for r in range(rec_start[v], rec_start[v + 1]):
            c = rec_cols[r]
            xc = col_x[c]
            a0, a1 = col_start[c], col_start[c + 1]
            for p in range(a0, a1):
                i = pos[col_members[p]]
                if i < 0:
                    continue
                for q in range(p + 1, a1):
                    j = pos[col_members[q]]
                    if j >= 0:
                        W[i, j] += xc
                        W[j, i] += xc
        for i in range(deg):
            b = z_idx[lo + i]
            zvb = z_val[lo + i]
            for j in range(i + 1, deg):
                c = z_idx[lo + j]
                zvc = z_val[lo + j]
                # z_bc by binary search in b's neighbour list
                zbc = 0.0
                s0, s1 = z_start[b], z_start[b + 1]
                t = np.searchsorted(z_idx[s0:s1], c)
                if t < s1 - s0 and z_idx[s0 + t] == c:
                    zbc = z_val[s0 + t]
                if zvb + zvc + zbc <= min_lhs:
                    continue
                lhs = zvb + zvc + zbc - 2.0 * W[i, j]
                if lhs > min_lhs and count < out.shape[0]:
                    trip = np.array([v, b, c])
                    trip.sort()
                    out[count, :] = trip
                    out_lhs[count] = lhs
                    count += 1
        for q in range(deg):
            pos[z_idx[lo + q]] = -1
    return count


def support_incidence(columns, x, keep, n: int):
    """The columns ``keep`` of an LP solution ``x`` as a sparse record × column
    incidence: (their values, column starts, members, the matrix in CSC and in
    CSR with sorted indices), the input of the cut separators."""
    from scipy.sparse import csc_matrix

    cols = [np.asarray(columns[j], dtype=np.int64) for j in keep]
    sizes = np.array([c.size for c in cols])
    col_start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    members = np.concatenate(cols)
    A = csc_matrix((np.ones(members.size), members, col_start), shape=(n, len(keep)))
    Ar = A.tocsr()
    Ar.sort_indices()
    return x[keep], col_start, members, A, Ar


def pair_matrix(Z):
    """``Z`` (records × records) in CSR without its diagonal, indices sorted."""
    Z = Z.tocsr()
    Z.setdiag(0.0)
    Z.eliminate_zeros()
    Z.sort_indices()
    return Z


def separate_subset_rows(columns, x, n: int, *, max_cuts: int = 100, min_violation=0.02,
                         existing=(), max_per_record: int = 3, eps: float = 1e-9):
    """Subset-row cuts on three records violated by the master solution ``x``
    over ``columns`` by more than ``min_violation``, most violated first, at
    most ``max_cuts``, each record in at most ``max_per_record`` of them (so
    one round spreads over the file), none already in ``existing``.
    Returns a list of (triple, left-hand side).

    >>> cols = [np.array(c) for c in ([0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3])]
    >>> [(t, round(v, 6)) for t, v in separate_subset_rows(cols, np.full(4, 1 / 3), 4)][:1]
    [((0, 1, 2), 1.333333)]
    """
    x = np.asarray(x, dtype=float)
    keep = np.flatnonzero(x > eps)
    if keep.size == 0:
        return []
    xs, col_start, col_members, A, Ar = support_incidence(columns, x, keep, n)
    Z = pair_matrix(A.multiply(xs[None, :]) @ A.T)
    out = np.zeros((max(64, 50 * max_cuts), 3), dtype=np.int64)
    out_lhs = np.zeros(out.shape[0])
    m = _triples(n, col_start, col_members, xs, Ar.indptr.astype(np.int64),
                 Ar.indices.astype(np.int64), Z.indptr.astype(np.int64),
                 Z.indices.astype(np.int64), Z.data.astype(float), 1.0 + min_violation,
                 out, out_lhs)
    found: dict[tuple, float] = {}
    for t, v in zip(out[:m].tolist(), out_lhs[:m].tolist()):
        found[tuple(t)] = v
    have = {rank1(S).rows for S in existing if not isinstance(S, Rank1Cut)}
    ranked = sorted((t for t in found if t not in have), key=lambda t: (-found[t], t))
    used = np.zeros(n, dtype=np.int64)
    chosen = []
    for t in ranked:
        if len(chosen) >= max_cuts:
            break
        if used[list(t)].max() >= max_per_record:
            continue
        used[list(t)] += 1
        chosen.append((t, found[t]))
    return chosen
