"""Plug-in methods: anyone's heuristic, run by name like a built-in one.

A plug-in is a function ``f(X, k, *, seed=None, time_limit=None)`` on the
standardized (n, p) matrix X returning group labels (one non-negative integer
per row) or a :class:`~mipagg.partition.Partition`.  It becomes a method

* by :func:`mipagg.methods.register_method` (``mipagg.register_method("mine", f, paper=...)``),
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
from typing import Any, Callable

import numpy as np

from .errors import MipaggError, ParameterError

__all__ = ["ENTRY_POINT_GROUP", "METHOD_NAME", "PluginError", "PluginSpec",
           "validated_partition", "describe", "check_function"]

ENTRY_POINT_GROUP = "mipagg.methods"
METHOD_NAME = re.compile(r"^[a-z0-9][a-z0-9_.+-]*$")


class PluginError(MipaggError):
    """A plug-in method could not be loaded or returned an unusable partition."""


def describe(f, paper: str | None, summary: str | None) -> tuple[str, str]:
    """(summary, paper) of a plug-in: the arguments, else the function's
    ``summary``/``paper`` attributes, else its docstring's first line."""
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
    entry_point: Any = field(default=None, repr=False, compare=False)
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


def check_function(name: str, f) -> None:
    """Refuse ``f`` unless it can be called as ``f(X, k, ...)``."""
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
