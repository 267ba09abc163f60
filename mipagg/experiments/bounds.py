"""Grids with certified bounds: one lower bound per instance and k, and the
table every paper prints, the gap of each method to it.

A grid declares ``bounds = { method = "bp", time_limit = 600 }`` (TOML) or
``Grid(..., bounds={"method": "bp", "time_limit": 600})``.  After the grid's
runs, :func:`compute_bounds` runs branch-and-price (or column generation)
once per (instance, k), started from the best partition of the grid's runs
(its ``initial`` incumbent), and stores the certified lower bound in the
``bounds`` table of the results file; a resumed grid reuses every stored
bound (keyed by instance fingerprint, k, method and options).

:func:`bound_gap_tables` (``mipagg report DB --table gaps`` when the file has
bounds) prints per method the mean and the maximum gap
100·(SSE − LB)/SSE (seed 001 formula (15)) and the number of proven optima
(runs whose SSE meets the bound), per k and over all, one table per data set.
"""

from __future__ import annotations

import json
import math
import sys
import time
from datetime import datetime, timezone
from typing import Any

import numpy as np

from .. import __version__
from ..errors import ParameterError

__all__ = ["compute_bounds", "stored_bounds", "bound_gap_tables",
           "BOUNDS_COLUMNS"]

OPT_RTOL = 1e-6      # SSE ≤ LB·(1 + OPT_RTOL) counts as a proven optimum

BOUNDS_COLUMNS = [
    ("instance", "TEXT"), ("fingerprint", "TEXT"), ("dataset", "TEXT"), ("k", "INTEGER"),
    ("method", "TEXT"), ("options", "TEXT"), ("lower_bound", "REAL"), ("sse", "REAL"),
    ("sst", "REAL"), ("status", "TEXT"), ("source", "TEXT"), ("initial_sse", "REAL"),
    ("seconds", "REAL"), ("labels", "BLOB"), ("version", "TEXT"), ("finished_at", "TEXT"),
]


def _table(con) -> None:
    cols = ", ".join(f"{c} {t}" for c, t in BOUNDS_COLUMNS)
    with con:
        con.execute(f"CREATE TABLE IF NOT EXISTS bounds ({cols}, "
                    "PRIMARY KEY (fingerprint, k, method, options))")


def _options_key(spec: dict) -> str:
    return json.dumps({a: v for a, v in spec.items() if a != "method"}, sort_keys=True)


def stored_bounds(store) -> list[dict]:
    """Every stored bound (labels decoded), in the order computed."""
    from .store import decode_labels

    con = store.con
    if not con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='bounds'"
                       ).fetchone():
        return []
    names = [c for c, _ in BOUNDS_COLUMNS]
    out = []
    for row in con.execute(f"SELECT {', '.join(names)} FROM bounds ORDER BY rowid"):
        rec = dict(zip(names, row))
        rec["options"] = json.loads(rec["options"] or "{}")
        rec["labels"] = decode_labels(rec["labels"])
        out.append(rec)
    return out


def _best_labels(store, fingerprint: str, k: int):
    """Labels and SSE of the best successful run of the grid on (instance, k)."""
    recs = store.records("WHERE fingerprint = ? AND k = ? AND status = 'ok' "
                         "AND labels IS NOT NULL", (fingerprint, int(k)))
    recs = [r for r in recs if r["sse"] is not None]
    if not recs:
        return None, None
    best = min(recs, key=lambda r: r["sse"])
    return best["labels"], best["sse"]


