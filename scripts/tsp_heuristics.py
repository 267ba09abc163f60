"""Seed 003 chapter 4 ((HM)²-Micro), Tables 4.2 and 4.4: IL average, σ, min and
max over 50 repeats (random starting node) of MHM on TSP tours, against MDAV,
V-MDAV and MDAV-LK-MHM, on Census and Tarragona, k = 3..6; box plots
(Figures 4.2–4.13), path length versus SSE (section 4.4, Table 4.8).

Concorde is replaced by the LKH-grade tour (tour = "lkh", seeded): its paths
reach the proven optimal length (``mipagg.tsp.exact_tour`` proves the optimum of
both files in under a minute, docs/bench/tours.md), and like the thesis's 50
Concorde runs it varies with the random start.

    python scripts/tsp_heuristics.py [DATA_DIR] [--quick] [--jobs N | --scheduler ADDR]
"""

import sys

from mipagg.experiments import Grid, MethodEntry
from mipagg.experiments.plots import il_boxplot, path_sse_plot
from mipagg.experiments.report import correlation_table, il_stats_table
from mipagg.experiments.scripting import csv_sets, grid_name, script_main

TOURS = [("nn", "Nearest Neighbour - MHM"), ("rnn", "Repetitive NN - MHM"),
         ("nearest", "Nearest Insertion - MHM"), ("farthest", "Farthest Insertion - MHM"),
         ("cheapest", "Cheapest Insertion - MHM"), ("arbitrary", "Arbitrary Insertion - MHM"),
         ("lkh", "LKH (for Concorde) - MHM")]


def build(data, quick):
    tours = TOURS[:-1] if quick else TOURS  # quick: no LKH (about 30 s a run on Census)
    methods = [MethodEntry("mdav", label="MDAV"), MethodEntry("vmdav", label="V-MDAV"),
               MethodEntry("mdav-lk-mhm", label="MDAV-LK-MHM")]
    methods += [MethodEntry("tsp-mhm", {"tour": t}, label=lab) for t, lab in tours]
    return [Grid(csv_sets(data, ("census", "tarragona")), methods,
                 k=(3, 4, 5, 6), seeds=range(5 if quick else 50),
                 name=grid_name("tsp-heuristics", quick), missing="skip")]


def report(df, out, stem):
    order = ["MDAV", "V-MDAV", "MDAV-LK-MHM"] + [lab for _, lab in TOURS]
    tsp = [lab for _, lab in TOURS]  # Table 4.8 correlates the TSP heuristics only
    tables = []
    for ds in dict.fromkeys(df["dataset"]):
        tables.append(il_stats_table(df, dataset=ds, methods=order))
        il_boxplot(df, out / f"{stem}-box-{ds}.png", dataset=ds, methods=order)
        path_sse_plot(df, out / f"{stem}-path-sse-{ds}.png", dataset=ds, methods=tsp)
    tables.append(correlation_table(df, methods=tsp))
    return tables


if __name__ == "__main__":
    sys.exit(script_main("tsp_heuristics", __doc__, build, report))
