"""MF-TSP: multivariate fixed-size microaggregation from a neighbourhood
matrix of Hamiltonian paths (seed 000 §II.E and Algorithm 1; seed 003
chapter 3, Algorithm 1).

Choices where the pseudocode is ambiguous (all tested in
``tests/tsp_micro/test_tsp_micro.py``):

* **Paths.**  One Hamiltonian path per start record i (seed 000 §II.C:
  "Compute_TSP_Starting_In(d_i)").  For the construction heuristics
  (``nn``, ``nearest``, ``farthest``, ``cheapest``, ``arbitrary``) the path is
  the heuristic's tour started at i and read from i (the closing edge is the
  free return to the start, the zero-column trick of seed 000 §II.C).  For the
  other tour methods (``2opt``, ``oropt``, ``lkh``, ...), whose start cannot
  be fixed, ``n_paths`` tours with independent seeds are cut at the dummy
  node instead.
* **Neighbourhood matrix.**  ``N[i, j]`` counts the paths on which i and j lie
  at most k−1 positions apart (seed 000 §II.E and its symmetric Table V,
  whose entries never exceed the number of paths).  Seed 003's 9-patient
  example counts direct successors only (k−1 = 1 positions, directed); that
  variant is ``window=1``.
* **Group building** (Algorithm 1 lines 11-24).  While more than 2k−1
  records are unassigned: the pair (i, j) with the largest count starts a
  group; k−2 times, the largest entry of row i or of column j among the
  unassigned records adds its record (the row wins only when strictly
  larger, as in line 17).  Ties — and all-zero counts — are broken by the
  shorter Euclidean distance, then by the lowest index.
* **Remaining records** (line 25; seed 000 end of §II.E).  Between k and 2k−1
  left: they form one group.  Fewer than k: each joins the group with the
  closest centroid (centroids of the groups as built), so groups stay below
  2k.  Seed 000's running example (Tables VI-VII) shows a third group built
  from 5 remaining records, which contradicts its own line 11; we follow the
  pseudocode.

Published intermediate numbers: from the 9 Concorde paths of seed 003 (3.1)
the window-1 matrix is exactly the symmetrised (3.2), and the group building
on it returns the groups (3.3).  Seed 000's Table V cannot come from 11
paths with a ±2 window (four rows sum to more than 4·11), so it is used only
to check the group building (its groups {1,2,3} and {8,10,11}).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DataError, ParameterError
from ..partition import Partition
from ..validation import check_k
from ._common import child_seeds

__all__ = ["START_HEURISTICS", "start_paths", "neighbourhood_matrix", "mf_tsp_groups",
           "mf_tsp", "MFTSPResult"]

START_HEURISTICS = ("nn", "nearest", "farthest", "cheapest", "arbitrary")


def start_paths(X: np.ndarray, tour: str = "nn", *, seed=None, n_paths=None) -> np.ndarray:
    """Matrix of Hamiltonian paths, one per row (seed 003 Algorithm 1 lines
    3-5).  For the construction heuristics row i starts at record i (all n
    starts, ``n_paths`` ignored; :func:`mipagg.tsp.tours_from_every_start`,
    one distance matrix for all starts; ``seed`` only draws the insertion
    orders of ``"arbitrary"``); otherwise ``n_paths`` (default n) tours with
    independent seeds cut at the dummy node.  O(n³) for the constructions
    (Census, n = 1 080: about 1 s for ``nn``, 5 s for nearest/farthest
    insertion, 20 s for cheapest insertion; docs/bench/tsp_micro.md)."""
    return _start_paths(X, tour, seed, n_paths, None)


def _start_paths(X, tour, seed, n_paths, progress, deadline=None) -> np.ndarray:
    """:func:`start_paths`, reporting each seeded tour to ``progress``; a
    ``deadline`` that expires keeps the paths made so far (at least one)."""
    from ..tsp import TOUR_METHODS

    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    if tour not in TOUR_METHODS:
        raise ParameterError(f"unknown tour method {tour!r}; available: {', '.join(TOUR_METHODS)}")
    if n < 4:
        return np.array([np.r_[i, np.delete(np.arange(n), i)] for i in range(n)])
    if tour in START_HEURISTICS:
        from ..tsp import tours_from_every_start

        if deadline is None or not deadline.bounded:
            return tours_from_every_start(X, tour, seed=seed)
        paths = []   # one start at a time, so that the deadline can stop it
        for i in range(n):
            paths.append(_tour_from(X, tour, seed, i))
            if deadline.expired():
                break
        return np.array(paths)
    from ..tsp import hamiltonian_path

    m = n if n_paths is None else int(n_paths)
    if m < 1:
        raise ParameterError(f"n_paths must be positive, got {n_paths!r}")
    paths = []
    for i, s in enumerate(child_seeds(seed, m)):
        paths.append(hamiltonian_path(X, tour, seed=s, time_limit=deadline))
        if progress is not None:
            progress.update(stage="paths", path=f"{i + 1}/{m}")
        if deadline is not None and deadline.expired():
            break
    return np.array(paths)


def _tour_from(X, tour, seed, i) -> np.ndarray:
    """Row i of :func:`mipagg.tsp.tours_from_every_start` (same seeds)."""
    from ..tsp import insertion_tour, nearest_neighbor_tour

    if tour == "nn":
        return nearest_neighbor_tour(X, start=i)
    if tour == "arbitrary":
        return insertion_tour(X, tour, seed=np.random.default_rng(seed).spawn(X.shape[0])[i],
                              start=i)
    return insertion_tour(X, tour, start=i)


def neighbourhood_matrix(paths: np.ndarray, window: int) -> np.ndarray:
    """``N[i, j]`` = number of paths (rows of ``paths``) on which records i and
    j are at most ``window`` positions apart (seed 000 §II.E, Table V with
    window = k−1).  Symmetric, zero diagonal.  O(m·n·window) for m paths."""
    paths = np.asarray(paths, dtype=np.int64)
    n = paths.shape[1]
    N = np.zeros((n, n), dtype=np.int64)
    block = max(1, 1_000_000 // max(n, 1))   # paths per numpy call: Ctrl-C between blocks
    for d in range(1, min(int(window), n - 1) + 1):
        for lo in range(0, paths.shape[0], block):
            a, b = paths[lo:lo + block, :-d].ravel(), paths[lo:lo + block, d:].ravel()
            np.add.at(N, (a, b), 1)
            np.add.at(N, (b, a), 1)
    return N


def _best(counts: np.ndarray, dists: np.ndarray) -> int:
    """Position of the largest count; ties → shortest distance → lowest index."""
    top = np.flatnonzero(counts == counts.max())
    return int(top[np.argmin(dists[top])])


def mf_tsp_groups(N: np.ndarray, X: np.ndarray, k: int) -> list[np.ndarray]:
    """Greedy group building of MF-TSP from a neighbourhood matrix ``N``
    (seed 003 Algorithm 1 lines 11-25; choices in the module docstring).
    Returns the groups in formation order, each listed in insertion order.
    O(n³/k) from rescanning the unassigned block of N for each group."""
    return _mf_tsp_groups(N, X, k, None)


def _mf_tsp_groups(N, X, k, progress, deadline=None) -> list[np.ndarray]:
    """:func:`mf_tsp_groups`, reporting each group formed to ``progress``;
    when ``deadline`` expires, the records still unassigned (2k or more)
    are grouped by MDAV."""
    X = np.asarray(X, dtype=float)
    N = np.asarray(N)
    n = X.shape[0]
    k = check_k(k, n)
    if N.shape != (n, n):
        raise DataError(f"neighbourhood matrix has shape {N.shape}, expected {(n, n)}")
    from scipy.spatial.distance import cdist

    D = cdist(X, X)
    free = np.ones(n, dtype=bool)
    groups = []
    while free.sum() > 2 * k - 1:
        if deadline is not None and deadline.expired():
            from ..heuristics.mdav import mdav_groups

            rest = np.flatnonzero(free)
            groups.extend(rest[np.asarray(g)] for g in mdav_groups(X[rest], k))
            free[:] = False
            break
        rows = np.flatnonzero(free)
        sub = N[np.ix_(rows, rows)].astype(float)
        np.fill_diagonal(sub, -1.0)
        top = np.argwhere(sub == sub.max())
        pick = top[np.argmin(D[rows[top[:, 0]], rows[top[:, 1]]])]
        i, j = int(rows[pick[0]]), int(rows[pick[1]])
        group = [i, j]
        free[[i, j]] = False
        for _ in range(k - 2):
            cand = np.flatnonzero(free)
            r = _best(N[i, cand], D[i, cand])
            c = _best(N[cand, j], D[cand, j])
            row_key = (N[i, cand[r]], -D[i, cand[r]])
            col_key = (N[cand[c], j], -D[cand[c], j])
            x = int(cand[r] if row_key > col_key else cand[c])
            group.append(x)
            free[x] = False
        groups.append(np.array(group))
        if progress is not None:
            progress.update(stage="groups", groups=len(groups), unassigned=int(free.sum()))
    rest = np.flatnonzero(free)
    if rest.size >= k or not groups:
        groups.append(rest)
    elif rest.size:
        cents = np.array([X[g].mean(axis=0) for g in groups])
        home = np.argmin(((X[rest][:, None, :] - cents[None]) ** 2).sum(axis=2), axis=1)
        for g in np.unique(home):
            groups[g] = np.concatenate((groups[g], rest[home == g]))
    return groups


@dataclass
class MFTSPResult:
    """MF-TSP outcome: the partition, the paths (one per row), the
    neighbourhood matrix built from them, the tour method and the window."""

    partition: Partition
    paths: np.ndarray
    neighbourhood: np.ndarray
    tour: str
    window: int
    time_limited: bool | None = None   # None: no time limit given

    def summary(self) -> dict:
        from ..tsp import path_length

        X = self.partition.X
        lengths = [path_length(X, p) for p in self.paths]
        out = {"tour": self.tour, "paths": int(len(self.paths)), "window": self.window,
               "path_length": float(min(lengths)), "path_length_mean": float(np.mean(lengths))}
        if self.time_limited is not None:
            out["time_limited"] = self.time_limited
        return out


def mf_tsp(X: np.ndarray, k: int, *, tour: str = "nn", seed=None, n_paths=None,
           window=None, time_limit: float | None = None, verbose: bool = False) -> MFTSPResult:
    """MF-TSP (seed 000 Algorithm 1; seed 003 chapter 3): Hamiltonian paths
    from every start, the neighbourhood matrix counting how often two records
    lie within ``window`` (default k−1) positions on a path, greedy groups of
    k from its maxima, the rest to the closest group.  Fixed-size: groups of
    k, except at most one of k..2k−1 or a few enlarged by the leftovers.

    O(n³) for the n construction paths plus O(n³/k) for the grouping;
    O(n²) memory (refused up front when it does not fit,
    :func:`mipagg.memory.check_memory`).  ``time_limit`` (seconds): the
    paths made so far form the neighbourhood matrix, and the records still
    unassigned when it expires during the grouping are grouped by MDAV; the
    summary then says ``time_limited: True``.
    ``verbose=True`` prints throttled progress lines to stderr (stage, paths
    or groups done, final IL; :class:`mipagg.progress.Progress`).

    >>> import numpy as np
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [9., 9.], [9., 8.], [8., 9.], [4., 4.]])
    >>> sorted(mf_tsp(X, 3).partition.sizes.tolist())
    [3, 4]
    """
    X = np.asarray(X, dtype=float)
    k = check_k(k, X.shape[0])
    w = k - 1 if window is None else int(window)
    if w < 1:
        raise ParameterError(f"window must be at least 1, got {window!r}")
    from ..deadline import Deadline
    from ..memory import check_memory
    from ..progress import Progress

    check_memory("mf-tsp", X.shape[0], X.shape[1], k, {"tour": tour})
    deadline = Deadline(time_limit)
    progress = Progress("mf-tsp", enabled=verbose)
    paths = _start_paths(X, tour, seed, n_paths, progress, deadline)
    progress.update(stage="neighbourhood matrix", paths=len(paths))
    N = neighbourhood_matrix(paths, w)
    part = Partition.from_groups(_mf_tsp_groups(N, X, k, progress, deadline), X)
    progress.done(stage="done", groups=part.n_groups, sse=part.sse(), il=part.il())
    return MFTSPResult(part, paths, N, tour, w,
                       None if not deadline.bounded else bool(deadline.hit))
