"""How many clusters lie below the root gap (issue 22): is root gap closing
by enumeration within reach on a full CASC file?

    python benchmarks/bp_gap_columns.py tarragona 5 [--cap 20000000] [--seconds 1800]
        [--max-cut-rounds 10] [--tail-off 0.02]

Runs bp's root (column generation from the committed partition
``instances/solutions/{data}_k{K}.csv``, then the cut rounds and pair fixing,
no dive), then counts, per cluster size η = k..2k−1, the clusters whose
reduced cost at the certified duals (cut penalties and fixed pairs included)
is below UB − LB: exactly the columns root gap closing
(:func:`mipagg.exact.gapclosing.close_gap_by_enumeration`) would need.  A
size stops at ``--cap`` clusters or after ``--seconds``; one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mipagg.exact.bounds import enumerate_below  # noqa: E402
from mipagg.exact.bp import BranchAndPrice  # noqa: E402
from mipagg.exact.pricing.constraints import PricingConstraints  # noqa: E402
from mipagg.exact.settings import BPSettings  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("k", type=int)
    ap.add_argument("--cap", type=int, default=20_000_000)
    ap.add_argument("--seconds", type=float, default=1800.0, help="per cluster size")
    ap.add_argument("--root-time", type=float, default=3600.0)
    ap.add_argument("--max-cut-rounds", type=int, default=10)
    ap.add_argument("--tail-off", type=float, default=0.02)
    args = ap.parse_args(argv)
    inst = read_csv(DATA / f"{args.data}.csv")
    labels = np.loadtxt(ROOT / "instances" / "solutions" / f"{args.data}_k{args.k}.csv",
                        skiprows=1, dtype=int)
    t0 = time.perf_counter()
    bp = BranchAndPrice(inst.X, args.k, BPSettings(
        time_limit=args.root_time, dive_time=0, max_cut_rounds=args.max_cut_rounds,
        tail_off=args.tail_off),
                        initial=labels)
    bp.root_column_generation()
    bp.cut_rounds()
    bp.fix_pairs()
    stop = bp.root.stop
    ub, lb = bp.rounder.best_sse, stop.bound
    out = {"data": args.data, "k": args.k, "n": bp.n, "ub": ub, "lb": lb,
           "root_lp_bound": bp.root_lp_bound, "cuts": len(bp.master.cuts),
           "cut_rounds": bp.cut_rounds_done, "max_cut_rounds": args.max_cut_rounds,
           "tail_off": args.tail_off,
           "root_seconds": time.perf_counter() - t0,
           "fixed_pairs": None if bp.fixer is None else int(bp.fixer.fixed.sum()),
           "candidate_pairs": None if bp.fixer is None else len(bp.fixer.pairs), "sizes": {}}
    print(json.dumps(out, default=float), flush=True)
    cuts = [] if stop.cut_duals is None else \
        [(S, max(-float(s), 0.0)) for S, s in zip(bp.master.cuts, stop.cut_duals)]
    cons = PricingConstraints.build(bp.n, apart=bp.root_fixed(), cuts=cuts)
    threshold = ub - lb + bp.tol_abs
    for eta in range(args.k, 2 * args.k):
        t1 = time.perf_counter()
        status, found = enumerate_below(
            bp.D, stop.duals, eta, threshold, max_columns=args.cap, max_nodes=10**12,
            deadline=t1 + args.seconds, constraints=cons, space=bp.ctx.space(eta),
            threads=bp.ctx.threads)
        out["sizes"][eta] = {"status": status, "clusters": None if found is None else len(found),
                             "seconds": time.perf_counter() - t1}
        print(json.dumps({"eta": eta, **out["sizes"][eta]}), flush=True)
    print(json.dumps(out, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
