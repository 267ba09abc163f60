"""First-call compilation: the seconds a method takes on a fresh install.

    python benchmarks/bench_compile.py [--quick] [--trees DIR,DIR] [--methods mdav,md]
                                       [--repeats R]

mipagg's kernels are compiled by numba on first use and cached in
``__pycache__``; a fresh install (and every CI run) pays the compilation once.
For each tree (a source checkout: the current one by default, or several to
compare, e.g. a ``git worktree`` of the baseline) and each method, a new
process with an empty ``NUMBA_CACHE_DIR`` runs
``microaggregate(inst, k=3, method)`` twice on a 500-record file and prints
the first call (compilation included) and the second (cached in memory).
Trees are alternated method by method, so a change in the machine's load
touches them alike.  ``--quick``: MDAV only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _env import machine  # noqa: E402

HERE = Path(__file__).resolve().parent.parent
METHODS = ["mdav", "md", "cbfs", "vmdav", "mdav-mhm", "tsp-mhm"]

CHILD = """
import json, sys, time
from mipagg.api import microaggregate
from mipagg.generators import simu
inst = simu(500, 5, seed=1)
t = time.perf_counter(); microaggregate(inst, 3, sys.argv[1])
first = time.perf_counter() - t
t = time.perf_counter(); microaggregate(inst, 3, sys.argv[1])
print(json.dumps({"first": first, "second": time.perf_counter() - t}))
"""


def first_call(tree: Path, method: str) -> dict:
    """Seconds of the first and second call of ``method`` in a new process
    importing mipagg from ``tree`` with an empty numba cache."""
    with tempfile.TemporaryDirectory(prefix="mipagg-compile-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(tree))
        out = subprocess.run([sys.executable, "-c", CHILD, method], env=env, check=True,
                             capture_output=True, text=True, cwd=cache)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--trees", default=str(HERE), help="comma-separated source checkouts")
    ap.add_argument("--methods", default=None, help=f"default: {','.join(METHODS)}")
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args(argv)
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    methods = args.methods.split(",") if args.methods else (["mdav"] if args.quick else METHODS)
    print(machine())
    print("| method | tree | first call s | second call s |")
    print("|---|---|---:|---:|")
    for method in methods:
        for _ in range(args.repeats):
            for tree in trees:
                r = first_call(tree, method)
                print(f"| {method} | {tree.name} | {r['first']:.1f} | {r['second']:.3f} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
