"""Cut rows shared among the masters of a parallel tree (``node_cut_rounds``
with ``workers`` > 1; :mod:`mipagg.exact.parallel`).

A cut separated at a node is valid for every partition (Jepsen, Sigurd,
Spoorendonk & Pisinger 2008), so it joins its master's global rows
(:mod:`mipagg.exact.nodecuts`).  Each worker's master appends rows in the
order *it* added them, while a node's basis (its row statuses) travels to
whichever worker takes the node next and into the coordinator's checkpoint.
The coordinator's master gives the *canonical* order: the root's cuts, then
every cut a worker sent back, in the order they arrived.  A worker hears of
the canonical cuts with its tasks (:meth:`CutOrder.sync`), sends back the
cuts the coordinator does not know yet and sends its bases in canonical
order, its unsynced cuts' rows after the canonical ones it knows
(:meth:`CutOrder.canonical`); the coordinator places those rows
(:meth:`CanonicalCuts.absorb`).  A row a basis does not cover has its slack
basic, so every translated basis keeps one basic variable per row.  Without
node cuts every order is the root's and nothing is translated.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .cuts import rank1

__all__ = ["CutOrder", "CanonicalCuts"]

_BASIC = 1      # highspy.HighsBasisStatus.kBasic (as in mipagg.exact.master)


def _statuses(row_status: np.ndarray, n: int, cuts: int) -> np.ndarray:
    """``row_status`` over ``n`` leading rows (the partition rows, and the count
    row when the master has one) and ``cuts`` cut rows: rows
    added after the basis was taken have their slack basic."""
    out = np.full(n + cuts, _BASIC, dtype=np.int8)
    m = min(row_status.size, out.size)
    out[:m] = row_status[:m]
    return out


class CutOrder:
    """A worker master's cut rows against the canonical order: ``canon[j]``
    is the canonical index of its cut row ``j`` (−1: a cut it found that the
    coordinator has not numbered yet)."""

    def __init__(self, master):
        self.master = master
        self.canon: list[int] = list(range(len(master.cuts)))
        self.where = {rank1(c): j for j, c in enumerate(master.cuts)}   # cut -> local row
        self.width = len(master.cuts)       # canonical cuts it knows: indices below this
        self.local: dict[int, int] = {}     # canonical index -> local row, where they differ

    def _catch_up(self) -> None:
        """Number the rows the master added itself (node cut rounds) as unsynced."""
        for j in range(len(self.canon), len(self.master.cuts)):
            self.where[rank1(self.master.cuts[j])] = j
            self.canon.append(-1)

    @property
    def identity(self) -> bool:
        """Local and canonical orders agree (no translation needed)."""
        self._catch_up()
        return not self.local and len(self.canon) == self.width

    def sync(self, start: int, cuts) -> None:
        """Take the canonical cuts ``start``, ``start`` + 1, … (``cuts``),
        adding those the master lacks."""
        self._catch_up()
        for g, cut in enumerate(cuts, start):
            key = rank1(cut)
            j = self.where.get(key)
            if j is None:
                self.master.add_cuts([cut])
                self._catch_up()
                j = self.where[key]
            self.canon[j] = g
            if j != g:
                self.local[g] = j
            self.width = max(self.width, g + 1)

    def unsynced(self) -> list:
        """The cuts it found that the coordinator has not numbered, in row order."""
        self._catch_up()
        return [self.master.cuts[j] for j, g in enumerate(self.canon) if g < 0]

    def canonical(self, portable):
        """``portable`` (a :class:`~mipagg.exact.bases.PortableBasis` of this
        master) with its cut rows in canonical order: the :attr:`width`
        canonical rows it knows, then the :meth:`unsynced` cuts' rows."""
        if self.identity:
            return portable
        n = self.master.first_cut_row     # partition rows (and the count row)
        rows = _statuses(portable.row_status, n, len(self.canon))
        out = np.full(n + self.width, _BASIC, dtype=np.int8)
        out[:n] = rows[:n]
        canon = np.asarray(self.canon, dtype=np.int64)
        known = np.flatnonzero(canon >= 0)
        out[n + canon[known]] = rows[n + known]
        tail = rows[n + np.flatnonzero(canon < 0)]
        return replace(portable, row_status=np.concatenate([out, tail]))

    def to_local(self, portable):
        """``portable`` in canonical order (up to :attr:`width` cuts) in this
        master's row order; None when it makes a row it does not hold
        nonbasic (it missed a canonical cut)."""
        if self.identity:
            return portable
        n, rs = self.master.first_cut_row, portable.row_status
        cut_rows = max(rs.size - n, 0)
        if cut_rows > self.width and np.any(rs[n + self.width:] != _BASIC):
            return None
        out = np.full(n + len(self.canon), _BASIC, dtype=np.int8)
        out[:n] = rs[:n]
        for g in range(min(cut_rows, self.width)):
            j = self.local.get(g, g)
            if j >= len(self.canon) or self.canon[j] != g:
                if rs[n + g] != _BASIC:
                    return None             # a canonical cut this master never heard of
                continue
            out[n + j] = rs[n + g]
        return replace(portable, row_status=out)


class CanonicalCuts:
    """The coordinator's side: its master's cuts are the canonical order."""

    def __init__(self, master):
        self.master = master
        self.index = {rank1(c): g for g, c in enumerate(master.cuts)}

    def since(self, start: int) -> list:
        return list(self.master.cuts[start:])

    def absorb(self, cuts) -> int:
        """Number the cuts a worker sent back (those not yet known go last);
        returns how many were new."""
        before = len(self.master.cuts)
        fresh = [c for c in cuts if rank1(c) not in self.index]
        if fresh:
            self.master.add_cuts(fresh)
            for g in range(len(self.index), len(self.master.cuts)):
                self.index[rank1(self.master.cuts[g])] = g
        return len(self.master.cuts) - before

    def place(self, portable, width: int, unsynced: list):
        """A worker's ``portable`` basis from :meth:`CutOrder.canonical`
        (``width`` canonical rows, then ``unsynced``'s rows, all absorbed) in
        the canonical order."""
        if not unsynced:
            return portable
        n, rs = self.master.first_cut_row, portable.row_status
        out = _statuses(rs[:n + width], n, len(self.master.cuts))
        for i, cut in enumerate(unsynced):
            if n + width + i < rs.size:
                out[n + self.index[rank1(cut)]] = rs[n + width + i]
        return replace(portable, row_status=out)
