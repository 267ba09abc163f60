"""Stalled master LPs, solved again offline (``lp_stall_time``; issue 22,
docs/bench/casc_gap.md §72).

A tree run with ``--bp-option lp_stall_time=S --bp-option lp_stall_dump=DIR``
writes every node LP that ran past S seconds, with the basis it started
from, to DIR (``stall_<pid>_<n>.mps`` / ``.bas``).  This script solves each
one from that basis with the master's HiGHS settings once per variant, one
after the other in this process, under ``--time-limit`` seconds each, and
prints one JSON line per solve (seconds, simplex iterations, status,
objective) and then, per variant, the ratio of its total seconds to the
first variant's::

    python benchmarks/bench_lp_stall.py /tmp/stalls --time-limit 900 \\
        --variants perturbed,unperturbed

Variants: ``perturbed`` (HiGHS's default dual simplex, as the master ran it
in the tree before §73), ``unperturbed`` (cost and bound perturbations off,
bp's node LPs since §73 and what
:meth:`~mipagg.exact.master.MasterProblem._unstall` runs after a perturbed
one), ``primal`` (the primal simplex).  ``retry-old`` and ``retry-new`` run
the perturbed dual simplex and, while it ends neither optimal nor at the
time limit (status "Unknown"), a perturbed master's retries: before §73 the
primal simplex from where it stopped, then a cold start (``clearSolver``);
since, the basis where it stopped set again and run unperturbed, then set
again and run by the primal simplex, then a cold start.  Their rows add the
statuses of the runs.  ``--only`` names the LPs to solve; ``--seeds N``
solves each with HiGHS's ``random_seed`` 0..N-1, which draws the
perturbation (§73).  The LPs are not
shipped: they hold the data's distances.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402
from mipagg import __version__  # noqa: E402
from mipagg.exact.highs import new_highs  # noqa: E402
from mipagg.exact.master import PERTURBATIONS  # noqa: E402

OFF = dict.fromkeys(PERTURBATIONS, 0.0)
VARIANTS = {"perturbed": {"simplex_strategy": 1},
            "unperturbed": {"simplex_strategy": 1, **OFF},
            "primal": {"simplex_strategy": 4}}
# the retries after a run that ends "Unknown": (variant, how the run starts)
RETRIES = {"retry-old": [("primal", "as stopped"), ("perturbed", "cold")],
           "retry-new": [("unperturbed", "basis set again"), ("primal", "basis set again"),
                         ("perturbed", "cold")]}
DONE = ("Optimal", "Time limit reached")


def solve(mps: Path, variant: str, time_limit: float, seed: int = 0) -> dict:
    """One dumped LP from its starting basis by ``variant``."""
    h = new_highs(presolve="off", primal_feasibility_tolerance=1e-9,
                  dual_feasibility_tolerance=1e-9, solver="simplex")
    h.readModel(str(mps))
    h.readBasis(str(mps.with_suffix(".bas")))
    first = VARIANTS["perturbed" if variant in RETRIES else variant]
    for name, value in first.items():
        h.setOptionValue(name, value)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("random_seed", seed)
    t0 = time.perf_counter()
    h.run()
    row = {}
    if variant in RETRIES:
        row["statuses"] = [h.modelStatusToString(h.getModelStatus())]
        for then, how in RETRIES[variant]:
            if row["statuses"][-1] in DONE:
                break
            if how == "cold":
                h.clearSolver()
            elif how == "basis set again":
                h.setBasis(h.getBasis())
            for name, value in {**VARIANTS["perturbed"], **dict.fromkeys(PERTURBATIONS, 1.0),
                                **VARIANTS[then]}.items():
                h.setOptionValue(name, value)
            h.run()
            row["statuses"].append(h.modelStatusToString(h.getModelStatus()))
    seconds = time.perf_counter() - t0
    info = h.getInfo()
    return {"lp": mps.stem, "variant": variant, "seed": seed, "seconds": round(seconds, 4),
            "iterations": int(info.simplex_iteration_count),
            "status": h.modelStatusToString(h.getModelStatus()),
            "objective": float(info.objective_function_value),
            "columns": int(h.getNumCol()), "rows": int(h.getNumRow()), **row}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dumps", type=Path, help="the lp_stall_dump directory")
    ap.add_argument("--time-limit", type=float, default=900.0)
    ap.add_argument("--variants", default="perturbed,unperturbed")
    ap.add_argument("--limit", type=int, default=None, help="at most this many LPs")
    ap.add_argument("--only", default=None, help="comma-separated LP names (file stems)")
    ap.add_argument("--seeds", type=int, default=1,
                    help="solve each LP and variant with HiGHS's random_seed 0..N-1")
    a = ap.parse_args(argv)
    variants = [v.strip() for v in a.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS and v not in RETRIES]
    if unknown:
        sys.exit(f"unknown variants {unknown}; choose from {sorted(VARIANTS) + sorted(RETRIES)}")
    lps = sorted(a.dumps.glob("stall_*.mps"))
    if a.only:
        lps = [p for p in lps if p.stem in a.only.split(",")]
    lps = lps[:a.limit]
    if not lps:
        sys.exit(f"no stall_*.mps files in {a.dumps}")
    print(json.dumps({"mipagg": __version__, "machine": machine(), "lps": len(lps),
                      "time_limit": a.time_limit, "variants": variants, "seeds": a.seeds}),
          flush=True)
    total = {v: 0.0 for v in variants}
    for mps in lps:
        for v, seed in ((v, seed) for v in variants for seed in range(a.seeds)):
            row = solve(mps, v, a.time_limit, seed)
            total[v] += row["seconds"]
            print(json.dumps(row), flush=True)
    base = total[variants[0]]
    print(json.dumps({"total_seconds": {v: round(s, 3) for v, s in total.items()},
                      "ratio_to_" + variants[0]: {v: round(s / base, 3) if base else None
                                                  for v, s in total.items()}}))


if __name__ == "__main__":
    main()
