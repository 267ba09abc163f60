"""A tiny plug-in method for mipagg: records sorted along the first principal
axis, cut into consecutive groups of k (the last one absorbs the remainder).

The contract (mipagg.plugins): ``f(X, k, *, seed=None, time_limit=None)`` on
the standardized (n, p) matrix X returns one non-negative integer label per
row (or a ``mipagg.Partition``); mipagg checks k-feasibility and recomputes
SSE and IL itself.
"""

import numpy as np

__all__ = ["sorted_blocks"]


def sorted_blocks(X, k, *, seed=None, time_limit=None):
    """fixed-size groups along the first principal axis"""
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    centred = X - X.mean(axis=0)
    # first right-singular vector; its sign made deterministic
    axis = np.linalg.svd(centred, full_matrices=False)[2][0]
    axis = axis if axis[np.argmax(np.abs(axis))] > 0 else -axis
    order = np.argsort(centred @ axis, kind="stable")
    labels = np.empty(n, dtype=int)
    labels[order] = np.minimum(np.arange(n) // k, max(n // k - 1, 0))
    return labels


# shown by `mipagg methods`
sorted_blocks.paper = "example: principal-axis ordering, as in univariate microaggregation"
