"""MIP solver choice: ``bp`` with its integer masters on HiGHS (direct highspy
path, the default) and on CBC (through Pyomo), same instances, same run; and
``cg --pricing ilp`` (the ILP pricing of seed 001 model (14)) on both.

    .venv/bin/python benchmarks/bench_solvers.py [--blocks 0,60,120] [--ks 3,5]
        [--solvers highs,cbc] [--time-limit 600] [--ilp-size 30]

Instances: consecutive 60-record blocks of Census (records start..start+59,
all 13 columns, standardized within the block).  Printed per (block, k,
solver): status, SSE, lower bound, seconds, and the number and seconds of the
integer master MIPs (gap closing, pool MIP), the part the solver choice
changes; the LP relaxations stay on HiGHS.  Then ``cg`` with ILP pricing on
the first ``--ilp-size`` records of each block (the pricing MIPs are the
solver's; 0 skips this part).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402


class _Timer:
    """Counts and times the integer-master MIPs of one run."""

    def __init__(self):
        import mipagg.exact.bproot as bproot
        import mipagg.exact.master as master

        self.calls, self.seconds = 0, 0.0
        self._orig = master.set_partitioning_mip
        self._mods = (master, bproot)

        def timed(*a, **kw):
            t0 = time.perf_counter()
            try:
                return self._orig(*a, **kw)
            finally:
                self.calls += 1
                self.seconds += time.perf_counter() - t0

        for mod in self._mods:
            mod.set_partitioning_mip = timed

    def close(self):
        for mod in self._mods:
            mod.set_partitioning_mip = self._orig


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", default="0,60,120")
    ap.add_argument("--ks", default="3,5")
    ap.add_argument("--solvers", default="highs,cbc")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--ilp-size", type=int, default=30)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" /
                                          "data" / "census.csv"))
    args = ap.parse_args()

    import mipagg
    from mipagg.instance import read_csv

    print(f"# {machine()}")
    census = read_csv(args.data)
    solvers = args.solvers.split(",")
    print("block,k,solver,status,sse,lower_bound,seconds,mip_calls,mip_seconds")
    for start in map(int, args.blocks.split(",")):
        X = census.subset(range(start, start + 60)).X
        for k in map(int, args.ks.split(",")):
            for solver in solvers:
                timer = _Timer()
                t0 = time.perf_counter()
                try:
                    r = mipagg.microaggregate(X, k, "bp", time_limit=args.time_limit,
                                              solver=solver, threads=1)
                finally:
                    timer.close()
                secs = time.perf_counter() - t0
                print(f"{start}-{start + 59},{k},{solver},{r.raw.status},"
                      f"{r.partition.sse():.10f},{r.raw.lower_bound:.10f},{secs:.2f},"
                      f"{timer.calls},{timer.seconds:.2f}", flush=True)
    if args.ilp_size <= 0:
        return 0
    print("ilp_block,k,solver,status,sse,lower_bound,seconds")
    for start in map(int, args.blocks.split(",")):
        X = census.subset(range(start, start + args.ilp_size)).X
        for k in map(int, args.ks.split(",")):
            for solver in solvers:
                t0 = time.perf_counter()
                r = mipagg.microaggregate(X, k, "cg", pricing="ilp", solver=solver,
                                          time_limit=args.time_limit)
                secs = time.perf_counter() - t0
                print(f"{start}-{start + args.ilp_size - 1},{k},{solver},{r.raw.status},"
                      f"{r.partition.sse():.10f},{r.raw.lower_bound:.10f},{secs:.2f}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
