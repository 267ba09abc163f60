"""Checkpoints of the ``bp`` tree: save a tree's state, resume it in a later
run (``branch_and_price(..., checkpoint=PATH)`` / ``resume=PATH``; issue 22:
a proof on the CASC files needs more than one session).

A checkpoint holds what the tree needs to go on: the open nodes (bound,
depth, together and apart pairs), the column pool, the cuts (with
``retire_cuts``, not the node cuts that no saved basis holds tight:
:mod:`.cutretire`), the root's pair fixing, the incumbent's labels, the
root's bounds, the counts so far and the pseudocosts of reliability
branching.  It is a NumPy ``.npz`` file of
plain arrays plus one JSON string (read with ``allow_pickle=False``: loading
runs no code), written to a temporary file and renamed, so a run killed
while writing leaves the previous checkpoint.
It holds record indices only, never data, and a fingerprint of the
standardized data and k that :func:`restore` checks.

Resuming is sound because every open node's bound was certified by its
parent's column generation and holds for the node's subtree; the columns
are clusters and the cuts valid inequalities of the set-partitioning
polytope, so neither restricts the problem; the root's fixed pairs were
fixed against an incumbent no better than the one restored (pair fixing is
refreshed as the incumbent improves).  So the least bound of the open nodes
is a certified bound of the whole problem, and the resumed tree explores
exactly the part the first run left.  The resumed run may use other
options (time limit, branching rule, workers).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import DataError, ParameterError
from ..partition import Partition
from . import cutretire, pairtable
from .bases import SavedPool, nearest_bases, pack, ragged, unpack
from .bounds import node_cutoff
from .cuts import Rank1Cut, rank1
from .node import NodeResult, StopState
from .restriction import describe
from .rules import Node
from .treestats import BoundTrend

__all__ = ["FORMAT", "Checkpoint", "fingerprint", "prepare", "save", "load", "restore",
           "summary"]

FORMAT = 3         # 2 (2026-12-02): record and pool indices in the smallest integer type;
READS = (1, 2, 3)  # 3 (2026-12-03): the nodes' pairs through a table of the distinct ones
_PAIRS = ("tog", "apart")           # the open nodes' pairs (pairtable from format 3)
# the arrays of indices (records, pool positions, basic artificial columns)
_INDICES = ("col_flat", "tog", "apart", "tog_table", "apart_table", "basis_cols", "basis_art")
# counts carried from run to run (cumulative over the runs of one tree; and
# "retired_cuts", which a save adds to)
_COUNTS = ("nodes", "iterations", "max_depth", "node_cuts", "ident", "cut_rounds_done",
           "dive_steps", "neighbourhood_solves", "node_fixed_sizes")
_BOUNDS = ("root_bound", "root_lp_bound", "root_cut_bound", "closing_bound", "pruned_bound")
_PSEUDOCOSTS = ("pc_pairs", "pc_sums", "pc_probes")       # absent before 2026-11-29
_UNSET = {"closing_bound": -np.inf, "pruned_bound": np.inf}     # their values when unset
_BASIC = 1      # highspy.HighsBasisStatus.kBasic (as in mipagg.exact.master)


def fingerprint(X, k: int) -> str:
    """SHA-256 of the standardized data (shape and float64 bytes) and k."""
    A = np.ascontiguousarray(X, dtype=np.float64)
    h = hashlib.sha256(f"{A.shape[0]}x{A.shape[1]} k={int(k)}\n".encode())
    h.update(A.tobytes())
    return h.hexdigest()


@dataclass
class Checkpoint:
    """A loaded checkpoint (:func:`load`): ``meta`` (format, version,
    fingerprint, n, k, counts, bounds, node-closing threshold, the options
    of the run that wrote it), the root's ``root_stop`` (its certified
    bound and duals), the incumbent's ``labels``, ``columns``,
    ``cuts`` (:class:`~mipagg.exact.cuts.Rank1Cut`), the open ``nodes``
    and the root fixing (``fixed`` mask, pair bounds and their L, or None);
    ``pseudocosts``: reliability branching's table
    (:meth:`~mipagg.exact.branching.ReliabilityBranching.state`) or None;
    ``bases``: master bases (:func:`~mipagg.exact.bases.unpack`) and
    ``node_basis`` the one each node starts from (−1: none), both empty in
    checkpoints written before 2026-11-30."""

    meta: dict
    root_stop: StopState
    labels: np.ndarray
    columns: list
    cuts: list
    nodes: list
    fixed: np.ndarray | None
    fix_bounds: np.ndarray | None
    pseudocosts: tuple | None = None
    bases: list = field(default_factory=list)
    node_basis: np.ndarray | None = None

    def cutoff(self, incumbent: float | None = None) -> float:
        """The bound at or above which an open node is cut off: the
        incumbent's SSE (or ``incumbent``) less the run's relative ``gap_tol``."""
        ub = self.meta["incumbent_sse"] if incumbent is None else incumbent
        return node_cutoff(ub, self.meta["settings"].get("gap_tol", 1e-6))

    def live(self, incumbent: float | None = None) -> np.ndarray:
        """Indices of the open nodes below :meth:`cutoff`: those a resumed
        run solves (a node queued before the incumbent fell is cut off)."""
        cutoff = self.cutoff(incumbent)
        return np.flatnonzero([nd.bound < cutoff for nd in self.nodes]).astype(np.int64)

    @property
    def lower_bound(self) -> float | None:
        """The certified bound the checkpoint holds: the least open bound
        (None when no node is open: the tree was closed)."""
        return min((nd.bound for nd in self.nodes), default=None)


def _unragged(flat, ptr) -> list:
    return [flat[ptr[i]:ptr[i + 1]] for i in range(ptr.size - 1)]


def _open_nodes(tree) -> list:
    """The tree's open nodes, taken off its queue and put back (the node
    selection protocol has push/pop only)."""
    nodes = [tree.open.pop() for _ in range(len(tree.open))]
    for nd in nodes:
        tree.open.push(nd)
    return nodes


def _finite(v) -> float | None:
    return None if v is None or not np.isfinite(v) else float(v)


def save(tree, path) -> Path:
    """Write ``tree``'s state (a :class:`~mipagg.exact.bp.BranchAndPrice`
    between nodes, once ``tree_started``) to ``path``; returns the path.
    The nodes of a parallel tree's tasks still out (``tree.in_flight``) are
    saved as open nodes: their bounds hold for their subtrees, so the
    checkpoint covers the problem."""
    from .. import __version__

    path = Path(path)
    nodes = _open_nodes(tree) + list(tree.in_flight)
    cuts = [rank1(c) for c in tree.master.cuts]
    columns = list(tree.master.columns)
    basis_arrays, extra = _node_bases(tree, nodes)
    col_flat, col_ptr = ragged([np.asarray(c) for c in columns + extra])
    cut_rows, cut_ptr = ragged([c.rows for c in cuts])
    cut_nums, _ = ragged([c.nums for c in cuts])
    tog, tog_ptr = ragged([np.ravel(nd.together) for nd in nodes])
    apart, apart_ptr = ragged([np.ravel(nd.apart) for nd in nodes])
    fixer, closer, stop = tree.fixer, tree.closer, tree.root.stop
    root_fix = None if fixer is None else fixer.state()[1]
    kept = dict(cut_rows=cut_rows, cut_nums=cut_nums, cut_ptr=cut_ptr,
                cut_den=np.array([c.den for c in cuts], dtype=np.int64), **basis_arrays)
    retired = 0 if not tree.settings.retire_cuts else cutretire.retire(
        kept, tree.master.first_cut_row,
        0 if stop.cut_duals is None else len(stop.cut_duals))  # not the root's
    meta = {"format": FORMAT, "version": __version__, "fingerprint": fingerprint(tree.X, tree.k),
            "n": int(tree.n), "k": int(tree.k), "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                        time.gmtime()),
            "incumbent_sse": float(tree.rounder.best_sse),
            "counts": {c: int(getattr(tree, c)) for c in _COUNTS}
            | {"retired_cuts": tree.retired_cuts + retired},    # by the runs so far
            "bounds": {b: _finite(getattr(tree, b)) for b in _BOUNDS},
            "gap_closing": tree.gap_closing,
            "pace": dict(zip(("nodes", "seconds"), tree.pace())),
            "bound_trend": tree.trend.samples,
            "root_stop": {"reason": stop.reason, "bound": _finite(stop.bound),
                          "bound_source": stop.bound_source,
                          "count_penalty": float(stop.count_penalty)},
            "count_rows": tree.master.count_rows,       # absent before 2026-12-04: 0
            "closer": {"limit": _finite(closer.limit), "tried": closer.tried,
                       "succeeded": closer.succeeded, "partial": closer.partial,
                       "better": closer.better, "timed_out": closer.timed_out,
                       "too_large": closer.too_large, "skipped": closer.skipped,
                       "value": None if closer.value is None else closer.value.state()},
            "fixing": None if fixer is None else {
                "node_fixed": int(fixer.node_fixed),
                "L": None if root_fix is None else float(root_fix[1])},
            "settings": {k: v for k, v in tree.settings.as_dict().items()
                         if isinstance(v, (int, float, str, bool, list, tuple, type(None)))}}
    if tree.part is not None:               # a part of a split tree stays one (treeparts)
        meta["part"] = tree.part
    arrays = dict(
        meta=np.array(json.dumps(meta)), labels=np.asarray(tree.rounder.best.labels, np.int64),
        col_flat=col_flat, col_ptr=col_ptr,
        node_bound=np.array([nd.bound for nd in nodes], dtype=float),
        node_depth=np.array([nd.depth for nd in nodes], dtype=np.int64),
        node_sizes_out=np.array([str(nd.sizes_out) for nd in nodes]),
        tog=tog, tog_ptr=tog_ptr, apart=apart, apart_ptr=apart_ptr)
    arrays.update(kept)
    for name in ("duals", "cut_duals"):
        if getattr(stop, name) is not None:
            arrays[f"root_{name}"] = np.asarray(getattr(stop, name), dtype=float)
    if hasattr(tree.branching, "state"):
        arrays.update(zip(_PSEUDOCOSTS, tree.branching.state()))
    if fixer is not None:
        arrays["fixed"] = fixer.fixed
        if root_fix is not None:
            arrays["fix_bounds"] = np.asarray(root_fix[0], dtype=float)
    return write(arrays, path)


def write(arrays: dict, path) -> Path:
    """Write a checkpoint's ``arrays`` (as :func:`read` returns them) to
    ``path`` in this :data:`FORMAT` (through a temporary file renamed): the
    nodes' pairs through a table of the distinct ones (:mod:`.pairtable`;
    §64) and the arrays of indices in the smallest integer type that holds
    them (int16 below 32 768 records and columns; §62)."""
    path = Path(path)
    arrays = dict(arrays)
    for name in _PAIRS:
        arrays[name], arrays[f"{name}_ptr"], arrays[f"{name}_table"] = \
            pairtable.encode(arrays[name], arrays[f"{name}_ptr"])
    for name in _INDICES:
        if name in arrays and arrays[name].size:
            a = arrays[name]
            lo, hi = int(a.min()), int(a.max())
            arrays[name] = a.astype(next(t for t in (np.int8, np.int16, np.int32, np.int64)
                                         if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max))
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps(meta | {"format": FORMAT}))
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    os.replace(tmp, path)
    return path


def read(path) -> dict:
    """The arrays of checkpoint ``path`` (any format of :data:`READS`), the
    nodes' pairs flat (a, b, a, b, …) with offsets into them, as
    :func:`write` takes them."""
    with np.load(path, allow_pickle=False) as z:
        a = {name: z[name] for name in z.files}
    for name in _PAIRS:
        if f"{name}_table" in a:
            a[name], a[f"{name}_ptr"] = pairtable.decode(a[name], a[f"{name}_ptr"],
                                                          a.pop(f"{name}_table"))
    return a


def _node_bases(tree, nodes: list) -> tuple[dict, list]:
    """The arrays of the bases (:meth:`~mipagg.exact.bp.BranchAndPrice.saved_basis`;
    siblings share one) of the ``checkpoint_bases`` open nodes of least
    bound that have one, and the basic clusters to add to the saved pool
    (the master's columns)."""
    node_basis = np.full(len(nodes), -1, dtype=np.int32)
    room = int(tree.settings.checkpoint_bases)
    if not tree.settings.node_basis or not room:
        return {}, []
    pool = SavedPool(tree.master.pool_index(), len(tree.master.columns))
    unique: dict = {}
    bases: list = []
    for i in np.argsort([nd.bound for nd in nodes], kind="stable").tolist():
        if room == 0:
            break
        key, basis = tree.saved_basis(nodes[i], pool)
        if basis is None:
            continue
        room -= 1
        if key not in unique:
            unique[key] = len(bases)
            bases.append(basis)
        node_basis[i] = unique[key]
    arrays = pack(bases)
    arrays["node_basis"] = node_basis
    return arrays, pool.extra


def _pseudocosts(a: dict) -> tuple | None:
    """The pseudocost arrays of a loaded archive (None when it has none)."""
    if _PSEUDOCOSTS[0] not in a:
        return None
    pairs, sums, probes = (a[name] for name in _PSEUDOCOSTS)
    m = probes.shape[0] if probes.ndim == 1 else -1
    if pairs.shape != (m, 2) or sums.shape != (m, 2):
        raise ValueError(f"pseudocost arrays of shapes {pairs.shape}, {sums.shape}, "
                         f"{probes.shape}")
    return pairs, sums, probes


def load(path) -> Checkpoint:
    """Read a checkpoint written by :func:`save`; a file that is missing, not
    a checkpoint or of another format raises :class:`~mipagg.errors.DataError`."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"checkpoint {str(path)!r} does not exist")
    if not zipfile.is_zipfile(path):
        raise DataError(f"{str(path)!r} is not a bp checkpoint (not an .npz archive)")
    try:
        a = read(path)
        meta = json.loads(str(a["meta"]))
        fmt = meta.get("format")
    except (OSError, ValueError, KeyError, EOFError, IndexError) as exc:
        raise DataError(f"{str(path)!r} is not a bp checkpoint ({exc})") from None
    if fmt not in READS:
        raise DataError(f"checkpoint {str(path)!r} has format {fmt!r}; this mipagg reads "
                        f"formats {', '.join(map(str, READS))}")
    try:
        cuts = []
        for rows, nums, den in zip(_unragged(a["cut_rows"], a["cut_ptr"]),
                                   _unragged(a["cut_nums"], a["cut_ptr"]), a["cut_den"]):
            cut = Rank1Cut(tuple(int(v) for v in rows), tuple(int(v) for v in nums), int(den))
            plain = len(rows) == 3 and cut.den == 2 and set(cut.nums) == {1}
            cuts.append(cut.rows if plain else rank1(cut))
        sizes_out = a.get("node_sizes_out", np.zeros(a["node_bound"].size, dtype=int))
        nodes = [Node(float(b), -int(d), i, t, p, sizes_out=int(m))
                 for i, (b, d, t, p, m) in
                 enumerate(zip(a["node_bound"], a["node_depth"],
                               pairtable.node_tuples(a["tog"], a["tog_ptr"]),
                               pairtable.node_tuples(a["apart"], a["apart_ptr"]), sizes_out))]
        root_stop = StopState(duals=a.get("root_duals"), cut_duals=a.get("root_cut_duals"),
                              **meta["root_stop"])
        columns = _unragged(a["col_flat"].astype(np.int64), a["col_ptr"])
        bases, node_basis = unpack(a), a.get("node_basis")
        if node_basis is not None and (
                node_basis.size != len(nodes) or node_basis.max(initial=-1) >= len(bases)
                or any(c.size and not 0 <= c.min() <= c.max() < len(columns)
                       for c, _, _ in bases)):
            raise ValueError(f"{len(bases)} node bases do not fit {len(nodes)} nodes and "
                             f"{len(columns)} columns")
        return Checkpoint(meta, root_stop, a["labels"], columns, cuts, nodes, a.get("fixed"),
                          a.get("fix_bounds"), _pseudocosts(a), bases, node_basis)
    except (KeyError, ValueError, IndexError) as exc:
        raise DataError(f"checkpoint {str(path)!r} is damaged ({exc})") from None


def _changed_options(settings: dict) -> dict:
    """The options of the run that wrote a checkpoint that differ from
    :class:`~mipagg.exact.settings.BPSettings`' defaults (lists as tuples:
    JSON has no tuple)."""
    from .settings import BPSettings

    def plain(v):
        return tuple(v) if isinstance(v, list) else v

    default = BPSettings().as_dict()
    return {k: v for k, v in settings.items() if k in default and plain(v) != plain(default[k])}


def _quantiles(a: np.ndarray) -> dict | None:
    """Min, 10 %, median, 90 % and max of ``a`` (None when empty)."""
    if not a.size:
        return None
    return dict(zip(("min", "q10", "median", "q90", "max"),
                    np.quantile(a, (0.0, 0.1, 0.5, 0.9, 1.0)).tolist()))


def summary(ckpt: Checkpoint) -> dict:
    """What a checkpoint holds and how far its tree is from the end (``mipagg
    tree``): the incumbent, the certified bound (least open bound) and the
    gap (%, seed 001's formula (15)), the root's bounds, the share of the
    root gap closed and the tree-size estimate (:mod:`~mipagg.exact.treestats`),
    the open nodes' bounds and depths (quantiles), the pool, cuts and fixed
    pairs (``node_cuts``: the cuts found at nodes by the runs so far,
    ``retired_cuts``: how many of them the checkpoints left out), the sizes
    excluded by size fixing (``node_fixed_sizes`` in all,
    ``open_sizes_out``: open nodes per size excluded), and the options of the
    run that wrote it that are not defaults;
    from checkpoints that record it, that run's pace in the tree (nodes per
    second) and the time the estimate leaves at that pace, and from those
    written since 2026-11-29 the nodes (and time) to the cutoff at the bound's
    recent pace (:class:`~mipagg.exact.treestats.BoundTrend`).  Listed nodes whose
    bound is at or above the incumbent's cutoff (its SSE less the relative
    ``gap_tol``; queued before it fell) count as cut off (``cut_off_nodes``),
    not open.  ``open_gap``: Σ (cutoff − bound) over the open nodes, the bound
    the tree must still gain in all (docs/bench/casc_gap.md §35).
    ``part``: which part of a split tree it is (:mod:`~mipagg.exact.treeparts`;
    its bound then holds for that part's subtrees only), or None; ``thinned``:
    the record of :func:`~mipagg.exact.treeparts.thin` (its source file, the
    bases kept), or None.
    ``node_bases``: the open nodes whose basis it keeps (since 2026-11-30;
    their parent's, or for a node resumed without one, since 2026-12-02, its
    nearest relative's).  ``pseudocost_pairs``/``pseudocost_probes``: reliability branching's table,
    from checkpoints written since 2026-11-29.  ``pruned_bound``: the least
    bound of the nodes cut off (None if none was); on a closed tree
    min(it, incumbent) is the bound proved, the incumbent being optimal
    within ``gap_tol`` of it (``BranchAndPrice.certified_bound``)."""
    from .bounds import gap
    from .treestats import gap_closed, open_gap, seconds_left, tree_estimate

    meta, ub = ckpt.meta, ckpt.meta["incumbent_sse"]
    counts, bounds = meta["counts"], meta["bounds"]
    # nodes queued before the incumbent fell are cut off as a resume cuts them
    # (BranchAndPrice.cutoff); the certificate keeps those below the incumbent
    cutoff = ckpt.cutoff()
    live = [ckpt.nodes[i] for i in ckpt.live()]
    nb = np.array([nd.bound for nd in live], dtype=float)
    depth = np.array([nd.depth for nd in live], dtype=np.int64)
    lb = None if not ckpt.nodes else min([nd.bound for nd in ckpt.nodes] + [ub])
    rows = [len(c) if isinstance(c, tuple) else len(c.rows) for c in ckpt.cuts]
    estimate = tree_estimate(counts["nodes"], depth.tolist()) if nb.size else None
    pace = meta.get("pace")             # absent from checkpoints before 2026-11-28
    by_bound = (BoundTrend(meta.get("bound_trend", ())).nodes_to(cutoff, int(nb.size)) if nb.size
                else None)
    return {
        "version": meta["version"], "saved": meta["saved"], "n": meta["n"], "k": meta["k"],
        "fingerprint": meta["fingerprint"], "options": _changed_options(meta["settings"]),
        "branching": meta["settings"].get("branching"),   # whatever the defaults of today
        "incumbent_sse": ub, "lower_bound": lb, "gap": gap(ub, lb),
        "pruned_bound": bounds.get("pruned_bound"),
        "gap_tol": meta["settings"].get("gap_tol", 1e-6),
        "root_lp_bound": bounds["root_lp_bound"], "root_cut_bound": bounds["root_cut_bound"],
        "gap_closed": gap_closed(lb, ub, bounds["root_lp_bound"]),
        "nodes": counts["nodes"], "max_depth": counts["max_depth"],
        "tree_estimate": estimate,
        "nodes_per_second": pace["nodes"] / pace["seconds"] if pace and pace["seconds"] > 0
        else None,
        "seconds_left": seconds_left(estimate, counts["nodes"], pace["nodes"], pace["seconds"])
        if pace else None,
        "bound_trend_nodes": by_bound,
        "bound_trend_seconds_left": seconds_left(counts["nodes"] + by_bound, counts["nodes"],
                                                 pace["nodes"], pace["seconds"])
        if pace and by_bound is not None else None,
        "open_nodes": int(nb.size), "cut_off_nodes": len(ckpt.nodes) - int(nb.size),
        "open_bound_quantiles": _quantiles(nb), "open_depth_quantiles": _quantiles(depth),
        "open_gap": open_gap(cutoff, nb.tolist()),
        "columns": len(ckpt.columns), "cuts": len(rows),
        "count_row": (meta.get("settings", {}).get("max_groups") or meta["n"] // meta["k"])
        if meta.get("count_rows") else None,
        "restriction": describe(meta.get("settings", {}).get("max_groups"),
                                meta.get("settings", {}).get("max_size")),
        "cuts_by_rows": {str(r): rows.count(r) for r in sorted(set(rows))},
        "node_cuts": counts["node_cuts"], "retired_cuts": counts.get("retired_cuts", 0),
        "fixed_pairs": None if ckpt.fixed is None else int(np.count_nonzero(ckpt.fixed)),
        "node_fixed_pairs": (meta["fixing"] or {}).get("node_fixed"),
        "node_closings": meta["closer"]["tried"],
        "node_partial_closings": meta["closer"].get("partial", 0),
        "node_closing_incumbents": meta["closer"].get("better", 0),
        "node_closings_timed_out": meta["closer"].get("timed_out"),
        "node_closings_too_large": meta["closer"].get("too_large"),
        "node_closings_skipped": meta["closer"].get("skipped", 0),
        "node_bases": 0 if ckpt.node_basis is None
        else int(np.count_nonzero(ckpt.node_basis >= 0)),
        "pseudocost_pairs": None if ckpt.pseudocosts is None else int(ckpt.pseudocosts[2].size),
        "pseudocost_probes": None if ckpt.pseudocosts is None
        else int(ckpt.pseudocosts[2].sum()),
        "node_fixed_sizes": counts.get("node_fixed_sizes", 0),
        "open_sizes_out": sizes_out_counts([nd.sizes_out for nd in live]),
        "part": meta.get("part"), "thinned": meta.get("thinned")}


def sizes_out_counts(masks) -> dict[str, int]:
    """How many of the nodes whose ``sizes_out`` masks are given exclude each
    cluster size (size fixing, :func:`~mipagg.exact.fixing.fix_sizes`):
    ``{"8": 120, "9": 340}``, sizes ascending, those no node excludes left out."""
    counts: dict[int, int] = {}
    for mask in masks:
        eta = 0
        while mask >> eta:
            if mask >> eta & 1:
                counts[eta] = counts.get(eta, 0) + 1
            eta += 1
    return {str(eta): counts[eta] for eta in sorted(counts)}


def restore(tree, ckpt: Checkpoint) -> None:
    """Put the checkpoint's state (checked by :func:`prepare`) into a fresh
    ``tree`` of the same data and k: its columns, cuts, fixing, counts and
    bounds, the node gap-closing threshold, the incumbent (offered: a better
    ``initial`` of the new run wins) and the open nodes, each with its
    parent's basis or, where the checkpoint kept none, its nearest relative's
    (:func:`~mipagg.exact.bases.nearest_bases`)."""
    meta = ckpt.meta
    tree.rounder.offer(Partition(np.asarray(ckpt.labels), tree.X))
    fixing = None
    if ckpt.fixed is not None and tree.settings.fixing:
        L = meta["fixing"]["L"]
        fixing = (ckpt.fixed.astype(bool), None if L is None else (ckpt.fix_bounds, float(L)))
    tree.adopt_root(ckpt.columns, ckpt.cuts, fixing)
    if tree.fixer is not None:
        tree.fixer.node_fixed = int(meta["fixing"]["node_fixed"])
    for name, value in meta["counts"].items():
        setattr(tree, name, int(value))
    for name, value in meta["bounds"].items():     # None: not finite when saved
        setattr(tree, name, _UNSET.get(name) if value is None and name in _UNSET else value)
    tree.gap_closing = meta["gap_closing"]
    tree.trend = BoundTrend(meta.get("bound_trend", ()))    # absent before 2026-11-29
    tree.root = NodeResult(ckpt.root_stop, None, 0)     # the root's duals (reclose_root)
    c = meta["closer"]
    if tree.settings.node_close_max_columns:
        tree.closer.limit = -np.inf if c["limit"] is None else float(c["limit"])
    tree.closer.tried, tree.closer.succeeded = int(c["tried"]), int(c["succeeded"])
    tree.closer.partial, tree.closer.better = int(c.get("partial", 0)), int(c.get("better", 0))
    # older checkpoints do not split their failed closings by cause
    tree.closer.timed_out, tree.closer.too_large, tree.closer.skipped = (
        int(c.get(f, 0)) for f in ("timed_out", "too_large", "skipped"))
    if tree.closer.value is not None and c.get("value"):     # node_close_cost's model
        tree.closer.value.adopt(c["value"])
    if ckpt.pseudocosts is not None and hasattr(tree.branching, "adopt"):
        tree.branching.adopt(ckpt.pseudocosts)
    tree.resumed_nodes = tree.nodes
    tree.part = meta.get("part")
    bases = _restored_bases(tree, ckpt)
    # a node the checkpoint kept no basis for starts from its nearest relative's
    start = nearest_bases([nd.together for nd in ckpt.nodes], [nd.apart for nd in ckpt.nodes],
                          ckpt.node_basis, tree.n) if bases else None
    for i, nd in enumerate(ckpt.nodes):
        basis = None if start is None or start[i] < 0 else bases[start[i]]
        tree.open.push(Node(nd.bound, nd.depth_key, tree.ident, nd.together, nd.apart, basis,
                            sizes_out=nd.sizes_out))
        tree.ident += 1


def _restored_bases(tree, ckpt: Checkpoint) -> list:
    """The checkpoint's bases in the columns of ``tree``'s master (which
    holds the saved pool), with the count row's status put in or taken out
    when the master that saved them had it and this one has not, or the
    other way (None for a basis whose count row was tight)."""
    if not ckpt.bases or ckpt.node_basis is None or not tree.settings.node_basis:
        return []
    master = tree.master
    where = master.pool_indices(ckpt.columns)
    had, n = ckpt.meta.get("count_rows", 0), tree.n
    bases = []
    for cols, art, rows in ckpt.bases:
        if master.count_rows and not had:       # the count row's slack joins the basis
            rows = np.insert(np.asarray(rows, np.int8), n, _BASIC)
        elif had and not master.count_rows:
            if rows[n] != _BASIC:               # it leaves only when its slack is basic
                bases.append(None)
                continue
            rows = np.delete(np.asarray(rows, np.int8), n)
        bases.append(master.pool_basis(where[cols], art, rows))
    return bases


def prepare(X, k, settings) -> Checkpoint | None:
    """Before any work: the ``checkpoint`` path must be writable and not the
    ``resume`` file (never overwrite an input), and the ``resume`` file must
    be a checkpoint of this data and k, of the run's class (``max_groups``,
    ``max_size``) or of a wider one for ``max_groups``: the bounds of a tree
    hold for every partition into fewer groups, so a tree of the problem can
    go on as one side of a split.  Returns the loaded checkpoint, or None
    without ``resume``."""
    from ..outputs import check_output_path

    if settings.checkpoint is not None:
        check_output_path(settings.checkpoint, inputs=[settings.resume], what="checkpoint")
    if settings.resume is None:
        return None
    ckpt = load(settings.resume)
    if ckpt.meta["fingerprint"] != fingerprint(X, k):
        n = np.asarray(X).shape[0]
        raise DataError(f"checkpoint {settings.resume!r} was made for other data or another k "
                        f"(n = {ckpt.meta['n']}, k = {ckpt.meta['k']}); this run has n = {n}, "
                        f"k = {k}")
    saved = ckpt.meta.get("settings", {})
    for name in ("max_groups", "max_size"):     # a restricted tree's bounds hold for its class
        was, now = saved.get(name), getattr(settings, name)
        narrower = name == "max_groups" and now is not None and (was is None or now <= was)
        if was != now and not narrower:
            raise ParameterError(f"checkpoint {settings.resume!r} was made with {name} = {was}; "
                                 f"this run has {now} (a tree goes on only with its own class "
                                 "or fewer groups)")
    return ckpt
