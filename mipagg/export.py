"""``mipagg export DATA -k K --columns-pool FILE.mps``: the integer master over
the column pool of column generation, for any other MIP solver.

Column generation (``cg``, seed 001 §5) runs within ``--time-limit``; the
set-partitioning model (9) of seed 001 with binary x over every column it
generated (plus the groups of its best partition) is written as MPS:

    min Σ_C w_C x_C   s.t.  Σ_{C ∋ i} x_C = 1 (every record i),  x_C ∈ {0, 1},

w_C = Σ_{i∈C} ||z_i − z̄_C||² on the standardized data.  Column j is
``x<j>`` and row i is ``r<i>`` (record i in file order); ``--columns-csv``
lists the records of every column.  Its optimum is the best partition over
the pool (price-and-branch), an upper bound on the optimal SSE; the file is
what ``mipagg`` itself hands to HiGHS.
"""

from __future__ import annotations

import csv
import json
import os

__all__ = ["column_pool", "write_pool_mps", "add_subcommand"]


def column_pool(X, k: int, *, time_limit: float | None = 60.0, verbose: bool = False):
    """(columns, weights, cg result): every column of a ``cg`` run on X plus
    the groups of its best partition, without duplicates."""
    from .exact.colgen import column_generation
    from .exact.master import cluster_weight, squared_distances

    res = column_generation(X, k, time_limit=time_limit, verbose=verbose)
    D = squared_distances(X)
    seen, columns = set(), []
    for c in list(res.columns) + list(res.partition.groups()):
        key = tuple(sorted(int(v) for v in c))
        if key not in seen:
            seen.add(key)
            columns.append(key)
    weights = [cluster_weight(D, c) for c in columns]
    return columns, weights, res


def write_pool_mps(path, n: int, columns, weights) -> None:
    """Write the integer master over ``columns`` as MPS (atomically, via
    HiGHS's writer)."""
    from .exact.master import write_set_partitioning_mps

    path = str(path)
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       f".{os.path.basename(path)}.{os.getpid()}.tmp.mps")
    try:
        write_set_partitioning_mps(tmp, n, columns, weights)
        if not os.path.isfile(tmp):
            from .errors import SolverError

            raise SolverError(f"HiGHS could not write the MPS file {path}")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def add_subcommand(sub) -> None:
    exp = sub.add_parser("export", help="write the integer master over cg's column pool "
                         "as MPS, for any MIP solver")
    exp.add_argument("data", help="CSV file with a header row")
    exp.add_argument("-k", type=int, required=True, help="minimum group size")
    exp.add_argument("--columns", help="comma-separated key columns (default: all)")
    exp.add_argument("--columns-pool", required=True, metavar="FILE.mps",
                     help="write the integer set-partitioning master (seed 001 model (9)) "
                     "over the column pool to this MPS file")
    exp.add_argument("--columns-csv", metavar="FILE.csv",
                     help="also list the records of every column (column, size, weight, "
                     "records)")
    exp.add_argument("--time-limit", type=float, default=60.0,
                     help="seconds of column generation (default 60)")
    exp.add_argument("--json", action="store_true", help="print one JSON object")
    exp.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    exp.set_defaults(func=_cmd_export)


def _cmd_export(args) -> int:
    from .errors import ParameterError
    from .instance import read_csv
    from .outputs import atomic_write, check_outputs

    if not args.columns_pool.lower().endswith(".mps"):
        raise ParameterError(f"--columns-pool {args.columns_pool}: the file name must end "
                             "in .mps")
    if args.time_limit is not None and not args.time_limit > 0:
        raise ParameterError(f"--time-limit must be positive, got {args.time_limit}")
    targets = check_outputs({"--columns-pool": args.columns_pool,
                             "--columns-csv": args.columns_csv}, inputs=[args.data])
    columns = args.columns.split(",") if args.columns else None
    inst = read_csv(args.data, columns=columns)
    from .univariate import check_k

    k = check_k(args.k, inst.n)
    pool, weights, res = column_pool(inst.X, k, time_limit=args.time_limit,
                                     verbose=not args.quiet)
    write_pool_mps(targets["--columns-pool"], inst.n, pool, weights)
    if "--columns-csv" in targets:
        with atomic_write(targets["--columns-csv"], newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["column", "size", "weight", "records"])
            for j, (c, wt) in enumerate(zip(pool, weights)):
                w.writerow([f"x{j}", len(c), repr(float(wt)), " ".join(map(str, c))])
    out = {"data": args.data, "k": k, "n": inst.n, "mps": str(targets["--columns-pool"]),
           "rows": inst.n, "columns": len(pool), "best_sse": res.sse,
           "best_il": res.partition.il(), "lower_bound": res.lower_bound,
           "cg_status": res.status}
    if args.json:
        print(json.dumps(out, default=float))
    else:
        for key, value in out.items():
            print(f"{key:>12}: {value}")
    return 0
