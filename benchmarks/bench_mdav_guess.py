"""How often the two-thread MDAV guesses the next step's r right.

    .venv/bin/python benchmarks/bench_mdav_guess.py [N ...]

For each N: SimU (N × 10, seed N, k = 3, as ``bench_large.py``), the MDAV
steps of ``mipagg.heuristics._twocore.mdav_pairs`` in one call (after a warm-up
on 60 rows); prints the confirmed and missed guesses of r
(``group_of_s_and_next``) and the wall seconds of the steps.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine

from mipagg.generators import simu
from mipagg.heuristics import _index as ix, _twocore as tc


def steps(X: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    T, C, alive, out, st = ix.start(X)
    sizes = np.empty(X.shape[0] // k + 1, dtype=np.int64)
    hits = np.zeros(2, dtype=np.int64)
    t = time.perf_counter()
    tc.mdav_pairs(X, k, T, C, alive, out, sizes, st, X.shape[0], hits)
    return hits, time.perf_counter() - t


def main() -> int:
    print(machine())
    print(f"command: python {' '.join(sys.argv)}")
    print("| n | confirmed | missed | right | wall s |")
    print("|---|---:|---:|---:|---:|")
    for n in [int(a) for a in sys.argv[1:]] or [300_000]:
        X = np.ascontiguousarray(simu(n, 10, seed=n).X)
        steps(X[:60].copy(), 3)
        hits, wall = steps(X, 3)
        print(f"| {n} | {hits[0]} | {hits[1]} | {hits[0] / max(1, hits.sum()):.3f} | {wall:.2f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
