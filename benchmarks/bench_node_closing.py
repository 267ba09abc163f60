"""Where a node gap closing's time goes (issue 22, docs/bench/casc_gap.md §25).

Resumes a tree checkpoint of ``bp`` (:mod:`mipagg.exact.checkpoint`) for a few
more nodes with the full node closing tried at every node whose gap is at most
``--node-close-gap`` × the incumbent (``node_close_gap``), on one process, and
prints one JSON line per closing: the node's gap, the enumeration's outcome,
clusters and seconds, and the set-partitioning MIP's status, seconds and bound.
The other options are those the checkpoint was written with::

    python benchmarks/bench_node_closing.py ../shared/data/tarragona.csv 5 \\
        docs/results/trees/tarragona_k5_9b.npz --nodes 4 --node-close-time 300
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mipagg import __version__  # noqa: E402
from mipagg.exact import checkpoint, gapclosing  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

# options of the checkpoint's run that do not carry over to this probe
DROPPED = ("time_limit", "node_limit", "checkpoint", "checkpoint_every", "resume", "workers",
           "scheduler", "node_close_time", "node_close_gap")


def traced(records: list):
    """Wrap the enumeration and the MIP of :mod:`mipagg.exact.gapclosing` so
    that each closing appends its parts to ``records``."""
    enumerate_, solve = gapclosing.gap_columns, gapclosing._solve_master

    def gap_columns(D, k, duals, threshold, *args, **kw):
        t = time.perf_counter()
        outcome, columns, weights = enumerate_(D, k, duals, threshold, *args, **kw)
        records.append({"threshold": float(threshold), "enumeration": outcome,
                        "clusters": None if columns is None else len(columns),
                        "enumeration_seconds": round(time.perf_counter() - t, 2)})
        return outcome, columns, weights

    def solve_master(*args):
        t = time.perf_counter()
        status, part, bound = solve(*args)
        records[-1].update(mip=status, mip_seconds=round(time.perf_counter() - t, 2),
                           mip_bound=bound)
        return status, part, bound

    gapclosing.gap_columns, gapclosing._solve_master = gap_columns, solve_master


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("k", type=int)
    ap.add_argument("checkpoint")
    ap.add_argument("--nodes", type=int, default=4, help="nodes to solve after the resumed ones")
    ap.add_argument("--node-close-gap", type=float, default=1e-5)
    ap.add_argument("--node-close-time", type=float, default=120.0)
    args = ap.parse_args(argv)
    X = read_csv(args.data).X
    ckpt = checkpoint.load(args.checkpoint)
    meta = ckpt.meta
    options = {o: v for o, v in checkpoint.summary(ckpt)["options"].items() if o not in DROPPED}
    records: list = []
    traced(records)
    t0 = time.perf_counter()
    r = branch_and_price(X, args.k, resume=args.checkpoint,
                         node_limit=meta["counts"]["nodes"] + args.nodes,
                         node_close_gap=args.node_close_gap,
                         node_close_time=args.node_close_time, **options)
    for rec in records:
        print(json.dumps(rec))
    keys = ("nodes", "lower_bound", "node_closings", "nodes_enumerated",
            "node_closings_timed_out", "node_closings_too_large")
    print(json.dumps({"version": __version__, "checkpoint": args.checkpoint,
                      "options": {**options, "node_close_gap": args.node_close_gap,
                                  "node_close_time": args.node_close_time},
                      **{k: r.summary()[k] for k in keys}, "incumbent": r.sse,
                      "seconds": round(time.perf_counter() - t0, 1)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
