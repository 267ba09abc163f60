"""Same-run wall-clock comparison of one benchmark command on two source trees.

    .venv/bin/python benchmarks/compare_trees.py --old /work/main --new . --repeats 5 \
        -- benchmarks/bench_bp.py --quick

Runs the command (a script path relative to each tree, then its arguments)
with ``PYTHONPATH`` set to the old tree and to the new tree, interleaved
(old, new, new, old, ...), after one discarded warm-up run per tree (numba
caches), and prints the wall seconds of every run, the medians and the ratio
new/old of the medians, with the load average before and after; also the CPU
seconds (user + system) of every run, which other processes on the machine
disturb far less than wall time.  Used for
the "no slower" check of refactors (docs/bench/refactor_exact.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(tree: Path, command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``command`` on ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    script = str(tree / command[0])
    t0, c0 = time.perf_counter(), _cpu()
    subprocess.run([sys.executable, script, *command[1:]], env=env, cwd="/tmp", check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, _cpu() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=".")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    command = [c for c in args.command if c != "--"]
    trees = {"old": Path(args.old).resolve(), "new": Path(args.new).resolve()}
    print(f"command: {' '.join(command)}; load before: {os.getloadavg()}")
    for name, tree in trees.items():
        _run(tree, command)           # warm-up (numba caches), discarded
    times: dict = {"old": [], "new": []}
    cpu: dict = {"old": [], "new": []}
    for r in range(args.repeats):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name in order:
            wall, used = _run(trees[name], command)
            times[name].append(wall)
            cpu[name].append(used)
            print(f"  repeat {r} {name}: {wall:.2f} s wall, {used:.2f} s CPU", flush=True)
    for label, runs in (("wall", times), ("CPU", cpu)):
        med = {name: statistics.median(v) for name, v in runs.items()}
        print(f"{label}: median old {med['old']:.2f} s, new {med['new']:.2f} s, "
              f"ratio new/old {med['new'] / med['old']:.3f}")
    print(f"load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
