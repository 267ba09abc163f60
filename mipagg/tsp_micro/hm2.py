"""Path + MHM methods built on tours: (HM)²-Micro, MDAV-LK-MHM and the
compression method Cc-C-MHM.

Each builds a Hamiltonian path over the records and hands it to MHM (seed 004
§4.1), which returns the best k-partition compatible with that order.  Every
method can be repeated with independent seeds; the result then carries the
mean/σ/min/max information loss of the runs, as in seed 003 Tables 4.2-4.4,
and the best run's partition.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..validation import check_k
from ._common import PathMicroResult, mdav_path, run_repeats

__all__ = ["hm2_micro", "mdav_lk_mhm", "compression_path", "compress"]


def _check_tour(tour: str) -> str:
    from ..tsp import TOUR_METHODS

    if tour not in TOUR_METHODS:
        raise ParameterError(f"unknown tour method {tour!r}; available: {', '.join(TOUR_METHODS)}")
    return tour


def hm2_micro(X: np.ndarray, k: int, *, tour: str = "lkh", seed=None,
              repeats: int = 1, time_limit: float | None = None,
              verbose: bool = False) -> PathMicroResult:
    """(HM)²-Micro (seed 002 §4, Algorithm 1; seed 003 chapter 4): a
    Hamiltonian path by the TSP heuristic ``tour`` with the dummy node
    (:func:`mipagg.tsp.hamiltonian_path`: LKH on the dummy-augmented matrix for
    ``"lkh"``, the longest-edge cut of the tour otherwise), then MHM.
    ``repeats`` runs with independent seeds (the random start node of the
    heuristics, seed 002 §5.2); the best partition is returned and the summary
    carries ``il_mean/il_std/il_min/il_max`` over the runs.

    Cost per run: the tour (O(n²) for the constructions, more for ``lkh``)
    plus O(k·n·p) for MHM.  ``time_limit`` (seconds for the whole run)
    reaches the tour (LKH's TIME_LIMIT, the LK and 2-opt/Or-opt chunks, the
    exact tour's solver) and stops further repeats; the summary then says
    ``time_limited: True``.  For ``tour="exact"``, when it stops the proof,
    the best path found is used and the summary says
    ``path_proven_optimal: False`` (status ``time_limit``).
    ``verbose=True`` prints throttled progress lines to stderr (elapsed time,
    repeat i/n, best SSE and IL so far; :class:`mipagg.progress.Progress`).

    >>> import numpy as np
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [9., 9.], [9., 8.], [8., 9.]])
    >>> hm2_micro(X, 3, tour="nn", seed=0).partition.sizes.tolist()
    [3, 3]
    """
    X = np.asarray(X, dtype=float)
    tour = _check_tour(tour)
    check_k(k, X.shape[0])
    from ..deadline import Deadline
    from ..memory import check_memory
    from ..progress import Progress
    from ..tsp import exact_path, hamiltonian_path, path_length

    check_memory("tsp-mhm", X.shape[0], X.shape[1], k, {"tour": tour})
    deadline = Deadline(time_limit)
    proofs = []

    def make(s):
        if tour == "exact":
            left = max(deadline.left(), 0.0) if deadline.bounded else None
            order, _, proven = exact_path(X, time_limit=left, seed=s)
            proofs.append(bool(proven))
            deadline.hit = deadline.hit or not proven
        else:
            order = hamiltonian_path(X, tour, seed=s, time_limit=deadline)
        order = np.asarray(order, dtype=np.int64)
        return order, path_length(X, order)

    result = run_repeats(X, k, make, seed=seed, repeats=repeats, tour=tour,
                         progress=Progress("tsp-mhm", enabled=verbose), deadline=deadline)
    if proofs:
        result.extra.update(path_proven_optimal=all(proofs),
                            status="optimal_path" if all(proofs) else "time_limit")
    return result


MDAV_LK_SEARCHES = ("lk", "oropt")


def mdav_lk_mhm(X: np.ndarray, k: int, *, search: str = "lk", seed=None,
                repeats: int = 1, time_limit: float | None = None,
                verbose: bool = False) -> PathMicroResult:
    """MDAV-LK-MHM (Heaton & Mukherjee, as seed 002 §5.2 and seed 003 §4.3
    describe it): the MDAV path (seed 004 §4.2.3 steps 6-7) is improved by
    Lin–Kernighan, then MHM (seed 004 §4.1).

    ``search="lk"`` (default): :func:`mipagg.tsp.lin_kernighan_path`, our
    numba Lin–Kernighan (8 neighbours, depth 6, breadth 3) started from the
    MDAV path, the open path handled by the dummy node (seed 002 §4).
    ``search="oropt"``: the previous stand-in — the MDAV path closed into a
    tour, NN-list 2-opt + Or-opt (:func:`mipagg.tsp.improve_tour`), cut at
    its longest edge.  LKH (elkai) cannot start from a given tour, hence our
    own LK.  Both are deterministic, so ``repeats > 1`` repeats the same run.
    O(n²) for the MDAV path plus O(k·n·p) for MHM; the LK itself takes about
    0.3 s on Census (docs/bench/tsp_micro.md).  ``time_limit`` (seconds for
    the whole run) stops the LK / 2-opt / Or-opt search with the path as it
    stands (never longer than the MDAV path) and further repeats; the
    summary then says ``time_limited: True``.  ``verbose=True``: throttled
    progress lines on stderr (:class:`mipagg.progress.Progress`).

    >>> import numpy as np
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [9., 9.], [9., 8.], [8., 9.]])
    >>> mdav_lk_mhm(X, 3).partition.sizes.tolist()
    [3, 3]
    """
    from ..deadline import Deadline
    from ..progress import Progress
    from ..tsp import improve_tour, lin_kernighan_path, path_length, tour_to_path

    X = np.asarray(X, dtype=float)
    k = check_k(k, X.shape[0])
    if search not in MDAV_LK_SEARCHES:
        raise ParameterError(f"search must be one of {MDAV_LK_SEARCHES}, got {search!r}")
    deadline = Deadline(time_limit)
    progress = Progress("mdav-lk-mhm", enabled=verbose)
    start = mdav_path(X, k)
    progress.update(stage="mdav path", path_length=path_length(X, start))

    def make(s):
        if search == "lk":
            order = lin_kernighan_path(X, start, time_limit=deadline)
        else:
            order = tour_to_path(X, improve_tour(X, start, seed=s, time_limit=deadline))
        order = np.asarray(order, dtype=np.int64)
        return order, path_length(X, order)

    label = "mdav+lk" if search == "lk" else "mdav+2opt/oropt"
    return run_repeats(X, k, make, seed=seed, repeats=repeats, tour=label,
                       extra={"mdav_path_length": path_length(X, start)}, progress=progress,
                       deadline=deadline)


def _check_c(c, n: int) -> int:
    if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 1:
        raise ParameterError(f"compression ratio c must be a positive integer, got {c!r}")
    if c > n:
        raise ParameterError(f"compression ratio c = {c} exceeds the number of records n = {n}")
    return int(c)


def compression_path(X: np.ndarray, c: int, tour: str = "lkh", *, seed=None,
                     inner: str = "centroid"):
    """Phases 1-3 of Compress-TSP-MHM (seed 003 Algorithm 3): a c-partition by
    MDAV, a Hamiltonian path over its centroids, and decompression into a path
    over all records.  ``inner`` orders each cluster's records:

    * ``"centroid"`` (Algorithm 3 line 8 as written): increasing distance to
      the dataset centroid, ties by row index;
    * ``"chain"``: the record nearest to the previous record on the path
      first, then nearest-next.  Not in the pseudocode, but its decompressed
      path lengths are the ones seed 003 Table 5.2 reports (Census, c = 2:
      ≈1314 against the published 1308.05; "centroid" gives ≈1414).

    Returns ``(order, compressed_path_length)``.  ``c = 1`` means no
    compression (the path over the records themselves, i.e. C-MHM).
    """
    X = np.asarray(X, dtype=float)
    groups, cents = _compressed(X, _check_c(c, X.shape[0]))
    return _decompressed_path(X, groups, cents, tour, seed, _check_inner(inner))


def _check_inner(inner: str) -> str:
    if inner not in ("centroid", "chain"):
        raise ParameterError(f"inner must be 'centroid' or 'chain', got {inner!r}")
    return inner


def _compressed(X: np.ndarray, c: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Phase 1 of seed 003 Algorithm 3: the MDAV c-partition and its centroids
    (deterministic, so computed once for all repeats)."""
    from ..heuristics.mdav import mdav_groups

    n = X.shape[0]
    groups = [np.array([i]) for i in range(n)] if c == 1 else mdav_groups(X, int(c))
    return groups, np.array([X[g].mean(axis=0) for g in groups])


