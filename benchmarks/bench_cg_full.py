"""Column generation on the FULL reference files (issue 8, "Scale"): time to a
certified lower bound for Census (1080×13) and Tarragona (834×13) at several
k, per named configuration, and a 4 000-record heavy-tailed instance at k = 3.

    .venv/bin/python benchmarks/bench_cg_full.py [--quick] [--files census,tarragona]
        [--ks 3,4,5,6,10] [--configs default,mc10] [--time-limit 1800]
        [--close-gap] [--verbose] [--json PATH]
    .venv/bin/python benchmarks/bench_cg_full.py --lognormal [--time-limit 1800] [--json PATH]

Data: ``../shared/data/{census,tarragona}.csv``, all 13 columns standardized
(mean 0, sample standard deviation 1), read with :func:`mipagg.instance.read_csv`.
``--lognormal``: :func:`mipagg.generators.lognormal` with n = 4000, p = 10,
seed 0 (``--seed``), k = 3, configuration ``default``.

Configurations (keyword arguments of :func:`mipagg.exact.colgen.column_generation`
on top of its defaults; every run has ``time_limit`` and, unless ``--close-gap``,
``close_gap=False`` so it stops at the certified bound, the issue's target):

* ``default``   the defaults (pricing "auto", max_columns "auto" = max(10, n // 2k),
                threads = cores, rounding "adaptive", lp_algorithm "auto");
* ``mc10``      max_columns=10;
* ``t1``        threads=1 (exact pricing on one core);
* ``primal``, ``dual``, ``ipm``  lp_algorithm of the master LP;
* ``every``     rounding="every" (SRH and MSTH after every master solve, the seed);
* ``wentges``   stabilization="wentges", alpha="auto" (center: the neighbour duals at
                first, then the duals of the best Lagrangian bound); ``wentges-t1`` on one
                thread;
* ``chain``     size_chain=True: only size k priced exactly, the larger sizes bounded
                through it (:func:`mipagg.exact.pricing.rounds.size_chain`); ``t1-chain``
                on one thread.

``--quick``: Census k = 3 only, ``default`` vs ``mc10``.

Table columns: *status* of the run; *total s* wall time of the call; *bound s*
time at which the certified bound was in hand (total minus gap closing);
*iters*; *master/pricing/rounding s* the time per phase (``result.seconds``);
*bound IL* = 100·lower_bound/SST (certified: converged LP or Lagrangian bound at
exactly priced duals; "—" when none); *best IL* of the best partition found;
*gap %* = 100·(SSE − LB)/SSE.  Figures are wall-clock and depend on the load of
the machine (the header prints the load average at start).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

import mipagg  # noqa: E402
from mipagg.exact.colgen import column_generation  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

CONFIGS = {
    "default": {},
    "mc10": dict(max_columns=10),
    "t1": dict(threads=1),
    "primal": dict(lp_algorithm="primal"),
    "dual": dict(lp_algorithm="dual"),
    "ipm": dict(lp_algorithm="ipm"),
    "every": dict(rounding="every"),
    "wentges": dict(stabilization="wentges", alpha="auto"),
    "wentges-t1": dict(stabilization="wentges", alpha="auto", threads=1),
    "chain": dict(size_chain=True),
    "t1-chain": dict(threads=1, size_chain=True),
}


def _fmt(v, d=2):
    return "—" if v is None else f"{v:.{d}f}"


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=Path(__file__).resolve().parent, timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True,
                               cwd=Path(__file__).resolve().parent, timeout=10)
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


def run_cell(name: str, X, k: int, config: str, time_limit: float, close_gap: bool,
             verbose: bool) -> dict:
    kwargs = dict(CONFIGS[config])
    t0 = time.perf_counter()
    r = column_generation(X, k, time_limit=time_limit, close_gap=close_gap, verbose=verbose,
                          **kwargs)
    wall = time.perf_counter() - t0
    s = r.seconds
    sst = r.partition.sst()
    lb = r.lower_bound
    return dict(file=name, n=int(X.shape[0]), k=k, config=config, kwargs=kwargs,
                time_limit=time_limit, close_gap=close_gap, status=r.status, wall=wall,
                bound_seconds=wall - s.get("close_gap", 0.0), iterations=r.iterations,
                columns=len(r.columns), master=s["master"], pricing=s["pricing"],
                rounding=s["rounding"], close=s.get("close_gap", 0.0),
                lower_bound=lb, bound_source=r.bound_source, sse=r.sse, sst=sst,
                bound_il=None if lb is None else 100.0 * lb / sst, best_il=100.0 * r.sse / sst,
                gap=r.gap, lp_algorithm=r.lp_algorithm, threads=r.threads,
                lp_value=r.lp_value, lp_bound=r.lp_bound)


HEADER = ("| file | k | config | status | total s | bound s | iters | master s | pricing s "
          "| rounding s | bound IL | best IL | gap % |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def row_md(o: dict) -> str:
    return (f"| {o['file']} | {o['k']} | {o['config']} | {o['status']} | {o['wall']:.1f} | "
            f"{o['bound_seconds']:.1f} | {o['iterations']} | {o['master']:.1f} | "
            f"{o['pricing']:.1f} | {o['rounding']:.1f} | {_fmt(o['bound_il'], 4)} | "
            f"{o['best_il']:.4f} | {_fmt(o['gap'], 3)} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", default="census,tarragona")
    ap.add_argument("--ks", default="3,4,5,6,10")
    ap.add_argument("--configs", default="default")
    ap.add_argument("--time-limit", type=float, default=1800.0, help="per run (seconds)")
    ap.add_argument("--quick", action="store_true", help="Census k = 3, default vs mc10")
    ap.add_argument("--lognormal", action="store_true",
                    help="4000-record lognormal instance (p = 10) at k = 3 instead")
    ap.add_argument("--seed", type=int, default=0, help="seed of the --lognormal instance")
    ap.add_argument("--close-gap", action="store_true",
                    help="run the gap-closing step after convergence (default: off)")
    ap.add_argument("--verbose", action="store_true", help="cg progress lines on stderr")
    ap.add_argument("--json", default=None, help="write every run to this JSON file")
    args = ap.parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv

    configs = ["default", "mc10"] if args.quick else args.configs.split(",")
    for c in configs:
        if c not in CONFIGS:
            ap.error(f"unknown configuration {c!r}; known: {', '.join(CONFIGS)}")
    env = machine()
    print(f"# bench_cg_full — {env}")
    print(f"command: .venv/bin/python benchmarks/bench_cg_full.py {' '.join(argv)}")
    print(f"mipagg {mipagg.__version__}, commit {_commit()}, "
          f"date {time.strftime('%Y-%m-%d %H:%M %Z')}\n")
    if args.lognormal:
        from mipagg.generators import lognormal
        inst = lognormal(4000, 10, seed=args.seed)
        cells = [(inst.name, inst.X, 3, c) for c in configs]
    else:
        files = ["census"] if args.quick else args.files.split(",")
        ks = [3] if args.quick else [int(v) for v in args.ks.split(",")]
        data = {f: read_csv(DATA / f"{f}.csv").X for f in files}
        cells = [(f, data[f], k, c) for f in files for k in ks for c in configs]

    first = cells[0][1]
    column_generation(first[:40], 3, time_limit=60, close_gap=False)   # compile numba kernels
    print(HEADER, flush=True)
    rows = []
    for name, X, k, c in cells:
        o = run_cell(name, X, k, c, args.time_limit, args.close_gap, args.verbose)
        rows.append(o)
        print(row_md(o), flush=True)
        if args.json:   # rewritten after every run so a long session keeps what it has
            payload = dict(benchmark="bench_cg_full", mipagg=mipagg.__version__,
                           commit=_commit(), machine=env, argv=argv,
                           parameters=dict(time_limit=args.time_limit, close_gap=args.close_gap,
                                           lognormal=args.lognormal,
                                           seed=args.seed if args.lognormal else None,
                                           configs={c: CONFIGS[c] for c in configs}),
                           date=time.strftime("%Y-%m-%dT%H:%M:%S%z"), runs=rows)
            tmp = Path(args.json).with_suffix(".tmp")
            tmp.write_text(json.dumps(payload, indent=1, default=str))
            tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
