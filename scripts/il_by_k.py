"""IL by k per method (seed 004 Table 5; seed 003 Table 3.4) on Census,
Tarragona, SimU (25 data sets of 1 000 × 10 uniform values) and SimC (25
clustered data sets), k = 3, 5, 10; SimU/SimC cells are mean ± σ over the 25
data sets.  Also an IL-versus-time figure per data set (seed 003 Figure 5.5).

    python scripts/il_by_k.py [DATA_DIR] [--quick] [--jobs N | --scheduler ADDR]
"""

import sys

from mipagg.experiments import CsvSet, GeneratorSet, Grid, MethodEntry
from mipagg.experiments.plots import tradeoff_plot
from mipagg.experiments.report import il_by_k_table
from mipagg.experiments.scripting import script_main

METHODS = [("npn-mhm", "NPN-MHM"), ("md", "MD"), ("md-mhm", "MD-MHM"), ("mdav", "MDAV"),
           ("mdav-mhm", "MDAV-MHM"), ("cbfs", "CBFS"), ("cbfs-mhm", "CBFS-MHM"),
           ("vmdav", "V-MDAV"), ("mf-tsp", "MF-TSP"), ("tsp-mhm", "TSP-MHM")]
QUICK = {"npn-mhm", "mdav", "mdav-mhm", "cbfs", "cbfs-mhm", "vmdav"}


def build(data, quick):
    methods = [MethodEntry(m, label=lab) for m, lab in METHODS if not quick or m in QUICK]
    if quick:
        sets = [CsvSet(str(data / "census.csv")),
                GeneratorSet("simu", (0, 1), {"n": 300, "p": 10}, name="SimU-300"),
                GeneratorSet("simc", (0, 1), {"p": 10, "clusters": 20}, name="SimC-20")]
    else:
        sets = [CsvSet(str(data / "tarragona.csv")), CsvSet(str(data / "census.csv")),
                GeneratorSet("simu", tuple(range(25)), {"n": 1000, "p": 10}),
                GeneratorSet("simc", tuple(range(25)), {"p": 10})]
    return [Grid(sets, methods, k=(3, 5, 10), seeds=(0,),
                 name="il-by-k-quick" if quick else "il-by-k", missing="skip")]


def report(df, out, stem):
    for ds in dict.fromkeys(df["dataset"]):
        tradeoff_plot(df, out / f"{stem}-tradeoff-{ds}.png", dataset=ds)
    return [il_by_k_table(df)]


if __name__ == "__main__":
    sys.exit(script_main("il_by_k", __doc__, build, report))
