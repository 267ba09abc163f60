"""Exact neighbourhood search against the heuristic merge-and-resplit search

    python benchmarks/bench_neighbourhood.py [--quick] [--ks 3,5,10] [--time-limit 60]
        [--groups 8] [--starts heuristic,best]

Both searches start from the same partition and get the same time limit, in
the same run: :func:`mipagg.improve.merge_split_search` (merges nearest groups,
re-cuts them heuristically) and
:func:`mipagg.exact.neighbourhood.exact_neighbourhood_search` (POPMUSIC: a
group and its ``groups − 1`` nearest re-partitioned optimally by ``bp`` with
one pricing thread).  Starts: ``heuristic`` = MDAV-MHM + local search;
``best`` = the best-known label file of ``instances/solutions/`` (the CASC
table, docs/results/casc.md).  Needs ``../shared/data``.  Figures in
docs/bench/neighbourhood.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from _env import machine
from mipagg.exact.neighbourhood import exact_neighbourhood_search
from mipagg.heuristics.paths import mdav_mhm
from mipagg.improve import local_search, merge_split_search
from mipagg.instance import read_csv
from mipagg.partition import Partition
from mipagg.verify import read_labels

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


def _start(name, X, k, how):
    if how == "heuristic":
        return local_search(X, mdav_mhm(X, k), k)
    return Partition(read_labels(ROOT / "instances" / "solutions" / f"{name}_k{k}.csv"), X)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="Census k = 3, 10 s")
    ap.add_argument("--ks", default="3,5,10")
    ap.add_argument("--files", default="census,tarragona")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--groups", type=int, default=8)
    ap.add_argument("--starts", default="heuristic,best")
    args = ap.parse_args(argv)
    files = ["census"] if args.quick else args.files.split(",")
    ks = [3] if args.quick else [int(v) for v in args.ks.split(",")]
    starts = ["heuristic"] if args.quick else args.starts.split(",")
    limit = 10.0 if args.quick else args.time_limit
    print(f"machine: {machine()}")
    print(f"command: python benchmarks/bench_neighbourhood.py {' '.join(sys.argv[1:])}")
    print(f"time limit {limit:g} s per search, groups = {args.groups}, seed 0\n")
    print("| file | k | start | start IL | merge-split IL | exact IL | exact s | solved | "
          "improved | converged |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for name in files:
        X = read_csv(DATA / f"{name}.csv").X
        sst = float(((X - X.mean(axis=0)) ** 2).sum())
        for k in ks:
            for how in starts:
                P = _start(name, X, k, how)
                ms = merge_split_search(X, P, k, seed=0, time_limit=limit).partition
                t0 = time.perf_counter()
                ex = exact_neighbourhood_search(X, P, k, groups=args.groups, seed=0,
                                                time_limit=limit)
                dt = time.perf_counter() - t0
                il = [100 * q.sse() / sst for q in (P, ms, ex.partition)]
                print(f"| {name} | {k} | {how} | {il[0]:.4f} | {il[1]:.4f} | {il[2]:.4f} | "
                      f"{dt:.0f} | {ex.solved} | {ex.improved} | "
                      f"{'yes' if ex.converged else 'no'} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
