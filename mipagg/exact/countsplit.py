"""A proof split on the number of groups (issue 22: Census k = 4).

An optimal k-partition with groups of k..2k−1 records exists (seed 001
Proposition 2.2), and such a partition of n = mk + r records (0 ≤ r < k)
has at most m groups.  So every one of them lies in one of two classes:

- side "groups": at most m − 1 groups (``bp`` option ``max_groups``, the
  master's count row Σ_C x_C ≤ m − 1);
- side "sizes": exactly m groups, whose sizes then add up to n with at most
  r records over k each, so no group has more than k + r records (``bp``
  option ``max_size``: clusters of more than k + r records never enter the
  master or the pricing).  When k divides n that is "groups of k only".

A ``bp`` run restricted to a class certifies a bound on the partitions of
that class only, and its incumbent may lie outside it (any partition it
found: the starting one, MDAV's).  The least of the two sides' bounds is a
bound on the problem, and when both sides are proven (no partition of
either class is better than its incumbent) the better incumbent is optimal.
At the root of the Census k = 4 tree the two sides' trees were estimated at
about 25 000 and 11 000 nodes, against 87 000 for the problem's own tree
(docs/bench/casc_gap.md §76): the LP of every node mixes the two classes,
about 269.5 groups.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ParameterError
from ..outputs import check_output_path
from ..partition import Partition
from ..status import Status
from .bounds import gap
from .bp import branch_and_price
from .restriction import describe, least_groups, restriction

__all__ = ["restriction", "describe", "sides", "combine", "split_by_groups", "side_paths",
           "side_class", "combine_checkpoints", "SplitResult"]


def sides(n: int, k: int) -> list[dict]:
    """The two sides' ``bp`` options (module docstring); only the second
    when no partition has fewer than m groups.

    >>> sides(1080, 4)
    [{'max_groups': 269}, {'max_size': 4}]
    >>> sides(834, 4), sides(7, 2)
    ([{'max_groups': 207}, {'max_size': 6}], [{'max_size': 3}])
    """
    m, r = divmod(n, k)
    if m < 1:
        raise ParameterError(f"k must be at most n, got n = {n}, k = {k}")
    fewer = [{"max_groups": m - 1}] if m - 1 >= least_groups(n, k) else []
    return fewer + [{"max_size": k + r}]


@dataclass
class SplitResult:
    """Both sides of a split proof together (:func:`combine`).

    ``partition``/``sse``: the best incumbent of the sides; ``lower_bound``:
    the least of their certified bounds, a bound on the problem; ``status``
    "optimal" when both sides are, else the first side's limit; ``sides``:
    each side's options and :meth:`~.bp.BranchAndPriceResult.summary`."""

    partition: Partition
    sse: float
    lower_bound: float | None
    status: Status
    sides: list = field(default_factory=list)

    def __post_init__(self):
        self.status = Status(self.status)

    @property
    def success(self) -> bool:
        return self.status == Status.OPTIMAL

    @property
    def gap(self) -> float | None:
        return gap(self.sse, self.lower_bound)

    def summary(self) -> dict:
        return {"sse": self.sse, "lower_bound": self.lower_bound, "status": str(self.status),
                "gap": self.gap, "success": self.success,
                "nodes": sum(d.get("nodes") or 0 for d in self.sides), "sides": self.sides}


def combine(runs, n_sides: int | None = None) -> SplitResult:
    """``runs``: (options, result) of each side, results of
    :func:`~.bp.branch_and_price`.  The bound is the least side bound (a side
    without one, or fewer runs than ``n_sides``, leaves the problem without
    one)."""
    runs = list(runs)
    best = min((r for _, r in runs), key=lambda r: r.sse)
    bounds = [r.lower_bound for _, r in runs]
    missing = n_sides is not None and len(runs) < n_sides
    lb = None if missing or any(b is None for b in bounds) else min(bounds)
    if lb is not None:
        lb = min(lb, best.sse)
    status = next((r.status for _, r in runs if not r.success), Status.OPTIMAL)
    return SplitResult(best.partition, best.sse, lb, status,
                       [{**opt, "sse": r.sse, **r.summary()}
                        for opt, r in runs])


def side_paths(prefix, todo) -> list:
    """Each side's checkpoint file: ``prefix`` (ending in ``.npz``) with
    ``_groups``/``_sizes`` before the suffix (None without a prefix)."""
    if prefix is None:
        return [None] * len(todo)
    stem = str(prefix).removesuffix(".npz")
    return [stem + ("_groups" if "max_groups" in side else "_sizes") + ".npz" for side in todo]


