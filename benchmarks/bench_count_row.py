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
its right-hand side ⌊|S|/k⌋ (the count row is the cut of all n rows). It
also solves copies of the node's master LP (its columns only, no pricing, so
the figures are optimistic) with these cuts as rows (``rise``: the LP value
gained) and with each side of a branching on the number of groups Σ_C x_C
(``count_le``, ``count_ge``)::

    python benchmarks/bench_count_row.py ../shared/data/census.csv --k 4 \
        --checkpoint docs/results/trees/census_k4_root.npz --nodes 15 --components

Piece mode (``--checkpoint FILE --count-limit R``): resumes the tree for
``--time-limit`` seconds as one side of a split on the number of groups, the
partitions into at most R groups (bp's ``max_groups``; 0: the tree as it was
written), one worker and verbose progress lines; its bounds hold only for
that class. Two processes side by side compare the sides::

    python benchmarks/bench_count_row.py ../shared/data/census.csv --k 4 \
        --checkpoint docs/results/trees/census_k4_root.npz --count-limit 269 --time-limit 900
    (the same with --count-limit 0)

Roots mode (``--roots LIMITS``): bp's root (column generation and the cut
rounds of the long recipes, no gap closing, one node) for each entry of
LIMITS: ``none`` (the problem itself), an integer R (partitions of at most R
groups, bp's ``max_groups``) or ``size`` (clusters of size k only, bp's
``max_size``: the partitions of exactly n/k groups when k divides n). These
are the two sides of a split on the number of groups
(:mod:`mipagg.exact.countsplit`); the bounds hold only for the partitions
each side keeps. ``--tree-seconds S``: each
restriction's tree for S seconds instead, with the rest of the long recipe
(``--workers``, default one)::

    python benchmarks/bench_count_row.py ../shared/data/census.csv --k 4 \
        --roots none,269,268,size --initial instances/solutions/census_k4.csv [--tree-seconds 900]

``--quick``: one small subset (subset mode), 3 nodes (checkpoint modes),
30 s (piece mode) or the first entry (roots mode).
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
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402
from mipagg.verify import read_labels  # noqa: E402

ARMS = (("off", False), ("on", True))
ROOT_RECIPE = {"max_cut_rounds": 30, "tail_off": 0.005, "min_violation": 0.02}  # casc_gap §71
TREE_RECIPE = {"branching": "reliability:4", "node_close_time": 120, "column_fixing": True,
               "plunge": 1, "node_close_nested": True, "size_fixing": True,
               "node_pricing": "exact", "node_cut_rounds": 1}          # the rest of §71's
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


def components(columns, x, n: int) -> list:
    """The connected components of the records covered by the fractional
    columns of ``x``, as boolean masks over the n records."""
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
    return [label == c for c in np.unique(label[np.concatenate(members)])]


