"""A fast path for plain numeric CSV text (issue 24: a 10⁶-row file).

:func:`mipagg.instance.read_csv` used to keep every cell of the file as its own
Python string (about 1.6 GiB for 10⁶ × 10 numbers) and to parse the key columns
one cell at a time.  For *plain* text — no quote character, no field longer
than the :mod:`csv` module accepts — splitting a line on the delimiter is
exactly what :func:`csv.reader` does, so the file is kept as one string per
line (:class:`Rows`, split on demand) and the key columns are parsed a chunk of
lines at a time with the built-in :class:`float` (the very function the cell
loop calls, so the values are bit-for-bit the same).  A chunk in which some
cell does not parse (an empty cell, a word) is handed back to the cell loop,
which reads empty cells as missing and names the row and column of the first
bad cell, as before.  Anything irregular (quotes, huge fields) keeps the old
reader entirely.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from itertools import repeat
from typing import Callable

import numpy as np

__all__ = ["CHUNK", "Rows", "plain_lines", "parse_keys"]

CHUNK = 1 << 15  # lines parsed at a time: bounds the temporary strings


def plain_lines(text: str, delimiter: str) -> list[str] | None:
    """The non-empty lines of ``text`` when it can be split on ``delimiter``
    exactly as :func:`csv.reader` would read it; ``None`` otherwise."""
    if '"' in text or len(delimiter) != 1 or delimiter in "\r\n":
        return None
    lines = [line for line in text.splitlines() if line]
    if not lines or max(map(len, lines)) >= csv.field_size_limit():
        return None
    return lines


class Rows(Sequence):
    """The records of a table kept as lines, each split into its cells when
    asked for (``rows[i]`` is a fresh ``list[str]``, as :func:`csv.reader`
    yields).  Compares equal to the list of those rows."""

    __slots__ = ("lines", "start", "delimiter")

    def __init__(self, lines: list[str], start: int, delimiter: str):
        self.lines, self.start, self.delimiter = lines, start, delimiter

    def __len__(self) -> int:
        return len(self.lines) - self.start

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.lines[self.start + int(i)].split(self.delimiter)

    def __iter__(self):
        d = self.delimiter
        for line in self.lines[self.start:] if self.start else self.lines:
            yield line.split(d)

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(other) == len(self) and \
            all(a == list(b) for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def first_ragged(self, width: int) -> int | None:
        """Index of the first row without ``width`` cells, or None."""
        d, want = self.delimiter, width - 1
        for i, n in enumerate(map(str.count, self.lines[self.start:], repeat(d))):
            if n != want:
                return i
        return None


def parse_keys(rows: Rows, idx: list[int], width: int,
               cell_loop: Callable[[int, int, np.ndarray], None]) -> np.ndarray:
    """The key columns ``idx`` of ``rows`` (all of ``width`` cells) as floats.

    ``cell_loop(a, b, out)`` — the reader's own per-cell parser — fills
    ``out`` with rows ``a:b``; it is called for a chunk whose cells do not all
    parse with :class:`float` (empty cells are missing values, anything else
    raises the reader's error naming row and column)."""
    n, d = len(rows), rows.delimiter
    raw = np.empty((n, len(idx)))
    lines = rows.lines
    for a in range(0, n, CHUNK):
        b = min(n, a + CHUNK)
        cells = d.join(lines[rows.start + a:rows.start + b]).split(d)
        try:
            for j, c in enumerate(idx):
                raw[a:b, j] = np.fromiter(map(float, cells[c::width]), float, b - a)
        except ValueError:
            cell_loop(a, b, raw[a:b])
    return raw
