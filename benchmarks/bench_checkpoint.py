"""What a tree checkpoint costs (issue 22): one ``bp`` tree run whole, and the
same tree stopped at a node limit with ``checkpoint=``, then resumed with
``resume=``, same run.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_checkpoint.py [--quick]
        [--lognormal 80:3:1,100:3:1] [--census 0:300:5] [--split 200]
        [--branching fractional]

Instances: ``n:k:seed`` of :func:`mipagg.generators.lognormal` (11 columns),
*tree-only* as in ``bench_bp_workers.py`` (cuts, gap closing and the pool MIP
off, so that the tree does the work: hundreds of light nodes), and
``start:stop:k`` blocks of consecutive Census records (``--census``,
``../shared/data/census.csv``, never committed; bp's defaults), one pricing
thread.  Printed per instance: nodes and seconds of the whole tree; of the
split one, the nodes before and after, the seconds of writing the checkpoint
(``time_checkpoint``), its size, the seconds of loading and restoring it
(the resumed run's ``time_tree`` minus the nodes' work is not separable, so
the load is timed on its own), and whether both reach the same optimum.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

import mipagg  # noqa: E402
from mipagg.exact import checkpoint  # noqa: E402
from mipagg.exact.bp import branch_and_price  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)


def instances(a):
    for item in filter(None, a.lognormal.split(",")):
        n, k, seed = (int(v) for v in item.split(":"))
        yield f"lognormal n={n} seed={seed}", lognormal(n, 11, seed=seed).X, k, TREE_ONLY
    if a.census:
        X = mipagg.read_csv(DATA / "census.csv").X
        for item in a.census.split(","):
            lo, hi, k = (int(v) for v in item.split(":"))
            B = X[lo:hi]
            yield f"census {lo}-{hi - 1}", (B - B.mean(axis=0)) / B.std(axis=0, ddof=1), k, {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one small instance")
    ap.add_argument("--lognormal", default="80:3:1,100:3:1")
    ap.add_argument("--census", default="")
    ap.add_argument("--split", type=int, default=200, help="node limit of the first run")
    ap.add_argument("--branching", default="fractional")
    a = ap.parse_args()
    if a.quick:
        a.lognormal, a.census, a.split = "60:3:1", "", 5
    print(f"# {machine()}; split at {a.split} nodes, branching {a.branching}")
    print("| instance | k | whole: nodes, s | split: nodes first + rest, s | write s | "
          "file KiB | load s | same optimum |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tree.npz"
        for name, X, k, extra in instances(a):
            opts = dict(threads=1, branching=a.branching, **extra)
            t0 = time.perf_counter()
            whole = branch_and_price(X, k, **opts)
            t_whole = time.perf_counter() - t0
            t0 = time.perf_counter()
            first = branch_and_price(X, k, node_limit=a.split, checkpoint=path, **opts)
            if first.checkpoint is None:
                print(f"| {name} | {k} | {whole.nodes}, {t_whole:.1f} | no checkpoint "
                      f"(status {first.status}) | | | | |")
                continue
            t1 = time.perf_counter()
            ck = checkpoint.load(path)
            t_load = time.perf_counter() - t1
            rest = branch_and_price(X, k, resume=path, **opts)
            t_split = time.perf_counter() - t0
            same = rest.status == whole.status == "optimal" and \
                abs(rest.sse - whole.sse) <= 1e-7 * max(1.0, whole.sse)
            print(f"| {name} | {k} | {whole.nodes}, {t_whole:.1f} | {first.nodes} + "
                  f"{rest.nodes - rest.resumed_nodes}, {t_split:.1f} | "
                  f"{first.seconds.get('checkpoint', 0.0):.3f} | "
                  f"{path.stat().st_size / 1024:.0f} | {t_load:.3f} | "
                  f"{'yes' if same else 'NO'} ({len(ck.nodes)} open, {len(ck.columns)} columns) |")


if __name__ == "__main__":
    main()
