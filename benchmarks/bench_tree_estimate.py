"""How well the ``bp`` tree's size estimates predict trees that finish
(:mod:`mipagg.exact.treestats`; issue 22, docs/bench/casc_gap.md §29, §36).

    .venv/bin/python benchmarks/bench_tree_estimate.py [--sizes 100,110] [--seeds 1,2,3,4,5]
        [--k 3] [--quick] [--json out.json]
    .venv/bin/python benchmarks/bench_tree_estimate.py --series \
        docs/results/trees/tarragona_k5_progress.csv --ub 2181.4904092 [--every 60]

Instances: :func:`mipagg.generators.lognormal` (p = 6 columns), k = 3, solved
by the tree alone (cuts, gap closing, pool MIP, dive, neighbourhood search and
pair fixing off; most-fractional branching; one thread): trees of tens to
hundreds of nodes, a few seconds each.  After every node
the run records the tree-weight estimate (total nodes), the bound trend's
(nodes done + nodes to the cutoff at the bound's recent pace) and the open
gap's (nodes done + nodes until the open nodes' summed gap to the cutoff
reaches zero at its recent pace; bench only), all three floored at nodes
done + open.  For each finished tree of N nodes, at 10, 25, 50, 75 and 90 %
of N, each estimate is divided by N: 1 is exact; "–" means no estimate yet.
Printed: per tree and fraction the three ratios, then per fraction the
geometric mean of the ratios and how many of them are within a factor of 2.

``--series`` replays a tree that has not finished: a CSV of (nodes,
lower_bound, weight_estimate[, open]) rows from its progress lines, in node order
(``docs/results/trees/tarragona_k5_progress.csv``: the Tarragona k = 5 runs
from checkpoint ``_8`` on, the bound rebuilt from the printed gap, within
about 2e-6; the checkpoint column names the run that wrote each row).  Every
``--every``-th row prints both estimates (the trend's fed with the rows so
far, cutoff ``ub`` × (1 − 1e-6); both floored at nodes + open as bp does
since 2026-11-29, :mod:`mipagg.exact.treestats`); an estimate below the last
row's node count is *refuted*: the tree passed it unfinished.  The last line
counts the refuted rows.  A series whose last row has no open node at the
incumbent's bound is a finished tree of N nodes: each estimate is printed
with its ratio to N, and the ratios at 10, 25, 50, 75 and 90 % of N close it.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

import mipagg  # noqa: E402
from mipagg.exact.bp import BranchAndPrice  # noqa: E402
from mipagg.exact.settings import BPSettings  # noqa: E402
from mipagg.exact.treestats import BoundTrend, open_gap, tree_estimate  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402

FRACTIONS = (0.1, 0.25, 0.5, 0.75, 0.9)
ESTIMATES = ("weight", "trend", "open gap")
TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
                 dive_time=0, neighbourhood_time=0, fixing=False, threads=1,
                 branching="fractional")


class _Recorder(BranchAndPrice):
    """The tree with (nodes, weight estimate, trend estimate, open-gap
    estimate) after every node in ``record``.  The open-gap estimate
    projects the open nodes' summed gap to the cutoff (``open_gap``) to zero
    at its pace over the last half of the nodes (a :class:`BoundTrend` fed
    with its negation), floored like the others at the open nodes."""

    record: list
    gap_trend: BoundTrend

    def observe_bound(self) -> None:
        super().observe_bound()
        live, cutoff = self.open_below_cutoff(), self.cutoff()
        weight = None if live is None else tree_estimate(self.nodes, [nd.depth for nd in live])
        n_open = len(live or ())
        by_bound = self.trend.nodes_to(cutoff, n_open)
        if live is not None:
            self.gap_trend.observe(self.nodes, -open_gap(cutoff, [nd.bound for nd in live]))
        by_gap = self.gap_trend.nodes_to(0.0, n_open)
        self.record.append((self.nodes, weight) + tuple(
            None if e is None else self.nodes + e for e in (by_bound, by_gap)))


def run_tree(n: int, seed: int, k: int) -> dict:
    X = lognormal(n, 6, seed=seed).X
    t0 = time.perf_counter()
    tree = _Recorder(X, k, BPSettings(**TREE_ONLY))
    tree.record, tree.gap_trend = [], BoundTrend()
    res = tree.run()
    record = tree.record
    N = res.nodes
    ratios = {}
    for f in FRACTIONS:
        row = next((r for r in record if r[0] >= f * N), (N, None, None, None))
        ratios[f] = [None if e is None else e / N for e in row[1:]]
    return {"n": n, "seed": seed, "k": k, "status": res.status, "nodes": N,
            "seconds": time.perf_counter() - t0, "ratios": ratios}


def replay(path: str, ub: float, every: int) -> None:
    """The estimates along a saved progress series (``--series``)."""
    with open(path, newline="") as f:
        rows = [(int(r["nodes"]), float(r["lower_bound"]),
                 int(r["weight_estimate"]) if r["weight_estimate"] else None,
                 int(r["open"]) if r.get("open") else 0)
                for r in csv.DictReader(f)]
    last, cutoff, trend = rows[-1][0], ub * (1 - 1e-6), BoundTrend()
    finished = rows[-1][3] == 0 and rows[-1][1] >= cutoff    # the last row: no node open
    refuted, at = [0, 0], {}
    print(f"{path}: {len(rows)} rows, nodes {rows[0][0]}..{last}, "
          + (f"the tree finished at {last:,} nodes" if finished else "the tree unfinished"))
    print("| nodes | open | bound | weight estimate | trend estimate |\n|---|---|---|---|---|")
    for i, (n, lb, weight, n_open) in enumerate(rows):
        trend.observe(n, lb)
        left = trend.nodes_to(cutoff, n_open)
        # the weight estimate as printed then; the floor of nodes + open as bp applies it now
        estimates = (None if weight is None else max(weight, n + n_open),
                     None if left is None else n + left)
        bad = [e is not None and e < last for e in estimates]
        refuted = [r + b for r, b in zip(refuted, bad)]
        for f in FRACTIONS:
            if finished and f not in at and n >= f * last:
                at[f] = (n, estimates)
        if i % every == 0 or i == len(rows) - 1:
            print(f"| {n} | {n_open} | {lb:.5f} | " + " | ".join(
                "–" if e is None else f"{e:,}" + (
                    f" ({e / last:.2f})" if finished else " (refuted)" if b else "")
                for e, b in zip(estimates, bad)) + " |")
    print(f"{'below the final size' if finished else 'refuted'}: weight {refuted[0]} of "
          f"{len(rows)} rows, trend {refuted[1]}")
    for f, (n, est) in at.items():       # a finished tree: each estimate / its size
        print(f"at {100 * f:.0f} % ({n:,} nodes): weight " + ", trend ".join(
            "–" if e is None else f"{e:,} ({e / last:.2f})" for e in est))


def _fmt(x) -> str:
    return "–" if x is None else f"{x:.2f}"


def summary(runs: list) -> list[str]:
    out = ["| at | " + " | ".join(f"{e}: geo-mean ratio | within 2×" for e in ESTIMATES) + " |",
           "|---" * (1 + 2 * len(ESTIMATES)) + "|"]
    done = [r for r in runs if r["status"] == "optimal"]
    for f in FRACTIONS:
        cells = []
        for i in range(len(ESTIMATES)):
            vals = [r["ratios"][f][i] for r in done if r["ratios"][f][i]]
            gm = math.exp(sum(map(math.log, vals)) / len(vals)) if vals else None
            within = sum(0.5 <= v <= 2 for v in vals)
            cells += [_fmt(gm), f"{within} of {len(vals)}"]
        out.append(f"| {int(100 * f)} % | " + " | ".join(cells) + " |")
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="100,110")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="n = 100, seeds 1, 2")
    ap.add_argument("--json", help="write the runs and the machine to this file")
    ap.add_argument("--series", help="replay a progress CSV instead (nodes, lower_bound, "
                    "weight_estimate)")
    ap.add_argument("--ub", type=float, help="with --series: the incumbent SSE")
    ap.add_argument("--every", type=int, default=60, help="with --series: print every N-th row")
    a = ap.parse_args(argv)
    if a.series:
        if a.ub is None:
            ap.error("--series needs --ub")
        return replay(a.series, a.ub, a.every)
    sizes = [100] if a.quick else [int(s) for s in a.sizes.split(",")]
    seeds = [1, 2] if a.quick else [int(s) for s in a.seeds.split(",")]
    print(f"# mipagg {mipagg.__version__}; {machine()}")
    runs = []
    for n in sizes:
        for seed in seeds:
            r = run_tree(n, seed, a.k)
            runs.append(r)
            cols = "  ".join(f"{int(100 * f)}%: " + "/".join(map(_fmt, v))
                             for f, v in r["ratios"].items())
            print(f"n={n} seed={seed} k={a.k}: {r['status']}, {r['nodes']} nodes, "
                  f"{r['seconds']:.1f} s; {'/'.join(ESTIMATES)} ratio  {cols}", flush=True)
    print("\n".join(summary(runs)))
    if a.json:
        Path(a.json).write_text(json.dumps(
            {"version": mipagg.__version__, "machine": machine(), "options": TREE_ONLY,
             "runs": [dict(r, ratios={str(f): v for f, v in r["ratios"].items()})
                      for r in runs]}, indent=1))


if __name__ == "__main__":
    main()
