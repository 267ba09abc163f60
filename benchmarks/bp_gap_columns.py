"""How many clusters lie below the root gap (issue 22): is root gap closing
by enumeration within reach on a full CASC file?

    python benchmarks/bp_gap_columns.py tarragona 5 [--cap 20000000] [--seconds 1800]
        [--max-cut-rounds 10] [--tail-off 0.02] [--fractions 1,0.1,0.01]
    python benchmarks/bp_gap_columns.py census 5 --rows 600:900 --fractions 1,0.5,0.25

Runs bp's root (column generation from the committed partition
``instances/solutions/{data}_k{K}.csv``, then the cut rounds and pair fixing,
no dive; with ``--rows``, on a block of the file, with bp's dive), then counts, per cluster size η = k..2k−1, the clusters whose
reduced cost at the certified duals (cut penalties and fixed pairs included)
is below UB − LB: exactly the columns root gap closing
(:func:`mipagg.exact.gapclosing.close_gap_by_enumeration`) would need; with
``--fractions``, also below shares of that gap (how far the bound or the
incumbent must move before gap closing fits).  A
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

from mipagg.exact.bounds import enumerate_below, lagrangian_bound  # noqa: E402
from mipagg.exact.bp import BranchAndPrice, cut_constraints  # noqa: E402
from mipagg.exact.pricing.rounds import pricing_round  # noqa: E402
from mipagg.exact.settings import BPSettings  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def central_duals(bp, rounds=30):
    """Duals of the root's restricted master from HiGHS's interior point
    method without crossover (a point inside the optimal dual face, not a
    vertex), made dual feasible for the whole master by pricing exactly at
    them and adding the negative columns found; their certified Lagrangian
    bound (cut duals clipped to ≤ 0, which keeps it valid)."""
    import highspy

    n, k, master = bp.n, bp.k, bp.master
    info = {"rounds": 0, "columns_added": 0, "values": []}
    for _ in range(rounds):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.passModel(master._highs.getModel())  # noqa: SLF001  (a probe, not the package)
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "off")
        h.setOptionValue("threads", 1)
        h.run()
        row = np.asarray(h.getSolution().row_dual, dtype=float)
        lam, sig = row[:n], np.minimum(row[n:], 0.0)
        cons = cut_constraints(bp.master, bp.n, sig, apart=bp.root_fixed())
        r = pricing_round(bp.ctx, lam, mode="enumeration", constraints=cons,
                          complete=True, max_columns=100)
        lb = lagrangian_bound(lam, r.min_reduced_costs, k) + float(sig.sum())
        info["rounds"] += 1
        info["values"].append((h.getInfo().objective_function_value, lb))
        added = master.add_columns(r.columns)
        info["columns_added"] += added
        if min(r.min_reduced_costs.values()) >= -bp.ctx.tol or not added:
            break
    return lam, sig, lb, info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("k", type=int)
    ap.add_argument("--cap", type=int, default=20_000_000)
    ap.add_argument("--seconds", type=float, default=1800.0, help="per cluster size")
    ap.add_argument("--root-time", type=float, default=3600.0)
    ap.add_argument("--max-cut-rounds", type=int, default=10)
    ap.add_argument("--tail-off", type=float, default=0.02)
    ap.add_argument("--rows", metavar="START:STOP",
                    help="a block of consecutive records (an instance of its own, "
                         "standardized like every subset; incumbent from bp's dive)")
    ap.add_argument("--duals", choices=("vertex", "central"), default="vertex",
                    help="count at the root's simplex duals (vertex, what bp uses) or at "
                         "interior-point duals without crossover (central), made dual "
                         "feasible by column generation at them")
    ap.add_argument("--fractions", default="1",
                    help="comma-separated shares of the gap to count below (default 1)")
    args = ap.parse_args(argv)
    inst = read_csv(DATA / f"{args.data}.csv")
    labels = None
    if args.rows:
        start, stop = (int(v) for v in args.rows.split(":"))
        inst = inst.subset(list(range(start, min(stop, inst.n))))
    else:
        labels = np.loadtxt(ROOT / "instances" / "solutions" / f"{args.data}_k{args.k}.csv",
                            skiprows=1, dtype=int)
    t0 = time.perf_counter()
    bp = BranchAndPrice(inst.X, args.k, BPSettings(
        time_limit=args.root_time, dive_time=None if args.rows else 0,
        max_cut_rounds=args.max_cut_rounds, tail_off=args.tail_off), initial=labels)
    bp.root_column_generation()
    bp.cut_rounds()
    bp.fix_pairs()
    bp.dive_phase()
    stop = bp.root.stop
    ub, lb = bp.rounder.best_sse, stop.bound
    out = {"data": args.data, "rows": args.rows, "k": args.k, "n": bp.n, "ub": ub, "lb": lb,
           "root_lp_bound": bp.root_lp_bound, "cuts": len(bp.master.cuts),
           "cut_rounds": bp.cut_rounds_done, "max_cut_rounds": args.max_cut_rounds,
           "tail_off": args.tail_off,
           "root_seconds": time.perf_counter() - t0,
           "fixed_pairs": None if bp.fixer is None else int(bp.fixer.fixed.sum()),
           "candidate_pairs": None if bp.fixer is None else len(bp.fixer.pairs), "sizes": {}}
    print(json.dumps(out, default=float), flush=True)
    lam, sig = stop.duals, stop.cut_duals
    if args.duals == "central":
        lam, sig, lb, info = central_duals(bp)
        out.update(lb=lb, central=info)
        print(json.dumps({"central": info, "lb": lb}, default=float), flush=True)
    cons = cut_constraints(bp.master, bp.n, sig, apart=bp.root_fixed())
    for share in (float(f) for f in args.fractions.split(",")):
        threshold = share * (ub - out["lb"]) + bp.tol_abs
        for eta in range(args.k, 2 * args.k):
            t1 = time.perf_counter()
            status, found = enumerate_below(
                bp.D, lam, eta, threshold, max_columns=args.cap, max_nodes=10**12,
                deadline=t1 + args.seconds, constraints=cons, space=bp.ctx.space(eta),
                threads=bp.ctx.threads)
            row = {"share": share, "threshold": threshold, "eta": eta, "status": status,
                   "clusters": None if found is None else len(found),
                   "seconds": time.perf_counter() - t1}
            out["sizes"][f"{share}:{eta}"] = row
            print(json.dumps(row), flush=True)
    print(json.dumps(out, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
