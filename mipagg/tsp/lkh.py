"""Lin–Kernighan-grade tours through LKH (Helsgaun 2000) via ``elkai``.

Seed 002 §5.2 runs Heaton & Mukherjee's MDAV-LK-MHM with an LK code at
``RUN = 1`` and uses Concorde for its best tours; seed 003 ch. 4 does the
same.  We call Keld Helsgaun's LKH-2 as bundled by the ``elkai`` package
(optional dependency: ``pip install mipagg[lkh]``).

Distances.  LKH works on integer weights.  The Euclidean distances are
scaled so that the largest one becomes ``2**20`` (≈ 10⁶) and rounded, i.e. a
relative precision of ~1e-6 of the diameter per edge; LKH multiplies weights
by its PRECISION (100) internally, which stays below 2³¹.  The returned
tour is re-measured in exact floating point by the caller.

Seed.  elkai forwards LKH parameters verbatim, so ``SEED`` is honoured:
the same ``seed`` gives the same tour (checked in the tests).  ``seed=None``
draws one from ``numpy.random.default_rng()``.

Cost.  LKH's own default is MAX_TRIALS = n trials per run; we default to
``max_trials=100`` (``None`` restores LKH's n).  On Census (n = 1 080) both
give the same tour length (1177.53; dummy-node path 1169.45) while the CPU
time drops from 6.6 s to 1.8 s (tour) and from 13 s to 2.3 s (path), see
docs/bench/tours.md.  About 1.5 s of that is LKH's subgradient ascent.
"""

from __future__ import annotations

import numpy as np

from ..errors import ParameterError, SolverError
from ._common import as_points, distance_matrix

__all__ = ["lkh_tour", "lkh_matrix_tour", "elkai_available"]

_SCALE_TOP = 2 ** 20


def elkai_available() -> bool:
    """True when the optional ``elkai`` package (LKH) can be imported."""
    try:
        from elkai import _elkai  # noqa: F401
    except ImportError:
        return False
    return True


def _solver():
    try:
        from elkai import _elkai
    except ImportError:
        raise ParameterError(
            "LKH tours need the optional package 'elkai' (pip install 'mipagg[lkh]' "
            "or pip install elkai); use method='oropt' for a tour without it"
        ) from None
    return _elkai


def lkh_matrix_tour(D: np.ndarray, *, seed=None, runs: int = 1, max_trials=100,
                    time_limit=None) -> np.ndarray:
    """LKH tour for a symmetric non-negative distance matrix ``D`` (any n ≥ 1).

    ``time_limit`` (seconds or a :class:`~mipagg.deadline.Deadline`) becomes
    LKH's TIME_LIMIT (the remaining time, at least 0.1 s): LKH then stops
    its trials and returns its best tour.  elkai holds the GIL for the
    whole call, so from :data:`CHILD_ABOVE` points on LKH runs in a child
    process (same parameters, same tour): Ctrl-C and SIGTERM stop it at
    once, and a child still running :data:`GRACE` seconds after the limit
    (LKH checks TIME_LIMIT only between trials) is killed and the
    nearest-neighbour tour is returned (the deadline's ``hit`` is set)."""
    from ..deadline import Deadline

    deadline = Deadline.of(time_limit)
    solver = _solver()
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise ParameterError(f"runs must be a positive integer, got {runs!r}")
    n = D.shape[0]
    if n <= 3:
        return np.arange(n, dtype=np.int64)
    if seed is None or isinstance(seed, np.random.Generator):
        seed = int(np.random.default_rng(seed).integers(1, 2 ** 31 - 1))
    seed = int(seed)
    if not 0 <= seed < 2 ** 31:
        raise ParameterError(f"seed for LKH must be an integer in [0, 2**31), got {seed}")
    top = float(D.max())
    scale = _SCALE_TOP / top if top > 0 else 1.0
    params = f"RUNS = {int(runs)}\nSEED = {seed}\nPROBLEM_FILE = :stdin:\nTRACE_LEVEL = 0\n"
    if max_trials is not None:
        if int(max_trials) < 1:
            raise ParameterError(f"max_trials must be a positive integer, got {max_trials}")
        params += f"MAX_TRIALS = {int(max_trials)}\n"
    # row by row (W.tolist() at once would hold n² Python ints, ≈ 40 bytes each)
    head = (f"TYPE : TSP\nDIMENSION : {n}\nEDGE_WEIGHT_TYPE : EXPLICIT\n"
            f"EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION")
    problem = "\n".join([head, *(" ".join(map(str, np.rint(D[i] * scale).astype(np.int64)
                                             .tolist())) for i in range(n)), "EOF\n"])
    if deadline.bounded:
        params += f"TIME_LIMIT = {max(deadline.left(), 0.1):.3f}\n"
    if n >= CHILD_ABOVE:
        tour = _solve_in_child(params, problem, deadline)
        if tour is None:   # killed at the deadline
            from .construction import nn_kernel

            return nn_kernel(D, 0)
        tour = np.asarray(tour, dtype=np.int64) - 1
    else:
        tour = np.asarray(solver.solve_problem(params, problem), dtype=np.int64) - 1
    if deadline.bounded:
        deadline.expired()
    if tour.shape[0] != n or np.unique(tour).size != n:
        raise SolverError(f"LKH returned an invalid tour of length {tour.shape[0]} for n = {n}")
    return tour


CHILD_ABOVE = 1500     # points; LKH takes seconds from here on (Census, 1 080: 2.3 s)
GRACE = 5.0            # seconds a child may overrun its TIME_LIMIT before it is killed
_CHILD = ("import sys, json\nfrom elkai import _elkai\n"
          "params = json.loads(sys.stdin.readline())\n"
          "tour = _elkai.solve_problem(params, sys.stdin.read())\n"
          "sys.stdout.write(' '.join(map(str, tour)))\n")


def _solve_in_child(params: str, problem: str, deadline) -> list | None:
    """LKH in a child interpreter (only elkai imported); None when it was
    killed at ``deadline`` + :data:`GRACE`.  An interrupt in the parent
    (Ctrl-C, SIGTERM) kills the child as :func:`subprocess.run` unwinds."""
    import json
    import subprocess
    import sys

    timeout = deadline.left() + GRACE if deadline.bounded else None
    try:
        out = subprocess.run([sys.executable, "-c", _CHILD],
                             input=json.dumps(params) + "\n" + problem, capture_output=True,
                             text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        deadline.hit = True
        return None
    if out.returncode != 0:
        raise SolverError(f"LKH child process failed (exit {out.returncode}): "
                          f"{out.stderr.strip()[-300:]}")
    return [int(v) for v in out.stdout.split()]


def lkh_tour(X, *, seed=None, runs: int = 1, max_trials=100, time_limit=None) -> np.ndarray:
    """LKH (Lin–Kernighan–Helsgaun) tour of the rows of ``X`` — the
    "LK"/Concorde-grade tour of seed 002 §5.2 and seed 003 ch. 4.

    ``runs`` is LKH's RUNS (independent restarts, best kept); ``seed`` its
    SEED (reproducible); ``max_trials`` its MAX_TRIALS per run (``None``:
    LKH's default n).  Raises :class:`ParameterError` when elkai is not
    installed.  Near-optimal in practice, no proof (see :func:`exact_tour`).

    >>> lkh_tour([[0, 0], [1, 1], [1, 0], [0, 1], [0.5, 2]], seed=1).shape
    (5,)
    """
    A = as_points(X)
    return lkh_matrix_tour(distance_matrix(A), seed=seed, runs=runs, max_trials=max_trials,
                           time_limit=time_limit)
