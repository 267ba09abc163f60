"""Root gap closing's MIP with and without HiGHS presolve and the master's
rank-1 cuts as rows (issue 22), same run, same enumerated clusters.

    python benchmarks/bench_gap_closing_cuts.py [--data census] [--k 5]
        [--starts 600] [--size 300] [--mip-time 600] [--max-columns 1000000]
        [--neighbourhood-time 120] [--configs off,off+cuts,on,on+cuts] [--quick]

On each block of ``--size`` consecutive records, bp's root (column
generation, cut rounds, pair fixing), its dive and the exact neighbourhood
phase give duals, a certified bound LB and an incumbent UB.  Every cluster
below UB − LB at those duals is enumerated once
(:func:`mipagg.exact.gapclosing.gap_columns`, cut penalties and fixed pairs
included), then the set-partitioning MIP over them and the incumbent's
groups is solved once per configuration with ``--mip-time`` each: HiGHS
presolve ``off`` or ``on``, ``+cuts`` with the root master's cuts as rows
(:func:`mipagg.exact.master.set_partitioning_mip`, ``presolve=``, ``cuts=``).
One JSON line per block with every outcome, its certified bound
min(MIP dual bound, UB), HiGHS's node count and seconds.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mipagg  # noqa: E402
from mipagg.exact.bp import BranchAndPrice, cut_constraints  # noqa: E402
from mipagg.exact.gapclosing import gap_columns  # noqa: E402
from mipagg.exact.master import set_partitioning_mip  # noqa: E402
from mipagg.exact.settings import BPSettings  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def root_and_incumbent(X, k, neighbourhood_time):
    """bp's root phases, dive and neighbourhood phase, no tree."""
    bp = BranchAndPrice(X, k, BPSettings(time_limit=3600.0,
                                         neighbourhood_time=neighbourhood_time))
    bp.root_column_generation()
    bp.cut_rounds()
    bp.fix_pairs()
    bp.dive_phase()
    if bp.neighbourhood_phase():
        bp.cut_rounds()
        bp.fix_pairs()
    return bp


def enumerate_gap(bp, max_columns):
    """Every cluster below UB − LB at the root's certified duals, with the
    incumbent's groups first, and their weights (bp's root closing columns,
    :func:`mipagg.exact.gapclosing.gap_columns`); (None, None) when more
    than ``max_columns``."""
    stop = bp.root.stop
    cons = cut_constraints(bp.master, bp.n, stop.cut_duals, apart=bp.root_fixed())
    _, columns, weights = gap_columns(
        bp.D, bp.k, stop.duals, bp.rounder.best_sse - stop.bound + bp.tol_abs, bp.rounder.best,
        max_columns, None, constraints=cons, ctx=bp.ctx)
    return columns, weights


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="census")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--starts", default="600")
    ap.add_argument("--size", type=int, default=300)
    ap.add_argument("--mip-time", type=float, default=600.0)
    ap.add_argument("--max-columns", type=int, default=1_000_000)
    ap.add_argument("--neighbourhood-time", type=float, default=120.0)
    ap.add_argument("--configs", default="off,off+cuts,on,on+cuts")
    ap.add_argument("--quick", action="store_true",
                    help="a 60-record block at k = 4, 20-s MIPs (checks the script)")
    args = ap.parse_args(argv)
    if args.quick:
        args.size, args.k, args.mip_time, args.starts = 60, 4, 20.0, "0"
    inst = read_csv(DATA / f"{args.data}.csv")
    head = {"version": mipagg.__version__, "machine": platform.processor() or platform.machine(),
            "python": platform.python_version(), "args": vars(args)}
    print(json.dumps(head), flush=True)
    for start in (int(s) for s in args.starts.split(",")):
        block = inst.subset(list(range(start, min(start + args.size, inst.n))))
        t0 = time.perf_counter()
        bp = root_and_incumbent(block.X, args.k, args.neighbourhood_time)
        ub, lb = bp.rounder.best_sse, bp.root.stop.bound
        row = {"start": start, "n": bp.n, "k": args.k, "ub": ub, "lb_cuts": lb,
               "root_lp_bound": bp.root_lp_bound, "cuts": len(bp.master.cuts),
               "root_seconds": time.perf_counter() - t0}
        t1 = time.perf_counter()
        columns, weights = enumerate_gap(bp, args.max_columns)
        row["enumeration_seconds"] = time.perf_counter() - t1
        row["clusters"] = None if columns is None else len(columns)
        if columns is not None:
            start_cols = np.arange(bp.rounder.best.n_groups)
            for name in args.configs.split(","):
                presolve, _, cuts = name.partition("+")
                info: dict = {}
                status, value, _ = set_partitioning_mip(
                    bp.n, columns, weights, time_limit=args.mip_time, start=start_cols,
                    info=info, cuts=bp.master.cuts if cuts else (), presolve=presolve)
                bound = value if status == "optimal" else min(info["dual_bound"], ub)
                row[name] = {"status": status, "value": value, "certified_bound": bound,
                             "gap_percent": 100 * (min(ub, value or ub) - bound) / ub,
                             "nodes": info.get("nodes"), "seconds": info["seconds"]}
                print(json.dumps({"start": start, name: row[name]}, default=float),
                      flush=True)
        print(json.dumps(row, default=float), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
