"""Experiment grids: instance sets × methods × values of k × seeds.

A :class:`Grid` names what to run; :meth:`Grid.runs` expands it into
:class:`Run` objects, each identified by a stable ``key`` (a hash of the
instance name and data fingerprint, the method, its options, k and the seed),
so a results store can tell which runs are already finished.

Grids are written in Python or in a small TOML file::

    name = "demo"
    k = [3, 4]
    seeds = [0, 1]            # or: repeats = 5  (seeds 0..4)
    time_limit = 60           # seconds per run (see Grid)
    data_dir = "../shared/data"   # optional; relative to this file

    [[instances]]
    csv = "census.csv"        # one instance (all columns unless `columns`)

    [[instances]]
    subsets = "tarragona.csv" # seed 001 §6 subsets (mipagg.subsets.paper_subsets)
    sizes = [30, 40]
    criteria = ["random", "norm"]
    count = 5

    [[instances]]
    generator = "simu"        # simu | simc | normal_small (mipagg.generators)
    seeds = [0, 1, 2]
    n = 200
    p = 10

    [[methods]]
    name = "mdav"

    [[methods]]
    name = "tsp-mhm"
    label = "TSP-MHM"
    sweep = { tour = ["nn", "2opt"] }   # one entry per value

    [[methods]]
    name = "mdav"
    improve = "rcs"                     # post-processing, with its options
    improve_options = { probability = 0.001, max_events = 10 }

A top-level ``bounds = { method = "bp", time_limit = 600 }`` adds one
certified lower bound per instance and k, stored once (see
:mod:`mipagg.experiments.bounds`, ``mipagg report DB --table gaps``).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import itertools
import json
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from ..api import checked_improve_options
from ..errors import ConstantColumnWarning, ParameterError
from ..instance import Instance, read_csv
from ..methods import user_options

__all__ = ["Grid", "MethodEntry", "CsvSet", "SubsetSet", "GeneratorSet", "InstanceList",
           "Run", "load_grid", "load_target", "instance_fingerprint", "GridError"]

# Hard wall-clock limit when only a per-run time_limit is given: the method is
# asked to stop at time_limit; the child process is killed at this much later.
HARD_LIMIT_FACTOR = 1.5
HARD_LIMIT_GRACE = 10.0


class GridError(ParameterError):
    """A grid declaration (TOML file or Python object) is invalid."""


def instance_fingerprint(inst: Instance) -> str:
    """Short hash of the raw key values, column names and ddof of ``inst``."""
    h = hashlib.sha1()
    h.update(json.dumps([list(inst.columns), inst.ddof, list(inst.raw.shape)]).encode())
    h.update(np.ascontiguousarray(inst.raw, dtype="<f8").tobytes())
    return h.hexdigest()[:16]


def _lean(inst: Instance) -> Instance:
    """A copy without the original text table (cheap to pickle to workers)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantColumnWarning)
        return Instance(inst.raw, inst.columns, inst.name, dict(inst.provenance), inst.ddof)


def _resolve(path, data_dir: Path | None) -> Path:
    path = Path(path)
    if not path.is_absolute() and data_dir is not None:
        path = Path(data_dir) / path
    return path


# ---------------------------------------------------------------- instance sets

@dataclass(frozen=True)
class CsvSet:
    """One CSV file (key ``columns`` optional) as one instance."""

    path: str
    columns: tuple[str, ...] | None = None
    name: str | None = None

    def load(self, data_dir: Path | None = None) -> list[tuple[str, Instance]]:
        inst = read_csv(_resolve(self.path, data_dir), columns=self.columns, name=self.name)
        return [(inst.name, _lean(inst))]


@dataclass(frozen=True)
class SubsetSet:
    """Paper-style subsets of a CSV file (seed 001 §6): sizes × criteria × count."""

    path: str
    sizes: tuple[int, ...] = (30, 40, 50, 100, 200)
    criteria: tuple[str, ...] = ("consecutive", "random", "norm", "centroid")
    count: int = 5
    seed: int = 0
    columns: tuple[str, ...] | None = None
    name: str | None = None

    def load(self, data_dir: Path | None = None) -> list[tuple[str, Instance]]:
        from ..subsets import paper_subsets

        parent = read_csv(_resolve(self.path, data_dir), columns=self.columns, name=self.name)
        subs = paper_subsets(parent, sizes=tuple(self.sizes), criteria=tuple(self.criteria),
                             count=self.count, seed=self.seed)
        return [(parent.name, _lean(s)) for s in subs]


