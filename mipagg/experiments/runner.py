"""Run a grid: serially, on local processes or on a Dask cluster, resumably.

:func:`run_grid` expands a :class:`~mipagg.experiments.grid.Grid`, skips the
runs already in the :class:`~mipagg.experiments.store.ResultStore`, executes
the others and stores each one as soon as it finishes (only this process
writes to SQLite).  Every run goes through :func:`mipagg.api.microaggregate`.

* A run that raises is stored with status ``failed`` and its error; the grid
  goes on.
* With a time limit, each run executes in a child process that is killed at
  the hard wall-clock limit; it is stored with status ``timeout``.
* Executors: ``jobs=1`` runs in this process; ``jobs=N`` uses a
  ``ProcessPoolExecutor`` with N workers (default: all cores);
  ``scheduler="ADDRESS"`` submits to an existing Dask scheduler and
  ``scheduler="local"`` starts a Dask ``LocalCluster`` for the grid.

Because methods take their randomness from the run's seed only, the three
executors give identical results.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import json
import multiprocessing as mp
import os
import pickle
import socket
import subprocess
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from .. import __version__
from ..errors import ConstantColumnWarning, ParameterError
from ..exact.highs import release_solver_threads
from ..instance import Instance
from .grid import Grid, Run, instance_fingerprint, load_target
from .store import ResultStore

__all__ = ["run_grid", "execute", "GridOutcome", "StopGrid"]


class StopGrid(Exception):
    """Raise from an ``on_result`` callback to stop the grid cleanly."""


@dataclass
class GridOutcome:
    """What :func:`run_grid` did."""

    total: int = 0
    skipped: int = 0
    executed: list[str] = field(default_factory=list)  # keys run now, in completion order
    ok: int = 0
    failed: int = 0
    timeout: int = 0
    interrupted: bool = False
    missing_methods: list[str] = field(default_factory=list)
    bounds: dict | None = None      # {"computed": n, "reused": m} (grid bounds)

    def line(self) -> str:
        s = (f"{self.total} runs: {self.skipped} already stored, {len(self.executed)} run now "
             f"({self.ok} ok, {self.failed} failed, {self.timeout} timeout)")
        if self.missing_methods:
            s += f"; skipped unregistered method(s) {', '.join(self.missing_methods)}"
        if self.interrupted:
            s += f"; interrupted, {self.total - self.skipped - len(self.executed)} left"
        if self.bounds:
            s += (f"; certified bounds: {self.bounds['computed']} computed, "
                  f"{self.bounds['reused']} stored")
        return s


# ---------------------------------------------------------------- one run

def _base_record(run: Run, inst: Instance) -> dict:
    return {"key": run.key, "grid": run.grid, "dataset": run.dataset, "instance": run.instance,
            "fingerprint": run.fingerprint, "n": inst.n, "p": inst.p, "method": run.method,
            "label": run.label, "options": run.options, "improve": run.improve, "k": run.k,
            "seed": run.seed, "version": __version__, "host": socket.gethostname()}


def _call_target(run: Run, inst: Instance):
    """Call a reference function ``module:function`` and wrap it as a RunResult."""
    import inspect

    from ..api import RunResult
    from ..partition import Partition
    from ..validation import check_k

    fn = load_target(run.target)
    k = check_k(run.k, inst.n)
    kwargs = dict(run.options)
    if run.seed is not None and "seed" in inspect.signature(fn).parameters:
        kwargs["seed"] = run.seed
    t0 = time.perf_counter()
    out = fn(inst.X, k, **kwargs)
    seconds = time.perf_counter() - t0
    if isinstance(out, tuple):
        parts = [o for o in out if isinstance(o, Partition)]
        if not parts:
            raise TypeError(f"{run.target} returned a tuple without a Partition")
        out = parts[0]
    if isinstance(out, Partition):
        partition, details = out, {}
    else:
        partition, details = out.partition, dict(out.summary())
    if not partition.is_feasible(k):
        raise RuntimeError(f"{run.target} returned a partition that is not {k}-feasible")
    return RunResult(run.method, k, partition, seconds, kwargs, details, out)


def _execute_here(run: Run, inst: Instance) -> dict:
    rec = _base_record(run, inst)
    t0 = time.perf_counter()
    try:
        if run.target:
            result = _call_target(run, inst)
        else:
            from ..api import microaggregate

            result = microaggregate(inst, run.k, run.method, seed=run.seed,
                                    improve=run.improve, improve_options=run.improve_options,
                                    **run.options)
        summary = result.summary()
        rec.update(status="ok", labels=result.labels, summary=summary,
                   **{c: summary.get(c) for c in ("sse", "sst", "il", "lower_bound", "gap",
                                                  "groups", "min_group", "max_group",
                                                  "seconds")})
        rec["version"] = summary.get("version", __version__)
    except Exception as exc:  # a crashing run is recorded, never propagated
        rec.update(status="failed", error=f"{type(exc).__name__}: {exc}",
                   summary={"traceback": traceback.format_exc(limit=20)})
    rec["wall_seconds"] = time.perf_counter() - t0
    rec["finished_at"] = _now()
    return rec


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _child(run: Run, inst: Instance, conn) -> None:
    try:
        conn.send(_execute_here(run, inst))
    finally:
        conn.close()


def _dead(run: Run, inst: Instance, status: str, error: str, t0: float) -> dict:
    rec = _base_record(run, inst)
    rec.update(status=status, error=error, wall_seconds=time.perf_counter() - t0,
               finished_at=_now())
    return rec


def _timed_out(run: Run, inst: Instance, t0: float) -> dict:
    return _dead(run, inst, "timeout", f"killed after {run.hard_limit:g} s", t0)


@functools.lru_cache(maxsize=None)
def _warm_up(method: str, options: str, improve: str | None, k: int, p: int) -> None:
    """Run the method once here on a tiny random instance, so that its modules
    are imported and its compiled kernels loaded before the timed run: the
    first run in a worker does not pay the numba cache load (about a second),
    and forked children (hard time limit) do not each pay it.  Errors are left
    to the real run to report."""
    rng = np.random.default_rng(0)
    tiny = Instance(rng.normal(size=(2 * k + 1, p)), tuple(f"x{j}" for j in range(p)), "warm-up")
    probe = Run("warm-up", "", "", "warm-up", "", method, method, json.loads(options), improve,
                k, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _execute_here(probe, tiny)


def _preload(run: Run, inst: Instance) -> None:
    if run.target:  # reference functions: import only (no unlimited call in this process)
        try:
            load_target(run.target)
        except Exception:  # the child reports the error
            pass
        return
    _warm_up(run.method, json.dumps(run.options, sort_keys=True, default=str), run.improve,
             run.k, inst.p)


def _execute_forked(run: Run, inst: Instance) -> dict:
    ctx = mp.get_context("fork")
    release_solver_threads()
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(run, inst, send), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    send.close()
    try:
        if not recv.poll(run.hard_limit):
            return _timed_out(run, inst, t0)
        try:
            rec = recv.recv()
            rec["wall_seconds"] = time.perf_counter() - t0
            return rec
        except EOFError:
            proc.join(1.0)
            return _dead(run, inst, "failed",
                         f"child process died (exit code {proc.exitcode})", t0)
    finally:
        recv.close()
        if proc.is_alive():
            proc.kill()
        proc.join()


def _execute_subprocess(run: Run, inst: Instance) -> dict:
    """Isolation where forking is not allowed (e.g. daemonic Dask worker processes)."""
    t0 = time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-m", "mipagg.experiments.runner"],
                             input=pickle.dumps((run, inst)), capture_output=True,
                             timeout=run.hard_limit)
    except subprocess.TimeoutExpired:
        return _timed_out(run, inst, t0)
    if out.returncode != 0 or not out.stdout:
        err = out.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        return _dead(run, inst, "failed",
                     f"child process died (exit code {out.returncode}) {err[0]}".strip(), t0)
    return pickle.loads(out.stdout)


def execute(run: Run, inst: Instance) -> dict:
    """Execute one run and return its record; never raises.

    Without a hard limit the run executes here; with one, in a child process
    killed when the limit is reached (status ``timeout``).  A registered
    method is first warmed up once per process (see :func:`_warm_up`).
    """
    _preload(run, inst)
    if run.hard_limit is None:
        return _execute_here(run, inst)
    if os.name == "posix" and not mp.current_process().daemon:
        return _execute_forked(run, inst)
    return _execute_subprocess(run, inst)


# ---------------------------------------------------------------- executors

def _serial(todo, instances) -> Iterator[dict]:
    for run in todo:
        yield execute(run, instances[run.fingerprint])


def _processes(todo, instances, jobs: int) -> Iterator[dict]:
    ctx = mp.get_context("fork") if os.name == "posix" else None
    release_solver_threads()  # the workers are forked from this process
    ex = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx)
    try:
        futures = [ex.submit(execute, run, instances[run.fingerprint]) for run in todo]
        for fut in cf.as_completed(futures):
            yield fut.result()
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _dask(todo, instances, scheduler, jobs: int | None) -> Iterator[dict]:
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if isinstance(scheduler, Client):
        client, own = scheduler, False
    elif scheduler in ("local", "dask"):
        import dask

        # non-daemonic workers may fork the child process of a hard time limit
        with dask.config.set({"distributed.worker.daemon": False}):
            cluster = LocalCluster(n_workers=jobs or os.cpu_count() or 1, threads_per_worker=1,
                                   processes=True, dashboard_address=":0")
        client, own = Client(cluster), True
    else:
        client, own = Client(scheduler), True
    futures = []
    try:
        scattered = dict(zip(instances, client.scatter(list(instances.values()))))
        futures = [client.submit(execute, run, scattered[run.fingerprint], pure=False)
                   for run in todo]
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.cancel(futures)
        if own:
            client.close()
            if cluster is not None:
                cluster.close()


# ---------------------------------------------------------------- the grid

def run_grid(grid: Grid, db: str | Path | ResultStore = "results.sqlite", *,
             jobs: int | None = None, scheduler=None, progress: bool = True,
             retry: tuple[str, ...] = (), on_result: Callable | None = None) -> GridOutcome:
    """Run every run of ``grid`` not yet in ``db``; return a :class:`GridOutcome`.

    ``jobs``: 1 = in this process, N = N local worker processes, None = all
    cores.  ``scheduler``: a Dask scheduler address, ``"local"`` (start a
    ``LocalCluster`` with ``jobs`` workers) or a ``distributed.Client``.
    ``retry``: statuses to run again (e.g. ``("failed", "timeout")``).
    ``on_result(record, outcome)`` is called after each stored run; raising
    :class:`StopGrid` in it (or Ctrl-C) stops the grid, keeping what is stored.
    """
    bad = sorted(set(retry) - {"failed", "timeout"})
    if bad:
        raise ParameterError(f"retry takes 'failed' and/or 'timeout', not {bad}")
    own = not isinstance(db, ResultStore)
    store = ResultStore(db) if own else db
    try:
        return _run(grid, store, jobs, scheduler, progress, retry, on_result)
    finally:
        if own:
            store.close()


def _run(grid, store, jobs, scheduler, progress, retry, on_result) -> GridOutcome:
    loaded = grid.load_instances()
    _, missing = grid.available_methods()
    runs = grid.runs(loaded)
    instances = {}
    for dataset, inst in loaded:
        fp = instance_fingerprint(inst)
        instances[fp] = inst
        store.add_instance(dataset, inst, fp)
    done = store.done_keys(tuple(s for s in ("ok", "failed", "timeout") if s not in retry))
    todo = [r for r in runs if r.key not in done]
    out = GridOutcome(total=len(runs), skipped=len(runs) - len(todo),
                      missing_methods=sorted(set(missing)))
    if jobs is None:
        jobs = os.cpu_count() or 1
    if scheduler is not None:
        results = _dask(todo, instances, scheduler, jobs)
    elif jobs <= 1 or len(todo) <= 1:
        results = _serial(todo, instances)
    else:
        results = _processes(todo, instances, jobs)

    from tqdm import tqdm

    bar = tqdm(total=out.total, initial=out.skipped, desc=grid.name, unit="run",
               file=sys.stderr, disable=not progress or not todo, dynamic_ncols=True)
    try:
        for rec in results:
            store.add(rec)
            out.executed.append(rec["key"])
            setattr(out, rec["status"], getattr(out, rec["status"]) + 1)
            bar.update(1)
            if out.failed or out.timeout:
                bar.set_postfix(failed=out.failed, timeout=out.timeout, refresh=False)
            if on_result is not None:
                on_result(rec, out)
    except (StopGrid, KeyboardInterrupt):
        out.interrupted = True
    finally:
        results.close()
        bar.close()
    if grid.bounds and not out.interrupted:   # one certified bound per instance and k
        from .bounds import compute_bounds

        try:
            out.bounds = compute_bounds(grid, store, loaded, progress=progress)
        except KeyboardInterrupt:
            out.interrupted = True
    return out


def _child_main() -> int:
    """``python -m mipagg.experiments.runner``: run one pickled (run, instance)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantColumnWarning)
        run, inst = pickle.loads(sys.stdin.buffer.read())
    sys.stdout.flush()
    result_fd = os.dup(1)
    os.dup2(2, 1)  # anything the method prints goes to stderr, not into the pickle
    record = _execute_here(run, inst)
    with os.fdopen(result_fd, "wb") as fh:
        fh.write(pickle.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
