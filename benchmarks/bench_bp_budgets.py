"""bp without a time limit: what counting work instead of seconds costs (issue 20).

    PYTHONPATH=<tree> .venv/bin/python benchmarks/bench_bp_budgets.py [--quick]

Run it with ``PYTHONPATH`` set to the code before the change and after it,
alternating (the old code gave the dive 120 s, the pool MIP 60 s and the
bound-completing pricing sweeps a quarter of each node's time; the new code
runs the dive to its end, gives the pool MIP ``MIP_NODES`` nodes and lets
every sweep complete).  One line per instance: wall and CPU seconds (one
thread, so CPU seconds are the work, whatever else runs on the machine),
status, SSE, bound, nodes, dive steps and the seconds of the dive and the
pool MIP.  Census subsets of seed 001's kind and lognormal files (``--quick``:
the first two); a node limit keeps the larger ones finite (it counts work, so
both trees do the same kind of run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def instances(quick: bool):
    census = read_csv(DATA / "census.csv")
    cases = [("census-n100-random-0", subset(census, 100, "random", 0).X, 3, None),
             ("lognormal-200-s0", lognormal(200, 10, seed=0).X, 3, 30),
             ("census-n200-random-0", subset(census, 200, "random", 0).X, 5, 20),
             ("lognormal-300-s1", lognormal(300, 10, seed=1).X, 5, 20),
             ("lognormal-500-s2", lognormal(500, 10, seed=2).X, 3, 10)]
    return cases[:2] if quick else cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    print(f"machine: {machine()}")
    branch_and_price(lognormal(30, 3, seed=0).X, 3, threads=1)   # warm-up (numba caches)
    print("| instance | k | node limit | s | CPU s | status | SSE | bound | nodes | dive steps "
          "| dive s | mip s |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for name, X, k, node_limit in instances(args.quick):
        t0, c0 = time.perf_counter(), time.process_time()
        r = branch_and_price(X, k, threads=1, node_limit=node_limit)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        print(f"| {name} | {k} | {node_limit or '–'} | {dt:.1f} | {dc:.1f} | {r.status} | "
              f"{r.sse:.4f} | "
              f"{r.lower_bound:.4f} | {r.nodes} | {r.dive_steps} | {r.seconds['dive']:.1f} | "
              f"{r.seconds['mip']:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
