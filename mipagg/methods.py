"""The registry of microaggregation methods known to the API and the command.

A method is a function ``fn(X, k, **options)`` on the standardized matrix X
that returns a :class:`~mipagg.partition.Partition`, or a result object with a
``partition`` attribute and a ``summary()`` dict of extra, JSON-able fields
(lower bound, gap, status, path length, ...).  Each capability adds its rows
below; names are lowercase with hyphens.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Callable

from .errors import ParameterError

__all__ = ["MethodSpec", "METHODS", "get_method", "method_names"]


@dataclass(frozen=True)
class MethodSpec:
    name: str
    target: str  # "module:function", imported lazily
    summary: str
    reference: str

    def load(self) -> Callable:
        module, func = self.target.split(":")
        return getattr(importlib.import_module(module), func)

    def options(self) -> list[str]:
        """Keyword options the method accepts (besides X and k)."""
        params = list(inspect.signature(self.load()).parameters.values())[2:]
        return [p.name for p in params if p.kind is p.KEYWORD_ONLY or p.default is not p.empty]


_ROWS = [
    # --- foundation: fixed-size and path + MHM heuristics (seed 004) ---
    ("mdav", "mipagg.heuristics.mdav:mdav", "MDAV fixed-size groups", "Domingo-Ferrer & Torra 2005; seed 004 §4.2.3"),
]

METHODS: dict[str, MethodSpec] = {r[0]: MethodSpec(*r) for r in _ROWS}


def method_names() -> list[str]:
    return list(METHODS)


def get_method(name: str) -> MethodSpec:
    try:
        return METHODS[name]
    except KeyError:
        raise ParameterError(
            f"unknown method {name!r}; available: {', '.join(METHODS)}"
        ) from None
