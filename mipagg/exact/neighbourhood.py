"""Exact neighbourhood search: POPMUSIC with branch-and-price sub-problems.

POPMUSIC (Taillard & Voss 2002, "POPMUSIC — Partial optimization
metaheuristic under special intensification conditions") improves a
solution made of parts by re-optimizing small groups of related parts.  Here
the parts are the groups of a k-partition: a *sub-problem* is a seed group
with its ``groups − 1`` nearest groups (centroid distance); the records of
those groups form a small microaggregation instance that
:func:`~mipagg.exact.bp.branch_and_price` (seed 001's master with subset-row
cuts and Ryan–Foster branching) solves to proven optimality, and the new
groups replace the old ones when they lower the SSE.  Any k-partition of the
sub-problem's records is a valid replacement, so the partition stays
k-feasible and the SSE never rises.

The seeds still to try form a set U, at first every group, drawn in a
seeded random order; a seed leaves U once its sub-problem is solved, and
the groups of an improved sub-problem enter U again.  The search stops when
U is empty, at ``time_limit`` or after ``max_solves`` sub-problems.
``converged`` reports POPMUSIC's stopping rule: U emptied and every current
group was, after it last changed, the seed of a sub-problem proven optimal
without improvement — no group and its ``groups − 1`` nearest can be
re-partitioned better.  It is not a global certificate: that takes a lower
bound (``bp``).

Beyond the seeds: :func:`mipagg.improve.merge_split_search` merges groups in
the same way but re-cuts them heuristically.

>>> import numpy as np
>>> X = np.array([[0.], [1.], [2.], [3.], [10.], [11.], [12.], [13.]])
>>> P = np.array([0, 1, 0, 1, 2, 3, 2, 3])          # interleaved pairs
>>> r = exact_neighbourhood_search(X, P, 2, groups=2, seed=0)
>>> r.partition.labels.tolist(), r.converged
([0, 0, 1, 1, 2, 2, 3, 3], True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError, ParameterError
from ..partition import Partition
from ..progress import Progress
from ..status import Status, StatusResult
from ..validation import as_rows, check_k

__all__ = ["exact_neighbourhood_search", "NeighbourhoodResult",
           "check_options"]


@dataclass
class NeighbourhoodResult(StatusResult):
    """Outcome of :func:`exact_neighbourhood_search`: the partition, the
    sub-problems solved, improved and left unproven (stopped by
    ``move_time``), whether the search converged (module docstring) or was
    stopped by ``time_limit``, and (seconds, SSE) after each improvement.
    ``status``: "converged", "time_limit", "iteration_limit" (``max_solves``
    reached) or "not_certified" (a sub-problem stayed unproven)."""

    partition: Partition
    solved: int
    improved: int
    unproven: int
    converged: bool
    time_limited: bool
    seconds: float
    history: list = field(default_factory=list)
    status: Status | None = None

    def __post_init__(self):
        if self.status is None:
            self.status = Status.CONVERGED if self.converged else \
                Status.TIME_LIMIT if self.time_limited else Status.NOT_CERTIFIED
        self.status = Status(self.status)

    def summary(self) -> dict:
        return {"neighbourhoods_solved": self.solved, "neighbourhoods_improved": self.improved,
                "neighbourhoods_unproven": self.unproven, "converged": self.converged,
                "time_limited": self.time_limited, "neighbourhoods_status": self.status.value}


def _start(X, partition, k):
    """(X as rows, k checked, the partition validated and k-feasible)."""
    X = as_rows(X)
    k = check_k(k, X.shape[0])
    labels = partition.labels if isinstance(partition, Partition) else np.asarray(partition)
    P = Partition(labels, X)
    if not P.is_feasible(k):
        raise DataError(f"the partition to improve is not {k}-feasible "
                        f"(smallest group {int(P.sizes.min())})")
    return X, k, P


def check_options(groups=8, move_time=None, time_limit=None, max_solves=None, threads=None,
                  guide="distance"):
    """Refuse bad option values (before any work)."""
    if guide not in ("distance", "lp"):
        raise ParameterError(f"guide must be 'distance' or 'lp', got {guide!r}")
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 2:
        raise ParameterError(f"groups must be an integer ≥ 2, got {groups!r}")
    for name, value in (("move_time", move_time), ("time_limit", time_limit)):
        if value is not None and not (isinstance(value, (int, float)) and value > 0):
            raise ParameterError(f"{name} must be a positive number of seconds, got {value!r}")
    if max_solves is not None and (isinstance(max_solves, bool)
                                   or not isinstance(max_solves, (int, np.integer))
                                   or max_solves < 1):
        raise ParameterError(f"max_solves must be a positive integer, got {max_solves!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise ParameterError(f"threads must be a positive integer, got {threads!r}")


def _check_affinity(W, n: int):
    """``W`` (an array or scipy sparse matrix of shape (n, n) with finite,
    non-negative entries) as a CSR matrix; ParameterError otherwise."""
    from scipy import sparse

    W = sparse.csr_matrix(W, dtype=float)
    if W.shape != (n, n) or not np.all(np.isfinite(W.data)) or (W.data < 0).any():
        raise ParameterError(f"affinity must be a ({n}, {n}) matrix of finite, non-negative "
                             f"weights, got shape {W.shape}")
    return W


def _centroids(X: np.ndarray, lab: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Centroids of the groups ``ids`` (labels ``lab`` index ``ids`` densely)."""
    dense = np.searchsorted(ids, lab)
    sums = np.zeros((ids.size, X.shape[1]))
    np.add.at(sums, dense, X)
    return sums / np.bincount(dense, minlength=ids.size)[:, None]


