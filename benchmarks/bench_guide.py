"""Exact neighbourhood search guided by the master LP against the same search
guided by centroid distance, same start, same budget, same run (issue 22).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_guide.py [--quick]
        [--lognormal 300:3:1,300:3:2,500:5:1] [--census 0:300:5] [--groups 6]
        [--move-time 10] [--budget 120] [--start mdav|polished] [--json out.jsonl]

Instances: ``n:k:seed`` of :func:`mipagg.generators.lognormal` (11 columns)
and ``start:stop:k`` blocks of consecutive Census records (``--census``,
``../shared/data/census.csv``, never committed).  Start: MDAV's partition
(``mdav``), or (``polished``) that partition after a distance-guided search
to convergence (``--budget`` seconds at most), the case of the CASC cells.

Per instance and start: the root LP of ``bp`` from the start
(:func:`mipagg.exact.guide.lp_affinity`, 5 cut rounds; its certified bound
and time), then :func:`~mipagg.exact.neighbourhood.exact_neighbourhood_search`
with ``--groups`` groups per sub-problem and ``--move-time``, once by distance
and once with ``affinity=`` the LP weights, each within ``--budget`` seconds
*including* the LP's time for the guided one (equal total time).  Printed:
SSE, the gap to the root bound (%), sub-problems solved and improved, status,
seconds.  Seeds: the search's order, ``--seed`` (default 1).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.exact.guide import lp_affinity  # noqa: E402
from mipagg.exact.neighbourhood import exact_neighbourhood_search  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402
from mipagg.heuristics.mdav import mdav  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def instances(a):
    for spec in filter(None, a.lognormal.split(",")):
        n, k, seed = (int(v) for v in spec.split(":"))
        yield f"lognormal n={n} seed={seed}", lognormal(n, 11, seed=seed).X, k
    if a.census:
        from mipagg.instance import read_csv

        census = read_csv(DATA / "census.csv")
        for spec in a.census.split(","):
            start, stop, k = (int(v) for v in spec.split(":"))
            yield f"census rows {start}:{stop}", census.subset(list(range(start, stop))).X, k


def run(X, k, start, a, affinity=None, budget=None):
    t0 = time.perf_counter()
    r = exact_neighbourhood_search(X, start, k, groups=a.groups, move_time=a.move_time,
                                   time_limit=budget or a.budget, seed=a.seed,
                                   affinity=affinity)
    return r, time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="lognormal 300:3:2 only, 60-s budget")
    ap.add_argument("--lognormal", default="300:3:1,300:3:2,400:4:3,500:5:1")
    ap.add_argument("--census", default="")
    ap.add_argument("--groups", type=int, default=6)
    ap.add_argument("--move-time", type=float, default=10.0)
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--start", choices=("mdav", "polished"), default="mdav")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="append one JSON record per instance")
    a = ap.parse_args(argv)
    if a.quick:
        a.lognormal, a.census, a.budget = "300:3:2", "", 60.0
    print(machine())
    print(f"start {a.start}, groups {a.groups}, move time {a.move_time} s, budget {a.budget} s, "
          f"seed {a.seed}")
    print("| instance | k | start SSE | root bound | LP s | distance SSE (gap %, solved/improved, "
          "status, s) | LP-guided SSE (gap %, solved/improved, status, s incl. LP) | load |")
    print("|---|---:|---:|---:|---:|---|---|---:|")
    for name, X, k in instances(a):
        start = mdav(X, k)
        if a.start == "polished":
            start = run(X, k, start, a)[0].partition
        load = os.getloadavg()[0]
        g = lp_affinity(X, k, start, max_cut_rounds=5)
        near, t_near = run(X, k, start, a)
        guided, t_guided = run(X, k, start, a, g.weights, max(1.0, a.budget - g.seconds))
        lb = g.bound

        def cell(r, t, extra=0.0):
            sse = r.partition.sse()
            gap = "–" if lb is None else f"{100 * (sse - lb) / sse:.3f}"
            return (f"{sse:.4f} ({gap}, {r.solved}/{r.improved}, {r.status.value}, "
                    f"{t + extra:.1f})")

        print(f"| {name} | {k} | {start.sse():.4f} | {lb if lb is None else f'{lb:.4f}'} "
              f"| {g.seconds:.1f} | {cell(near, t_near)} | {cell(guided, t_guided, g.seconds)} "
              f"| {load:.1f} |", flush=True)
        if a.json:
            with open(a.json, "a") as fh:
                fh.write(json.dumps({
                    "command": " ".join(["python"] + sys.argv), "mipagg": version("mipagg"),
                    "git_commit": _commit(), "instance": name, "k": k, "start": a.start, "start_sse": start.sse(),
                    "groups": a.groups, "move_time": a.move_time, "budget": a.budget,
                    "seed": a.seed, "load": load, **g.summary(),
                    "distance": {"sse": near.partition.sse(), "seconds": t_near,
                                 **near.summary()},
                    "guided": {"sse": guided.partition.sse(), "seconds": t_guided + g.seconds,
                               **guided.summary()}}) + "\n")


if __name__ == "__main__":
    main()
