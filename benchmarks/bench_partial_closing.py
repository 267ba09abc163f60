"""Partial root gap closing (``bp close_gap_partial``) against the full
closing alone, same instances, same run: the root's certified bound and
status when the clusters below UB − LB do not fit.

    .venv/bin/python benchmarks/bench_partial_closing.py [--subsets 40:4:0,60:5:0,100:5:1]
        [--census ../shared/data/census.csv] [--cap 200000] [--partial 0,2000]
        [--cut-rounds 0] [--close-time 60] [--bare] [--time-limit 1800] [--initial LABELS]
        [--tree --node-cap 50] [--cg]

Each instance (``n:k:index``, a random ``n``-record subset of ``--census``
by :func:`mipagg.subsets.subset`; ``n`` = the file's size takes the whole
file) is solved at the root only (``node_limit`` 1, no node closing) with
bp's root heuristics under ``--time-limit`` (``--bare``: no dive, no pool
MIP, no neighbourhood search, so the incumbent stays the initial one), with
``--cut-rounds`` cut rounds, gap closing at most ``--cap`` clusters within
``--close-time`` seconds, once per ``--partial`` value (``close_gap_partial``
clusters; 0: no partial closing).  ``--initial``: the whole file's runs
start from that partition.  Printed: the closing's outcome, the
root LP bound, the cut bound, the certified bound, the incumbent, the gap
and the wall time.

``--tree``: partial closing at tree nodes instead (``node_close_partial``):
the whole tree, root gap closing off, full node closings capped at
``--node-cap`` clusters, once per ``--partial`` value; printed besides: the
nodes, the partial node closings and those that found a better incumbent.

``--cg``: ``column_generation``'s ``close_gap_partial`` instead of bp's
(its root: no cuts, its own rounding; gap closing at most ``--cap``
clusters within ``--time-limit``; ``--cut-rounds``, ``--close-time`` and
``--bare`` do not apply).
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

from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.colgen import column_generation  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subsets", default="40:4:0,60:5:0,100:5:1")
    ap.add_argument("--census", default=str(Path(__file__).resolve().parents[2]
                                            / "shared/data/census.csv"))
    ap.add_argument("--cap", type=int, default=200_000)
    ap.add_argument("--partial", default="0,2000",
                    help="close_gap_partial values, one run each (0: off)")
    ap.add_argument("--initial", help="a label file (header 'group') for the whole-file "
                                      "instance: bp's initial partition")
    ap.add_argument("--cut-rounds", type=int, default=0)
    ap.add_argument("--close-time", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bare", action="store_true")
    ap.add_argument("--tree", action="store_true",
                    help="partial closing at the tree's nodes (module docstring)")
    ap.add_argument("--node-cap", type=int, default=50)
    ap.add_argument("--cg", action="store_true", help="cg's partial closing (module docstring)")
    ap.add_argument("--time-limit", type=float, default=1800.0)
    a = ap.parse_args(argv)
    if a.cg and a.tree:
        ap.error("--cg has no tree: give --cg or --tree, not both")
    data = read_csv(a.census)
    options = dict(node_limit=1, cuts=a.cut_rounds > 0, max_cut_rounds=a.cut_rounds,
                   node_close_max_columns=0, close_gap_max_columns=a.cap,
                   close_gap_time=a.close_time, threads=a.threads, time_limit=a.time_limit)
    if a.tree:
        options.update(node_limit=None, close_gap=False, node_close_max_columns=a.node_cap)
    if a.bare:
        options.update(mip_time=0, dive_time=0, neighbourhood_time=0)
    if a.cg:
        options = dict(close_gap_max_columns=a.cap, threads=a.threads, time_limit=a.time_limit)
    print(f"<!-- {machine()} -->")
    print(f"<!-- options {options} -->")
    print("| instance | k | partial clusters | closing | LP bound | cut bound | certified bound | "
          "incumbent | gap % | s |" + (" nodes | partial / better |" if a.tree else ""))
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if a.tree else ""))
    for spec in filter(None, a.subsets.split(",")):
        n, k, index = (int(v) for v in spec.split(":"))
        X = data.X if n >= data.n else subset(data, n, "random", index).X
        name = "census" if n >= data.n else f"census-{n}-random-{index}"
        initial = None
        if a.initial and n >= data.n:
            initial = np.loadtxt(a.initial, skiprows=1, dtype=np.int64)
        for partial in (int(v) for v in a.partial.split(",")):
            t0 = time.perf_counter()
            which = "node_close_partial" if a.tree else "close_gap_partial"
            if a.cg:
                r = column_generation(X, k, initial=initial, **{which: partial}, **options)
                lp, cut = r.lp_bound, "–"
            else:
                r = branch_and_price(X, k, initial=initial, **{which: partial}, **options)
                lp, cut = r.root_lp_bound, f"{r.root_cut_bound:.4f}"
            wall = time.perf_counter() - t0
            tree = (f" {r.nodes} | {r.node_partial_closings} / {r.node_closing_incumbents} |"
                    if a.tree else "")
            print(f"| {name} | {k} | {partial or 'off'} | {r.gap_closing} "
                  f"| {lp:.4f} | {cut} | {r.lower_bound:.4f} "
                  f"| {r.sse:.4f} | {r.gap:.3f} | {wall:.1f} |{tree}", flush=True)


if __name__ == "__main__":
    main()
