"""From closed tours to Hamiltonian paths (seed 002 §4, Algorithm 1 lines 4–6).

Seed 002 adds a dummy node at distance 0 from every record, computes a tour of
the n + 1 nodes and removes the dummy node to get a Hamiltonian path.  For a
given tour of the records, the cheapest place for the dummy node is the
tour's longest edge (inserting it into edge (i, j) changes the length by
0 + 0 − d(i, j)); :func:`tour_to_path` therefore cuts the longest edge — the
dummy-node cut of that tour.  For optimal tours of the augmented problem
(``hamiltonian_path(..., "exact")``, and ``"lkh"``, which runs LKH on the
augmented matrix) the path is the optimal/LKH Hamiltonian path itself, which
can be shorter than the longest-edge cut of the optimal *tour*.
"""

from __future__ import annotations

import numpy as np

from ._common import as_points, check_permutation

__all__ = ["tour_to_path", "hamiltonian_path"]


def tour_to_path(X, tour) -> np.ndarray:
    """Hamiltonian path from a closed tour by removing its longest edge —
    the dummy-node cut of seed 002 §4 for that tour.  O(n p).

    The path starts at the record after the longest edge and follows the
    tour; ties between equally long edges go to the first in tour order.
    ``path_length(X, path) == tour_length(X, tour) − longest edge``.

    >>> tour_to_path([[0.0], [1.0], [2.0], [10.0]], [1, 2, 3, 0]).tolist()
    [0, 1, 2, 3]
    """
    A = as_points(X)
    t = check_permutation(tour, A.shape[0])
    if t.shape[0] <= 2:
        return t.copy()
    diff = A[t] - A[np.roll(t, -1)]
    edge = np.einsum("ij,ij->i", diff, diff)
    i = int(np.argmax(edge))            # edge t[i] -> t[i+1] is removed
    return np.roll(t, -(i + 1))


def hamiltonian_path(X, method="nn", *, seed=None, time_limit=None) -> np.ndarray:
    """Hamiltonian path of the rows of ``X`` for any :data:`TOUR_METHODS` method.

    ``"exact"``: optimal path (dummy node, :func:`exact_path`; raises
    :class:`~mipagg.errors.SolverError` if the time limit prevents a proof).
    ``"lkh"``: LKH on the dummy-augmented matrix, cut at the dummy node.
    ``"lk"``: our Lin–Kernighan with the dummy node
    (:func:`~mipagg.tsp.lin_kernighan_path`) from the nearest-neighbour path.
    Others: :func:`tour` then :func:`tour_to_path` (longest-edge cut).
    ``time_limit`` (seconds or a :class:`~mipagg.deadline.Deadline`) as in
    :func:`tour`.

    >>> p = hamiltonian_path([[0.0], [3.0], [1.0], [2.0]], "exact").tolist()
    >>> p in ([0, 2, 3, 1], [1, 3, 2, 0])
    True
    """
    from ..deadline import Deadline
    from ._common import distance_matrix
    from .exact import cut_at_dummy, dummy_matrix, exact_path
    from .tours import tour

    A = as_points(X)
    n = A.shape[0]
    deadline = Deadline.of(time_limit)
    if method == "exact":
        left = None if not deadline.bounded else max(deadline.left(), 0.0)
        path, _, proven = exact_path(A, time_limit=left, seed=seed)
        if not proven:
            from ..errors import SolverError

            raise SolverError(f"no proof of optimality within time_limit={time_limit} s; "
                              "use method='lkh' or a longer limit")
        return path
    if method == "lk":
        from .construction import nearest_neighbor_tour
        from .lin_kernighan import lin_kernighan_path

        start = nearest_neighbor_tour(A, seed=seed, time_limit=deadline)
        return lin_kernighan_path(A, tour_to_path(A, start), time_limit=deadline)
    if method == "lkh" and n > 3:
        from .lkh import lkh_matrix_tour

        D = dummy_matrix(distance_matrix(A))
        return cut_at_dummy(lkh_matrix_tour(D, seed=seed, time_limit=deadline), n)
    return tour_to_path(A, tour(A, method, seed=seed, time_limit=deadline))
