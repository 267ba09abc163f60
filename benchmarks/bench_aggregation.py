"""bp's root column generation with and without the aggregated phase
(:mod:`mipagg.exact.aggregation`, issue 22: "a faster degenerate master at
large k"), same run, same start.

    python benchmarks/bench_aggregation.py [--cells census:10,tarragona:10]
        [--configs off,on] [--time-limit 1200] [--initial committed|none]
        [--json PATH] [--phase-only] [--quick]

Each cell (``data:k``, the file ``../shared/data/{data}.csv`` with its 13
columns standardized) runs ``BranchAndPrice(X, k, BPSettings(time_limit,
aggregation=config), initial=...)`` up to the end of its root column
generation (no cuts, no tree): ``--initial committed`` (the default) starts
from the committed label file ``instances/solutions/{data}_k{k}.csv``, the
start of the bound stage of ``scripts/casc.py``; ``none`` from bp's own
MDAV/V-MDAV incumbent.  Printed per run: why the root stopped, its certified
bound and source, LP value, iterations (of the full loop), columns, the
aggregated phase's iterations, aggregates and seconds, and the seconds from
the call to the end of the root (start-up included).  ``--phase-only``: the
aggregated phase alone (:func:`mipagg.exact.aggregation.aggregated_root`,
no deadline), timed from its call.  ``--quick``: a
150-record lognormal file (seed 0), k = 10, 60 s.
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from _env import machine  # noqa: E402

import mipagg  # noqa: E402
from mipagg.exact.aggregation import aggregated_root  # noqa: E402
from mipagg.exact.bp import BranchAndPrice  # noqa: E402
from mipagg.exact.settings import BPSettings  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def load(cell: str, initial: str):
    """(X standardized, k, initial labels or None) of ``data:k``."""
    if cell == "quick":
        X = lognormal(150, 6, seed=0).X
        return (X - X.mean(0)) / X.std(0, ddof=1), 10, None
    data, k = cell.split(":")
    X = read_csv(DATA / f"{data}.csv").X
    X = (X - X.mean(0)) / X.std(0, ddof=1)
    labels = None
    if initial == "committed":
        labels = np.loadtxt(ROOT / "instances" / "solutions" / f"{data}_k{k}.csv",
                            skiprows=1, dtype=int)
    return X, int(k), labels


def fmt(v) -> str:
    return "—" if v is None else f"{v:.2f}"


def run(X, k, labels, config, time_limit, phase_only=False) -> dict:
    t0 = time.perf_counter()
    bp = BranchAndPrice(X, k, BPSettings(time_limit=time_limit, aggregation=config),
                        initial=labels)
    if phase_only:
        t1 = time.perf_counter()
        agg = aggregated_root(bp.master, bp.ctx, bp.rounder.best.groups(), bp.loop)
        return {"config": "phase", "aggregation": agg.as_dict(), "columns": len(bp.master),
                "seconds": time.perf_counter() - t1}
    bp.root_column_generation()
    stop = bp.root.stop
    agg = bp.aggregated
    return {"config": config, "reason": stop.reason, "bound": stop.bound,
            "bound_source": stop.bound_source, "lp": stop.lp_value,
            "iterations": bp.root.iterations, "columns": len(bp.master),
            "incumbent": bp.rounder.best_sse,
            "aggregation": None if agg is None else agg.as_dict(),
            "root_seconds": bp.seconds["root"], "seconds": time.perf_counter() - t0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", default="census:10,tarragona:10")
    ap.add_argument("--configs", default="off,on")
    ap.add_argument("--time-limit", type=float, default=1200.0)
    ap.add_argument("--initial", choices=("committed", "none"), default="committed")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--phase-only", action="store_true")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    cells, limit = a.cells.split(","), a.time_limit
    if a.quick:
        cells, limit = ["quick"], 60.0
    print(f"# {machine()}; mipagg {mipagg.__version__}; time limit {limit:g} s; "
          f"initial {a.initial}")
    if not a.phase_only:
        print("| cell | config | root stop | bound | source | LP | iters | columns | "
              "agg. iters | aggregates | agg. s | root s | total s |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    out = []
    for cell in cells:
        X, k, labels = load(cell, a.initial)
        if a.phase_only:
            r = run(X, k, labels, "on", limit, phase_only=True)
            g = r["aggregation"]
            print(f"phase {cell}: {r['seconds']:.2f} s, {g['iterations']} iterations, "
                  f"{g['aggregates']} aggregates, value {g['value']:.6f}, {g['reason']}, "
                  f"{r['columns']} columns", flush=True)
            continue
        for config in a.configs.split(","):
            r = run(X, k, labels, config, limit)
            r.update(cell=cell, time_limit=limit, initial=a.initial,
                     version=mipagg.__version__)
            out.append(r)
            g = r["aggregation"] or {}
            print(f"| {cell} | {config} | {r['reason']} | {fmt(r['bound'])} | "
                  f"{r['bound_source']} | {fmt(r['lp'])} | {r['iterations']} | "
                  f"{r['columns']} | {g.get('iterations', '—')} | {g.get('aggregates', '—')} | "
                  f"{fmt(g.get('seconds'))} | {r['root_seconds']:.1f} | {r['seconds']:.1f} |",
                  flush=True)
            if a.json:
                a.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
