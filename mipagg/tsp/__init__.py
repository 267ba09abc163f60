"""Travelling-salesman tours and Hamiltonian paths over the records of X.

Tours order multivariate records for MHM in the TSP-based microaggregation
heuristics of seeds 002 ((HM)²-Micro) and 003 (thesis, chapters 3–5).

    >>> import numpy as np
    >>> from mipagg.tsp import tour, tour_length, tour_to_path
    >>> X = np.array([[0, 0], [0, 1], [1, 1], [1, 0], [5, 5]], float)
    >>> t = tour(X, "oropt", seed=0)
    >>> sorted(t.tolist())
    [0, 1, 2, 3, 4]

Methods (:data:`TOUR_METHODS`): ``nn``, ``rnn`` (repetitive NN), the insertion
family ``nearest``, ``farthest``, ``cheapest``, ``arbitrary``; ``2opt`` and
``oropt`` (nearest neighbour + local search); ``lk`` (nearest neighbour +
our Lin–Kernighan); ``lkh`` (LKH via elkai); ``exact`` (DFJ + lazy subtour
cuts with HiGHS, a proof of optimality).  Lin–Kernighan from a given tour or
path: :func:`lin_kernighan`, :func:`lin_kernighan_path`.
"""

from __future__ import annotations

from ._common import distance_matrix, path_length, tour_length
from .construction import (
    insertion_tour,
    nearest_neighbor_tour,
    repetitive_nn_tour,
    tours_from_every_start,
)
from .exact import ExactTourResult, exact_matrix_tour, exact_path, exact_tour
from .lin_kernighan import lin_kernighan, lin_kernighan_path
from .lkh import elkai_available, lkh_tour
from .local_search import improve_tour
from .paths import hamiltonian_path, tour_to_path
from .tours import TOUR_METHODS, tour

__all__ = [
    "TOUR_METHODS", "tour", "tour_length", "path_length", "tour_to_path",
    "hamiltonian_path", "improve_tour", "lkh_tour", "exact_tour", "exact_path",
    "exact_matrix_tour", "ExactTourResult", "nearest_neighbor_tour",
    "repetitive_nn_tour", "insertion_tour", "tours_from_every_start", "elkai_available",
    "distance_matrix", "lin_kernighan", "lin_kernighan_path",
]
