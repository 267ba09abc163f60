"""The pricing solvers behind one interface, :class:`PricingSolver`, and the
order in which a pricing round tries them, as data (:data:`PRICING_ORDERS`).

Seed 001 section 5.1 prices each size η heuristically first and calls an
exact routine only when the heuristic finds nothing; the exact routine is
chosen per (n, η) by Table 2 (:func:`~.rounds.table2_exact_mode`) or by the
rule measured for this package (:func:`~mipagg.exact.pricing.exact_mode`).
A solver is one small class with ``name``, ``exact`` and two methods:
``solve`` (the subproblem on a distance matrix, the public
:func:`~mipagg.exact.pricing.price`) and ``round_options`` (what it takes
inside a column-generation round: the node's constraints, the context's
search space and threads).  A new solver is one class and one entry of
:data:`PRICING_SOLVERS`.

>>> [s for s in PRICING_ORDERS["auto"]]
['heuristic', 'exact']
>>> PRICING_SOLVERS["enumeration"].exact, PRICING_SOLVERS["heuristic"].exact
(True, False)
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ...errors import ParameterError
from ._common import PricingResult
from .enumeration import enumeration_pricing
from .heuristic import heuristic_pricing

__all__ = ["PricingSolver", "PRICING_SOLVERS", "PRICING_ORDERS", "EXACT", "HeuristicSolver",
           "EnumerationSolver", "IlpSolver", "solver"]

EXACT = "exact"     # a stage of an order: the exact routine chosen by the exact rule


@runtime_checkable
class PricingSolver(Protocol):
    name: str
    exact: bool       # proves the minimum reduced cost of its size when it completes

    def solve(self, D, duals, eta, *, max_columns=10, time_limit=None, tol=1e-9,
              **options) -> PricingResult: ...

    def round_options(self, ctx, eta, constraints) -> dict: ...


class HeuristicSolver:
    """SolveHeuristicPricing (seed 001 §5.1, :mod:`.heuristic`): greedy, not exact."""

    name, exact = "heuristic", False

    def solve(self, D, duals, eta, **options) -> PricingResult:
        return heuristic_pricing(D, duals, eta, **options)

    def round_options(self, ctx, eta, constraints) -> dict:
        return {"constraints": constraints, "checked": True}


class EnumerationSolver:
    """Implicit complete enumeration by branch and bound (:mod:`.enumeration`)."""

    name, exact = "enumeration", True

    def solve(self, D, duals, eta, **options) -> PricingResult:
        return enumeration_pricing(D, duals, eta, **options)

    def round_options(self, ctx, eta, constraints) -> dict:
        # floor 0: the minimum is proven only when negative, all the Lagrangian bound needs
        return {"constraints": constraints, "floor": 0.0, "threads": ctx.threads,
                "space": ctx.space(eta), "checked": True}


class IlpSolver:
    """Model (14) of seed 001 with Pyomo + HiGHS (:mod:`.ilp`); no branching
    constraints or cuts."""

    name, exact = "ilp", True

    def solve(self, D, duals, eta, **options) -> PricingResult:
        from .ilp import ilp_pricing  # Pyomo is imported only when the ILP is used

        return ilp_pricing(D, duals, eta, **options)

    def round_options(self, ctx, eta, constraints) -> dict:
        if not constraints.trivial:
            raise ParameterError("ILP pricing does not take branching constraints "
                                 "or cuts; use pricing='enumeration' or 'auto'")
        return {}


PRICING_SOLVERS: dict[str, PricingSolver] = {
    "heuristic": HeuristicSolver(),
    "enumeration": EnumerationSolver(),
    "ilp": IlpSolver(),
}

# pricing mode -> the stages tried per size, in order, until one yields columns
PRICING_ORDERS = {
    "auto": ("heuristic", EXACT),
    "exact": (EXACT,),          # the exact routine alone (bp's node_pricing="exact")
    "heuristic": ("heuristic",),
    "enumeration": ("enumeration",),
    "ilp": ("ilp",),
}


def solver(name: str) -> PricingSolver:
    """The solver registered as ``name``."""
    try:
        return PRICING_SOLVERS[name]
    except KeyError:
        raise ParameterError(f"unknown pricing mode {name!r}; expected one of "
                             f"{tuple(PRICING_SOLVERS)}") from None
