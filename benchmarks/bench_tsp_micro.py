"""Quality and time of the TSP-based methods on Census and Tarragona, next to
the published numbers of seed 003 (Tables 3.4, 4.2, 4.4, 5.2, 5.3, 6.1).

    .venv/bin/python benchmarks/bench_tsp_micro.py            # full run (~15 min)
    .venv/bin/python benchmarks/bench_tsp_micro.py --quick    # 2 repeats, no LKH
    .venv/bin/python benchmarks/bench_tsp_micro.py --sections hm2 --tours lk,lkh

Paths do not depend on k, so each repeat builds one Hamiltonian path (LKH
with the dummy node) and applies MHM for every k; "+local" applies
mipagg.improve.local_search to each of those partitions.  Prints Markdown.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import numpy as np

from mipagg.heuristics.mdav import mdav
from mipagg.heuristics.paths import mdav_order
from mipagg.improve import local_search, random_cluster_shuffling
from mipagg.instance import read_csv
from mipagg.tsp import hamiltonian_path, path_length
from mipagg.tsp_micro import (compression_path, mdav_lk_mhm, mf_tsp_groups,
                              neighbourhood_matrix, start_paths)
from mipagg.tsp_micro._common import child_seeds
from mipagg.partition import Partition
from mipagg.univariate import mhm

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
KS = (3, 4, 5, 6)

# seed 003: Table 4.2 (Census) / 4.4 (Tarragona) averages over 50 runs, and the
# single-run C-MHM / Cc-C-MHM rows of Tables 5.2 / 5.3 (Concorde tours)
PUBLISHED = {
    "census": {
        "MDAV": [5.6922, 7.4947, 9.0884, 10.3847],
        "MDAV-MHM (seed 004 T5)": [5.6523, None, 9.0870, None],
        "Concorde-MHM avg (T4.2)": [5.0563, 6.8846, 8.4576, 9.8440],
        "Concorde-MHM min (T4.2)": [4.9917, 6.7895, 8.2372, 9.5542],
        "C-MHM (T5.2)": [5.0321, 6.9691, 8.4681, 9.7646],
        "MDAV-LK-MHM avg (T4.2)": [5.1085, 6.9131, 8.5199, 9.9752],
        "C2-C-MHM (T5.2)": [5.2541, 6.9869, 8.5187, 9.4894],
        "C3-C-MHM (T5.2)": [5.6821, 7.8676, 8.9504, 9.5073],
        "MF-TSP NN (T3.4, k=3,4,5)": [6.29, 11.08, 13.79, None],
        "MF-TSP Concorde (T3.4)": [5.34, 8.14, 10.25, None],
    },
    "tarragona": {
        "MDAV": [16.9326, 19.5460, 22.4619, 26.3252],
        "MDAV-MHM (seed 004 T5)": [16.9326, None, 22.4617, None],
        "Concorde-MHM avg (T4.4)": [14.7677, 17.9957, 21.9895, 25.3459],
        "Concorde-MHM min (T4.4)": [14.6294, 17.7528, 21.6712, 24.8045],
        "C-MHM (T5.3)": [14.8835, 18.0649, 21.6954, 25.0690],
        "MDAV-LK-MHM avg (T4.4)": [18.7969, 22.8523, 26.2432, 28.5244],
        "C2-C-MHM (T5.3)": [15.7625, 18.1403, 22.5123, 25.5584],
        "C3-C-MHM (T5.3)": [16.9326, 19.6913, 22.2274, 25.8644],
        "MF-TSP NN (T3.4, k=3,4,5)": [20.91, 27.27, 43.34, None],
        "MF-TSP Concorde (T3.4)": [15.36, 19.83, 24.68, None],
    },
}
PUBLISHED_PATH = {"census": {"C-MHM": 1173.23, "C2": 1308.05, "C3": 1531.64},
                  "tarragona": {"C-MHM": 772.62, "C2": 885.02, "C3": 990.96}}
RCS_PUBLISHED = {3: 5.483, 5: 8.450, 10: 12.774}  # Census, MDAV-RCS 0/0, Table 6.1


def fmt_stats(ils):
    a = np.asarray(ils)
    if a.size == 1:
        return f"{a[0]:.4f}"
    return f"{a.mean():.4f} ({a.std(ddof=1):.4f}) {a.min():.4f}/{a.max():.4f}"


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba
    import scipy
    try:
        import elkai
        ev = getattr(elkai, "__version__", "installed")
    except ImportError:
        ev = "missing"
    return (f"nproc={os.cpu_count()}, CPU {cpu}, Python {platform.python_version()}, "
            f"numpy {np.__version__}, scipy {scipy.__version__}, numba {numba.__version__}, "
            f"elkai {ev}")


def path_rows(X, name, make_path, seeds, improve):
    """Repeated paths + MHM for every k: returns table rows."""
    ils = {k: [] for k in KS}
    loc = {k: [] for k in KS}
    lens, t_path, t_loc = [], 0.0, 0.0
    for s in seeds:
        t0 = time.perf_counter()
        order = make_path(s)
        t_path += time.perf_counter() - t0
        lens.append(path_length(X, order))
        for k in KS:
            P = mhm(X, order, k)
            ils[k].append(P.il())
            if improve:
                t0 = time.perf_counter()
                loc[k].append(local_search(X, P, k).il())
                t_loc += time.perf_counter() - t0
    r = len(seeds)
    rows = [(f"{name}", [fmt_stats(ils[k]) for k in KS],
             f"{np.mean(lens):.2f}", f"{t_path / r:.2f} s/path")]
    if improve:
        rows.append((f"{name} + local", [fmt_stats(loc[k]) for k in KS], "",
                     f"+{t_loc / (r * len(KS)):.2f} s/partition"))
    return rows


SECTIONS = ("baseline", "hm2", "mdavlk", "compress", "mftsp", "speed")


def speed_tables(name, X):
    """Compiled vs previous code paths, same run: MF-TSP start paths (one
    distance matrix for all starts vs n single-start calls) and the local
    search (numba kernel vs numpy reference) from MDAV partitions."""
    from mipagg.improve import local_search_reference
    from mipagg.tsp import insertion_tour, nearest_neighbor_tour

    print(f"\n#### {name}: speed of the compiled paths (same run)\n")
    print("| step | previous s | now s | speed-up | identical |\n|---|---|---|---|---|")
    for tour in ("nn", "farthest"):
        t0 = time.perf_counter()
        old = np.array([nearest_neighbor_tour(X, start=i) if tour == "nn"
                        else insertion_tour(X, tour, start=i) for i in range(X.shape[0])])
        t_old = time.perf_counter() - t0
        t0 = time.perf_counter()
        new = start_paths(X, tour)
        t_new = time.perf_counter() - t0
        print(f"| MF-TSP paths, {tour} from every start | {t_old:.2f} | {t_new:.2f} | "
              f"{t_old / t_new:.1f}× | {np.array_equal(old, new)} |", flush=True)
    for k in KS:
        P = mdav(X, k)
        t0 = time.perf_counter()
        ref = local_search_reference(X, P, k)
        t_old = time.perf_counter() - t0
        t0 = time.perf_counter()
        new = local_search(X, P, k)
        t_new = time.perf_counter() - t0
        print(f"| local search from MDAV, k={k} (IL {new.il():.4f}) | {t_old:.3f} | "
              f"{t_new:.3f} | {t_old / t_new:.0f}× | "
              f"{np.array_equal(ref.labels, new.labels)} |", flush=True)


def run_dataset(name, repeats, quick, sections=SECTIONS, tours=None):
    inst = read_csv(DATA / f"{name}.csv")
    X = inst.X
    seeds = child_seeds(2024, repeats)
    rows = []
    if "baseline" in sections:
        rows += baseline_rows(X)
    if "hm2" in sections:
        for tour in tours or (("nn", "oropt") if quick else ("nn", "farthest", "oropt", "lk",
                                                              "lkh")):
            rows += path_rows(X, f"(HM)²-Micro {tour}",
                              lambda s, tour=tour: hamiltonian_path(X, tour, seed=s),
                              seeds, improve=tour in ("lkh", "lk", "oropt"))
    if "mdavlk" in sections:
        t0 = time.perf_counter()
        mlk = {k: mdav_lk_mhm(X, k) for k in KS}
        rows.append(("MDAV-LK-MHM (our LK)", [f"{mlk[k].partition.il():.4f}" for k in KS],
                     f"{mlk[3].path_length:.2f} (k=3)",
                     f"{(time.perf_counter() - t0) / len(KS):.2f} s"))
        t0 = time.perf_counter()
        mlk = {k: mdav_lk_mhm(X, k, search="oropt") for k in KS}
        rows.append(("MDAV-LK-MHM (2-opt+Or-opt)", [f"{mlk[k].partition.il():.4f}" for k in KS],
                     f"{mlk[3].path_length:.2f} (k=3)",
                     f"{(time.perf_counter() - t0) / len(KS):.2f} s"))
    if "compress" in sections:
        ctour = "oropt" if quick else "lkh"
        for c in (2, 3):
            for inner in ("centroid", "chain"):
                rows += path_rows(X, f"C{c}-C-MHM ({ctour}, {inner})",
                                  lambda s, c=c, inner=inner: compression_path(
                                      X, c, ctour, seed=s, inner=inner)[0],
                                  seeds, improve=False)
    if "mftsp" in sections:
        rows.append(mftsp_row(X))
    if rows:
        print_tables(name, X, repeats, rows)
    if "speed" in sections:
        local_search(X, mdav(X, 3), 3)       # compile outside the timings
        speed_tables(name, X)


def baseline_rows(X):
    rows = []
    t0 = time.perf_counter()
    parts = {k: mdav(X, k) for k in KS}
    rows.append(("MDAV", [f"{parts[k].il():.4f}" for k in KS], "",
                 f"{(time.perf_counter() - t0) / len(KS):.2f} s"))
    t0 = time.perf_counter()
    rows.append(("MDAV-MHM", [f"{mhm(X, mdav_order(X, k), k).il():.4f}" for k in KS], "",
                 f"{(time.perf_counter() - t0) / len(KS):.2f} s"))
    t0 = time.perf_counter()
    rows.append(("MDAV + local", [f"{local_search(X, parts[k], k).il():.4f}" for k in KS], "",
                 f"{(time.perf_counter() - t0) / len(KS):.2f} s"))
    t0 = time.perf_counter()
    rows.append(("MDAV + RCS(0,0)",
                 [f"{random_cluster_shuffling(X, parts[k], k, probability=0).il():.4f}"
                  for k in KS], "", f"{(time.perf_counter() - t0) / len(KS):.2f} s"))
    return rows


def mftsp_row(X):
    t0 = time.perf_counter()
    P = start_paths(X, "nn")
    t_paths = time.perf_counter() - t0
    ils = []
    t0 = time.perf_counter()
    for k in KS:
        groups = mf_tsp_groups(neighbourhood_matrix(P, k - 1), X, k)
        ils.append(f"{Partition.from_groups(groups, X).il():.4f}")
    return ("MF-TSP (nn paths from every start)", ils, "",
            f"{t_paths:.1f} s paths + {(time.perf_counter() - t0) / len(KS):.1f} s/k")


def print_tables(name, X, repeats, rows):
    head = ["method"] + [f"k={k}" for k in KS] + ["path length", "time"]
    print(f"\n### {name} (n={X.shape[0]}, p={X.shape[1]}, {repeats} repeats; "
          "cells: mean (σ) min/max)\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for label, cells, plen, t in rows:
        print(f"| {label} | " + " | ".join(cells) + f" | {plen} | {t} |")
    print(f"\nPublished (seed 003; path lengths C-MHM/C2/C3 = "
          f"{PUBLISHED_PATH[name]}):\n")
    print("| published | " + " | ".join(f"k={k}" for k in KS) + " |")
    print("|" + "---|" * (len(KS) + 1))
    for label, vals in PUBLISHED[name].items():
        print(f"| {label} | " + " | ".join("—" if v is None else f"{v:.4f}" for v in vals) + " |")
    if name == "census" and any(r[0] == "MDAV" for r in rows):
        print("\nMDAV + RCS(probability 0) vs seed 003 Table 6.1 (Census):\n")
        print("| k | MDAV | ours | published |\n|---|---|---|---|")
        for k, pub in RCS_PUBLISHED.items():
            P0 = mdav(X, k)
            print(f"| {k} | {P0.il():.4f} | "
                  f"{random_cluster_shuffling(X, P0, k, probability=0).il():.4f} | {pub} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2 repeats, no LKH (about a minute)")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--datasets", default="tarragona,census")
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help=f"comma list out of {', '.join(SECTIONS)}")
    ap.add_argument("--tours", default=None,
                    help="comma list of tour methods for the hm2 section (default: all)")
    args = ap.parse_args()
    repeats = args.repeats or (2 if args.quick else 20)
    print(f"Machine: {machine()}")
    for name in args.datasets.split(","):
        if not (DATA / f"{name}.csv").is_file():
            print(f"\n{name}: {DATA / name}.csv not available, skipped")
            continue
        run_dataset(name, repeats, args.quick, args.sections.split(","),
                    args.tours.split(",") if args.tours else None)


if __name__ == "__main__":
    main()
