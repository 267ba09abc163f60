"""The master's LP method at bp's tree nodes (``node_lp_algorithm``; issue 22,
docs/bench/casc_gap.md §26).

Resumes a tree checkpoint (:mod:`mipagg.exact.checkpoint`) for ``--nodes``
more nodes once per LP method, one run after the other in this process, with
the options the checkpoint was written with, and prints one JSON line per
run: seconds, nodes per second, the master's LP solves (count, seconds,
simplex iterations; the first solve at each node apart), the bound reached,
then the ratio of each method's nodes per second to the first method's::

    python benchmarks/bench_node_lp.py ../shared/data/tarragona.csv 5 \\
        docs/results/trees/tarragona_k5_10.npz --nodes 20 --methods primal,dual
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mipagg import __version__  # noqa: E402
from mipagg.exact import checkpoint  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.master import MasterProblem  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

# options of the checkpoint's run that do not carry over to this probe
DROPPED = ("time_limit", "node_limit", "checkpoint", "checkpoint_every", "resume", "workers",
           "scheduler", "node_lp_algorithm")


def timed_solves(log: list):
    """Wrap :meth:`MasterProblem.solve` so that each solve appends
    (first at its node, seconds, simplex iterations) to ``log``; a solve is
    the first at its node when :meth:`MasterProblem.set_allowed` ran since the
    last one."""
    solve, set_allowed = MasterProblem.solve, MasterProblem.set_allowed
    state = {"new": False}

    def set_allowed_(self, allowed):
        state["new"] = True
        return set_allowed(self, allowed)

    def solve_(self, time_limit=None):
        t = time.perf_counter()
        sol = solve(self, time_limit)
        log.append((state["new"], time.perf_counter() - t,
                    0 if sol is None else sol.simplex_iterations))
        state["new"] = False
        return sol

    MasterProblem.solve, MasterProblem.set_allowed = solve_, set_allowed_


def one_run(X, k, path, options, nodes, method) -> dict:
    log: list = []
    timed_solves(log)
    ckpt = checkpoint.load(path)
    t0 = time.perf_counter()
    r = branch_and_price(X, k, resume=path, node_limit=ckpt.meta["counts"]["nodes"] + nodes,
                         node_lp_algorithm=method, **options)
    seconds = time.perf_counter() - t0
    first = [s for s in log if s[0]]
    rest = [s for s in log if not s[0]]
    done = r.summary()["nodes"] - ckpt.meta["counts"]["nodes"]
    return {"node_lp_algorithm": method, "nodes": done, "seconds": round(seconds, 1),
            "nodes_per_s": round(done / seconds, 4), "lp_solves": len(log),
            "lp_seconds_first": round(sum(s[1] for s in first), 1),
            "lp_iterations_first": sum(s[2] for s in first),
            "lp_seconds_rest": round(sum(s[1] for s in rest), 1),
            "lp_iterations_rest": sum(s[2] for s in rest),
            "lower_bound": r.lower_bound, "incumbent": r.sse}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("k", type=int)
    ap.add_argument("checkpoint")
    ap.add_argument("--nodes", type=int, default=20, help="nodes to solve after the resumed ones")
    ap.add_argument("--methods", default="primal,dual",
                    help="comma-separated node_lp_algorithm values; the first is the baseline")
    ap.add_argument("--quick", action="store_true", help="3 nodes per method")
    args = ap.parse_args(argv)
    X = read_csv(args.data).X
    options = {o: v for o, v in checkpoint.summary(checkpoint.load(args.checkpoint))["options"]
               .items() if o not in DROPPED}
    nodes = 3 if args.quick else args.nodes
    runs = []
    original = MasterProblem.solve, MasterProblem.set_allowed
    for method in args.methods.split(","):
        MasterProblem.solve, MasterProblem.set_allowed = original
        runs.append(one_run(X, args.k, args.checkpoint, options, nodes, method.strip()))
        print(json.dumps(runs[-1]), flush=True)
    base = runs[0]["nodes_per_s"]
    print(json.dumps({"version": __version__, "checkpoint": args.checkpoint, "options": options,
                      "ratios": {r["node_lp_algorithm"]: round(r["nodes_per_s"] / base, 2)
                                 for r in runs}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
