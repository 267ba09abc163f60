"""Time to close a random sample of a checkpoint's open subtrees (issue 22,
docs/bench/casc_gap.md §50): a measurable stand-in for the time to proof of
a tree too large to finish in an A/B run.

    .venv/bin/python benchmarks/bench_subtrees.py \
        --resume tarragona:5:docs/results/trees/tarragona_k5_root.npz --sample 20 --seed 1 \
        --time-limit 3600 --bp-option node_close_time=30 [--among with-basis] [--drop sizes|bases] \
        [--json out.jsonl] [--quick]

The sample is ``--sample`` open nodes of the checkpoint drawn at random with
``--seed`` (nodes already cut off by the incumbent are not drawn).  It is
written to a temporary copy of the checkpoint that holds only those nodes
(pool, cuts, fixing, incumbent and bases unchanged) and resumed on one
process with bp's options (``--bp-option``), all of them in one run (``mipagg
tree --sample`` runs them one at a time, for an estimate with its error).  When that run ends
``part_closed``, the sampled subtrees are closed: no partition in them is below
the incumbent.  It proves nothing about the rest of the tree, which is why
this is a benchmark and not an option of ``bp``.  The mean time per
sampled node times the open nodes estimates the time to proof on one
process, without the spread of subtree sizes, which is wide.

Printed: the sample's summed gap to the cutoff, then at the end of the
run (closed or stopped by ``--time-limit``) its status, wall seconds,
nodes, node gap closings (tried, closed, timed out, seconds), the sizes
excluded (size fixing), the nodes started from their parent's basis (and of
those, the ones whose basis HiGHS still held: a plunge's child), the cuts
added at nodes (``node_cut_rounds``), and the open nodes and summed gap left
(from the run's last checkpoint).  Run two arms
side by side, one core each, to compare options in the same run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine, option  # noqa: E402
from bench_node_closing import traced  # noqa: E402
from bench_reopt_lp import carried_options  # noqa: E402

from mipagg import __version__  # noqa: E402
from mipagg.exact import bases, checkpoint, treeparts, treesample  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402


def sample(path: str, count: int, seed: int, out: Path, among: str = "all") -> np.ndarray:
    """Write to ``out`` a copy of checkpoint ``path`` holding ``count`` of its
    open nodes below the incumbent's cutoff, drawn with ``seed``
    (:mod:`mipagg.exact.treesample`; ``among`` "with-basis" or
    "without-basis": among those the checkpoint keeps a basis for, or not);
    returns their indices.  A node without a basis starts from its nearest
    relative's (:func:`mipagg.exact.treeparts.subset`)."""
    idx = treesample.draw(checkpoint.load(path), count, seed, among)
    treeparts.subset(path, idx, out, {"sampled": idx.tolist(), "seed": seed})
    return idx


def sample_arguments(ap, resume: str, sample_: int, seed: int) -> None:
    """``--resume``, ``--data-dir``, ``--sample``, ``--seed`` and
    ``--bp-option`` (a change to the checkpoint's options) with these
    defaults, as the benchmarks that run a checkpoint's sample take them."""
    ap.add_argument("--resume", default=resume, help="name:k:checkpoint (name a file of --data-dir)")
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared/data"))
    ap.add_argument("--sample", type=int, default=sample_)
    ap.add_argument("--seed", type=int, default=seed)
    ap.add_argument("--bp-option", action="append", default=[], type=option,
                    help="key=value, changes one of the checkpoint's bp options (repeatable)")


def resumed(a, prefix: str, start: str | None = None) -> tuple:
    """(k, X, the checkpoint to resume, it loaded, its options with
    ``a.bp_option`` applied) for :func:`sample_arguments`' parsed ``a``: a
    sample of ``a.sample`` open nodes drawn with ``a.seed`` written to a
    temporary file named after ``prefix``; given ``start`` (what the run
    does instead, e.g. a tree from the root with the checkpoint's options),
    the checkpoint itself.  Prints the machine and what runs."""
    name, k, source = a.resume.split(":", 2)
    X = read_csv(str(Path(a.data_dir) / f"{name}.csv")).X
    print(f"<!-- {machine()}; mipagg {__version__} -->")
    path = source
    if start is None:
        part = Path(tempfile.mkdtemp(prefix=f"{prefix}-")) / "sample.npz"
        sample(path, a.sample, a.seed, part)
        path, start = str(part), f"{a.sample} open nodes drawn with seed {a.seed}"
    ckpt = checkpoint.load(path)
    options = carried_options(ckpt, a.bp_option)
    print(f"{name} k={k}, {Path(source).name}: {start}; options {options}", flush=True)
    return int(k), X, path, ckpt, options


def drop(path: Path, what: list[str]) -> dict[str, int]:
    """Remove from the sampled nodes what the run that wrote the checkpoint
    gave them: ``sizes``, the sizes size fixing excluded (an arm without size
    fixing from a tree made with it); ``bases``, their parent's master basis
    (the nodes then start from whichever node the master solved last).
    Returns how many sampled nodes had each."""
    with np.load(path, allow_pickle=False) as z:
        a = {name: z[name] for name in z.files}
    had = {}
    if "sizes" in what:
        had["sizes"] = int(np.count_nonzero(a.pop("node_sizes_out", np.zeros(0, str)) != "0"))
    if "bases" in what:
        had["bases"] = int(np.count_nonzero(a.get("node_basis", np.zeros(0)) >= 0))
        for name in bases.ARRAYS:
            a.pop(name, None)
    np.savez_compressed(path, **a)
    return had


