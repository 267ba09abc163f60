"""Seed 004 Tables 6–7: how close the heuristics get to the optimum on 100
simulated data sets of 11 records (normal, 3 attributes), k = 2, 3, 5; and at
k = 3 for p = 2, 3, 5, 7 attributes.  The optimum comes from the exhaustive
search :func:`mipagg.exact.reference.optimal_partition_bruteforce`.

    python scripts/optimality_small.py [--quick] [--jobs N | --scheduler ADDR]
"""

import sys

from mipagg.experiments import GeneratorSet, Grid, MethodEntry
from mipagg.experiments.report import optimality_tables
from mipagg.experiments.scripting import script_main

METHODS = [("npn-mhm", "NPN-MHM"), ("cbfs", "CBFS"), ("cbfs-mhm", "CBFS-MHM"), ("mdav", "MDAV"),
           ("mdav-mhm", "MDAV-MHM"), ("md", "Max. Dist."), ("md-mhm", "MD-MHM")]
OPT = MethodEntry("bruteforce", label="opt",
                  target="mipagg.exact.reference:optimal_partition_bruteforce")


def build(data, quick):
    count = 10 if quick else 100
    methods = [OPT] + [MethodEntry(m, label=lab) for m, lab in METHODS]
    table6 = Grid([GeneratorSet("normal_small", tuple(range(count)), {"n": 11, "p": 3})],
                  methods, k=(2, 3, 5), name="table6", missing="skip")
    table7 = Grid([GeneratorSet("normal_small", tuple(range(count)), {"n": 11, "p": p})
                   for p in (2, 5, 7)], methods, k=(3,), name="table7", missing="skip")
    return [table6, table7]


def report(df, out, stem):
    return (optimality_tables(df[df["p"] == 3], reference="opt", by="k")
            + optimality_tables(df, reference="opt", by="p", k=3))


if __name__ == "__main__":
    sys.exit(script_main("optimality_small", __doc__, build, report, needs_data=False))
