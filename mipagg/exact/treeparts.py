"""A ``bp`` checkpoint split into parts, each resumed on its own machine,
and the parts' results put back together (``mipagg tree CHECKPOINT --split N
--out PREFIX``, ``mipagg tree --combine PART ...``; issue 22: a tree that
scales out without a Dask cluster, e.g. as a batch job array).

A part keeps everything of the checkpoint (pool, cuts, fixing, incumbent,
counts, bases) but only its share of the open nodes, and its metadata says
which part of which checkpoint it is.  Every open node's bound holds for
its subtree (:mod:`mipagg.exact.checkpoint`), and the parts cover the open
nodes, so:

- a run resumed from a part bounds only that part's subtrees: it reports
  status ``part_closed`` instead of ``optimal`` and no ``lower_bound``, the
  part's bound being in its ``part`` field; its checkpoints stay tagged;
- once every part is closed, the best of the parts' incumbents is optimal
  (a closed part holds nothing below its own incumbent, which is no better
  than the best); until then the least bound of the open parts and the best
  incumbent bound the problem (:func:`combine`).

:func:`thin` rewrites a checkpoint with the bases of fewer open nodes (``mipagg
tree CHECKPOINT --keep-bases N --out PATH``), its metadata kept: the bases of
a wide tree are most of its file, and a basis only saves pivots (a node
without one starts from its nearest relative's, :mod:`~mipagg.exact.bases`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..errors import DataError, ParameterError
from . import checkpoint
from .bases import nearest_bases, pack, ragged, unpack
from .bounds import gap

__all__ = ["subset", "split", "part_paths", "combine", "thin", "proof_row"]


def _source_id(path) -> str:
    """The first 16 hex digits of the SHA-256 of the checkpoint file."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def subset(path, nodes, out, part: dict | None = None) -> Path:
    """Write to ``out`` a copy of checkpoint ``path`` whose open nodes are
    only ``nodes`` (indices), tagged as a part (``part``, with the source's
    id and its open nodes added); pool, cuts, fixing, incumbent, counts and
    bases unchanged, a node saved without a basis given its nearest
    relative's in the whole tree (:func:`~mipagg.exact.bases.nearest_bases`).
    Resuming it explores exactly those nodes' subtrees."""
    idx = np.asarray(nodes, dtype=np.int64)
    a = checkpoint.read(path)
    meta = json.loads(str(a["meta"]))
    meta["part"] = {**(part or {}), "source": _source_id(path),
                    "source_file": Path(path).name, "source_open_nodes": int(a["node_bound"].size),
                    "nodes": int(idx.size)}
    a["meta"] = np.array(json.dumps(meta))
    if "node_basis" in a:   # a node saved without a basis: its nearest relative's in the tree
        a["node_basis"] = nearest_bases(_rows(a, "tog"), _rows(a, "apart"), a["node_basis"],
                                        int(meta["n"]), only=idx).astype(a["node_basis"].dtype)
    a["node_bound"], a["node_depth"] = a["node_bound"][idx], a["node_depth"][idx]
    for name in ("tog", "apart"):
        rows = _rows(a, name)
        a[name], a[f"{name}_ptr"] = ragged([rows[i] for i in idx])
    for name in ("node_basis", "node_sizes_out"):      # absent from older checkpoints
        if name in a:
            a[name] = a[name][idx]
    return checkpoint.write(a, out)


def thin(path, out, keep: int) -> dict:
    """Write to ``out`` a copy of checkpoint ``path`` that keeps the bases of
    only the ``keep`` open nodes of least bound that have one (the bases no
    kept node holds are dropped); nodes, pool, cuts, fixing, incumbent and
    metadata unchanged, the metadata's ``thinned`` recording it.  Resuming
    it explores the same tree: a basis is only the LP's starting point.
    Returns the nodes with a basis and the distinct bases before and after."""
    from ..outputs import check_output_path

    if keep < 0:
        raise ParameterError(f"--keep-bases must be at least 0, got {keep}")
    check_output_path(out, inputs=[path], what="thinned checkpoint")
    checkpoint.load(path)          # a clear error for a file that is not one
    a = checkpoint.read(path)
    bases = unpack(a)
    held = a.get("node_basis", np.full(a["node_bound"].size, -1, dtype=np.int32))
    node_basis = held.astype(np.int64)
    order = np.argsort(a["node_bound"], kind="stable")
    node_basis[order[node_basis[order] >= 0][keep:]] = -1
    used = np.unique(node_basis[node_basis >= 0])
    renumber = np.full(len(bases), -1, dtype=np.int64)
    renumber[used] = np.arange(used.size)
    count = {"node_bases": [int(np.count_nonzero(held >= 0)),
                            int(np.count_nonzero(node_basis >= 0))],
             "bases": [len(bases), int(used.size)]}
    if bases:
        a.update(pack([bases[i] for i in used.tolist()]))
        a["node_basis"] = np.where(node_basis >= 0, renumber[node_basis], -1).astype(held.dtype)
    meta = json.loads(str(a["meta"]))
    meta["thinned"] = {"source_file": Path(path).name, "keep": int(keep), **count}
    a["meta"] = np.array(json.dumps(meta))
    checkpoint.write(a, out)
    return count


