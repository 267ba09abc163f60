"""The ``bp`` tree on 1 and 2 worker processes (issue 22, item 3): nodes per
second and time to proof on the same instances in the same run.

    .venv/bin/python benchmarks/bench_bp_workers.py [--lognormal 80:3:1:tree,100:3:1:tree]
        [--census ../shared/data/census.csv --subsets 100:5:3:centroid] [--workers 1,2]
        [--threads 1] [--tree-only] [--time-limit 900] [--json out.jsonl]
        [--resume census:4:docs/results/trees/census_k4_2.npz --bp-option branching=strong]

Instances (defaults in brackets; none of ``--subsets`` by default, e.g.
``--subsets 100:5:3:centroid``, a tree of a few hundred heavy nodes with
node gap closing): ``--lognormal n:k:seed``
(:func:`mipagg.generators.lognormal`, p = 11 columns, the issue's
heavy-tailed business-file shape) and ``--subsets n:k:index[:criterion]``
(``n``-record subsets of ``--census`` by :func:`mipagg.subsets.subset`,
criterion ``random`` unless given) and ``--resume name:k:checkpoint`` (a
CASC tree, ``name`` a file of ``--data-dir``, resumed from a committed
checkpoint of ``docs/results/trees``: every run goes on from the same open
nodes, so each solves nodes of the same real tree; its nodes/s counts the
nodes it solved, and its time limit ends it; ``--strip-bases`` resumes from
a copy without the bases the checkpoint keeps for its open nodes, the A/B
of docs/bench/casc_gap.md §48).  Every run uses bp's default
options (``--bp-option key=value`` changes one); a
``:tree`` suffix (or ``--tree-only`` for all) switches cuts, gap closing and
the pool MIP off, so that the tree alone proves optimality (hundreds of
light nodes).  ``--threads`` pricing threads per process (default 1: one
worker is one core).  The root phases are serial in every run, so the
tree's figures compare the trees.

Printed per run: status, best SSE, nodes, tree seconds, nodes per second in
the tree, total seconds (time to proof when optimal), CPU seconds (this
process and its workers) and nodes per CPU second (the parallel tree's
overhead, whatever the machine's load), the load average before and after;
per instance: the ratio of the tree's nodes per second and of the time to
proof (tree and total) of each worker count to the first one, and whether
every run found the same optimum (relative 1e-6).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine, option  # noqa: E402

from mipagg.exact import parallel  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)


def instances(a):
    for spec in filter(None, a.lognormal.split(",")):
        n, k, seed, *tree = spec.split(":")
        yield (f"lognormal n={n} p={a.p} seed={seed}" + (" tree-only" if tree else ""),
               lognormal(int(n), a.p, seed=int(seed)).X, int(k), bool(tree))
    if a.subsets:
        from mipagg.instance import read_csv
        from mipagg.subsets import subset

        census = read_csv(a.census)
        for spec in a.subsets.split(","):
            n, k, index, *crit = spec.split(":")
            criterion = crit[0] if crit else "random"
            tree = crit[1:] == ["tree"]
            yield (f"census {criterion}-{index} n={n}" + (" tree-only" if tree else ""),
                   subset(census, int(n), criterion, int(index)).X, int(k), tree)


def resumed(a, tmp: str):
    """The ``--resume`` cells: (name, X, k, checkpoint path); with
    ``--strip-bases`` the path of a copy in ``tmp`` without the open nodes'
    saved bases."""
    from mipagg.instance import read_csv

    for spec in filter(None, a.resume.split(",")):
        name, k, path = spec.split(":", 2)
        if a.strip_bases:
            path = strip_bases(path, tmp)
        yield (f"{name} k={k} resumed from {Path(path).name}",
               read_csv(str(Path(a.data_dir) / f"{name}.csv")).X, int(k), path)


def strip_bases(path: str, tmp: str) -> str:
    """A copy of checkpoint ``path`` in ``tmp`` without its bases: the same
    tree resumed cold (``mipagg.exact.bases``)."""
    from mipagg.exact.bases import ARRAYS

    with np.load(path, allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files if name not in ARRAYS}
    out = Path(tmp) / (Path(path).stem + "-nobases.npz")
    np.savez_compressed(out, **arrays)
    return str(out)


def cpu_seconds() -> float:
    """CPU seconds of this process and of its reaped children (the workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lognormal", default="80:3:1:tree,100:3:1:tree")
    ap.add_argument("--p", type=int, default=11)
    ap.add_argument("--census", default=str(Path(__file__).resolve().parents[2]
                                            / "shared/data/census.csv"))
    ap.add_argument("--subsets", default="")
    ap.add_argument("--resume", default="", help="name:k:checkpoint[,...] (module docstring)")
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2]
                                              / "shared/data"))
    ap.add_argument("--bp-option", action="append", default=[], type=option,
                    help="key=value, a bp option for every run (repeatable)")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--tree-only", action="store_true")
    ap.add_argument("--time-limit", type=float, default=900.0)
    ap.add_argument("--subtree-nodes", type=int, default=parallel.SUBTREE_NODES,
                    help="nodes a task may solve (mipagg.exact.parallel.SUBTREE_NODES)")
    ap.add_argument("--strip-bases", action="store_true",
                    help="resume from copies of the checkpoints without their saved bases")
    ap.add_argument("--json", help="append one JSON record per run to this file")
    a = ap.parse_args(argv)
    parallel.SUBTREE_NODES = a.subtree_nodes
    counts = [int(w) for w in a.workers.split(",")]
    options = dict(threads=a.threads, time_limit=a.time_limit, **dict(a.bp_option))
    print(f"<!-- {machine()} -->")
    print(f"<!-- options {options}; tree-only: {TREE_ONLY}; "
          f"subtree nodes {parallel.SUBTREE_NODES} -->")
    print("| instance | k | workers | status | SSE | nodes | tree s | nodes/s | total s "
          "| CPU s | nodes/CPU s | load before/after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    summary = []
    for w in sorted(set(counts)):        # warm-up, discarded: numba compiles on first use
        branch_and_price(lognormal(30, a.p, seed=0).X, 3, workers=w, **options)
    cases = [(name, X, k, dict(TREE_ONLY) if tree or a.tree_only else {})
             for name, X, k, tree in instances(a)]
    tmp = tempfile.mkdtemp(prefix="bench_bp_workers-")
    cases += [(name, X, k, {"resume": path}) for name, X, k, path in resumed(a, tmp)]
    for name, X, k, extra in cases:
        runs = []
        for w in counts:
            load0 = os.getloadavg()[0]
            t0, c0 = time.perf_counter(), cpu_seconds()
            r = branch_and_price(X, k, workers=w, **options, **extra)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            tree_s = r.seconds["tree"]
            nodes = r.nodes - r.resumed_nodes               # this run's (resumed: 0 before)
            solved = nodes - ("resume" not in extra)        # in the tree: not the root
            rate = solved / tree_s if tree_s > 0 else float("nan")
            per_cpu = nodes / cpu if cpu > 0 else float("nan")
            runs.append((w, r, rate, tree_s, wall, per_cpu))
            print(f"| {name} | {k} | {w} | {r.status} | {r.sse:.6f} | {nodes} | {tree_s:.1f} "
                  f"| {rate:.2f} | {wall:.1f} | {cpu:.1f} | {per_cpu:.2f} "
                  f"| {load0:.1f}/{os.getloadavg()[0]:.1f} |", flush=True)
            if a.json:
                with open(a.json, "a") as fh:
                    fh.write(json.dumps({"instance": name, "k": k, "workers": w,
                                         "wall": wall, "rate": rate, "tree_seconds": tree_s,
                                         "cpu": cpu,
                                         "options": options, **r.summary()},
                                        default=float) + "\n")
        base = [run for run in runs if run[0] == 1] or runs[:1]
        same = all(abs(r.sse - base[0][1].sse) <= 1e-6 * abs(base[0][1].sse)
                   for _, r, *_ in runs)

        what = "optimum" if all(r.status == "optimal" for _, r, *_ in runs) else "best SSE"

        def med(rows, i):
            return statistics.median(row[i] for row in rows)

        for w in sorted({run[0] for run in runs} - {base[0][0]}):
            mine = [run for run in runs if run[0] == w]
            summary.append(f"{name} k={k}: {w} vs {base[0][0]} workers (medians of "
                           f"{len(mine)} and {len(base)} runs): nodes/s x"
                           f"{med(mine, 2) / med(base, 2):.2f}, tree time x"
                           f"{med(base, 3) / med(mine, 3):.2f}, total time x"
                           f"{med(base, 4) / med(mine, 4):.2f}, nodes per CPU second x"
                           f"{med(mine, 5) / med(base, 5):.2f}, same {what}: {same}")
    print()
    for line in summary:
        print(line)


if __name__ == "__main__":
    main()
