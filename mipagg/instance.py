"""Instances: a raw numeric matrix, its standardized form, names and provenance.

Standardization follows the convention of the seeds (e.g. seed 001 section 6,
seed 004 section 5): every key column gets mean 0 and standard deviation 1 over
the records being microaggregated.  The sample standard deviation (``ddof=1``)
is the default; ``ddof=0`` reproduces the population convention of seed 004
Example 1 (SST = n·p).  IL = 100·SSE/SST does not depend on the choice.

Constant key columns (all values equal) carry no information for the grouping
and would divide by zero; they are dropped from the standardized matrix with a
:class:`~mipagg.errors.ConstantColumnWarning` and kept in the raw matrix, so the
masked release still contains them (unchanged, since a group mean of a constant
is that constant).  A file whose key columns are all constant is refused.
"""

from __future__ import annotations

import csv
import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import ConstantColumnWarning, DataError, ParameterError

__all__ = ["Instance", "PrecisionWarning", "from_array", "from_dataframe", "read_csv",
           "standardize"]


class PrecisionWarning(UserWarning):
    """A key column varies only in the last bits of its values, so its
    z-scores are dominated by the rounding of the data (e.g. a column meant
    to be constant that picked up floating-point noise)."""


# A column whose spread (max − min) is below this many units in the last
# place of its largest magnitude is resolved by float64 into at most about
# that many levels; it is kept (its statistics are computed exactly enough)
# but flagged with a PrecisionWarning.
COARSE_ULPS = 2.0 ** 10


def _column_scale(raw: np.ndarray) -> np.ndarray:
    """Per-column exponents e with max|x| < 2**e (0 for an all-zero column):
    dividing by 2**e is exact (short of subnormal results) and brings every
    value into (−1, 1), so squares can neither overflow nor underflow."""
    amax = np.abs(raw).max(axis=0)
    return np.frexp(amax)[1]


