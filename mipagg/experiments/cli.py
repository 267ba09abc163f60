"""``mipagg experiment``, ``mipagg report`` and ``mipagg plot``.

:func:`add_subcommands` adds the three parsers to the ``mipagg`` command.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["add_subcommands"]


def add_subcommands(sub) -> None:
    """Add the experiment, report and plot subcommands to ``sub`` (argparse subparsers)."""
    from .plots import PLOTS
    from .report import TABLES

    exp = sub.add_parser("experiment", help="run (or resume) an experiment grid (TOML file)")
    exp.add_argument("grid", help="grid file (TOML); see docs/experiments.md")
    where = exp.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, help="local worker processes (default: all cores; "
                       "1 = run in this process)")
    where.add_argument("--scheduler", help="Dask scheduler address, or 'local' to start a "
                       "LocalCluster with --jobs workers")
    exp.add_argument("--db", help="SQLite results file (default: GRID name + .sqlite)")
    exp.add_argument("--data", help="directory of the grid's CSV files (overrides data_dir)")
    exp.add_argument("--retry", action="append", choices=["failed", "timeout"], default=[],
                     help="run stored failed/timeout runs again (repeatable)")
    exp.add_argument("--quiet", action="store_true", help="no progress bar")
    exp.set_defaults(func=_cmd_experiment)

    rep = sub.add_parser("report", help="print a table from a results file")
    rep.add_argument("db", help="SQLite results file")
    rep.add_argument("--table", required=True, choices=[*TABLES, "runs"],
                     help="gaps (to the grid's certified bounds when it has some, else seed 001 T3-4), il-stats ((HM)2-Micro), il-by-k, optimality "
                     "(seed 004 T6-7), correlation (path length vs SSE), runs (every run, CSV)")
    rep.add_argument("--format", default="md", choices=["md", "latex", "csv"])
    rep.add_argument("--dataset", help="data set (il-stats: default the first; il-by-k: "
                     "default all)")
    rep.add_argument("--method", help="column generation method name (gaps; default cg)")
    rep.add_argument("--reference", help="label of the optimal reference (optimality; "
                     "default opt)")
    rep.add_argument("--by", choices=["k", "p", "n"], help="rows of the optimality tables")
    rep.add_argument("-k", type=int, help="only this k (optimality)")
    rep.add_argument("--output", help="write to this file instead of standard output")
    rep.set_defaults(func=_cmd_report)

    plot = sub.add_parser("plot", help="draw a figure from a results file")
    plot.add_argument("db", help="SQLite results file")
    plot.add_argument("--kind", required=True, choices=list(PLOTS),
                      help="box (IL per method and k), tradeoff (IL vs time), path-sse")
    plot.add_argument("--out", required=True, help="output file (.png, .pdf, .svg)")
    plot.add_argument("--dataset", help="data set (default: the first one)")
    plot.set_defaults(func=_cmd_plot)


def _open_store(path: str):
    from ..errors import DataError
    from .store import ResultStore

    if not Path(path).is_file():
        raise DataError(f"no such results file: {path}")
    return ResultStore(path)


def _grid_inputs(grid_file: str, grid) -> list:
    """The grid file and every data file the grid reads."""
    inputs = [grid_file]
    for spec in getattr(grid, "instances", None) or []:
        path = getattr(spec, "path", None)
        if path is not None:
            path = Path(path)
            if not path.is_absolute() and grid.data_dir is not None:
                path = Path(grid.data_dir) / path
            inputs.append(str(path))
    return inputs


def _check_db(db: str, inputs: list) -> None:
    """The results file may not be an input; a new one must be creatable
    (an existing one is resumed, SQLite writes it transactionally)."""
    from ..outputs import OutputError, check_output_path, same_file

    for inp in inputs:
        if same_file(Path(db), Path(inp)):
            raise OutputError(f"--db {db}: output path is the input file {inp}; "
                              "choose another path")
    if not Path(db).is_file():
        check_output_path(db, inputs, what="--db")


def _cmd_experiment(args) -> int:
    from .grid import load_grid
    from .runner import run_grid

    grid = load_grid(args.grid, data_dir=args.data)
    db = args.db or str(Path(args.grid).with_suffix(".sqlite").name)
    _check_db(db, _grid_inputs(args.grid, grid))
    out = run_grid(grid, db, jobs=args.jobs, scheduler=args.scheduler,
                   progress=not args.quiet, retry=tuple(args.retry))
    print(f"{grid.name}: {out.line()} -> {db}")
    if out.interrupted:
        from ..interrupts import interrupt_status
        print("interrupted: run the same command again to resume", file=sys.stderr)
        return interrupt_status()
    return 0


def _emit(text: str, output: str | None) -> None:
    """Print ``text``, or write it atomically to ``output`` (checked before)."""
    from ..outputs import atomic_write

    if output:
        with atomic_write(output, newline="") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


def _cmd_report(args) -> int:
    from ..outputs import check_output_path
    from .report import render

    if args.output:
        args.output = check_output_path(args.output, [args.db], what="--output")
    with _open_store(args.db) as store:
        df = store.to_dataframe()
        from .bounds import stored_bounds
        bounds = stored_bounds(store)
    if args.table == "gaps" and bounds and args.method is None:   # grid bounds (issue 23)
        from .bounds import bound_gap_tables
        tables = bound_gap_tables(df, bounds)
        _emit("\n".join(t.render(args.format) for t in tables), args.output)
        return 0
    if args.table == "runs":
        _emit(df.to_csv(index=False), args.output)
        return 0
    options = {"gaps": {"method": args.method},
               "il-stats": {"dataset": args.dataset},
               "il-by-k": {"datasets": [args.dataset] if args.dataset else None},
               "optimality": {"reference": args.reference, "by": args.by, "k": args.k},
               }.get(args.table, {})
    _emit(render(df, args.table, args.format, **options), args.output)
    return 0


def _cmd_plot(args) -> int:
    from ..outputs import check_output_path
    from .plots import PLOTS

    check_output_path(args.out, [args.db], what="--out")
    with _open_store(args.db) as store:
        df = store.to_dataframe()
    path = PLOTS[args.kind](df, args.out, dataset=args.dataset)
    print(f"wrote {path}")
    return 0
