"""Shared pieces of the pricing subproblems: result object, reduced cost,
input validation and the bounds that every exact mode uses for pruning.

Pricing subproblem with fixed cluster size η (seed 001, section 4.2): given
the squared Euclidean distances ``D`` of the standardized records and the
duals λ of the master problem, find a cluster C, |C| = η, minimising the
reduced cost (formula (10))

    w̄_C = Σ_{i<j ∈ C} D[i, j] / η − Σ_{v ∈ C} λ_v .
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ...errors import DataError, ParameterError

__all__ = ["PricingResult", "reduced_cost", "squared_distances"]


@dataclass
class PricingResult:
    """Outcome of one pricing subproblem at fixed cluster size η.

    ``columns`` are sorted int arrays of η record indices with reduced cost
    < −tol, best first; ``min_reduced_cost`` is set only when the minimum over
    all (non-forbidden) clusters of size η is proven (``exact``).
    """

    columns: list[np.ndarray]
    reduced_costs: list[float]
    exact: bool
    min_reduced_cost: float | None
    status: str  # "optimal" | "heuristic" | "time_limit" | "error"
    seconds: float
    info: dict = field(default_factory=dict)

    def summary(self) -> dict:
        """JSON-able digest (no arrays)."""
        return {"n_columns": len(self.columns), "exact": self.exact,
                "min_reduced_cost": self.min_reduced_cost, "status": self.status,
                "seconds": self.seconds, **self.info}


def squared_distances(X: np.ndarray) -> np.ndarray:
    """Matrix of squared Euclidean distances between the rows of ``X``."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[:, None]
    sq = (X * X).sum(axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    np.maximum(D, 0.0, out=D)
    np.fill_diagonal(D, 0.0)
    return D


def reduced_cost(D, duals, cluster, eta) -> float:
    """Reduced cost of ``cluster`` (seed 001, formula (10)):
    Σ_{i<j∈C} D[i,j]/η − Σ_{v∈C} λ_v, with ``D`` the squared distances.

    >>> D = np.array([[0., 4.], [4., 0.]])
    >>> reduced_cost(D, np.array([1., 1.]), [0, 1], 2)
    0.0
    """
    c = np.asarray(cluster, dtype=np.int64)
    D = np.asarray(D, dtype=float)
    edges = D[np.ix_(c, c)].sum() / 2.0
    return float(edges / eta - np.asarray(duals, dtype=float)[c].sum())


def check_pricing_input(D, duals, eta, *, max_columns=10, time_limit=None, tol=1e-9):
    """Validate and convert the common arguments; returns (D, duals, eta)."""
    D = np.ascontiguousarray(D, dtype=float)
    duals = np.ascontiguousarray(duals, dtype=float).ravel()
    if D.ndim != 2 or D.shape[0] != D.shape[1]:
        raise DataError(f"D must be a square matrix, got shape {D.shape}")
    n = D.shape[0]
    if duals.shape != (n,):
        raise DataError(f"{duals.size} duals for {n} records")
    if not (np.isfinite(D).all() and np.isfinite(duals).all()):
        raise DataError("D and duals must be finite")
    if (D < 0).any():
        raise DataError("D must hold squared distances (non-negative)")
    scale = max(float(D.max(initial=0.0)), 1.0)
    # exact equality first: ~10x cheaper than allclose, which matters because
    # column generation prices the same D many times per iteration
    symmetric = np.array_equal(D, D.T) or np.allclose(D, D.T, rtol=0.0, atol=1e-12 * scale)
    if np.abs(np.diag(D)).max(initial=0.0) > 1e-12 * scale or not symmetric:
        raise DataError("D must be symmetric with a zero diagonal")
    if isinstance(eta, bool) or not isinstance(eta, (int, np.integer)) or eta < 2:
        raise ParameterError(f"eta must be an integer >= 2, got {eta!r}")
    if eta > n:
        raise ParameterError(f"eta = {eta} exceeds the number of records n = {n}")
    if isinstance(max_columns, bool) or not isinstance(max_columns, (int, np.integer)) \
            or max_columns < 1:
        raise ParameterError(f"max_columns must be a positive integer, got {max_columns!r}")
    if time_limit is not None and not time_limit > 0:
        raise ParameterError(f"time_limit must be positive seconds, got {time_limit!r}")
    if not tol >= 0:
        raise ParameterError(f"tol must be non-negative, got {tol!r}")
    return D, duals, int(eta)


def forbidden_set(forbidden, eta: int, n: int) -> set[tuple[int, ...]]:
    """Normalise ``forbidden`` (clusters that must not be returned, e.g. the
    columns already in the master) to a set of sorted tuples of size η."""
    out: set[tuple[int, ...]] = set()
    for c in forbidden or ():
        t = tuple(sorted(int(v) for v in c))
        if t and (t[0] < 0 or t[-1] >= n):
            raise DataError(f"forbidden cluster {t} has an index outside 0..{n - 1}")
        if len(t) == eta:
            out.add(t)
    return out


def start_pricing(D, duals, eta, forbidden, *, max_columns, time_limit, tol, checked=False):
    """Prologue shared by the pricing modes: validate the arguments
    (:func:`check_pricing_input`; ``checked=True`` trusts a caller that
    validated D once and only converts), start the clock and normalise
    ``forbidden`` (:func:`forbidden_set`).  Returns (D, duals, eta, clock, banned)."""
    if checked:
        D = np.ascontiguousarray(D, dtype=float)
        duals = np.ascontiguousarray(duals, dtype=float).ravel()
        eta = int(eta)
    else:
        D, duals, eta = check_pricing_input(D, duals, eta, max_columns=max_columns,
                                            time_limit=time_limit, tol=tol)
    clock = Clock(time_limit)
    return D, duals, eta, clock, forbidden_set(forbidden, eta, D.shape[0])


def half_smallest_sums(D: np.ndarray, eta: int) -> np.ndarray:
    """H[v, r] = (sum of the r smallest D[v, u], u ≠ v) / (2η), r = 0..η−1.

    A member v of a cluster of size η shares η−1 edges; half of their weight,
    Σ_u D[v,u]/(2η), is at least H[v, η−1].  Summing over the members gives
    the edge part of the reduced cost exactly, hence the node bound
    w̄_C ≥ Σ_{v∈C} (H[v, η−1] − λ_v) used by every exact mode.
    """
    n = D.shape[0]
    r = min(eta - 1, n - 1)
    off = D + np.diag(np.full(n, np.inf))
    part = np.partition(off, r - 1, axis=1)[:, :r] if r > 0 else np.zeros((n, 0))
    part.sort(axis=1)
    H = np.zeros((n, eta))
    H[:, 1:r + 1] = np.cumsum(part, axis=1) / (2.0 * eta)
    return H


class Clock:
    """Wall-clock budget: ``expired()`` once ``time_limit`` seconds have passed."""

    def __init__(self, time_limit=None):
        self.start = time.perf_counter()
        self.limit = time_limit

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        return None if self.limit is None else max(self.limit - self.elapsed(), 0.0)

    def expired(self) -> bool:
        return self.limit is not None and self.elapsed() >= self.limit


def sorted_result(found, *, exact, min_rc, status, clock, max_columns, info=None):
    """Build a :class:`PricingResult` from ``{sorted tuple: reduced cost}``,
    best first, at most ``max_columns`` columns."""
    items = sorted(found.items(), key=lambda kv: (kv[1], kv[0]))[:max_columns]
    return PricingResult(columns=[np.array(c, dtype=np.int64) for c, _ in items],
                         reduced_costs=[float(v) for _, v in items], exact=exact,
                         min_reduced_cost=None if min_rc is None else float(min_rc),
                         status=status, seconds=clock.elapsed(), info=info or {})
