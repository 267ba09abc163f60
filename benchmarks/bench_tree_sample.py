"""How well a sample of open subtrees predicts the work a tree has left
(:mod:`mipagg.exact.treesample`, ``mipagg tree --sample``; issue 22,
docs/bench/casc_gap.md §50), against the tree-weight estimate of
:mod:`mipagg.exact.treestats`, on trees that finish.

    .venv/bin/python benchmarks/bench_tree_sample.py [--sizes 100,110] [--seeds 1,2,3,4,5]
        [--fraction 0.25] [--sample 8] [--quick] [--json out.jsonl]

Instances: :func:`mipagg.generators.lognormal` (p = 6 columns), k = 3,
solved by the tree alone (as ``bench_tree_estimate.py``: cuts, gap closing,
pool MIP, dive, neighbourhood search and pair fixing off; most-fractional
branching; one thread).  Each is solved once for its optimum, which then
starts every run as its incumbent (as on the CASC trees, whose incumbent is
the optimum: the trees only prove it), once more for the proof's size N,
then stopped after ``--fraction`` × N nodes with a checkpoint; from that
checkpoint (1) the whole rest of the tree is resumed to the proof, which
gives the nodes actually left, (2) ``--sample`` open subtrees (seed 0) are
resumed one by one and scaled up, and (3) the checkpoint's tree-weight
estimate is read.  Printed per tree: the nodes left, each estimate and its
ratio to them (1 is exact), and whether the nodes left lie within two
standard errors of the sampled estimate; then the geometric means of the
ratios.  The sampled subtrees are resumed apart, so they miss what the
whole tree shares among its nodes (columns, pseudocosts): the ratio says
how much that matters.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

import mipagg  # noqa: E402
from mipagg.exact import checkpoint, treesample  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
                 dive_time=0, neighbourhood_time=0, fixing=False, threads=1,
                 branching="fractional")


def one(n: int, seed: int, k: int, fraction: float, count: int, tmp: Path) -> dict | None:
    X = lognormal(n, 6, seed=seed).X
    opt = branch_and_price(X, k, **TREE_ONLY).partition
    N = branch_and_price(X, k, initial=opt, **TREE_ONLY).nodes     # the proof's tree
    path = tmp / f"t{n}_{seed}.npz"
    first = branch_and_price(X, k, node_limit=max(2, int(fraction * N)), checkpoint=path,
                             initial=opt, **TREE_ONLY)
    if first.status == "optimal":
        return None                         # nothing left to predict
    ck = checkpoint.load(path)
    s = checkpoint.summary(ck)
    t0 = time.perf_counter()
    rest = branch_and_price(X, k, resume=path, **TREE_ONLY)
    left, secs = rest.nodes - rest.resumed_nodes, time.perf_counter() - t0
    est = treesample.sample_subtrees(X, k, path, min(count, s["open_nodes"]), seed=0,
                                     time_limit=None, options=TREE_ONLY)
    (sampled, se), (stime, stime_se) = est.nodes, est.seconds
    weight = None if s["tree_estimate"] is None else s["tree_estimate"] - s["nodes"]
    return {"n": n, "seed": seed, "k": k, "nodes": N, "stopped_at": first.nodes,
            "open": s["open_nodes"], "left": left, "left_seconds": secs,
            "sample": len(est.subtrees), "sampled": sampled, "sampled_se": se,
            "sampled_seconds": stime, "sampled_seconds_se": stime_se, "weight": weight,
            "within_2se": bool(abs(sampled - left) <= 2 * se) if math.isfinite(se) else None}


def gmean(values) -> str:
    v = [x for x in values if x is not None and x > 0]
    return "–" if not v else f"{math.exp(sum(map(math.log, v)) / len(v)):.2f} (n = {len(v)})"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,110")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--fraction", type=float, default=0.25)
    ap.add_argument("--sample", type=int, default=8)
    ap.add_argument("--quick", action="store_true", help="one tree of 60 records")
    ap.add_argument("--json", help="append one JSON record per tree to this file")
    a = ap.parse_args(argv)
    if a.quick:
        a.sizes, a.seeds, a.sample = "60", "1", 4
    print(f"<!-- {machine()}; mipagg {mipagg.__version__}; fraction {a.fraction}, "
          f"sample {a.sample} (seed 0) -->")
    print("| n | seed | nodes | stopped at | open | nodes left | sampled estimate (ratio) "
          "| within 2 SE | weight estimate (ratio) |\n|---|---|---|---|---|---|---|---|---|")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_tree_sample-") as tmp:
        for n in map(int, a.sizes.split(",")):
            for seed in map(int, a.seeds.split(",")):
                r = one(n, seed, a.k, a.fraction, a.sample, Path(tmp))
                if r is None:
                    print(f"| {n} | {seed} | closed before {a.fraction:.0%} | | | | | | |")
                    continue
                rows.append(r)
                se = "" if not math.isfinite(r["sampled_se"]) else f" ± {r['sampled_se']:.0f}"
                w = "–" if r["weight"] is None else \
                    f"{r['weight']} ({r['weight'] / r['left']:.2f})"
                print(f"| {n} | {seed} | {r['nodes']} | {r['stopped_at']} | {r['open']} "
                      f"| {r['left']} | {r['sampled']:.0f}{se} ({r['sampled'] / r['left']:.2f}) "
                      f"| {r['within_2se']} | {w} |", flush=True)
                if a.json:
                    with open(a.json, "a") as fh:
                        fh.write(json.dumps({"version": mipagg.__version__,
                                             "fraction": a.fraction, **r}) + "\n")
    print()
    weight = (None if r["weight"] is None else r["weight"] / r["left"] for r in rows)
    print(f"geometric mean of the ratios: sampled {gmean(r['sampled'] / r['left'] for r in rows)}"
          f", weight {gmean(weight)}"
          f"; within two standard errors: {sum(bool(r['within_2se']) for r in rows)} of "
          f"{sum(r['within_2se'] is not None for r in rows)}")


if __name__ == "__main__":
    main()
