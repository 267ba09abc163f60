"""Closed tours by name: :func:`tour` dispatches to the construction,
improvement, LKH and exact methods of this package (:data:`TOUR_METHODS`)."""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import ParameterError
from ._common import as_points
from .construction import insertion_tour, nearest_neighbor_tour, repetitive_nn_tour
from .exact import exact_tour
from .lin_kernighan import lin_kernighan
from .lkh import lkh_tour
from .local_search import improve_tour

__all__ = ["TOUR_METHODS", "tour"]

TOUR_METHODS = ("nn", "rnn", "nearest", "farthest", "cheapest", "arbitrary",
                "2opt", "oropt", "lk", "lkh", "exact")


def tour(X, method="nn", *, seed=None, time_limit=None) -> np.ndarray:
    """Closed tour (a permutation of ``range(n)``) of the rows of ``X`` under
    Euclidean distances, by one of :data:`TOUR_METHODS`.

    ``seed`` draws the random start (nn, insertions), the arbitrary-insertion
    order and LKH's SEED; ``rnn`` and ``exact`` are deterministic.
    ``"2opt"`` = nearest neighbour + 2-opt; ``"oropt"`` = nearest neighbour +
    2-opt + Or-opt (10 nearest neighbours, don't-look bits); ``"lk"`` =
    nearest neighbour + :func:`lin_kernighan` (8 neighbours, depth 6).
    ``time_limit`` (seconds or a :class:`~mipagg.deadline.Deadline`) reaches
    every method that can run long: the local searches and LK stop with the
    tour as it stands, LKH gets it as its TIME_LIMIT, the nearest-neighbour
    construction and the insertion heuristics append the records not yet in
    the tour, ``rnn`` keeps the best of the starts tried; for ``"exact"``,
    when it stops the search before the proof, the best tour found is
    returned with a :class:`UserWarning`.
    """
    from ..deadline import Deadline

    if method not in TOUR_METHODS:
        raise ParameterError(f"unknown tour method {method!r}; choose one of {TOUR_METHODS}")
    A = as_points(X)
    deadline = Deadline.of(time_limit)
    if method == "nn":
        return nearest_neighbor_tour(A, seed=seed, time_limit=deadline)
    if method == "rnn":
        return repetitive_nn_tour(A, time_limit=deadline)
    if method in ("nearest", "farthest", "cheapest", "arbitrary"):
        return insertion_tour(A, method, seed=seed, time_limit=deadline)
    if method in ("2opt", "oropt"):
        moves = ("2opt",) if method == "2opt" else ("2opt", "oropt")
        return improve_tour(A, nearest_neighbor_tour(A, seed=seed, time_limit=deadline),
                            moves=moves, time_limit=deadline)
    if method == "lk":
        return lin_kernighan(A, nearest_neighbor_tour(A, seed=seed, time_limit=deadline),
                             time_limit=deadline)
    if method == "lkh":
        return lkh_tour(A, seed=seed, time_limit=deadline)
    left = None if not deadline.bounded else max(deadline.left(), 0.0)
    t, _, proven = exact_tour(A, time_limit=left, seed=seed)
    if not proven:
        deadline.hit = deadline.hit or left is not None
        warnings.warn(f"exact tour not proven optimal within time_limit={time_limit} s; "
                      "returning the best tour found", UserWarning, stacklevel=2)
    return t
