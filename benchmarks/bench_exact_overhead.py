"""Per-node overhead of the exact core: ``bp`` with the tree only and ``cg``
on one Census subset, in one process (for old/new comparisons of refactors:
run it with ``PYTHONPATH`` set to each source tree, alternating).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_exact_overhead.py [--repeats N] [--no-fixing]
        [--variant NAME:KEY=VALUE,KEY=VALUE ...]

Prints per repeat: bp-tree seconds, nodes, iterations, cg seconds, cg
iterations, then the bp-tree CPU seconds (``time.process_time``, one thread:
the work, whatever else runs on the machine).  ``--no-fixing`` passes
``fixing=False`` (reduced-cost pair fixing, issue 22, changes the tree's path;
trees older than it have no such option).  ``--variant`` (repeatable) runs
bp once per variant in each repeat, in turn, with those bp options (read as
``--bp-option`` values are), for a same-run comparison of options, and
prints the variant's name first (``cg`` is left out then).
``census-n50-norm-0`` at k = 3 needs 341 nodes with the tree alone
(``cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
dive_time=0, count_row=False``, one thread), so the Python work per node is
paid 341 times (9 nodes with bp's count row, ``--variant on:count_row=True``);
``cg`` runs with ``rounding="every"`` (no clock-driven schedule).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.colgen import column_generation  # noqa: E402
from mipagg.exact.settings import BPSettings, parse_options  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
# without the count row (50 = 3·16 + 2), which closes this tree in 9 nodes (casc_gap §75)
TREE = dict(threads=1, cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
            dive_time=0, count_row=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--no-fixing", action="store_true")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME:KEY=VALUE,KEY=VALUE (bp options of one arm)")
    args = ap.parse_args(argv)
    tree = dict(TREE, fixing=False) if args.no_fixing else TREE
    variants = {"": {}}
    if args.variant:
        variants = {}
        for v in args.variant:
            name, _, items = v.partition(":")
            variants[name] = parse_options([i for i in items.split(",") if i], BPSettings,
                                           flag="--variant")
    s = subset(read_csv(DATA / "census.csv"), 50, "norm", 0)
    branch_and_price(s.X, 3, node_limit=5, **tree)      # warm-up (numba caches)
    for _ in range(args.repeats):
        for name, options in variants.items():
            t0, c0 = time.perf_counter(), time.process_time()
            r = branch_and_price(s.X, 3, **(tree | options))
            t1, c1 = time.perf_counter(), time.process_time()
            line = f"{t1 - t0:.3f} {r.nodes} {r.iterations}"
            if args.variant:
                print(f"{name} {line} cpu {c1 - c0:.3f}", flush=True)
        if not args.variant:
            t1 = time.perf_counter()
            c = column_generation(s.X, 3, threads=1, close_gap=False, rounding="every")
            t2 = time.perf_counter()
            print(f"{line} {t2 - t1:.3f} {c.iterations} cpu {c1 - c0:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
