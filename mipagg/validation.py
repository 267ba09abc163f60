"""Validation at the boundary: the privacy parameter k, the data matrix and a
partition to improve.

Every method checks its input here, so that bad input gives the same one-line
:class:`~mipagg.errors.MipaggError` whichever method receives it.

>>> check_k(3, 10)
3
>>> as_rows([1.0, 2.0, 3.0]).shape
(3, 1)
"""

from __future__ import annotations

import numpy as np

from .errors import DataError, ParameterError
from .partition import Partition

__all__ = ["check_k", "as_rows", "check_partition"]


def check_k(k, n: int) -> int:
    """Validate the privacy parameter against the number of records."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ParameterError(f"k must be an integer, got {k!r}")
    k = int(k)
    if k < 2:
        raise ParameterError(f"k must be at least 2, got {k}")
    if k > n:
        raise DataError(f"k = {k} exceeds the number of records n = {n}")
    return k


def as_rows(X) -> np.ndarray:
    """``X`` as a read-only, C-contiguous 2-D float array (row access in the
    kernels; callers convert once, not at every kernel call).

    Read-only always, as :attr:`Instance.X <mipagg.instance.Instance.X>` is:
    numba compiles a kernel once per array type, and a kernel compiled for a
    read-only array also takes a writable one, not the other way round; so a
    process that meets both kinds compiles each kernel once, not twice.

    >>> as_rows(np.ones((2, 3))).flags.writeable
    False
    """
    X = np.ascontiguousarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    if X.flags.writeable:
        X = X.view()
        X.setflags(write=False)
    return X


def check_partition(X, partition, k) -> tuple[np.ndarray, int, Partition]:
    """``(X, k, P)`` for a k-partition to improve: ``X`` as rows, ``k``
    checked, ``partition`` (a :class:`Partition` or labels) as a canonical
    :class:`Partition` of ``X``; :class:`~mipagg.errors.DataError` when it is
    not k-feasible."""
    X = as_rows(X)
    k = check_k(k, X.shape[0])
    labels = partition.labels if isinstance(partition, Partition) else np.asarray(partition)
    P = Partition(labels, X)  # validates and canonicalises
    if not P.is_feasible(k):
        raise DataError(f"the partition to improve is not {k}-feasible "
                        f"(smallest group {int(P.sizes.min())})")
    return X, k, P
