"""Results store: one SQLite file, one row per finished run.

Every run is written (and committed) as soon as it finishes, so a grid that
is interrupted resumes where it stopped: :meth:`ResultStore.done_keys` tells
the runner which run keys are already stored.  Labels are kept compactly as a
zlib-compressed int32 array.  Only the process driving the grid writes.

>>> store = ResultStore(":memory:")
>>> store.count()
0
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path

import numpy as np

__all__ = ["ResultStore", "encode_labels", "decode_labels", "RUN_COLUMNS"]

SCHEMA_VERSION = "1"

# (column, SQL type) of the runs table, in order.
RUN_COLUMNS = [
    ("key", "TEXT PRIMARY KEY"), ("grid", "TEXT"), ("dataset", "TEXT"), ("instance", "TEXT"),
    ("fingerprint", "TEXT"), ("n", "INTEGER"), ("p", "INTEGER"), ("method", "TEXT"),
    ("label", "TEXT"), ("options", "TEXT"), ("improve", "TEXT"), ("k", "INTEGER"),
    ("seed", "INTEGER"), ("status", "TEXT"), ("error", "TEXT"), ("sse", "REAL"),
    ("sst", "REAL"), ("il", "REAL"), ("lower_bound", "REAL"), ("gap", "REAL"),
    ("groups", "INTEGER"), ("min_group", "INTEGER"), ("max_group", "INTEGER"),
    ("seconds", "REAL"), ("wall_seconds", "REAL"), ("version", "TEXT"), ("summary", "TEXT"),
    ("labels", "BLOB"), ("finished_at", "TEXT"), ("host", "TEXT"),
]
_NAMES = [c for c, _ in RUN_COLUMNS]
STATUSES = ("ok", "failed", "timeout")


SQLITE_MAGIC = b"SQLite format 3\x00"


def check_results_file(path: str | Path) -> None:
    """Raise :class:`~mipagg.errors.DataError` unless ``path`` is a results
    database (an empty file, or an SQLite file without tables, counts as a new
    one).  Checked without writing:
    SQLite would otherwise fail with a traceback on a CSV file, or add the
    store's tables to somebody else's database."""
    from ..errors import DataError

    path = Path(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise DataError(f"cannot read results file {path}: {exc.strerror or exc}") from None
    if not head:
        return
    if head != SQLITE_MAGIC:
        raise DataError(f"{path} is not a results database (not an SQLite file)")
    try:
        con = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            tables = {r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            con.close()
    except sqlite3.Error as exc:
        raise DataError(f"{path} is not a results database ({exc})") from None
    if tables and not {"runs", "meta"} <= tables:   # no table yet: a store being created
        raise DataError(f"{path} is an SQLite file but not a results database (no runs table)")


def encode_labels(labels) -> bytes | None:
    if labels is None:
        return None
    return zlib.compress(np.asarray(labels, dtype="<i4").tobytes(), 9)


def decode_labels(blob: bytes | None) -> np.ndarray | None:
    if blob is None:
        return None
    return np.frombuffer(zlib.decompress(blob), dtype="<i4").astype(np.int64)


class ResultStore:
    """SQLite results store (``path`` may be ``":memory:"``)."""

    def __init__(self, path: str | Path = "results.sqlite"):
        self.path = str(path)
        if self.path != ":memory:":
            if Path(self.path).exists():
                check_results_file(self.path)
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.con = sqlite3.connect(self.path)
        if self.path != ":memory:":
            self.con.execute("PRAGMA journal_mode=WAL")
        cols = ", ".join(f"{c} {t}" for c, t in RUN_COLUMNS)
        with self.con:
            # one transaction, so that a reader never sees some of the tables
            # (sqlite3 would commit each CREATE TABLE on its own)
            self.con.execute("BEGIN IMMEDIATE")     # the write lock at once
            self.con.execute(f"CREATE TABLE IF NOT EXISTS runs ({cols})")
            self.con.execute(
                "CREATE TABLE IF NOT EXISTS instances (name TEXT, fingerprint TEXT, "
                "dataset TEXT, n INTEGER, p INTEGER, provenance TEXT, "
                "PRIMARY KEY (name, fingerprint))")
            self.con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self.con.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))

    # ------------------------------------------------------------ writing

    def add_instance(self, dataset: str, inst, fingerprint: str) -> None:
        with self.con:
            self.con.execute(
                "INSERT OR REPLACE INTO instances VALUES (?, ?, ?, ?, ?, ?)",
                (inst.name, fingerprint, dataset, inst.n, inst.p,
                 json.dumps(inst.provenance, default=str, sort_keys=True)))

    def add(self, record: dict) -> None:
        """Insert (or replace) one run record and commit.  The method's summary
        is kept without the fields that are columns already."""
        row = dict(record)
        row["options"] = json.dumps(row.get("options") or {}, sort_keys=True, default=str)
        extra = {f: v for f, v in (row.get("summary") or {}).items() if f not in _NAMES}
        row["summary"] = json.dumps(extra, sort_keys=True, default=str)
        row["labels"] = encode_labels(row.get("labels"))
        values = [row.get(c) for c in _NAMES]
        with self.con:
            self.con.execute(f"INSERT OR REPLACE INTO runs VALUES ({', '.join('?' * len(_NAMES))})",
                             values)

    # ------------------------------------------------------------ reading

    def done_keys(self, statuses=STATUSES) -> set[str]:
        """Keys of stored runs with one of ``statuses``."""
        marks = ", ".join("?" * len(statuses))
        cur = self.con.execute(f"SELECT key FROM runs WHERE status IN ({marks})", tuple(statuses))
        return {r[0] for r in cur}

    def count(self, status: str | None = None) -> int:
        if status is None:
            return self.con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        return self.con.execute("SELECT COUNT(*) FROM runs WHERE status = ?",
                                (status,)).fetchone()[0]

    def records(self, where: str = "", params=()) -> list[dict]:
        """Run records as dicts (options/summary parsed, labels decoded)."""
        cur = self.con.execute(f"SELECT {', '.join(_NAMES)} FROM runs {where} ORDER BY rowid",
                               params)
        out = []
        for row in cur:
            rec = dict(zip(_NAMES, row))
            rec["options"] = json.loads(rec["options"] or "{}")
            rec["summary"] = json.loads(rec["summary"] or "{}")
            rec["labels"] = decode_labels(rec["labels"])
            out.append(rec)
        return out

    def record(self, key: str) -> dict | None:
        recs = self.records("WHERE key = ?", (key,))
        return recs[0] if recs else None

    def instances(self) -> dict[tuple[str, str], dict]:
        cur = self.con.execute("SELECT name, fingerprint, dataset, n, p, provenance FROM instances")
        return {(r[0], r[1]): {"dataset": r[2], "n": r[3], "p": r[4],
                               "provenance": json.loads(r[5] or "{}")} for r in cur}

    def to_dataframe(self, labels: bool = False):
        """All runs as a pandas DataFrame.

        Besides the stored columns: every field of the method's summary that
        is not a column already (e.g. ``sse_mdav``, ``path_length``), and
        the instance provenance fields ``criterion``, ``size`` (= n) and
        ``parent``.  ``labels=True`` keeps the decoded label arrays.
        """
        import pandas as pd

        recs = self.records()
        provs = self.instances()
        rows = []
        for rec in recs:
            summary = rec.pop("summary")
            for field, value in summary.items():
                if field not in rec and not isinstance(value, (dict, list)):
                    rec[field] = value
            prov = provs.get((rec["instance"], rec["fingerprint"]), {}).get("provenance", {})
            rec["criterion"] = prov.get("criterion")
            rec["parent"] = prov.get("parent", rec["dataset"])
            rec["size"] = rec["n"]
            rec["options"] = json.dumps(rec["options"], sort_keys=True)
            if not labels:
                rec.pop("labels")
            rows.append(rec)
        columns = [c for c in _NAMES if labels or c != "labels"]
        df = pd.DataFrame(rows)
        if df.empty:
            return pd.DataFrame(columns=columns + ["criterion", "parent", "size"])
        return df

    def to_csv(self, path: str | Path) -> None:
        """Export every run (without labels) to a CSV file, written atomically;
        ``path`` may not be the store's own file."""
        from ..outputs import atomic_write, check_output_path

        target = check_output_path(path, [None if self.path == ":memory:" else self.path],
                                   what="CSV export")
        text = self.to_dataframe().to_csv(index=False)
        with atomic_write(target, newline="") as fh:
            fh.write(text)

    def close(self) -> None:
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
