"""The ``mipagg`` command: run a method, list methods, demo, experiments."""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path

from . import __version__
from .errors import MipaggError, ParameterError
from .interrupts import INTERRUPTED, TERMINATED, CtrlC as _ctrl_c, graceful_stops, interrupt_status  # noqa: F401,E501  (INTERRUPTED: tests)

SHIPPED = Path(__file__).resolve().parent.parent / "instances"
GRACEFUL_METHODS = ("cg", "bp", "bp-split")     # stop at the first Ctrl-C with their best so far

def _on_off(text: str) -> bool:
    """An on/off option's value."""
    if text not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"expected on or off, got {text!r}")
    return text == "on"


def _seconds_or_auto(text: str) -> float | str:
    """A number of seconds, or "auto"."""
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds or auto, got {text!r}") from None


# Method options exposed on the command line: flag -> (python name, type, help).
METHOD_OPTIONS = {
    "--gamma": ("gamma", float, "V-MDAV gain factor (default 0.2)"),
    "--pricing": ("pricing", str, "cg pricing: auto|heuristic|enumeration|ilp"),
    "--time-limit": ("time_limit", float, "stop after this many seconds, keeping the best "
                     "solution and certified bound so far"),
    "--max-iterations": ("max_iterations", int, "cg iteration limit"),
    "--gap-tol": ("gap_tol", float, "cg and bp: stop once the certified gap is at most this "
                  "fraction of the best SSE (0.005: 0.5 %%; default 1e-6); the bound reported "
                  "is the one proved"),
    "--stabilization": ("stabilization", str, "dual stabilization of cg and bp: "
                        "auto|none|wentges|neame (auto: wentges for k >= 10)"),
    "--branching": ("branching", str, "bp branching rule: reliability[:N] (strong branching "
                    "on N candidate pairs, 8 without N, a pair probed twice scored by its "
                    "pseudocosts; default reliability:4)|strong|strong:N (every candidate "
                    "probed)|fractional (most fractional pair, ties by distance)|"
                    "fractional_index (ties by index)|strong_fractional[:N] (strong "
                    "branching on the most fractional pairs only)"),
    "--cut-families": ("cut_families", lambda s: [c.strip() for c in s.split(",") if c.strip()],
                       "bp: cut families separated at the root, comma-separated: subset_row "
                       "(the default), rank1 (rank-1 cuts on four and five rows)"),
    "--workers": ("workers", int, "bp: solve the tree's nodes on N local processes (the same "
                  "optimum)"),
    "--scheduler": ("scheduler", str, "bp: solve the tree's nodes on a Dask cluster: its "
                    "scheduler's address, or 'local'"),
    "--close-gap-partial": ("close_gap_partial", int, "bp and cg: when the root's gap holds more "
                            "clusters than gap closing takes, close it partially over at most "
                            "N clusters (default 2000; 0: off)"),
    "--size-chain": ("size_chain", _on_off, "cg and bp: search only clusters of size k "
                     "exactly where no cut or branching pair applies; the larger sizes are "
                     "bounded through it (the same bound, fewer columns per round; on|off, "
                     "default off)"),
    "--node-close-time": ("node_close_time", float, "bp: seconds each tree node's gap closing "
                          "may take (default: a tenth of the time limit, at most 120; 0: off)"),
    "--node-close-partial": ("node_close_partial", int, "bp: at a tree node whose gap holds too "
                             "many clusters, close it partially over at most N clusters (a "
                             "search for better partitions; default 0: off)"),
    "--node-close-cost": ("node_close_cost", _on_off, "bp: give each tree node's gap closing "
                          "at most the time branching its subtree would take (on|off; "
                          "default: on with --time-limit, off without)"),
    "--node-close-nested": ("node_close_nested", _on_off, "bp: with --node-close-cost, count "
                            "the closings the node's subtree would try in that time (on|off; "
                            "default off)"),
    "--node-close-restart": ("node_close_restart", _on_off, "bp: let HiGHS restart the MIPs "
                             "of node gap closings (on|off; default on)"),
    "--node-close-cuts": ("node_close_cuts", str, "bp: the cut rows of node gap closings' "
                          "MIPs, 'tight' (those with a nonzero dual at the node; the "
                          "default) or 'all'"),
    "--size-fixing": ("size_fixing", _on_off, "bp: exclude from a node's subtree the cluster "
                      "sizes whose least reduced cost at the node exceeds its gap (on|off; "
                      "default off)"),
    "--node-pricing": ("node_pricing", str, "bp: pricing at tree nodes, 'auto' (heuristic, "
                       "then exact when it finds nothing; the default) or 'exact'"),
    "--node-close-gap": ("node_close_gap", float, "bp: try the full gap closing at every tree "
                         "node whose gap is at most this fraction of the incumbent's SSE "
                         "(default 0: only where the adaptive threshold allows)"),
    "--reopt-lp-algorithm": ("reopt_lp_algorithm", str, "bp: the master's LP method after "
                             "the root's LP (cut rounds, dive, tree nodes): auto (dual "
                             "simplex)|primal|dual|ipm"),
    "--lp-stall-time": ("lp_stall_time", _seconds_or_auto, "bp: stop a tree node's master LP "
                        "after this many seconds and run it again from its starting basis "
                        "with HiGHS's perturbations off (default auto: ten times the longest "
                        "of the last 100 LPs, at least 20 s)"),
    "--node-lp-perturbation": ("node_lp_perturbation", _on_off, "bp: HiGHS's cost and bound "
                               "perturbations in the master's LPs at tree nodes (on|off; "
                               "default off)"),
    "--count-row": ("count_row", _on_off, "bp: the master row 'at most floor(n/k) groups' "
                    "when k does not divide n (on|off; default on)"),
    "--max-groups": ("max_groups", int, "bp: only the partitions into at most R groups (one "
                     "side of a proof split on the number of groups): status and bound hold "
                     "for that class only"),
    "--max-size": ("max_size", int, "bp: only the partitions into groups of at most S records "
                   "(the other side of that split): status and bound hold for that class only"),
    "--lp-stall-dump": ("lp_stall_dump", str, "bp: an existing directory; write each LP "
                        "stopped by --lp-stall-time there (MPS and basis files)"),
    "--checkpoint": ("checkpoint", str, "bp: write the tree's state to this file when it "
                     "stops (and every --checkpoint-every seconds), to resume it later"),
    "--checkpoint-every": ("checkpoint_every", float, "bp: seconds between checkpoints "
                           "(default 600)"),
    "--checkpoint-bases": ("checkpoint_bases", int, "bp: a checkpoint keeps the master "
                           "basis of this many open nodes, lowest bounds first, so that a "
                           "resumed run starts them warm (default 16384; 0: none)"),
    "--retire-cuts": ("retire_cuts", _on_off, "bp: a checkpoint leaves out the cuts found at "
                      "nodes that no saved basis holds tight (on|off; default on)"),
    "--resume": ("resume", str, "bp: go on with the tree of this checkpoint (same data and "
                 "k) instead of solving the root again"),
    "--tour": ("tour", str, "tour for tsp-mhm: nn|rnn|nearest|farthest|cheapest|arbitrary|lk|"
               "2opt|oropt|lkh|exact"),
    "--c": ("c", int, "compression factor for the compress method"),
    "--repeats": ("repeats", int, "independent randomized repeats (best is kept)"),
    "--portfolio-methods": ("methods", lambda s: [m.strip() for m in s.split(",") if m.strip()],
                            "portfolio: comma-separated methods to run, plug-ins included"),
}


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mipagg", description="Optimal and near-optimal microaggregation.")
    parser.add_argument("--version", action="version", version=f"mipagg {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="microaggregate a CSV file")
    run.add_argument("data", help="CSV file with a header row")
    run.add_argument("-k", type=int, required=True, help="minimum group size (k >= 2)")
    run.add_argument("--method", default="mdav", help="method name (see 'mipagg methods')")
    run.add_argument("--columns", help="comma-separated key columns (default: all)")
    run.add_argument("--no-header", action="store_true",
                     help="the file has no header row: columns are named x1, x2, ...")
    run.add_argument("--seed", type=int, help="seed for randomized methods")
    run.add_argument("--improve", choices=["local", "rcs", "exact"],
                     help="post-process the partition")
    run.add_argument("--improve-time", type=float,
                     help="time limit of --improve (seconds; '--improve exact': default 300)")
    run.add_argument("--improve-guide", choices=["distance", "lp"],
                     help="'--improve exact': sub-problems of nearest groups (distance, the "
                     "default) or of the groups bp's root master LP links (lp)")
    for flag, (dest, typ, help_) in METHOD_OPTIONS.items():
        run.add_argument(flag, dest=dest, type=typ, help=help_)
    run.add_argument("--option", dest="options", action="append", default=[],
                     metavar="KEY=VALUE",
                     help="cg and bp: any of their options, repeatable, those without a flag "
                     "above too (e.g. max_cut_rounds=30, plunge=1, node_cut_rounds=0; the "
                     "names of CGSettings/BPSettings, values as JSON, Python literals or text)")
    run.add_argument("--solver", help="MIP solver (integer master, ILP pricing, exact tour) through "
                     "Pyomo: highs (default), cbc, glpk, scip, gurobi, cplex (where installed)")
    run.add_argument("--initial", metavar="LABELS",
                     help="a k-feasible partition to start from (labels file, header "
                     "'group'): the first incumbent of cg, bp and portfolio; with --improve "
                     "the improvement starts from the better of it and the method's result")
    run.add_argument("--labels", help="write one group label per input row to this file")
    run.add_argument("--output", help="write the masked release (CSV) to this file")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    run.add_argument("--quiet", action="store_true",
                     help="no progress lines on stderr (warnings and errors still appear)")
    run.set_defaults(func=_cmd_run)

    ver = sub.add_parser("verify", help="recompute feasibility, SSE, SST and IL of a labels "
                         "file, independently of the code that made it")
    ver.add_argument("data", help="CSV file with a header row (the input of 'mipagg run')")
    ver.add_argument("labels", help="labels file as written by 'mipagg run --labels'")
    ver.add_argument("-k", type=int, required=True, help="minimum group size to check")
    ver.add_argument("--columns", help="comma-separated key columns (default: all)")
    ver.add_argument("--no-header", action="store_true",
                     help="the data file has no header row: columns are named x1, x2, ...")
    ver.add_argument("--json", action="store_true", help="print one JSON object")
    ver.set_defaults(func=_cmd_verify)

    methods = sub.add_parser("methods", help="list the available methods")
    methods.set_defaults(func=_cmd_methods)

    demo = sub.add_parser("demo", help="compare methods on shipped instances")
    demo.add_argument("--data", help="a CSV file instead of the shipped instances")
    demo.add_argument("--columns", help="key columns of --data (default: all)")
    demo.add_argument("-k", type=int, default=3)
    demo.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    demo.set_defaults(func=_cmd_demo)
    from .experiments.cli import add_subcommands  # experiment, report, plot
    add_subcommands(sub)
    from .cli_gap import add_subcommand as add_gap  # gap (issue 23)
    add_gap(sub)
    from .export import add_subcommand as add_export  # export --columns-pool (issue 23)
    add_export(sub)
    from .cli_tree import add_subcommand as add_tree  # tree: a bp checkpoint (issue 22)
    add_tree(sub)
    return parser


def _columns(text: str | None) -> list[str] | None:
    """``--columns a,b``: names trimmed; an empty or repeated name is refused."""
    if text is None:
        return None
    names = [c.strip() for c in text.split(",")]
    if not all(names):
        raise ParameterError(f"--columns {text!r} has an empty column name")
    repeated = sorted({c for c in names if names.count(c) > 1})
    if repeated:
        raise ParameterError(f"--columns names {', '.join(map(repr, repeated))} more than once")
    return names


def _check_method_flags(args) -> None:
    """Refuse, naming the flags (not the Python options), method options the
    chosen method does not take."""
    from .methods import get_method

    accepted = get_method(args.method).options()
    unused = [flag for flag, (dest, _, _) in METHOD_OPTIONS.items()
              if getattr(args, dest) is not None and dest not in accepted]
    if unused:
        takes = [f for f, (dest, _, _) in METHOD_OPTIONS.items() if dest in accepted]
        raise ParameterError(f"method {args.method!r} does not take {', '.join(unused)}; "
                             f"it takes {', '.join(takes) or 'none of the method flags'}")


def _settings_options(args) -> dict:
    """``--option KEY=VALUE`` of ``mipagg run``: any setting of cg or bp
    (:func:`mipagg.exact.settings.parse_options`), refused for another method
    and for an option a flag also sets."""
    if not args.options:
        return {}
    from .exact.settings import BPSettings, CGSettings, parse_options

    classes = {"bp": BPSettings, "bp-split": BPSettings, "cg": CGSettings}
    if args.method not in classes:
        raise ParameterError(f"--option sets options of cg and bp; method {args.method!r} "
                             "takes its options through the flags")
    options = parse_options(args.options, classes[args.method])
    twice = [f"{flag} and --option {dest}" for flag, (dest, _, _) in METHOD_OPTIONS.items()
             if dest in options and getattr(args, dest) is not None]
    if twice:
        raise ParameterError(f"{'; '.join(twice)} set the same option: give it once")
    return options


def _cmd_run(args) -> int:
    from .api import microaggregate
    from .instance import read_csv
    from .outputs import check_outputs, output_transaction

    if args.improve_time is not None and args.improve is None:
        raise ParameterError("--improve-time needs --improve (local, rcs or exact)")
    if args.improve_guide is not None and args.improve != "exact":
        raise ParameterError("--improve-guide needs --improve exact")
    if args.seed is not None and args.seed < 0:
        raise ParameterError(f"--seed must be a non-negative integer, got {args.seed}")
    for flag, value in (("--time-limit", args.time_limit), ("--improve-time", args.improve_time)):
        if value is not None and not value > 0:
            raise ParameterError(f"{flag} must be a positive number of seconds, got {value}")
    _check_method_flags(args)
    settings = _settings_options(args)
    inst = read_csv(args.data, columns=_columns(args.columns), header=not args.no_header)
    # Every output is checked before the method runs: a long run must not be
    # lost to a typo in a path, and no output may overwrite the input.
    targets = check_outputs({"--labels": args.labels, "--output": args.output,
                             "--checkpoint": args.checkpoint,
                             "--option checkpoint": settings.get("checkpoint")},
                            inputs=[args.data, args.initial, args.resume, settings.get("resume")])
    initial = None
    if args.initial is not None:   # --initial LABELS (issue 23)
        from .verify import read_labels

        initial = read_labels(args.initial)
    options = {dest: getattr(args, dest) for dest, _, _ in METHOD_OPTIONS.values()} | settings
    improve_options = {name: value for name, value in (("time_limit", args.improve_time),
                                                       ("guide", args.improve_guide))
                       if value is not None} or None
    # cg and bp: Ctrl-C once stops the run as at a time limit (status "interrupted")
    with graceful_stops(args.method in GRACEFUL_METHODS):
        result = microaggregate(inst, args.k, args.method, improve=args.improve, seed=args.seed,
                                improve_options=improve_options, verbose=not args.quiet,
                                initial=initial, solver=args.solver, **options)
    if _ctrl_c.presses:   # swallowed inside a compiled or ctypes callback: still an interrupt
        raise KeyboardInterrupt
    with output_transaction():  # both files from this run, or neither replaced
        if "--labels" in targets:
            result.partition.write_labels(targets["--labels"], inputs=[args.data])
        if "--output" in targets:
            inst.write_masked_csv(result.labels, targets["--output"])
    summary = {"data": args.data, **result.summary()}
    if args.json:
        print(json.dumps(summary, default=float))
    else:
        for key, value in summary.items():
            print(f"{key:>16}: {value}")
    return 0


def _cmd_verify(args) -> int:
    from .verify import LabelsError, verify_files

    if args.k < 2:
        raise ParameterError(f"k must be at least 2, got {args.k}")
    try:
        report = verify_files(args.data, args.labels, args.k, columns=_columns(args.columns),
                              header=not args.no_header)
    except LabelsError as exc:  # the labels do not describe a partition of this data
        if args.json:
            print(json.dumps({"data": args.data, "labels": args.labels, "k": args.k,
                              "feasible": False, "error": str(exc)}))
        print(f"mipagg: verify: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>16}: {value}")
    if not report["feasible"]:
        print(f"mipagg: verify: not {args.k}-feasible: {report['small_groups']} group(s) "
              f"smaller than k (smallest has {report['min_group']} record(s))", file=sys.stderr)
        return 1
    return 0


def _cmd_methods(args) -> int:
    from .methods import METHODS, method_names

    width = max(map(len, method_names()))   # plug-ins included (issue 23)
    for spec in METHODS.values():
        tag = " (plug-in)" if getattr(spec, "plugin", False) else ""
        print(f"{spec.name:<{width}}  {spec.summary}{tag}  [{spec.reference}]")
    return 0


DEMO_METHODS = ["mdav", "vmdav", "md", "cbfs", "npn-mhm", "md-mhm", "mdav-mhm", "cbfs-mhm",
                "tsp-mhm", "mf-tsp", "mdav-lk-mhm", "compress", "cg"]
DEMO_DATA = [("companies.csv", "surface,employees"), ("simu_n200_seed1.csv", None)]


def _demo_table(inst, k: int, verbose: bool = False) -> None:
    from .api import microaggregate
    from .methods import METHODS

    print(f"{inst.name}: n = {inst.n}, p = {inst.p}, k = {k} "
          f"(key columns {', '.join(inst.columns)})")
    rows = []
    for name in [m for m in DEMO_METHODS if m in METHODS]:
        try:
            rows.append(microaggregate(inst, k, name, seed=0, verbose=verbose).summary())
        except MipaggError as exc:  # e.g. a method that needs more records
            print(f"  {name}: skipped ({exc})")
    lb = next((r["lower_bound"] for r in rows if r.get("lower_bound") is not None), None)
    print(f"{'method':<12} {'SSE':>10} {'IL %':>8} {'groups':>6} {'seconds':>8}"
          + (f" {'gap %':>7}" if lb is not None else ""))
    for r in rows:
        gap = f" {100 * (r['sse'] - lb) / r['sse']:>7.2f}" if lb is not None else ""
        print(f"{r['method']:<12} {r['sse']:>10.4f} {r['il']:>8.4f} {r['groups']:>6} "
              f"{r['seconds']:>8.3f}{gap}")
    if lb is not None:
        cg = next(r for r in rows if r.get("lower_bound") is not None)
        print(f"cg lower bound {lb:.4f} (IL {100 * lb / cg['sst']:.4f}), status {cg['status']}; "
              "gap % = 100·(SSE − LB)/SSE (seed 001 formula (15))")
    print()


def _cmd_demo(args) -> int:
    from .instance import read_csv

    if args.data:
        _demo_table(read_csv(args.data, columns=_columns(args.columns)), args.k, not args.quiet)
        return 0
    for fname, cols in DEMO_DATA:
        _demo_table(read_csv(SHIPPED / fname, columns=cols.split(",") if cols else None), args.k,
                    not args.quiet)
    print("companies.csv is seed 004 Table 1; its optimal 3-partition has SSE/SST = 0.34 "
          "(Example 1), which cg proves above.\nThe first run after installation also "
          "compiles numba kernels (cached afterwards), which inflates its seconds.")
    return 0


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"mipagg: warning: {message}", file=sys.stderr)


