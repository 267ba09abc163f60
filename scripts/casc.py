"""Issue 8: the best-known table for the CASC files, which anyone can verify.

For Census and Tarragona (all 13 attributes) and k = 3, 4, 5, 6, 10: the best
value the seed papers publish (mipagg.experiments.published), mipagg's best
partition (method, IL), a certified lower bound (IL), the gap and the times.

    python scripts/casc.py [DATA_DIR] [--quick] [--cells census:3,tarragona:5]
                           [--budget-primal S] [--budget-bound S] [--seed S] [--workers N]
                           [--bp-option KEY=VALUE ...] [--verbose]
    python scripts/casc.py --polish S [--polish-groups G] [--polish-move-time S]
                           [--polish-seed N] [--polish-guide distance|lp] [--cells ...]
    python scripts/casc.py --replay --cells census:3 [--budget-bound S]
    python scripts/casc.py --cells census:5 --initial FILE --initial-note TEXT [...]
    python scripts/casc.py --table-only

Per cell (data set × k):

1. primal: ``microaggregate(inst, k, "portfolio", time_limit=P, seed=S)``; while
   "portfolio" is not registered, a fixed list of existing methods, each
   followed by ``improve="local"``: tsp-mhm (LKH tour, seed S), mdav-lk-mhm,
   compress c = 2, 3, 5, then tsp-mhm with seeds S+1, S+2, ... until P seconds
   are used (a stage is started only while time is left; the record says so);
2. bound: ``microaggregate(inst, k, "bp", time_limit=B, initial=best)`` when
   branch-and-price is registered, else ``"cg"`` (column generation); its
   partition competes too, and is polished by local search; ``--bp-option
   KEY=VALUE`` passes further options of :func:`mipagg.exact.bp.branch_and_price`
   (e.g. ``max_cut_rounds=40``), recorded with the stage and replayed by ``--replay``;
   ``checkpoint=docs/results/trees/FILE`` saves the tree when the stage stops and
   ``resume=FILE`` goes on with a saved tree in a later run (:mod:`mipagg.exact.checkpoint`);
3. the best partition is written to ``instances/solutions/{data}_k{K}.csv``
   (header ``group``, one label per input row; labels only, never data) only
   if it is better than the file already there;
4. the label file is checked with ``mipagg verify DATA LABELS -k K`` (when the
   command exists) and by an independent numpy recomputation in this script;
5. one JSON record per cell, ``docs/results/casc_runs/{data}_k{K}.json``,
   gets this run appended (version, git commit, parameters, seeds, command
   line, machine, load, start time, every stage with its result and time);
   cells can therefore be run in separate sessions.

``--polish S`` replaces steps 1-2: the committed label file goes through
merge-and-resplit search (S/3 seconds, :func:`mipagg.improve.merge_split_search`)
and exact neighbourhood search (the rest,
:func:`mipagg.exact.neighbourhood.exact_neighbourhood_search`; sub-problems of
``--polish-groups`` groups, default 8, each within ``--polish-move-time``
seconds, default 30), both with seed ``--polish-seed`` (default 0: a new seed
visits the groups in another order); steps 3-5 follow.  The bound of the
cell stays that of its earlier runs.  ``--polish-guide lp`` skips the
merge-and-resplit step: the sub-problems are groups that ``bp``'s root master
LP links (:func:`mipagg.exact.guide.lp_affinity`, computed from the label
file within the budget).

``--initial FILE`` (one cell) brings in a partition made elsewhere, e.g. by a
benchmark's tree: it is checked, recorded as a stage of its own (role
``given``, with ``--initial-note``) and competes with the others; the bound
stage starts from it when it is the best at hand, ``--polish`` always does.

Ctrl-C (or SIGTERM) once during the bound stage stops ``bp`` as at its time
limit (status "interrupted", :mod:`mipagg.interrupts`): the cell is saved and
recorded as after any run, its checkpoint written, and the cells after it are
not run; a second Ctrl-C aborts without a record.

``--replay`` reruns, per cell, the bound stage behind the certified bound of
the table (of several runs that reached it, the fastest proof; its recorded
method and options, from the committed label file; each side's, when a split
on the number of groups bounds the cell) and appends recorded and replayed
status, bound and nodes to the record's ``replays``; it exits 1 when a
recorded proof is not reproduced.

Then (and with ``--table-only``, from the records alone) it writes
``docs/results/casc.md`` and ``docs/results/casc.csv``.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import inspect
import io
import json
import math
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run from a checkout without installing

import mipagg  # noqa: E402
from mipagg.exact.countsplit import describe, sides  # noqa: E402
from mipagg.experiments.published import DATASETS, KS, beats, best_published, lowest_published  # noqa: E402
from mipagg.interrupts import CtrlC, graceful_stops  # noqa: E402
from mipagg.methods import METHODS  # noqa: E402

OUT = REPO / "docs" / "results"
SOLUTIONS = REPO / "instances" / "solutions"
NAMES = {"census": "Census", "tarragona": "Tarragona"}
FULL_BUDGETS = (600.0, 3600.0)     # primal, bound seconds per cell
QUICK_BUDGETS = (20.0, 20.0)
FALLBACK = [("tsp-mhm", {"tour": "lkh"}), ("mdav-lk-mhm", {}), ("compress", {"c": 2}),
            ("compress", {"c": 3}), ("compress", {"c": 5})]
MAX_REPEATS = 10_000
CLI_FLAGS = {"tour": "--tour", "c": "--c", "repeats": "--repeats", "time_limit": "--time-limit",
             "pricing": "--pricing", "gamma": "--gamma", "max_iterations": "--max-iterations"}
# --polish-guide lp: the root's cut rounds before its LP guides the neighbourhoods (the
# root gets at most half the polishing budget)
GUIDE_CUT_ROUNDS, GUIDE_TAIL_OFF = 30, 0.005
REL_TOL = 1e-12                    # "better" means lower SSE beyond this relative tolerance
# bp options whose default changed after bound stages were recorded: the value those stages
# ran with and the day it changed.  A bound stage now records every default it ran with
# (its ``defaults``, :func:`bp_defaults`); a replay of an older stage without them gets
# these old values
CHANGED_DEFAULTS = {"node_cut_rounds": (0, "2026-12-03"), "count_row": (False, "2026-12-04"),
                    "node_close_cuts": ("all", "2026-12-05")}
# polishing steps: step -> (stage method, name in the table, the Python call)
POLISH = {"local": ("improve local", "local search",
                    "mipagg.improve.improve_partition(X, P, k, how='local')"),
          "merge-split": ("merge-split search", "merge-split search",
                          "mipagg.improve.merge_split_search(X, P, k, seed=0, time_limit=T)"),
          "exact": ("improve exact", "exact neighbourhood search",
                    "mipagg.exact.neighbourhood.exact_neighbourhood_search(X, P, k, seed=0, "
                    "time_limit=T)")}


# ----------------------------------------------------------------------------------------
# small helpers

def log(msg: str) -> None:
    print(f"casc: {msg}", file=sys.stderr, flush=True)


def rel(path: Path) -> str:
    """``path`` relative to the repository (how a referee types it there)."""
    return os.path.relpath(Path(path).resolve(), REPO)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def canonical(labels) -> np.ndarray:
    """Groups renumbered 0..g-1 in order of first appearance."""
    labels = np.asarray(labels).ravel()
    _, first, inv = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv]


def labels_text(labels) -> str:
    return "group\n" + "".join(f"{int(g)}\n" for g in canonical(labels))


def labels_sha(labels) -> str:
    return hashlib.sha256(labels_text(labels).encode()).hexdigest()


def atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def jsonable(obj):
    """Results and options as plain JSON (arrays are left out: labels live in files)."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items() if not isinstance(v, np.ndarray)}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return repr(obj)


def bp_defaults(options: dict) -> dict:
    """The values ``branch_and_price`` takes for the options a bound stage
    leaves out (its signature's defaults, as JSON): recorded with the stage,
    they let ``--replay`` rerun the same tree after a default changes."""
    from mipagg.exact.bp import branch_and_price

    skip = {"X", "k", "initial", "settings", "verbose", "scheduler", *options}
    return jsonable({name: p.default for name, p in
                     inspect.signature(branch_and_price).parameters.items()
                     if name not in skip})


# ----------------------------------------------------------------------------------------
# verification: an independent recomputation, and `mipagg verify` when it exists

def read_labels(path: Path) -> np.ndarray:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or [c.strip() for c in rows[0]] != ["group"]:
        raise ValueError(f"{path}: the header must be 'group'")
    return np.array([int(r[0]) for r in rows[1:] if r], dtype=np.int64)


