"""Experiments: declare a grid, run it resumably (serial, processes, Dask),
store results in SQLite, and report tables and figures in the seeds' layouts.

>>> from mipagg.experiments import Grid, MethodEntry, InstanceList, run_grid
"""

from .grid import (
                   CsvSet,
                   GeneratorSet,
                   Grid,
                   GridError,
                   InstanceList,
                   MethodEntry,
                   Run,
                   SubsetSet,
                   load_grid,
)
from .runner import GridOutcome, StopGrid, execute, run_grid
from .store import ResultStore

__all__ = ["CsvSet", "GeneratorSet", "Grid", "GridError", "InstanceList", "MethodEntry", "Run",
           "SubsetSet", "load_grid", "GridOutcome", "StopGrid", "execute", "run_grid",
           "ResultStore"]
