"""Partitions of the records into groups, and their information loss.

SSE, SST and IL follow seed 001 section 2 and seed 003 section 2.3:
SSE = Σ_groups Σ_{i∈G} ||x_i − x̄_G||², SST = Σ_i ||x_i − x̄||², IL = 100·SSE/SST.
All three are computed on the standardized matrix the partition was built on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
from numba import njit

from .errors import DataError

__all__ = ["Partition", "sse_of_groups", "group_sse"]

# Magnitudes of X between these bounds need no rescaling before squaring:
# squares of values and of their differences stay far from overflow, and an
# underflow could only lose terms below 2**-600 relative to the total.
_SAFE_LOW, _SAFE_HIGH = 2.0 ** -300, 2.0 ** 300


def _unscale(value: float, e: int) -> float:
    """value·2**e, ``inf`` when beyond the float range (never an exception)."""
    try:
        return math.ldexp(value, e)
    except OverflowError:
        return math.inf


def group_sse(X: np.ndarray, rows: Sequence[int]) -> float:
    """Within-group sum of squares of the records ``rows`` (formula (8) of seed 001)."""
    G = X[np.asarray(rows, dtype=int)]
    return float(((G - G.mean(axis=0)) ** 2).sum())


def sse_of_groups(X: np.ndarray, groups: Iterable[Sequence[int]]) -> float:
    """SSE of an explicit list of groups (independent of :class:`Partition`)."""
    return sum(group_sse(X, g) for g in groups)


@njit(cache=True)
def _relabel_dense(labels, size):
    code = np.full(size, -1, dtype=np.int64)
    out = np.empty(labels.size, dtype=np.int64)
    nxt = 0
    for i in range(labels.size):
        lab = labels[i]
        if code[lab] < 0:
            code[lab] = nxt
            nxt += 1
        out[i] = code[lab]
    return out


def _canonical(labels: np.ndarray) -> np.ndarray:
    """Relabel groups 0..g-1 in order of first appearance (O(n) for dense labels)."""
    top = int(labels.max())
    if top <= 4 * labels.size:
        return _relabel_dense(labels.astype(np.int64, copy=False), top + 1)
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv.ravel()]


@dataclass(frozen=True, eq=False)
class Partition:
    """Group labels for the rows of a standardized matrix ``X``.

    Labels are canonical: 0..g−1 in order of first appearance, so two equal
    partitions have equal ``labels``.
    """

    labels: np.ndarray
    X: np.ndarray = field(repr=False)

    def __post_init__(self):
        labels = np.asarray(self.labels)
        X = np.asarray(self.X, dtype=float)
        if X.ndim == 1:
            X = X[:, None]
        if labels.shape != (X.shape[0],):
            raise DataError(f"{labels.size} labels for {X.shape[0]} records")
        if labels.size and labels.min() < 0:
            raise DataError("group labels must be non-negative")
        labels = _canonical(labels) if labels.size else labels.astype(np.int64)
        labels.setflags(write=False)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "X", X)

    @classmethod
    def from_groups(cls, groups: Iterable[Sequence[int]], X: np.ndarray) -> "Partition":
        """Build from a list of row-index groups that must cover every row once."""
        X = np.asarray(X, dtype=float)
        n = X.shape[0]
        labels = np.full(n, -1, dtype=np.int64)
        for g, rows in enumerate(groups):
            rows = np.asarray(rows, dtype=int)
            if (labels[rows] != -1).any():
                raise DataError("a record appears in two groups")
            labels[rows] = g
        if (labels == -1).any():
            raise DataError(f"{int((labels == -1).sum())} record(s) are in no group")
        return cls(labels, X)

    @property
    def n(self) -> int:
        return self.labels.size

    @property
    def n_groups(self) -> int:
        return int(self.labels.max()) + 1 if self.n else 0

    @property
    def sizes(self) -> np.ndarray:
        return np.bincount(self.labels, minlength=self.n_groups)

    def groups(self) -> list[np.ndarray]:
        """Row indices of each group, groups in label order, rows ascending."""
        order = np.argsort(self.labels, kind="stable")
        return np.split(order, np.cumsum(self.sizes)[:-1])

    def centroids(self) -> np.ndarray:
        """(g, p) matrix of group means of the standardized data."""
        Y, e = self._scaled()
        sums = np.zeros((self.n_groups, self.X.shape[1]))
        np.add.at(sums, self.labels, Y)
        return np.ldexp(sums / self.sizes[:, None], e)

    def _scaled(self) -> tuple[np.ndarray, int]:
        """``(X / 2**e, e)``: X itself (e = 0) when its magnitudes are moderate,
        which is always the case for standardized data; otherwise scaled by a
        power of two (exact) so that squares neither overflow nor underflow."""
        top = float(np.abs(self.X).max()) if self.X.size else 0.0
        if top == 0.0 or _SAFE_LOW <= top <= _SAFE_HIGH:
            return self.X, 0
        e = int(np.frexp(top)[1])
        return np.ldexp(self.X, -e), e

    @staticmethod
    def _sse_of(X: np.ndarray, labels: np.ndarray, sizes: np.ndarray) -> float:
        sums = np.zeros((sizes.size, X.shape[1]))
        np.add.at(sums, labels, X)
        return float(((X - (sums / sizes[:, None])[labels]) ** 2).sum())

    @staticmethod
    def _sst_of(X: np.ndarray) -> float:
        D = X - X.mean(axis=0)
        D -= D.mean(axis=0)  # corrected two-pass: remove the rounding of the mean
        return float((D ** 2).sum())

    def sse(self) -> float:
        """Within-group sum of squared errors."""
        Y, e = self._scaled()
        return _unscale(self._sse_of(Y, self.labels, self.sizes), 2 * e)

    def sst(self) -> float:
        """Total sum of squares around the overall centroid."""
        Y, e = self._scaled()
        return _unscale(self._sst_of(Y), 2 * e)

    def il(self) -> float:
        """Information loss IL = 100·SSE/SST (percent); computed on X scaled by
        a power of two, so it is right even when SSE or SST alone would
        overflow or underflow (data not standardized)."""
        Y, _ = self._scaled()
        sst = self._sst_of(Y)
        return 100.0 * self._sse_of(Y, self.labels, self.sizes) / sst if sst > 0 else 0.0

    def is_feasible(self, k: int) -> bool:
        """True when every group has at least ``k`` records."""
        return bool(self.n and self.sizes.min() >= k)

    def summary(self) -> dict:
        sizes = self.sizes
        return {"n": self.n, "p": int(self.X.shape[1]), "sse": self.sse(), "sst": self.sst(),
                "il": self.il(), "groups": int(sizes.size), "min_group": int(sizes.min()),
                "max_group": int(sizes.max())}

    def write_labels(self, path, *, inputs=()) -> None:
        """One integer label per row, input order, header ``group``.

        ``path`` may not be one of ``inputs`` (e.g. the data file) and is
        written atomically (:mod:`mipagg.outputs`): an interrupted or failed
        write leaves any previous file untouched."""
        from .outputs import atomic_write, check_output_path

        target = check_output_path(path, inputs, what="labels file")
        with atomic_write(target) as fh:
            fh.write("group\n")
            fh.write("\n".join(map(str, self.labels.tolist())))
            fh.write("\n")
