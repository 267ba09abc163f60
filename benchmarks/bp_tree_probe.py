"""Probes behind the diagnosis of docs/bench/bp_tree.md §1 (issue 22), on
:func:`mipagg.generators.lognormal` (p = 11), k = 3, one JSON line each:

    python benchmarks/bp_tree_probe.py tree N SEED TIME_LIMIT        # bp with progress lines
    python benchmarks/bp_tree_probe.py rootcuts N SEED TAIL_OFF ROUNDS MIP_TIME
                                       # the root only (node_limit 1): how far cuts and the pool MIP go
    python benchmarks/bp_tree_probe.py primal N SEED TIME_LIMIT
                                       # bp's root incumbent, then the exact neighbourhood search
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.neighbourhood import exact_neighbourhood_search  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402


def main(argv):
    mode, n, seed, *rest = argv
    X = lognormal(int(n), 11, seed=int(seed)).X
    t0 = time.perf_counter()
    if mode == "tree":
        r = branch_and_price(X, 3, time_limit=float(rest[0]), verbose=True)
        out = {"sse": r.sse, **r.summary()}
    elif mode == "rootcuts":
        r = branch_and_price(X, 3, threads=1, node_limit=1, time_limit=600,
                             tail_off=float(rest[0]), max_cut_rounds=int(rest[1]),
                             mip_time=float(rest[2]))
        out = {"sse": r.sse, **r.summary()}
    elif mode == "primal":
        r = branch_and_price(X, 3, threads=1, node_limit=1, time_limit=600)
        q = exact_neighbourhood_search(X, r.partition, 3, time_limit=float(rest[0]), seed=0)
        out = {"root_sse": r.sse, "lower_bound": r.lower_bound, "ens_sse": q.partition.sse(),
               **q.summary()}
    else:
        raise SystemExit(__doc__)
    print(json.dumps({"probe": argv, "seconds": time.perf_counter() - t0, **out}, default=float))


if __name__ == "__main__":
    main(sys.argv[1:])
