"""The master's LP method once the root's LP has converged (``reopt_lp_algorithm``:
cut rounds, dive and the tree's nodes; issue 22, docs/bench/casc_gap.md §26).

Tree mode: resumes a tree checkpoint (:mod:`mipagg.exact.checkpoint`) for
``--nodes`` more nodes once per LP method, one run after the other in this
process (after a one-node warm-up that loads the compiled kernels), with the
options the checkpoint was written with, and prints one JSON line per run:
seconds, nodes per second, the master's LP solves (count, seconds, simplex
iterations, the longest; the first solve at each node apart; LPs stopped by
``lp_stall_time`` and runs after a status Unknown), the bound reached, then the
ratio of each method's nodes per second to the first method's::

    python benchmarks/bench_reopt_lp.py ../shared/data/tarragona.csv 5 \\
        docs/results/trees/tarragona_k5_10.npz --nodes 20 --methods primal,dual

A method may carry HiGHS options for the master, ``ALG:name=value[:name=value]``,
and ``--bp-option key=value`` changes one of the checkpoint's options, e.g. the
dual simplex with Devex pricing against HiGHS's choice (casc_gap §46)::

    python benchmarks/bench_reopt_lp.py ../shared/data/tarragona.csv 5 \\
        docs/results/trees/tarragona_k5_18.npz --nodes 80 --bp-option plunge=1 \\
        --bp-option column_fixing=True --methods dual,dual:simplex_dual_edge_weight_strategy=1

``keep_held=0`` among them is the master's own switch instead: every node's
basis set again even where HiGHS still holds it (a plunge's child; casc_gap
§83).  The first solves at nodes whose basis was kept are counted apart
(``lp_*_kept``).

Root mode (``--root-rounds N``, no checkpoint): the root's column generation
(by the primal simplex) and then exactly N cut rounds (``tail_off`` 0, no
dive, no tree) once per method; one JSON line per run with the seconds of
each phase and the bounds, then the ratio of the cut rounds' seconds::

    python benchmarks/bench_reopt_lp.py ../shared/data/tarragona.csv 5 --root-rounds 8
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import option, watch_node_solves  # noqa: E402
from mipagg import __version__  # noqa: E402
from mipagg.exact import checkpoint  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.master import MasterProblem  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

# options of the checkpoint's run that do not carry over to this probe
DROPPED = ("time_limit", "node_limit", "checkpoint", "checkpoint_every", "resume", "workers",
           "scheduler", "reopt_lp_algorithm")


def carried_options(ckpt, changes=()) -> dict:
    """The bp options checkpoint ``ckpt`` was written with, but those of
    :data:`DROPPED`, on one pricing thread, with ``changes`` ((key, value)
    pairs) applied."""
    options = {o: v for o, v in checkpoint.summary(ckpt)["options"].items() if o not in DROPPED}
    options.update({"threads": 1, **dict(changes)})
    return options


ROOT = dict(node_limit=1, tail_off=0.0, min_violation=0.02, close_gap=False, mip_time=0,
            dive_time=0, threads=1)


def timed_solves(log: list):
    """Make each solve append (first at its node, seconds, simplex
    iterations, the node's basis kept) to ``log``
    (:func:`_env.watch_node_solves`); returns the undo."""
    def hook(master, first, kept, solve):
        t = time.perf_counter()
        sol = solve()
        log.append((first, time.perf_counter() - t,
                    0 if sol is None else sol.simplex_iterations, kept))
        return sol

    return watch_node_solves(hook)


def highs_options(spec: str) -> tuple[str, dict]:
    """``ALG:name=value:...`` -> (ALG, {name: value}); values are ints or
    floats when they look so."""
    alg, *pairs = spec.split(":")
    opts: dict = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        opts[name] = value
        for number in (int, float):
            try:
                opts[name] = number(value)
                break
            except ValueError:
                pass
    return alg, opts


def with_highs_options(opts: dict) -> None:
    """Set ``opts`` on every master's HiGHS whenever its LP method is applied
    (``keep_held`` on the master itself)."""
    apply = _APPLY

    def apply_(self):
        apply(self)
        for name, value in opts.items():
            if name == "keep_held":
                self.keep_held = bool(value)
            else:
                self._highs.setOptionValue(name, value)

    MasterProblem._apply_algorithm = apply_


_APPLY = MasterProblem._apply_algorithm


def one_run(X, k, path, options, nodes, method) -> dict:
    log: list = []
    undo = timed_solves(log)
    alg, opts = highs_options(method)
    with_highs_options(opts)
    ckpt = checkpoint.load(path)
    t0 = time.perf_counter()
    r = branch_and_price(X, k, resume=path, node_limit=ckpt.meta["counts"]["nodes"] + nodes,
                         reopt_lp_algorithm=alg, **options)
    seconds = time.perf_counter() - t0
    undo()
    first = [s for s in log if s[0]]
    rest = [s for s in log if not s[0]]
    kept = [s for s in first if s[3]]
    done = r.summary()["nodes"] - ckpt.meta["counts"]["nodes"]
    return {"reopt_lp_algorithm": method, "nodes": done, "seconds": round(seconds, 1),
            "nodes_per_s": round(done / seconds, 4), "lp_solves": len(log),
            "lp_seconds_first": round(sum(s[1] for s in first), 1),
            "lp_iterations_first": sum(s[2] for s in first),
            "lp_seconds_rest": round(sum(s[1] for s in rest), 1),
            "lp_iterations_rest": sum(s[2] for s in rest),
            "lp_seconds_max_first": round(max((s[1] for s in first), default=0.0), 3),
            "lp_seconds_max_rest": round(max((s[1] for s in rest), default=0.0), 3),
            "lp_solves_kept": len(kept), "lp_seconds_kept": round(sum(s[1] for s in kept), 2),
            "lp_iterations_kept": sum(s[2] for s in kept),
            "lp_stalls": r.lp_stalls, "lp_retries": r.lp_retries,
            "lower_bound": r.lower_bound, "incumbent": r.sse}


def root_run(X, k, rounds, method) -> dict:
    alg, opts = highs_options(method)
    with_highs_options(opts)
    t0 = time.perf_counter()
    r = branch_and_price(X, k, reopt_lp_algorithm=alg, max_cut_rounds=rounds, **ROOT)
    s = r.summary()
    return {"reopt_lp_algorithm": method, "seconds": round(time.perf_counter() - t0, 3),
            "root_seconds": round(s["time_root"], 3), "cut_seconds": round(s["time_cuts"], 3),
            "cut_rounds": s["cut_rounds"], "cuts": s["cuts"],
            "root_lp_bound": s["root_lp_bound"], "root_cut_bound": s["root_cut_bound"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("k", type=int)
    ap.add_argument("checkpoint", nargs="?", help="a bp checkpoint (tree mode)")
    ap.add_argument("--root-rounds", type=int,
                    help="root mode: the root and exactly this many cut rounds per method")
    ap.add_argument("--nodes", type=int, default=20, help="nodes to solve after the resumed ones")
    ap.add_argument("--methods", default="primal,dual",
                    help="comma-separated reopt_lp_algorithm values; the first is the baseline")
    ap.add_argument("--bp-option", action="append", default=[], metavar="KEY=VALUE",
                    help="tree mode: change one of the checkpoint's options (repeatable)")
    ap.add_argument("--quick", action="store_true",
                    help="3 nodes (tree mode) or 2 cut rounds (root mode) per method")
    args = ap.parse_args(argv)
    X = read_csv(args.data).X
    methods = [m.strip() for m in args.methods.split(",")]
    if args.root_rounds is not None:
        rounds = 2 if args.quick else args.root_rounds
        root_run(X, args.k, 1, methods[0])          # warm-up: compiled kernels
        runs = [root_run(X, args.k, rounds, m) for m in methods]
        for run in runs:
            print(json.dumps(run))
        print(json.dumps({"version": __version__, "data": args.data, "k": args.k, "options": ROOT,
                          "cut_rounds": rounds, "ratios": {
                              r["reopt_lp_algorithm"]: round(runs[0]["cut_seconds"]
                                                             / max(r["cut_seconds"], 1e-9), 2)
                              for r in runs}}))
        return 0
    if args.checkpoint is None:
        ap.error("give a checkpoint (tree mode) or --root-rounds N (root mode)")
    options = {o: v for o, v in checkpoint.summary(checkpoint.load(args.checkpoint))["options"]
               .items() if o not in DROPPED}
    options.update(option(text) for text in args.bp_option)
    nodes = 3 if args.quick else args.nodes
    runs = []
    one_run(X, args.k, args.checkpoint, options, 1, methods[0])   # warm-up: compiled kernels
    for method in methods:
        runs.append(one_run(X, args.k, args.checkpoint, options, nodes, method))
        print(json.dumps(runs[-1]), flush=True)
    base = runs[0]["nodes_per_s"]
    print(json.dumps({"version": __version__, "checkpoint": args.checkpoint, "options": options,
                      "ratios": {r["reopt_lp_algorithm"]: round(r["nodes_per_s"] / base, 2)
                                 for r in runs}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
