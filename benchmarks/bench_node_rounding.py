"""Rounding at tree nodes: SimpleRoundingHeuristic's greedy scan compiled
against the Python scan, and the Rounder's polish memo against polishing
every offer (issue 22, docs/bench/casc_gap.md §85).

Resumes a sample of a checkpoint's open subtrees (as ``bench_subtrees.py``
draws them) on one process for ``--nodes`` nodes with the options the
checkpoint was written with, timing the Rounder's calls and capturing every
simple rounding's inputs and every polish's input; then replays them: each
simple rounding with the compiled scan and with the reference scan (the same
partition both times), and the sequence of polish inputs through a fresh
memo and with a polish for each::

    python benchmarks/bench_node_rounding.py \\
        --resume census:4:docs/results/trees/census_k4_sizes_5.npz --sample 150 --seed 5 --nodes 150
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_subtrees import resumed, sample_arguments  # noqa: E402

from mipagg.exact import colgen, rounding  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402


def watch(roundings: list, polishes: list, seconds: dict):
    """Capture simple roundings' inputs and polish inputs, time the Rounder's
    calls and node closings' offers; returns the undo."""
    call, polished, simple = colgen.Rounder.__call__, colgen.Rounder.polished, \
        colgen.simple_rounding

    def call_(self, master, sol):
        t = time.perf_counter()
        out = call(self, master, sol)
        seconds["rounder"] += time.perf_counter() - t
        return out

    def polished_(self, p):
        t = time.perf_counter()
        polishes.append((self, p))
        out = polished(self, p)
        seconds["polish"] += time.perf_counter() - t
        return out

    def simple_(X, columns, x, k, *, weights=None):
        roundings.append((X, list(columns), np.array(x), k, np.array(weights)))
        return simple(X, columns, x, k, weights=weights)

    colgen.Rounder.__call__, colgen.Rounder.polished = call_, polished_
    colgen.simple_rounding = simple_

    def undo():
        colgen.Rounder.__call__, colgen.Rounder.polished = call, polished
        colgen.simple_rounding = simple
    return undo


def replay_roundings(roundings: list) -> tuple[float, float]:
    """Seconds of the simple roundings with the compiled scan and with the
    reference scan; raises SystemExit when a partition differs."""
    compiled = rounding._take_disjoint
    t_fast = t_ref = 0.0
    for X, columns, x, k, weights in roundings:
        t = time.perf_counter()
        a = rounding.simple_rounding(X, columns, x, k, weights=weights)
        t_fast += time.perf_counter() - t
        rounding._take_disjoint = rounding._take_disjoint_reference
        try:
            t = time.perf_counter()
            b = rounding.simple_rounding(X, columns, x, k, weights=weights)
            t_ref += time.perf_counter() - t
        finally:
            rounding._take_disjoint = compiled
        if not np.array_equal(a.labels, b.labels):
            raise SystemExit("the compiled scan rounded to another partition")
    return t_fast, t_ref


def replay_polishes(polishes: list) -> tuple[float, float, int]:
    """Seconds of the polish inputs through a fresh memo and polished one by
    one, and the memo's hits."""
    if not polishes:
        return 0.0, 0.0, 0
    rounder = polishes[0][0]
    fresh = colgen.Rounder(rounder.X, rounder.D, rounder.k, rounder.best)
    fresh.polish = rounder.polish
    t = time.perf_counter()
    for _, p in polishes:
        fresh.polished(p)
    t_memo = time.perf_counter() - t
    t = time.perf_counter()
    for r, p in polishes:
        r.polish(p)
    return t_memo, time.perf_counter() - t, fresh.polish_hits


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sample_arguments(ap, "census:4:docs/results/trees/census_k4_sizes_5.npz", 150, 5)
    ap.add_argument("--nodes", type=int, default=150, help="nodes to solve")
    ap.add_argument("--quick", action="store_true", help="5 nodes drawn, 5 solved")
    a = ap.parse_args(argv)
    if a.quick:
        a.sample, a.nodes = 5, 5
    k, X, part, ckpt, options = resumed(a, "bench_node_rounding")
    resumed_nodes = ckpt.meta["counts"]["nodes"]
    roundings: list = []
    polishes: list = []
    seconds = {"rounder": 0.0, "polish": 0.0}
    undo = watch(roundings, polishes, seconds)
    try:
        r = branch_and_price(X, k, resume=part, node_limit=resumed_nodes + a.nodes, **options)
    finally:
        undo()
    s = r.summary()
    print(f"{s['nodes'] - resumed_nodes} nodes, tree {s['time_tree']:.1f} s: rounder calls "
          f"{seconds['rounder']:.2f} s, polishes {seconds['polish']:.2f} s "
          f"({len(polishes)} offers polished)", flush=True)
    t_fast, t_ref = replay_roundings(roundings)
    print(f"{len(roundings)} simple roundings replayed (the same partitions): compiled scan "
          f"{t_fast:.3f} s, reference scan {t_ref:.3f} s, ×{t_ref / max(t_fast, 1e-9):.1f}")
    t_memo, t_each, hits = replay_polishes(polishes)
    print(f"{len(polishes)} polish inputs replayed: through the memo {t_memo:.3f} s "
          f"({hits} remembered), one polish each {t_each:.3f} s, "
          f"×{t_each / max(t_memo, 1e-9):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
