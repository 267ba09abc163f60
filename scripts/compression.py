"""Seed 003 chapter 5, Tables 5.2–5.3: IL by k (3..10) and path length of
Concorde-MHM (C-MHM) and of the compressed variants Cc-C-MHM (c = 2..5)
against MDAV and V-MDAV, on Census and Tarragona.  The LKH-grade tour stands
in for Concorde; a time-versus-IL figure per data set (Figure 5.5).

    python scripts/compression.py [DATA_DIR] [--quick] [--jobs N | --scheduler ADDR]
"""

import sys

from mipagg.experiments import Grid, MethodEntry
from mipagg.experiments.scripting import csv_sets, grid_name, il_by_k_report, script_main


def build(data, quick):
    cs = (3, 5) if quick else (2, 3, 4, 5)
    methods = [MethodEntry("mdav", label="MDAV"), MethodEntry("vmdav", label="V-MDAV")]
    if not quick:  # one LKH tour of all 1 080 Census records takes about 30 s
        methods.append(MethodEntry("tsp-mhm", {"tour": "lkh"}, label="C-MHM"))
    methods += [MethodEntry("compress", {"c": c, "tour": "lkh"}, label=f"C{c}-C-MHM") for c in cs]
    names = ("census",) if quick else ("census", "tarragona")
    return [Grid(csv_sets(data, names), methods,
                 k=tuple(range(3, 11)), seeds=(0,),
                 name=grid_name("compression", quick), missing="skip")]


if __name__ == "__main__":
    sys.exit(script_main("compression", __doc__, build, il_by_k_report))