def recompute(data_path: Path, labels, k: int) -> dict:
    """Feasibility, SSE, SST and IL from the raw CSV and the labels alone (numpy,
    no mipagg code): columns standardized to mean 0 and sample sd 1, constant
    columns dropped, SSE = Σ_G Σ_{i∈G} ||z_i − z̄_G||², IL = 100·SSE/SST."""
    with open(data_path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.reader(fh))
    raw = np.array([[float(x) for x in r] for r in rows[1:] if r], dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    if labels.shape != (raw.shape[0],):
        raise ValueError(f"{labels.size} labels for {raw.shape[0]} records")
    sd = raw.std(axis=0, ddof=1)
    keep = sd > 0
    Z = (raw[:, keep] - raw[:, keep].mean(axis=0)) / sd[keep]
    groups, inv, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    sums = np.zeros((groups.size, Z.shape[1]))
    np.add.at(sums, inv, Z)
    sse = float((Z ** 2).sum() - ((sums ** 2).sum(axis=1) / sizes).sum())
    sst = float(((Z - Z.mean(axis=0)) ** 2).sum())
    return {"n": int(raw.shape[0]), "p": int(keep.sum()), "groups": int(groups.size),
            "min_group": int(sizes.min()), "max_group": int(sizes.max()),
            "feasible": bool(sizes.min() >= k), "sse": sse, "sst": sst, "il": 100 * sse / sst}


def mipagg_command() -> list[str]:
    exe = Path(sys.executable).parent / "mipagg"
    if exe.is_file():
        return [str(exe)]
    found = shutil.which("mipagg")
    return [found] if found else [sys.executable, "-c",
                                  "import sys; from mipagg.cli import main; sys.exit(main())"]


def mipagg_verify(data_path: Path, labels_path: Path, k: int) -> dict:
    """Run ``mipagg verify DATA LABELS -k K --json`` from the repository root."""
    args = ["verify", rel(data_path), rel(labels_path), "-k", str(k)]
    for extra in (["--json"], []):
        proc = subprocess.run(mipagg_command() + args + extra, cwd=REPO, capture_output=True,
                              text=True, timeout=900)
        if proc.returncode == 2 and "invalid choice" in proc.stderr:
            return {"available": False, "note": "mipagg verify does not exist in this version"}
        if not (proc.returncode == 2 and "unrecognized arguments" in proc.stderr):
            break
    out = {"available": True, "command": shlex.join(["mipagg"] + args + extra),
           "returncode": proc.returncode, "ok": proc.returncode == 0,
           "stderr": proc.stderr.strip()[-2000:]}
    try:
        out["report"] = json.loads(proc.stdout)
    except ValueError:
        out["stdout"] = proc.stdout.strip()[-2000:]
    return out


def check_label_file(data_path: Path, labels_path: Path, k: int) -> dict:
    """Both checks; ``ok`` when the independent recomputation finds a k-feasible
    partition and ``mipagg verify`` (if it exists) agrees on feasibility and IL."""
    labels = read_labels(labels_path)
    mine = recompute(data_path, labels, k)
    theirs = mipagg_verify(data_path, labels_path, k)
    ok = mine["feasible"]
    if theirs["available"]:
        ok = ok and theirs["ok"]
        rep = theirs.get("report") or {}
        if "il" in rep:
            theirs["il_agrees"] = abs(float(rep["il"]) - mine["il"]) <= 1e-6
            ok = ok and theirs["il_agrees"]
    return {"path": rel(labels_path), "sha256": sha256_file(labels_path),
            "independent": mine, "mipagg_verify": theirs, "ok": bool(ok),
            "checked_by": ("mipagg verify + independent recomputation" if theirs["available"]
                           else "independent recomputation only (mipagg verify not available)")}


# ----------------------------------------------------------------------------------------
# provenance

def git_info() -> dict:
    def git(*a):
        try:
            return subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True,
                                  timeout=60).stdout.rstrip("\n")
        except (OSError, subprocess.SubprocessError):
            return None
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "mipagg", "scripts")
    return {"commit": git("rev-parse", "HEAD"),
            "dirty_files": [line[3:] for line in dirty.splitlines()] if dirty else []}