def left(path: Path) -> tuple[int, float]:
    """Open nodes and their summed gap to the cutoff in checkpoint ``path``."""
    s = checkpoint.summary(checkpoint.load(path))
    return s["open_nodes"], s["open_gap"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resume", default="tarragona:5:docs/results/trees/tarragona_k5_root.npz",
                    help="name:k:checkpoint (name a file of --data-dir)")
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared/data"))
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=3600.0)
    ap.add_argument("--bp-option", action="append", default=[], type=option,
                    help="key=value, a bp option (repeatable)")
    ap.add_argument("--among", choices=("all", "with-basis", "without-basis"), default="all",
                    help="draw among the open nodes the checkpoint keeps a basis for, or not")
    ap.add_argument("--drop", action="append", choices=("sizes", "bases"), default=[],
                    help="the sampled nodes lose the sizes size fixing excluded, or their "
                    "parent's basis, in the run that wrote the checkpoint (repeatable)")
    ap.add_argument("--trace", action="store_true",
                    help="record each node closing's gap, clusters and seconds in the JSON")
    ap.add_argument("--json", help="append one JSON record to this file")
    ap.add_argument("--quick", action="store_true", help="2 nodes, 60 s")
    a = ap.parse_args(argv)
    if a.quick:
        a.sample, a.time_limit = 2, 60.0
    name, k, path = a.resume.split(":", 2)
    X = read_csv(str(Path(a.data_dir) / f"{name}.csv")).X
    options = {"threads": 1, "time_limit": a.time_limit, **dict(a.bp_option)}   # may override
    print(f"<!-- {machine()} -->")
    tmp = Path(tempfile.mkdtemp(prefix="bench_subtrees-"))
    part, end = tmp / "sample.npz", tmp / "end.npz"
    idx = sample(path, a.sample, a.seed, part, a.among)
    dropped = drop(part, a.drop) if a.drop else {}
    _, gap0 = left(part)
    meta = checkpoint.load(part).meta
    before = meta["closer"]                              # the tree's closings so far
    before_sizes = meta["counts"].get("node_fixed_sizes", 0)
    before_cuts = meta["counts"].get("node_cuts", 0)
    print(f"{name} k={k}, {Path(path).name}: {a.sample} open nodes drawn with seed {a.seed}, "
          f"summed gap to the cutoff {gap0:.4f}; options {options}"
          + "".join(f"; {w} dropped from {c} of them" for w, c in dropped.items()), flush=True)
    closings: list = []
    if a.trace:
        traced(closings)
    t0 = time.perf_counter()
    r = branch_and_price(X, int(k), resume=str(part), checkpoint=str(end),
                         checkpoint_every=max(a.time_limit, 60.0), **options)
    wall = time.perf_counter() - t0
    n_left, gap_left = left(end) if end.exists() else (0, 0.0)
    closed = r.status == "part_closed"
    row = {"version": __version__, "checkpoint": path, "k": int(k), "sample": a.sample,
           "seed": a.seed, "nodes_drawn": idx.tolist(), "options": options,
           "among": a.among, "dropped": dropped,
           "sample_gap": gap0, "closed": closed, "status": str(r.status), "wall": wall,
           "tree_seconds": r.seconds.get("tree", 0.0),
           "nodes": r.nodes - r.resumed_nodes, "node_closings": r.node_closings - before["tried"],
           "nodes_enumerated": r.nodes_enumerated - before["succeeded"],
           "node_closings_timed_out": r.node_closings_timed_out - before.get("timed_out", 0),
           "node_closings_skipped": r.node_closings_skipped - before.get("skipped", 0),
           "time_node_close": r.seconds.get("node_close", 0.0),
           "node_fixed_sizes": r.node_fixed_sizes - before_sizes, "warm_starts": r.warm_starts,
           "bases_kept": r.bases_kept, "node_cuts": r.node_cuts - before_cuts,
           "open_left": n_left, "gap_left": gap_left, "sse": r.sse}
    if a.trace:
        row["closings"] = closings
    print(f"{'closed' if closed else 'not closed'} ({r.status}) in {wall:.0f} s "
          f"({row['tree_seconds']:.0f} s in the tree): "
          f"{row['nodes']} nodes; node closings {row['node_closings']} tried, "
          f"{row['nodes_enumerated']} closed a node, {row['node_closings_timed_out']} timed out, "
          f"{row['node_closings_skipped']} turned down (node_close_cost), "
          f"{row['time_node_close']:.0f} s; {row['node_fixed_sizes']} sizes excluded, "
          f"{r.warm_starts} nodes started warm ({r.bases_kept} on the basis HiGHS held); "
          f"{row['node_cuts']} cuts added at nodes; left {n_left} open nodes, summed gap "
          f"{gap_left:.4f} of {gap0:.4f}")
    if a.json:
        with open(a.json, "a") as fh:
            fh.write(json.dumps(row, default=float) + "\n")


if __name__ == "__main__":
    main()
