"""Pricing subproblems of the column-generation method of seed 001 (section 4.2
and 5.1): find clusters of fixed size η with negative reduced cost
w̄_C = Σ_{i<j∈C} D[i,j]/η − Σ_{v∈C} λ_v (formula (10)).

Three modes, all behind :func:`price` and the :class:`~.solvers.PricingSolver`
interface (the registry :data:`~.solvers.PRICING_SOLVERS`; a column-generation
round tries them in the order :data:`~.solvers.PRICING_ORDERS`):

- ``"heuristic"``: SolveHeuristicPricing (greedy, disjoint columns, not exact);
- ``"enumeration"``: implicit complete enumeration with bounds (exact);
- ``"ilp"``: model (14) with node-to-node inequalities, Pyomo + HiGHS (exact).

:func:`exact_mode` is the measured replacement of seed 001 Table 2 that says
which exact mode is faster for given (n, η) (docs/bench/pricing.md): here
always the enumeration.
"""

from __future__ import annotations

from ._common import PricingResult, half_smallest_sums, reduced_cost, squared_distances

__all__ = ["PricingResult", "half_smallest_sums", "reduced_cost", "price", "exact_mode", "squared_distances",
           "MODES"]

MODES = ("heuristic", "enumeration", "ilp")

# Range measured by benchmarks/bench_pricing.py (docs/bench/pricing.md): Census and
# Tarragona subsets, n = 30..200, eta = 3..9, duals from column-generation runs.
# Enumeration was faster than the ILP in every measured case (by 2-5 orders of
# magnitude), so, unlike seed 001 Table 2, no (n, eta) selects the ILP.
MEASURED_N, MEASURED_ETA = 200, 9


def exact_mode(n: int, eta: int) -> str:
    """Exact pricing routine for n records and cluster size η: the role of
    Table 2 in seed 001 (section 5.1), re-measured for this implementation.

    Always "enumeration": the branch and bound of :mod:`.enumeration` beat
    model (14) under HiGHS at every measured (n ≤ 200, η ≤ 9) point, and the
    ILP grows as n² variables, so nothing suggests a crossover beyond that
    range either (untested there).  See docs/bench/pricing.md.

    >>> exact_mode(200, 9)
    'enumeration'
    """
    if n < 1 or eta < 1:
        from ...errors import ParameterError
        raise ParameterError(f"n and eta must be positive, got n={n}, eta={eta}")
    return "enumeration"


def price(D, duals, eta, mode, *, max_columns=10, time_limit=None, tol=1e-9,
          forbidden=None, **options) -> PricingResult:
    """Solve the pricing subproblem of size ``eta`` (seed 001, section 4.2).

    ``D`` is the matrix of squared Euclidean distances of the standardized
    records, ``duals`` the master's duals λ.  ``mode`` is "heuristic"
    (SolveHeuristicPricing, several disjoint columns, ``exact=False``),
    "enumeration" (exact, branch and bound) or "ilp" (exact, model (14) solved
    by HiGHS through Pyomo).  Columns with reduced cost < −tol are returned,
    best first, at most ``max_columns``; ``forbidden`` is an iterable of
    clusters (index sequences) never to return, e.g. the master's columns,
    and the exact minimum is taken over the other clusters.  On hitting
    ``time_limit`` (seconds) the status is "time_limit", ``exact`` is False
    and the columns found so far are returned.  Extra ``options`` go to the
    mode's own function (e.g. ``triangle_cuts=True`` for "ilp").

    >>> import numpy as np
    >>> D = squared_distances(np.array([[0.], [1.], [5.], [6.]]))
    >>> r = price(D, np.full(4, 1.0), 2, "enumeration")
    >>> [c.tolist() for c in r.columns], r.min_reduced_cost
    ([[0, 1], [2, 3]], -1.5)
    """
    from .solvers import solver  # the registry of :mod:`.solvers` (imports numba kernels)

    return solver(mode).solve(D, duals, eta, max_columns=max_columns, time_limit=time_limit,
                              tol=tol, forbidden=forbidden, **options)