def component_rows(columns, x, masks, k: int) -> list:
    """For each component mask S: (|S|, Σ_C ⌊|C∩S|/k⌋ x_C, ⌊|S|/k⌋, the
    coefficients ⌊|C∩S|/k⌋ of every column)."""
    out = []
    for inside in masks:
        coef = np.array([int(inside[c].sum()) // k for c in columns])
        lhs = float(coef[:x.size] @ x)
        out.append((int(inside.sum()), round(lhs, 6), int(inside.sum()) // k, coef))
    return out


def lp_probes(master, rows, count: float) -> dict:
    """Optimistic LP values on a copy of ``master``'s LP (its columns, no
    pricing, which could only lower them): ``rise``, what the component cuts
    ``rows`` add together; ``count_le`` and ``count_ge``, what the two sides
    of a branching on the number of groups Σ_C x_C = ``count`` add
    (Σ_C x_C ≤ ⌊count⌋ and ≥ ⌈count⌉)."""
    import highspy

    inf = highspy.kHighsInf
    h, offset = master.lp_copy()
    h.run()
    base = h.getInfo().objective_function_value
    out = {}
    every = np.arange(len(master.columns))
    for name, lo, hi in (("count_le", -inf, np.floor(count)), ("count_ge", np.ceil(count), inf)):
        h.addRow(lo, hi, every.size, (every + offset).astype(np.int32), np.ones(every.size))
        h.run()
        out[name] = round(h.getInfo().objective_function_value - base, 6)
        h.deleteRows(1, np.array([h.getNumRow() - 1], dtype=np.int32))
    for _, _, rhs, coef in rows:
        idx = np.flatnonzero(coef)
        h.addRow(-inf, float(rhs), idx.size, (idx + offset).astype(np.int32),
                 coef[idx].astype(float))
    h.run()
    out["rise"] = round(h.getInfo().objective_function_value - base, 6) if rows else 0.0
    return out


def run_components(X, k, path, nodes) -> None:
    """The components of each node's last master LP (module docstring)."""
    ckpt = checkpoint.load(path)
    options = resumed_options(ckpt)
    incumbent = ckpt.meta["incumbent_sse"]
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
            x = np.asarray(sol.x)
            rows = component_rows(self.columns, x, components(self.columns, x, self.n), k)
            last.update(lp=sol.value, gap=round(incumbent - sol.value, 6),
                        count=round(float(sol.x.sum()), 6),
                        components=[r[:3] for r in rows],
                        most_violated=max((lhs - rhs for _, lhs, rhs, _ in rows), default=None),
                        **lp_probes(self, rows, float(x.sum())))
        return sol

    MasterProblem.solve, MasterProblem.set_allowed = solve_, set_allowed_
    try:
        branch_and_price(X, k, resume=path, node_limit=ckpt.meta["counts"]["nodes"] + nodes,
                         **options)
    finally:
        MasterProblem.solve, MasterProblem.set_allowed = solve, set_allowed


def restriction(k: int, limit: str) -> dict:
    """bp's options for a roots-mode entry (module docstring): none, an
    integer R (``max_groups``) or size (``max_size`` k)."""
    if limit == "none":
        return {}
    return {"max_size": k} if limit == "size" else {"max_groups": int(limit)}


def run_piece(X, k, path, limit: int, seconds: float) -> None:
    """Piece mode (module docstring): the tree of ``path`` resumed for
    ``seconds`` with the count row's limit ``limit`` (0: as saved)."""
    ckpt = checkpoint.load(path)
    options = resumed_options(ckpt, "count_row") | ({"max_groups": limit} if limit else {})
    start = ckpt.meta["counts"]["nodes"]
    t0 = time.perf_counter()
    r = branch_and_price(X, k, resume=path, time_limit=seconds, verbose=True, **options)
    s = r.summary()
    print(json.dumps({"checkpoint": str(path), "count_limit": limit, "nodes": s["nodes"] - start,
                      "open": s["open_nodes"], "lower_bound": r.lower_bound,
                      "tree_estimate": s["tree_estimate"], "seconds": round(
                          time.perf_counter() - t0, 1)}), flush=True)


def run_roots(X, k, limits, initial, seconds=None, workers=1) -> None:
    """The root bounds of each restriction (roots mode, module docstring);
    with ``seconds``, its tree for that long with the long recipe on ``workers``."""
    for limit in limits:
        t0 = time.perf_counter()
        run = {"node_limit": 1, "close_gap": False, "node_close_time": 0} if seconds is None \
            else {"time_limit": seconds, "verbose": True, "workers": workers, **TREE_RECIPE}
        r = branch_and_price(X, k, initial=initial, threads=1, **ROOT_RECIPE, **run,
                             **restriction(k, limit))
        s = r.summary()
        print(json.dumps({"limit": limit, "root_lp_bound": s["root_lp_bound"],
                          "root_cut_bound": s["root_cut_bound"], "cut_rounds": s["cut_rounds"],
                          "incumbent": r.sse, "lower_bound": r.lower_bound, "status": str(r.status),
                          "nodes": s["nodes"], "open": s["open_nodes"],
                          "tree_estimate": s["tree_estimate"],
                          "seconds": round(time.perf_counter() - t0, 1)}), flush=True)


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
    ap.add_argument("--count-limit", type=int,
                    help="checkpoint mode: resume for --time-limit s with the count row's "
                         "limit R (0: as saved)")
    ap.add_argument("--roots", help="roots mode: none, R (at most R groups) or size, "
                                    "comma-separated")
    ap.add_argument("--initial", help="roots mode: a label file to start from")
    ap.add_argument("--tree-seconds", type=float,
                    help="roots mode: each restriction's tree for this long")
    ap.add_argument("--workers", type=int, default=1, help="roots mode: the trees' workers")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    print(json.dumps({"version": __version__, "machine": machine(), "argv": sys.argv[1:]}))
    if args.roots:
        if args.k is None:
            ap.error("--roots needs --k")
        limits = args.roots.split(",")[:1 if args.quick else None]
        bad = [v for v in limits if v not in ("none", "size") and not (v.isdigit() and int(v) > 0)]
        if bad:
            ap.error(f"--roots takes none, size or positive integers, got {bad}")
        initial = read_labels(args.initial) if args.initial else None
        run_roots(read_csv(args.data).X, args.k, limits, initial,
                  30.0 if args.quick and args.tree_seconds else args.tree_seconds, args.workers)
        return 0
    if args.checkpoint:
        if args.k is None:
            ap.error("--checkpoint needs --k")
        X = read_csv(args.data).X
        if args.count_limit is not None:
            run_piece(X, args.k, args.checkpoint, args.count_limit,
                      30.0 if args.quick else args.time_limit)
            return 0
        run = run_components if args.components else run_checkpoint
        run(X, args.k, args.checkpoint, 3 if args.quick else args.nodes)
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
