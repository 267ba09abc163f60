"""``mipagg gap DATA LABELS -k K``: the certified gap of a partition (:mod:`mipagg.certification`)."""

from __future__ import annotations

import json
import sys


def add_subcommand(sub) -> None:
    gap = sub.add_parser(
        "gap", help="certified gap of a partition: its SSE and IL recomputed, a certified "
        "lower bound by bp or cg with the partition as first incumbent, 100·(SSE − LB)/SSE")
    gap.add_argument("data", help="CSV file with a header row")
    gap.add_argument("labels", nargs="?",
                     help="labels file (header 'group'), e.g. from 'mipagg run --labels'; "
                     "omit it with --from METHOD")
    gap.add_argument("-k", type=int, required=True, help="minimum group size")
    gap.add_argument("--columns", help="comma-separated key columns (default: all)")
    gap.add_argument("--from", dest="from_method", metavar="METHOD",
                     help="certify the partition of this method (see 'mipagg methods', "
                     "plug-ins included) instead of a labels file")
    gap.add_argument("--seed", type=int, help="seed of --from METHOD")
    gap.add_argument("--time-limit", type=float, default=None,
                     help="seconds for the bound (default 60)")
    gap.add_argument("--method", choices=["bp", "cg"], default="bp",
                     help="bound method: bp (branch-and-price, default) or cg")
    gap.add_argument("--option", dest="options", action="append", default=[],
                     metavar="KEY=VALUE",
                     help="an option of the bound method, repeatable (e.g. branching=strong, "
                     "close_gap_partial=2000, checkpoint=tree.npz; the names of "
                     "BPSettings/CGSettings, values as JSON, Python literals or text)")
    gap.add_argument("--solver", default=None,
                     help="MIP solver of the bound method through Pyomo: highs (default), "
                     "cbc, glpk, scip, gurobi, cplex (where installed)")
    gap.add_argument("--labels", dest="better_labels", metavar="BETTER.csv",
                     help="write the best partition known after the search (the given one "
                     "when nothing better was found) to this file")
    gap.add_argument("--json", action="store_true", help="print one JSON object")
    gap.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    gap.set_defaults(func=_cmd_gap)


def _cmd_gap(args) -> int:
    from .certification import DEFAULT_TIME_LIMIT, certify
    from .errors import ParameterError
    from .exact.settings import BPSettings, CGSettings, parse_options
    from .instance import read_csv
    from .outputs import check_outputs
    from .verify import LabelsError, read_labels

    if (args.labels is None) == (args.from_method is None):
        raise ParameterError("give either a LABELS file or --from METHOD (not both)")
    columns = args.columns.split(",") if args.columns else None
    options = parse_options(args.options, BPSettings if args.method == "bp" else CGSettings,
                            reserved=("time_limit",))
    inputs = [args.data] + ([args.labels] if args.labels else [])
    # every output, a tree checkpoint included, is checked before the bound's work
    targets = check_outputs({"--labels": args.better_labels,
                             "--option checkpoint": options.get("checkpoint")},
                            inputs=inputs + [options.get("resume")])
    inst = read_csv(args.data, columns=columns)
    if args.solver is not None:
        options["solver"] = args.solver
    try:
        if args.labels is not None:
            labels = read_labels(args.labels)
            source = args.labels
        else:
            from .api import microaggregate

            run = microaggregate(inst, args.k, args.from_method, seed=args.seed,
                                 verbose=not args.quiet)
            labels, source = run.labels, f"method {args.from_method}"
        time_limit = DEFAULT_TIME_LIMIT if args.time_limit is None else args.time_limit
        res = certify(inst, labels, args.k, time_limit=time_limit, method=args.method,
                      verbose=not args.quiet, **options)
    except LabelsError as exc:   # not a partition of this data, or not k-feasible
        print(f"mipagg: gap: {exc}", file=sys.stderr)
        return 1
    if "--labels" in targets:
        from .partition import Partition

        best = res.better if res.better is not None else Partition(labels, inst.X)
        best.write_labels(targets["--labels"], inputs=inputs)
    out = {"data": args.data, "partition": source, **res.summary()}
    if args.json:
        print(json.dumps(out, default=float))
    else:
        for key, value in out.items():
            print(f"{key:>16}: {value}")
    return 0
