"""Retiring the node cuts no open node uses when a tree is checkpointed
(``retire_cuts``; issue 22, docs/bench/casc_gap.md §66).

Cuts separated at nodes (``node_cut_rounds``) are valid for every partition
and join the master's rows for good (:mod:`mipagg.exact.nodecuts`): on the
Census k = 4 tree 2 341 of them stood beside the root's 292 after 11 936
nodes with one round each, while the open nodes' saved bases held only 870
of all the cut rows tight (a nonbasic slack).  A cut whose slack is basic
in every saved basis binds no open node's last LP, so a checkpoint may
leave it out and each basis loses that row together with its basic slack,
which keeps the basis square.  Leaving a valid inequality out never invalidates a bound: every
open node's bound was certified when it was saved, and the tree goes on
with fewer rows.  A retired cut that matters again at a node is separated
again there (when ``node_cut_rounds`` > 0).  The root's cuts are kept:
the root's duals, which the checkpoint keeps, refer to them by position
(``cut_duals`` of :class:`~mipagg.exact.node.StopState`).
"""

from __future__ import annotations

import numpy as np

from .bases import ragged

__all__ = ["live_cuts", "keep_rows", "retire"]

_BASIC = 1      # highspy.HighsBasisStatus.kBasic (as in mipagg.exact.master)


def _cut_entries(ptr: np.ndarray, n: int) -> tuple:
    """The entries of ragged row statuses (offsets ``ptr``, ``n`` partition
    rows first in each basis) that are cut rows: (their positions, their cut
    row index, their basis).  Only these are looked at: on the Census k = 4
    checkpoint, 3.4 of 15.8 million statuses."""
    length = np.maximum(np.diff(ptr) - n, 0)
    basis = np.repeat(np.arange(length.size), length)
    first = np.concatenate([[0], np.cumsum(length)[:-1]])
    j = np.arange(int(length.sum())) - first[basis]
    return ptr[:-1][basis] + n + j, j, basis


def live_cuts(rows: np.ndarray, ptr: np.ndarray, n: int, cuts: int, keep: int,
              entries: tuple | None = None) -> np.ndarray:
    """Which of ``cuts`` cut rows to keep: the first ``keep`` (the root's)
    and every row that some basis holds nonbasic.  ``rows``, ``ptr``: the
    bases' row statuses, ragged (``n`` partition rows, then cut rows in the
    master's order; rows a basis lacks are basic).  ``entries``: their
    :func:`_cut_entries`, when the caller has them.

    >>> statuses = np.array([1, 1, 1, 0, 1,   1, 1, 1, 1, 1, 0], dtype=np.int8)
    >>> live_cuts(statuses, np.array([0, 5, 11]), 2, 4, 1).tolist()
    [True, True, False, True]
    """
    live = np.zeros(cuts, dtype=bool)
    live[:keep] = True
    pos, j, _ = entries or _cut_entries(ptr, n)
    tight = (j < cuts) & (rows[pos] != _BASIC)
    live[j[tight]] = True
    return live


def keep_rows(rows: np.ndarray, ptr: np.ndarray, n: int, live: np.ndarray,
              entries: tuple | None = None) -> tuple:
    """The bases' row statuses (ragged: ``rows``, ``ptr``) without the cut
    rows ``live`` leaves out: (rows, ptr).  Each row left out must be basic
    in every basis (its slack leaves the basis with it); ``entries`` as in
    :func:`live_cuts`."""
    pos, j, basis = entries or _cut_entries(ptr, n)
    drop = ~np.append(live, True)[np.minimum(j, live.size)]    # rows past the cuts stay
    stay = np.ones(rows.size, dtype=bool)
    stay[pos[drop]] = False
    gone = np.bincount(basis[drop], minlength=ptr.size - 1)
    return rows[stay], np.concatenate([[0], np.cumsum(np.diff(ptr) - gone)]).astype(ptr.dtype)


def retire(arrays: dict, n: int, keep: int) -> int:
    """Drop from a checkpoint's ``arrays`` (:func:`mipagg.exact.checkpoint.read`)
    the cuts after the first ``keep`` that no saved basis holds tight (all
    of them when it saved no basis, ``checkpoint_bases=0``), and their rows
    from every basis; returns how many were dropped."""
    cuts = arrays["cut_den"].size
    rows = arrays.get("basis_rows", np.zeros(0, dtype=np.int8))
    ptr = arrays.get("basis_rows_ptr", np.zeros(1, dtype=np.int64))
    entries = _cut_entries(ptr, n)      # computed once for both steps
    live = live_cuts(rows, ptr, n, cuts, keep, entries)
    if live.all():
        return 0
    cut_ptr, kept = arrays["cut_ptr"], np.flatnonzero(live)
    for name in ("cut_rows", "cut_nums"):
        flat = arrays[name]
        arrays[name], new_ptr = ragged([flat[cut_ptr[j]:cut_ptr[j + 1]] for j in kept])
    arrays["cut_ptr"], arrays["cut_den"] = new_ptr, arrays["cut_den"][kept]
    if "basis_rows" in arrays:
        arrays["basis_rows"], arrays["basis_rows_ptr"] = keep_rows(rows, ptr, n, live, entries)
    return int(cuts - kept.size)
