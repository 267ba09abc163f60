"""Seed 003 chapter 6, Table 6.1: Random Cluster Shuffling (RCS, Algorithm 4)
after MDAV, for shuffling probabilities 0, 1/1000, 10/1000, 100/1000 and at
most 10 or 20 shuffling events, k = 3, 5, 10, 5 repeats (seeds 0..4); cells
are mean ± σ of IL over the repeats.  Census as published; Tarragona added
(Barcelona and Madrid are not available).

    python scripts/rcs.py [DATA_DIR] [--quick] [--jobs N | --scheduler ADDR]
"""

import sys

from mipagg.experiments import Grid, MethodEntry
from mipagg.experiments.scripting import csv_sets, grid_name, il_by_k_report, script_main

SETTINGS = [(0, 0), (1, 10), (1, 20), (10, 10), (10, 20), (100, 10), (100, 20)]  # (‰, events)


def rcs(per_mille, events):
    return MethodEntry("mdav", improve="rcs", label=f"MDAV-RCS {per_mille}/1000, {events}",
                       improve_options={"probability": per_mille / 1000, "max_events": events})


def build(data, quick):
    settings = SETTINGS[:3] if quick else SETTINGS
    names = ("census",) if quick else ("census", "tarragona")
    return [Grid(csv_sets(data, names),
                 [MethodEntry("mdav", label="MDAV")] + [rcs(*s) for s in settings],
                 k=(3, 5, 10), seeds=range(2 if quick else 5),
                 name=grid_name("rcs", quick))]


if __name__ == "__main__":
    sys.exit(script_main("rcs", __doc__, build, il_by_k_report))
