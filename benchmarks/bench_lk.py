"""Benchmark of mipagg.tsp.lin_kernighan against 2-opt + Or-opt and LKH (elkai),
and of MDAV-LK-MHM against the published MDAV-LK-MHM averages.

Prints Markdown tables (copied to docs/bench/tours.md and docs/bench/tsp_micro.md):

1. Paths from the MDAV path (k = 3; the start of MDAV-LK-MHM) on Census and
   Tarragona: our LK (dummy node) vs 2-opt + Or-opt (closed tour, longest edge
   cut) vs LKH on the dummy-augmented matrix (LKH cannot start from a given
   path, it builds its own), next to the proven optimal paths.
2. Tours from nearest-neighbour starts (seeds 1..R): LK vs 2-opt + Or-opt
   from the same NN tour, and LKH.
3. MDAV-LK-MHM information loss for k = 3..6 (search="lk" and "oropt") next
   to seed 003 Tables 4.2 / 4.4.

    .venv/bin/python benchmarks/bench_lk.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import machine  # noqa: E402
from bench_tours import DATA, timed  # noqa: E402

from mipagg.instance import read_csv  # noqa: E402
from mipagg.tsp import (hamiltonian_path, improve_tour, lin_kernighan,  # noqa: E402
                        lin_kernighan_path, lkh_tour, nearest_neighbor_tour, path_length,
                        tour_length, tour_to_path)
from mipagg.tsp_micro import mdav_lk_mhm, mdav_path  # noqa: E402

OPT_PATH = {"census": 1169.4533, "tarragona": 770.5527}   # proven, docs/bench/tours.md
OPT_TOUR = {"census": 1177.5258, "tarragona": 798.5722}
KS = (3, 4, 5, 6)
PUBLISHED = {"census": [5.1085, 6.9131, 8.5199, 9.9752],       # seed 003 Table 4.2
             "tarragona": [18.7969, 22.8523, 26.2432, 28.5244]}  # seed 003 Table 4.4
MDAV = {"census": [5.6922, 7.4947, 9.0884, 10.3847],
        "tarragona": [16.9326, 19.5460, 22.4619, 26.3252]}


def warm_up():
    X = np.random.default_rng(0).normal(size=(40, 3))
    lin_kernighan(X, np.arange(40))
    lin_kernighan_path(X, np.arange(40))
    improve_tour(X, np.arange(40))
    lkh_tour(X, seed=1)


def table_paths(names, lkh_seeds):
    print("## Paths from the MDAV path (k = 3), the start of MDAV-LK-MHM\n")
    print("| data | method | seconds | path length | / proven optimum |")
    print("|---|---|---|---|---|")
    for name in names:
        X = read_csv(DATA / f"{name}.csv").X
        p0 = mdav_path(X, 3)
        rows = [("MDAV path (start)", p0, 0.0)]
        p, dt = timed(lin_kernighan_path, X, p0)
        rows.append(("LK (ours, 8 nbrs, depth 6, breadth 3)", p, dt))
        p, dt = timed(lin_kernighan_path, X, p0, neighbours=10, max_depth=10, breadth=5)
        rows.append(("LK (ours, 10 nbrs, depth 10, breadth 5)", p, dt))
        p, dt = timed(lambda: tour_to_path(X, improve_tour(X, p0)))
        rows.append(("2-opt + Or-opt (tour, longest edge cut)", p, dt))
        for s in lkh_seeds:
            p, dt = timed(hamiltonian_path, X, "lkh", seed=s)
            rows.append((f"LKH path (elkai, own start, seed {s})", p, dt))
        for label, p, dt in rows:
            L = path_length(X, p)
            print(f"| {name} | {label} | {dt:.3f} | {L:.2f} | {L / OPT_PATH[name]:.4f} |",
                  flush=True)
    print()


def table_tours(names, seeds, lkh_seeds):
    print("## Tours from nearest-neighbour starts\n")
    print("| data | method | runs | mean s | mean tour length | / proven optimum |")
    print("|---|---|---|---|---|---|")
    for name in names:
        X = read_csv(DATA / f"{name}.csv").X
        res = {"NN": ([], []), "NN + LK (ours)": ([], []), "NN + 2-opt + Or-opt": ([], []),
               "LKH (elkai)": ([], [])}
        for s in seeds:
            t0, dt0 = timed(nearest_neighbor_tour, X, seed=s)
            res["NN"][0].append(dt0)
            res["NN"][1].append(tour_length(X, t0))
            t, dt = timed(lin_kernighan, X, t0)
            res["NN + LK (ours)"][0].append(dt0 + dt)
            res["NN + LK (ours)"][1].append(tour_length(X, t))
            t, dt = timed(improve_tour, X, t0)
            res["NN + 2-opt + Or-opt"][0].append(dt0 + dt)
            res["NN + 2-opt + Or-opt"][1].append(tour_length(X, t))
        for s in lkh_seeds:
            t, dt = timed(lkh_tour, X, seed=s)
            res["LKH (elkai)"][0].append(dt)
            res["LKH (elkai)"][1].append(tour_length(X, t))
        for label, (secs, lens) in res.items():
            print(f"| {name} | {label} | {len(secs)} | {np.mean(secs):.3f} | "
                  f"{np.mean(lens):.2f} | {np.mean(lens) / OPT_TOUR[name]:.4f} |", flush=True)
    print()


def table_mdav_lk(names):
    print("## MDAV-LK-MHM information loss (IL %) vs seed 003 Tables 4.2 / 4.4\n")
    print("| data | row | " + " | ".join(f"k={k}" for k in KS) + " | s per k |")
    print("|---|---|" + "---|" * len(KS) + "---|")
    for name in names:
        X = read_csv(DATA / f"{name}.csv").X
        for search in ("lk", "oropt"):
            ils, secs = [], []
            for k in KS:
                r, dt = timed(mdav_lk_mhm, X, k, search=search)
                ils.append(r.partition.il())
                secs.append(dt)
            label = "ours, LK" if search == "lk" else "ours, 2-opt + Or-opt (previous)"
            print(f"| {name} | {label} | " + " | ".join(f"{v:.4f}" for v in ils)
                  + f" | {np.mean(secs):.2f} |", flush=True)
        print(f"| {name} | published average (50 runs) | "
              + " | ".join(f"{v:.4f}" for v in PUBLISHED[name]) + " | |")
        print(f"| {name} | MDAV | " + " | ".join(f"{v:.4f}" for v in MDAV[name]) + " | |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 LKH seed, 2 NN starts, Tarragona only")
    args = ap.parse_args()
    names = ["tarragona"] if args.quick else ["census", "tarragona"]
    seeds = [1, 2] if args.quick else list(range(1, 6))
    lkh_seeds = [1] if args.quick else [1, 2]
    print(f"Machine: {machine()}\n")
    warm_up()
    table_paths(names, lkh_seeds)
    table_tours(names, seeds, lkh_seeds)
    table_mdav_lk(names)


if __name__ == "__main__":
    main()
