"""One entry point for every method: :func:`microaggregate`."""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, field

import numpy as np

from . import __version__
from .errors import ParameterError
from .exact.settings import AUTO_SECONDS, PHASE_BUDGETS
from .instance import Instance, from_array
from .methods import get_method, user_options
from .partition import Partition
from .status import Status, as_status
from .validation import check_k

__all__ = ["RunResult", "microaggregate"]


@dataclass
class RunResult:
    """Outcome of one method run: the partition plus what the method reported."""

    method: str
    k: int
    partition: Partition
    seconds: float
    options: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    raw: object = field(default=None, repr=False)  # the method's own result object

    @property
    def labels(self) -> np.ndarray:
        return self.partition.labels

    @property
    def status(self) -> Status:
        """The method's own status (cg, bp, portfolio, ...), else "ok"."""
        st = getattr(self.raw, "status", None)
        return Status.OK if st is None else as_status(st)

    @property
    def success(self) -> bool:
        return self.status.success

    @property
    def message(self) -> str:
        return getattr(self.raw, "message", None) or self.status.message

    def summary(self) -> dict:
        """A flat JSON-able dict: method, k, n, p, sse, sst, il, groups, ..."""
        out = {"method": self.method, "k": self.k, **self.partition.summary(),
               "seconds": self.seconds}
        out.update(self.details)
        out["options"] = self.options
        out["version"] = __version__
        return out


def _as_instance(data) -> Instance:
    if isinstance(data, Instance):
        return data
    if hasattr(data, "columns") and hasattr(data, "to_numpy"):  # a pandas DataFrame
        from .instance import from_dataframe

        return from_dataframe(data)
    return from_array(data)