def _rows(a: dict, name: str) -> list:
    """The nodes' pairs of ragged array ``name`` (``tog`` or ``apart``)."""
    flat, ptr = a[name], a[f"{name}_ptr"]
    return [flat[ptr[i]:ptr[i + 1]] for i in range(ptr.size - 1)]


def part_paths(out, parts: int) -> list[Path]:
    """The files of ``parts`` parts: ``OUT-1of3.npz`` and so on (``OUT``
    without its ``.npz`` suffix, if any)."""
    stem = str(out)[:-4] if str(out).endswith(".npz") else str(out)
    return [Path(f"{stem}-{i}of{parts}.npz") for i in range(1, parts + 1)]


def split(path, parts: int, out, seed: int | None = None) -> list[Path]:
    """Write the open nodes of checkpoint ``path`` in ``parts`` parts
    (:func:`part_paths` of ``out``): dealt out in order of bound, so that
    each part gets nodes from the whole range, or at random with ``seed``.
    Nodes already cut off by the incumbent go nowhere.  Every output is
    checked before anything is written; returns the paths."""
    from ..outputs import check_output_path

    ckpt = checkpoint.load(path)
    if ckpt.meta.get("part") is not None:
        raise ParameterError(f"{str(path)!r} is already a part of a split tree; split the "
                             "checkpoint it came from")
    bounds = np.array([nd.bound for nd in ckpt.nodes], dtype=float)
    live = ckpt.live()
    if not 1 <= parts <= live.size:
        raise ParameterError(f"--split must be between 1 and the {live.size} open nodes, "
                             f"got {parts}")
    paths = part_paths(out, parts)
    for p in paths:
        check_output_path(p, inputs=[path], what="part")
    order = live[np.argsort(bounds[live], kind="stable")] if seed is None else \
        np.random.default_rng(seed).permutation(live)
    for i, p in enumerate(paths):
        subset(path, np.sort(order[i::parts]), p, {"index": i + 1, "of": parts, "seed": seed})
    return paths


def proof_row(path: str, ck, ub: float) -> dict:
    """One checkpoint's row of what several prove together: ``closed`` when
    none of its open nodes is below the cutoff of ``ub``, else their count
    and least bound, and its own incumbent."""
    live = [float(ck.nodes[i].bound) for i in ck.live(ub)]
    return {"path": path, "closed": not live, "open_nodes": len(live),
            "lower_bound": min(live, default=None),
            "incumbent_sse": float(ck.meta["incumbent_sse"])}


def combine(paths) -> dict:
    """What the parts' checkpoints (each the last one a part's run wrote, or
    the part itself while it has not run) prove together: they must be the
    parts 1..N of one split.  A part is closed when none of its open nodes
    is below the cutoff of the best incumbent of all the parts.  Returns
    ``proven`` (every part closed), the best incumbent and the part holding
    it, the certified bound of the problem (the best incumbent when proven,
    else the least bound of the open parts' nodes), its gap (%) and one row
    per part (index, closed, open nodes, bound, incumbent)."""
    loaded, source = [], None
    for path in paths:
        ck = checkpoint.load(path)
        part = ck.meta.get("part")
        if part is None or part.get("index") is None:
            raise DataError(f"{str(path)!r} is not a part of a split tree (mipagg tree --split)")
        key = (part["source"], part["of"], ck.meta["fingerprint"])
        if source is None:
            source = key
        elif key != source:
            raise DataError(f"{str(path)!r} is a part of another split than {str(paths[0])!r}")
        loaded.append((str(path), part["index"], ck))
    if source is None:
        raise ParameterError("--combine needs the parts' checkpoints")
    loaded.sort(key=lambda t: t[1])
    seen, of = [i for _, i, _ in loaded], source[1]
    if seen != list(range(1, of + 1)):
        missing = sorted(set(range(1, of + 1)) - set(seen))
        twice = sorted({i for i in seen if seen.count(i) > 1})
        raise DataError(f"the parts of a split in {of} are 1..{of}, each once; "
                        + (f"missing {missing}" if missing else f"given twice {twice}"))
    best_path, best_index, best = min(loaded, key=lambda t: t[2].meta["incumbent_sse"])
    ub = float(best.meta["incumbent_sse"])
    rows = [{"index": index, **proof_row(path, ck, ub)} for path, index, ck in loaded]
    proven = all(r["closed"] for r in rows)
    lb = min([r["lower_bound"] for r in rows if not r["closed"]] + [ub])
    return {"proven": proven, "parts": of, "source": source[0], "incumbent_sse": ub,
            "incumbent_part": best_index, "incumbent_path": best_path, "lower_bound": lb,
            "gap": gap(ub, lb), "rows": rows}
