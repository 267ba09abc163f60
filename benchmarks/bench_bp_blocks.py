"""bp on consecutive blocks of Census (issue 22: "Census blocks of 300 records
at k = 5: proven within 15 minutes, serial and with --workers 2").

    .venv/bin/python benchmarks/bench_bp_blocks.py [--size 300] [--starts 0,300,600]
        [--k 5] [--time-limit 900] [--workers 1,2] [--reclose-root]
        [--neighbourhood on,off,120] [--node-partial 0,2000] [--close-gap-time S]
        [--heuristic S] [--branching fractional,fractional_index] [--node-close-cost off,on]
        [--bp-option key=value ...] [--quick]

Block ``start``: Census records start .. start+size−1 (all 13 columns), as an
instance of its own (:meth:`mipagg.instance.Instance.subset`, standardized
like every subset).  One ``branch_and_price`` run per block and number of
workers, default options otherwise; prints status, bound, SSE, gap, nodes,
wall and CPU seconds of this process (worker processes' CPU is not
included), and the load.  ``--reclose-root``: bp's ``reclose_root`` (root gap
closing tried again whenever the tree improves the incumbent).
``--neighbourhood on,off``: one run with bp's default neighbourhood phase and
one with ``neighbourhood_time=0`` per block and worker count (same-run A/B;
the column "nbh s" gives the phase's seconds); a number of seconds forces the
phase on with that budget.  ``--node-partial 0,2000``: one run per value of
bp's ``node_close_partial`` (partial gap closing at tree nodes over at most
that many clusters; 0: off), same-run A/B; the column "partial" gives the
value, "np/inc" the partial node closings and the node closings that
improved the incumbent.  ``--close-gap-time S``: bp's ``close_gap_time``
(the root gap closing's own limit).  ``--branching A,B``: one run per
branching rule (same-run A/B; default: bp's default rule).  ``--node-close-cost
off,on``: one run per value of bp's ``node_close_cost`` (same-run A/B; default
on, as bp with a time limit); the column "closings" gives the node closings
tried, closed and turned down.  ``--bp-option key=value`` (repeatable): a bp
option for every run (run two commands side by side for an A/B of it).
``--heuristic S``: after each bp run, a line with its root LP bound and
bound after cuts, and the heuristics alone on the block: ``portfolio`` for S seconds (seed 0), then exact neighbourhood
search from its partition for S seconds (seed 0), with their excess over bp's
best SSE (is the gap of a cell the relaxation's or the primal side's?).  ``--quick``:
one 100-record block, 60 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine, option  # noqa: E402

from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=300)
    ap.add_argument("--starts", default="0,300,600")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=900.0)
    ap.add_argument("--workers", default="1")
    ap.add_argument("--reclose-root", action="store_true")
    ap.add_argument("--neighbourhood", default="on",
                    help="comma-separated: on (bp's default), off, or seconds")
    ap.add_argument("--node-partial", default="0",
                    help="comma-separated node_close_partial values (0: off)")
    ap.add_argument("--close-gap-time", type=float, default=None)
    ap.add_argument("--heuristic", type=float, default=None, metavar="S")
    ap.add_argument("--branching", default="",
                    help="comma-separated branching rules, one run each (default: bp's)")
    ap.add_argument("--node-close-cost", default="on",
                    help="comma-separated off/on: one run per value of node_close_cost "
                         "(default on, bp's default with a time limit)")
    ap.add_argument("--bp-option", action="append", default=[], type=option,
                    help="key=value, a bp option for every run (repeatable)")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    if args.quick:
        args.size, args.starts, args.time_limit = 100, "0", 60.0
    census = read_csv(DATA / "census.csv")
    print(f"machine: {machine()}")
    print(f"command: python benchmarks/bench_bp_blocks.py {' '.join(sys.argv[1:])}\n")
    print("| block | k | workers | branching | nbh | partial | cost | status | closed by | bound "
          "| SSE | gap % | nodes | open | np/inc | closings | nbh s | wall s | CPU s | load |")
    print("|---|---:|---:|---|---|---:|---|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|"
          "---:|---:|")
    for start in map(int, args.starts.split(",")):
        rows = list(range(start, min(start + args.size, census.n)))
        inst = census.subset(rows, name=f"census-{start}-{rows[-1]}")
        runs = [(w, br, nbh, part, cost) for w in map(int, args.workers.split(","))
                for br in args.branching.split(",")
                for nbh in args.neighbourhood.split(",")
                for part in map(int, args.node_partial.split(","))
                for cost in args.node_close_cost.split(",")]
        for workers, branching, nbh, part, cost in runs:
            extra = dict(args.bp_option) | ({} if workers == 1 else {"workers": workers})
            if branching:
                extra["branching"] = branching
            if part:
                extra["node_close_partial"] = part
            if cost not in ("off", "on"):
                raise SystemExit(f"--node-close-cost takes off and on, not {cost!r}")
            extra["node_close_cost"] = cost == "on"
            if args.reclose_root:
                extra["reclose_root"] = True
            if nbh == "off":
                extra["neighbourhood_time"] = 0
            elif nbh != "on":
                extra["neighbourhood_time"] = float(nbh)
            if args.close_gap_time is not None:
                extra["close_gap_time"] = args.close_gap_time
            t0, c0 = time.perf_counter(), time.process_time()
            r = branch_and_price(inst.X, args.k, time_limit=args.time_limit, **extra)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            print(f"| {inst.name} | {args.k} | {workers} | {r.branching} | {nbh} | {part} | "
                  f"{cost} | {r.status} | "
                  f"{r.closed_by} | {r.lower_bound:.4f} | {r.sse:.4f} | {r.gap:.3f} | "
                  f"{r.nodes} | {r.open_nodes} | {r.node_partial_closings}/"
                  f"{r.node_closing_incumbents} | {r.node_closings}/{r.nodes_enumerated}/"
                  f"{r.node_closings_skipped} | {r.seconds['neighbourhood']:.0f} | {dt:.0f} | "
                  f"{dc:.0f} | {os.getloadavg()[0]:.1f} |", flush=True)
            if args.heuristic:
                print(heuristic_line(inst, args.k, args.heuristic, r), flush=True)
    return 0


def heuristic_line(inst, k: int, seconds: float, r) -> str:
    """bp's root bounds, and the heuristics alone on the block against bp's best."""
    from mipagg import microaggregate
    from mipagg.exact.neighbourhood import exact_neighbourhood_search

    t0 = time.perf_counter()
    p = microaggregate(inst, k, "portfolio", time_limit=seconds, seed=0).partition
    t1 = time.perf_counter()
    q = exact_neighbourhood_search(inst.X, p, k, seed=0, time_limit=seconds).partition
    t2 = time.perf_counter()

    def excess(sse):
        return 100 * (sse - r.sse) / r.sse

    return (f"  {inst.name} k={k}: root LP bound {r.root_lp_bound:.4f} "
            f"({excess(r.root_lp_bound):+.3f} %), after cuts {r.root_cut_bound:.4f} "
            f"({excess(r.root_cut_bound):+.3f} %); portfolio {p.sse():.4f} "
            f"({excess(p.sse()):+.3f} %, {t1 - t0:.0f} s), + exact neighbourhood "
            f"{q.sse():.4f} ({excess(q.sse()):+.3f} %, {t2 - t1:.0f} s); % relative to bp's "
            f"SSE {r.sse:.4f} ({r.status})")


if __name__ == "__main__":
    sys.exit(main())