def split_by_groups(X, k, *, time_limit=None, initial=None, checkpoint=None, resume=None,
                    **options) -> SplitResult:
    """Branch-and-price as two restricted runs (module docstring), the
    second started from the first's best partition.  ``time_limit`` is
    shared: the first side gets half (of two), the second what is left.
    ``checkpoint``: a path ending in ``.npz``, each side writing its own
    (:func:`side_paths`).  ``resume``: such a path of an earlier split; each
    side whose file exists goes on from it (a proven side's tree ends at
    once), the others start from the root.  Other options go to
    :func:`~.bp.branch_and_price` (not ``max_groups``, ``max_size``)."""
    for name in ("max_groups", "max_size"):
        if name in options:
            raise ParameterError(f"split_by_groups sets {name} itself")
    todo = sides(len(X), k)
    paths, olds = side_paths(checkpoint, todo), side_paths(resume, todo)
    olds = [p if p is not None and Path(p).exists() else None for p in olds]
    if resume is not None and not any(olds):
        raise ParameterError(f"no checkpoint of either side to resume: {side_paths(resume, todo)}")
    for path in paths:              # both sides' files, before the first side's work
        if path is not None:
            check_output_path(path, inputs=[p for p in olds if p], what="checkpoint")
    t0, runs = time.perf_counter(), []
    for i, (side, path, old) in enumerate(zip(todo, paths, olds)):
        limit = None
        if time_limit is not None:
            left = float(time_limit) - (time.perf_counter() - t0)
            limit = max(left / (len(todo) - i), 1.0)
        r = branch_and_price(X, k, time_limit=limit, initial=initial, checkpoint=path,
                             resume=old, **side, **options)
        runs.append((side, r))
        initial = r.partition
        if r.status == Status.INTERRUPTED:      # Ctrl-C: the other side does not start
            break
    return combine(runs, len(todo))


def side_class(ck) -> dict:
    """The class a loaded checkpoint's tree covers: its ``max_groups`` and
    ``max_size`` ({} for a tree of the whole problem)."""
    settings = ck.meta.get("settings", {})
    return {name: settings[name] for name in ("max_groups", "max_size")
            if settings.get(name) is not None}


def combine_checkpoints(paths) -> dict:
    """What the last checkpoints of a split's sides prove together (``mipagg
    tree --combine``): same data and k, and classes that cover every
    partition of groups of k..2k−1 records (at most m − 1 groups, when some
    partition has that few, and groups of at most k + r records).  A side is
    closed when none of its open nodes is below the cutoff of the best
    incumbent of all the sides.  Returns ``proven``, the best incumbent and
    its file, the certified bound (the incumbent when proven, else the least
    bound of the open sides' nodes), its gap (%) and one row per side."""
    from ..errors import DataError
    from . import checkpoint
    from .treeparts import proof_row

    loaded = [(str(p), checkpoint.load(p)) for p in paths]
    if not loaded:
        raise ParameterError("--combine needs the sides' checkpoints")
    first = loaded[0][1].meta
    for path, ck in loaded:
        if ck.meta["fingerprint"] != first["fingerprint"]:
            raise DataError(f"{path!r} is a tree of other data or another k than {loaded[0][0]!r}")
    n, k = int(first["n"]), int(first["k"])
    classes = [side_class(ck) for _, ck in loaded]
    need = sides(n, k)
    covered = [any(set(c) == set(side) and all(c[o] >= side[o] for o in side) for c in classes)
               for side in need]
    if not all(covered):
        missing = [describe(**side) for side, ok in zip(need, covered) if not ok]
        raise DataError(f"the checkpoints do not cover every partition of n = {n}, k = {k}: "
                        f"no side of the {' nor the '.join(missing)}")
    best_path, best = min(loaded, key=lambda t: t[1].meta["incumbent_sse"])
    ub = float(best.meta["incumbent_sse"])
    rows = [{"restriction": describe(**c), **proof_row(path, ck, ub)}
            for (path, ck), c in zip(loaded, classes)]
    lb = min([r["lower_bound"] for r in rows if not r["closed"]] + [ub])
    return {"proven": all(r["closed"] for r in rows), "n": n, "k": k, "incumbent_sse": ub,
            "incumbent_path": best_path, "lower_bound": lb, "gap": gap(ub, lb), "rows": rows}


def _signature() -> inspect.Signature:
    """:func:`split_by_groups`'s options as the method registry reads them:
    :func:`~.bp.branch_and_price`'s, less the two a split sets."""
    params = [p for p in inspect.signature(branch_and_price).parameters.values()
              if p.name not in ("max_groups", "max_size")]
    return inspect.Signature(params, return_annotation=SplitResult)


setattr(split_by_groups, "__signature__", _signature())    # noqa: B010 (mypy: a function)
