"""Seed 001 Tables 3–4: gaps of MDAV, V-MDAV, RoundingMSTHeuristic and
SimpleRoundingHeuristic with respect to the column-generation lower bound, on
subsets of Census and Tarragona (5 sizes × 4 criteria × 5 subsets, k = 3, 4, 5).

    python scripts/cg_gaps.py [DATA_DIR] [--quick] [--jobs N | --scheduler ADDR]
"""

import sys

from mipagg.experiments import Grid, MethodEntry, SubsetSet
from mipagg.experiments.report import gap_tables
from mipagg.experiments.scripting import grid_name, script_main
from mipagg.methods import METHODS

# seconds per run (the run returns its best partition and certified bound);
# killed at 1.5 × this + 10 s
TIME_LIMIT = 120.0
METHOD = "cg" if "cg" in METHODS else "column_generation"


def build(data, quick):
    sets = [SubsetSet(str(data / f"{name}.csv"),
                      sizes=(30, 40) if quick else (30, 40, 50, 100, 200),
                      criteria=("random", "norm") if quick else
                      ("consecutive", "random", "norm", "centroid"),
                      count=2 if quick else 5)
            for name in ("census", "tarragona")]
    if METHOD == "cg":
        # the seed's algorithm: both rounding heuristics at every master solution
        # (MicroaggregationHeuristicMP, step 5c), stop at the certified LP bound (no
        # gap-closing MIP, which is an extension of ours and can take minutes)
        cg = MethodEntry("cg", {"close_gap": False, "rounding": "every"})
    else:  # until the method is registered: the same function, called directly
        print("cg_gaps: 'cg' is not registered; calling mipagg.exact.colgen:column_generation",
              file=sys.stderr)
        cg = MethodEntry(METHOD, target="mipagg.exact.colgen:column_generation")
    return [Grid(sets, [cg], k=(3,) if quick else (3, 4, 5),
                 time_limit=20.0 if quick else TIME_LIMIT,
                 name=grid_name("cg-gaps", quick))]


def report(df, out, stem):
    return gap_tables(df, method=METHOD)


if __name__ == "__main__":
    sys.exit(script_main("cg_gaps", __doc__, build, report))
