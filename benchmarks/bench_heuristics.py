"""Time every foundation heuristic on Census and on SimU (p = 10, k = 3).

    .venv/bin/python benchmarks/bench_heuristics.py [--quick] [--budget SECONDS]
    .venv/bin/python benchmarks/bench_heuristics.py --table5   # IL vs seed 004 Table 5

Prints a Markdown table (seconds, IL %).  A method is skipped at a size when
its time at the previous size, scaled by its complexity (n² for the MDAV
family and NPN, n³ for MD; seed 004 Lemmas 2-4), predicts more than
``--budget`` seconds; the table then says "skipped (est. …)".
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.generators import simu  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.methods import METHODS  # noqa: E402

METHODS_ = ["mdav", "vmdav", "cbfs", "md", "npn-mhm", "mdav-mhm", "cbfs-mhm", "md-mhm"]
EXPONENT = {"md": 3, "md-mhm": 3}
CENSUS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "census.csv"


# Seed 004 Table 5 (IL %, k = 3, 5, 10), as printed.
TABLE5 = {
    "tarragona": {"npn-mhm": ["17.3949", "27.0213", "40.1831"],
                  "md": ["16.9835", "22.5273", "33.1834"],
                  "md-mhm": ["16.9829", "22.5269", "33.1834"],
                  "mdav": ["16.9326", "22.4619", "33.1929"],
                  "mdav-mhm": ["16.9326", "22.4617", "33.1923"],
                  "cbfs": ["16.9741", "22.8277", "33.2188"],
                  "cbfs-mhm": ["16.9714", "22.8227", "33.2188"]},
    "census": {"npn-mhm": ["6.3498", "11.3443", "18.7335"],
               "md": ["5.71999", "9.00648", "14.3965"],
               "md-mhm": ["5.69724", "8.98594", "14.3965"],
               "mdav": ["5.6922", "9.0884", "14.2239"],
               "mdav-mhm": ["5.6523", "9.0870", "14.2239"],
               "cbfs": ["5.6800", "8.9055", "13.8963"],
               "cbfs-mhm": ["5.6734", "8.8942", "13.8925"]},
}


def table5() -> int:
    """Our IL next to seed 004 Table 5, rounded to the printed digits."""
    print("| data | method | k=3 ours / paper | k=5 ours / paper | k=10 ours / paper |")
    print("|---|---|---|---|---|")
    exact = total = 0
    for name, rows in TABLE5.items():
        path = CENSUS.with_name(f"{name}.csv")
        if not path.is_file():
            print(f"({path} not available)")
            continue
        X = read_csv(path).X
        for m, published in rows.items():
            cells = []
            for k, pub in zip((3, 5, 10), published):
                ours = f"{METHODS[m].load()(X, k).il():.{len(pub.split('.')[1])}f}"
                same = ours == pub
                exact, total = exact + same, total + 1
                cells.append(f"{'**' if same else ''}{ours}{'**' if same else ''} / {pub}")
            print(f"| {name} | {m} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{exact} of {total} entries reproduced to every printed digit (bold).")
    return 0


def timed(fn, X, k, repeats):
    best, part = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        part = fn(X, k)
        best = min(best, time.perf_counter() - t0)
    return best, part


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes up to 10 000 only")
    ap.add_argument("--budget", type=float, default=240.0, help="skip runs estimated longer")
    ap.add_argument("-k", type=int, default=3)
    ap.add_argument("--table5", action="store_true", help="compare IL with seed 004 Table 5")
    ap.add_argument("--methods", default=",".join(METHODS_), help="comma-separated subset")
    args = ap.parse_args(argv)
    if args.table5:
        return table5()
    k = args.k
    methods = args.methods.split(",")
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    data = []
    if CENSUS.is_file():
        data.append(("Census (1080×13)", read_csv(CENSUS).X))
    data += [(f"SimU n={n:,}", simu(n, 10, seed=1).X) for n in sizes]

    # warm up the compiled kernels (numba cache) outside the timings
    for m in methods:
        METHODS[m].load()(data[-1][1][:50], k)

    print(f"Machine: {machine()}\n")
    print(f"k = {k}; seconds are the best of 5 runs for n ≤ 1 080, 1 run above; IL in %.\n")
    print("| data | " + " | ".join(methods) + " |")
    print("|---|" + "---|" * len(methods))
    last: dict[str, tuple[int, float]] = {}
    for label, X in data:
        n = X.shape[0]
        cells = []
        for m in methods:
            if m in last:
                n0, t0 = last[m]
                est = t0 * (n / n0) ** EXPONENT.get(m, 2)
                if est > args.budget:
                    cells.append(f"skipped (est. {est:,.0f} s)")
                    continue
            t, part = timed(METHODS[m].load(), X, k, 5 if n <= 1080 else 1)
            last[m] = (n, t)
            cells.append(f"{t:.3f} s / {part.il():.4f}")
            print(f"  {label} {m}: {t:.3f} s", file=sys.stderr, flush=True)
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
