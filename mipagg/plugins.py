"""Plug-in methods: anyone's heuristic, run by name like a built-in one.

A plug-in is a function ``f(X, k, *, seed=None, time_limit=None)`` on the
standardized (n, p) matrix X returning group labels (one non-negative integer
per row) or a :class:`~mipagg.partition.Partition`.  It becomes a method

* by :func:`register_method` (``mipagg.register_method("mine", f, paper=...)``),
  for the running process (and the grid runner's forked children), or
* by an entry point in the group ``mipagg.methods`` of any installed package
  (``[project.entry-points."mipagg.methods"] mine = "pkg.module:f"``; the
  function's ``paper`` and ``summary`` attributes, else its docstring's first
  line, describe it), discovered on first use of the registry.

It is then listed by ``mipagg methods`` and usable by ``mipagg run``,
``mipagg gap --from``, experiment grids and reports, and the portfolio
(``methods=[..., "mine"]``).  Its output is checked as the built-ins' are:
one label per record, k-feasible, SSE and IL recomputed from the labels (a
plug-in's own figures are never used); a bad output raises
:class:`PluginError` naming the plug-in.  See examples/mipagg-example-plugin.
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .errors import MipaggError, ParameterError

__all__ = ["ENTRY_POINT_GROUP", "PluginError", "PluginSpec", "register_method",
           "unregister_method", "load_entry_points"]

ENTRY_POINT_GROUP = "mipagg.methods"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.+-]*$")


class PluginError(MipaggError):
    """A plug-in method could not be loaded or returned an unusable partition."""


def _describe(f, paper: str | None, summary: str | None) -> tuple[str, str]:
    doc = (inspect.getdoc(f) or "").strip().splitlines()
    summary = summary or getattr(f, "summary", None) or (doc[0] if doc else "plug-in method")
    paper = paper or getattr(f, "paper", None) or "plug-in"
    return str(summary), str(paper)


def validated_partition(name: str, out, X: np.ndarray, k: int):
    """The :class:`~mipagg.partition.Partition` of a plug-in's output on X,
    or :class:`PluginError` naming ``name``: labels or a Partition of n rows,
    non-negative integers, every group of at least k records."""
    from .partition import Partition

    what = f"plug-in method {name!r}"
    labels = getattr(out, "labels", out)
    if labels is None or isinstance(labels, (str, bytes, dict)):
        raise PluginError(f"{what} returned {type(out).__name__}, expected labels or a "
                          "Partition")
    try:
        arr = np.asarray(labels)
    except Exception:
        raise PluginError(f"{what} returned {type(out).__name__}, expected labels or a "
                          "Partition") from None
    n = X.shape[0]
    if arr.ndim != 1 or arr.size != n:
        raise PluginError(f"{what} returned {arr.size} labels of shape {arr.shape} for "
                          f"{n} records")
    if arr.dtype.kind not in "iub":
        if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise PluginError(f"{what} returned labels that are not integers "
                              f"(dtype {arr.dtype})")
    arr = arr.astype(np.int64)
    if arr.size and arr.min() < 0:
        raise PluginError(f"{what} returned a negative label ({int(arr.min())})")
    p = Partition(arr, X)            # SSE, IL, ... recomputed from the labels alone
    if not p.is_feasible(k):
        small = int((p.sizes < k).sum())
        raise PluginError(f"{what} returned a partition that is not {k}-feasible: "
                          f"{small} group(s) smaller than k (smallest has "
                          f"{int(p.sizes.min())} record(s))")
    return p


def _wrap(name: str, f: Callable) -> Callable:
    """``f`` with its output validated; keeps f's signature (options)."""

    @functools.wraps(f)
    def method(X, k, **options):
        return validated_partition(name, f(X, k, **options), np.asarray(X, dtype=float), k)

    return method


