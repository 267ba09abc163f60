"""One entry point for every method: :func:`microaggregate`."""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field

import numpy as np

from . import __version__
from .errors import ParameterError
from .instance import Instance, from_array
from .methods import get_method
from .partition import Partition
from .status import Status, as_status
from .univariate import check_k

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
    return from_array(data)


def _check_improve_options(improve: str | None, options: dict | None) -> dict:
    """Refuse post-processing options the chosen improvement does not take."""
    options = dict(options or {})
    if options:
        if improve is None:
            raise ParameterError(f"improve_options {sorted(options)} given without improve")
        from .improve import check_improve_options

        check_improve_options(improve, options)
    return options


def microaggregate(data, k: int, method: str = "mdav", *, improve: str | None = None,
                   seed: int | None = None, improve_options: dict | None = None,
                   verbose: bool = False, **options) -> RunResult:
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

    >>> import numpy as np
    >>> r = microaggregate(np.arange(12.0).reshape(6, 2), 3, "mdav")
    >>> r.partition.sizes.tolist()
    [3, 3]
    """
    inst = _as_instance(data)
    k = check_k(k, inst.n)
    improve_options = _check_improve_options(improve, improve_options)
    spec = get_method(method)
    fn = spec.load()
    accepted = spec.options()
    unknown = [o for o, v in options.items() if v is not None and o not in accepted]
    if unknown:
        raise ParameterError(
            f"method {method!r} does not take option(s) {unknown}; it takes {accepted or 'none'}")
    kwargs = {o: v for o, v in options.items() if v is not None}
    if seed is not None and "seed" in accepted:
        kwargs["seed"] = seed
    recorded = {**kwargs, **({"seed": seed} if seed is not None else {})}
    if "verbose" in accepted:
        kwargs["verbose"] = bool(verbose)
    t0 = time.perf_counter()
    out = fn(inst.X, k, **kwargs)
    if isinstance(out, Partition):
        partition, details = out, {}
    else:
        partition, details = out.partition, dict(out.summary())
    if improve is not None:
        from .improve import improve_partition

        before = partition.sse()
        extra = ({"verbose": bool(verbose)}
                 if "verbose" in inspect.signature(improve_partition).parameters else {})
        partition = improve_partition(inst.X, partition, k, how=improve, seed=seed,
                                      **improve_options, **extra)
        details.update(improve=improve, sse_before_improve=before)
        if improve_options:
            details["improve_options"] = improve_options
    seconds = time.perf_counter() - t0
    if not partition.is_feasible(k):
        raise RuntimeError(f"method {method!r} returned a partition that is not {k}-feasible")
    if improve_options:
        recorded["improve_options"] = improve_options
    return RunResult(method, k, partition, seconds, recorded, details,
                     None if isinstance(out, Partition) else out)
