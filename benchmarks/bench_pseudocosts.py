"""Reliability branching's pseudocosts handed from worker to worker and kept
by checkpoints (issue 22): the same tree, the same node budget, one run.

    .venv/bin/python benchmarks/bench_pseudocosts.py --data tarragona --k 5 \\
        --resume docs/results/trees/tarragona_k5_15.npz --nodes 400 [--workers 2] \\
        [--rule reliability:4] [--arms share,alone,warm,cold] [--bp-option key=value ...]
        [--json out.jsonl] [--quick]

Four runs (``--arms``, in that order), each ``--nodes`` nodes past its
checkpoint, one after the other, after a small tree that compiles the
kernels (discarded):

* ``share``  from ``--resume``: the workers hand each other their probes
  (the default since 2026-11-29); writes a checkpoint with the table;
* ``alone``  from ``--resume``: each worker keeps its own probes only
  (``mipagg.exact.parallel.SHARE_PROBES`` off), as before 2026-11-29;
* ``warm``   from ``share``'s checkpoint, with its table;
* ``cold``   from the same checkpoint without its table (as a checkpoint
  written before 2026-11-29 resumes).

Printed per run: nodes, strong-branching LP re-solves ("probes", two per
probed pair) and candidates scored by pseudocosts, probes per node, the
workers' branching seconds, wall seconds, nodes per second and the rise of
the certified bound.  ``--quick``: a 40-record Census subset at k = 3, tree
only, 8 nodes per run (checks the script, measures nothing).
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

from _env import machine  # noqa: E402

from mipagg import __version__  # noqa: E402
from mipagg.exact import checkpoint, parallel  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.settings import BPSettings, parse_options  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared/data"
QUICK_TREE = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)


def strip_table(src: Path, dst: Path) -> None:
    """A copy of checkpoint ``src`` without its pseudocost table."""
    with np.load(src, allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files if not name.startswith("pc_")}
    with open(dst, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def run(name, X, k, start: Path, nodes: int, options: dict, share: bool, out=None) -> dict:
    ck = checkpoint.load(start)
    done, lb0 = int(ck.meta["counts"]["nodes"]), ck.lower_bound
    parallel.SHARE_PROBES = share
    t0 = time.perf_counter()
    try:
        r = branch_and_price(X, k, resume=str(start), node_limit=done + nodes,
                             checkpoint=None if out is None else str(out), **options)
    finally:
        parallel.SHARE_PROBES = True
    wall = time.perf_counter() - t0
    new = r.nodes - done
    return {"arm": name, "nodes": new, "probes": r.strong_evaluations,
            "predicted": r.strong_predicted, "probes_per_node": r.strong_evaluations / max(new, 1),
            "branching_s": r.seconds.get("branching", 0.0), "wall_s": wall,
            "nodes_per_s": new / wall if wall > 0 else 0.0, "bound_rise": r.lower_bound - lb0,
            "lower_bound": r.lower_bound, "status": r.status, "sse": r.sse}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="tarragona")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--resume", help="the checkpoint the share and alone runs start from")
    ap.add_argument("--nodes", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rule", default="reliability:4")
    ap.add_argument("--arms", default="share,alone,warm,cold")
    ap.add_argument("--bp-option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--json", help="append one JSON record per run to this file")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    if not (a.quick or a.resume):
        ap.error("--resume CHECKPOINT is needed (or --quick)")
    order = a.arms.split(",")
    if not set(order) <= {"share", "alone", "warm", "cold"} or len(set(order)) < len(order):
        ap.error(f"--arms: each of share, alone, warm, cold at most once, got {a.arms!r}")
    if {"warm", "cold"} & set(order) and ("share" not in order or min(
            order.index(x) for x in ("warm", "cold") if x in order) < order.index("share")):
        ap.error("--arms: warm and cold resume share's checkpoint, so share comes first")
    options = dict(workers=a.workers, branching=a.rule, threads=1) | parse_options(
        a.bp_option, BPSettings, flag="--bp-option",
        reserved=("workers", "branching", "resume", "checkpoint", "node_limit"))
    with tempfile.TemporaryDirectory(prefix="bench_pseudocosts_") as tmp:
        measure(a, options, Path(tmp))


def measure(a, options: dict, tmp: Path) -> None:
    """The four runs (module docstring) with their checkpoints in ``tmp``."""
    if a.quick:
        X, k, nodes = subset(read_csv(str(DATA / "census.csv")), 40, "random", 0).X, 3, 8
        options.update(QUICK_TREE)
        start = tmp / "start.npz"
        branch_and_price(X, k, node_limit=5, checkpoint=str(start), **options)
    else:
        X, k, nodes, start = read_csv(str(DATA / f"{a.data}.csv")).X, a.k, a.nodes, \
            Path(a.resume)
    warm_up = subset(read_csv(str(DATA / "census.csv")), 40, "random", 1).X
    branch_and_price(warm_up, 3, **dict(options, workers=1))
    print(f"<!-- {machine()}; mipagg {__version__}; options {options}; "
          f"{nodes} nodes per run from {start.name} -->")
    print("| run | nodes | probes | predicted | probes/node | branching s | wall s | nodes/s "
          "| bound rise |")
    print("|---|---|---|---|---|---|---|---|---|")
    shared, stripped = tmp / "share.npz", tmp / "share-cold.npz"
    arms = {"share": (start, True, shared), "alone": (start, False, None),
            "warm": (shared, True, None), "cold": (stripped, True, None)}
    for name in a.arms.split(","):
        first, share, out = arms[name]
        if name == "cold":
            strip_table(shared, stripped)
        r = run(name, X, k, first, nodes, options, share, out)
        print(f"| {r['arm']} | {r['nodes']} | {r['probes']} | {r['predicted']} | "
              f"{r['probes_per_node']:.2f} | {r['branching_s']:.1f} | {r['wall_s']:.1f} | "
              f"{r['nodes_per_s']:.2f} | {r['bound_rise']:.6f} |", flush=True)
        if a.json:
            with open(a.json, "a") as fh:
                fh.write(json.dumps({"version": __version__, "data": a.data, "k": k,
                                     "start": str(first), "options": options,
                                     "quick": a.quick, **r}) + "\n")


if __name__ == "__main__":
    main()