def _decompressed_path(X, groups, cents, tour, seed, inner, deadline=None):
    """Phases 2-3 of seed 003 Algorithm 3 (see :func:`compression_path`)."""
    from ..tsp import hamiltonian_path, path_length

    hp = np.asarray(hamiltonian_path(cents, tour, seed=seed, time_limit=deadline),
                    dtype=np.int64)
    if inner == "centroid":
        d = ((X - X.mean(axis=0)) ** 2).sum(axis=1)
        sorted_groups = (np.sort(groups[g]) for g in hp)
        order = np.concatenate([rows[np.argsort(d[rows], kind="stable")]
                                for rows in sorted_groups])
    else:  # "chain"
        order, prev = [], None
        for g in hp:
            rows = np.sort(groups[g])
            while rows.size:
                t = 0 if prev is None else int(np.argmin(((X[rows] - X[prev]) ** 2).sum(axis=1)))
                prev = int(rows[t])
                order.append(prev)
                rows = np.delete(rows, t)
        order = np.asarray(order, dtype=np.int64)
    return order, path_length(cents, hp)


def compress(X: np.ndarray, k: int, *, c: int = 2, tour: str = "lkh", seed=None,
             repeats: int = 1, inner: str = "centroid", time_limit: float | None = None,
             verbose: bool = False) -> PathMicroResult:
    """Cc-C-MHM, compression for efficient TSP-based microaggregation (seed 003
    chapter 5, Algorithm 3): MDAV c-partition, tour over the ~n/c centroids,
    decompression, MHM.  The tour costs that of ``n/c`` points instead of n.

    ``inner`` orders the records inside each cluster (see
    :func:`compression_path`).  ``summary()`` has ``path_length`` of the
    decompressed path over all records (the "Path Length" column of seed 003
    Tables 5.2-5.4) and ``compressed_path_length`` over the centroids.
    ``time_limit`` (seconds for the whole run) reaches the centroid tour and
    stops further repeats (summary ``time_limited``).  ``verbose=True``:
    throttled progress lines on stderr (repeat i/n, best SSE;
    :class:`mipagg.progress.Progress`).

    >>> import numpy as np
    >>> X = np.vstack([np.zeros((4, 2)), np.full((4, 2), 5.0)]) + np.arange(8)[:, None] / 100
    >>> compress(X, 4, c=2, tour="nn", seed=0).partition.sizes.tolist()
    [4, 4]
    """
    from ..deadline import Deadline
    from ..memory import check_memory
    from ..progress import Progress
    from ..tsp import path_length

    X = np.asarray(X, dtype=float)
    tour = _check_tour(tour)
    k = check_k(k, X.shape[0])
    c = _check_c(c, X.shape[0])
    inner = _check_inner(inner)
    check_memory("compress", X.shape[0], X.shape[1], k, {"tour": tour, "c": c})
    deadline = Deadline(time_limit)
    groups, cents = _compressed(X, c)
    comp_lengths = []

    def make(s):
        order, clen = _decompressed_path(X, groups, cents, tour, s, inner, deadline)
        comp_lengths.append(clen)
        return order, path_length(X, order)

    res = run_repeats(X, k, make, seed=seed, repeats=repeats, tour=tour,
                      extra={"c": c, "inner": inner},
                      progress=Progress("compress", enabled=verbose), deadline=deadline)
    res.extra["compressed_path_length"] = float(np.mean(comp_lengths))
    return res