def check_seed(seed, name: str = "seed"):
    """``seed`` must be None or a non-negative integer (numpy's generators
    refuse negative seeds with a bare ValueError)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"{name} must be a non-negative integer, got {seed!r}")
    return int(seed)


def check_seconds(options: dict, prefix: str = "") -> None:
    """Every time option (``time_limit``, ``*_time``) must be a positive
    number of seconds (``inf``: no limit), or 0 for bp's phase budgets
    (:data:`mipagg.exact.settings.PHASE_BUDGETS`, where 0 switches a phase off),
    or "auto" where :data:`~mipagg.exact.settings.AUTO_SECONDS` allows it."""
    for name, value in options.items():
        if value is None or not (name == "time_limit" or name.endswith("_time")):
            continue
        if name in AUTO_SECONDS and value == "auto":
            continue
        zero = name in PHASE_BUDGETS
        if (isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                             np.floating))
                or math.isnan(value) or value < 0 or (value == 0 and not zero)):
            what = "a non-negative" if zero else "a positive"
            raise ParameterError(f"{prefix}{name} must be {what} number of seconds, "
                                 f"got {value!r}")


def _initial(initial, inst: Instance, k: int) -> Partition:
    """The ``initial`` partition on ``inst.X``; refused unless k-feasible."""
    labels = getattr(initial, "labels", initial)
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size != inst.n:
        raise ParameterError(f"the initial partition has {labels.size} labels for "
                             f"{inst.n} records")
    if labels.size and (not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0):
        raise ParameterError("the initial partition's labels must be non-negative integers")
    p = Partition(labels, inst.X)
    if not p.is_feasible(k):
        raise ParameterError(f"the initial partition has a group smaller than k = {k} "
                             f"(smallest has {int(p.sizes.min())} record(s))")
    return p


def checked_improve_options(improve: str | None, options: dict | None) -> dict:
    """``options`` as a dict, after refusing those the chosen improvement does not take."""
    options = dict(options or {})
    if options:
        if improve is None:
            raise ParameterError(f"improve_options {sorted(options)} given without improve")
        from .improve import check_improve_options

        check_improve_options(improve, options)
    return options


def microaggregate(data, k: int, method: str = "mdav", *, improve: str | None = None,
                   seed: int | None = None, improve_options: dict | None = None,
                   verbose: bool = False, initial=None, solver: str | None = None,
                   **options) -> RunResult:
    """Microaggregate ``data`` (an :class:`Instance` or a numeric array) with ``method``.

    ``options`` go to the method (e.g. ``gamma`` for V-MDAV, ``pricing`` for
    column generation); an option the method does not take is an error.
    ``seed`` is passed to randomized methods and ignored by deterministic ones.
    ``improve`` ("local" or "rcs") post-processes the partition;
    ``improve_options`` go to it (e.g. ``{"probability": 0.01, "max_events": 20}``
    for RCS, seed 003 Table 6.1) and are recorded in the summary.
    ``verbose=True`` asks methods that take a ``verbose`` keyword
    (:mod:`mipagg.progress`) to print progress lines to stderr; it is ignored
    by the others and never recorded in ``options``, since it does not change
    the result.
    ``initial`` (labels or a Partition, k-feasible) is a partition to start
    from: methods that take ``initial`` (cg, bp, portfolio) get it as their
    first incumbent; with ``improve`` the improvement starts from the better
    of it and the method's partition (``details["improve_start"]``).
    ``solver`` runs the method's MIPs (integer master, ILP pricing) on that
    solver through Pyomo (:mod:`mipagg.exact.solvers`; default HiGHS).

    >>> import numpy as np
    >>> r = microaggregate(np.arange(12.0).reshape(6, 2), 3, "mdav")
    >>> r.partition.sizes.tolist()
    [3, 3]
    """
    from .exact.solvers import use_solver

    with use_solver(solver):
        result = _microaggregate(data, k, method, improve=improve, seed=seed,
                                 improve_options=improve_options, verbose=verbose,
                                 initial=initial, **options)
    if solver is not None:
        result.options["solver"] = solver
    return result


def _microaggregate(data, k, method, *, improve, seed, improve_options, verbose, initial,
                    **options) -> RunResult:
    inst = _as_instance(data)
    k = check_k(k, inst.n)
    seed = check_seed(seed)
    check_seconds(options)
    check_seconds(improve_options or {}, "improve_options ")
    improve_options = checked_improve_options(improve, improve_options)
    spec = get_method(method)
    fn = spec.load()
    accepted = spec.options()
    unknown = [o for o, v in options.items() if v is not None and o not in accepted]
    if unknown:
        raise ParameterError(
            f"method {method!r} does not take option(s) {unknown}; it takes "
            f"{user_options(accepted) or 'none'}")
    kwargs = {o: v for o, v in options.items() if v is not None}
    start = None
    if initial is not None:
        start = _initial(initial, inst, k)
        if "initial" in accepted:
            kwargs["initial"] = start
        elif improve is None:
            raise ParameterError(f"method {method!r} does not take an initial partition; "
                                 "use it with cg, bp, portfolio or an improvement")
    if seed is not None and "seed" in accepted:
        kwargs["seed"] = seed
    recorded = {**{o: v for o, v in kwargs.items() if o != "initial"},
                **({"seed": seed} if seed is not None else {})}
    if "verbose" in accepted:
        kwargs["verbose"] = bool(verbose)
    from .memory import check_memory

    check_memory(method, inst.n, inst.X.shape[1], k, kwargs)   # refused before it starts
    t0 = time.perf_counter()
    out = fn(inst.X, k, **kwargs)
    if isinstance(out, Partition):
        partition, details = out, {}
    else:
        partition, details = out.partition, dict(out.summary())
    if "time_limit" in kwargs and "time_limited" not in details:   # did the limit bind?
        details["time_limited"] = bool((details.get("budget") or {}).get(
            "time_limited", details.get("status") == "time_limit"))
    if improve is not None:
        from .improve import improve_partition

        if start is not None and "initial" not in kwargs:
            better = start.sse() < partition.sse()
            details["improve_start"] = "initial" if better else method
            partition = start if better else partition
        before = partition.sse()
        extra = ({"verbose": bool(verbose)}
                 if "verbose" in inspect.signature(improve_partition).parameters else {})
        from .deadline import Deadline

        limited = dict(improve_options)
        if improve != "exact" and "time_limit" in limited:   # to learn whether it bound
            limited["time_limit"] = Deadline(limited["time_limit"])
        partition = improve_partition(inst.X, partition, k, how=improve, seed=seed,
                                      **limited, **extra)
        details.update(improve=improve, sse_before_improve=before)
        if isinstance(limited.get("time_limit"), Deadline):
            details["improve_time_limited"] = limited["time_limit"].hit
        if improve_options:
            details["improve_options"] = improve_options
    seconds = time.perf_counter() - t0
    if not partition.is_feasible(k):
        raise RuntimeError(f"method {method!r} returned a partition that is not {k}-feasible")
    if improve_options:
        recorded["improve_options"] = improve_options
    if start is not None:
        recorded["initial"] = True
        details["initial_sse"] = start.sse()
    return RunResult(method, k, partition, seconds, recorded, details,
                     None if isinstance(out, Partition) else out)
