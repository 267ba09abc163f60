"""Shared command line of the paper-style scripts in ``scripts/``.

A script declares its grid(s) and its reports and calls :func:`script_main`,
which parses ``DATA_DIR [--quick] [--jobs N | --scheduler ADDR] [--db FILE]
[--out DIR]``, runs the grids resumably and writes every table as Markdown,
LaTeX and CSV (``OUT/NAME[-quick].{md,tex,csv}``) plus the figures.
"""

from __future__ import annotations

import argparse
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from .. import __version__
from .grid import CsvSet
from .report import Table
from .runner import run_grid
from .store import ResultStore

__all__ = ["script_main", "default_data_dir", "il_by_k_report", "csv_sets", "grid_name"]

REPO = Path(__file__).resolve().parent.parent.parent


def _checkout() -> Path | None:
    """The source checkout the running script belongs to (the directory above
    ``scripts/`` holding ``pyproject.toml``), else the one this package was
    imported from (editable install); None for an installed copy, whose
    directory is ``site-packages`` and never receives results."""
    script = Path(sys.argv[0]).resolve().parent.parent if sys.argv and sys.argv[0] else None
    for root in (script, REPO):
        if root is not None and (root / "pyproject.toml").is_file() and (root / "docs").is_dir():
            return root
    return None


def default_data_dir() -> Path | None:
    """``../shared/data`` relative to the checkout, when it exists."""
    root = _checkout()
    d = root.parent / "shared" / "data" if root is not None else None
    return d if d is not None and d.is_dir() else None


def default_out_dir() -> Path:
    """``docs/results`` of the checkout, else ``./results`` in the working directory."""
    root = _checkout()
    return root / "docs" / "results" if root is not None else Path.cwd() / "results"


def csv_sets(data: Path, names) -> list[CsvSet]:
    """One :class:`CsvSet` per ``DATA/NAME.csv``."""
    return [CsvSet(str(Path(data) / f"{n}.csv")) for n in names]


def grid_name(name: str, quick: bool) -> str:
    """``name``, or ``name-quick`` for the ``--quick`` slice."""
    return name + ("-quick" if quick else "")


def _parser(name: str, description: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=name, description=description)
    default = default_data_dir()
    ap.add_argument("data_dir", nargs="?", default=default, type=Path,
                    help=f"directory of census.csv / tarragona.csv (default: {default})")
    ap.add_argument("--quick", action="store_true", help="a small slice (about a minute)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--jobs", type=int, help="local worker processes (default: all cores)")
    where.add_argument("--scheduler", help="Dask scheduler address, or 'local'")
    ap.add_argument("--db", type=Path, help="SQLite results file (default: OUT/NAME.sqlite)")
    ap.add_argument("--out", type=Path, default=default_out_dir(),
                    help="directory of the tables and figures (default: docs/results of the "
                    "source checkout, else ./results)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    return ap


def script_main(name: str, description: str, build: Callable, report: Callable,
                argv=None, needs_data: bool = True, options: dict | None = None) -> int:
    """Run a paper-style script.

    ``build(data_dir, quick, **options) -> list[Grid]``; ``report(df, out_dir,
    stem) -> list[Table]`` (it may also draw figures into ``out_dir``).
    ``options``: the script's own flags, ``{"--flag": argparse keywords}``;
    their values reach ``build`` as keyword arguments.
    """
    ap = _parser(name, description)
    dests = [ap.add_argument(flag, **spec).dest for flag, spec in (options or {}).items()]
    args = ap.parse_args(argv)
    own = {dest: getattr(args, dest) for dest in dests}
    if needs_data and (args.data_dir is None or not Path(args.data_dir).is_dir()):
        print(f"{name}: data directory not found ({args.data_dir}); give it as the first "
              "argument", file=sys.stderr)
        return 2
    stem = grid_name(name, args.quick)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    db = args.db or out / f"{stem}.sqlite"
    started = datetime.now(timezone.utc)
    with ResultStore(db) as store:
        for grid in build(Path(args.data_dir) if args.data_dir else None, args.quick, **own):
            outcome = run_grid(grid, store, jobs=args.jobs, scheduler=args.scheduler,
                               progress=not args.quiet)
            print(f"{grid.name}: {outcome.line()}", file=sys.stderr)
            if outcome.interrupted:
                print("interrupted: run the same command again to resume", file=sys.stderr)
                return 130
        df = store.to_dataframe()
    tables = report(df, out, stem)
    _write_tables(tables, out, stem, name, args, started, db)
    print(f"{name}: wrote {out / stem}.md/.tex/.csv ({len(tables)} tables), results in {db}",
          file=sys.stderr)
    return 0


def il_by_k_report(df, out: Path, stem: str) -> list[Table]:
    """The IL-by-k table of every data set, and an IL-versus-time figure per data set."""
    from .plots import tradeoff_plot
    from .report import il_by_k_table

    for ds in dict.fromkeys(df["dataset"]):
        tradeoff_plot(df, out / f"{stem}-tradeoff-{ds}.png", dataset=ds)
    return [il_by_k_table(df)]


def _solver_versions() -> str:
    """The versions of the packages that decide the numbers (HiGHS, numba, numpy)."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("highspy", "numba", "numpy"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            pass
    return ", ".join(found)


def _write_tables(tables: list[Table], out: Path, stem: str, name: str, args, started,
                  db) -> None:
    argv = " ".join(sys.argv[1:]) if sys.argv and sys.argv[0].endswith(".py") else ""
    header = (f"<!-- made by scripts/{name}.py {argv} on {started:%Y-%m-%d %H:%M} UTC; "
              f"mipagg {__version__}, Python {platform.python_version()}, {_solver_versions()}, "
              f"{platform.machine()}; results in {Path(db).name} -->\n\n")
    from ..outputs import atomic_write

    texts = {"md": header + "\n".join(t.to_markdown() for t in tables),
             "tex": "\n".join(t.to_latex() for t in tables),
             "csv": "\n".join(f"# {t.title}\n{t.to_csv()}" for t in tables)}
    for ext, text in texts.items():      # atomically: a killed run never leaves half a table
        with atomic_write(out / f"{stem}.{ext}") as fh:
            fh.write(text)
