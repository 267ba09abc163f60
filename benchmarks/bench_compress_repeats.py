"""Time `compress` (Cc-C-MHM) with repeats on Census: the MDAV c-partition is
shared by all repeats of one call.

    .venv/bin/python benchmarks/bench_compress_repeats.py
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mipagg.instance import read_csv  # noqa: E402
from mipagg.tsp_micro import compress  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "census.csv"

if __name__ == "__main__":
    X = read_csv(DATA).X
    compress(X, 3, c=2, tour="nn", seed=0)  # compile
    print("| c | inner | seconds (10 repeats, nn tour, k = 3) | best IL |\n|---|---|---|---|")
    for c in (2, 3):
        for inner in ("centroid", "chain"):
            t = time.perf_counter()
            r = compress(X, 3, c=c, tour="nn", seed=0, repeats=10, inner=inner)
            print(f"| {c} | {inner} | {time.perf_counter() - t:.2f} | {r.partition.il():.4f} |")
