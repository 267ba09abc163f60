"""Public settings of the exact methods and the one stop criterion.

:class:`CGSettings` holds the options of
:func:`~mipagg.exact.colgen.column_generation` and :class:`BPSettings`
those of :func:`~mipagg.exact.bp.branch_and_price`; both validate
themselves on construction (a bad value is a :class:`~mipagg.ParameterError`
before any work) and load from a TOML table or a dict (:meth:`from_dict`,
:meth:`from_toml`), so an experiment grid can say ``settings = { ... }``.
:meth:`CGSettings.loop` resolves the ``"auto"`` values for an instance
(n records, minimum size k) into the column-generation loop's own options,
:class:`LoopSettings`.

:class:`StopCriterion` is time (a deadline), a node limit, an iteration limit
and the gap tolerance in one object, passed down instead of bare deadline
floats (after PyVRP's ``pyvrp.stop`` criteria).

>>> CGSettings(pricing="enumeration").pricing
'enumeration'
>>> CGSettings(alpha=1.0)
Traceback (most recent call last):
...
mipagg.errors.ParameterError: alpha must be in [0, 1) or 'auto', got 1.0
>>> s = CGSettings.from_dict({"stabilization": "none", "max_columns": 20}); s.stabilization
>>> s.loop(n=100, k=3).max_columns
20
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ParameterError
from ..interrupts import StopRequest

__all__ = ["CGSettings", "BPSettings", "LoopSettings", "StopCriterion", "interrupted", "PRICING_MODES",
           "STABILIZATIONS", "ROUNDINGS", "AGGREGATIONS", "AGGREGATION_MIN_K", "WENTGES_MIN_K",
           "LP_ALGORITHM_CHOICES", "PHASE_BUDGETS", "AUTO_SECONDS", "aggregation_on", "auto_max_columns",
           "resolve_lp_algorithm", "resolve_reopt_lp_algorithm", "merge_settings"]

PRICING_MODES = ("auto", "heuristic", "enumeration", "ilp")
# bp's pricing at tree nodes: heuristic then exact, or the exact routine alone
NODE_PRICINGS = ("auto", "exact")
STABILIZATIONS = (None, "wentges", "neame", "auto")
WENTGES_MIN_K = 10     # stabilization="auto": Wentges from this k on (docs/bench/cg_full.md)
ROUNDINGS = ("adaptive", "every")
LP_ALGORITHM_CHOICES = ("auto", "primal", "dual", "ipm")


SWEEP_SHARE = 0.25
# the gap-closing MIP: "presolve" = HiGHS presolve and the master's cut rows,
# "plain" = neither, "auto" = "presolve" from PRESOLVE_MIN_N records
CLOSE_GAP_MIPS = ("auto", "presolve", "plain")
NODE_CLOSE_CUTS = ("tight", "all")
PRESOLVE_MIN_N = 100
# the aggregated phase before the root's column generation (mipagg.exact.aggregation):
# "auto" = on from AGGREGATION_MIN_K (docs/bench/aggregation.md)
AGGREGATIONS = ("auto", "on", "off")
AGGREGATION_MIN_K = 10
# clusters of a partial root gap closing, bp and cg (docs/bench/partial_closing.md)
PARTIAL_COLUMNS = 2000
# bp's phase budgets in seconds, where 0 switches the phase off (mipagg.api checks them too)
PHASE_BUDGETS = ("close_gap_time", "mip_time", "dive_time", "neighbourhood_time",
                 "node_close_time", "lp_stall_time")
# time options that also take "auto" (lp_stall_time: MasterProblem.stall_cap)
AUTO_SECONDS = ("lp_stall_time",)


@dataclass
class LoopSettings:
    """Resolved options of the column-generation loop of one node
    (:func:`~mipagg.exact.node.solve_node`), from :meth:`CGSettings.loop`."""

    pricing: str = "auto"
    exact_rule: str = "measured"
    lagrangian: bool = False
    stabilization: str | None = None
    alpha: float = 0.5
    auto_alpha: bool = False
    max_columns: int = 10
    gap_tol: float = 1e-6
    # share of the node's time for bound-completing sweeps; None (the default
    # without a time limit): every sweep completes, so no clock steers the run
    sweep_share: float | None = SWEEP_SHARE
    # price the sizes above k exactly only where the size chain does not hold
    # (mipagg.exact.pricing.rounds.size_chain)
    size_chain: bool = False


class _Loadable:
    """``from_dict`` / ``from_toml`` / ``replace`` shared by the settings classes."""

    @classmethod
    def from_dict(cls, doc) -> "_Loadable":
        """Settings from a mapping (e.g. a parsed TOML table); unknown keys are an error."""
        if isinstance(doc, cls):
            return doc
        if not isinstance(doc, dict):
            raise ParameterError(f"settings must be a {cls.__name__} or a table, got {doc!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(doc) - names)
        if unknown:
            raise ParameterError(f"{cls.__name__} takes no option(s) {unknown}; "
                                 f"it takes {sorted(names)}")
        return cls(**doc)

    @classmethod
    def from_toml(cls, path, table: str | None = None) -> "_Loadable":
        """Settings from a TOML file: the whole document, or its table ``table``."""
        path = Path(path)
        try:
            doc = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ParameterError(f"{path}: cannot read settings: {exc}") from None
        if table is not None:
            if table not in doc:
                raise ParameterError(f"{path}: no table [{table}]")
            doc = doc[table]
        return cls.from_dict(doc)

    def as_dict(self) -> dict:
        """The fields as plain values (an object such as a Dask client, given
        as ``scheduler``, by its address or its ``str``; never deep-copied)."""
        out = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]  # subclasses are dataclasses
            v = getattr(self, f.name)
            if not isinstance(v, (str, int, float, bool, tuple, list, dict, type(None))):
                v = str(getattr(getattr(v, "scheduler", None), "address", None) or v)
            out[f.name] = v
        return out

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)


def _choice(settings, name: str, choices: tuple) -> None:
    """A ParameterError unless option ``name`` of ``settings`` is one of ``choices``."""
    value = getattr(settings, name)
    if value not in choices:
        raise ParameterError(f"{name} must be one of {choices}, got {value!r}")


def _check_aggregation(mode) -> None:
    if mode not in AGGREGATIONS:
        raise ParameterError(f"aggregation must be one of {AGGREGATIONS}, got {mode!r}")


def aggregation_on(mode: str, k: int, pricing: str = "auto") -> bool:
    """Whether the root starts with the aggregated phase: ``mode`` "on", or
    "auto" from ``AGGREGATION_MIN_K`` with exact pricing available."""
    return mode == "on" or (mode == "auto" and k >= AGGREGATION_MIN_K
                            and pricing != "heuristic")


def _positive_int(name, value, allow=()):
    if value in allow or value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{name} must be a positive integer, got {value!r}")


def _seconds(name, value, *, zero=False):
    if value is None:
        return
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not (value >= 0 if zero else value > 0):
        raise ParameterError(f"{name} must be {'non-negative' if zero else 'positive'}, "
                             f"got {value!r}")


def _budgets(settings) -> None:
    """bp's phase budgets (:data:`PHASE_BUDGETS`): seconds >= 0, or "auto"
    where :data:`AUTO_SECONDS` allows it."""
    for name in PHASE_BUDGETS:
        value = getattr(settings, name)
        if not (name in AUTO_SECONDS and value == "auto"):
            _seconds(name, value, zero=True)


def _directory(name, value) -> None:
    if value is not None and not (isinstance(value, (str, os.PathLike)) and os.path.isdir(value)):
        raise ParameterError(f"{name} must be an existing directory, got {value!r}")


def parse_options(items, cls, *, flag: str = "--option", reserved=()) -> dict:
    """``KEY=VALUE`` command-line items as options of the settings class
    ``cls`` (:class:`BPSettings` or :class:`CGSettings`), each value read as
    JSON when it parses (``40``, ``0.0``, ``true``), else as a Python
    literal (``False``, ``None``), else as a string (``on``, a path).
    :class:`ParameterError` for a key ``cls`` does not know or that is
    ``reserved`` (set by the caller itself), and for a value ``cls``
    refuses, so a bad option fails before any work.

    >>> parse_options(["max_cut_rounds=40", "tail_off=0", "aggregation=on"], BPSettings)
    {'max_cut_rounds': 40, 'tail_off': 0, 'aggregation': 'on'}
    >>> parse_options(["column_fixing=False", "fixing=true"], BPSettings)
    {'column_fixing': False, 'fixing': True}
    """
    known = {f.name for f in dataclasses.fields(cls)} - set(reserved)
    out = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or key not in known:
            raise ParameterError(f"{flag} {item!r}: expected KEY=VALUE with KEY one of "
                                 f"{', '.join(sorted(known))}")
        out[key] = option_value(text)
    try:
        cls.from_dict(out)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{flag}: {exc}") from None
    return out


def option_value(text: str):
    """A command-line option value: ``text`` as JSON, else as a Python
    literal, else itself (:func:`parse_options`; the benchmarks' ``--bp-option``)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _flags(s, *names) -> None:
    """On/off options must be True or False (numpy's booleans too): a string
    such as "False" is truthy and would switch the option on."""
    for name in names:
        v = getattr(s, name)
        if not isinstance(v, (bool, np.bool_)):
            raise ParameterError(f"{name} must be True or False, got {v!r}")
        setattr(s, name, bool(v))


def _cluster_count(name, value) -> None:
    """A partial closing's budget: an integer >= 0 (clusters; 0: off)."""
    if isinstance(value, (str, bool)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ParameterError(f"{name} must be an integer >= 0 (clusters), got {value!r}")


def _check_loop_common(s) -> None:
    """Checks shared by CGSettings and BPSettings (stabilization, alpha, limits)."""
    if s.stabilization == "none":     # the command line's spelling of None
        s.stabilization = None
    if s.stabilization not in STABILIZATIONS:
        raise ParameterError(f"stabilization must be one of {STABILIZATIONS}, "
                             f"got {s.stabilization!r}")
    a = s.alpha
    if not (isinstance(a, str) and a == "auto"):
        if isinstance(a, (str, bool)) or not isinstance(a, (int, float)) or not 0.0 <= a < 1.0:
            raise ParameterError(f"alpha must be in [0, 1) or 'auto', got {a!r}")
    if s.time_limit is not None and (isinstance(s.time_limit, (str, bool))
                                     or not s.time_limit > 0):
        raise ParameterError(f"time_limit must be positive, got {s.time_limit!r}")
    if not (isinstance(s.max_columns, str) and s.max_columns == "auto"):
        _positive_int("max_columns", s.max_columns)
    if s.lp_algorithm not in LP_ALGORITHM_CHOICES:
        raise ParameterError(f"lp_algorithm must be 'auto' or one of "
                             f"{LP_ALGORITHM_CHOICES[1:]}, got {s.lp_algorithm!r}")
    if not (isinstance(s.gap_tol, (int, float)) and 0 <= s.gap_tol < 1):
        raise ParameterError(f"gap_tol must be in [0, 1), got {s.gap_tol!r}")


def _resolve_loop(s, n, k, *, pricing, lagrangian, exact_rule, limited) -> LoopSettings:
    """The loop's options for n records and minimum size k ("auto" resolved)."""
    stabilization, alpha = s.stabilization, s.alpha
    if stabilization == "auto":
        if k >= WENTGES_MIN_K:
            stabilization, alpha = "wentges", "auto"
        else:
            stabilization = None
    auto_alpha = isinstance(alpha, str) and alpha == "auto"
    if auto_alpha and stabilization != "wentges":
        raise ParameterError('alpha="auto" needs stabilization="wentges"')
    if lagrangian == "auto":
        lagrangian = limited
    return LoopSettings(pricing=pricing, exact_rule=exact_rule, lagrangian=bool(lagrangian),
                        stabilization=stabilization, alpha=0.5 if auto_alpha else float(alpha),
                        auto_alpha=auto_alpha,
                        max_columns=int(auto_max_columns(s.max_columns, n, k)),
                        gap_tol=s.gap_tol,
                        sweep_share=None if s.time_limit is None else SWEEP_SHARE,
                        size_chain=s.size_chain)


def auto_max_columns(max_columns, n, k):
    """``max_columns="auto"`` resolved: max(10, n // (2k)) columns per pricing call."""
    if isinstance(max_columns, str) and max_columns == "auto":
        return max(10, n // (2 * k))
    return max_columns


def resolve_lp_algorithm(choice) -> str:
    """The master's LP method for ``lp_algorithm``: "auto" is the primal
    simplex from the last basis, measured faster than IPX at k = 5 and
    k = 10 on the full Census file (docs/bench/cg_full.md)."""
    if choice not in LP_ALGORITHM_CHOICES:
        raise ParameterError(f"lp_algorithm must be 'auto' or one of "
                             f"{LP_ALGORITHM_CHOICES[1:]}, got {choice!r}")
    return "primal" if choice == "auto" else choice


def resolve_reopt_lp_algorithm(choice) -> str:
    """The master's LP method in bp once the root's LP has converged (cut
    rounds, dive, tree nodes): "auto" is the dual simplex from the last basis,
    which new cut rows and fixed columns leave dual feasible; on resumed
    Tarragona k = 5 and Census k = 6 trees the primal simplex spent most of
    each node re-solving that basis (docs/bench/casc_gap.md §26)."""
    if choice not in LP_ALGORITHM_CHOICES:
        raise ParameterError(f"reopt_lp_algorithm must be 'auto' or one of "
                             f"{LP_ALGORITHM_CHOICES[1:]}, got {choice!r}")
    return "dual" if choice == "auto" else choice


@dataclass
class CGSettings(_Loadable):
    """Options of :func:`~mipagg.exact.colgen.column_generation` (see there
    for each one's meaning); validated on construction."""

    pricing: str = "auto"
    time_limit: float | None = None
    max_iterations: int | None = None
    stabilization: str | None = "auto"
    alpha: float | str = 0.5
    lagrangian: bool | str = "auto"
    gap_tol: float = 1e-6
    max_columns: int | str = "auto"
    gamma: float = 0.2
    exact_rule: str = "measured"
    close_gap: bool = True
    close_gap_max_columns: int = 100_000
    close_gap_partial: int = PARTIAL_COLUMNS
    threads: int | None = None
    rounding: str = "adaptive"
    lp_algorithm: str = "auto"
    warm_start: str | None = None
    aggregation: str = "auto"
    size_chain: bool = False

    def __post_init__(self):
        if self.pricing not in PRICING_MODES:
            raise ParameterError(f"pricing must be one of {PRICING_MODES}, got {self.pricing!r}")
        _check_loop_common(self)
        _flags(self, "close_gap", "size_chain")
        if self.lagrangian not in (True, False, "auto"):
            raise ParameterError(f"lagrangian must be True, False or 'auto', "
                                 f"got {self.lagrangian!r}")
        if self.exact_rule not in ("table2", "measured"):
            raise ParameterError(f"exact_rule must be 'table2' or 'measured', "
                                 f"got {self.exact_rule!r}")
        mi = self.max_iterations
        if mi is not None and (isinstance(mi, (str, bool)) or int(mi) != mi or mi < 1):
            raise ParameterError(f"max_iterations must be a positive integer, got {mi!r}")
        if self.rounding not in ROUNDINGS:
            raise ParameterError(f"rounding must be one of {ROUNDINGS}, got {self.rounding!r}")
        if self.warm_start not in (None, "neighbours"):
            raise ParameterError(f"warm_start must be None or 'neighbours', "
                                 f"got {self.warm_start!r}")
        _check_aggregation(self.aggregation)
        _cluster_count("close_gap_partial", self.close_gap_partial)
        if self.aggregation == "on" and self.pricing == "heuristic":
            raise ParameterError('aggregation="on" needs exact pricing (pricing="heuristic" '
                                 'certifies nothing)')

    def loop(self, n: int, k: int) -> LoopSettings:
        """The loop's options for n records and minimum size k."""
        return _resolve_loop(self, n, k, pricing=self.pricing, lagrangian=self.lagrangian,
                             exact_rule=self.exact_rule,
                             limited=self.time_limit is not None
                             or self.max_iterations is not None)


@dataclass
class BPSettings(_Loadable):
    """Options of :func:`~mipagg.exact.bp.branch_and_price` (see there for
    each one's meaning); validated on construction.  ``branching`` ("name"
    or "name:N", "fractional" for "ryan_foster"; default "reliability:4"),
    ``node_selection`` and ``cut_families`` name entries of
    :data:`mipagg.exact.rules.BRANCHING_RULES`, :data:`~mipagg.exact.rules.NODE_SELECTIONS`
    and :data:`~mipagg.exact.rules.CUT_FAMILIES` (cuts are separated only with
    ``cuts`` True).  ``workers`` / ``scheduler``: the tree on local processes
    or a Dask cluster (:mod:`mipagg.exact.parallel`)."""

    time_limit: float | None = None
    node_limit: int | None = None
    cuts: bool = True
    max_cut_rounds: int = 10
    cuts_per_round: int | None = None
    min_violation: float = 0.05
    tail_off: float = 0.02
    close_gap: bool = True
    close_gap_max_columns: int = 200_000
    close_gap_time: float | None = None
    close_gap_mip: str = "auto"
    close_gap_partial: int = PARTIAL_COLUMNS
    aggregation: str = "auto"
    node_close_max_columns: int = 50_000
    node_close_time: float | None = None
    node_close_partial: int = 0
    node_close_gap: float = 0.0
    node_close_cost: bool | None = None
    node_close_nested: bool = False
    node_close_restart: bool = True
    node_close_cuts: str = "tight"
    mip_time: float | None = None
    mip_nodes: int | None = None
    dive_time: float | None = None
    neighbourhood_time: float | None = None
    max_columns: int | str = "auto"
    threads: int | None = None
    lp_algorithm: str = "auto"
    reopt_lp_algorithm: str = "auto"
    stabilization: str | None = "auto"
    alpha: float | str = 0.5
    gap_tol: float = 1e-6
    branching: str = "reliability:4"
    node_selection: str = "best_bound"
    cut_families: tuple = ("subset_row",)
    fixing: bool = True
    size_chain: bool = False
    column_fixing: bool = False
    size_fixing: bool = False
    node_pricing: str = "auto"
    node_basis: bool = True
    plunge: float = 0.0
    node_cut_rounds: int = 1
    tree_mip: float | None = None
    reclose_root: bool = False
    workers: int = 1
    scheduler: object = None
    checkpoint: str | None = None
    checkpoint_every: float = 600.0
    checkpoint_bases: int = 16384
    retire_cuts: bool = True
    resume: str | None = None
    lp_stall_time: float | str | None = "auto"
    lp_stall_dump: str | None = None
    node_lp_perturbation: bool = False
    count_row: bool = True
    max_groups: int | None = None
    max_size: int | None = None

    def __post_init__(self):
        from .rules import (
            BRANCHING_ALIASES,
            CUT_FAMILIES,
            NODE_SELECTIONS,
            branching_rule,
        )

        _check_loop_common(self)
        resolve_reopt_lp_algorithm(self.reopt_lp_algorithm)     # a bad name: ParameterError
        nl = self.node_limit
        if nl is not None and (isinstance(nl, (str, bool)) or int(nl) != nl or nl < 1):
            raise ParameterError(f"node_limit must be a positive integer, got {nl!r}")
        if self.max_cut_rounds < 0 or (self.cuts_per_round is not None
                                       and self.cuts_per_round < 1):
            raise ParameterError("max_cut_rounds must be >= 0 and cuts_per_round >= 1")
        for name in ("tail_off", "min_violation", "node_close_gap"):
            v = getattr(self, name)
            if isinstance(v, (str, bool)) or not isinstance(v, (int, float)) or not v >= 0:
                raise ParameterError(f"{name} must be a number >= 0, got {v!r}")
        _budgets(self)
        _choice(self, "close_gap_mip", CLOSE_GAP_MIPS)
        _choice(self, "node_close_cuts", NODE_CLOSE_CUTS)
        _check_aggregation(self.aggregation)
        mn = self.mip_nodes
        if mn is not None and (isinstance(mn, (str, bool)) or int(mn) != mn or mn < 0):
            raise ParameterError(f"mip_nodes must be None or an integer >= 0, got {mn!r}")
        branching_rule(self.branching)          # a bad name or argument: ParameterError
        self.branching = BRANCHING_ALIASES.get(self.branching, self.branching)
        _flags(self, "cuts", "close_gap", "fixing", "size_chain", "column_fixing", "size_fixing",
               "node_basis", "reclose_root", "node_close_nested", "node_close_restart",
               "retire_cuts", "node_lp_perturbation", "count_row")
        if self.node_close_cost is not None:
            _flags(self, "node_close_cost")
        for name in ("close_gap_partial", "node_close_partial"):
            _cluster_count(name, getattr(self, name))
        ncr = self.node_cut_rounds
        if isinstance(ncr, (str, bool)) or int(ncr) != ncr or ncr < 0:
            raise ParameterError(f"node_cut_rounds must be an integer >= 0, got {ncr!r}")
        tm = self.tree_mip
        if tm is not None and (isinstance(tm, (str, bool)) or not tm >= 1):
            raise ParameterError(f"tree_mip must be None or a number >= 1, got {tm!r}")
        if self.workers is None:
            raise ParameterError("workers must be a positive integer, got None")
        for name in ("workers", "max_groups", "max_size"):
            _positive_int(name, getattr(self, name))
        sch = self.scheduler
        if sch is not None and not hasattr(sch, "submit") and not (isinstance(sch, str)
                                                                   and sch.strip()):
            raise ParameterError(f"scheduler must be a Dask scheduler's address, 'local' or "
                                 f"a distributed.Client, got {sch!r}")
        pl = self.plunge
        if isinstance(pl, bool) or not isinstance(pl, (int, float)) or not 0 <= pl <= 1:
            raise ParameterError(f"plunge must be a number in [0, 1], got {pl!r}")
        if self.node_pricing not in NODE_PRICINGS:
            raise ParameterError(f"node_pricing must be one of {NODE_PRICINGS}, "
                                 f"got {self.node_pricing!r}")
        if self.node_selection not in NODE_SELECTIONS:
            raise ParameterError(f"node_selection must be one of {sorted(NODE_SELECTIONS)}, "
                                 f"got {self.node_selection!r}")
        if isinstance(self.cut_families, str):
            self.cut_families = (self.cut_families,)
        self.cut_families = tuple(self.cut_families)
        unknown = [c for c in self.cut_families if c not in CUT_FAMILIES]
        if unknown:
            raise ParameterError(f"cut_families must be names of {sorted(CUT_FAMILIES)}, "
                                 f"got {unknown}")
        for name in ("checkpoint", "resume"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (str, os.PathLike)) and str(v).strip()):
                raise ParameterError(f"{name} must be a file path, got {v!r}")
            setattr(self, name, None if v is None else os.fspath(v))
        _directory("lp_stall_dump", self.lp_stall_dump)
        _seconds("checkpoint_every", self.checkpoint_every)
        if self.checkpoint_every is None:
            raise ParameterError("checkpoint_every must be positive, got None")
        cb = self.checkpoint_bases
        if isinstance(cb, (str, bool)) or not isinstance(cb, (int, float)) or int(cb) != cb \
                or cb < 0:
            raise ParameterError(f"checkpoint_bases must be an integer >= 0, got {cb!r}")

    def loop(self, n: int, k: int) -> LoopSettings:
        """Every node's loop options: auto pricing with the Lagrangian bound
        (``node_pricing`` below the root: :class:`~mipagg.exact.bp.BranchAndPrice`)."""
        return _resolve_loop(self, n, k, pricing="auto", lagrangian=True,
                             exact_rule="measured", limited=True)


@dataclass
class StopCriterion:
    """When a run must stop: ``deadline`` (a :func:`time.perf_counter` time),
    ``node_limit``, ``max_iterations``, and the relative ``gap_tol`` at which
    a bound counts as meeting a value.

    >>> s = StopCriterion.start(time_limit=None, gap_tol=1e-6)
    >>> s.expired(), s.left(), s.meets(1.0, 1.0 + 1e-9)
    (False, None, True)
    """

    deadline: float | None = None
    node_limit: int | None = None
    max_iterations: int | None = None
    gap_tol: float = 1e-6
    time_limit: float | None = None
    started: float = 0.0

    @classmethod
    def start(cls, time_limit=None, *, node_limit=None, max_iterations=None, gap_tol=1e-6,
              now=None) -> "StopCriterion":
        t0 = time.perf_counter() if now is None else now
        deadline = None if time_limit is None else t0 + float(time_limit)
        return cls(deadline, node_limit, max_iterations, gap_tol, time_limit, t0)

    def expired(self, now: float | None = None) -> bool:
        """The deadline has passed, or a graceful stop was asked for
        (:class:`~mipagg.interrupts.StopRequest`: Ctrl-C once)."""
        if StopRequest.requested:
            return True
        if self.deadline is None:
            return False
        return (time.perf_counter() if now is None else now) >= self.deadline

    def left(self) -> float | None:
        """Seconds to the deadline (None without one; may be negative; 0
        once a graceful stop was asked for)."""
        if StopRequest.requested:
            return 0.0
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def nodes_exhausted(self, nodes: int) -> bool:
        return self.node_limit is not None and nodes >= self.node_limit

    def meets(self, bound: float, value: float) -> bool:
        """``bound`` reaches ``value`` within the relative ``gap_tol``."""
        return bound >= value - self.gap_tol * max(abs(value), 1e-12)

    def until(self, end: float | None) -> "StopCriterion":
        """The same criterion with the deadline moved earlier to ``end``."""
        if end is None:
            return self
        d = end if self.deadline is None else min(self.deadline, end)
        return dataclasses.replace(self, deadline=d)

    def overrun(self, total: float) -> float:
        return 0.0 if self.time_limit is None else max(0.0, total - self.time_limit)


def interrupted(status: str) -> str:
    """"interrupted" for a "time_limit" status while a graceful stop is
    asked for (:class:`~mipagg.interrupts.StopRequest`), else ``status``."""
    return "interrupted" if status == "time_limit" and StopRequest.requested else status


def merge_settings(cls, settings, options: dict):
    """``settings`` (a ``cls``, a mapping or None) with the keyword ``options``
    that differ from ``cls``'s defaults applied on top: how
    ``column_generation`` and ``branch_and_price`` take both.

    >>> merge_settings(CGSettings, {"pricing": "enumeration"}, {"gap_tol": 1e-6}).pricing
    'enumeration'
    """
    if settings is None:
        return cls(**options)
    base = cls.from_dict(settings)
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}
    changed = {name: v for name, v in options.items()
               if not (isinstance(v, type(defaults[name])) and v == defaults[name])}
    return dataclasses.replace(base, **changed) if changed else base
