"""Benchmark of mipagg.tsp: construction heuristics, local search, LKH, exact.

Prints Markdown tables (copied to docs/bench/tours.md):

1. Census and Tarragona (all 13 standardized columns): time, tour length and
   Hamiltonian-path length (longest-edge cut; LKH/exact paths use the dummy
   node) of every method, averaged over seeds where the method is random,
   next to the Concorde path lengths published in seed 003 Tables 5.2–5.3.
2. Exact tours of 100-record random subsets (proof time, gap of LKH/Or-opt).
3. Scaling of NN + 2-opt + Or-opt on n = 4 000 synthetic records.
4. Compiled kernels against their pure-Python references (same run).
5. With ``--exact-full``: proven-optimal paths and tours of the full files.

    .venv/bin/python benchmarks/bench_tours.py [--quick] [--exact-full]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from mipagg.instance import read_csv
from mipagg.tsp import (
    distance_matrix, exact_matrix_tour, exact_path, hamiltonian_path, improve_tour,
    nearest_neighbor_tour, path_length, repetitive_nn_tour, tour, tour_length, tour_to_path,
)
from mipagg.tsp.exact import dummy_matrix
from mipagg.tsp.local_search import two_opt_reference

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
PUBLISHED_CONCORDE_PATH = {"census": 1173.23, "tarragona": 772.62}   # seed 003 Tables 5.2, 5.3
RANDOM = {"nn", "nearest", "farthest", "cheapest", "arbitrary", "2opt", "oropt", "lkh"}
METHODS = ["nn", "rnn", "nearest", "farthest", "cheapest", "arbitrary", "2opt", "oropt", "lkh"]


def timed(fn, *a, **kw):
    t0 = time.perf_counter()
    out = fn(*a, **kw)
    return out, time.perf_counter() - t0


def warm_up():
    X = np.random.default_rng(0).normal(size=(30, 3))
    for m in METHODS:
        tour(X, m, seed=0)
    exact_path(X)


def table_datasets(seeds):
    print("## Census and Tarragona (13 standardized columns)\n")
    print("| data | method | runs | mean s | max s | tour length | path length (mean) "
          "| path min | path max | path / published Concorde |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in ("census", "tarragona"):
        X = read_csv(DATA / f"{name}.csv").X
        for m in METHODS + ["lkh-path"]:
            runs = seeds if (m in RANDOM or m == "lkh-path") else [0]
            if m in ("lkh", "lkh-path"):
                runs = runs[:3]
            secs, tl, pl = [], [], []
            for s in runs:
                if m == "lkh-path":
                    p, dt = timed(hamiltonian_path, X, "lkh", seed=s + 1)
                    tl.append(np.nan)
                else:
                    t, dt = timed(tour, X, m, seed=s + 1)
                    tl.append(tour_length(X, t))
                    p = tour_to_path(X, t)
                secs.append(dt)
                pl.append(path_length(X, p))
            ref = PUBLISHED_CONCORDE_PATH[name]
            tl_txt = "—" if np.isnan(tl).all() else f"{np.mean(tl):.2f}"
            print(f"| {name} | {m} | {len(runs)} | {np.mean(secs):.3f} | {np.max(secs):.3f} | "
                  f"{tl_txt} | {np.mean(pl):.2f} | {np.min(pl):.2f} | {np.max(pl):.2f} | "
                  f"{np.mean(pl) / ref:.4f} |", flush=True)
    print()


def table_exact(reps, sizes=(100, 200, 400)):
    print("## Exact tours and paths of random subsets (HiGHS, DFJ + lazy SECs + pricing)\n")
    print("| data | n | subset seed | tour s | optimal tour | SECs | MIP solves | LKH gap % "
          "| Or-opt gap % | path s | optimal path |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in ("census", "tarragona"):
        inst = read_csv(DATA / f"{name}.csv")
        for size in sizes:
            for s in range(reps if size == 100 else 1):
                rows = np.random.default_rng(s).choice(inst.n, size, replace=False)
                X = inst.subset(rows).X
                r, dt = timed(exact_matrix_tour, distance_matrix(X), time_limit=120)
                lk = tour_length(X, tour(X, "lkh", seed=1))
                oo = tour_length(X, tour(X, "oropt", seed=1))
                (p, plen, pok), dtp = timed(exact_path, X, time_limit=120)
                ok = "proven" if r.proven_optimal else "NOT proven"
                gap = 100 * (lk - r.length) / r.length
                gap = 0.0 if abs(gap) < 1e-9 else gap    # same tour, other summation order
                print(f"| {name} | {size} | {s} | {dt:.2f} | {r.length:.4f} ({ok}) | {r.cuts} | "
                      f"{r.mip_solves} | {gap:.3f} | "
                      f"{100 * (oo - r.length) / r.length:.2f} | {dtp:.2f} | "
                      f"{plen:.4f} ({'proven' if pok else 'NOT proven'}) |", flush=True)
    print()


def table_exact_full(time_limit):
    print("## Optimal Hamiltonian paths and tours of the full files\n")
    print("| data | problem | seconds (wall) | length | status | lower bound | LP bound "
          "| edges in final model | published Concorde path (seed 003) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in ("census", "tarragona"):
        X = read_csv(DATA / f"{name}.csv").X
        D = distance_matrix(X)
        for kind, M in (("path (dummy node)", dummy_matrix(D)), ("tour", D)):
            r, dt = timed(exact_matrix_tour, M, time_limit=time_limit)
            edges = max(e.get("edges", 0) for e in r.log)
            ok = "proven optimal" if r.proven_optimal else "time limit"
            pub = f"{PUBLISHED_CONCORDE_PATH[name]:.2f}" if kind.startswith("path") else "—"
            print(f"| {name} | {kind} | {dt:.1f} | {r.length:.4f} | {ok} | {r.lower_bound:.4f} | "
                  f"{r.log[0]['bound']:.4f} | {edges} | {pub} |", flush=True)
    print()


def table_scaling(n):
    print(f"## Scaling: n = {n} synthetic records (13-dim standard normal)\n")
    X = np.random.default_rng(0).normal(size=(n, 13))
    t, dt_nn = timed(nearest_neighbor_tour, X, seed=0)
    t2, dt_2 = timed(improve_tour, X, t, moves=("2opt",))
    t3, dt_3 = timed(improve_tour, X, t, moves=("2opt", "oropt"))
    ti, dt_i = timed(tour, X, "farthest", seed=0)
    print("| step | seconds | tour length |")
    print("|---|---|---|")
    print(f"| nearest neighbour | {dt_nn:.3f} | {tour_length(X, t):.1f} |")
    print(f"| farthest insertion | {dt_i:.3f} | {tour_length(X, ti):.1f} |")
    print(f"| NN + 2-opt (10 neighbours) | {dt_2:.3f} | {tour_length(X, t2):.1f} |")
    print(f"| NN + 2-opt + Or-opt | {dt_3:.3f} | {tour_length(X, t3):.1f} |")
    print()


def table_kernels(n):
    print(f"## Compiled kernels vs pure-Python references (n = {n}, same run)\n")
    X = np.random.default_rng(1).normal(size=(n, 13))
    D = distance_matrix(X)
    t0 = np.random.default_rng(2).permutation(n)
    _, dt_ref = timed(two_opt_reference, D, t0)
    _, dt_nb = timed(improve_tour, X, t0, moves=("2opt",), neighbours=None)
    _, dt_nb10 = timed(improve_tour, X, t0, moves=("2opt",), neighbours=10)

    def rnn_ref():
        best = np.inf
        for start in range(n):
            left, cur, length = set(range(n)) - {start}, start, 0.0
            while left:
                nxt = min(left, key=lambda j: D[cur, j])
                length += D[cur, nxt]
                left.remove(nxt)
                cur = nxt
            best = min(best, length + D[cur, start])
        return best

    _, dt_rnnref = timed(rnn_ref)
    _, dt_rnn = timed(repetitive_nn_tour, X)
    print("| kernel | reference s | compiled s | speed-up |")
    print("|---|---|---|---|")
    for label, dt in (("complete lists", dt_nb), ("10 neighbours", dt_nb10)):
        print(f"| 2-opt from random tour, {label} | {dt_ref:.3f} | {dt:.4f} | {dt_ref / dt:.0f}× |")
    print(f"| repetitive nearest neighbour | {dt_rnnref:.3f} | {dt_rnn:.4f} | "
          f"{dt_rnnref / dt_rnn:.0f}× |")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2 seeds, 1 exact subset, n=2000 scaling")
    ap.add_argument("--exact-full", action="store_true",
                    help="also prove optimal paths/tours of the full Census and Tarragona files")
    args = ap.parse_args()
    seeds = list(range(2 if args.quick else 10))
    warm_up()
    table_datasets(seeds)
    table_exact(1 if args.quick else 3, (100,) if args.quick else (100, 200, 400))
    if args.exact_full:
        table_exact_full(1800)
    table_scaling(2000 if args.quick else 4000)
    table_kernels(150 if args.quick else 250)


if __name__ == "__main__":
    main()
