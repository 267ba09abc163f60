"""Reduced-cost fixing at tree nodes: pair fixing by full bounds against
``PairFixing.fix_node``'s quick bounds first (issue 22, docs/bench/casc_gap.md
§84), and the share of the nodes' time each fixing takes.

Resumes a sample of a checkpoint's open subtrees (as ``bench_subtrees.py``
draws them) on one process for ``--nodes`` nodes with the options the
checkpoint was written with, timing ``fix_node`` (pairs) and
``fix_node_sizes`` (sizes) at every node and capturing the pair fixing's
inputs; with ``--root-seconds T`` the tree starts from the root instead, with
the same options, for T seconds (the first nodes of a tree, where branching
nodes are many).  Then, for each captured node, computes the fixed pairs twice: every
candidate pair's full bound (``PairFixing.bounds``, the way before §84)
compared with UB − L, and ``fix_node``; checks that both fix the same pairs
and prints their seconds and the ratio::

    python benchmarks/bench_node_fixing.py \\
        --resume census:4:docs/results/trees/census_k4_groups_5.npz --sample 30 --seed 4 --nodes 60
    python benchmarks/bench_node_fixing.py \
        --resume census:4:docs/results/trees/census_k4_groups_5.npz --root-seconds 420
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_subtrees import resumed, sample_arguments  # noqa: E402

from mipagg.exact.bp import BranchAndPrice, branch_and_price  # noqa: E402
from mipagg.exact.fixing import PairFixing  # noqa: E402


def watch(calls: list, seconds: dict) -> None:
    """Time :meth:`BranchAndPrice.fix_node` and ``fix_node_sizes`` into
    ``seconds`` and append each pair fixing's (fixer, arguments) to ``calls``."""
    fix_node, fix_sizes, pair_fix = (BranchAndPrice.fix_node, BranchAndPrice.fix_node_sizes,
                                     PairFixing.fix_node)

    def timed(name, method):
        def run(self, *args):
            t = time.perf_counter()
            out = method(self, *args)
            seconds[name] += time.perf_counter() - t
            return out
        return run

    def pair_fix_(self, duals, bound, ub, cuts=(), cut_duals=None, known=(), sizes_out=0,
                  count_penalty=0.0):
        args = (np.array(duals, dtype=float), float(bound), float(ub), list(cuts),
                None if cut_duals is None else np.array(cut_duals, dtype=float),
                tuple(known), int(sizes_out), float(count_penalty))
        calls.append((self, args))
        return pair_fix(self, *args)

    BranchAndPrice.fix_node = timed("pairs", fix_node)
    BranchAndPrice.fix_node_sizes = timed("sizes", fix_sizes)
    PairFixing.fix_node = pair_fix_
    seconds["restore"] = (fix_node, fix_sizes, pair_fix)


def full_bounds(fx: PairFixing, args) -> list:
    """The fixed pairs the way before §84: every free candidate pair's full bound."""
    duals, bound, ub, cuts, cut_duals, known, sizes_out, penalty = args
    free = fx.free(known)
    if not free.any():
        return []
    b = fx.bounds(duals, cuts, cut_duals, free, sizes_out, penalty)
    return [(int(a), int(c)) for a, c in fx.pairs[free][b > ub - bound + fx.margin(ub)]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sample_arguments(ap, "census:4:docs/results/trees/census_k4_groups_5.npz", 30, 4)
    ap.add_argument("--nodes", type=int, default=60, help="nodes to solve and replay")
    ap.add_argument("--root-seconds", type=float,
                    help="from the root for this long instead of a sample of the checkpoint")
    ap.add_argument("--quick", action="store_true", help="5 nodes drawn, 5 solved")
    a = ap.parse_args(argv)
    if a.quick:
        a.sample, a.nodes = 5, 5
    k, X, part, ckpt, options = resumed(
        a, "bench_node_fixing", f"from the root for {a.root_seconds:g} s" if a.root_seconds else None)
    resumed_nodes = 0 if a.root_seconds else ckpt.meta["counts"]["nodes"]
    calls: list = []
    seconds = {"pairs": 0.0, "sizes": 0.0}
    watch(calls, seconds)
    t0 = time.perf_counter()
    if a.root_seconds:
        r = branch_and_price(X, k, time_limit=a.root_seconds, **options)
    else:
        r = branch_and_price(X, k, resume=part, node_limit=resumed_nodes + a.nodes, **options)
    wall = time.perf_counter() - t0
    BranchAndPrice.fix_node, BranchAndPrice.fix_node_sizes, PairFixing.fix_node = \
        seconds.pop("restore")
    done = r.summary()["nodes"] - resumed_nodes
    print(f"{done} nodes in {wall:.1f} s (tree {r.summary()['time_tree']:.1f} s): pair fixing {seconds['pairs']:.2f} s, "
          f"size fixing {seconds['sizes']:.2f} s, fixing in all (columns too) "
          f"{r.summary()['time_fixing']:.2f} s")
    t_full = t_quick = 0.0
    fixed = 0
    if calls:
        full_bounds(*calls[0])          # warm-up: the full bounds' kernel compiled
    for fx, args in calls:
        before = fx.node_fixed
        t = time.perf_counter()
        want = full_bounds(fx, args)
        t_full += time.perf_counter() - t
        t = time.perf_counter()
        got = fx.fix_node(*args)
        t_quick += time.perf_counter() - t
        fx.node_fixed = before
        if got != want:
            raise SystemExit(f"fix_node differs from the full bounds: {len(got)} pairs "
                             f"against {len(want)}")
        fixed += len(got)
    print(f"{len(calls)} pair fixings replayed, {fixed} pairs fixed (the same both ways): "
          f"full bounds {t_full:.3f} s, fix_node {t_quick:.3f} s, "
          f"×{t_full / max(t_quick, 1e-9):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