def standardize(raw: np.ndarray, ddof: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(Z, kept)``: z-scores of the non-constant columns and their mask.

    Robust for any finite values (1e-300 to 1e300 and columns like 1e9 plus
    noise of 1e-3): each column is first scaled by a power of two so that its
    values lie in (−1, 1) (an exact operation), then the mean is computed in
    two passes (the corrected two-pass algorithm of Chan, Golub & LeVeque
    1983, "Algorithms for computing the sample variance"), the values are
    centred against that mean, and the variance is the sum of squares of the
    centred values.  Z is therefore accurate to a few units in the last place
    whatever the magnitude or offset of the column, and scaling a column by a
    power of two leaves Z bit-for-bit unchanged.

    A column is constant — and dropped — only when all its values are equal.

    >>> Z, kept = standardize(np.array([[1e300, 5.0], [-1e300, 5.0], [3e300, 5.0]]))
    >>> Z.ravel().round(6).tolist(), kept.tolist()
    ([0.0, -1.0, 1.0], [True, False])
    """
    raw = np.asarray(raw, dtype=float)
    n = raw.shape[0]
    if n <= ddof:
        raise DataError(f"need more than {ddof} record(s) to standardize, got {n}")
    kept = raw.max(axis=0) != raw.min(axis=0)
    Y = np.ldexp(raw[:, kept], -_column_scale(raw[:, kept]))
    mean = Y.mean(axis=0)
    D = Y - mean
    D -= D.mean(axis=0)  # second pass: the rounding error of the first mean
    var = np.einsum("ij,ij->j", D, D) / (n - ddof)
    return D / np.sqrt(var), kept


def coarse_columns(raw: np.ndarray) -> np.ndarray:
    """Mask of the non-constant columns whose spread is below
    :data:`COARSE_ULPS` units in the last place of their largest magnitude."""
    raw = np.asarray(raw, dtype=float)
    Y = np.ldexp(raw, -_column_scale(raw))  # in (−1, 1): the spread cannot overflow
    spread = Y.max(axis=0) - Y.min(axis=0)
    ulp = np.spacing(np.abs(Y).max(axis=0))
    return (spread > 0) & (spread < COARSE_ULPS * ulp)


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
        coarse = [c for c, m in zip(self.columns, coarse_columns(raw)) if m]
        if coarse:
            warnings.warn(
                f"key column(s) {', '.join(coarse)} vary only in the last bits of their "
                "values (spread below 1024 units in the last place): their z-scores are "
                "dominated by rounding; check that they are not meant to be constant, or "
                "subtract an offset before saving the data",
                PrecisionWarning,
                stacklevel=3,
            )
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

    def _group_means(self, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(means, inv)``: one row of raw key means per group and each
        record's group index, so that the masked release is ``means[inv]``."""
        labels = np.asarray(labels)
        if labels.shape != (self.n,):
            raise DataError(f"{labels.shape[0]} labels for {self.n} records")
        _, inv = np.unique(labels, return_inverse=True)
        inv = inv.ravel()
        counts = np.bincount(inv).astype(float)
        scale = _column_scale(self.raw)  # sums of values near 1e308 must not overflow
        sums = np.zeros((counts.size, self.raw.shape[1]))
        np.add.at(sums, inv, np.ldexp(self.raw, -scale))
        return np.ldexp(sums / counts[:, None], scale), inv

    def masked(self, labels: np.ndarray) -> np.ndarray:
        """Raw key columns with every value replaced by its group mean."""
        means, inv = self._group_means(labels)
        return means[inv]

    def write_masked_csv(self, labels: np.ndarray, path: str | Path) -> None:
        """Write the masked release: key values replaced by group means, rows in
        input order, non-key columns untouched.

        ``path`` is checked first (:func:`mipagg.outputs.check_output_path`):
        it may not be the file the instance was read from, and its directory
        must be writable.  The file is written atomically: an interrupted or
        failed write leaves any previous file at ``path`` untouched.

        Each group's values are formatted once (``repr``, the shortest string
        that reads back to the same float); when every column is a key column
        a record's line is its group's line, so 10⁶ records take seconds."""
        from .outputs import atomic_write, check_output_path

        source = self.provenance.get("source") if self.table is not None else None
        target = check_output_path(path, [source], what="masked release")
        means, inv = self._group_means(labels)
        from_file = self.table is not None
        if from_file:
            header, body = self.table
            col_index = [header.index(c) for c in self.columns]
        else:
            header, body = list(self.columns), None
            col_index = list(range(self.raw.shape[1]))
        delimiter = self.provenance.get("delimiter", ",") if from_file else ","
        ending = self.provenance.get("line_ending", "\n") if from_file else "\n"
        all_keys = sorted(col_index) == list(range(len(header)))
        # a float's repr needs csv quoting only if the delimiter can occur in it
        plain = len(delimiter) == 1 and delimiter not in "0123456789.e+-infa\"\r\n"
        with atomic_write(target, newline="") as fh:
            writer = csv.writer(fh, delimiter=delimiter, lineterminator=ending)
            if not from_file or self.provenance.get("header", True):
                writer.writerow(header)
            if all_keys and plain:
                order = np.argsort(col_index)  # key j sits in output column col_index[j]
                lines: list[str] = []
                for a in range(0, len(means), 1 << 14):
                    lines += [delimiter.join(map(repr, g))
                              for g in means[a:a + (1 << 14), order].tolist()]
                for a in range(0, self.n, 1 << 16):
                    chunk = inv[a:a + (1 << 16)].tolist()
                    fh.write(ending.join(map(lines.__getitem__, chunk)) + ending)
                return
            cells = [list(map(repr, row)) for row in means.tolist()]
            if body is None:
                body = ([""] * self.raw.shape[1] for _ in range(self.n))
            for g, row in zip(inv.tolist(), body):
                out = list(row)
                for c, v in zip(col_index, cells[g]):
                    out[c] = v
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


_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")


_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _first_line(text: str) -> str:
    """``text.splitlines()[0]`` without splitting the whole text."""
    m = _LINE_BREAK.search(text)
    return text if m is None else text[:m.start()]


def _parse_float(cell: str) -> float:
    cell = cell.strip()
    if cell == "":
        return math.nan
    return float(cell)


def read_csv(path: str | Path, columns: Sequence[str] | None = None, name: str | None = None,
             ddof: int = 1, delimiter: str | None = None, header: bool = True) -> Instance:
    """Load a CSV file with a header row.

    ``columns`` names the key columns (default: every column); the others are
    carried along untouched into a masked release.  Raises
    :class:`~mipagg.errors.DataError` for a missing or empty file, a ragged row,
    or a non-numeric / missing value in a key column, naming the column and row.
    A gzip-compressed file is read; a file that is not UTF-8 or UTF-16 text is
    refused (:func:`mipagg.inputs.read_text`).  A first row made only of
    numbers is refused as a header (it would be published unmasked);
    ``header=False`` reads such a file with columns named x1, x2, ...
    """
    from .fastcsv import Rows, parse_keys, plain_lines
    from .inputs import line_ending, looks_like_a_record, read_text

    path = Path(path)
    text = read_text(path)
    if not text.strip():
        raise DataError(f"{path} is empty")
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(_first_line(text), delimiters=",;\t").delimiter
        except csv.Error:
            delimiter = ","
    ending = line_ending(text)
    lines = plain_lines(text, delimiter)  # fast path: plain text kept as lines
    if lines is None:
        try:
            rows = [r for r in csv.reader(text.splitlines(), delimiter=delimiter) if r]
        except csv.Error as exc:
            raise DataError(f"{path} is not a readable CSV file ({exc})") from None
        first = rows[0]
    else:
        first = lines[0].split(delimiter)
    del text
    if not header:
        first, start = [f"x{j + 1}" for j in range(len(first))], 0
    else:
        start = 1
        if looks_like_a_record(first):
            raise DataError(f"{path}: the first row ({', '.join(first[:4])}"
                            f"{', ...' if len(first) > 4 else ''}) is all numbers, so it is a "
                            "record, not a header; add a header row (with names that are not "
                            "numbers), or pass --no-header")
    has_header = header
    names = [h.strip() for h in first]
    body = rows[start:] if lines is None else Rows(lines, start, delimiter)
    if not body:
        raise DataError(f"{path} has a header but no records")
    if len(set(names)) != len(names):
        repeated = sorted({h for h in names if names.count(h) > 1})
        raise DataError(f"{path} has repeated column names: {', '.join(map(repr, repeated))}")
    ragged = (next((i for i, r in enumerate(body) if len(r) != len(names)), None)
              if lines is None else body.first_ragged(len(names)))
    if ragged is not None:
        raise DataError(f"{path}: record {ragged + 1} has {len(body[ragged])} fields, "
                        f"header has {len(names)}")
    keys = list(names if columns is None else columns)
    unknown = [c for c in keys if c not in names]
    if unknown:
        raise ParameterError(f"unknown column(s) {unknown}; the file has {names}")
    idx = [names.index(c) for c in keys]

    def cell_loop(a: int, b: int, out: np.ndarray) -> None:
        for i in range(a, b):
            r = body[i]
            for j, c in enumerate(idx):
                try:
                    out[i - a, j] = _parse_float(r[c])
                except ValueError:
                    hint = (" (a decimal comma? write numbers with a dot)"
                            if _DECIMAL_COMMA.match(r[c].strip()) else "")
                    raise DataError(
                        f"{path}: key column {keys[j]!r} is not numeric (record {i + 1}: "
                        f"{r[c]!r}){hint}; choose numeric key columns with --columns"
                    ) from None

    if lines is None:
        raw = np.empty((len(body), len(keys)))
        cell_loop(0, len(body), raw)
    else:
        raw = parse_keys(body, idx, len(names), cell_loop)
    provenance = {"source": str(path), "columns": keys}
    if delimiter != ",":  # the masked release keeps the delimiter of its input
        provenance["delimiter"] = delimiter
    if ending != "\n":  # ... its line ending
        provenance["line_ending"] = ending
    if not has_header:  # ... and has no header row either
        provenance["header"] = False
    return Instance(raw, tuple(keys), name or path.stem, provenance, ddof, (names, body))
