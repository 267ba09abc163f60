"""Independent verification of a partition: ``mipagg verify DATA LABELS -k K``.

Recomputes k-feasibility, SSE, SST and IL from the data file and a labels
file alone, sharing nothing with the code that made the labels (no
:class:`~mipagg.instance.Instance`, no :class:`~mipagg.partition.Partition`,
no numpy) except the convention: key columns standardized to mean 0 and
sample standard deviation 1 over the n records, constant columns (all values
equal) dropped, SSE = Σ_groups Σ_{i∈G} ||z_i − z̄_G||², SST = Σ_i ||z_i||²,
IL = 100·SSE/SST (seed 001 section 2, seed 003 section 2.3).

The arithmetic is exact: every float is a dyadic rational, so with
``S = Σx``, ``Q = Σx²`` over all records and ``S_G``, ``Q_G`` over a group,
in Python integers and fractions,

    SSE_j = (n − 1) · Σ_G (Q_G − S_G²/|G|) / (Q − S²/n)    (standardized column j),
    SST   = (n − 1) · q                                       (q kept columns),

so the reported values are the exact ones rounded once to float — a
reference for the floating-point code, whatever the magnitudes (1e-300 to
1e300) or offsets (1e9 plus small noise) of the data.

>>> rep = verify_table(["a"], [[0.0], [1.0], [10.0], [11.0]], [0, 0, 1, 1], k=2)
>>> rep["feasible"], rep["sse"], rep["sst"]
(True, 0.0297029702970297, 3.0)
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from .errors import DataError, MipaggError, ParameterError

__all__ = ["LabelsError", "read_table", "read_labels", "verify_table", "verify_files"]


class LabelsError(MipaggError):
    """The labels file does not describe a partition of the data file: no
    ``group`` header, a non-integer label, or a row count that differs."""


def _read_text(path: str | Path, what: str) -> str:
    """Decoded text (gzip, UTF-8, UTF-16: :func:`mipagg.inputs.read_text`) with
    every line ending (CR LF, CR alone) turned into LF."""
    from .inputs import read_text

    text = read_text(path, what + " ")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _delimiter(first_line: str) -> str:
    """The most frequent of ``,``, ``;`` and tab in the header line (``,`` on ties)."""
    counts = {d: first_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: (counts[d], d == ","))
    return best if counts[best] else ","


def read_table(path: str | Path, has_header: bool = True) -> tuple[list[str], list[list[str]]]:
    """``(header, rows)`` of a delimited text file with a header row; blank
    lines are skipped, ragged rows and repeated column names refused, and a
    first row made only of numbers refused as a header (``has_header=False``:
    no header row, columns named x1, x2, ...)."""
    from .inputs import looks_like_a_record

    text = _read_text(path, "data")
    lines = text.splitlines()
    if not text.strip():
        raise DataError(f"{path} is empty")
    first = next(line for line in lines if line.strip())
    try:
        rows = [r for r in csv.reader(io.StringIO(text), delimiter=_delimiter(first)) if r]
    except csv.Error as exc:
        raise DataError(f"{path} is not a readable CSV file ({exc})") from None
    if not has_header:
        rows.insert(0, [f"x{j + 1}" for j in range(len(rows[0]))])
    elif looks_like_a_record(rows[0]):
        raise DataError(f"{path}: the first row is all numbers, so it is a record, not a "
                        "header; add a header row (with names that are not numbers), or pass "
                        "--no-header")
    header, body = [h.strip() for h in rows[0]], rows[1:]
    if not body:
        raise DataError(f"{path} has a header but no records")
    seen = Counter(header)
    if any(c > 1 for c in seen.values()):
        raise DataError(f"{path} has repeated column names: "
                        f"{', '.join(repr(h) for h, c in seen.items() if c > 1)}")
    for i, r in enumerate(body):
        if len(r) != len(header):
            raise DataError(f"{path}: record {i + 1} has {len(r)} fields, header has "
                            f"{len(header)}")
    return header, body


def read_labels(path: str | Path) -> list[int]:
    """Group labels from a file with header ``group`` and one integer per line."""
    text = _read_text(path, "labels")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines or lines[0] != "group":
        got = repr(lines[0][:40]) if lines else "an empty file"
        raise LabelsError(f"{path}: expected the header 'group' on the first line, got {got}")
    labels = []
    for i, cell in enumerate(lines[1:]):
        try:
            labels.append(int(cell))
        except ValueError:
            raise LabelsError(f"{path}: label of record {i + 1} is not an integer: "
                              f"{cell[:40]!r}") from None
    return labels


def _column_values(path, header, body, name) -> list[float]:
    j = header.index(name)
    out = []
    for i, r in enumerate(body):
        cell = r[j].strip()
        try:
            x = float(cell)
        except ValueError:
            raise DataError(f"{path}: key column {name!r} is not numeric (record {i + 1}: "
                            f"{cell[:40]!r})") from None
        if not math.isfinite(x):
            raise DataError(f"{path}: key column {name!r} has a missing or non-finite value "
                            f"at record {i + 1}")
        out.append(x)
    return out


def _as_integers(values: Sequence[float]) -> list[int]:
    """The values times one common power of two, as exact integers."""
    ratios = [x.as_integer_ratio() for x in values]  # denominators are powers of two
    den = max(d for _, d in ratios)
    return [num * (den // d) for num, d in ratios]


def _column_sse(values: Sequence[float], groups: dict[int, list[int]]) -> Fraction:
    """Exact SSE of the standardized column: (n−1)·Σ_G(Q_G − S_G²/|G|)/(Q − S²/n)."""
    x = _as_integers(values)
    n = len(x)
    total_s, total_q = sum(x), sum(v * v for v in x)
    sst_raw = Fraction(n * total_q - total_s * total_s, n)
    within = Fraction(0)
    by_size: dict[int, int] = {}
    for rows in groups.values():
        s = sum(x[i] for i in rows)
        within += sum(x[i] * x[i] for i in rows)
        by_size[len(rows)] = by_size.get(len(rows), 0) + s * s
    within -= sum(Fraction(v, size) for size, v in by_size.items())
    return (n - 1) * within / sst_raw


def verify_table(columns: Sequence[str], rows: Sequence[Sequence[float]],
                 labels: Sequence[int], k: int) -> dict:
    """Feasibility, group sizes, SSE, SST and IL of ``labels`` on the records
    ``rows`` (numbers, one list per record, key columns in order)."""
    n = len(rows)
    if len(labels) != n:
        raise LabelsError(f"{len(labels)} labels for {n} data records")
    if n < 2:
        raise DataError(f"need at least 2 records to standardize, got {n}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ParameterError(f"k must be a positive integer, got {k!r}")
    groups: dict[int, list[int]] = {}
    for i, g in enumerate(labels):
        groups.setdefault(int(g), []).append(i)
    kept, dropped, sse = [], [], Fraction(0)
    for j, name in enumerate(columns):
        values = [float(r[j]) for r in rows]
        if not all(math.isfinite(v) for v in values):
            raise DataError(f"key column {name!r} has a missing or non-finite value")
        if all(v == values[0] for v in values):
            dropped.append(name)
            continue
        kept.append(name)
        sse += _column_sse(values, groups)
    if not kept:
        raise DataError("every key column is constant")
    sst = (n - 1) * len(kept)
    sizes = [len(rows_) for rows_ in groups.values()]
    small = sum(1 for s in sizes if s < k)
    return {"k": k, "n": n, "p": len(kept), "dropped_columns": dropped,
            "groups": len(sizes), "min_group": min(sizes), "max_group": max(sizes),
            "small_groups": small, "feasible": small == 0,
            "sse": float(sse), "sst": float(sst), "il": float(100 * sse / sst)}


def verify_files(data: str | Path, labels: str | Path, k: int,
                 columns: Sequence[str] | None = None, header: bool = True) -> dict:
    """:func:`verify_table` on a CSV data file (key ``columns``, default all)
    and a labels file as written by ``mipagg run --labels``.

    Raises :class:`~mipagg.errors.DataError` / :class:`ParameterError` for a
    missing or bad data file or an unknown column, :class:`LabelsError` when
    the labels file does not match the data."""
    header, body = read_table(data, has_header=header)
    names = list(header if columns is None else columns)
    unknown = [c for c in names if c not in header]
    if unknown:
        raise ParameterError(f"unknown column(s) {unknown}; the file has {header}")
    values = [_column_values(data, header, body, c) for c in names]
    rows = [list(r) for r in zip(*values)]
    labs = read_labels(labels)
    if len(labs) != len(rows):
        raise LabelsError(f"{labels} has {len(labs)} labels, {data} has {len(rows)} records")
    return {"data": str(data), "labels": str(labels),
            **verify_table(names, rows, labs, k)}
