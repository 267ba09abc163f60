"""MDAV (or MD) on SimU with two checkouts of mipagg, alternated, same run.

    .venv/bin/python benchmarks/bench_index_ab.py --before ../main --after . \\
        [--n 100000] [--method mdav|md] [--rounds 2] [--threads 1|2]

Each run is a fresh subprocess (in a temporary directory, so that the current
one is not on its path) with ``PYTHONPATH`` on one checkout: it warms
the kernels up on 60 rows, then times the method on SimU (uniform in
[−10⁴, 10⁴]^10, seed n, standardized; k = 3) and saves the labels; the table
gives CPU seconds (``time.process_time``) and wall seconds per run, the
CPU ratio of the best runs (wall with ``--threads 2``: MDAV on two threads),
whether the labels are identical, and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
import numpy as np
from mipagg.generators import simu
from mipagg.heuristics.fixed import md_groups
from mipagg.heuristics.mdav import mdav_groups
n, method, out, threads = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
opts = {} if threads == "auto" else {"threads": int(threads)}
fn = (lambda X, k: mdav_groups(X, k, **opts)) if method == "mdav" else md_groups
X = np.ascontiguousarray(simu(n, 10, seed=n).X)
fn(X[:60], 3)
c, w = time.process_time(), time.perf_counter()
groups = fn(X, 3)
cpu, wall = time.process_time() - c, time.perf_counter() - w
labels = np.empty(n, dtype=np.int64)
for g, rows in enumerate(groups):
    labels[rows] = g
np.save(out, labels)
print(json.dumps({"cpu": cpu, "wall": wall}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--method", choices=["mdav", "md"], default="mdav")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", choices=["1", "2", "auto"], default="auto",
                    help="MDAV's threads (auto: its own choice)")
    args = ap.parse_args()
    print(f"command: python {' '.join(sys.argv)}")
    print("| round | code | CPU s | wall s | load |")
    print("|---|---|---|---|---|")
    best: dict[str, float] = {}
    key = "wall" if args.threads == "2" else "cpu"
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for name, path in (("after", args.after), ("before", args.before)):
                out = os.path.join(tmp, f"{name}.npy")
                env = dict(os.environ, PYTHONPATH=str(path.resolve()))
                res = json.loads(subprocess.run(
                    [sys.executable, "-c", CHILD, str(args.n), args.method, out, args.threads], env=env, cwd=tmp,
                    capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
                best[name] = min(best.get(name, float("inf")), res[key])
                load = os.getloadavg()[0]
                print(f"| {r + 1} | {name} | {res['cpu']:.2f} | {res['wall']:.2f} | {load:.1f} |",
                      flush=True)
        import numpy as np

        same = np.array_equal(np.load(os.path.join(tmp, "after.npy")),
                              np.load(os.path.join(tmp, "before.npy")))
    print(f"\nbest {key}: before {best['before']:.2f} s, after {best['after']:.2f} s, "
          f"ratio {best['before'] / best['after']:.2f}x; identical labels: {same}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
