"""MIP solver choice for the exact tour: optimal Hamiltonian paths (the
``tsp-mhm --tour exact`` path, seed 002 §4: dummy node + exact tour) with the
MIP phase on HiGHS (direct highspy path, the default) and on CBC (through
Pyomo), same instances, same run.  The LP phase (subtour cuts, edge pricing)
is HiGHS in both.

    .venv/bin/python benchmarks/bench_tour_solvers.py [--blocks 0,100,200] [--size 100]
        [--solvers highs,cbc] [--time-limit 600]

Instances: consecutive blocks of ``--size`` Census records (all 13 columns,
standardized within the block).  Printed per (block, solver): path length,
proven, seconds, number of MIP solves.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", default="0,100,200")
    ap.add_argument("--size", type=int, default=100)
    ap.add_argument("--solvers", default="highs,cbc")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" /
                                          "data" / "census.csv"))
    args = ap.parse_args()

    from mipagg.instance import read_csv
    from mipagg.tsp import distance_matrix
    from mipagg.tsp.exact import dummy_matrix, exact_matrix_tour

    print(f"# {machine()}")
    census = read_csv(args.data)
    print("block,solver,length,proven,seconds,mip_solves")
    for start in map(int, args.blocks.split(",")):
        stop = start + args.size
        D = dummy_matrix(distance_matrix(census.subset(range(start, stop)).X))
        for solver in args.solvers.split(","):
            t0 = time.perf_counter()
            r = exact_matrix_tour(D, time_limit=args.time_limit, seed=0, solver=solver)
            print(f"{start}-{stop - 1},{solver},{r.length:.10f},{r.proven_optimal},"
                  f"{time.perf_counter() - t0:.2f},{r.mip_solves}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
