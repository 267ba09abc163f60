"""What a master's many cut rows cost each tree node (issue 22,
docs/bench/casc_gap.md §65): node cut rounds leave thousands of subset-row
cuts in the master, and every node prices with all of them.

    .venv/bin/python benchmarks/bench_cut_table.py [--n 1080] [--cuts 300,3500,20000]
        [--repeat 5] [--quick]

Per number of cuts m (random record triples of n records, 70 apart pairs
as a deep Census k = 4 node has), the seconds of the two steps a node pays
once its master has m cuts and one more came in, same run:

* the pricing's cut structure: built cut by cut from the cut list
  (``PricingConstraints.build``, every node until 2026-12-03) against the
  master's cut table (``MasterProblem.cut_table``, grown by the new cut,
  then ``PricingConstraints.with_cut_table``);
* adding the cut: the repeat check against the master's cut set, against
  the set built again from the cut list (``add_cuts`` until 2026-12-03; timed
  as that set comprehension alone);
* the :func:`~mipagg.exact.cuts.rank1` view of every cut, as the subset-row
  separation's repeat check and the closings' MIP rows take it: computed cut by
  cut (every call until 2026-12-05) against remembered (casc_gap.md §80);
* the pricing constraints of a node closing or of size fixing
  (:func:`~mipagg.exact.nodeclosing.cut_constraints`, penalties from the
  cut duals): built cut by cut from the cut list (until 2026-12-05) against
  the master's cut table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.exact.cuts import _rank1, _rank1_of_tuple, rank1  # noqa: E402
from mipagg.exact.master import MasterProblem  # noqa: E402
from mipagg.exact.nodeclosing import cut_constraints  # noqa: E402
from mipagg.exact.pricing.constraints import PricingConstraints  # noqa: E402


def best_of(f, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1080)
    ap.add_argument("--cuts", default="300,3500,20000")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="m = 300 and 3 500, 2 repeats")
    a = ap.parse_args(argv)
    sizes = [300, 3500] if a.quick else [int(v) for v in a.cuts.split(",")]
    repeat = 2 if a.quick else a.repeat
    print(f"<!-- {machine()} -->")
    print("| cuts | build cut by cut s | cut table s | ratio | repeat set rebuilt s "
          "| kept set s | rank1 computed s | remembered s | closing constraints by cut s "
          "| from the table s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = random.Random(0)
    n = a.n
    X = np.zeros((n, 1))
    X[:, 0] = np.arange(n)
    apart = [tuple(rng.sample(range(n), 2)) for _ in range(70)]
    base = PricingConstraints.build(n, apart=apart)
    for m in sizes:
        master = MasterProblem(X, np.zeros((1, 1)))
        triples = {tuple(sorted(rng.sample(range(n), 3))) for _ in range(m + 1)}
        cuts = sorted(triples)
        master.add_cuts(cuts[:-1])
        master.cut_table()
        master.add_cuts(cuts[-1:])                  # the cut that came in
        old = best_of(lambda: PricingConstraints.build(
            n, apart=apart, cuts=[(c, 0.0) for c in master.cuts]), repeat)

        full = master.cut_table()
        behind = tuple(v[:-1] for v in full)        # the table before the cut came in

        def new():
            master._cut_table = behind
            base.with_cut_table(*master.cut_table())

        fresh = best_of(new, repeat)
        rebuilt = best_of(lambda: {rank1(c) for c in master.cuts}, repeat)
        kept = best_of(lambda: rank1(cuts[-1]) in master._cut_keys, repeat)
        computed = best_of(lambda: [_rank1(c) for c in master.cuts], repeat)
        remembered = best_of(lambda: [rank1(c) for c in master.cuts], repeat)
        duals = -np.asarray([rng.random() for _ in master.cuts])

        def by_cut():                               # as until 2026-12-05: nothing remembered
            _rank1_of_tuple.cache_clear()
            PricingConstraints.build(
                n, apart=apart, cuts=[(c, -float(s)) for c, s in zip(master.cuts, duals)])

        by_cut_s = best_of(by_cut, repeat)
        table = best_of(lambda: cut_constraints(master, n, duals, apart=apart), repeat)
        print(f"| {len(master.cuts):,} | {old:.4f} | {fresh:.4f} | {old / fresh:.0f} "
              f"| {rebuilt:.4f} | {kept:.6f} | {computed:.4f} | {remembered:.4f} "
              f"| {by_cut_s:.4f} | {table:.4f} |", flush=True)


if __name__ == "__main__":
    main()
