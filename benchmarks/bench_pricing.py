"""Exact pricing: complete enumeration (branch and bound) vs ILP model (14)
(seed 001 section 5.1 and Table 2), per n and cluster size η.

    .venv/bin/python benchmarks/bench_pricing.py [--quick] [--time-limit S]
    .venv/bin/python benchmarks/bench_pricing.py --reference   # exact references only
    .venv/bin/python benchmarks/bench_pricing.py --validation  # input check vs heuristic pricing

Records: random subsets (fixed seed) of Census and Tarragona, 13 columns,
re-standardized.  Duals: "late" duals of a small column-generation run on the
subset (master LP = ``mipagg.exact.master.MasterProblem`` seeded with the
MDAV groups; pricing with SolveHeuristicPricing at every size k..2k−1 until
it finds no column).  These are the duals at which the PricingProblem routine
of section 5.1 calls the exact routines, so they are the realistic input.
k = 3 gives η = 3..5 and k = 5 gives η = 5..9, covering Table 2's rows.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import metadata
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.exact.pricing import price, squared_distances  # noqa: E402
from mipagg.instance import read_csv  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
TABLE2 = {3: "CE", 4: "CE", 5: "CE", 6: "CE/EP (EP at n=200)", 7: "EP", 8: "EP", 9: "EP"}


def late_duals(X, k, D, max_iterations=500, criterion="pseudocode"):
    """Master duals once heuristic pricing finds no more columns."""
    from mipagg.exact.master import MasterProblem
    from mipagg.heuristics.mdav import mdav_groups

    mp = MasterProblem(X, D)
    mp.add_columns(mdav_groups(X, k))
    for it in range(max_iterations):
        sol = mp.solve()
        cols = []
        for eta in range(k, 2 * k):
            cols += price(D, sol.duals, eta, "heuristic", max_columns=50,
                          criterion=criterion).columns
        if not cols or mp.add_columns(cols) == 0:
            return sol.duals, it + 1, sol.value
    return sol.duals, max_iterations, sol.value


def timed(D, duals, eta, mode, time_limit):
    t0 = time.perf_counter()
    r = price(D, duals, eta, mode, time_limit=time_limit)
    return time.perf_counter() - t0, r


def subsets(datasets, sizes, seed):
    """(data name, n, standardized X, squared distances) for every random subset."""
    for name in datasets:
        full = read_csv(DATA / f"{name}.csv")
        for n in sizes:
            rows = np.sort(np.random.default_rng(seed).choice(full.n, n, replace=False))
            X = full.subset(rows).X
            yield name, n, X, squared_distances(X)


def fmt(sec, r):
    return f"{sec:.4f}" if r.status == "optimal" else f">{sec:.0f} (limit)"


def run_pricing(datasets, sizes, ks, time_limit, seed):
    print("| data | n | k | CG iters | η | enumeration s | ILP s | ILP vars | faster | "
          "min w̄ | Table 2 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ilp_dead: set = set()  # (data, k, eta) where the ILP hit the limit at a smaller n
    for name, n, X, D in subsets(datasets, sizes, seed):
        for k in ks:
            duals, iters, _ = late_duals(X, k, D)
            for eta in range(k, 2 * k):
                te, re = timed(D, duals, eta, "enumeration", time_limit)
                if (name, k, eta) in ilp_dead:
                    ti, ri, ilp_txt, nvar = None, None, "skipped (limit at smaller n)", "-"
                else:
                    ti, ri = timed(D, duals, eta, "ilp", time_limit)
                    ilp_txt = fmt(ti, ri)
                    nvar = ri.info.get("edges", "-")
                    if ri.status != "optimal":
                        ilp_dead.add((name, k, eta))
                if re.exact and ri is not None and ri.exact:
                    assert abs(re.min_reduced_cost - ri.min_reduced_cost) < 1e-6, (
                        re.min_reduced_cost, ri.min_reduced_cost)
                if ri is None or not ri.exact:
                    faster = "enumeration" if re.exact else "neither"
                elif not re.exact:
                    faster = "ilp"
                else:
                    faster = "enumeration" if te <= ti else "ilp"
                mrc = re.min_reduced_cost if re.exact else (ri.min_reduced_cost
                                                            if ri and ri.exact else None)
                mrc_txt = "?" if mrc is None else f"{mrc:.4f}"
                print(f"| {name} | {n} | {k} | {iters} | {eta} | {fmt(te, re)} | {ilp_txt} | "
                      f"{nvar} | {faster} | {mrc_txt} | {TABLE2[eta]} |", flush=True)


def run_criteria(datasets, sizes, ks, seed):
    """SolveHeuristicPricing with the pseudocode's greedy score (λ_w/(η−1)) vs
    the true reduced-cost increase (λ_w): where does heuristic-only column
    generation stop, and how negative is the exact minimum there?"""
    print("\n| data | n | k | criterion | CG iters | LP value at stop | "
          "sizes with negative exact min | least exact min w̄ |")
    print("|---|---|---|---|---|---|---|---|")
    for name, n, X, D in subsets(datasets, sizes, seed):
        for k in ks:
            for crit in ("pseudocode", "increase"):
                duals, iters, lp = late_duals(X, k, D, criterion=crit)
                mins = [price(D, duals, eta, "enumeration", time_limit=60).min_reduced_cost
                        for eta in range(k, 2 * k)]
                neg = [eta for eta, m in zip(range(k, 2 * k), mins)
                       if m is not None and m < -1e-9]
                least = min(m for m in mins if m is not None)
                print(f"| {name} | {n} | {k} | {crit} | {iters} | {lp:.4f} | "
                      f"{neg or '-'} | {least:.4f} |", flush=True)


def run_full_cg(datasets, sizes, ks, seed, budget):
    """Enumeration along a whole column-generation run (PricingProblem of
    section 5.1: heuristic first, exact enumeration at every size when it
    fails) up to LP convergence: slowest exact call per size, including the
    final duals where the minimum is ~0 and nothing can be pruned on sign."""
    from mipagg.exact.master import MasterProblem
    from mipagg.heuristics.mdav import mdav_groups

    print("\n| data | n | k | iterations | exact rounds | converged | LP bound | "
          "slowest enumeration call per η (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, n, X, D in subsets(datasets, sizes, seed):
        for k in ks:
            mp = MasterProblem(X, D)
            mp.add_columns(mdav_groups(X, k))
            slow = {eta: 0.0 for eta in range(k, 2 * k)}
            t0, it, exact_rounds, converged = time.perf_counter(), 0, 0, False
            while time.perf_counter() - t0 < budget:
                it += 1
                sol = mp.solve()
                cols = []
                for eta in range(k, 2 * k):
                    cols += price(D, sol.duals, eta, "heuristic", max_columns=50).columns
                if not cols:
                    exact_rounds += 1
                    for eta in range(k, 2 * k):
                        sec, r = timed(D, sol.duals, eta, "enumeration", budget)
                        slow[eta] = max(slow[eta], sec)
                        cols += r.columns
                if not cols or mp.add_columns(cols) == 0:
                    converged = True
                    break
            txt = ", ".join(f"{eta}: {sec:.3f}" for eta, sec in slow.items())
            print(f"| {name} | {n} | {k} | {it} | {exact_rounds} | {converged} | "
                  f"{sol.value:.4f} | {txt} |", flush=True)


def run_kernel_vs_reference(seed):
    """The compiled branch and bound against the itertools reference."""
    from mipagg.exact.pricing.enumeration import enumerate_reference

    _, _, X, D = next(subsets(["census"], [30], seed))
    duals, _, _ = late_duals(X, 3, D)
    print("\n| n | η | itertools reference s | branch and bound s | ratio |")
    print("|---|---|---|---|---|")
    for eta in (3, 4, 5):
        t0 = time.perf_counter()
        _, costs = enumerate_reference(D, duals, eta)
        tr = time.perf_counter() - t0
        tb, r = timed(D, duals, eta, "enumeration", None)
        assert abs(costs.min() - r.min_reduced_cost) < 1e-9
        print(f"| 30 | {eta} | {tr:.3f} | {tb:.4f} | {tr / tb:.0f}x |")


def run_validation(repeats=20):
    """Per-call cost of the pricing input check on the full files (column
    generation prices the same D at every size of every iteration): the
    symmetry test by ``np.allclose`` alone (before) against exact equality
    first (after), next to one compiled heuristic pricing call at η = 3."""
    from mipagg.exact.pricing._common import check_pricing_input

    def best_of(f):
        out = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            f()
            out.append(time.perf_counter() - t0)
        return min(out) * 1e3

    print("\n| data | n | allclose ms | exact-first ms | ratio | heuristic pricing ms |")
    print("|---|---|---|---|---|---|")
    for name in ("census", "tarragona"):
        D = squared_distances(read_csv(DATA / f"{name}.csv").X)
        duals = np.random.default_rng(0).random(D.shape[0]) * D.mean() / 2
        scale = max(float(D.max()), 1.0)
        before = best_of(lambda: np.allclose(D, D.T, rtol=0.0, atol=1e-12 * scale))
        after = best_of(lambda: np.array_equal(D, D.T))
        check = best_of(lambda: check_pricing_input(D, duals, 3))
        heur = best_of(lambda: price(D, duals, 3, "heuristic"))
        print(f"| {name} | {D.shape[0]} | {before:.2f} | {after:.2f} | {after / before:.2f} | "
              f"{heur:.2f} (check {check:.2f}) |", flush=True)


def run_reference(seed):
    from mipagg.exact.reference import optimal_partition_bruteforce, set_partitioning

    print("\n| n | k | clusters | DP s | SP LP s | SP MIP s | LP value | optimum |")
    print("|---|---|---|---|---|---|---|---|")
    from math import comb
    rng = np.random.default_rng(seed)
    full = read_csv(DATA / "census.csv")
    for n, k in [(12, 3), (14, 3), (16, 3), (16, 4), (20, 3), (25, 2), (25, 3), (18, 4),
                 (21, 4)]:
        X = full.subset(np.sort(rng.choice(full.n, n, replace=False))).X
        m = sum(comb(n, s) for s in range(k, 2 * k))
        t0 = time.perf_counter()
        dp = optimal_partition_bruteforce(X, k)[0] if n <= 16 else None
        tdp = time.perf_counter() - t0
        t0 = time.perf_counter()
        lp, _ = set_partitioning(X, k, integral=False)
        tlp = time.perf_counter() - t0
        t0 = time.perf_counter()
        mip, _ = set_partitioning(X, k, integral=True)
        tmip = time.perf_counter() - t0
        if dp is not None:
            assert abs(dp - mip) < 1e-7
        dptxt = f"{tdp:.2f}" if dp is not None else "-"
        print(f"| {n} | {k} | {m} | {dptxt} | {tlp:.2f} | {tmip:.2f} | {lp:.4f} | {mip:.4f} |",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 30, 50 on Census, k = 3 only")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per pricing call")
    ap.add_argument("--reference", action="store_true", help="only the exact references")
    ap.add_argument("--full-cg", action="store_true",
                    help="only enumeration along whole column-generation runs")
    ap.add_argument("--criteria", action="store_true",
                    help="only the heuristic-criterion comparison")
    ap.add_argument("--validation", action="store_true",
                    help="only the per-call cost of the input check on the full files")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    vers = ", ".join(f"{p} {metadata.version(p)}" for p in ("pyomo", "highspy"))
    print(f"Machine: {machine()}; {vers}\n")
    if args.reference:
        run_reference(args.seed)
        return
    if args.validation:
        price(np.zeros((3, 3)), np.ones(3), 2, "heuristic")  # compile/load the kernel
        run_validation()
        return
    if args.full_cg:
        run_full_cg(["census", "tarragona"], [30, 50, 100, 200], [3, 5], args.seed, 600)
        return
    if args.criteria:
        run_criteria(["census", "tarragona"], [30, 50, 100, 200], [3, 5], args.seed)
        return
    price(np.zeros((3, 3)), np.ones(3), 2, "enumeration")  # compile/load the kernel
    price(np.zeros((3, 3)), np.ones(3), 2, "ilp")  # import Pyomo
    if args.quick:
        run_pricing(["census"], [30, 50], [3], args.time_limit, args.seed)
    else:
        run_pricing(["census", "tarragona"], [30, 50, 100, 200], [3, 5], args.time_limit,
                    args.seed)
    run_kernel_vs_reference(args.seed)


if __name__ == "__main__":
    main()
