"""The portfolio (``method="portfolio"``) on Census and Tarragona: IL of every
stage, of the best partition, the certified lower bound and the time, per
(file, k) cell, next to the best IL the seeds publish for that cell.

    .venv/bin/python benchmarks/bench_portfolio.py --quick          # 30 s per cell
    .venv/bin/python benchmarks/bench_portfolio.py --budget 300     # the full run

Prints Markdown (the figures of docs/bench/portfolio.md).  The CASC files are
read from ../shared/data and never copied.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _env import machine  # noqa: E402

from mipagg.instance import read_csv  # noqa: E402
from mipagg.portfolio import portfolio  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"

# Best IL published in the seeds for each cell (the lowest value we could
# read; "min" = best of the published runs, "mean" = an average).
PUBLISHED = {
    ("census", 3): (4.9917, "seed 003 Table 4.2, Concorde-MHM, min of 50 runs"),
    ("census", 5): (8.2372, "seed 003 Table 4.2, Concorde-MHM, min of 50 runs"),
    ("census", 10): (12.446, "seed 003 Table 6.1, MDAV + RCS (1/1000, 10 events), mean of 5"),
    ("tarragona", 3): (14.6294, "seed 003 Table 4.4, Concorde-MHM, min of 50 runs"),
    ("tarragona", 5): (21.6712, "seed 003 Table 4.4, Concorde-MHM, min of 50 runs"),
    ("tarragona", 10): (32.3006, "seed 003 Table 5.3, C3-C-MHM"),
}

STAGES = ["mdav-mhm", "vmdav", "mdav-lk-mhm", "compress", "tsp-mhm", "cg", "bp"]


def _il(sse, sst):
    return None if sse is None else 100.0 * sse / sst


def _fmt(v, digits=4):
    return "–" if v is None else f"{v:.{digits}f}"


def run_cell(name: str, k: int, budget: float, seed: int) -> dict:
    X = read_csv(DATA / f"{name}.csv").X
    load0 = os.getloadavg()[0]
    t = time.perf_counter()
    res = portfolio(X, k, time_limit=budget, seed=seed)
    wall = time.perf_counter() - t
    s = res.summary()
    sst = res.partition.sst()
    stages = {}
    for m in STAGES:
        rows = [r for r in s["runs"] if r["method"] == m and r["status"] == "ok"]
        if rows:
            stages[m] = (min(r["il"] for r in rows), min(r["il_improved"] for r in rows),
                         len(rows), sum(r["seconds"] + r["improve_seconds"] for r in rows),
                         [r.get("exact_status") for r in rows])
    searches = [x["sse"] for x in s["searches"]]
    return {"name": name, "k": k, "summary": s, "stages": stages, "wall": wall,
            "load": (load0, os.getloadavg()[0]),
            "search_il": _il(min(searches), sst) if searches else None,
            "lb_il": _il(s.get("lower_bound"), sst)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=300.0, help="seconds per cell (default 300)")
    ap.add_argument("--quick", action="store_true", help="30 s per cell")
    ap.add_argument("--data", default="census,tarragona")
    ap.add_argument("--ks", default="3,5,10")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    budget = 30.0 if args.quick else args.budget
    names = args.data.split(",")
    ks = [int(k) for k in args.ks.split(",")]
    for name in names:
        if not (DATA / f"{name}.csv").is_file():
            print(f"reference file {DATA / name}.csv not available", file=sys.stderr)
            return 2
    print(f"# Portfolio benchmark\n\nCommand: `{' '.join([Path(sys.executable).name, *sys.argv])}`"
          f"\n\nMachine: {machine()}\n\nStarted {time.strftime('%Y-%m-%d %H:%M:%S %Z')}; "
          f"budget {budget:g} s per cell, seed {args.seed}.\n")
    cells = []
    for name in names:
        for k in ks:
            cell = run_cell(name, k, budget, args.seed)
            cells.append(cell)
            s = cell["summary"]
            print(f"<!-- {name} k={k}: IL {s['best_il']:.4f} in {cell['wall']:.1f} s -->",
                  flush=True)

    print("\n## Best partition per cell\n")
    print("| data | k | portfolio IL | from | best published IL | Δ | lower bound (IL) | gap % "
          "| status | seconds | overrun | load avg start/end |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cells:
        s = c["summary"]
        pub, _ = PUBLISHED.get((c["name"], c["k"]), (None, ""))
        delta = None if pub is None else s["best_il"] - pub
        steps = " + ".join([s["best_method"], *s["best_steps"]])
        print(f"| {c['name']} | {c['k']} | **{s['best_il']:.4f}** | {steps} | {_fmt(pub)} "
              f"| {_fmt(delta, 3)} | {_fmt(c['lb_il'])} | {_fmt(s.get('gap'), 2)} "
              f"| {s.get('status', '–')} | {c['wall']:.1f} | {s['budget']['overrun']:.1f} "
              f"| {c['load'][0]:.1f} / {c['load'][1]:.1f} |")

    print("\n## IL of every stage (best run of each method: its own partition → after "
          "split + local search + RCS; runs; seconds)\n")
    print("| data | k | " + " | ".join(STAGES[:5]) + " | searches | cg | final |")
    print("|---|---|" + "---|" * 8)
    for c in cells:
        cols = []
        for m in STAGES[:5]:
            st = c["stages"].get(m)
            cols.append("–" if st is None else
                        f"{st[0]:.4f} → {st[1]:.4f} ({st[2]}; {st[3]:.1f} s)")
        cg = c["stages"].get("cg")
        cgs = "–" if cg is None else f"{cg[0]:.4f} → {cg[1]:.4f} ({cg[4][0]}; {cg[3]:.1f} s)"
        print(f"| {c['name']} | {c['k']} | " + " | ".join(cols)
              + f" | {_fmt(c['search_il'])} | {cgs} | {c['summary']['best_il']:.4f} |")

    print("\n## Time per stage (seconds) and what the budget cut\n")
    print("| data | k | stages | skipped |")
    print("|---|---|---|---|")
    for c in cells:
        b = c["summary"]["budget"]
        st = ", ".join(f"{k} {v:.1f}" for k, v in b["stages"].items())
        sk = "; ".join(x["method"] for x in b["skipped"]) or "–"
        print(f"| {c['name']} | {c['k']} | {st} | {sk} |")

    print("\nPublished values compared:\n")
    for (name, k), (v, src) in PUBLISHED.items():
        if name in names and k in ks:
            print(f"* {name}, k = {k}: {v} — {src}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
