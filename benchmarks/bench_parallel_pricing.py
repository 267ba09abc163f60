"""Parallel exact pricing (issue 8, "Scale"): the same exact pricing calls with
threads=1 and threads=2, alternated in the same run, on the full Census file.

    .venv/bin/python benchmarks/bench_parallel_pricing.py [--ks 5,10] [--repeats 2]
        [--threads 2] [--call-limit 300] [--dual-seconds 120]
        [--save-duals PATH.npz | --duals PATH.npz] [--json PATH]

Input: the duals λ of the restricted master LP over the columns of a
column-generation run (threads=1, ``close_gap=False``, time limit
``--dual-seconds``), re-solved by :class:`mipagg.exact.master.MasterProblem`
(lp_algorithm "auto").  ``--dual-source cg`` (default): the default run (exact
pricing); when it converged, these are the calls that certify the bound (the
minimum reduced cost is about 0, so the whole tree down to the floor 0 is
searched: the expensive calls).  ``--dual-source heuristic``:
``pricing="heuristic"``, stopped when heuristic pricing found no column (the
first exact calls of a run; the minimum is far below 0 and found fast).  At these duals
:func:`mipagg.exact.pricing.rounds.pricing_round` calls
:func:`mipagg.exact.pricing.enumeration.enumeration_pricing` for every
η = k..2k−1 with ``floor=0``, ``max_columns`` = max(10, n // 2k) and the
shared :class:`~mipagg.exact.pricing.search.SearchSpace`; this benchmark makes
exactly those calls.  ``--save-duals`` stores λ (and how they were obtained) so
the timing can be repeated on a quieter machine with ``--duals``.

Then per k, the **whole pricing round** as ``cg`` makes it
(:func:`~mipagg.exact.pricing.rounds.pricing_round`, ``complete=True``,
mode "enumeration": the round of ``cg``'s default mode "auto" once the
heuristic pricing finds nothing, without the heuristic's few milliseconds),
with threads=1 and threads=T (the sizes one after the other, each split
between the threads), the order alternated per repeat.  This is the figure of
the issue's target (≥ 1.7× on 2 cores); the certified minimum of every size
is asserted equal.

Per (k, η): the wall time of each call at threads=1 and threads=T (order
alternated per repeat: 1,T then T,1), the median per thread count, the speed-up
ratio t1/tT, and a check that both return the same certified minimum reduced
cost (asserted; equal to 1e-9·max(1, |min|)), same number of columns.  Totals:
the sum of the medians over the calls that completed within ``--call-limit``
at both thread counts.  Wall-clock, so the load of the machine matters: the
header prints the load average at start.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

import mipagg  # noqa: E402
from mipagg.exact.colgen import auto_max_columns, column_generation  # noqa: E402
from mipagg.exact.master import MasterProblem, squared_distances  # noqa: E402
from mipagg.exact.pricing.enumeration import enumeration_pricing  # noqa: E402
from mipagg.exact.pricing.rounds import PricingContext, pricing_round  # noqa: E402
from mipagg.exact.settings import resolve_lp_algorithm  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def cg_duals(X, k, seconds, source):
    """λ of the master over the columns of a CG run: ``source`` "heuristic"
    (pricing="heuristic") or "cg" (the defaults: exact pricing, so at
    convergence these are the duals whose pricing certifies the bound)."""
    t0 = time.perf_counter()
    r = column_generation(X, k, pricing="heuristic" if source == "heuristic" else "auto",
                          time_limit=seconds, close_gap=False, threads=1)
    mp = MasterProblem(X, squared_distances(X), algorithm=resolve_lp_algorithm("auto"))
    mp.add_columns(r.columns)
    sol = mp.solve()
    return sol.duals, dict(status=r.status, iterations=r.iterations, columns=len(r.columns),
                           lp_value=sol.value, seconds=time.perf_counter() - t0)


def call(ctx, duals, eta, threads, max_columns, limit):
    t0 = time.perf_counter()
    r = enumeration_pricing(ctx.D, duals, eta, max_columns=max_columns, time_limit=limit,
                            tol=ctx.tol, floor=0.0, threads=threads, space=ctx.space(eta),
                            checked=True)
    return time.perf_counter() - t0, r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ks", default="5,10")
    ap.add_argument("--threads", type=int, default=2, help="compared against threads=1")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--call-limit", type=float, default=300.0,
                    help="time limit of one pricing call (s)")
    ap.add_argument("--dual-seconds", type=float, default=120.0,
                    help="time limit of the heuristic CG run that yields the duals")
    ap.add_argument("--dual-source", choices=("heuristic", "cg"), default="cg",
                    help="duals of a heuristic-pricing CG run, or of a default CG run "
                         "(converged: the certificate calls, min reduced cost ~ 0)")
    ap.add_argument("--save-duals", default=None)
    ap.add_argument("--duals", default=None, help="load duals saved by --save-duals")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    T = args.threads

    env = machine()
    print(f"# bench_parallel_pricing — {env}")
    print(f"command: .venv/bin/python benchmarks/bench_parallel_pricing.py {' '.join(argv)}")
    print(f"mipagg {mipagg.__version__}, date {time.strftime('%Y-%m-%d %H:%M %Z')}\n")
    X = read_csv(DATA / "census.csv").X
    n = X.shape[0]
    D = squared_distances(X)
    ks = [int(v) for v in args.ks.split(",")]

    saved = dict(np.load(args.duals, allow_pickle=True)) if args.duals else {}
    duals, origin = {}, {}
    for k in ks:
        if f"duals_{k}" in saved:
            duals[k] = saved[f"duals_{k}"]
            origin[k] = json.loads(str(saved[f"origin_{k}"]))
        else:
            duals[k], origin[k] = cg_duals(X, k, args.dual_seconds, args.dual_source)
            origin[k]["source"] = args.dual_source
        o = origin[k]
        print(f"k = {k}: duals from {o.get('source', 'heuristic')} CG ({o['status']}, "
              f"{o['iterations']} iterations, {o['columns']} columns, master LP {o['lp_value']:.4f}, {o['seconds']:.0f} s)")
    if args.save_duals:
        np.savez(args.save_duals, **{f"duals_{k}": duals[k] for k in ks},
                 **{f"origin_{k}": json.dumps(origin[k]) for k in ks})

    # compile the kernels (and start the threads once) before timing
    warm = PricingContext(D[:60, :60], 3, threads=T)
    for t in (1, T):
        call(warm, np.full(60, 5.0), 4, t, 10, None)

    print(f"\n| k | η | status | t=1 s (each) | t={T} s (each) | t=1 median | t={T} median "
          f"| speed-up | min w̄ | columns | expansions t=1 / t={T} |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for k in ks:
        ctx = PricingContext(D, k, threads=1)
        mc = auto_max_columns("auto", n, k)
        for eta in range(k, 2 * k):
            ctx.space(eta)   # build outside the timing, as in a cg run
            times = {1: [], T: []}
            res = {}
            for rep in range(args.repeats):
                for t in ((1, T) if rep % 2 == 0 else (T, 1)):
                    sec, r = call(ctx, duals[k], eta, t, mc, args.call_limit)
                    times[t].append(sec)
                    res[t] = r
            r1, rT = res[1], res[T]
            done = r1.status == "optimal" and rT.status == "optimal"
            if done:
                m1, mT = r1.min_reduced_cost, rT.min_reduced_cost
                assert (m1 is None) == (mT is None), (k, eta, m1, mT)
                if m1 is not None:
                    assert abs(m1 - mT) <= 1e-9 * max(1.0, abs(m1)), (k, eta, m1, mT)
                assert len(r1.columns) == len(rT.columns), (k, eta)
            med1, medT = statistics.median(times[1]), statistics.median(times[T])
            row = dict(k=k, eta=eta, status="complete" if done else
                       f"{r1.status}/{rT.status}", times_1=times[1], times_T=times[T],
                       median_1=med1, median_T=medT, speedup=med1 / medT if medT > 0 else None,
                       min_rc=r1.min_reduced_cost if done else None,
                       min_exact=r1.info.get("min_exact"), columns=len(r1.columns),
                       expansions_1=r1.info.get("expansions"),
                       expansions_T=rT.info.get("expansions"))
            rows.append(row)
            mrc = "—" if row["min_rc"] is None else f"{row['min_rc']:.6g}"
            print(f"| {k} | {eta} | {row['status']} | "
                  f"{', '.join(f'{v:.2f}' for v in times[1])} | "
                  f"{', '.join(f'{v:.2f}' for v in times[T])} | {med1:.2f} | {medT:.2f} | "
                  f"{row['speedup']:.2f} | {mrc} | {row['columns']} | "
                  f"{row['expansions_1']} / {row['expansions_T']} |", flush=True)

    print(f"\n### Whole pricing rounds (pricing_round, mode enumeration, complete=True)\n")
    print(f"Order of t=1 and t={T} alternated per repeat.\n")
    print(f"| k | exact sizes | t=1 s (each) | t={T} s (each) | t=1 median | t={T} median "
          f"| **speed-up** | min w̄ (least over η) | columns |")
    print("|---|---|---|---|---|---|---|---|---|")
    round_rows = []
    for k in ks:
        mc = auto_max_columns("auto", n, k)
        ctxs = {t: PricingContext(D, k, threads=t) for t in (1, T)}
        for ctx in ctxs.values():
            for eta in ctx.sizes:
                ctx.space(eta)
        times, res = {1: [], T: []}, {}
        for rep in range(args.repeats):
            for t in ((1, T) if rep % 2 == 0 else (T, 1)):
                t0 = time.perf_counter()
                res[t] = pricing_round(ctxs[t], duals[k], mode="enumeration", complete=True,
                                       max_columns=mc,
                                       deadline=time.perf_counter() + args.call_limit)
                times[t].append(time.perf_counter() - t0)
        r1 = res[1]
        done = all(not r.timed_out and r.swept for r in res.values())
        if done:
            assert res[T].exact_sizes == r1.exact_sizes, (k, r1.exact_sizes, res[T].exact_sizes)
            for eta, m in r1.min_reduced_costs.items():
                assert abs(m - res[T].min_reduced_costs[eta]) <= 1e-9 * max(1.0, abs(m)), (k, eta)
        med = {t: statistics.median(times[t]) for t in (1, T)}
        least = min(r1.min_reduced_costs.values(), default=None)
        row = dict(k=k, exact_sizes=sorted(r1.exact_sizes), complete=done, times=times,
                   medians=med, speedup=med[1] / med[T], min_rc=least,
                   columns={t: len(r.columns) for t, r in res.items()})
        round_rows.append(row)
        sizes = f"{min(r1.exact_sizes)}–{max(r1.exact_sizes)}" if r1.exact_sizes else "none"
        each = " | ".join(", ".join(f"{x:.2f}" for x in times[t]) for t in (1, T))
        print(f"| {k} | {sizes} | {each} | {med[1]:.2f} | {med[T]:.2f} | "
              f"**{row['speedup']:.2f}** | {'—' if least is None else f'{least:.6g}'} | "
              f"{' / '.join(str(c) for c in row['columns'].values())} |", flush=True)

    print()
    summary = {}
    for k in ks + ["all"]:
        sel = [r for r in rows if r["status"] == "complete" and (k == "all" or r["k"] == k)]
        if not sel:
            continue
        s1 = sum(r["median_1"] for r in sel)
        sT = sum(r["median_T"] for r in sel)
        summary[str(k)] = dict(calls=len(sel), seconds_1=s1, seconds_T=sT, speedup=s1 / sT)
        print(f"k = {k}: {len(sel)} completed single-size calls, sum of medians t=1 {s1:.2f} s, "
              f"t={T} {sT:.2f} s, speed-up {s1 / sT:.2f}x")
    for r in round_rows:
        m = r["medians"]
        print(f"k = {r['k']}: whole round t=1 {m[1]:.2f} s, t={T} {m[T]:.2f} s "
              f"({r['speedup']:.2f}x; target >= 1.7x)")
    print("minimum reduced costs identical at both thread counts: yes (asserted)")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(
            benchmark="bench_parallel_pricing", mipagg=mipagg.__version__, machine=env,
            argv=argv, parameters=dict(ks=ks, threads=T, repeats=args.repeats,
                                       call_limit=args.call_limit,
                                       dual_seconds=args.dual_seconds,
                                       dual_source=args.dual_source),
            duals_origin={str(k): origin[k] for k in ks}, rows=rows, rounds=round_rows,
            summary=summary),
            indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