@dataclass(frozen=True)
class PluginSpec:
    """A registry row (as :class:`mipagg.methods.MethodSpec`) for a plug-in:
    ``fn`` the function, or ``entry_point`` to load it from on first use."""

    name: str
    target: str
    summary: str
    reference: str
    fn: Callable | None = field(default=None, repr=False, compare=False)
    entry_point: object = field(default=None, repr=False, compare=False)
    plugin: bool = True

    def _function(self) -> Callable:
        if self.fn is not None:
            return self.fn
        try:
            return self.entry_point.load()
        except Exception as exc:
            raise PluginError(f"plug-in method {self.name!r} (entry point {self.target!r}) "
                              f"could not be loaded: {type(exc).__name__}: {exc}") from None

    def load(self) -> Callable:
        return _wrap(self.name, self._function())

    def options(self) -> list[str]:
        params = list(inspect.signature(self._function()).parameters.values())[2:]
        return [p.name for p in params if p.kind is p.KEYWORD_ONLY or p.default is not p.empty]


def _check_function(name: str, f) -> None:
    if not callable(f):
        raise ParameterError(f"plug-in method {name!r}: {f!r} is not callable")
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in params):
        raise ParameterError(f"plug-in method {name!r} must take (X, k, *, seed=None, "
                             f"time_limit=None), got {inspect.signature(f)}")


def register_method(name: str, f: Callable, *, paper: str | None = None,
                    summary: str | None = None, replace: bool = False) -> PluginSpec:
    """Make ``f(X, k, *, seed=None, time_limit=None) -> labels | Partition``
    the method ``name`` (lowercase letters, digits, ``-``, ``_``, ``.``,
    ``+``).  ``paper``: the reference shown by ``mipagg methods``.  A
    built-in name is refused; another plug-in of that name only with
    ``replace=True``.

    >>> import numpy as np
    >>> def halves(X, k, *, seed=None, time_limit=None):
    ...     "two halves by the first coordinate"
    ...     return (X[:, 0] > np.median(X[:, 0])).astype(int)
    >>> _ = register_method("halves", halves, paper="a doctest")
    >>> import mipagg
    >>> mipagg.microaggregate(np.arange(8.0)[:, None], 4, "halves").partition.sizes.tolist()
    [4, 4]
    >>> unregister_method("halves")
    """
    from .methods import METHODS

    if not isinstance(name, str) or not _NAME.match(name):
        raise ParameterError(f"plug-in method name must be lowercase letters, digits and "
                             f"- _ . +, got {name!r}")
    existing = METHODS.get(name)
    if existing is not None and not getattr(existing, "plugin", False):
        raise ParameterError(f"{name!r} is a built-in method; choose another name")
    if existing is not None and not replace:
        raise ParameterError(f"plug-in method {name!r} is already registered "
                             "(replace=True to replace it)")
    _check_function(name, f)
    summary, paper = _describe(f, paper, summary)
    target = f"{getattr(f, '__module__', '?')}:{getattr(f, '__qualname__', repr(f))}"
    spec = PluginSpec(name, target, summary, paper, fn=f)
    METHODS[name] = spec
    return spec


def unregister_method(name: str) -> None:
    """Remove the plug-in method ``name`` (built-ins cannot be removed)."""
    from .methods import METHODS

    spec = METHODS.get(name)
    if spec is None or not getattr(spec, "plugin", False):
        raise ParameterError(f"no plug-in method {name!r}")
    del METHODS[name]


_loaded = False


def load_entry_points(force: bool = False) -> list[str]:
    """Register every entry point of the group ``mipagg.methods`` (once per
    process, or again with ``force``); returns the names added.  A name that
    clashes with a built-in or an already registered plug-in is skipped with
    a warning; a plug-in that fails to import fails only when used."""
    global _loaded
    if _loaded and not force:
        return []
    _loaded = True
    import warnings
    from importlib.metadata import entry_points

    from .methods import METHODS

    added = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        existing = METHODS.get(ep.name)
        if existing is not None and not (force and getattr(existing, "entry_point", None)):
            warnings.warn(f"entry point {ep.value!r} of group {ENTRY_POINT_GROUP!r}: "
                          f"method name {ep.name!r} is taken; skipped", stacklevel=2)
            continue
        dist = getattr(getattr(ep, "dist", None), "name", None)
        ref = f"plug-in from {dist}" if dist else "plug-in"
        summary = f"entry point {ep.value}"
        try:                                # describe it now if it imports cleanly
            f = ep.load()
            summary, ref = _describe(f, getattr(f, "paper", None) or ref, None)
        except Exception:
            pass                            # reported by PluginSpec.load when used
        METHODS[ep.name] = PluginSpec(ep.name, ep.value, summary, ref, entry_point=ep)
        added.append(ep.name)
    return added