def versions() -> dict:
    out = {"mipagg": mipagg.__version__, "python": platform.python_version()}
    for pkg in ("numpy", "scipy", "highspy", "numba", "elkai", "networkx"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def machine() -> dict:
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    return {"node": platform.node(), "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "nproc": os.cpu_count(), "cpus_available": affinity,
            "loadavg": list(os.getloadavg())}


# ----------------------------------------------------------------------------------------
# one cell

def stage_command(data_rel: str, k: int, method: str, options: dict, seed, improve) -> str:
    cmd = ["mipagg", "run", data_rel, "-k", str(k), "--method", method]
    for key, value in options.items():
        if key in CLI_FLAGS:
            cmd += [CLI_FLAGS[key], str(value)]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if improve:
        cmd += ["--improve", improve]
    return shlex.join(cmd)


class Cell:
    """Runs the stages of one (data set, k) cell and keeps the best partition."""

    def __init__(self, data: str, k: int, data_path: Path):
        self.data, self.k, self.data_path = data, k, data_path
        self.data_rel = rel(data_path)
        self.inst = mipagg.read_csv(data_path)
        self.stages: list[dict] = []
        self.best = None   # (sse, labels, stage index)

    def consider(self, partition, index: int) -> None:
        sse = float(partition.sse())
        if self.best is None or sse < self.best[0] * (1 - REL_TOL):
            self.best = (sse, np.asarray(partition.labels).copy(), index)

    def run(self, role: str, method: str, options: dict, *, seed=None, improve=None,
            note: str = "", cli: bool = True, verbose: bool = False):
        entry = {"stage": len(self.stages), "role": role, "method": method,
                 "options": jsonable(options), "seed": seed, "improve": improve}
        if note:
            entry["note"] = note
        entry["command"] = (stage_command(self.data_rel, self.k, method, options, seed, improve)
                            if cli else None)
        log(f"{self.data} k={self.k}: {role} {method} {jsonable(options)} seed={seed}"
            f"{' +' + improve if improve else ''}")
        t0 = time.perf_counter()
        try:
            res = mipagg.microaggregate(self.inst, self.k, method, seed=seed, improve=improve,
                                        verbose=verbose, **options)
        except Exception as exc:  # one failing stage must not lose the cell
            entry.update(error=f"{type(exc).__name__}: {exc}",
                         wall_seconds=time.perf_counter() - t0)
            log(f"  failed: {entry['error']}")
            self.stages.append(entry)
            return None
        entry["wall_seconds"] = time.perf_counter() - t0
        entry["result"] = jsonable({k: v for k, v in res.summary().items() if k != "options"})
        entry["labels_sha256"] = labels_sha(res.labels)
        self.stages.append(entry)
        self.consider(res.partition, entry["stage"])
        log(f"  IL {res.partition.il():.6f} in {entry['wall_seconds']:.1f} s")
        return res

    def polish(self, partition, source: int | None, step: str = "local", *, budget=None,
               source_label: str | None = None, exact_options: dict | None = None,
               seed: int = 0, verbose: bool = False):
        """One post-processing step of a partition (Python only, recorded as a
        stage): ``local`` (:func:`mipagg.improve.improve_partition`), ``merge-split``
        (:func:`mipagg.improve.merge_split_search`) or ``exact``
        (:func:`mipagg.exact.neighbourhood.exact_neighbourhood_search`, with
        ``exact_options`` such as ``groups`` and ``move_time``), the last two
        with ``seed`` and ``budget`` seconds.  ``source``: the stage it starts from, or
        None for a label file described by ``source_label``; ``verbose``: the search's
        progress lines on stderr."""
        from mipagg.exact.neighbourhood import exact_neighbourhood_search
        from mipagg.improve import improve_partition, merge_split_search

        X, k = self.inst.X, self.k
        method, _, call = POLISH[step]
        exact_options = dict(exact_options or {}) if step == "exact" else {}
        if exact_options.get("guide") == "lp":
            call += (f" with affinity=mipagg.exact.guide.lp_affinity(X, k, P, max_cut_rounds="
                     f"{GUIDE_CUT_ROUNDS}, tail_off={GUIDE_TAIL_OFF}, time_limit=T/2).weights")
        entry = {"stage": len(self.stages), "role": "polish", "method": method,
                 "options": ({} if budget is None else {"time_limit": budget}) | exact_options,
                 "seed": None if step == "local" else seed, "improve": step,
                 "source_stage": source, "command": None,
                 "note": f"{call} on the partition of "
                         f"{source_label or f'stage {source}'} (Python only)"}
        if source_label:
            entry["source_label"] = source_label
        t0 = time.perf_counter()
        if step == "local":
            p, extra = improve_partition(X, partition, k, how="local"), {}
        elif step == "merge-split":
            p = merge_split_search(X, partition, k, seed=seed, time_limit=budget,
                                   verbose=verbose).partition
            extra = {}
        else:
            options, extra = dict(exact_options), {}
            if options.pop("guide", None) == "lp":
                from mipagg.exact.guide import lp_affinity

                guide = lp_affinity(X, k, partition, max_cut_rounds=GUIDE_CUT_ROUNDS,
                                    tail_off=GUIDE_TAIL_OFF,
                                    time_limit=None if budget is None else budget / 2)
                options["affinity"], extra = guide.weights, guide.summary()
                log(f"  LP guide: bound {guide.bound}, {guide.fractional} fractional "
                    f"clusters, {guide.seconds:.1f} s")
            left = None if budget is None else max(1.0, budget - (time.perf_counter() - t0))
            r = exact_neighbourhood_search(X, partition, k, seed=seed, time_limit=left,
                                           verbose=verbose, **options)
            p, extra = r.partition, {**extra, **r.summary()}
        entry["wall_seconds"] = time.perf_counter() - t0
        entry["result"] = {"sse": float(p.sse()), "il": float(p.il()),
                           "sse_before_improve": float(partition.sse()), **extra}
        entry["labels_sha256"] = labels_sha(p.labels)
        self.stages.append(entry)
        self.consider(p, entry["stage"])
        log(f"  {method}: IL {p.il():.6f} in {entry['wall_seconds']:.1f} s")
        return p

    def given(self, labels, path: Path, note: str) -> int:
        """A partition made elsewhere (``--initial FILE``), recorded as a stage of
        its own so that the table names it as the source of what it leads to."""
        p = mipagg.Partition(labels, self.inst.X)
        entry = {"stage": len(self.stages), "role": "given", "method": "label file",
                 "options": {}, "seed": None, "improve": None, "command": None,
                 "source_label": rel(path), "note": note or "no note given",
                 "wall_seconds": 0.0,
                 "result": {"sse": float(p.sse()), "il": float(p.il())},
                 "labels_sha256": labels_sha(labels)}
        self.stages.append(entry)
        self.consider(p, entry["stage"])
        log(f"{self.data} k={self.k}: given label file {rel(path)}: IL {p.il():.6f}")
        return entry["stage"]

    # --- the two stages ------------------------------------------------------------------

    def primal(self, budget: float, seed: int) -> dict:
        t0 = time.perf_counter()
        if "portfolio" in METHODS:
            res = self.run("primal", "portfolio", {"time_limit": budget}, seed=seed)
            if res is not None:
                return {"method": "portfolio", "fallback": False,
                        "wall_seconds": time.perf_counter() - t0}
        plan = [(m, o, seed) for m, o in FALLBACK]
        plan += [("tsp-mhm", {"tour": "lkh"}, seed + i) for i in range(1, MAX_REPEATS)]
        done = 0
        for method, options, s in plan:
            if done and time.perf_counter() - t0 >= budget:
                break
            self.run("primal", method, dict(options), seed=s, improve="local")
            done += 1
        return {"method": "fallback", "fallback": True, "stages_run": done,
                "budget_exhausted": done < len(plan),
                "note": "'portfolio' was not registered: fixed list of existing methods, each "
                        "+ improve local: " + ", ".join(
                            f"{m} {o}" for m, o in FALLBACK) +
                        ", then tsp-mhm {'tour': 'lkh'} with seeds seed+1, seed+2, ... while "
                        "the primal budget lasts",
                "wall_seconds": time.perf_counter() - t0}

    def bound(self, budget: float, initial, initial_from: str, workers: int = 1,
              extra: dict | None = None, verbose: bool = False) -> dict:
        method = "bp" if "bp" in METHODS else "cg"
        t0 = time.perf_counter()
        options = {"time_limit": budget, "initial": initial}
        if method == "bp" and workers > 1:
            options["workers"] = workers
        if method == "bp":
            options.update(extra or {})
        with CtrlC(), graceful_stops():     # Ctrl-C once: the run stops and is recorded
            res = self.run("bound", method, options, cli=False,
                           note=f"initial = {initial_from}", verbose=verbose)
        if method == "bp":      # so that a replay reruns the same tree after a default changes
            self.stages[-1]["defaults"] = bp_defaults(options)
        out = {"method": method, "wall_seconds": time.perf_counter() - t0,
               "initial_from": initial_from,
               "initial_sha256": None if initial is None else labels_sha(initial)}
        if method == "cg":
            out["note"] = "'bp' (branch and price) was not registered: column generation"
        if res is not None:
            d = res.details
            lb = d.get("lower_bound")
            out.update(stage=self.stages[-1]["stage"], lower_bound=lb,
                       status=d.get("status"), bound_source=d.get("bound_source"),
                       nodes=d.get("nodes"),
                       il=None if lb is None else 100 * lb / res.partition.sst())
            self.polish(res.partition, self.stages[-1]["stage"])
        else:
            out.update(stage=self.stages[-1]["stage"], lower_bound=None, status="failed",
                       error=self.stages[-1]["error"], il=None)
        return out


def committed_partition(path: Path, data_path: Path, k: int):
    """(labels, recomputation) of the label file already there, or None."""
    if not path.is_file():
        return None
    try:
        labels = read_labels(path)
        rep = recompute(data_path, labels, k)
    except (ValueError, OSError) as exc:
        log(f"{rel(path)} is not a valid label file ({exc}); it will be replaced")
        return None
    if not rep["feasible"]:
        log(f"{rel(path)} is not {k}-feasible; it will be replaced")
        return None
    return labels, rep


def run_cell(data: str, k: int, data_path: Path, args, run_meta: dict, solutions: Path,
             runs_dir: Path) -> dict:
    started = datetime.now(timezone.utc)
    load_start = list(os.getloadavg())
    cell = Cell(data, k, data_path)
    primal = cell.primal(args.budget_primal, args.seed)
    if args.initial is not None:
        cell.given(args.initial[k], args.initial_path, args.initial_note)
    if cell.best is not None:
        primal.update(best_stage=cell.best[2], best_sse=cell.best[0],
                      best_il=cell.stages[cell.best[2]]["result"]["il"])
    label_path = solutions / f"{data}_k{k}.csv"
    committed = committed_partition(label_path, data_path, k)
    initial, initial_from = None, "none (every primal stage failed)"
    if cell.best is not None:
        st = cell.stages[cell.best[2]]
        initial, initial_from = cell.best[1], (
            f"the given label file {st['source_label']} (stage {cell.best[2]})"
            if st["role"] == "given" else
            f"best partition of this run's primal stage (stage {cell.best[2]})")
    if committed is not None and (cell.best is None
                                  or committed[1]["sse"] < cell.best[0] * (1 - REL_TOL)):
        initial, initial_from = committed[0], f"the committed label file {rel(label_path)}"
    bound = cell.bound(args.budget_bound, initial, initial_from, args.workers, args.bp_options,
                       args.verbose)
    if cell.best is None:
        raise SystemExit(f"casc: {data} k={k}: every stage failed; see the messages above")

    return save_cell(cell, committed, label_path, run_meta, args, primal, bound, started,
                     load_start, runs_dir)


def save_cell(cell, committed, label_path: Path, run_meta: dict, args, primal: dict,
              bound: dict, started, load_start, runs_dir: Path) -> dict:
    """Write the cell's best partition if it beats the committed label file
    (verified first), check the file, and append the run to the cell's record."""
    data, k, data_path = cell.data, cell.k, cell.data_path
    sse, labels, index = cell.best
    written = committed is None or sse < committed[1]["sse"] * (1 - REL_TOL)
    if written:  # verify a candidate file first: a failed check never replaces a good file
        candidate = label_path.with_name(f".{label_path.name}.candidate")
        atomic_write_text(candidate, labels_text(labels))
        try:
            check = check_label_file(data_path, candidate, k)
            if not check["ok"]:
                raise SystemExit(f"casc: the new partition of {data} k={k} failed "
                                 f"verification: {json.dumps(check)}")
            os.replace(candidate, label_path)
        finally:
            candidate.unlink(missing_ok=True)
        log(f"wrote {rel(label_path)}")
    else:
        log(f"kept {rel(label_path)}: IL {committed[1]['il']:.6f} is not worse than this run's")
    check = check_label_file(data_path, label_path, k)
    if not check["ok"]:
        raise SystemExit(f"casc: {rel(label_path)} failed verification: {json.dumps(check)}")
    best_stage = cell.stages[index]
    run = {
        **run_meta,
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "loadavg_start": load_start, "loadavg_end": list(os.getloadavg()),
        "data": {"name": data, "path": rel(data_path), "sha256": sha256_file(data_path),
                 "n": int(cell.inst.X.shape[0]), "p": int(cell.inst.X.shape[1])},
        "k": k,
        "parameters": {"budget_primal": args.budget_primal, "budget_bound": args.budget_bound,
                       "budget_polish": args.polish, "seed": args.seed, "quick": args.quick,
                       "polish_groups": args.polish_groups,
                       "polish_move_time": args.polish_move_time,
                       "polish_seed": args.polish_seed,
                       "polish_guide": args.polish_guide,
                       "workers": args.workers, "bp_options": args.bp_options,
                       "initial": None if args.initial is None else rel(args.initial_path),
                       "initial_note": args.initial_note or None},
        "primal": primal, "bound": bound, "stages": cell.stages,
        "best": {"stage": index, "role": best_stage["role"], "method": best_stage["method"],
                 "sse": sse, "il": 100 * sse / check["independent"]["sst"],
                 "labels_sha256": labels_sha(labels)},
        "label_file": {**check, "written": written,
                       "previous_il": None if committed is None else committed[1]["il"]},
    }
    record_path = runs_dir / f"{data}_k{k}.json"
    record = load_record(record_path) or {"data": data, "k": k, "runs": []}
    record["runs"].append(run)
    atomic_write_text(record_path, json.dumps(record, indent=1) + "\n")
    log(f"{data} k={k}: best IL {run['best']['il']:.6f} ({best_stage['method']}), "
        f"bound IL {bound.get('il')}, label file IL {check['independent']['il']:.6f}; "
        f"record {rel(record_path)}")
    return run


def polish_cell(data: str, k: int, data_path: Path, args, run_meta: dict, solutions: Path,
                runs_dir: Path) -> dict:
    """``--polish T``: the committed label file, then merge-and-resplit search (a
    third of T) and exact neighbourhood search (the rest); no bound stage."""
    started = datetime.now(timezone.utc)
    load_start = list(os.getloadavg())
    cell = Cell(data, k, data_path)
    label_path = solutions / f"{data}_k{k}.csv"
    committed = committed_partition(label_path, data_path, k)
    if committed is None and args.initial is None:
        raise SystemExit(f"casc: --polish needs the label file {rel(label_path)}")
    t0 = time.perf_counter()
    if args.initial is not None:     # --initial FILE: polish that partition instead
        source = cell.given(args.initial[k], args.initial_path, args.initial_note)
        origin, start_labels, start_from = None, args.initial[k], rel(args.initial_path)
    else:
        record = load_record(runs_dir / f"{data}_k{k}.json") or {"runs": []}
        producer = find_producer(record["runs"], labels_sha(committed[0]))
        origin = stage_label(producer[1], producer[0]["stages"]) if producer else "label file"
        source, start_labels, start_from = None, committed[0], rel(label_path)
    start = mipagg.Partition(start_labels, cell.inst.X)
    exact_options = {"groups": args.polish_groups, "move_time": args.polish_move_time}
    if args.polish_guide == "lp":
        # the root LP's record-pair weights replace the merge-split step
        exact_options["guide"] = "lp"
        cell.polish(start, source, "exact", budget=args.polish, source_label=origin,
                    exact_options=exact_options, seed=args.polish_seed, verbose=args.verbose)
    else:
        mid = cell.polish(start, source, "merge-split", budget=args.polish / 3,
                          source_label=origin, seed=args.polish_seed, verbose=args.verbose)
        cell.polish(mid, len(cell.stages) - 1, "exact",
                    budget=max(1.0, args.polish - (time.perf_counter() - t0)),
                    exact_options=exact_options, seed=args.polish_seed, verbose=args.verbose)
    primal = {"method": "polish", "fallback": False, "from": start_from,
              "from_sha256": labels_sha(start_labels),
              "from_il": float(start.il()),
              "wall_seconds": time.perf_counter() - t0, "best_stage": cell.best[2],
              "best_sse": cell.best[0], "best_il": cell.stages[cell.best[2]]["result"]["il"]}
    bound = {"method": None, "note": "polish run: no bound stage", "lower_bound": None}
    return save_cell(cell, committed, label_path, run_meta, args, primal, bound, started,
                     load_start, runs_dir)


def replay_cell(data: str, k: int, data_path: Path, args, run_meta: dict, solutions: Path,
                runs_dir: Path) -> bool:
    """``--replay``: rerun the bound stage behind the cell's certified bound
    (``bound_run``, or each side's when a split on the number of groups
    bounds the cell, :func:`split_stands`: same method and options, started
    from the committed label file) and append each comparison to the
    record's ``replays``; label files are never written.  False when a
    recorded proof (status ``optimal``) is not reproduced."""
    record_path = runs_dir / f"{data}_k{k}.json"
    record = load_record(record_path)
    data_sha = sha256_file(data_path)
    runs = [r for r in (record or {}).get("runs", []) if r["data"]["sha256"] == data_sha]
    bounded = [r for r in runs if r.get("bound", {}).get("lower_bound") is not None]
    whole = [r for r in bounded if not side_of(r)]
    label_path = solutions / f"{data}_k{k}.csv"
    committed = committed_partition(label_path, data_path, k)
    if committed is None:
        raise SystemExit(f"casc: --replay starts from the label file {rel(label_path)}, "
                         "which is missing or not valid")
    targets = (split_stands(bounded, runs, len(committed[0]), k)
               or ([bound_run(whole)[0]] if whole else []))
    if not targets:
        raise SystemExit(f"casc: {rel(record_path)} holds no certified bound of {data} "
                         f"k={k} on this data to replay")
    ok = [replay_run(record, run, committed, label_path, data, k, data_path, args, run_meta)
          for run in targets]
    atomic_write_text(record_path, json.dumps(record, indent=1) + "\n")
    log(f"{data} k={k}: record {rel(record_path)}")
    return all(ok)


def replay_run(record: dict, run: dict, committed, label_path: Path, data: str, k: int,
               data_path: Path, args, run_meta: dict) -> bool:
    """Rerun ``run``'s bound stage from the committed labels, append the
    comparison to ``record["replays"]``; False when its proof is not
    reproduced."""
    stage = run["stages"][run["bound"]["stage"]]
    sha, recorded_sha = labels_sha(committed[0]), run["bound"].get("initial_sha256")
    same_start = None if recorded_sha is None else sha == recorded_sha
    if same_start is False:
        log(f"{data} k={k}: the recorded bound stage started from another partition "
            f"(sha256 {recorded_sha[:12]}…) than {rel(label_path)}; the replay starts "
            "from the file")
    before = {name: old for name, (old, _) in CHANGED_DEFAULTS.items()}
    options = before | stage.get("defaults", {}) | stage["options"] | {"initial": committed[0]}
    options.pop("checkpoint", None)     # a replay writes no file (a resumed stage reads its own)
    if args.replay_budget is not None:
        options["time_limit"] = args.replay_budget
    started, load_start = datetime.now(timezone.utc), list(os.getloadavg())
    cell = Cell(data, k, data_path)
    cell.run("replay", stage["method"], options, cli=False,
             note=f"replay of the bound stage of the run started {run['started']}, "
                  f"initial = {rel(label_path)}")
    entry = cell.stages[-1]
    was, now = run["bound"], entry.get("result", {})
    tol = 1e-9 * max(1.0, abs(was["lower_bound"]))
    if was.get("status") == "optimal":
        ok = now.get("status") == "optimal" and abs(now["sse"] - was["lower_bound"]) <= tol
        verdict = "proof reproduced" if ok else "proof NOT reproduced"
    else:
        ok = True
        verdict = ("bound reproduced" if now.get("lower_bound") is not None
                   and now["lower_bound"] >= was["lower_bound"] - tol else
                   "weaker bound (a time-limited run; compare budgets and load)")
    side = describe(**side_of(run))
    replay = {**run_meta, "started": started.isoformat(timespec="seconds"),
              "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "loadavg_start": load_start, "loadavg_end": list(os.getloadavg()),
              "replay_of": run["started"], "initial_sha256": sha,
              "same_initial": same_start, "verdict": verdict, "side": side,
              "recorded": {key: was.get(key) for key in ("status", "lower_bound", "nodes",
                                                         "wall_seconds")}
              | {"time_limit": stage["options"].get("time_limit")},
              "replayed": {key: now.get(key) for key in ("status", "lower_bound", "nodes",
                                                         "sse")}
              | {"wall_seconds": entry.get("wall_seconds"),
                 "time_limit": options.get("time_limit"), "error": entry.get("error")},
              "stage": entry}
    record.setdefault("replays", []).append(replay)
    log(f"{data} k={k}{'' if side is None else ' (' + side + ')'}: {verdict}: recorded "
        f"{was.get('status')} bound {was['lower_bound']:.6f} ({was.get('nodes')} nodes, "
        f"{stage['options'].get('time_limit')} s); replayed {now.get('status')} bound "
        f"{now.get('lower_bound')} ({now.get('nodes')} nodes, {options.get('time_limit')} s)")
    return ok


def find_producer(runs: list[dict], sha: str):
    """(run, stage) of the first recorded stage whose labels have this sha256, or None."""
    return next(((run, st) for run in runs for st in run["stages"]
                 if st.get("labels_sha256") == sha), None)


def lineage(runs: list[dict], run: dict) -> list[dict]:
    """The runs behind a partition, oldest first: a polishing run started from
    the label file that an earlier run produced (found by its sha256)."""
    chain = [run]
    while chain[-1]["primal"].get("method") == "polish":
        earlier = find_producer(runs, chain[-1]["primal"]["from_sha256"])
        if earlier is None or any(earlier[0] is r for r in chain):
            break
        chain.append(earlier[0])
    return chain[::-1]


def bp_option(run: dict, name: str):
    """A ``--bp-option`` of a recorded run (None when not given)."""
    return (run["parameters"].get("bp_options") or {}).get(name)


def checkpoint_parent(path: str) -> str | None:
    """The checkpoint resumed by the run that wrote the checkpoint ``path``
    (relative to the repository), from its settings; None when not known."""
    try:
        with np.load(REPO / path, allow_pickle=False) as z:
            return json.loads(str(z["meta"]))["settings"].get("resume")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def tree_lineage(runs: list[dict], run: dict, parent_of=checkpoint_parent):
    """The runs behind a branch-and-price tree, oldest first, and the
    checkpoints on its way that no recorded run wrote (a run stopped by hand
    leaves none): a bound stage that resumed ``--bp-option resume=FILE`` goes
    on with the tree of the run that wrote FILE (``checkpoint=FILE``), or,
    without such a record, with the tree FILE itself resumed (``parent_of``)."""
    chain, unrecorded = [run], []
    resume = bp_option(run, "resume")
    while resume is not None and resume not in unrecorded:
        earlier = next((r for r in reversed(runs) if bp_option(r, "checkpoint") == resume), None)
        if earlier is None:
            unrecorded.append(resume)
            resume = parent_of(resume)
        elif any(earlier is r for r in chain):
            break
        else:
            chain.append(earlier)
            resume = bp_option(earlier, "resume")
    return chain[::-1], unrecorded[::-1]


def tree_seconds(runs: list[dict], run: dict, parent_of=checkpoint_parent) -> float:
    """The bound stages' wall-clock seconds of every recorded run of ``run``'s tree."""
    if bp_option(run, "resume") is None:
        return run["bound"]["wall_seconds"]
    return sum(r["bound"]["wall_seconds"] for r in tree_lineage(runs, run, parent_of)[0])


def tree_fields(runs: list[dict], run: dict) -> dict:
    """A resumed tree's runs (``tree_lineage``): how many are recorded and
    how many not, their bound stages' seconds and the first recorded run's
    command; {} for a tree run from the root in one go."""
    if bp_option(run, "resume") is None:
        return {}
    tree, unrecorded = tree_lineage(runs, run)
    return {"tree_runs": len(tree), "tree_unrecorded": len(unrecorded),
            "tree_seconds": tree_seconds(runs, run), "tree_first_command": tree[0]["command"]}


def bound_run(runs: list[dict], parent_of=checkpoint_parent) -> tuple[dict, int]:
    """The run behind a cell's certified bound and how many runs reached it:
    the highest recorded bound; of the runs that tie with it (to 1e-9, e.g.
    several proofs of the optimum), the one whose tree took the least time in
    all (``tree_seconds``), the earliest of equals."""
    best = max(r["bound"]["lower_bound"] for r in runs)
    tol = 1e-9 * max(1.0, abs(best))
    tied = [r for r in runs if r["bound"]["lower_bound"] >= best - tol]
    return min(tied, key=lambda r: tree_seconds(runs, r, parent_of)), len(tied)


def side_of(run: dict) -> dict:
    """The class a bound stage was restricted to, one side of a proof split
    on the number of groups (``--bp-option max_groups=R`` or ``max_size=S``,
    :mod:`mipagg.exact.countsplit`); {} for a run on the whole problem, whose
    bound alone bounds the cell."""
    return {name: bp_option(run, name) for name in ("max_groups", "max_size")
            if bp_option(run, name) is not None}


def split_runs(runs: list[dict], n: int, k: int) -> list[dict] | None:
    """The best run (:func:`bound_run`) of each side of the split of n
    records (:func:`~mipagg.exact.countsplit.sides`), or None while a side
    has none: the least of their bounds bounds the cell."""
    best = []
    for side in sides(n, k):
        mine = [r for r in runs if side_of(r) == side]
        if not mine:
            return None
        best.append(bound_run(mine)[0])
    return best


def split_fields(runs: list[dict], split: list[dict]) -> dict:
    """The row's bound fields from the sides' best runs: the least bound,
    the sides' tree seconds and nodes added up, each side's restriction,
    tree size and commands (``bound_split``)."""
    lows = [r["bound"]["lower_bound"] for r in split]
    open_sides = [r["bound"]["status"] for r in split if r["bound"]["status"] != "optimal"]
    sides_ = [{"restriction": describe(**side_of(r)), "nodes": r["bound"].get("nodes"),
               "status": r["bound"]["status"], "lower_bound": r["bound"]["lower_bound"],
               "seconds": tree_seconds(runs, r), "command": r["command"],
               **tree_fields(runs, r)} for r in split]
    return {"lower_bound": min(lows), "bound_method": "bp, split on the number of groups",
            "bound_status": open_sides[0] if open_sides else "optimal",
            "bound_seconds": sum(d["seconds"] for d in sides_),
            "bound_nodes": sum(d["nodes"] or 0 for d in sides_),
            "bound_budget": sum(r["parameters"]["budget_bound"] for r in split),
            "bound_run_started": split[0]["started"], "bound_runs": 1, "bound_split": sides_}


def split_wins(runs: list[dict], split: list[dict], whole: list[dict]) -> bool:
    """Does the split's bound stand for the cell rather than the best run on
    the whole problem: a higher bound (1e-9 relative), or as high and its
    sides' trees took less time in all (a proof reached both ways)."""
    if not whole:
        return True
    lb, best = min(r["bound"]["lower_bound"] for r in split), bound_run(whole)[0]
    other = best["bound"]["lower_bound"]
    tol = 1e-9 * max(1.0, abs(other))
    if abs(lb - other) > tol:
        return lb > other
    return sum(tree_seconds(runs, r) for r in split) < tree_seconds(runs, best)


def split_stands(bounded: list[dict], runs: list[dict], n: int, k: int) -> list[dict] | None:
    """The sides' best runs when the split bounds the cell (:func:`split_wins`
    over the whole problem's runs among ``bounded``), else None."""
    split = split_runs(bounded, n, k)
    whole = [r for r in bounded if not side_of(r)]
    return split if split and split_wins(runs, split, whole) else None


def load_record(path: Path):
    return json.loads(path.read_text()) if path.is_file() else None


# ----------------------------------------------------------------------------------------
# the table

def stage_label(stage: dict, stages: list[dict]) -> str:
    if stage["role"] == "given":
        return f"label file {Path(stage['source_label']).name}: {stage['note']}"
    if stage["role"] == "polish":
        src = stage.get("source_stage")
        base = stage_label(stages[src], stages) if src is not None else stage["source_label"]
        name = next(name for method, name, _ in POLISH.values() if method == stage["method"])
        guided = (stage.get("options") or {}).get("guide") == "lp"
        return f"{base} + {'LP-guided ' if guided else ''}{name}"
    opts = {k: v for k, v in (stage.get("options") or {}).items()
            if k not in ("time_limit", "initial")}
    text = stage["method"] + (" " + ",".join(f"{k}={v}" for k, v in opts.items()) if opts
                              else "")
    if stage.get("seed") is not None and stage["method"] in ("tsp-mhm", "portfolio"):
        text += f" seed {stage['seed']}"
    if stage.get("improve"):
        text += f" + {stage['improve']}"
    if stage["role"] == "bound":
        text += " (rounding)"
    return text


def cell_summary(data: str, k: int, data_path: Path | None, solutions: Path,
                 runs_dir: Path) -> dict:
    bp, low = best_published(data, k), lowest_published(data, k)
    row = {"data": data, "k": k,
           "published_il": bp.il, "published_printed": bp.printed, "published_method": bp.method,
           "published_source": bp.source, "published_kind": bp.kind, "published_runs": bp.runs,
           "lowest_published_il": low.il, "lowest_published_printed": low.printed,
           "lowest_published_method": low.method, "lowest_published_source": low.source,
           "lowest_published_kind": low.kind, "lowest_published_runs": low.runs}
    record = load_record(runs_dir / f"{data}_k{k}.json")
    label_path = solutions / f"{data}_k{k}.csv"
    if record is None or not label_path.is_file() or data_path is None:
        row["status"] = "not run" if record is None else "label file or data missing"
        return row
    data_sha = sha256_file(data_path)
    runs = [r for r in record["runs"] if r["data"]["sha256"] == data_sha]
    check = check_label_file(data_path, label_path, k)
    mine = check["independent"]
    row.update(label_file=rel(label_path), label_sha256=check["sha256"], verified=check["ok"],
               checked_by=check["checked_by"], sse=mine["sse"], il=mine["il"], sst=mine["sst"],
               n=mine["n"], runs=len(runs))
    # provenance of the label file: the first stage that produced these labels (a later
    # run may return them again, e.g. a bound stage started from the committed file)
    producer = find_producer(runs, check["sha256"])
    if producer:
        run, st = producer
        row["method"] = stage_label(st, run["stages"])
        row["primal_seconds"] = run["primal"]["wall_seconds"]
        if st["role"] == "bound":    # found by the bound stage: the run up to its end
            row["primal_seconds"] += st["wall_seconds"]
        elif st["role"] == "given":  # made elsewhere (--initial): its time is not recorded
            row["primal_seconds"] = None
        row["found_by"] = st["role"]
        row["partition_run_started"] = run["started"]
        row["partition_commands"] = [r["command"] for r in lineage(runs, run)]
        row["quick"] = run["parameters"]["quick"]
    else:
        row["method"] = "unknown (no record of these labels)"
    # the best certified bound over every run on this data
    bounded = [r for r in runs if r.get("bound", {}).get("lower_bound") is not None]
    whole = [r for r in bounded if not side_of(r)]
    split = split_stands(bounded, runs, mine["n"], k)
    if split:
        row.update(split_fields(runs, split))
        row["quick"] = row.get("quick", False) or any(r["parameters"]["quick"] for r in split)
    elif whole:
        run, row["bound_runs"] = bound_run(whole)
        lb = run["bound"]["lower_bound"]
        row.update(lower_bound=lb,
                   bound_method=run["bound"]["method"], bound_status=run["bound"]["status"],
                   bound_source=run["bound"].get("bound_source"),
                   bound_seconds=run["bound"]["wall_seconds"],
                   bound_nodes=run["bound"].get("nodes"),
                   bound_budget=run["parameters"]["budget_bound"],
                   bound_run_started=run["started"], bound_command=run["command"])
        row.update(tree_fields(runs, run))
        row["quick"] = row.get("quick", False) or run["parameters"]["quick"]
    if "lower_bound" in row:
        lb = row["lower_bound"]
        row["bound_il"] = 100 * lb / mine["sst"]
        row["gap"] = max(0.0, 100 * (mine["sse"] - lb) / mine["sse"])
        row["status"] = "optimal" if row["gap"] <= 1e-6 else row["bound_status"]
    elif runs:
        last = runs[-1]["bound"]
        row["bound_seconds"] = last.get("wall_seconds")
        row["bound_budget"] = runs[-1]["parameters"]["budget_bound"]
        row["bound_method"] = last.get("method")
        row["status"] = f"no certified bound ({last.get('method')}: {last.get('status')})"
    row["beats_published"] = beats(mine["il"], low)
    return row


CSV_FIELDS = ["data", "k", "published_printed", "published_method", "published_source",
              "published_kind", "published_runs", "lowest_published_printed",
              "lowest_published_method", "lowest_published_source", "lowest_published_kind",
              "il", "sse", "sst", "method", "lower_bound", "bound_il", "gap", "beats_published",
              "primal_seconds", "bound_seconds", "bound_nodes", "bound_budget", "status", "bound_method",
              "bound_source", "label_file", "label_sha256", "verified", "checked_by", "runs",
              "quick", "tree_runs", "tree_unrecorded", "tree_seconds", "bound_runs"]


def _f(x, digits=4):
    return "–" if x is None else f"{x:.{digits}f}"


def _gap(g):
    """A gap in % with two significant decimals below 0.1 (0.0030, 0.050),
    so that an open gap never prints as 0.00; 0 for a closed one."""
    if g is None:
        return "–"
    if g <= 1e-6:
        return "0"
    return f"{g:.2f}" if g >= 0.1 else f"{g:.{1 - math.floor(math.log10(g))}f}"


def tree_runs_text(r: dict) -> str:
    """'12 runs, 11.0 h' or '3 runs, 9.9 h, and 2 stopped by hand': a resumed
    tree's recorded runs with their bound stages' time, and the runs without
    a record."""
    n, u = r["tree_runs"], r["tree_unrecorded"]
    return (f"{n} run{'s' if n > 1 else ''}, {r['tree_seconds'] / 3600:.1f} h"
            + (f", and {u} stopped by hand" if u else ""))


def tree_text(r: dict) -> str:
    """', the last run of a tree of ...; its first recorded run `...`' for a
    resumed tree (``tree_fields``), else ''."""
    if not r.get("tree_runs"):
        return ""
    return (f", the last run of a tree of {tree_runs_text(r)}; its first recorded run "
            f"`{r['tree_first_command']}`")


def _kind(kind, runs):
    return {"single": "single run", "best": f"best of {runs}", "mean": f"mean of {runs}",
            "worst": f"worst of {runs}"}[kind]


def _source(src: str) -> str:
    return src.replace("seed ", "").replace(" Table ", " T")


def write_table(rows: list[dict], out: Path, stem: str, data_dir: Path | None) -> None:
    lines = [f"<!-- made by scripts/casc.py {shlex.join(sys.argv[1:])} on "
             f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC from the records in "
             f"{rel(out / 'casc_runs')}/; mipagg {mipagg.__version__} -->", "",
             "# Best-known partitions of the CASC files", "",
             "IL = 100·SSE/SST (%) on all 13 attributes standardized to mean 0 and sample "
             "standard deviation 1. *Best published*: the lowest IL of a partition printed in "
             "the seed papers (a single run or the best of several runs; "
             "`mipagg.experiments.published`); when a published average is lower still, it "
             "is given after it. *Beats published* is `yes` when mipagg's IL is below every "
             "published value of the cell, averages included, whatever their unprinted "
             "digits.", "",
             "| data | k | best published IL (method, seed/table, kind) | mipagg best IL (method) "
             "| certified bound IL | gap % | beats published | primal s | bound s | status |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        pub = (f"{r['published_printed']} ({r['published_method']}, "
               f"{_source(r['published_source'])}, {_kind(r['published_kind'], r['published_runs'])})")
        if r["lowest_published_il"] < r["published_il"]:
            pub += (f"; mean {r['lowest_published_printed']} ({r['lowest_published_method']}, "
                    f"{_source(r['lowest_published_source'])}, "
                    f"{_kind(r['lowest_published_kind'], r['lowest_published_runs'])})")
        if "il" not in r:
            lines.append(f"| {NAMES[r['data']]} | {r['k']} | {pub} | – | – | – | – | – | – | "
                         f"{r['status']} |")
            continue
        status = r["status"] + (" (quick run)" if r.get("quick") else "")
        if r["status"] == "optimal" and r.get("bound_nodes"):   # the proof's tree size
            status += f", {r['bound_nodes']} nodes"
            if r.get("bound_runs", 1) > 1:
                status += f" (the fastest of {r['bound_runs']} proofs)"
        if r.get("tree_runs"):
            status += f" (tree: {tree_runs_text(r)})"
        if r.get("bound_split"):
            status += " (split on the number of groups: " + "; ".join(
                f"{d['restriction']}: {d['status']}, {d['nodes']} nodes, "
                + (tree_runs_text(d) if d.get("tree_runs") else f"{d['seconds'] / 3600:.2f} h")
                for d in r["bound_split"]) + ")"
        bound_s = "–" if r.get("bound_seconds") is None else f"{r['bound_seconds']:.0f}"
        primal_s = "–" if r.get("primal_seconds") is None else f"{r['primal_seconds']:.0f}"
        lines.append(
            f"| {NAMES[r['data']]} | {r['k']} | {pub} | {r['il']:.4f} ({r['method']}) | "
            f"{_f(r.get('bound_il'))} | {_gap(r.get('gap'))} | "
            f"{'yes' if r['beats_published'] else 'no'} | {primal_s} | {bound_s} | {status} |")
    done = [r for r in rows if "il" in r]
    lines += ["", "Times are wall-clock seconds of the run that found the partition (primal "
              "stage; for a partition found by the bound stage, both stages; for a partition "
              "polished by `--polish`, of the polishing run, which "
              "starts from the label file of an earlier run; none for a partition made "
              "elsewhere and brought in by `--initial FILE`, whose note in the method column "
              "says how) and of the run that found the "
              "bound (bound stage); the machine, load and every stage are in the records. "
              "A tree resumed from checkpoints (`--bp-option resume=FILE`) says in its status "
              "how many recorded runs it went through and their bound stages' hours in "
              "all, and how many runs stopped by hand, which left a checkpoint but no "
              "record and whose time is not counted (`docs/results/trees/README.md`); "
              "*bound s* is its last run's. When several runs reached the same bound (a "
              "cell proven more than once), the row shows the one whose tree took the least "
              "time in all. A bound stage restricted to one side of a split on the number of groups "
              "(`--bp-option max_groups=R` or `max_size=S`, `mipagg.exact.countsplit`) bounds "
              "the cell only together with the other side: the lesser of the two sides' best "
              "bounds, shown when it beats the best run on the whole problem (or ties it in "
              "less tree time), the status then listing each side and *bound s* their sum.",
              ""]
    lines += _notes(done, data_dir)
    atomic_write_text(out / f"{stem}.md", "\n".join(lines) + "\n")
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({f: (repr(r[f]) if isinstance(r.get(f), float) else r.get(f, ""))
                    for f in CSV_FIELDS})
    atomic_write_text(out / f"{stem}.csv", buf.getvalue())


def _notes(done: list[dict], data_dir: Path | None) -> list[str]:
    data_rel = rel(data_dir) if data_dir else "../shared/data"
    out = ["## Commands", "",
           "Every cell (quick check: `--quick`, 20 s per stage):", "", "```sh",
           "python scripts/casc.py                          # every cell, default budgets "
           f"(primal {FULL_BUDGETS[0]:.0f} s, bound {FULL_BUDGETS[1]:.0f} s per cell)",
           "python scripts/casc.py --cells census:10 --budget-primal 600 --budget-bound 3600",
           "python scripts/casc.py --table-only             # rebuild this page from the records",
           "```", ""]
    if done:
        out += ["The runs behind the table (full parameters, seeds, versions, machine and "
                "every stage with the equivalent `mipagg run` command in "
                "`docs/results/casc_runs/{data}_k{K}.json`); a partition polished by "
                "`--polish` lists every run it went through, oldest first. A bound stage "
                "records the defaults it ran with (`defaults`), which `--replay` passes; one "
                "recorded before one of `bp`'s defaults changed ran with the old value ("
                + "; ".join(f"`{name}={old}` before {day}"
                            for name, (old, day) in CHANGED_DEFAULTS.items())
                + "): its command reruns the same tree with `--bp-option` giving that value, "
                "as `--replay` does:", ""]
        for r in done:
            parts = []
            if r.get("partition_commands"):
                parts.append("partition " + ", then ".join(
                    f"`{c}`" for c in r["partition_commands"]))
            if r.get("bound_command"):
                parts.append(f"bound `{r['bound_command']}`" + tree_text(r))
            for d in r.get("bound_split", ()):
                parts.append(f"bound on the {d['restriction']} `{d['command']}`"
                             + tree_text(d))
            out.append(f"* {NAMES[r['data']]} k = {r['k']}: " + "; ".join(parts))
        out.append("")
    out += ["## Replaying a bound", "",
            "```sh",
            "python scripts/casc.py --replay --cells tarragona:5   # the recorded time limit",
            "```", "",
            "reruns the bound stage behind a cell's certified bound (the run with the highest "
            "bound in its record: same method and options, e.g. `bp` with its time limit and "
            "workers, started from the committed label file) and appends the recorded and "
            "replayed status, bound and tree size to the record's `replays`. A recorded "
            "proof (`optimal`) must come out `optimal` with the same SSE, or the command "
            "exits 1; a time-limited bound depends on the machine and its load, so a replay "
            "reports whether it reached the recorded bound. Label files are never written, "
            "nor tree checkpoints; a bound stage that resumed a tree (`--bp-option "
            "resume=FILE`, a checkpoint under `docs/results/trees/`) resumes it again. "
            "An option whose default has changed since the stage was recorded gets the "
            "value the stage ran with. When a split on the number of groups bounds the "
            "cell, the replay reruns the bound stage of each side's best run in turn.",
            ""]
    out += ["## What the bound certifies", "",
            "The certified bound LB is a lower bound on the SSE of *every* k-partition of "
            "the standardized file (the optimum included): the LP bound of the column "
            "generation master problem proven by exact pricing (`bound_source` `lp`), a "
            "Lagrangian bound at exactly priced duals (`lagrangian`), or the bound of a "
            "closed branch-and-price tree. The gap 100·(SSE − LB)/SSE (seed 001, formula "
            "(15)) therefore bounds how far the best-known partition can be from optimal; "
            "`optimal` means the gap is closed: a closed tree cut off every node at a "
            "bound within the relative tolerance 10⁻⁶ (`gap_tol`) of the best SSE, so no "
            "partition is more than 0.0001 % better, and the bound recorded is that SSE "
            "(`mipagg tree CHECKPOINT` prints the least bound of the nodes cut off). "
            "A run stopped by its time limit still "
            "reports only a certified bound (`time_limit`); `converged` means the LP bound "
            "is certified and a gap is left.", "",
            "## How to verify a label file", "",
            "The files in `instances/solutions/` hold group labels only (header `group`, one "
            "label per record, input order); the data are never committed. With the CASC "
            "files in `../shared/data`:", "", "```sh",
            f"mipagg verify {data_rel}/census.csv instances/solutions/census_k3.csv -k 3 --json",
            "```", "",
            "prints feasibility, SSE, SST and IL recomputed from the two files alone, and "
            "exits 1 if a group has fewer than k records. Without mipagg, in numpy:", "",
            "```python",
            "import numpy as np",
            f"X = np.loadtxt('{data_rel}/census.csv', delimiter=',', skiprows=1)",
            "g = np.loadtxt('instances/solutions/census_k3.csv', skiprows=1, dtype=int)",
            "Z = (X - X.mean(0)) / X.std(0, ddof=1)",
            "assert np.bincount(g).min() >= 3",
            "sse = sum(((Z[g == c] - Z[g == c].mean(0)) ** 2).sum() for c in np.unique(g))",
            "print(100 * sse / (Z ** 2).sum())   # IL in %",
            "```", "",
            "`tests/test_solutions.py` checks every committed label file this way against "
            "`casc.csv` and the records (to 1e-6).", ""]
    out += ["## Methods used", "",
            "Primal: `mipagg.microaggregate(inst, k, \"portfolio\", time_limit=P, seed=S)`; "
            "runs made while the portfolio method was not registered used a fixed list "
            "instead (each + `improve=\"local\"`): tsp-mhm with an LKH tour (seed S), "
            "mdav-lk-mhm, compress with c = 2, 3, 5, then tsp-mhm with seeds S+1, S+2, … "
            "while P lasts; the record of each run says which (`primal.fallback`). Bound: "
            "`microaggregate(inst, k, \"bp\", time_limit=B, initial=<best partition>)`, or "
            "`\"cg\"` (column generation) while branch-and-price is not registered "
            "(`bound.method`); the partition of the bound stage, polished by local search, "
            "competes with the primal ones. Polishing runs (`--polish T`) start from the "
            "committed label file: merge-and-resplit search for T/3 seconds "
            "(`mipagg.improve.merge_split_search`, seed 0 unless `--polish-seed` says "
            "otherwise), then exact neighbourhood "
            "search for the rest (`mipagg.exact.neighbourhood`: each group with its G − 1 "
            "nearest groups re-partitioned optimally by branch-and-price within S seconds, "
            "POPMUSIC order with the same seed; G = 8 and S = 30 unless `--polish-groups` and "
            "`--polish-move-time` say otherwise, as the run's command and record show). "
            "A label file is replaced only by a strictly better partition."]
    return out + [""]


def build_table(data_dir: Path | None, solutions: Path, runs_dir: Path, out: Path,
                stem: str) -> list[dict]:
    rows = []
    for data in DATASETS:
        path = data_dir / f"{data}.csv" if data_dir else None
        for k in KS:
            rows.append(cell_summary(data, k, path if path and path.is_file() else None,
                                     solutions, runs_dir))
    write_table(rows, out, stem, data_dir)
    log(f"wrote {rel(out / stem)}.md/.csv")
    return rows


# ----------------------------------------------------------------------------------------

def parse_bp_options(items: list[str]) -> dict:
    """``--bp-option KEY=VALUE`` items as a dict of branch-and-price options
    (:func:`mipagg.exact.settings.parse_options`; the script sets
    ``time_limit``, ``workers`` and ``scheduler`` itself).  ValueError for a
    bad key or value.

    >>> parse_bp_options(["max_cut_rounds=40", "tail_off=0", "aggregation=on"])
    {'max_cut_rounds': 40, 'tail_off': 0, 'aggregation': 'on'}
    """
    from mipagg.exact.settings import BPSettings, parse_options

    return parse_options(items, BPSettings, flag="--bp-option",
                         reserved=("time_limit", "workers", "scheduler"))


def parse_cells(text: str | None) -> list[tuple[str, int]]:
    if not text:
        return [(d, k) for d in DATASETS for k in KS]
    cells = []
    for item in text.split(","):
        try:
            data, k = item.strip().split(":")
            data, k = data.strip().lower(), int(k)
        except ValueError:
            raise SystemExit(f"casc: bad cell {item!r}; write data:k, e.g. census:3") from None
        if data not in DATASETS or k not in KS:
            raise SystemExit(f"casc: cell {item!r} not in the table ({DATASETS} × {KS})")
        cells.append((data, k))
    return cells


def given_partition(args, cells: list[tuple[str, int]], data_dir: Path):
    """``--initial FILE``: ({k: labels}, path) after checking, before any stage
    runs, that FILE is a k-feasible label file of the one cell asked for;
    (None, None) without it.  ValueError says what is wrong."""
    if args.initial is None:
        if args.initial_note:
            raise ValueError("--initial-note needs --initial FILE")
        return None, None
    if args.replay:
        raise ValueError("--replay starts from the committed label file; drop --initial")
    if len(cells) != 1:
        raise ValueError("--initial FILE needs exactly one cell (--cells data:k)")
    (data, k), path = cells[0], args.initial
    if not path.is_file():
        raise ValueError(f"--initial: no such file {path}")
    try:
        labels = read_labels(path)
        rep = recompute(data_dir / f"{data}.csv", labels, k)
    except (OSError, ValueError) as exc:
        raise ValueError(f"--initial: {path} is not a label file of {data}: {exc}") from None
    if not rep["feasible"]:
        raise ValueError(f"--initial: {path} is not a {k}-partition of {data} "
                         "(a group has fewer than k records)")
    return {k: labels}, path.resolve()


def main(argv=None) -> int:
    default_data = REPO.parent / "shared" / "data"
    ap = argparse.ArgumentParser(prog="casc", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data_dir", nargs="?", type=Path, default=default_data,
                    help=f"directory of census.csv / tarragona.csv (default: {rel(default_data)})")
    ap.add_argument("--quick", action="store_true",
                    help=f"small budgets ({QUICK_BUDGETS[0]:.0f} s / {QUICK_BUDGETS[1]:.0f} s)")
    ap.add_argument("--cells", help="comma-separated data:k, e.g. census:3,tarragona:5 "
                                    "(default: all ten)")
    ap.add_argument("--budget-primal", type=float, metavar="SECONDS",
                    help=f"primal budget per cell (default {FULL_BUDGETS[0]:.0f}, quick "
                         f"{QUICK_BUDGETS[0]:.0f})")
    ap.add_argument("--budget-bound", type=float, metavar="SECONDS",
                    help=f"bound time limit per cell (default {FULL_BUDGETS[1]:.0f}, quick "
                         f"{QUICK_BUDGETS[1]:.0f})")
    ap.add_argument("--seed", type=int, default=0, help="seed of the primal stage (default 0)")
    ap.add_argument("--workers", type=int, default=1, metavar="N",
                    help="bound stage: bp's tree on N processes (default 1)")
    ap.add_argument("--bp-option", action="append", default=[], metavar="KEY=VALUE",
                    help="bound stage: a further option of branch_and_price, e.g. "
                         "max_cut_rounds=40 or tail_off=0 (repeatable; recorded)")
    ap.add_argument("--verbose", action="store_true",
                    help="the bound stage's (or --polish's searches') progress lines on "
                         "stderr")
    ap.add_argument("--polish", type=float, metavar="SECONDS",
                    help="instead of the primal and bound stages: polish the committed label "
                         "file (merge-and-resplit search, then exact neighbourhood search) "
                         "for this many seconds per cell")
    ap.add_argument("--polish-groups", type=int, default=8, metavar="G",
                    help="--polish: groups per sub-problem of the exact neighbourhood search "
                         "(each group with its G - 1 nearest; default 8)")
    ap.add_argument("--polish-move-time", type=float, default=30.0, metavar="SECONDS",
                    help="--polish: time limit of each sub-problem (default 30)")
    ap.add_argument("--polish-guide", choices=("distance", "lp"), default="distance",
                    help="--polish: sub-problems of nearest groups after merge-split search "
                         "(distance, the default), or of the groups that bp's root master LP "
                         "links (lp: mipagg.exact.guide.lp_affinity from the committed "
                         "partition, its time counted in the budget, no merge-split step)")
    ap.add_argument("--polish-seed", type=int, default=0, metavar="N",
                    help="--polish: seed of both searches (the order in which groups are "
                         "visited; default 0)")
    ap.add_argument("--initial", type=Path, metavar="FILE",
                    help="one cell only: a label file made elsewhere (header group, one label "
                         "per record), recorded as a stage of its own; the bound stage (or "
                         "--polish) starts from it when it is the best partition at hand")
    ap.add_argument("--initial-note", default="", metavar="TEXT",
                    help="--initial: how the label file was made (recorded, shown in the "
                         "table)")
    ap.add_argument("--replay", action="store_true",
                    help="instead of the stages: rerun the bound stage behind each cell's "
                         "certified bound with its recorded options, from the committed "
                         "label file, and record the comparison (exit 1 when a recorded "
                         "proof is not reproduced); --budget-bound or --quick shorten it")
    ap.add_argument("--table-only", action="store_true",
                    help="only rebuild casc.md / casc.csv from the records")
    ap.add_argument("--out", type=Path, default=OUT, help="directory of casc.md/.csv and "
                    "casc_runs/ (default: docs/results)")
    ap.add_argument("--solutions", type=Path, default=SOLUTIONS,
                    help="directory of the label files (default: instances/solutions)")
    args = ap.parse_args(argv)
    try:                                 # a bad option fails before any stage runs
        args.bp_options = parse_bp_options(args.bp_option)
    except ValueError as exc:
        print(f"casc: {exc}", file=sys.stderr)
        return 2
    args.replay_budget = QUICK_BUDGETS[1] if args.quick else args.budget_bound
    budgets = QUICK_BUDGETS if args.quick else FULL_BUDGETS
    args.budget_primal = budgets[0] if args.budget_primal is None else args.budget_primal
    args.budget_bound = budgets[1] if args.budget_bound is None else args.budget_bound
    data_dir = args.data_dir if args.data_dir and Path(args.data_dir).is_dir() else None
    runs_dir = args.out / "casc_runs"
    if args.table_only and (args.initial is not None or args.initial_note):
        print("casc: --table-only runs no stage; drop --initial", file=sys.stderr)
        return 2
    if not args.table_only:
        if data_dir is None:
            print(f"casc: data directory not found ({args.data_dir}); give it as the first "
                  "argument", file=sys.stderr)
            return 2
        cells = parse_cells(args.cells)
        meta = {"command": shlex.join(["python", "scripts/casc.py"] + list(
                    sys.argv[1:] if argv is None else argv)),
                "versions": versions(), "git": git_info(), "machine": machine(),
                "methods_registered": {"portfolio": "portfolio" in METHODS,
                                       "bp": "bp" in METHODS}}
        if args.polish is not None and not args.polish > 0:
            print("casc: --polish needs a positive number of seconds", file=sys.stderr)
            return 2
        if args.polish_groups < 2 or not args.polish_move_time > 0:
            print("casc: --polish-groups needs at least 2 groups and --polish-move-time a "
                  "positive number of seconds", file=sys.stderr)
            return 2
        try:
            args.initial, args.initial_path = given_partition(args, cells, data_dir)
        except ValueError as exc:
            print(f"casc: {exc}", file=sys.stderr)
            return 2
        if args.replay:
            ok = [replay_cell(data, k, data_dir / f"{data}.csv", args, meta, args.solutions,
                              runs_dir) for data, k in cells]
            return 0 if all(ok) else 1
        for data, k in cells:
            run = (polish_cell if args.polish else run_cell)(
                data, k, data_dir / f"{data}.csv", args, meta, args.solutions, runs_dir)
            if run["bound"].get("status") == "interrupted":
                log(f"{data} k={k}: interrupted; the cells after it are not run")
                break
    build_table(data_dir, args.solutions, runs_dir, args.out, "casc")
    return 0


if __name__ == "__main__":
    sys.exit(main())