# generator -> parameters it takes besides the seed
GENERATORS = {"simu": {"n", "p"}, "simc": {"p", "clusters"}, "normal_small": {"n", "p"},
              "lognormal": {"n", "p", "sigma", "rho", "counts", "count_scale"}}


@dataclass(frozen=True)
class GeneratorSet:
    """Simulated instances from :mod:`mipagg.generators`, one per seed."""

    kind: str
    seeds: tuple[int, ...] = (0,)
    params: dict = field(default_factory=dict)
    name: str | None = None

    def __post_init__(self):
        if self.kind not in GENERATORS:
            raise GridError(f"unknown generator {self.kind!r}; known: {sorted(GENERATORS)}")
        unknown = sorted(set(self.params) - GENERATORS[self.kind])
        if unknown:
            raise GridError(f"generator {self.kind!r} does not take {unknown}; it takes "
                            f"{sorted(GENERATORS[self.kind])} and the seeds")

    @property
    def label(self) -> str:
        return self.name or {"simu": "SimU", "simc": "SimC"}.get(self.kind, self.kind)

    def load(self, data_dir: Path | None = None) -> list[tuple[str, Instance]]:
        from .. import generators

        fn = getattr(generators, self.kind)
        return [(self.label, _lean(fn(**self.params, seed=s))) for s in self.seeds]


@dataclass(frozen=True)
class InstanceList:
    """Instances built in Python (names must be unique)."""

    instances: tuple[Instance, ...]
    name: str | None = None

    def load(self, data_dir: Path | None = None) -> list[tuple[str, Instance]]:
        return [(self.name or inst.name, _lean(inst)) for inst in self.instances]


# ---------------------------------------------------------------- methods

def load_target(target: str):
    """The function named by ``"module:function"``."""
    module, _, func = target.partition(":")
    try:
        return getattr(importlib.import_module(module), func)
    except (ImportError, AttributeError, ValueError) as exc:
        raise GridError(f"cannot load target {target!r} (expected 'module:function'): "
                        f"{exc}") from None


@dataclass(frozen=True)
class MethodEntry:
    """A method of the registry with fixed options.

    ``target`` ("module:function") calls a function directly instead of the
    registry -- for reference solvers that are not registered methods, e.g. a
    brute-force optimum; it must return a Partition, a result with
    ``.partition``, or a tuple ``(sse, Partition)``.  ``k`` restricts the
    entry to some values of k.  ``improve_options`` go to the improvement
    (:func:`mipagg.improve.improve_partition`), e.g. RCS's ``probability``
    and ``max_events`` (seed 003 Table 6.1).
    """

    method: str
    options: dict = field(default_factory=dict)
    improve: str | None = None
    label: str | None = None
    k: tuple[int, ...] | None = None
    target: str | None = None
    improve_options: dict | None = None

    @property
    def name(self) -> str:
        if self.label:
            return self.label
        return (self.method + _fmt_options(self.options)
                + (f"+{self.improve}" if self.improve else "")
                + _fmt_options(self.improve_options or {}))

    def accepted(self) -> list[str]:
        """Options the function accepts (via the registry or ``target``)."""
        if self.target is not None:
            params = list(inspect.signature(load_target(self.target)).parameters.values())[2:]
            return [p.name for p in params
                    if p.kind is p.KEYWORD_ONLY or p.default is not p.empty]
        from ..methods import get_method

        return get_method(self.method).options()

    def seeded(self) -> bool:
        """True when the seed changes the outcome (randomized method or improvement)."""
        return self._seeded(self.accepted())

    def _seeded(self, accepted) -> bool:
        return "seed" in accepted or self.improve == "rcs"


def _fmt_options(options: dict) -> str:
    """``"(a=1,b=2)"`` in sorted order; ``""`` for no options."""
    return f"({','.join(f'{a}={v}' for a, v in sorted(options.items()))})" if options else ""


def _expand_sweep(method: str, options: dict, sweep: dict, label: str | None, **kw):
    if not sweep:
        return [MethodEntry(method, dict(options), label=label, **kw)]
    names = sorted(sweep)
    out = []
    for values in itertools.product(*(sweep[n] for n in names)):
        swept = dict(zip(names, values))
        out.append(MethodEntry(method, {**options, **swept},
                               label=label + _fmt_options(swept) if label else None, **kw))
    return out


# ---------------------------------------------------------------- runs

@dataclass(frozen=True)
class Run:
    """One cell of a grid: an instance, a method with options, k and a seed."""

    key: str
    grid: str
    dataset: str
    instance: str
    fingerprint: str
    method: str
    label: str
    options: dict
    improve: str | None
    k: int
    seed: int | None
    target: str | None = None
    hard_limit: float | None = None
    improve_options: dict | None = None

    def describe(self) -> str:
        seed = "" if self.seed is None else f" seed={self.seed}"
        return f"{self.instance} {self.label} k={self.k}{seed}"


