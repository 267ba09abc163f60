"""Branch-and-price (``bp``) against ``cg`` + gap closing on the same instances
in the same run, with an ablation of its parts; and ``bp`` on the full files.

    .venv/bin/python benchmarks/bench_bp.py [--quick] [--time-limit S] [--sizes 50,100,200]
        [--criteria random,norm] [--indices 0] [--configs bp,bp-nonode]
        [--instances census-n100-random-4:5,...]
    .venv/bin/python benchmarks/bench_bp.py --full [--ks 3,5] [--time-limit 3600]

Instances: :func:`mipagg.subsets.subset` of Census and Tarragona (criteria
"random" and "norm", subset 0, seed 0, unless ``--criteria``/``--indices``
say otherwise, or the ``--instances`` named), k = 3, 4, 5 (``--quick``: n = 50,
k = 3).  Configurations, each with one pricing thread:

* ``bp``          defaults (cuts, root and node gap closing, pool MIP, tree);
* ``bp-nonode``   without gap closing at tree nodes;
* ``bp-close30``, ``bp-close60``  root gap closing limited to 30 s / 60 s (the default
  is min(limit/4, 30 s) since ``ROOT_CLOSE_SECONDS``; it was limit/4);
* ``bp-plain``    the gap-closing MIP without HiGHS presolve and cut rows (issue 22:
  the default before ``close_gap_mip``; the default is both from 100 records);
* ``bp-nocuts``   without subset-row cuts;
* ``bp-tree``     tree only (no cuts, no gap closing, no pool MIP);
* ``bp-nofix``, ``bp-tree-nofix``  without reduced-cost fixing (issue 22);
* ``bp-fractional``, ``bp-strong``, ``bp-strong4``, ``bp-reliability``, ``bp-reliability4``
  (and ``bp-tree-…``): the branching rules "fractional" (the default before 2026-11-29),
  "strong", "strong:4", "reliability" and "reliability:4" (the default since);
* ``bp-index``, ``bp-tree-index`` ties among the most fractional pairs by index (rule
  "fractional_index", the default before 2026-11-28) instead of by distance;
* ``cg+close``    column generation to the LP bound, then gap closing.

Printed per run: proven (status optimal), seconds, nodes, root LP bound, root
bound after cuts, share of the root gap the cuts close, final gap.  ``--full``
runs ``bp`` (default threads) on the whole Census and Tarragona files and
prints the certified gap reached and when.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.colgen import column_generation  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)


def _bp(**options):
    """A configuration: ``branch_and_price`` with these options, one pricing thread."""
    return lambda X, k, tl: branch_and_price(X, k, time_limit=tl, threads=1, **options)


CONFIGS = {
    "bp": _bp(),
    "bp-nonode": _bp(node_close_max_columns=0),
    "bp-close30": _bp(close_gap_time=30.0),
    "bp-close60": _bp(close_gap_time=60.0),
    # issue 22: the gap-closing MIP without presolve and cut rows (the default before)
    "bp-plain": _bp(close_gap_mip="plain"),
    "bp-nocuts": _bp(cuts=False),
    "bp-tree": _bp(**TREE_ONLY),
    # issue 22: reduced-cost fixing off, branching rules (docs/bench/bp_tree.md)
    "bp-nofix": _bp(fixing=False),
    "bp-tree-nofix": _bp(fixing=False, **TREE_ONLY),
    "bp-index": _bp(branching="fractional_index"),
    "bp-tree-index": _bp(branching="fractional_index", **TREE_ONLY),
    "cg+close": lambda X, k, tl: column_generation(X, k, time_limit=tl, threads=1,
                                                   close_gap=True),
}
for _rule in ("fractional", "strong", "strong:4", "reliability", "reliability:4"):
    CONFIGS[f"bp-{_rule.replace(':', '')}"] = _bp(branching=_rule)
    CONFIGS[f"bp-tree-{_rule.replace(':', '')}"] = _bp(branching=_rule, **TREE_ONLY)

def _fmt(x, d=4):
    return "–" if x is None else f"{x:.{d}f}"


def row(name, inst, k, cfg, r, seconds):
    proven = r.status == "optimal"
    nodes = getattr(r, "nodes", "–")
    lp = getattr(r, "root_lp_bound", getattr(r, "lp_bound", None))
    cut = getattr(r, "root_cut_bound", None)
    share = getattr(r, "cut_gap_closed", None)
    return (f"| {name} | {inst.n} | {k} | {cfg} | {'yes' if proven else r.status} | "
            f"{seconds:.2f} | {nodes} | {_fmt(lp)} | {_fmt(cut)} | "
            f"{_fmt(None if share is None else 100 * share, 1)} | {_fmt(r.gap, 3)} |")


def _cells(data, sizes, ks, criteria, indices, named):
    """(instance, k) pairs: the product of the options, or the ``named`` ones
    ("census-n100-random-4:5", as in the bp_optimality store)."""
    if named:
        for item in named:
            name, k = item.rsplit(":", 1)
            m = re.fullmatch(r"(census|tarragona)-n(\d+)-(\w+)-(\d+)", name)
            if m is None:
                raise SystemExit(f"bench_bp: bad instance {item!r}; e.g. census-n100-random-4:5")
            yield subset(data[m[1]], int(m[2]), m[3], int(m[4])), int(k)
        return
    for size in sizes:
        for name in ("census", "tarragona"):
            for crit, index in ((c, i) for c in criteria for i in indices):
                inst = subset(data[name], size, crit, index)
                for k in ks:
                    yield inst, k


def subsets_bench(data, sizes, ks, configs, time_limit, criteria=("random", "norm"),
                  indices=(0,), named=()):
    print("| instance | n | k | config | proven | s | nodes | root LP | root+cuts | "
          "cuts close % | gap % |")
    print("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|")
    totals = {c: [0.0, 0] for c in configs}
    for inst, k in _cells(data, sizes, ks, criteria, indices, named):
        for cfg in configs:
            t0 = time.perf_counter()
            r = CONFIGS[cfg](inst.X, k, time_limit)
            dt = time.perf_counter() - t0
            totals[cfg][0] += dt
            totals[cfg][1] += r.status == "optimal"
            print(row(inst.name, inst, k, cfg, r, dt), flush=True)
    print()
    for cfg, (t, proven) in totals.items():
        print(f"{cfg}: {proven} proven, {t:.1f} s in total")


def full_bench(data, ks, time_limit):
    print("| file | k | status | s | nodes | open | LB | UB | gap % | IL best | IL bound | "
          "root LP | root+cuts | cuts |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in ("census", "tarragona"):
        inst = data[name]
        sst = float(((inst.X - inst.X.mean(axis=0)) ** 2).sum())
        for k in ks:
            t0 = time.perf_counter()
            r = branch_and_price(inst.X, k, time_limit=time_limit, verbose=True)
            dt = time.perf_counter() - t0
            il = 100 * r.sse / sst
            ilb = None if r.lower_bound is None else 100 * r.lower_bound / sst
            print(f"| {name} | {k} | {r.status} | {dt:.0f} | {r.nodes} | {r.open_nodes} | "
                  f"{_fmt(r.lower_bound, 3)} | {r.sse:.3f} | {_fmt(r.gap, 3)} | {il:.4f} | "
                  f"{_fmt(ilb)} | {_fmt(r.root_lp_bound, 3)} | {_fmt(r.root_cut_bound, 3)} | "
                  f"{r.cuts} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--sizes", default="50,100,200")
    ap.add_argument("--ks", default=None)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--criteria", default="random,norm", help="subset criteria")
    ap.add_argument("--indices", default="0", help="subset indices per criterion")
    ap.add_argument("--instances", default="",
                    help="instead of the product above: NAME:K,... (e.g. census-n100-random-4:5)")
    args = ap.parse_args(argv)
    data = {n: read_csv(DATA / f"{n}.csv") for n in ("census", "tarragona")}
    print(f"machine: {machine()}")
    print(f"command: python benchmarks/bench_bp.py {' '.join(sys.argv[1:])}\n")
    if args.full:
        ks = [int(v) for v in (args.ks or "3,5").split(",")]
        full_bench(data, ks, args.time_limit or 3600.0)
        return 0
    sizes = [50] if args.quick else [int(v) for v in args.sizes.split(",")]
    ks = [3] if args.quick else [int(v) for v in (args.ks or "3,4,5").split(",")]
    configs = args.configs.split(",")
    subsets_bench(data, sizes, ks, configs, args.time_limit or (60.0 if args.quick else 600.0),
                  args.criteria.split(","), [int(v) for v in args.indices.split(",")],
                  [v for v in args.instances.split(",") if v])
    return 0


if __name__ == "__main__":
    sys.exit(main())
