"""bp with and without the count row Σ_C x_C ≤ ⌊n/k⌋ (``count_row``; issue 22,
docs/bench/casc_gap.md §75), same run, one arm after the other.

Subset mode (default): Census and Tarragona subsets whose size k does not
divide, bp with its default options and one thread, each arm in turn per
instance; one JSON line per run (seconds, nodes, root LP and cut bounds,
status, SSE), then per instance the ratio of the seconds and of the nodes
(off / on)::

    python benchmarks/bench_count_row.py ../shared/data [--sizes 61,101] [--ks 3,4,5]
        [--indices 0,1] [--time-limit 600]

Checkpoint mode (``--checkpoint FILE``): resumes a tree checkpoint for
``--nodes`` more nodes with the options it was written with, once per arm,
and prints the nodes solved, the open nodes left, the bound reached and the
seconds::

    python benchmarks/bench_count_row.py ../shared/data/tarragona.csv --k 5 \\
        --checkpoint docs/results/trees/tarragona_k5_root3_3.npz --nodes 40

Components mode (``--checkpoint FILE --components``): resumes the tree for
``--nodes`` nodes with its own options (the count row as it was written) and
prints, for each node's last master LP, the connected components S of the
records its fractional columns cover and, per component, the left-hand side
Σ_C ⌊|C∩S|/k⌋ x_C of the Chvátal–Gomory cut of S's rows divided by k against
its right-hand side ⌊|S|/k⌋ (the count row is the cut of all n rows)::

    python benchmarks/bench_count_row.py ../shared/data/census.csv --k 4 \
        --checkpoint docs/results/trees/census_k4_root.npz --nodes 15 --components

``--quick``: one small subset (subset mode) or 3 nodes (checkpoint modes).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402
from mipagg import __version__  # noqa: E402
from mipagg.exact import checkpoint  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.master import MasterProblem  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

ARMS = (("off", False), ("on", True))
# options of the checkpoint's run that do not carry over to this probe
DROPPED = ("time_limit", "node_limit", "checkpoint", "checkpoint_every", "resume", "workers",
           "scheduler")


def resumed_options(ckpt, *also) -> dict:
    """The options ``ckpt`` was written with (not defaults), but for
    :data:`DROPPED` and ``also``."""
    return {o: v for o, v in checkpoint.summary(ckpt)["options"].items()
            if o not in DROPPED + also}


def run_subset(inst, k, time_limit) -> list:
    rows = []
    for name, on in ARMS:
        t0 = time.perf_counter()
        r = branch_and_price(inst.X, k, threads=1, time_limit=time_limit, count_row=on)
        rows.append({"instance": inst.name, "n": inst.n, "k": k, "count_row": name,
                     "seconds": round(time.perf_counter() - t0, 2), "nodes": r.nodes,
                     "status": str(r.status), "sse": r.sse, "lower_bound": r.lower_bound,
                     "root_lp_bound": r.root_lp_bound, "root_cut_bound": r.root_cut_bound})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def run_checkpoint(X, k, path, nodes) -> list:
    ckpt = checkpoint.load(path)
    options = resumed_options(ckpt, "count_row")       # each arm sets its own
    start = ckpt.meta["counts"]["nodes"]
    rows = []
    for name, on in ARMS:
        t0 = time.perf_counter()
        r = branch_and_price(X, k, resume=path, node_limit=start + nodes, count_row=on,
                             **options)
        s = r.summary()
        rows.append({"checkpoint": str(path), "count_row": name, "nodes": s["nodes"] - start,
                     "open": s.get("open_nodes"), "status": str(r.status),
                     "lower_bound": r.lower_bound, "sse": r.sse,
                     "seconds": round(time.perf_counter() - t0, 1)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def components(columns, x, n: int, k: int) -> list:
    """(|S|, Σ_C ⌊|C∩S|/k⌋ x_C, ⌊|S|/k⌋) for each connected component S of
    the records covered by the fractional columns of ``x``."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    frac = np.flatnonzero((x > 1e-6) & (x < 1 - 1e-6))
    if not frac.size:
        return []
    heads = [np.full(len(columns[j]), columns[j][0]) for j in frac]
    members = [np.asarray(columns[j]) for j in frac]
    graph = coo_matrix((np.ones(sum(m.size for m in members)),
                        (np.concatenate(heads), np.concatenate(members))), shape=(n, n))
    _, label = connected_components(graph, directed=False)
    out, support = [], np.flatnonzero(x > 1e-6)
    for c in np.unique(label[np.concatenate(members)]):
        inside = label == c
        lhs = sum(x[j] * (int(inside[columns[j]].sum()) // k) for j in support)
        out.append((int(inside.sum()), round(float(lhs), 6), int(inside.sum()) // k))
    return out


def run_components(X, k, path, nodes) -> None:
    """The components of each node's last master LP (module docstring)."""
    ckpt = checkpoint.load(path)
    options = resumed_options(ckpt)
    solve, set_allowed = MasterProblem.solve, MasterProblem.set_allowed
    last: dict = {}

    def set_allowed_(self, allowed):
        if last:
            print(json.dumps(last), flush=True)
            last.clear()
        return set_allowed(self, allowed)

    def solve_(self, time_limit=None):
        sol = solve(self, time_limit)
        if sol is not None:
            comps = components(self.columns, np.asarray(sol.x), self.n, k)
            last.update(lp=sol.value, count=round(float(sol.x.sum()), 6), components=comps,
                        most_violated=max((lhs - rhs for _, lhs, rhs in comps), default=None))
        return sol

    MasterProblem.solve, MasterProblem.set_allowed = solve_, set_allowed_
    try:
        branch_and_price(X, k, resume=path, node_limit=ckpt.meta["counts"]["nodes"] + nodes,
                         **options)
    finally:
        MasterProblem.solve, MasterProblem.set_allowed = solve, set_allowed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", help="the directory of census.csv and tarragona.csv "
                                 "(checkpoint mode: one data file)")
    ap.add_argument("--sizes", default="61,101")
    ap.add_argument("--ks", default="3,4,5")
    ap.add_argument("--indices", default="0,1")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--checkpoint")
    ap.add_argument("--k", type=int)
    ap.add_argument("--nodes", type=int, default=40)
    ap.add_argument("--components", action="store_true",
                    help="checkpoint mode: the fractional components of each node's LP")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    print(json.dumps({"version": __version__, "machine": machine(), "argv": sys.argv[1:]}))
    if args.checkpoint:
        if args.k is None:
            ap.error("--checkpoint needs --k")
        run = run_components if args.components else run_checkpoint
        run(read_csv(args.data).X, args.k, args.checkpoint, 3 if args.quick else args.nodes)
        return 0
    sizes = [31] if args.quick else [int(v) for v in args.sizes.split(",")]
    ks = [3] if args.quick else [int(v) for v in args.ks.split(",")]
    indices = [0] if args.quick else [int(v) for v in args.indices.split(",")]
    data = Path(args.data)
    branch_and_price(subset(read_csv(data / "census.csv"), 20, "random", 0).X, 3,
                     node_limit=3)      # warm-up: compiled kernels
    for name in ("census", "tarragona"):
        inst = read_csv(data / f"{name}.csv")
        for size in sizes:
            for k in ks:
                if size % k == 0:
                    continue
                for index in indices:
                    off, on = run_subset(subset(inst, size, "random", index), k,
                                         args.time_limit)
                    print(json.dumps({"instance": off["instance"], "k": k, "ratios": {
                        "seconds": round(off["seconds"] / max(on["seconds"], 1e-9), 2),
                        "nodes": round(off["nodes"] / max(on["nodes"], 1), 2)}}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
