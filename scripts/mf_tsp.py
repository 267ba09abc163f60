"""Seed 003 chapter 3, Table 3.4: IL of MF-TSP (Algorithm 1) with eight tour
heuristics against MDAV and V-MDAV on Census and Tarragona, k = 3, 4, 5, 10.
One run per cell (seed 0).  The construction heuristics give one path from
every start record; 2-Opt and LKH (standing in for Concorde) cannot fix the
start, so MF-TSP uses ``n_paths`` tours with independent seeds cut at the
dummy node (n for 2-Opt; only 10 for LKH, about 2 s an LKH tour on Census);
Repetitive NN is deterministic, so one path equals n identical ones.

    python scripts/mf_tsp.py [DATA_DIR] [--quick] [--jobs N | --scheduler ADDR]
"""

import sys

from mipagg.experiments import Grid, MethodEntry
from mipagg.experiments.scripting import csv_sets, grid_name, il_by_k_report, script_main

TOURS = [("2opt", "2-Opt", {}), ("lkh", "LKH", {"n_paths": 10}),
         ("nearest", "Nearest Insert", {}), ("farthest", "Farthest Insert", {}),
         ("cheapest", "Cheapest Insert", {}), ("arbitrary", "Arbitrary Insert", {}),
         ("nn", "Nearest Neighbour", {}), ("rnn", "Repetitive NN", {"n_paths": 1})]
QUICK = {"2opt", "nearest", "nn", "rnn"}


def build(data, quick):
    methods = [MethodEntry("mdav", label="MDAV"), MethodEntry("vmdav", label="V-MDAV")]
    methods += [MethodEntry("mf-tsp", {"tour": t, **opts}, label=f"MF-TSP({lab})")
                for t, lab, opts in TOURS if not quick or t in QUICK]
    names = ("tarragona",) if quick else ("census", "tarragona")
    return [Grid(csv_sets(data, names), methods,
                 k=(3, 5) if quick else (3, 4, 5, 10), seeds=(0,),
                 name=grid_name("mf-tsp", quick))]


if __name__ == "__main__":
    sys.exit(script_main("mf_tsp", __doc__, build, il_by_k_report))
