"""Peak memory of each method against the estimate of mipagg.memory, and the
largest n each method accepts on a 24 GiB machine (docs/bench/memory.md).

Every (method, n) runs in its own interpreter, which reports its peak
resident memory (``resource.getrusage``: ``ru_maxrss`` of itself plus the
largest of its children, e.g. the LKH child process) after one
``microaggregate`` call on SimU data (mipagg.generators, p = 10, k = 5).
Long methods get a ``time_limit``: the dense matrices are built at the
start, so the peak is reached anyway.

    PYTHONPATH=. python benchmarks/bench_memory.py            # the table
    PYTHONPATH=. python benchmarks/bench_memory.py --quick    # 2 sizes, fewer methods
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
P, K = 10, 5

CASES = [  # (label, method, options, sizes)
    ("mdav", "mdav", {}, (2000, 8000)),
    ("mdav-lk-mhm", "mdav-lk-mhm", {"time_limit": 10.0}, (2000, 8000)),
    ("tsp-mhm (lk)", "tsp-mhm", {"tour": "lk", "time_limit": 10.0}, (2000, 8000)),
    ("tsp-mhm (lkh)", "tsp-mhm", {"tour": "lkh", "time_limit": 5.0}, (1000, 2500)),
    ("compress (c=2, lkh)", "compress", {"c": 2, "time_limit": 5.0}, (2000, 5000)),
    ("mf-tsp", "mf-tsp", {}, (1000, 1500)),
    ("cg", "cg", {"time_limit": 40.0}, (1000, 3000)),
    ("bp", "bp", {"time_limit": 40.0}, (1000, 3000)),
]

CHILD = """
import json, resource, sys
from mipagg.api import microaggregate
from mipagg.generators import simu
method, n, p, k, options = json.loads(sys.argv[1])
inst = simu(n, p, seed=1)
microaggregate(inst, k, method, seed=0, **options)
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print(json.dumps([own, kids]))
"""


def measure(method: str, n: int, options: dict) -> tuple[int, int]:
    env = {**os.environ, "PYTHONPATH": ROOT, "MIPAGG_MEMORY_LIMIT": "1T"}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([method, n, P, K, options])],
                         capture_output=True, text=True, env=env, check=True)
    own, kids = json.loads(out.stdout.strip().splitlines()[-1])
    return own, kids


def main(argv=None) -> int:
    from mipagg.memory import estimate_bytes, max_records

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="first size only, three methods")
    args = ap.parse_args(argv)
    cases = CASES[:1] + CASES[3:4] + CASES[6:7] if args.quick else CASES
    mib = 2**20
    print("| method | n | peak MiB (process + largest child) | estimate MiB | estimate / peak |")
    print("|---|---:|---:|---:|---:|")
    for label, method, options, sizes in cases:
        for n in sizes[:1] if args.quick else sizes:
            own, kids = measure(method, n, options)
            peak = own + kids
            est = estimate_bytes(method, n, P, K, options)
            print(f"| {label} | {n:,} | {own / mib:.0f} + {kids / mib:.0f} = {peak / mib:.0f} | "
                  f"{est / mib:.0f} | {est / peak:.2f} |", flush=True)
    print()
    limit = 24 * 2**30
    print(f"| method | largest n accepted on 24 GiB (p = {P}, k = {K}) |")
    print("|---|---:|")
    for label, method, options, _ in CASES:
        fit = max_records(method, P, K, options, limit)
        print(f"| {label} | {'any (O(n·p))' if fit is None else f'{fit:,}'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