def compute_bounds(grid, store, instances, *, progress: bool = True) -> dict:
    """One certified bound per (instance, k) of ``grid`` not yet in ``store``
    (``instances``: the grid's loaded ``(dataset, Instance)`` pairs).
    Returns ``{"computed": n, "reused": m}``."""
    from ..partition import Partition
    from .grid import instance_fingerprint
    from .store import encode_labels

    spec = grid.bounds
    _table(store.con)
    okey = _options_key(spec)
    ks = sorted({r.k for r in grid.runs(instances)})
    done = {(r["fingerprint"], r["k"]) for r in stored_bounds(store)
            if r["method"] == spec["method"] and json.dumps(r["options"], sort_keys=True) == okey}
    counts = {"computed": 0, "reused": 0}
    for dataset, inst in instances:
        fp = instance_fingerprint(inst)
        for k in ks:
            if (fp, k) in done:
                counts["reused"] += 1
                continue
            if k > inst.n:
                continue
            labels, initial_sse = _best_labels(store, fp, k)
            initial = None
            if labels is not None and labels.size == inst.n:
                initial = Partition(labels, inst.X)
                if not initial.is_feasible(k):
                    initial = None
            if progress:
                print(f"{grid.name}: certified bound ({spec['method']}, "
                      f"{spec['time_limit']:g} s) for {inst.name} k={k}", file=sys.stderr)
            from ..exact.solvers import use_solver

            options = {"time_limit": spec["time_limit"], "initial": initial}
            t0 = time.perf_counter()
            res: Any   # a BranchAndPriceResult or a ColumnGenerationResult
            with use_solver(spec.get("solver")):
                if spec["method"] == "bp":
                    from ..exact.bp import branch_and_price

                    res = branch_and_price(inst.X, k, **options)
                    source = res.closed_by or ("root" if res.nodes <= 1 else "open nodes")
                else:
                    from ..exact.colgen import column_generation

                    res = column_generation(inst.X, k, **options)
                    source = res.bound_source
            seconds = time.perf_counter() - t0
            row = {"instance": inst.name, "fingerprint": fp, "dataset": dataset, "k": int(k),
                   "method": spec["method"], "options": okey,
                   "lower_bound": res.lower_bound, "sse": res.partition.sse(),
                   "sst": res.partition.sst(), "status": res.status, "source": source,
                   "initial_sse": initial_sse, "seconds": seconds,
                   "labels": encode_labels(res.partition.labels), "version": __version__,
                   "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
            names = [c for c, _ in BOUNDS_COLUMNS]
            with store.con:
                store.con.execute(
                    f"INSERT OR REPLACE INTO bounds VALUES ({', '.join('?' * len(names))})",
                    [row[c] for c in names])
            counts["computed"] += 1
    return counts


# ---------------------------------------------------------------- the table

def _fmt(x, digits=2) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def bound_gap_tables(df, bounds: list[dict], digits: int = 2) -> list:
    """Per data set: for each method (rows) and k, the mean and max gap (%)
    of its successful runs to the certified bound of their (instance, k), and
    "opt" = runs that meet the bound (proven optimal) / runs; then the same
    over every k.  The last rows give the bound as IL (mean over instances)
    and the best SSE the bound's search found, as IL."""
    from .report import Table, ordered, successful_runs

    if not bounds:
        raise ParameterError("no certified bounds in the results store (add "
                             "bounds = { method = \"bp\", time_limit = ... } to the grid)")
    ok = successful_runs(df)
    lb = {(b["fingerprint"], int(b["k"])): b for b in bounds if b["lower_bound"] is not None}
    keys = list(zip(ok["fingerprint"], ok["k"].astype(int)))
    bound = np.array([lb[key]["lower_bound"] if key in lb else np.nan for key in keys])
    sse = ok["sse"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.where(sse > 0, np.maximum(0.0, 100.0 * (sse - bound) / sse), 0.0)
    gap = np.where(np.isnan(bound), np.nan, gap)
    opt = sse <= bound * (1 + OPT_RTOL) + 1e-12
    ok = ok.assign(_gap=gap, _opt=opt)
    ok = ok[~np.isnan(ok["_gap"].to_numpy(dtype=float))]
    if ok.empty:
        raise ParameterError("no successful run has a certified bound for its instance and k")
    tables = []
    for dataset in ordered(ok["dataset"]):
        sub = ok[ok["dataset"] == dataset]
        ks = sorted(int(k) for k in sub["k"].unique())
        rows = []
        for label in ordered(sub["label"]):
            row = [label]
            for k in ks + [None]:
                cell = sub[sub["label"] == label]
                if k is not None:
                    cell = cell[cell["k"] == k]
                if cell.empty:
                    row += ["–", "–", "–"]
                    continue
                g = cell["_gap"].to_numpy(dtype=float)
                row += [_fmt(g.mean(), digits), _fmt(g.max(), digits),
                        f"{int(cell['_opt'].sum())}/{len(cell)}"]
            rows.append(row)
        bset = [b for b in bounds if b["dataset"] == dataset and b["lower_bound"] is not None]
        for what, field in (("bound IL", "lower_bound"), ("bound search best IL", "sse")):
            row = [what]
            for k in ks + [None]:
                bs = [b for b in bset if k is None or int(b["k"]) == k]
                if k is None or not bs:
                    row += ["", "", ""]
                    continue
                il = np.mean([100.0 * b[field] / b["sst"] for b in bs])
                row += [_fmt(il, 4), "", ""]
            rows.append(row)
        statuses = sorted({f"{b['status']}" for b in bset})
        methods = sorted({f"{b['method']} {_spec_text(b['options'])}" for b in bset})
        notes = [f"Certified lower bound LB per instance and k by {', '.join(methods)} "
                 f"(status: {', '.join(statuses)}); gap = 100·(SSE − LB)/SSE (seed 001 "
                 f"formula (15)); opt = runs whose SSE meets LB (proven optimal) / runs."]
        groups = [("", 1)] + [(f"k = {k}", 3) for k in ks] + [("all k", 3)]
        columns = ["method"] + ["mean gap %", "max gap %", "opt"] * (len(ks) + 1)
        tables.append(Table(f"Gaps (%) to the certified lower bound on {dataset}",
                            columns, rows, groups=groups, notes=notes))
    return tables


def _spec_text(options: dict) -> str:
    return ", ".join(f"{a} {v:g} s" if a == "time_limit" else f"{a} {v}"
                     for a, v in sorted(options.items()))
