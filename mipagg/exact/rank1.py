"""Rank-1 cuts on four and five rows for the set-partitioning master (Pecin,
Pessoa, Poggi de Aragão & Uchoa, "Limited memory rank-1 cuts for vehicle
routing", Math. Prog. Comput. 2017; "Improved branch-cut-and-price for
capacitated vehicle routing", Math. Prog. Comput. 2017).

A rank-1 Chvátal–Gomory cut of the partition rows S with multipliers
p_i = a_i/d is

    Σ_C ⌊Σ_{i∈S∩C} a_i/d⌋ x_C ≤ ⌊Σ_{i∈S} a_i/d⌋ .

The subset-row cut (:mod:`mipagg.exact.cuts`) is |S| = 3, p = ½.  Of the
optimal multiplier vectors Pecin et al. list for |S| ≤ 5, this module
separates the two with right-hand side 1 (what the master's cut rows and the
Lagrangian bound assume, :class:`~mipagg.exact.cuts.Rank1Cut`):

* |S| = 4, p = (⅔, ⅓, ⅓, ⅓): a cluster counts once when it holds the first
  record and any other, or the other three;
* |S| = 5, p = ⅓: a cluster counts once when it holds three or more of the
  five records ("at most one cluster holds a majority of S").

The cuts are not limited-memory: every column pays its full coefficient.

Separation is a heuristic (exact separation is NP-hard, as for Pecin et al.,
who use a local search too): from every record v of the fractional support,
grow S greedily among v's support neighbours (the record adding most to the
left-hand side, ties by the mass of fractional columns shared with S, so
the first records of a ⅓-pattern, which add nothing yet, are its closest
partners), then improve it by swaps (a member for a neighbour, or the record
with the larger multiplier for another member) while the left-hand side
rises.  O(n·deg²·|S|·c) for support degree deg and c columns per record.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cuts import Rank1Cut, pair_matrix, rank1, support_incidence

__all__ = ["PATTERNS", "separate_rank1", "Rank1Cuts"]

# |S| -> (a_i, heaviest first; d), every one with ⌊Σ a_i/d⌋ = 1; 7: the next
# "majority" cut (|S| = 2t − 1, p = 1/t: at most one cluster holds t of S), for large k
PATTERNS = {4: ((2, 1, 1, 1), 3), 5: ((1, 1, 1, 1, 1), 3), 7: ((1,) * 7, 4)}


@njit(cache=True)
def _lhs(S, m, nums, den, rec_start, rec_cols, col_x, acc, touched):
    """(Σ_C x_C ⌊acc_C/d⌋, Σ_C x_C acc_C²) of the set S[:m] (S[i] with
    multiplier nums[i]) over the fractional columns; ``acc`` is left zero."""
    nt = 0
    for i in range(m):
        v = S[i]
        for r in range(rec_start[v], rec_start[v + 1]):
            c = rec_cols[r]
            if acc[c] == 0:
                touched[nt] = c
                nt += 1
            acc[c] += nums[i]
    lhs = 0.0
    mass = 0.0
    for t in range(nt):
        c = touched[t]
        lhs += col_x[c] * (acc[c] // den)
        mass += col_x[c] * acc[c] * acc[c]
        acc[c] = 0
    return lhs, mass


@njit(cache=True)
def _grow(n, size, nums, den, rec_start, rec_cols, col_x, z_start, z_idx, min_lhs,
          out, out_lhs):
    """From every record, a set of ``size`` records with multipliers ``nums``
    (module docstring); writes those with left-hand side above ``min_lhs``
    (rows with the record of nums[0] first) and returns their number."""
    acc = np.zeros(col_x.size, dtype=np.int64)
    touched = np.empty(col_x.size, dtype=np.int64)
    S = np.empty(size, dtype=np.int64)
    T = np.empty(size, dtype=np.int64)
    inS = np.zeros(n, dtype=np.bool_)
    count = 0
    for v in range(n):
        lo, hi = z_start[v], z_start[v + 1]
        if hi - lo < size - 1:
            continue
        S[0] = v
        inS[v] = True
        m = 1
        while m < size:
            best_u = -1
            best_l = -1.0
            best_w = -1.0
            for q in range(lo, hi):
                u = z_idx[q]
                if inS[u]:
                    continue
                S[m] = u
                val, w = _lhs(S, m + 1, nums, den, rec_start, rec_cols, col_x, acc, touched)
                if val > best_l + 1e-12 or (val > best_l - 1e-12 and w > best_w):
                    best_u, best_l, best_w = u, val, w
            S[m] = best_u
            inS[best_u] = True
            m += 1
        cur, _ = _lhs(S, size, nums, den, rec_start, rec_cols, col_x, acc, touched)
        improved = True
        passes = 0
        while improved and passes < 4:
            improved = False
            passes += 1
            for i in range(1, size):        # swap a member for a neighbour of v
                for q in range(lo, hi):
                    u = z_idx[q]
                    if inS[u]:
                        continue
                    old = S[i]
                    S[i] = u
                    val, _ = _lhs(S, size, nums, den, rec_start, rec_cols, col_x, acc,
                                  touched)
                    if val > cur + 1e-9:
                        cur = val
                        inS[old] = False
                        inS[u] = True
                        improved = True
                    else:
                        S[i] = old
            if nums[0] != nums[size - 1]:   # move the larger multiplier
                for i in range(1, size):
                    T[:] = S
                    T[0], T[i] = S[i], S[0]
                    val, _ = _lhs(T, size, nums, den, rec_start, rec_cols, col_x, acc,
                                  touched)
                    if val > cur + 1e-9:
                        cur = val
                        S[:] = T
                        improved = True
        if cur > min_lhs and count < out.shape[0]:
            out[count, :] = S
            out_lhs[count] = cur
            count += 1
        for i in range(size):
            inS[S[i]] = False
    return count


def separate_rank1(columns, x, n: int, *, sizes=(4, 5), max_cuts: int = 100,
                   min_violation: float = 0.02, existing=(), max_per_record: int = 3,
                   eps: float = 1e-9) -> list:
    """Rank-1 cuts on ``sizes`` rows (:data:`PATTERNS`) violated by the master
    solution ``x`` over ``columns`` by more than ``min_violation``, most
    violated first, at most ``max_cuts``, each record in at most
    ``max_per_record`` of them, none in ``existing``.  Returns a list of
    (:class:`~mipagg.exact.cuts.Rank1Cut`, left-hand side).

    The four 3-subsets of {0, 1, 2, 3} at ⅓ each (k = 3) give every 4-row
    cut a left-hand side of 4/3 (each subset holds the ⅔ record and another,
    or the other three):

    >>> cols = [np.array(c) for c in ([0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3])]
    >>> [(c.rows, c.nums, round(v, 4)) for c, v in separate_rank1(cols, np.full(4, 1/3), 4,
    ...                                                              sizes=(4,))][:1]
    [((0, 1, 2, 3), (1, 1, 1, 2), 1.3333)]
    """
    x = np.asarray(x, dtype=float)
    keep = np.flatnonzero((x > eps) & (x < 1 - eps))
    if keep.size == 0:
        return []
    xs, _, _, A, Ar = support_incidence(columns, x, keep, n)
    Z = pair_matrix(A @ A.T)
    have = {rank1(S) for S in existing}
    found: dict[Rank1Cut, float] = {}
    for size in sizes:
        if size not in PATTERNS:
            raise ValueError(f"no rank-1 pattern on {size} rows; expected one of "
                             f"{sorted(PATTERNS)}")
        nums, den = PATTERNS[size]
        out = np.zeros((n, size), dtype=np.int64)
        out_lhs = np.zeros(n)
        m = _grow(n, size, np.asarray(nums, dtype=np.int64), den,
                  Ar.indptr.astype(np.int64), Ar.indices.astype(np.int64), xs,
                  Z.indptr.astype(np.int64), Z.indices.astype(np.int64), 1.0 + min_violation,
                  out, out_lhs)
        for rows, v in zip(out[:m].tolist(), out_lhs[:m].tolist()):
            cut = rank1(Rank1Cut(tuple(rows), nums, den))
            if cut not in have:
                found[cut] = max(v, found.get(cut, 0.0))
    ranked = sorted(found, key=lambda c: (-found[c], len(c.rows), c.rows, c.nums))
    used = np.zeros(n, dtype=np.int64)
    chosen = []
    for cut in ranked:
        if len(chosen) >= max_cuts:
            break
        rows = list(cut.rows)
        if used[rows].max() >= max_per_record:
            continue
        used[rows] += 1
        chosen.append((cut, found[cut]))
    return chosen


class Rank1Cuts:
    """Rank-1 cuts on four and five rows (Pecin et al. 2017; module
    docstring): new violated ones only, a
    :class:`~mipagg.exact.rules.CutFamily` meant next to the subset-row
    cuts.  Registered as ``"rank1"`` in
    :data:`~mipagg.exact.rules.CUT_FAMILIES` (``cut_families=("subset_row",
    "rank1")``), not a default: docs/bench/cuts.md measures where they lift
    the bound beyond the subset-row cuts."""

    def __init__(self, sizes=(4, 5)):
        self.sizes = tuple(sizes)

    def separate(self, master, solution, n: int, max_cuts: int, min_violation: float) -> list:
        found = separate_rank1(master.columns[:solution.x.size], solution.x, n,
                               sizes=self.sizes, max_cuts=max_cuts,
                               min_violation=min_violation, existing=master.cuts)
        return [c for c, _ in found]
