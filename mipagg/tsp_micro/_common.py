"""Shared pieces of the TSP-based methods: the result object, the repeat loop
that produces the mean/σ/min/max tables of seed 003 (Tables 4.2-4.4), seeds
for the repeats, and the MDAV point-level path (seed 004 §4.2.3, steps 6-7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import ParameterError
from ..partition import Partition
from ..univariate import mhm
from ..validation import check_k

__all__ = ["PathMicroResult", "run_repeats", "child_seeds", "mdav_path", "check_repeats"]


@dataclass
class PathMicroResult:
    """Outcome of a path + MHM method run ``repeats`` times.

    ``partition``/``order``/``path_length`` belong to the best run (lowest
    SSE); ``ils`` and ``path_lengths`` hold every run, in run order.
    """

    partition: Partition
    order: np.ndarray
    path_length: float
    tour: str | None
    ils: np.ndarray
    path_lengths: np.ndarray
    extra: dict = field(default_factory=dict)

    def summary(self) -> dict:
        out = {"tour": self.tour, "path_length": float(self.path_length),
               "repeats": int(self.ils.size)}
        if self.ils.size > 1:
            out.update(il_mean=float(self.ils.mean()), il_std=float(self.ils.std(ddof=1)),
                       il_min=float(self.ils.min()), il_max=float(self.ils.max()),
                       path_length_mean=float(self.path_lengths.mean()))
        out.update(self.extra)
        return out


def check_repeats(repeats) -> int:
    if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ParameterError(f"repeats must be a positive integer, got {repeats!r}")
    return int(repeats)


def child_seeds(seed, count: int) -> list[int]:
    """``count`` independent integer seeds derived from ``seed`` (reproducible)."""
    ss = np.random.SeedSequence(seed if seed is None or isinstance(seed, int)
                                else int(np.random.default_rng(seed).integers(2**63)))
    return [int(c.generate_state(1)[0] >> 1) for c in ss.spawn(count)]  # < 2**31 (LKH SEED)


def run_repeats(X: np.ndarray, k: int, make_path: Callable[[int], tuple[np.ndarray, float]],
                *, seed, repeats, tour: str | None, extra: dict | None = None,
                progress=None, deadline=None) -> PathMicroResult:
    """Run ``make_path(child_seed) -> (order, path_length)`` ``repeats`` times,
    apply MHM (seed 004 §4.1) to each order and keep the lowest-SSE partition.
    ``progress`` (a :class:`mipagg.progress.Progress` or None) gets one
    throttled update per repeat: repeat i/n and the best SSE and IL so far.
    ``deadline`` (a :class:`mipagg.deadline.Deadline`, also handed to
    ``make_path`` by the caller): no repeat starts after it expired (the
    first always runs); the result's ``extra`` then says
    ``time_limited: True``."""
    X = np.asarray(X, dtype=float)
    k = check_k(k, X.shape[0])
    repeats = check_repeats(repeats)
    best = None
    ils, lengths = [], []
    for i, s in enumerate(child_seeds(seed, repeats)):
        if i and deadline is not None and deadline.expired():
            break
        order, length = make_path(s)
        part = mhm(X, order, k)
        ils.append(part.il())
        lengths.append(length)
        if best is None or part.sse() < best[0].sse():
            best = (part, np.asarray(order), length)
        if progress is not None:
            progress.update(repeat=f"{i + 1}/{repeats}", best_sse=best[0].sse(),
                            best_il=best[0].il())
    if progress is not None:
        progress.done(repeats=repeats, best_sse=best[0].sse(), best_il=best[0].il())
    extra = dict(extra or {})
    if deadline is not None and deadline.bounded:
        extra["time_limited"] = bool(deadline.hit)
    return PathMicroResult(best[0], best[1], float(best[2]), tour, np.array(ils),
                           np.array(lengths), extra)


def mdav_path(X: np.ndarray, k: int) -> np.ndarray:
    """The MDAV path of seed 004 §4.2.3 (steps 1-7), from
    :func:`mipagg.heuristics.paths.mdav_order`."""
    from ..heuristics.paths import mdav_order

    return np.asarray(mdav_order(X, k), dtype=np.int64)
