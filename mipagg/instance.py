"""Instances: a raw numeric matrix, its standardized form, names and provenance.

Standardization follows the convention of the seeds (e.g. seed 001 section 6,
seed 004 section 5): every key column gets mean 0 and standard deviation 1 over
the records being microaggregated.  The sample standard deviation (``ddof=1``)
is the default; ``ddof=0`` reproduces the population convention of seed 004
Example 1 (SST = n·p).  IL = 100·SSE/SST does not depend on the choice.

Constant key columns carry no information for the grouping and would divide by
zero; they are dropped from the standardized matrix with a
:class:`~mipagg.errors.ConstantColumnWarning` and kept in the raw matrix, so the
masked release still contains them (unchanged, since a group mean of a constant
is that constant).  A file whose key columns are all constant is refused.
"""

from __future__ import annotations

import csv
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import ConstantColumnWarning, DataError, ParameterError

__all__ = ["Instance", "from_array", "from_dataframe", "read_csv", "standardize"]


def standardize(raw: np.ndarray, ddof: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(Z, kept)``: z-scores of the non-constant columns and their mask."""
    n = raw.shape[0]
    if n <= ddof:
        raise DataError(f"need more than {ddof} record(s) to standardize, got {n}")
    mean = raw.mean(axis=0)
    std = raw.std(axis=0, ddof=ddof)
    kept = std > 1e-12 * np.maximum(1.0, np.abs(mean))
    return (raw[:, kept] - mean[kept]) / std[kept], kept


@dataclass(frozen=True, eq=False)
class Instance:
    """A data set to microaggregate.

    Attributes
    ----------
    raw : (n, p) float array of the key columns as given.
    X : (n, q) standardized key columns (q ≤ p: constant columns dropped).
    columns : names of the p key columns.
    name : a short stable name (used in experiment tables).
    provenance : where the data came from (file, subset criterion, seed, ...).
    ddof : degrees of freedom of the standard deviation used for ``X``.
    table : optional original table ``(header, rows)`` of strings, so a masked
        release can carry non-key columns along untouched.
    """

    raw: np.ndarray
    columns: tuple[str, ...]
    name: str = "instance"
    provenance: dict = field(default_factory=dict)
    ddof: int = 1
    table: tuple[list[str], list[list[str]]] | None = None
    X: np.ndarray = field(init=False, repr=False)
    dropped_columns: tuple[str, ...] = field(init=False)

    def __post_init__(self):
        raw = np.asarray(self.raw, dtype=float)
        if raw.ndim == 1:
            raw = raw[:, None]
        if raw.ndim != 2 or raw.shape[0] == 0 or raw.shape[1] == 0:
            raise DataError(f"instance {self.name!r} has no records or no key columns")
        if len(self.columns) != raw.shape[1]:
            raise DataError(f"{len(self.columns)} column names for {raw.shape[1]} columns")
        bad = ~np.isfinite(raw)
        if bad.any():
            i, j = map(int, np.argwhere(bad)[0])
            raise DataError(
                f"instance {self.name!r}: column {self.columns[j]!r} has a missing or "
                f"non-finite value at record {i + 1} ({int(bad.sum())} such values in all)"
            )
        X, kept = standardize(raw, self.ddof)
        dropped = tuple(c for c, k in zip(self.columns, kept) if not k)
        if len(dropped) == len(self.columns):
            raise DataError(f"instance {self.name!r}: every key column is constant")
        if dropped:
            warnings.warn(
                f"constant key column(s) {', '.join(dropped)} dropped from the distance "
                "computation (they stay unchanged in the masked release)",
                ConstantColumnWarning,
                stacklevel=3,
            )
        raw.setflags(write=False)
        X.setflags(write=False)
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "dropped_columns", dropped)

    @property
    def n(self) -> int:
        return self.raw.shape[0]

    @property
    def p(self) -> int:
        """Number of key columns used for the grouping (constant ones excluded)."""
        return self.X.shape[1]

    def subset(self, rows: Sequence[int], name: str | None = None, **provenance) -> "Instance":
        """A new instance made of ``rows``, re-standardized over those records."""
        rows = np.asarray(rows, dtype=int)
        table = None
        if self.table is not None:
            header, body = self.table
            table = (header, [body[i] for i in rows])
        prov = {**self.provenance, "parent": self.name, **provenance}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConstantColumnWarning)
            return Instance(self.raw[rows], self.columns, name or f"{self.name}-subset",
                            prov, self.ddof, table)

    def masked(self, labels: np.ndarray) -> np.ndarray:
        """Raw key columns with every value replaced by its group mean."""
        labels = np.asarray(labels)
        if labels.shape != (self.n,):
            raise DataError(f"{labels.shape[0]} labels for {self.n} records")
        _, inv = np.unique(labels, return_inverse=True)
        counts = np.bincount(inv).astype(float)
        sums = np.zeros((counts.size, self.raw.shape[1]))
        np.add.at(sums, inv, self.raw)
        return (sums / counts[:, None])[inv]

    def write_masked_csv(self, labels: np.ndarray, path: str | Path) -> None:
        """Write the masked release: key values replaced by group means, rows in
        input order, non-key columns untouched."""
        masked = self.masked(labels)
        if self.table is not None:
            header, body = self.table
            col_index = [header.index(c) for c in self.columns]
        else:
            header, body = list(self.columns), [[""] * self.raw.shape[1] for _ in range(self.n)]
            col_index = list(range(self.raw.shape[1]))
        with open(path, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            for i, row in enumerate(body):
                out = list(row)
                for j, c in enumerate(col_index):
                    out[c] = repr(float(masked[i, j]))
                writer.writerow(out)


def from_array(a, columns: Sequence[str] | None = None, name: str = "array", ddof: int = 1,
               **provenance) -> Instance:
    """Build an :class:`Instance` from a 2-D array-like of numbers."""
    try:
        raw = np.asarray(a, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"data is not numeric: {exc}") from None
    if raw.ndim == 1:
        raw = raw[:, None]
    if columns is None:
        columns = [f"x{j + 1}" for j in range(raw.shape[1] if raw.ndim == 2 else 0)]
    return Instance(raw, tuple(columns), name, {"source": "array", **provenance}, ddof)


def from_dataframe(df, columns: Sequence[str] | None = None, name: str = "dataframe",
                   ddof: int = 1) -> Instance:
    """Build an :class:`Instance` from a pandas DataFrame (key ``columns``, default all)."""
    columns = list(df.columns if columns is None else columns)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ParameterError(f"unknown column(s) {missing}; available: {list(df.columns)}")
    from pandas.api.types import is_numeric_dtype  # np.issubdtype fails on pandas string dtypes

    bad = [c for c in columns if not is_numeric_dtype(df[c].dtype)]
    if bad:
        raise DataError(f"non-numeric key column(s) {bad}")
    return Instance(df[columns].to_numpy(dtype=float), tuple(map(str, columns)), name,
                    {"source": "dataframe"}, ddof)


def _parse_float(cell: str) -> float:
    cell = cell.strip()
    if cell == "":
        return math.nan
    return float(cell)


def read_csv(path: str | Path, columns: Sequence[str] | None = None, name: str | None = None,
             ddof: int = 1, delimiter: str | None = None) -> Instance:
    """Load a CSV file with a header row.

    ``columns`` names the key columns (default: every column); the others are
    carried along untouched into a masked release.  Raises
    :class:`~mipagg.errors.DataError` for a missing or empty file, a ragged row,
    or a non-numeric / missing value in a key column, naming the column and row.
    """
    path = Path(path)
    if not path.is_file():
        raise DataError(f"no such file: {path}")
    text = path.read_text(encoding="utf-8-sig")
    if not text.strip():
        raise DataError(f"{path} is empty")
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text.splitlines()[0], delimiters=",;\t").delimiter
        except csv.Error:
            delimiter = ","
    rows = [r for r in csv.reader(text.splitlines(), delimiter=delimiter) if r]
    header, body = [h.strip() for h in rows[0]], rows[1:]
    if not body:
        raise DataError(f"{path} has a header but no records")
    if len(set(header)) != len(header):
        raise DataError(f"{path} has repeated column names")
    for i, r in enumerate(body):
        if len(r) != len(header):
            raise DataError(f"{path}: record {i + 1} has {len(r)} fields, header has {len(header)}")
    keys = list(header if columns is None else columns)
    unknown = [c for c in keys if c not in header]
    if unknown:
        raise ParameterError(f"unknown column(s) {unknown}; the file has {header}")
    idx = [header.index(c) for c in keys]
    raw = np.empty((len(body), len(keys)))
    for i, r in enumerate(body):
        for j, c in enumerate(idx):
            try:
                raw[i, j] = _parse_float(r[c])
            except ValueError:
                raise DataError(
                    f"{path}: key column {keys[j]!r} is not numeric (record {i + 1}: "
                    f"{r[c]!r}); choose numeric key columns with --columns"
                ) from None
    return Instance(raw, tuple(keys), name or path.stem,
                    {"source": str(path), "columns": keys}, ddof, (header, body))
