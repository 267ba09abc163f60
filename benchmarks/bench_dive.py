"""bp's dive when its budget is too short for it (issue 22).

    PYTHONPATH=<tree> .venv/bin/python benchmarks/bench_dive.py [--quick] [--shares 0.1,0.3]
                                                                [--instances NAME,...]

Per instance, bp's root (no cuts, no pool MIP, no neighbourhood search, no
tree: ``node_limit=1``, one thread) is followed by its dive, first without a
clock (it runs to its end: D seconds, the reference), then with
``dive_time`` = share·D for each share.  One line per run: the dive's
seconds and steps, the incumbent's SSE before the dive (the root's
roundings) and after it.  Run it
with ``PYTHONPATH`` on the code before and after a change to compare: the
wall-clock budgets make both depend on the machine's load, so alternate.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

import mipagg.exact.bproot as bproot  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
ROOT_ONLY = dict(cuts=False, close_gap=False, mip_time=0, neighbourhood_time=0, node_limit=1,
                 threads=1)


def _recording_dive(seen: list):
    """bp's dive, wrapped to note the incumbent's SSE when it starts."""
    real = bproot.dive

    def dive(master, ctx, settings, rounder, X, end):
        seen.append(rounder.best_sse)
        return real(master, ctx, settings, rounder, X, end)
    return dive


def instances(quick: bool):
    census = read_csv(DATA / "census.csv")
    tarragona = read_csv(DATA / "tarragona.csv")
    cases = [("census-n300-random-0", subset(census, 300, "random", 0).X, 10),
             ("tarragona-n300-random-0", subset(tarragona, 300, "random", 0).X, 10),
             ("census-n500-random-1", subset(census, 500, "random", 1).X, 6),
             ("lognormal-1000-s0", lognormal(1000, 10, seed=0).X, 3)]
    return cases[:1] if quick else cases


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--shares", default="0.1,0.3",
                    help="dive budgets as shares of the unlimited dive's seconds")
    ap.add_argument("--instances", help="comma-separated names (default: all)")
    args = ap.parse_args(argv)
    shares = [float(s) for s in args.shares.split(",")]
    names = None if args.instances is None else args.instances.split(",")
    seen: list = []
    bproot.dive = _recording_dive(seen)
    print(f"machine: {machine()}")
    branch_and_price(lognormal(30, 3, seed=0).X, 3, threads=1)   # warm-up (numba caches)
    print("| instance | k | dive budget | dive s | dive steps | SSE before the dive | "
          "SSE after it |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for name, X, k in instances(args.quick):
        if names is not None and name not in names:
            continue
        D = None
        for share in [None, *shares]:
            budget = None if share is None else share * D
            seen.clear()
            r = branch_and_price(X, k, dive_time=budget, **ROOT_ONLY)
            if share is None:
                D = r.seconds["dive"]
            label = "none (D)" if share is None else f"{share:g}·D = {budget:.1f} s"
            print(f"| {name} | {k} | {label} | {r.seconds['dive']:.1f} | {r.dive_steps} | "
                  f"{f'{seen[0]:.4f}' if seen else '– (no dive)'} | {r.sse:.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
