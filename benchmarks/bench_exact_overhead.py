"""Per-node overhead of the exact core: ``bp`` with the tree only and ``cg``
on one Census subset, in one process (for old/new comparisons of refactors:
run it with ``PYTHONPATH`` set to each source tree, alternating).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_exact_overhead.py

Prints: bp-tree seconds, nodes, iterations, cg seconds, cg iterations.
``census-n50-norm-0`` at k = 3 needs 341 nodes with the tree alone
(``cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
dive_time=0``, one thread), so the Python work per node is paid 341 times;
``cg`` runs with ``rounding="every"`` (no clock-driven schedule).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.colgen import column_generation  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
TREE = dict(threads=1, cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
            dive_time=0)


def main() -> int:
    s = subset(read_csv(DATA / "census.csv"), 50, "norm", 0)
    branch_and_price(s.X, 3, node_limit=5, **TREE)      # warm-up (numba caches)
    t0 = time.perf_counter()
    r = branch_and_price(s.X, 3, **TREE)
    t1 = time.perf_counter()
    c = column_generation(s.X, 3, threads=1, close_gap=False, rounding="every")
    t2 = time.perf_counter()
    print(f"{t1 - t0:.3f} {r.nodes} {r.iterations} {t2 - t1:.3f} {c.iterations}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