def _affine_groups(W, lab: np.ndarray, ids: np.ndarray, C: np.ndarray, g: int,
                   groups: int) -> np.ndarray:
    """The seed ``g`` and, one at a time, the group of ``ids`` with the largest
    total weight to those chosen (group weights ``Sᵀ W S`` from the CSR
    record-pair weights ``W``), the nearest centroid to the seed's once none has any."""
    from scipy import sparse

    from ..refine import nearest_groups

    dense = np.searchsorted(ids, lab)
    S = sparse.csr_matrix((np.ones(lab.size), (np.arange(lab.size), dense)),
                          shape=(lab.size, ids.size))
    G = (S.T @ W @ S).toarray()
    gi = int(np.searchsorted(ids, g))
    order = None                                   # groups by centroid distance, when needed
    chosen, score = [gi], G[gi].copy()
    free = np.ones(ids.size, dtype=bool)
    free[gi] = False
    while len(chosen) < min(groups, ids.size):
        cand = np.flatnonzero(free & (score > 0))
        if cand.size:
            j = int(cand[np.argmax(score[cand])])
        else:
            if order is None:
                order = np.searchsorted(ids, nearest_groups(C, ids, C[gi], ids.size))
            j = int(order[free[order]][0])
        chosen.append(j)
        free[j] = False
        score += G[j]
    return np.sort(ids[chosen])


def _linked(W, lab: np.ndarray) -> set:
    """Groups holding a record with weight to a record of another group (CSR ``W``)."""
    rows, cols = W.nonzero()
    cross = lab[rows] != lab[cols]
    return set(lab[rows[cross]].tolist())


