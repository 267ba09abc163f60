"""Time optimal univariate microaggregation (HM) and MHM on a given order.

    .venv/bin/python benchmarks/bench_univariate.py [--quick]

* HM (``mipagg.univariate.optimal_univariate``) on 10⁶ lognormal values side by
  side with the ``microagg1d`` package in the same run (its exact methods
  "wilber" and "staggered", and its default "auto"), with the SSE each finds.
* MHM (``mipagg.univariate.mhm``) on a given random order of 10⁵ records with
  p = 10 (target: under 1 s).
Prints Markdown tables; every time is the best of 3 runs after a warm-up.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.partition import Partition  # noqa: E402
from mipagg.univariate import mhm, optimal_univariate  # noqa: E402


def best_of(fn, repeats=3):
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10⁵ values / 10⁴ records")
    ap.add_argument("-k", type=int, default=3)
    args = ap.parse_args(argv)
    k = args.k
    n1 = 100_000 if args.quick else 1_000_000
    nm = 10_000 if args.quick else 100_000
    print(f"Machine: {machine()}\n")

    x = np.random.default_rng(0).lognormal(size=n1)
    optimal_univariate(x[:100], k)  # warm-up (numba cache)
    rows = [("mipagg optimal_univariate", *best_of(lambda: optimal_univariate(x, k)))]
    base = rows[0][1]
    try:
        import microagg1d

        for method in ("wilber", "staggered", "auto"):
            microagg1d.univariate_microaggregation(x[:100].copy(), k, method=method)
            t, lab = best_of(lambda: microagg1d.univariate_microaggregation(x.copy(), k,
                                                                            method=method))
            rows.append((f"microagg1d ({method})", t, Partition(np.asarray(lab), x)))
    except ImportError:
        print("(microagg1d not installed: no comparison)\n")
    print(f"Univariate HM, n = {n1:,} lognormal values, k = {k}\n")
    print("| implementation | seconds | time / mipagg | SSE |")
    print("|---|---|---|---|")
    for name, t, part in rows:
        print(f"| {name} | {t:.3f} | {t / base:.2f} | {part.sse():.10g} |")

    X = np.random.default_rng(1).uniform(-1, 1, size=(nm, 10))
    order = np.random.default_rng(2).permutation(nm)
    mhm(X[:100], order[order < 100], k)
    t, part = best_of(lambda: mhm(X, order, k))
    print(f"\nMHM on a given (random) order, n = {nm:,}, p = 10, k = {k}: {t:.3f} s "
          f"(SSE {part.sse():.6g}, {part.n_groups} groups)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
