"""What a node LP saves when HiGHS keeps the basis it holds instead of
having it set again (``MasterProblem.load_basis`` for a plunge's child;
issue 22, docs/bench/casc_gap.md §83).

Captures the master LP (model and starting basis) at the first solve of
``--lps`` nodes of a sample of a checkpoint's open subtrees (as
``bench_subtrees.py`` draws them), then, for each, in a fresh HiGHS with the
master's settings: solves it from its basis, forbids its most fractional
basic column (a stand-in for a child's branching) and solves again, once as
HiGHS stands (its factorization and dual steepest-edge weights kept) and
once after ``setBasis`` of that same basis.  Prints one line per LP (seconds
and simplex iterations of both) and the totals::

    python benchmarks/bench_basis_keep.py \\
        --resume census:4:docs/results/trees/census_k4_sizes_5.npz --sample 30 --seed 4 --lps 20

The sample runs with the options the checkpoint was written with (one
process), ``--bp-option`` changing one of them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import watch_node_solves  # noqa: E402
from bench_subtrees import resumed, sample_arguments  # noqa: E402

from mipagg.exact.bp import branch_and_price  # noqa: E402


def capture(lps: list, count: int):
    """Make the first solve at each node (:func:`_env.watch_node_solves`)
    append (LP, basis) to ``lps``, up to ``count`` of them; returns the
    undo."""
    def hook(master, first, kept, solve):
        if first and len(lps) < count:
            lps.append((master._highs.getLp(), master._highs.getBasis()))
        return solve()

    return watch_node_solves(hook)


def replay(lp, basis) -> dict:
    """The child's re-solve kept and set again (seconds, iterations), after
    the parent's solve of ``lp`` from ``basis``."""
    import highspy

    out = {}
    for mode in ("kept", "set"):
        h = highspy.Highs()
        for name, value in (("output_flag", False), ("presolve", "off"), ("threads", 1),
                            ("primal_feasibility_tolerance", 1e-9),
                            ("dual_feasibility_tolerance", 1e-9), ("solver", "simplex"),
                            ("simplex_strategy", 1)):
            h.setOptionValue(name, value)
        h.passModel(lp)
        h.setBasis(basis)
        h.run()
        x = np.asarray(h.getSolution().col_value)
        frac = np.minimum(x, 1 - x)
        j = np.array([int(np.argmax(frac))], dtype=np.int32)
        h.changeColsBounds(1, j, np.zeros(1), np.zeros(1))
        if mode == "set":
            h.setBasis(h.getBasis())
        t = time.perf_counter()
        h.run()
        out[mode] = (time.perf_counter() - t, int(h.getInfo().simplex_iteration_count),
                     float(h.getInfo().objective_function_value))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sample_arguments(ap, "census:4:docs/results/trees/census_k4_sizes_5.npz", 30, 4)
    ap.add_argument("--lps", type=int, default=10, help="node LPs to capture and replay")
    ap.add_argument("--quick", action="store_true", help="3 LPs from 5 nodes")
    a = ap.parse_args(argv)
    if a.quick:
        a.sample, a.lps = 5, 3
    k, X, part, ckpt, options = resumed(a, "bench_basis_keep")
    lps: list = []
    undo = capture(lps, a.lps)
    branch_and_price(X, k, resume=part, node_limit=ckpt.meta["counts"]["nodes"] + a.lps,
                     **options)
    undo()
    total = {"kept": [0.0, 0], "set": [0.0, 0]}
    for i, (lp, basis) in enumerate(lps):
        r = replay(lp, basis)
        for mode in total:
            total[mode][0] += r[mode][0]
            total[mode][1] += r[mode][1]
        print(f"LP {i}: {lp.num_row_} rows, {lp.num_col_} columns; kept {r['kept'][0]:.4f} s "
              f"{r['kept'][1]} it, set again {r['set'][0]:.4f} s {r['set'][1]} it "
              f"(values {r['kept'][2]:.6f}, {r['set'][2]:.6f})")
    kept, again = total["kept"], total["set"]
    print(f"{len(lps)} LPs: kept {kept[0]:.3f} s {kept[1]} it, set again {again[0]:.3f} s "
          f"{again[1]} it; {(again[0] - kept[0]) / max(len(lps), 1):.4f} s saved per LP")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
