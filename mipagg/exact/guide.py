"""Where the master LP disagrees with a partition: record-pair weights for
guiding the exact neighbourhood search (issue 22).

The root master LP of ``bp`` (seed 001's set-partitioning relaxation, after
the subset-row cut rounds), started from a partition P, is a convex
combination of clusters.  Two records that the LP puts in one cluster with
total weight w_ij but P keeps apart mark a place where a better partition
may differ from P; :func:`lp_affinity` returns those weights, and
:func:`~mipagg.exact.neighbourhood.exact_neighbourhood_search` with
``affinity=`` builds its sub-problems (POPMUSIC's related parts, Taillard &
Voss 2002) from the groups they link — relaxation-induced neighbourhoods in
the spirit of RINS (Danna, Rothberg & Le Pape 2005), with exact sub-problems.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..partition import Partition
from .neighbourhood import check_options, exact_neighbourhood_search

__all__ = ["lp_affinity", "LPAffinity", "pair_weights_of", "exact_neighbourhoods"]


@dataclass
class LPAffinity:
    """``weights``: the (n, n) symmetric record-pair weights w_ij = Σ x_C over
    the LP's clusters C holding both i and j (a scipy CSR matrix, zero
    diagonal); ``bound``: the certified root bound after the cut rounds (None
    when column generation did not converge); ``support``: clusters with
    x_C > 0; ``fractional``: of them, those with x_C < 1; ``seconds``."""

    weights: sparse.csr_matrix
    bound: float | None
    support: int
    fractional: int
    seconds: float

    def summary(self) -> dict:
        return {"lp_bound": self.bound, "lp_support": self.support,
                "lp_fractional": self.fractional, "lp_seconds": self.seconds}


def pair_weights_of(columns, x: np.ndarray, n: int, tol: float = 1e-9) -> sparse.csr_matrix:
    """Σ_C x_C over the clusters ``columns`` holding both i and j, for x_C > tol.

    >>> pair_weights_of([np.array([0, 1]), np.array([1, 2])], np.array([0.5, 0.5]), 3).toarray()
    array([[0. , 0.5, 0. ],
           [0.5, 0. , 0.5],
           [0. , 0.5, 0. ]])
    """
    rows, cols, vals = [], [], []
    for c, xc in zip(columns, x):
        if xc <= tol:
            continue
        c = np.asarray(c, dtype=np.int64)
        a, b = np.triu_indices(c.size, 1)
        rows += [c[a], c[b]]
        cols += [c[b], c[a]]
        vals.append(np.full(2 * a.size, float(xc)))
    if not vals:
        return sparse.csr_matrix((n, n))
    return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows),
                                                      np.concatenate(cols))), shape=(n, n))


def lp_affinity(X, k: int, partition, *, time_limit: float | None = None,
                max_cut_rounds: int = 10, tail_off: float = 0.02, threads: int | None = 1,
                verbose: bool = False) -> LPAffinity:
    """The root master LP of ``bp`` from ``partition`` (column generation,
    then ``max_cut_rounds`` subset-row cut rounds with ``tail_off``; no dive,
    gap closing or tree) and its record-pair weights (:class:`LPAffinity`).
    ``time_limit`` bounds the root; a root stopped by it gives the weights of
    its last restricted master and no bound."""
    from .bp import BranchAndPrice
    from .settings import BPSettings

    t0 = time.perf_counter()
    st = BPSettings(time_limit=time_limit, threads=threads, max_cut_rounds=max_cut_rounds,
                    tail_off=tail_off, close_gap=False, dive_time=0, mip_time=0,
                    neighbourhood_time=0)
    bp = BranchAndPrice(X, k, st, initial=partition, verbose=verbose)
    bp.root_column_generation()
    bp.cut_rounds()
    sol = bp.root.solution
    n = np.asarray(X).shape[0]
    if sol is None:
        return LPAffinity(sparse.csr_matrix((n, n)), None, 0, 0, time.perf_counter() - t0)
    x = np.asarray(sol.x)
    cols = bp.master.columns[:x.size]
    W = pair_weights_of(cols, x, n)
    converged = bp.root.stop.reason in ("converged", "cutoff")
    return LPAffinity(W, float(bp.root_cut_bound) if converged else None,
                      int((x > 1e-9).sum()), int(((x > 1e-9) & (x < 1 - 1e-9)).sum()),
                      time.perf_counter() - t0)


def exact_neighbourhoods(X: np.ndarray, partition, k: int, *, groups: int = 8,
                         move_time: float | None = 30.0, time_limit: float | None = 300.0,
                         guide: str = "distance", seed=None, verbose: bool = False) -> Partition:
    """``how="exact"`` of :func:`mipagg.improve.improve_partition`:
    :func:`~mipagg.exact.neighbourhood.exact_neighbourhood_search` (POPMUSIC,
    Taillard & Voss 2002, with ``bp`` sub-problems) for at most ``time_limit``
    seconds (default 5 minutes); returns its partition.  ``guide="lp"``:
    sub-problems from the weights of :func:`lp_affinity`, which gets at most
    half of ``time_limit`` (the search gets the rest).  Here rather than in
    :mod:`~mipagg.exact.neighbourhood`, which ``bp`` imports."""
    check_options(groups, move_time, time_limit, guide=guide)
    affinity = None
    if guide == "lp":
        t0 = time.perf_counter()
        affinity = lp_affinity(X, k, partition,
                               time_limit=None if time_limit is None else time_limit / 2,
                               verbose=verbose).weights
        if time_limit is not None:
            time_limit = max(1e-3, time_limit - (time.perf_counter() - t0))
    return exact_neighbourhood_search(X, partition, k, groups=groups, move_time=move_time,
                                      time_limit=time_limit, seed=seed, affinity=affinity,
                                      verbose=verbose).partition
