"""Column generation (seed 001 §5, MicroaggregationHeuristicMP) on paper-style
instances: time to a certified lower bound, iterations, columns, time split
master/pricing/rounding, per pricing mode, with and without Wentges
stabilization and the Lagrangian bound; then the gap-closing step.

    .venv/bin/python benchmarks/bench_cg.py [--quick] [--time-limit S]

Instances: :func:`mipagg.subsets.subset` of Census and Tarragona (13 columns,
re-standardized), criteria "consecutive" and "random", subset index 0, seed 0;
sizes 30, 50, 100, 200 and k = 3, 4, 5 (``--quick``: sizes 30, 50, k = 3,
"random" only).  Configurations (``close_gap=False`` so they all stop at the
certified LP bound and are comparable):

* ``seed``       pricing auto with seed Table 2 (ILP for η ≥ 7), no Lagrangian sweep,
                 no stabilization: the seed's routine (n = 30, k ≤ 4, "random": slow);
* ``auto``       auto with the measured rule (enumeration), seed loop (lagrangian=False);
* ``auto+lag``   auto, Lagrangian sweep when exact pricing runs (the default
                 under a time or iteration limit; without one the default is ``auto``);
* ``auto+W+lag`` auto, Wentges smoothing (α = 0.5), Lagrangian sweep and stop;
* ``auto+Wa+lag``, ``enum+Wa+lag``  Wentges with the automatic α of Pessoa et al.;
* ``auto+N``     auto, Neame smoothing of the heuristic pricing only (α = 0.5), seed loop;
* ``auto+N+lag`` the same with the Lagrangian sweep;
* ``enum``       enumeration at every iteration, seed loop;
* ``enum+W+lag`` enumeration, Wentges, Lagrangian;
* ``ilp``        ILP pricing only (n = 30, k ≤ 4, "random").

Last, the default configuration with ``close_gap=True`` (``--close-time-limit``)
reports whether the optimum was proven and how long the gap closing took
(``--no-close`` skips it; ``--sizes 100,200`` picks sizes).

``--hotpaths`` instead times the default configuration (``close_gap=False``)
with the compiled heuristic pricing and the sparse MSTH pair sort against the
reference versions (numpy greedy, full sort of all pairs), alternating the two
in the same run on Census n = 200 "random", k = 3, 4, 5.  ``--mip-options``
times gap closing (n = 30, 50) with three HiGHS option sets for its MIP.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.exact.colgen import column_generation  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.subsets import subset  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

CONFIGS = {
    "seed": dict(pricing="auto", exact_rule="table2", lagrangian=False, stabilization=None),
    "auto": dict(pricing="auto", lagrangian=False, stabilization=None),
    "auto+lag": dict(pricing="auto", lagrangian=True, stabilization=None),
    "auto+W+lag": dict(pricing="auto", lagrangian=True, stabilization="wentges"),
    "auto+Wa+lag": dict(pricing="auto", lagrangian=True, stabilization="wentges", alpha="auto"),
    "enum+Wa+lag": dict(pricing="enumeration", lagrangian=True, stabilization="wentges",
                        alpha="auto"),
    "auto+N": dict(pricing="auto", lagrangian=False, stabilization="neame"),
    "auto+N+lag": dict(pricing="auto", lagrangian=True, stabilization="neame"),
    "enum": dict(pricing="enumeration", lagrangian=False, stabilization=None),
    "enum+W+lag": dict(pricing="enumeration", lagrangian=True, stabilization="wentges"),
    "ilp": dict(pricing="ilp", lagrangian=False, stabilization=None),
}
SMALL_ONLY = {"seed", "ilp"}   # run on n = 30, k <= 4, "random" only (slow ILP pricing)


def run_one(X, k, cfg, time_limit, close_gap=False):
    t0 = time.perf_counter()
    r = column_generation(X, k, time_limit=time_limit, close_gap=close_gap, **cfg)
    wall = time.perf_counter() - t0
    s = r.seconds
    return dict(wall=wall, status=r.status, it=r.iterations, cols=len(r.columns),
                master=s["master"], pricing=s["pricing"], rounding=s["rounding"],
                close=s["close_gap"], lb=r.lp_bound, final_lb=r.lower_bound, sse=r.sse,
                gap=r.gap, exact=r.exact, closing=r.gap_closing, src=r.bound_source,
                gaps=r.gaps())


def hotpaths(data, repeats=2):
    """Default configuration with the reference (numpy greedy pricing, full MSTH
    sort) and the fast hot paths, alternated; prints per-phase seconds."""
    from functools import partial
    from unittest import mock

    import mipagg.exact.colgen as colgen
    import mipagg.exact.pricing.heuristic as heur

    slow = [mock.patch.object(heur, "heuristic_pricing",
                              partial(heur.heuristic_pricing, compiled=False)),
            mock.patch.object(colgen, "distance_pair_order", lambda D: None)]
    print("| instance | k | version | total s | pricing s | rounding s | master s | iters | LP bound |")
    print("|---|---|---|---|---|---|---|---|---|")
    sums = defaultdict(float)
    for k in (3, 4, 5):
        sub = subset(data["census"], 200, "random", 0)
        for rep in range(repeats):
            for version in ("reference", "fast"):
                with contextlib.ExitStack() as stack:
                    if version == "reference":
                        for p in slow:
                            stack.enter_context(p)
                    out = run_one(sub.X, k, CONFIGS["auto+lag"], None)
                for key in ("wall", "pricing", "rounding", "master"):
                    sums[version, key] += out[key]
                print(f"| {sub.name} | {k} | {version} | {out['wall']:.2f} | {out['pricing']:.2f} | "
                      f"{out['rounding']:.2f} | {out['master']:.2f} | {out['it']} | "
                      f"{out['lb']:.6f} |", flush=True)
    for key in ("wall", "pricing", "rounding", "master"):
        print(f"\n{key}: reference {sums['reference', key]:.2f} s, fast {sums['fast', key]:.2f} s, "
              f"ratio {sums['fast', key] / sums['reference', key]:.2f}", end="")
    print()


MIP_VARIANTS = {
    "highs-default": dict(presolve="choose", mip_heuristic_run_rins=True,
                          mip_heuristic_run_rens=True, mip_heuristic_run_root_reduced_cost=True),
    "presolve-off": dict(presolve="off", mip_heuristic_run_rins=True,
                         mip_heuristic_run_rens=True, mip_heuristic_run_root_reduced_cost=True),
    "presolve-off, no sub-MIP": dict(presolve="off", mip_heuristic_run_rins=False,
                                     mip_heuristic_run_rens=False,
                                     mip_heuristic_run_root_reduced_cost=False),
}


def mip_options(data, time_limit):
    """Gap-closing time with three HiGHS option sets for the set-partitioning
    MIP (forced just before ``run``), n = 30 and 50, on the instances whose gap
    closing reaches the MIP."""
    import highspy

    import mipagg.exact.colgen as colgen

    orig_run, orig_close = highspy.Highs.run, colgen.close_gap_by_enumeration
    current = {}

    def run(self):
        for key, val in current.items():
            self.setOptionValue(key, val)
        return orig_run(self)

    def close(*a):
        highspy.Highs.run = run
        try:
            return orig_close(*a)
        finally:
            highspy.Highs.run = orig_run

    tot = defaultdict(float)
    proven = defaultdict(int)
    print("| instance | k | " + " | ".join(MIP_VARIANTS) + " |")
    print("|---|---|" + "---|" * len(MIP_VARIANTS))
    with contextlib.ExitStack() as stack:
        from unittest import mock
        stack.enter_context(mock.patch.object(colgen, "close_gap_by_enumeration", close))
        for n in (30, 50):
            for k in (3, 4, 5):
                for name, inst in data.items():
                    for crit in ("consecutive", "random"):
                        sub = subset(inst, n, crit, 0)
                        cells = []
                        for v, opts in MIP_VARIANTS.items():
                            current.clear()
                            current.update(opts)
                            r = column_generation(sub.X, k, time_limit=time_limit)
                            if r.gap_closing in ("not_needed", "too_many_columns"):
                                cells = None
                                break
                            tot[v] += r.seconds["close_gap"]
                            proven[v] += r.status == "optimal"
                            cells.append(f"{r.seconds['close_gap']:.2f} {r.status}")
                        if cells:
                            print(f"| {sub.name} | {k} | " + " | ".join(cells) + " |", flush=True)
    print("| total s / proven | | " + " | ".join(f"{tot[v]:.1f} / {proven[v]}"
                                               for v in MIP_VARIANTS) + " |")


def fmt(v, d=2):
    return "—" if v is None else f"{v:.{d}f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--time-limit", type=float, default=600.0,
                    help="per run (seconds); 'seed' and 'ilp' get min(this, 60)")
    ap.add_argument("--close-time-limit", type=float, default=60.0,
                    help="time limit of the runs with gap closing")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--sizes", default=None, help="comma-separated subset sizes")
    ap.add_argument("--no-close", action="store_true", help="skip the gap-closing runs")
    ap.add_argument("--hotpaths", action="store_true", help="reference vs fast hot paths only")
    ap.add_argument("--mip-options", action="store_true",
                    help="HiGHS option sets for the gap-closing MIP only (--close-time-limit)")
    args = ap.parse_args(argv)
    sizes = (30, 50) if args.quick else (30, 50, 100, 200)
    if args.sizes:
        sizes = tuple(int(v) for v in args.sizes.split(","))
    ks = (3,) if args.quick else (3, 4, 5)
    criteria = ("random",) if args.quick else ("consecutive", "random")
    configs = args.configs.split(",")
    data = {name: read_csv(DATA / f"{name}.csv") for name in ("census", "tarragona")}

    print(f"# bench_cg — {machine()}")
    print(f"command: benchmarks/bench_cg.py {' '.join(argv if argv is not None else sys.argv[1:])}\n")
    column_generation(data["census"].X[:30], 3)   # compile the numba kernels first
    if args.hotpaths:
        hotpaths(data)
        return
    if args.mip_options:
        mip_options(data, args.close_time_limit)
        return
    print("| instance | k | config | status | wall s | iters | columns | master s | pricing s "
          "| rounding s | LP bound | best SSE | gap % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for n in sizes:
        for k in ks:
            for name, inst in data.items():
                for crit in criteria:
                    sub = subset(inst, n, crit, 0)
                    for c in configs:
                        if c in SMALL_ONLY and (n > 30 or k > 4 or crit != "random"):
                            continue
                        tl = min(args.time_limit, 60.0) if c in SMALL_ONLY else args.time_limit
                        out = run_one(sub.X, k, CONFIGS[c], tl)
                        out.update(instance=sub.name, n=n, k=k, config=c)
                        rows.append(out)
                        print(f"| {sub.name} | {k} | {c} | {out['status']} | {out['wall']:.2f} | "
                              f"{out['it']} | {out['cols']} | {out['master']:.2f} | "
                              f"{out['pricing']:.2f} | {out['rounding']:.2f} | {fmt(out['lb'], 4)} | "
                              f"{out['sse']:.4f} | {fmt(out['gap'], 3)} |", flush=True)

    # aggregate per (n, config)
    print("\n## Summary per size and configuration (time to certified LP bound)\n")
    print("| n | config | runs | certified | mean s | max s | total s | ratio to `auto` | "
          "mean iters | mean columns | share master/pricing/rounding |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    groups = defaultdict(list)
    for r in rows:
        groups[r["n"], r["config"]].append(r)
    for n in sizes:
        base = {(r["instance"], r["k"]): r["wall"] for r in groups.get((n, "auto"), [])}
        for c in configs:
            g = groups.get((n, c))
            if not g:
                continue
            walls = np.array([r["wall"] for r in g])
            cert = sum(r["status"] in ("converged", "optimal") for r in g)
            pairs = [(r["wall"], base[r["instance"], r["k"]]) for r in g
                     if (r["instance"], r["k"]) in base]
            ratio = sum(a for a, _ in pairs) / sum(b for _, b in pairs) if pairs else None
            tot = sum(r["master"] + r["pricing"] + r["rounding"] for r in g) or 1.0
            share = "/".join(f"{100 * sum(r[p] for r in g) / tot:.0f}%"
                             for p in ("master", "pricing", "rounding"))
            print(f"| {n} | {c} | {len(g)} | {cert} | {walls.mean():.2f} | {walls.max():.2f} | "
                  f"{walls.sum():.1f} | {fmt(ratio)} | {np.mean([r['it'] for r in g]):.0f} | "
                  f"{np.mean([r['cols'] for r in g]):.0f} | {share} |")

    # bounds agree across exact configurations
    worst = 0.0
    by_inst = defaultdict(list)
    for r in rows:
        if r["status"] in ("converged", "optimal"):
            by_inst[r["instance"], r["k"]].append(r["lb"])
    for lbs in by_inst.values():
        worst = max(worst, (max(lbs) - min(lbs)) / max(abs(max(lbs)), 1e-12))
    print(f"\nlargest relative spread of the certified LP bound across configurations: {worst:.1e}")

    # gaps (formula (15)) and gap closing, default configuration
    if args.no_close:
        return
    print("\n## Default configuration with gap closing (close_gap=True)\n")
    print("| instance | k | status | CG s | close s | closing | LB | best SSE | gap % | "
          "gap MDAV | gap V-MDAV | gap MSTH | gap SRH |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["config"] != "auto+lag":
            continue
        sub = subset(data[r["instance"].split("-")[0]], r["n"], r["instance"].split("-")[2], 0)
        out = run_one(sub.X, r["k"], CONFIGS["auto+lag"], args.close_time_limit, close_gap=True)
        g = out["gaps"]
        print(f"| {r['instance']} | {r['k']} | {out['status']} | {out['wall'] - out['close']:.2f} | "
              f"{out['close']:.2f} | {out['closing']} | {fmt(out['final_lb'], 4)} | "
              f"{out['sse']:.4f} | {fmt(out['gap'], 3)} | {fmt(g['gap_mdav'])} | "
              f"{fmt(g['gap_vmdav'])} | {fmt(g['gap_msth'])} | {fmt(g['gap_srh'])} |", flush=True)


if __name__ == "__main__":
    main()
