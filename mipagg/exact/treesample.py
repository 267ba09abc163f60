"""How much work a saved ``bp`` tree has left, measured on a random sample
of its open subtrees (``mipagg tree CHECKPOINT --data F --sample M``;
issue 22).

The estimates of :mod:`~mipagg.exact.treestats` read the tree's shape, and
on the Tarragona k = 5 tree they fell short of the final size by about 5×
at a tenth of it (docs/bench/casc_gap.md §41).  This module measures instead:
it draws ``M`` of the checkpoint's ``N`` open nodes at random, resumes
each one's subtree alone until it is closed (or its time limit), and
scales the means by ``N``, the sample-survey estimate of a total (the
same idea as Knuth's 1975 estimate of a backtrack tree, with whole
subtrees sampled instead of single paths).  The standard error carries
the finite-population correction, so a sample of every open node has
none.  A subtree resumed alone does not see what the others would have
shared (columns, pseudocosts, a better incumbent), so the estimate is of
separate work, on one process unless the options say otherwise.  It is
meant for trees whose incumbent is optimal, as on the CASC files, where
the tree only proves it: with a worse incumbent, subtrees that would be cut
off by a better partition found elsewhere are explored in full, and the
estimate runs high (docs/bench/casc_gap.md §50 checks it on trees that
finish).

Closing a sampled subtree proves nothing about the others: each is resumed
from a part (:func:`~mipagg.exact.treeparts.subset`), whose run reports
``part_closed``, never ``optimal``.
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ParameterError
from . import checkpoint
from .treeparts import subset

__all__ = ["Subtree", "SubtreeEstimate", "draw", "sample_subtrees"]

# options of the run that wrote the checkpoint that do not carry over to a
# sampled subtree's run (its own limits and files; one process)
DROPPED = ("time_limit", "node_limit", "checkpoint", "checkpoint_every", "resume", "workers",
           "scheduler")


@dataclass(frozen=True)
class Subtree:
    """One sampled open node: its index in the checkpoint, bound and depth,
    and how its subtree's run ended: ``closed`` (no partition in it below
    the incumbent, or it found a better one and closed), nodes solved,
    wall seconds and the best SSE it knew at the end."""

    node: int
    bound: float
    depth: int
    closed: bool
    nodes: int
    seconds: float
    sse: float


@dataclass
class SubtreeEstimate:
    """The work left in a tree of ``open_nodes`` open nodes, from the
    ``subtrees`` drawn with ``seed``: ``nodes`` and ``seconds`` (estimated
    totals) with their standard errors.  When a subtree was stopped by its
    time limit, its figures are lower bounds, and so are the estimates
    (``complete`` is False).  ``incumbent``: the checkpoint's SSE;
    ``better``: a subtree found a partition below it."""

    open_nodes: int
    seed: int | None
    incumbent: float
    subtrees: list = field(default_factory=list)

    def _total(self, values) -> tuple[float, float]:
        """N × mean and its standard error (finite-population corrected)."""
        v = np.asarray(values, dtype=float)
        N, m = self.open_nodes, v.size
        if m < 2:
            return N * float(v.mean()), math.nan
        fpc = (N - m) / N
        spread = 0.0 if np.ptp(v) == 0 else float(v.std(ddof=1))  # equal times: exactly 0
        return N * float(v.mean()), N * spread * math.sqrt(fpc / m)

    @property
    def complete(self) -> bool:
        return all(s.closed for s in self.subtrees)

    @property
    def better(self) -> bool:
        return any(s.sse < self.incumbent for s in self.subtrees)

    @property
    def nodes(self) -> tuple[float, float]:
        return self._total([s.nodes for s in self.subtrees])

    @property
    def seconds(self) -> tuple[float, float]:
        return self._total([s.seconds for s in self.subtrees])

    def summary(self) -> dict:
        (n, n_se), (t, t_se) = self.nodes, self.seconds
        return {"open_nodes": self.open_nodes, "sample": len(self.subtrees), "seed": self.seed,
                "complete": self.complete, "better_partition": self.better,
                "nodes_left": n, "nodes_left_se": None if math.isnan(n_se) else n_se,
                "seconds_left": t, "seconds_left_se": None if math.isnan(t_se) else t_se,
                "subtrees": [vars(s) for s in self.subtrees]}


def draw(ckpt: checkpoint.Checkpoint, count: int, seed: int | None,
         among: str = "all") -> np.ndarray:
    """``count`` indices of the checkpoint's open nodes below the incumbent's
    cutoff (those a resumed run would solve), drawn without replacement with
    ``seed``, in increasing order; ``among`` "with-basis" or "without-basis"
    draws among those the checkpoint keeps a master basis for, or not."""
    live = ckpt.live()
    if among != "all":
        if among not in ("with-basis", "without-basis"):
            raise ParameterError(f"among must be all, with-basis or without-basis, got {among!r}")
        has = (np.zeros(live.size, bool) if ckpt.node_basis is None
               else ckpt.node_basis[live] >= 0)
        live = live[has if among == "with-basis" else ~has]
    where = "" if among == "all" else f" ({among})"
    if live.size == 0:
        raise ParameterError("the checkpoint has no open node below its incumbent"
                             f"{where or ': its tree is closed'}, nothing to sample")
    if not 1 <= count <= live.size:
        raise ParameterError(f"--sample must be between 1 and the {live.size} open nodes"
                             f"{where}, got {count}")
    return np.sort(np.random.default_rng(seed).choice(live, count, replace=False))


def sample_subtrees(X, k, path, count, *, seed=None, time_limit=600.0, options=None,
                    progress=None) -> SubtreeEstimate:
    """Resume ``count`` open nodes of checkpoint ``path`` (of data ``X`` and
    ``k``), drawn with ``seed``, one at a time, each for at most
    ``time_limit`` seconds, with the checkpoint's own options (less
    :data:`DROPPED`) updated by ``options``; ``progress(i, subtree)`` is
    called after each.  Returns the :class:`SubtreeEstimate`."""
    from .bp import branch_and_price

    if time_limit is not None and time_limit <= 0:
        raise ParameterError(f"the sample's time limit must be positive, got {time_limit}")
    ckpt = checkpoint.load(path)
    if ckpt.meta["fingerprint"] != checkpoint.fingerprint(X, k):
        raise ParameterError(f"checkpoint {str(path)!r} was made for other data or another k "
                             f"(n = {ckpt.meta['n']}, k = {ckpt.meta['k']})")
    idx = draw(ckpt, count, seed)
    s = checkpoint.summary(ckpt)
    opts = {o: v for o, v in s["options"].items() if o not in DROPPED}
    opts.update(options or {})
    for reserved in ("resume", "checkpoint"):
        opts.pop(reserved, None)
    est = SubtreeEstimate(s["open_nodes"], seed, float(ckpt.meta["incumbent_sse"]))
    with tempfile.TemporaryDirectory(prefix="mipagg-sample-") as tmp:
        for j, i in enumerate(idx.tolist()):
            one = subset(path, [i], Path(tmp) / f"node{i}.npz", {"sampled": i, "seed": seed})
            t0 = time.perf_counter()
            r = branch_and_price(X, k, resume=str(one), time_limit=time_limit, **opts)
            nd = ckpt.nodes[i]
            sub = Subtree(i, float(nd.bound), int(nd.depth), r.status == "part_closed",
                          int(r.nodes - r.resumed_nodes), time.perf_counter() - t0,
                          float(r.sse))
            est.subtrees.append(sub)
            if progress is not None:
                progress(j, sub)
    return est
