"""Root bound of ``bp`` with today's subset-row cuts against subset-row plus
rank-1 cuts on four and five rows (:mod:`mipagg.exact.rank1`, Pecin et al.
2017), same run, same instance (issue 22).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_cuts.py [--quick] [--ks 3,5,10]
        [--census 100,200,300] [--lognormal 200,300] [--seeds 1] [--casc tarragona,census]
        [--configs sr3,sr3+r1]
        [--rounds 10] [--tail-off 0.02] [--time-limit 600] [--json out.jsonl]

Each configuration runs the root of :class:`~mipagg.exact.bp.BranchAndPrice`
only: column generation to the LP bound, then its cut rounds (each followed by
column generation whose pricing pays the cut duals), nothing else (no dive,
pool MIP, gap closing or tree), one pricing thread.  Instances: Census
subsets (:func:`mipagg.subsets.subset`, criterion "random", index 0;
``/work/shared/data/census.csv``, never committed),
:func:`mipagg.generators.lognormal` files (11 columns) and, with ``--casc``,
the full Census and Tarragona files started from the committed best-known
partition of the cell (the same incumbent for every configuration).  Configurations:

* ``sr3``      subset-row cuts (today's default, ``cut_families=("subset_row",)``);
* ``sr3+r1``   subset-row and rank-1 cuts (:class:`~mipagg.exact.rank1.Rank1Cuts`)
  every round;
* ``r1``       rank-1 cuts alone;
* ``sr3+r1+m7``  as ``sr3+r1`` plus the 7-row cuts with p = ¼.

Printed per run: root LP bound, bound after cuts, the lift (after − LP),
cuts, rounds, seconds of the root LP and of the cut rounds, and the share of
the gap UB − LP closed, UB the best incumbent over the configurations of the
instance (the same reference for all of them).

``--check``: instead, run subset-row cuts to exhaustion (30 rounds, no
tail-off) and print, at the final master LP solution, the largest left-hand
side of a 3-, 4- and 5-row rank-1 cut the separation heuristic finds, and by
enumerating every row set of the fractional support (when it has at most
``--exhaustive-max`` records) the true largest one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.exact.bp import BranchAndPrice  # noqa: E402
from mipagg.exact.cuts import Rank1Cut  # noqa: E402
from mipagg.exact.rank1 import Rank1Cuts  # noqa: E402
from mipagg.exact.rules import SubsetRowCuts  # noqa: E402
from mipagg.exact.settings import BPSettings  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
CONFIGS = {"sr3": (SubsetRowCuts,), "sr3+r1": (SubsetRowCuts, Rank1Cuts), "r1": (Rank1Cuts,),
           "sr3+r1+m7": (SubsetRowCuts, partial(Rank1Cuts, (4, 5, 7)))}


def root_with_cuts(X, k, families, *, rounds, tail_off, time_limit, initial=None):
    """Root column generation and cut rounds of ``bp`` with the cut family
    classes ``families`` (classes, so that the 7-row variant can be passed),
    from the partition ``initial`` when given."""
    st = BPSettings(time_limit=time_limit, threads=1, max_cut_rounds=rounds,
                    tail_off=tail_off, close_gap=False, mip_time=0, dive_time=0)
    bp = BranchAndPrice(X, k, st, initial=initial)
    bp.cut_families = [cls() for cls in families]
    t0 = time.perf_counter()
    bp.root_column_generation()
    bp.cut_rounds()
    total = time.perf_counter() - t0
    n_r1 = sum(1 for c in bp.master.cuts if isinstance(c, Rank1Cut))
    return {"lp": bp.root_lp_bound, "cut": bp.root_cut_bound, "ub": bp.rounder.best_sse,
            "cuts": len(bp.master.cuts), "rank1_cuts": n_r1, "rounds": bp.cut_rounds_done,
            "root_s": bp.seconds["root"], "cuts_s": bp.seconds["cuts"], "total_s": total,
            "columns": len(bp.master)}


def check(X, k, exhaustive_max):
    """Largest rank-1 left-hand sides after subset-row cuts to exhaustion."""
    import itertools

    from mipagg.exact.cuts import separate_subset_rows
    from mipagg.exact.rank1 import PATTERNS, separate_rank1

    st = BPSettings(threads=1, cut_families=("subset_row",), max_cut_rounds=30, tail_off=0.0,
                    close_gap=False, mip_time=0, dive_time=0)
    bp = BranchAndPrice(X, k, st)
    bp.root_column_generation()
    bp.cut_rounds()
    x = bp.root.solution.x
    cols, n = bp.master.columns[:x.size], X.shape[0]
    out = {"lp": bp.root_lp_bound, "cut": bp.root_cut_bound, "rounds": bp.cut_rounds_done}
    fr = np.flatnonzero((x > 1e-9) & (x < 1 - 1e-9))
    recs = sorted(set(np.concatenate([cols[j] for j in fr]).tolist())) if fr.size else []
    out["fractional_records"] = len(recs)
    sr = separate_subset_rows(cols, x, n, min_violation=0.0, max_cuts=10**6,
                              max_per_record=10**6)
    out["heuristic_3"] = max((v for _, v in sr), default=0.0)
    for size in PATTERNS:
        found = separate_rank1(cols, x, n, sizes=(size,), min_violation=0.0, max_cuts=10**6,
                               max_per_record=10**6)
        out[f"heuristic_{size}"] = max((v for _, v in found), default=0.0)
    if 0 < len(recs) <= exhaustive_max:
        idx = {v: i for i, v in enumerate(recs)}
        M = np.zeros((fr.size, len(recs)), dtype=np.int64)
        for a, j in enumerate(fr):
            M[a, [idx[int(v)] for v in cols[j]]] = 1
        for size, (nums, den) in PATTERNS.items():
            if size > 5:
                continue
            combs = np.array(list(itertools.combinations(range(len(recs)), size)))
            best = 0.0
            for h in range(size) if nums[0] != nums[-1] else [0]:
                w = np.full(size, nums[-1], dtype=np.int64)
                w[h] = nums[0]
                for lo in range(0, len(combs), 100_000):
                    acc = (M[:, combs[lo:lo + 100_000]] * w).sum(axis=2) // den
                    best = max(best, float((x[fr][:, None] * acc).sum(axis=0).max()))
            out[f"exhaustive_{size}"] = best
    return out


def instances(args):
    """(name, X, CASC file name or None) per instance."""
    for data in (d for d in args.casc.split(",") if d):
        yield data, read_csv(DATA / f"{data}.csv").X, data
    if args.census:
        census = read_csv(DATA / "census.csv")
        for n in (int(v) for v in args.census.split(",")):
            yield f"census-n{n}-random-0", subset(census, n, "random", 0).X, None
    if args.lognormal:
        for n in (int(v) for v in args.lognormal.split(",")):
            for s in (int(v) for v in args.seeds.split(",")):
                yield f"lognormal-n{n}-seed{s}", lognormal(n, 11, seed=s).X, None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="census n=100, k=3 only")
    ap.add_argument("--ks", default="3,5,10")
    ap.add_argument("--census", default="100,200,300")
    ap.add_argument("--lognormal", default="300")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--casc", default="", help="full CASC files (census,tarragona), each "
                    "from its committed label file instances/solutions/{data}_k{K}.csv")
    ap.add_argument("--configs", default="sr3,sr3+r1")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--tail-off", type=float, default=0.02)
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--json", default=None, help="append one JSON line per run")
    ap.add_argument("--check", action="store_true", help="violations left after SR3 cuts")
    ap.add_argument("--exhaustive-max", type=int, default=40)
    args = ap.parse_args(argv)
    if args.quick:
        args.ks, args.census, args.lognormal = "3", "100", ""
    configs = [c for c in args.configs.split(",") if c]
    print(machine())
    if args.check:
        for name, X, _ in instances(args):
            for k in (int(v) for v in args.ks.split(",")):
                r = check(X, k, args.exhaustive_max)
                print(name, f"k={k}", f"load={os.getloadavg()[0]:.1f}",
                      {a: round(b, 4) if isinstance(b, float) else b for a, b in r.items()},
                      flush=True)
        return
    print("| instance | k | config | LP | after cuts | lift | lift ratio | gap closed % "
          "| cuts (rank-1) | rounds | root s | cuts s | load |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for name, X, data in instances(args):
        for k in (int(v) for v in args.ks.split(",")):
            initial = None if data is None else np.loadtxt(
                ROOT / "instances" / "solutions" / f"{data}_k{k}.csv", skiprows=1, dtype=int)
            runs = {}
            for cfg in configs:
                load = os.getloadavg()[0]
                r = root_with_cuts(X, k, CONFIGS[cfg], rounds=args.rounds,
                                   tail_off=args.tail_off, time_limit=args.time_limit,
                                   initial=initial)
                r.update(instance=name, k=k, config=cfg, load=load)
                runs[cfg] = r
            ub = min(r["ub"] for r in runs.values())
            base = runs[configs[0]]
            base_lift = base["cut"] - base["lp"]
            for cfg, r in runs.items():
                lift = r["cut"] - r["lp"]
                open_gap = ub - r["lp"] > 1e-7 * max(1.0, abs(ub))   # else the LP closed it
                r["gap_closed"] = 100 * lift / (ub - r["lp"]) if open_gap else None
                r["ub_ref"] = ub
                ratio = f"{lift / base_lift:.2f}" if base_lift > 1e-9 else "–"
                closed = "–" if r["gap_closed"] is None else f"{r['gap_closed']:.1f}"
                print(f"| {name} | {k} | {cfg} | {r['lp']:.4f} | {r['cut']:.4f} | {lift:.4f} "
                      f"| {ratio} | {closed} | {r['cuts']} ({r['rank1_cuts']}) | {r['rounds']} "
                      f"| {r['root_s']:.1f} | {r['cuts_s']:.1f} | {r['load']:.1f} |",
                      flush=True)
                if args.json:
                    with open(args.json, "a") as fh:
                        fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
