"""Cost of the generalised cut penalties for today's subset-row cuts: the exact
pricing search at the duals and cut penalties of a root after subset-row cut
rounds, timed with whichever ``mipagg`` is on ``PYTHONPATH`` (run it once per
checkout, alternating, to compare two versions in the same session).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_cut_pricing.py --state /tmp/state.pkl
    PYTHONPATH=/path/to/old/checkout .venv/bin/python benchmarks/bench_cut_pricing.py \\
        --state /tmp/state.pkl

The first run writes ``--state`` (root column generation and cut rounds of
``bp`` on ``lognormal(200, 11, seed=1)``, k = 5: record coordinates, row
duals, cut triples and penalties); later runs read it, so every version
prices the same problem.  Printed: the best of ``--repeats`` times of one
exact search per size η = k..2k−1 (one thread) and the minima found.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _env import machine  # noqa: E402


def make_state(path, n, k):
    from mipagg.exact.bp import BranchAndPrice
    from mipagg.exact.settings import BPSettings
    from mipagg.generators import lognormal

    X = lognormal(n, 11, seed=1).X
    bp = BranchAndPrice(X, k, BPSettings(threads=1, close_gap=False, mip_time=0, dive_time=0))
    bp.root_column_generation()
    bp.cut_rounds()
    sol = bp.root.solution
    state = dict(X=X, k=k, lam=sol.duals, cuts=[tuple(int(v) for v in c) for c in bp.master.cuts],
                 mu=sol.penalties)
    with open(path, "wb") as fh:
        pickle.dump(state, fh)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--state", required=True)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args(argv)
    from mipagg.exact.master import squared_distances
    from mipagg.exact.pricing.constraints import PricingConstraints
    from mipagg.exact.pricing.search import SearchSpace, search_clusters

    if not os.path.exists(args.state):
        make_state(args.state, args.n, args.k)
    with open(args.state, "rb") as fh:
        s = pickle.load(fh)
    print(machine())
    D = squared_distances(s["X"])
    k = s["k"]
    cons = PricingConstraints.build(D.shape[0], cuts=list(zip(s["cuts"], s["mu"])))
    spaces = {eta: SearchSpace.build(D, eta) for eta in range(k, 2 * k)}
    for sp in spaces.values():                                    # compile and warm up
        search_clusters(sp, s["lam"], cons, mode="best", max_columns=50, threads=1)
    times, mins = [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        mins = [search_clusters(sp, s["lam"], cons, mode="best", max_columns=50,
                                threads=1).min_rc for sp in spaces.values()]
        times.append(time.perf_counter() - t0)
    print(f"{len(s['cuts'])} cuts ({int((s['mu'] > 0).sum())} with a penalty); best of "
          f"{args.repeats}: {min(times):.3f} s; minima {[round(m, 6) for m in mins]}; "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