def run_key(instance: str, fingerprint: str, method: str, options: dict,
            improve: str | None, k: int, seed: int | None, target: str | None = None,
            improve_options: dict | None = None) -> str:
    """Stable hash identifying a run (independent of the grid and the machine).
    ``improve_options`` enter the hash only when given, so keys of runs
    without them are unchanged."""
    doc = {"instance": instance, "data": fingerprint, "method": method, "target": target,
           "options": options, "improve": improve, "k": int(k), "seed": seed}
    if improve_options:
        doc["improve_options"] = improve_options
    blob = json.dumps(doc, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:24]


@dataclass
class Grid:
    """What to run: instance sets × methods × k × seeds.

    ``seeds`` apply to randomized methods only (those taking ``seed``, or with
    ``improve="rcs"``); deterministic methods run once with ``seed=None``.
    ``time_limit`` (seconds) is passed to methods taking a ``time_limit``
    option and, unless ``hard_time_limit`` is given, a run is killed after
    ``1.5·time_limit + 10`` s of wall-clock time and stored as ``timeout``.

    >>> from mipagg.instance import from_array
    >>> import numpy as np
    >>> inst = from_array(np.arange(20.0).reshape(10, 2), name="toy")
    >>> g = Grid([InstanceList((inst,))], [MethodEntry("mdav")], k=(2, 3))
    >>> [r.describe() for r in g.runs()]
    ['toy mdav k=2', 'toy mdav k=3']
    """

    instances: list
    methods: list[MethodEntry]
    k: Sequence[int]
    seeds: Sequence[int | None] = (0,)
    time_limit: float | None = None
    hard_time_limit: float | None = None
    name: str = "grid"
    data_dir: Path | None = None
    missing: str = "error"  # or "skip": drop methods not in the registry
    bounds: dict | None = None  # {"method": "bp", "time_limit": 600}: see .bounds

    def __post_init__(self):
        self.bounds = check_bounds_spec(self.bounds)
        if not self.instances:
            raise GridError("the grid has no instances")
        if not self.methods:
            raise GridError("the grid has no methods")
        ks = list(self.k)
        if not ks or any(not isinstance(v, (int, np.integer)) or v < 1 for v in ks):
            raise GridError(f"k must be a non-empty list of positive integers, got {self.k!r}")
        self.k = tuple(int(v) for v in ks)
        self.seeds = tuple(self.seeds) or (None,)
        if self.missing not in ("error", "skip"):
            raise GridError("missing must be 'error' or 'skip'")
        for limit in (self.time_limit, self.hard_time_limit):
            if limit is not None and not limit > 0:
                raise GridError(f"time limits must be positive, got {limit!r}")

    @property
    def hard_limit(self) -> float | None:
        if self.hard_time_limit is not None:
            return float(self.hard_time_limit)
        if self.time_limit is not None:
            return HARD_LIMIT_FACTOR * self.time_limit + HARD_LIMIT_GRACE
        return None

    def available_methods(self) -> tuple[list[MethodEntry], list[str]]:
        """(entries whose method exists now, names of the missing ones)."""
        from ..methods import METHODS, method_names

        method_names()        # discovers plug-in entry points (mipagg.plugins)
        ok = [m for m in self.methods if m.target or m.method in METHODS]
        missing = [m.method for m in self.methods if not (m.target or m.method in METHODS)]
        if missing and self.missing == "error":
            raise GridError(f"method(s) {sorted(set(missing))} are not registered; "
                            f"available: {', '.join(METHODS)}")
        return ok, missing

    def load_instances(self) -> list[tuple[str, Instance]]:
        """(dataset label, instance) for every instance of every set; names unique."""
        out, seen = [], {}
        for s in self.instances:
            for dataset, inst in s.load(self.data_dir):
                fp = instance_fingerprint(inst)
                if seen.get(inst.name, fp) != fp:
                    raise GridError(f"two different instances are named {inst.name!r}")
                if inst.name not in seen:
                    seen[inst.name] = fp
                    out.append((dataset, inst))
        return out

    def runs(self, instances: Iterable[tuple[str, Instance]] | None = None) -> list[Run]:
        """Expand the grid (loading the instances unless given)."""
        if instances is None:
            instances = self.load_instances()
        methods = [self._resolved(m) for m in self.available_methods()[0]]
        out = []
        for dataset, inst in instances:
            fp = instance_fingerprint(inst)
            for m, options, iopts, seeds in methods:
                for k in (m.k or self.k):
                    for seed in seeds:
                        key = run_key(inst.name, fp, m.method, options, m.improve, k, seed,
                                      m.target, iopts)
                        out.append(Run(key, self.name, dataset, inst.name, fp, m.method,
                                       m.name, options, m.improve, k, seed, m.target,
                                       self.hard_limit, iopts))
        return out

    def _resolved(self, m: MethodEntry):
        """Check ``m`` once and return (entry, run options, improve options, seeds)."""
        accepted = m.accepted()
        unknown = sorted(set(m.options) - set(accepted) - {"solver"})   # solver: every method
        if unknown:
            raise GridError(f"method {m.name!r} does not take option(s) {unknown}; "
                            f"it takes {user_options(accepted) or 'none'}")
        try:
            iopts = checked_improve_options(m.improve, m.improve_options) or None
        except ParameterError as exc:
            raise GridError(f"method {m.name!r}: {exc}") from None
        options = dict(m.options)
        if self.time_limit is not None and "time_limit" in accepted:
            options.setdefault("time_limit", self.time_limit)
        return m, options, iopts, (self.seeds if m.seeded() else (None,))

    # ------------------------------------------------------------ TOML

    @classmethod
    def from_dict(cls, doc: dict, base_dir: Path | None = None,
                  data_dir: str | Path | None = None) -> "Grid":
        """Build a grid from the parsed TOML document (see the module docstring)."""
        return _grid_from_dict(doc, base_dir, data_dir)

    @classmethod
    def from_toml(cls, path: str | Path, data_dir: str | Path | None = None) -> "Grid":
        path = Path(path)
        if not path.is_file():
            raise GridError(f"no such grid file: {path}")
        try:
            doc = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise GridError(f"{path}: not valid TOML: {exc}") from None
        try:
            return _grid_from_dict(doc, path.parent, data_dir, default_name=path.stem)
        except GridError as exc:
            raise GridError(f"{path}: {exc}") from None


