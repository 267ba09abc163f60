"""Paper-style instance sets: subsets of a data set (seed 001 section 6).

Seed 001 (Aloise, Araújo et al., column generation) tests on subsets of 30,
40, 50, 100 and 200 records of Census and Tarragona, "extracted with four
different criteria: (i) consecutively, (ii) randomly, (iii) ordering
individuals according L2 norm, (iv) ordering individuals according L2 distance
from the overall centroid", 5 subsets per size and criterion.  The seed does
not say more, so this module fixes the details (and records them in the
provenance of every subset):

* ``consecutive``: ``size`` consecutive records of the file order, starting
  at a random offset.
* ``random``: ``size`` records drawn uniformly without replacement.
* ``norm``: records sorted by the L2 norm of their *raw* key values (stable
  sort); ``size`` consecutive records of that order at a random offset.  (The
  norm of the standardized values would equal the distance to the centroid.)
* ``centroid``: records sorted by the L2 distance of their *standardized*
  values to the overall centroid (the origin); ``size`` consecutive records of
  that order at a random offset.

Offsets and draws come from ``numpy.random.default_rng([seed, c, size,
index])`` with c the criterion's position in :data:`CRITERIA`, so one subset
can be rebuilt alone with :func:`subset`.  The rows of every subset are kept
in file order.  Each subset is re-standardized over
its own records (seed 001 computes SSE on the standardized subset).
"""

from __future__ import annotations

import numpy as np

from .errors import ParameterError
from .instance import Instance

__all__ = ["CRITERIA", "SIZES", "subset", "subset_rows", "paper_subsets"]

CRITERIA = ("consecutive", "random", "norm", "centroid")
SIZES = (30, 40, 50, 100, 200)


def _window(order: np.ndarray, size: int, rng) -> np.ndarray:
    start = int(rng.integers(0, order.size - size + 1))
    return np.sort(order[start:start + size])


def subset_rows(inst: Instance, size: int, criterion: str, index: int, seed: int = 0) -> np.ndarray:
    """Row indices (into ``inst``) of one subset; see the module docstring."""
    if criterion not in CRITERIA:
        raise ParameterError(f"unknown criterion {criterion!r}; choose from {CRITERIA}")
    size, index = int(size), int(index)
    if not 1 <= size <= inst.n:
        raise ParameterError(f"subset size must be in 1..{inst.n}, got {size}")
    if index < 0:
        raise ParameterError(f"subset index must be non-negative, got {index}")
    rng = np.random.default_rng([int(seed), CRITERIA.index(criterion), size, index])
    n = inst.n
    if criterion == "consecutive":
        return _window(np.arange(n), size, rng)
    if criterion == "random":
        return np.sort(rng.choice(n, size=size, replace=False))
    if criterion == "norm":
        key = np.linalg.norm(inst.raw, axis=1)
    else:
        key = np.linalg.norm(inst.X - inst.X.mean(axis=0), axis=1)
    return _window(np.argsort(key, kind="stable"), size, rng)


def subset(inst: Instance, size: int, criterion: str, index: int, seed: int = 0) -> Instance:
    """One subset as an :class:`Instance` named ``{name}-n{size}-{criterion}-{index}``.

    >>> import numpy as np
    >>> from mipagg.instance import from_array
    >>> inst = from_array(np.arange(200.0).reshape(100, 2), name="toy")
    >>> s = subset(inst, 30, "norm", 2)
    >>> s.name, s.n, s.provenance["criterion"]
    ('toy-n30-norm-2', 30, 'norm')
    """
    rows = subset_rows(inst, size, criterion, index, seed)
    out = inst.subset(rows, name=f"{inst.name}-n{int(size)}-{criterion}-{int(index)}",
                      criterion=criterion, size=int(size), index=int(index), seed=int(seed))
    out.provenance["rows"] = rows.tolist()  # `rows` is also subset()'s own argument name
    return out


def paper_subsets(inst: Instance, *, sizes=SIZES, criteria=CRITERIA, count: int = 5,
                  seed: int = 0) -> list[Instance]:
    """All subsets of seed 001 section 6: for each size, criterion and index
    0..count−1 (sizes larger than ``inst.n`` are skipped).  With the defaults
    this is 5 × 4 × 5 = 100 instances per data set."""
    out = []
    for size in sizes:
        if size > inst.n:
            continue
        for criterion in criteria:
            for index in range(count):
                out.append(subset(inst, size, criterion, index, seed))
    return out
