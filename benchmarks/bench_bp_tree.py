"""The ``bp`` tree on heavy-tailed files (issue 22): branching rules and
reduced-cost fixing, same instances in the same run.

    .venv/bin/python benchmarks/bench_bp_tree.py [--sizes 800] [--seeds 1,2] [--k 3]
        [--time-limit 240] [--configs fractional,fractional-nofix,strong] [--json out.jsonl]
        [--data FILE.csv [--initial LABELS.csv]] [--option KEY=VALUE ...]

Instances: :func:`mipagg.generators.lognormal` (p = 11 columns, the shape of
the issue's 4 092 × 11 business file), k = 3.  Configurations (every other
option at its default, one pricing thread):

* ``fractional``        most-fractional Ryan–Foster pair (ties by the largest squared
  distance), reduced-cost fixing on;
* ``fractional_index``  the same, ties among equally fractional pairs by the smallest
  indices (rule "fractional_index", the default before 2026-11-28);
* ``fractional-nofix``  the same without reduced-cost fixing;
* ``strong``            strong branching on the restricted master (8 candidates), fixing on;
* ``strong-nofix``      strong branching without fixing;
* ``reliability``       reliability branching: strong branching that scores a pair probed
  twice already by its pseudocosts (8 candidates);
* ``strong:N``, ``reliability:N``  the same on N candidates;
* ``strong-idx``        strong branching on the 8 most fractional pairs only (rule
  "strong_fractional", the candidates before 2026-11-28: among pairs at z = ½ the
  smallest indices);
* ``*-nodecuts``        any of the above with 3 subset-row cut rounds at every node;
* ``*-treemip``         any of the above with the pool MIP rerun in the tree each time
  the pool has grown by 10 % (``tree_mip=1.1``);
* ``*-tree``            any of the above with cuts, gap closing and the pool MIP off
  (the tree alone must prove optimality);
* ``*-nobasis``         any of the above with every node's LP started from the basis
  the last node left, not from its parent's (``node_basis=False``, the way
  before 2026-11-30).
* ``*-cost``, ``*-nocost``  any of the above with each node gap closing given at most
  the time of the subtree it would save (``node_close_cost`` on; bp's default with a time
  limit) or not (off).

Printed per run: status, seconds (total, tree), nodes, depth, open nodes, how
far the tree lifted the bound above the root's bound after cuts, best SSE,
final gap, share of the root gap closed, tree-size estimate, pairs fixed
(root / nodes), cuts separated at nodes, strong branching LP re-solves and
the candidates scored by pseudocosts instead.
``--node-limit`` gives every configuration the same number of nodes (the
shared machine's load makes equal-time comparisons noisy).  ``--data`` runs
on a CSV file instead (e.g. ../shared/data/tarragona.csv), ``--initial`` gives
every run the same first incumbent, ``--option`` further options of
``branch_and_price`` for every run (e.g. ``max_cut_rounds=30``).
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
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.exact.settings import BPSettings, parse_options  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402
from mipagg.verify import read_labels  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)


def config(name: str) -> dict:
    rule, *flags = name.split("-")
    if rule.partition(":")[0] not in ("fractional", "fractional_index", "strong",
                                      "reliability") or \
            not set(flags) <= {"nofix", "tree", "nodecuts", "treemip", "idx", "nobasis", "cost",
                               "nocost"}:
        raise SystemExit(f"unknown configuration {name!r}")
    kw = dict(branching=rule, fixing="nofix" not in flags, node_basis="nobasis" not in flags)
    if "idx" in flags:
        kw["branching"] = "strong_fractional"
    if "nodecuts" in flags:
        kw["node_cut_rounds"] = 3
    if "treemip" in flags:
        kw["tree_mip"] = 1.1
    if "cost" in flags or "nocost" in flags:
        kw["node_close_cost"] = "cost" in flags
    return {**kw, **(TREE_ONLY if "tree" in flags else {})}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="800")
    ap.add_argument("--seeds", default="1,2")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--p", type=int, default=11)
    ap.add_argument("--time-limit", type=float, default=240.0)
    ap.add_argument("--node-limit", type=int, default=None,
                    help="stop after this many nodes (equal work per configuration)")
    ap.add_argument("--configs", default="fractional,fractional-nofix,strong")
    ap.add_argument("--json", help="append one JSON record per run to this file")
    ap.add_argument("--data", help="a CSV file instead of the lognormal instances")
    ap.add_argument("--initial", help="with --data: a labels file (header 'group'), the "
                    "first incumbent of every run")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a further option of branch_and_price for every run (repeatable)")
    a = ap.parse_args(argv)
    extra = parse_options(a.option, BPSettings, reserved=("time_limit", "node_limit",
                                                          "branching", "threads"))
    print(f"<!-- {machine()} -->")
    print("| instance | k | config | status | s | tree s | nodes | depth | open | LB − root cut LB "
          "| UB | gap % | closed % | estimate | fixed root/nodes | node cuts | strong LPs "
          "| predicted | closings tried/closed/skipped | closing s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    if a.data:
        instances = [read_csv(a.data)]
    else:
        instances = [lognormal(n, a.p, seed=seed) for n in map(int, a.sizes.split(","))
                     for seed in map(int, a.seeds.split(","))]
    initial = read_labels(a.initial) if a.initial else None
    for inst in instances:
        for cfg in a.configs.split(","):
            t0 = time.perf_counter()
            r = branch_and_price(inst.X, a.k, time_limit=a.time_limit, threads=1,
                                 node_limit=a.node_limit, initial=initial,
                                 **{**extra, **config(cfg)})
            secs = time.perf_counter() - t0
            s = r.summary()
            closed = s["gap_closed"]
            lift = None if r.lower_bound is None or r.root_cut_bound is None else \
                r.lower_bound - r.root_cut_bound
            print(f"| {inst.name} | {a.k} | {cfg} | {r.status} | {secs:.1f} | "
                  f"{r.seconds['tree']:.1f} | {r.nodes} | "
                  f"{r.max_depth} | {r.open_nodes} | "
                  f"{'–' if lift is None else f'{lift:.4f}'} | {r.sse:.4f} | "
                  f"{'–' if r.gap is None else f'{r.gap:.4f}'} | "
                  f"{'–' if closed is None else f'{100 * closed:.1f}'} | "
                  f"{s['tree_estimate'] or '–'} | {r.fixed_pairs}/{r.node_fixed_pairs} | "
                  f"{r.node_cuts} | {r.strong_evaluations} | {r.strong_predicted} | "
                  f"{r.node_closings}/{r.nodes_enumerated}/{r.node_closings_skipped} | "
                  f"{r.seconds['node_close']:.0f} |",
                  flush=True)
            if a.json:
                with open(a.json, "a") as f:
                    f.write(json.dumps({"instance": inst.name, "k": a.k, "config": cfg,
                                        "version": __version__, "time_limit": a.time_limit,
                                        "node_limit": a.node_limit,
                                        "options": {**extra, **config(cfg)},
                                        "seconds": secs, "sse": r.sse, **s},
                                       default=float) + "\n")


if __name__ == "__main__":
    main()