def load_grid(path: str | Path, data_dir: str | Path | None = None) -> Grid:
    """Read a TOML grid file (see the module docstring for the format)."""
    return Grid.from_toml(path, data_dir)


_TOP_KEYS = {"name", "k", "seeds", "repeats", "time_limit", "hard_time_limit", "data_dir",
             "instances", "methods", "missing", "bounds"}
_INSTANCE_KEYS = {
    "csv": {"csv", "columns", "name"},
    "subsets": {"subsets", "sizes", "criteria", "count", "seed", "columns", "name"},
    "generator": {"generator", "seeds", "count", "name", "n", "p", "clusters"},
}
_METHOD_KEYS = {"name", "options", "sweep", "improve", "label", "k", "target",
                "improve_options"}


def _check_keys(where: str, table: dict, allowed: set) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise GridError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(allowed)}")


def _int_list(where: str, value, name: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if (not isinstance(value, list) or not value
            or any(not isinstance(v, int) or isinstance(v, bool) for v in value)):
        raise GridError(f"{where}: {name} must be an integer or a list of integers, "
                        f"got {value!r}")
    return tuple(value)


def _int(where: str, value, name: str) -> int:
    """An integer (of a list, the first one)."""
    return _int_list(where, value, name)[0]


def _str_list(where: str, value, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or any(not isinstance(v, str) for v in value):
        raise GridError(f"{where}: {name} must be a string or a list of strings")
    return tuple(value)


def _instance_set(i: int, t) -> object:
    where = f"instances[{i}]"
    if not isinstance(t, dict):
        raise GridError(f"{where}: expected a table ([[instances]])")
    kinds = [kind for kind in _INSTANCE_KEYS if kind in t]
    if len(kinds) != 1:
        raise GridError(f"{where}: give exactly one of 'csv', 'subsets' or 'generator'")
    kind = kinds[0]
    _check_keys(where, t, _INSTANCE_KEYS[kind])
    if kind == "csv":
        return CsvSet(str(t["csv"]), _str_list(where, t.get("columns"), "columns"), t.get("name"))
    if kind == "subsets":
        kw = {a: _int_list(where, t[a], a) for a in ("sizes",) if a in t}
        if "criteria" in t:
            kw["criteria"] = _str_list(where, t["criteria"], "criteria")
        kw.update({a: _int(where, t[a], a) for a in ("count", "seed") if a in t})
        return SubsetSet(str(t["subsets"]), columns=_str_list(where, t.get("columns"), "columns"),
                         name=t.get("name"), **kw)
    if "seeds" in t and "count" in t:
        raise GridError(f"{where}: give 'seeds' or 'count', not both")
    seeds = (_int_list(where, t["seeds"], "seeds") if "seeds" in t
             else tuple(range(_int(where, t.get("count", 1), "count"))))
    params = {a: _int(where, t[a], a) for a in ("n", "p", "clusters") if a in t}
    return GeneratorSet(t["generator"], seeds, params, t.get("name"))


def _method_entries(i: int, t) -> list[MethodEntry]:
    where = f"methods[{i}]"
    if not isinstance(t, dict) or not isinstance(t.get("name"), str):
        raise GridError(f"{where}: expected a table with a string 'name'")
    _check_keys(where, t, _METHOD_KEYS)
    options, sweep = t.get("options", {}), t.get("sweep", {})
    iopts = t.get("improve_options")
    if not isinstance(options, dict) or not isinstance(sweep, dict):
        raise GridError(f"{where}: 'options' and 'sweep' must be tables")
    if iopts is not None and not isinstance(iopts, dict):
        raise GridError(f"{where}: 'improve_options' must be a table")
    try:
        checked_improve_options(t.get("improve"), iopts)
    except ParameterError as exc:
        raise GridError(f"{where}: {exc}") from None
    bad = [a for a, v in sweep.items() if not isinstance(v, list) or not v]
    if bad:
        raise GridError(f"{where}: sweep values must be non-empty lists ({bad})")
    ks = _int_list(where, t["k"], "k") if "k" in t else None
    return _expand_sweep(t["name"], options, sweep, t.get("label"), improve=t.get("improve"),
                         k=ks, target=t.get("target"), improve_options=iopts)


def _grid_from_dict(doc: dict, base_dir: Path | None, data_dir, default_name: str = "grid"):
    _check_keys("grid", doc, _TOP_KEYS)
    for required in ("k", "instances", "methods"):
        if required not in doc:
            raise GridError(f"missing required key {required!r}")
    if not isinstance(doc["instances"], list) or not isinstance(doc["methods"], list):
        raise GridError("'instances' and 'methods' must be arrays of tables "
                        "([[instances]] / [[methods]])")
    if "seeds" in doc and "repeats" in doc:
        raise GridError("give 'seeds' or 'repeats', not both")
    seeds = (0,)
    if "seeds" in doc:
        seeds = _int_list("grid", doc["seeds"], "seeds")
    elif "repeats" in doc:
        seeds = tuple(range(_int("grid", doc["repeats"], "repeats")))
    if data_dir is None:
        data_dir = _resolve(doc["data_dir"], base_dir) if "data_dir" in doc else base_dir
    limits = {}
    for a in ("time_limit", "hard_time_limit"):
        if a in doc:
            if not isinstance(doc[a], (int, float)) or isinstance(doc[a], bool):
                raise GridError(f"{a} must be a number of seconds")
            limits[a] = float(doc[a])
    methods = [e for i, t in enumerate(doc["methods"]) for e in _method_entries(i, t)]
    return Grid([_instance_set(i, t) for i, t in enumerate(doc["instances"])], methods,
                _int_list("grid", doc["k"], "k"), seeds, name=str(doc.get("name", default_name)),
                data_dir=Path(data_dir) if data_dir is not None else None,
                missing=doc.get("missing", "error"), bounds=doc.get("bounds"), **limits)


# --- certified bounds of a grid (computed by mipagg.experiments.bounds) ----------------

BOUND_METHODS = ("bp", "cg")
BOUND_SPEC_KEYS = {"method", "time_limit", "solver"}


def check_bounds_spec(spec) -> dict | None:
    """The validated ``bounds`` entry of a grid (None: no bounds)."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise GridError("bounds must be a table, e.g. { method = \"bp\", time_limit = 600 }")
    unknown = sorted(set(spec) - BOUND_SPEC_KEYS)
    if unknown:
        raise GridError(f"bounds: unknown key(s) {unknown}; allowed: {sorted(BOUND_SPEC_KEYS)}")
    method = spec.get("method", "bp")
    if method not in BOUND_METHODS:
        raise GridError(f"bounds: method must be one of {', '.join(BOUND_METHODS)}, "
                        f"got {method!r}")
    limit = spec.get("time_limit")
    if limit is None or isinstance(limit, bool) or not isinstance(limit, (int, float)) \
            or not limit > 0:
        raise GridError(f"bounds: time_limit must be a positive number of seconds, "
                        f"got {limit!r}")
    out = {"method": method, "time_limit": float(limit)}
    if spec.get("solver") is not None:
        out["solver"] = str(spec["solver"])
    return out