BROKEN_PIPE = 141  # 128 + SIGPIPE, as a tool killed by the signal


def _silence_stdout() -> None:
    """Point file descriptor 1 at /dev/null so that the interpreter's final
    flush of stdout does not print a second "Broken pipe" message."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


def main(argv=None) -> int:
    """Run the command; returns the exit status: 0 success, 1 a failed check
    (``verify``), 2 bad input or an output that cannot be written (one-line
    message, no traceback), 130 interrupted (Ctrl-C) or 143 terminated
    (SIGTERM): no partial output file is left, the input is never touched.
    ``run --method cg|bp`` takes the first signal as a request to stop: the
    run ends as at a time limit (status "interrupted") and writes its outputs
    (exit 0); a second signal aborts as above."""
    try:
        parser = _build_parser()
        args = parser.parse_args(argv)
        with warnings.catch_warnings(), _ctrl_c():
            warnings.simplefilter("always")
            warnings.showwarning = _show_warning
            status = args.func(args)
        sys.stdout.flush()  # here, so that a closed pipe is reported below
        return status
    except BrokenPipeError:  # `mipagg ... | head`: the reader left; exit quietly
        _silence_stdout()
        return BROKEN_PIPE
    except MipaggError as exc:
        print(f"mipagg: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # unreadable input, vanished directory, ...: no traceback
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"mipagg: error:{where} {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        word = "terminated" if interrupt_status() == TERMINATED else "interrupted"
        print(f"mipagg: {word}; no partial output file was left and the input is untouched",
              file=sys.stderr)
        return interrupt_status()


if __name__ == "__main__":
    sys.exit(main())