def exact_neighbourhood_search(X: np.ndarray, partition, k: int, *, groups: int = 8,
                               move_time: float | None = 30.0,
                               time_limit: float | None = None, max_solves: int | None = None,
                               seed=None, threads: int | None = 1, affinity=None,
                               verbose: bool = False) -> NeighbourhoodResult:
    """Re-optimize every group with its ``groups − 1`` nearest groups exactly
    (module docstring) until no sub-problem improves.

    ``move_time``: seconds per sub-problem (``None``: no limit); a
    sub-problem stopped by it still offers its best partition, but counts as
    unproven.  ``time_limit``: seconds for the whole search (the best
    partition so far is returned, ``time_limited`` set).  ``seed``: order of
    the seeds.  ``threads``: pricing threads of each sub-problem's ``bp``.
    ``verbose``: progress lines on stderr (:mod:`mipagg.progress`).

    ``affinity``: (n, n) non-negative record-pair weights (an array or a
    scipy sparse matrix), e.g. how often the master LP puts two records in
    one cluster (:func:`mipagg.exact.guide.lp_affinity`).  With it, seeds are
    drawn from the groups with weight to another group while there are any
    (then from the rest, so ``converged`` keeps its meaning), and a sub-problem is
    the seed and, one at a time, the group with the largest weight to those
    chosen (the nearest centroid once none has any): POPMUSIC's related parts
    chosen by the weights instead of by distance alone.

    Each sub-problem is a ``bp`` run on about ``groups``·k records: on Census
    and Tarragona 14 ms to 0.55 s on average at k = 3 and 5, 7–20 s for the
    80–90 records of k = 10 (docs/bench/neighbourhood.md).
    """
    from ..methods import get_method
    from ..refine import nearest_groups, split_large_groups

    # bp by its registry name: bp runs this search itself after its dive
    # (BranchAndPrice.neighbourhood_phase), and the package has no import cycle
    branch_and_price = get_method("bp").load()

    check_options(groups, move_time, time_limit, max_solves, threads)
    X, k, P = _start(X, partition, k)
    if affinity is not None:
        affinity = _check_affinity(affinity, X.shape[0])
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    rng = np.random.default_rng(seed)
    progress = Progress("neighbourhoods", enabled=verbose)
    lab = np.array(split_large_groups(X, P, k).labels, dtype=np.int64)
    next_id = int(lab.max()) + 1
    todo = list(range(next_id))                   # U, the seeds still to try
    linked = set() if affinity is None else _linked(affinity, lab)   # tried first
    doubt: set[int] = set()                        # seeds whose sub-problem was unproven
    eps = 1e-10 * (1.0 + float(((X - X.mean(axis=0)) ** 2).sum()))   # SSE tolerance
    start_sse = P.sse()
    solved = improved = unproven = 0
    timed_out = False
    history = []
    while todo and (max_solves is None or solved < max_solves):
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0.0:
            timed_out = True
            break
        first = [i for i, t in enumerate(todo) if t in linked] or range(len(todo))
        g = todo.pop(first[int(rng.integers(len(first)))])
        ids = np.unique(lab)
        C = _centroids(X, lab, ids)
        near = np.sort(nearest_groups(C, ids, C[np.searchsorted(ids, g)], groups)) \
            if affinity is None else _affine_groups(affinity, lab, ids, C, g, groups)
        rows = np.flatnonzero(np.isin(lab, near))
        old = Partition(np.searchsorted(near, lab[rows]), X[rows])
        limits = [t for t in (move_time, left) if t is not None]
        sub = branch_and_price(X[rows], k, initial=old, threads=threads,
                               time_limit=min(limits) if limits else None)
        solved += 1
        proven = sub.status == "optimal"
        unproven += not proven
        if sub.sse < old.sse() - eps:
            improved += 1
            lab[rows] = next_id + sub.partition.labels
            fresh = list(range(next_id, next_id + sub.partition.n_groups))
            next_id += len(fresh)
            gone = set(int(i) for i in near)
            todo = [i for i in todo if i not in gone] + fresh
            doubt -= gone
            if affinity is not None:
                linked = _linked(affinity, lab)
            if not proven:
                doubt.update(fresh)
            history.append((time.perf_counter() - t0, float(Partition(lab, X).sse())))
        elif not proven:
            doubt.add(g)
        progress.update(solved=solved, improved=improved, to_try=len(todo),
                        sse=history[-1][1] if history else start_sse)
    out = split_large_groups(X, Partition(lab, X), k)
    converged = not todo and not doubt and not timed_out
    status = Status.CONVERGED if converged else Status.TIME_LIMIT if timed_out else \
        Status.ITERATION_LIMIT if todo else Status.NOT_CERTIFIED
    progress.done(solved=solved, improved=improved, sse=out.sse(), converged=converged)
    return NeighbourhoodResult(out, solved, improved, unproven, converged, timed_out,
                               time.perf_counter() - t0, history, status)
