"""IL by k per method (seed 004 Table 5; seed 003 Table 3.4) on Census,
Tarragona, SimU (25 data sets of 1 000 × 10 uniform values) and SimC (25
clustered data sets), k = 3, 5, 10; SimU/SimC cells are mean ± σ over the 25
data sets.  Also an IL-versus-time figure per data set (seed 003 Figure 5.5).

    python scripts/il_by_k.py [DATA_DIR] [--quick] [--jobs N | --scheduler ADDR]
"""

import sys

from mipagg.experiments import GeneratorSet, Grid, MethodEntry
from mipagg.experiments.scripting import csv_sets, grid_name, il_by_k_report, script_main

METHODS = [("npn-mhm", "NPN-MHM"), ("md", "MD"), ("md-mhm", "MD-MHM"), ("mdav", "MDAV"),
           ("mdav-mhm", "MDAV-MHM"), ("cbfs", "CBFS"), ("cbfs-mhm", "CBFS-MHM"),
           ("vmdav", "V-MDAV"), ("mf-tsp", "MF-TSP"), ("tsp-mhm", "TSP-MHM")]
SLOW = {"mf-tsp"}  # about 30 s a run on Census: left out of --quick


def build(data, quick):
    methods = [MethodEntry(m, label=lab) for m, lab in METHODS if not quick or m not in SLOW]
    sets = csv_sets(data, ("tarragona", "census"))
    if quick:
        sets += [GeneratorSet("simu", (0, 1), {"n": 300, "p": 10}, name="SimU-300"),
                 GeneratorSet("simc", (0, 1), {"p": 10, "clusters": 20}, name="SimC-20")]
    else:
        sets += [GeneratorSet("simu", tuple(range(25)), {"n": 1000, "p": 10}),
                 GeneratorSet("simc", tuple(range(25)), {"p": 10})]
    return [Grid(sets, methods, k=(3, 5, 10), seeds=(0,),
                 name=grid_name("il-by-k", quick), missing="skip")]


if __name__ == "__main__":
    sys.exit(script_main("il_by_k", __doc__, build, il_by_k_report))
