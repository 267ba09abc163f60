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
from .plugins import ENTRY_POINT_GROUP, METHOD_NAME, PluginSpec, check_function, describe

__all__ = ["MethodSpec", "METHODS", "get_method", "method_names", "user_options",
           "register_method", "unregister_method", "load_entry_points"]


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
    ("vmdav", "mipagg.heuristics.vmdav:vmdav", "V-MDAV variable-size groups (option gamma)", "Solanas & Martínez-Ballesté 2006"),
    ("md", "mipagg.heuristics.fixed:md", "maximum distance fixed-size groups", "seed 004 §4.2.2"),
    ("cbfs", "mipagg.heuristics.fixed:cbfs", "centroid-based fixed-size groups", "Laszlo & Mukherjee 2005; seed 004 §4.2.3"),
    ("npn-mhm", "mipagg.heuristics.paths:npn_mhm", "MHM on the nearest-point-next path", "seed 004 §4.2.1"),
    ("md-mhm", "mipagg.heuristics.paths:md_mhm", "MHM on the maximum-distance path", "seed 004 §4.2.2"),
    ("mdav-mhm", "mipagg.heuristics.paths:mdav_mhm", "MHM on the MDAV path", "seed 004 §4.2.3"),
    ("cbfs-mhm", "mipagg.heuristics.paths:cbfs_mhm", "MHM on the CBFS path", "seed 004 §4.2.3"),
    # --- TSP-based methods (engineer B2; seeds 000, 002, 003) ---
    ("tsp-mhm", "mipagg.tsp_micro:hm2_micro", "(HM)²-Micro: MHM on a TSP Hamiltonian path (options tour, repeats)", "Maya-López et al. 2020 (seed 002 §4); seed 003 ch. 4"),
    ("mf-tsp", "mipagg.tsp_micro:mf_tsp", "MF-TSP: fixed-size groups from a neighbourhood matrix of Hamiltonian paths (option tour)", "seed 000 Algorithm 1; seed 003 ch. 3"),
    ("mdav-lk-mhm", "mipagg.tsp_micro:mdav_lk_mhm", "MDAV path improved by Lin–Kernighan (option search=lk|oropt), then MHM", "Heaton & Mukherjee 2011, as in seed 002 §5.2"),
    ("compress", "mipagg.tsp_micro:compress", "Cc-C-MHM: tour over MDAV c-group centroids, decompressed, MHM (options c, tour)", "seed 003 ch. 5, Algorithm 3"),
    # --- column generation (engineer A1; seed 001) ---
    ("cg", "mipagg.exact.colgen:column_generation", "column generation with rounding, certified lower bound and gap (options pricing, time_limit, max_iterations, stabilization)", "seed 001 §4-5 (MicroaggregationHeuristicMP)"),
    ("bp", "mipagg.exact.bp:branch_and_price", "branch-and-price with subset-row cuts: optimal partition or certified global bound (options time_limit, node_limit, cuts, close_gap)", "seed 001 §4-5 (master); Ryan & Foster 1981; Barnhart et al. 1998; Jepsen et al. 2008"),
    ("bp-split", "mipagg.exact.countsplit:split_by_groups", "bp as two restricted runs, at most m - 1 groups and groups of at most k + r records (n = mk + r): the optimum or a certified bound when the problem's own tree is too wide (options of bp; checkpoint and resume name a pair of files)", "seed 001 Prop. 2.2; issue 22"),
    # --- portfolio (best-known partitions; issue 8) ---
    ("portfolio", "mipagg.portfolio:portfolio", "best of cg (and bp), tsp-mhm (LKH, seeded repeats), mdav-lk-mhm, compress, mdav-mhm, V-MDAV within one time budget, each split/local-search/RCS post-processed, plus merge-and-resplit search (options time_limit, methods)", "seed 001 §5 and Prop. 2.2; seed 002 §4-5; seed 003 chs. 4-6; seed 004 §4"),
]

METHODS: dict[str, MethodSpec] = {r[0]: MethodSpec(*r) for r in _ROWS}


def user_options(accepted) -> list[str]:
    """The options of a method a user can set: ``accepted`` without ``verbose``
    (progress lines, passed by the API and the command line themselves)."""
    return [o for o in accepted if o != "verbose"]


def method_names() -> list[str]:
    """Every method name, plug-ins included (:mod:`mipagg.plugins`)."""
    load_entry_points()
    return list(METHODS)


def get_method(name: str) -> MethodSpec:
    """The registry row of ``name``; plug-in entry points are discovered on first use."""
    if name not in METHODS:
            load_entry_points()
    try:
        return METHODS[name]
    except KeyError:
        raise ParameterError(
            f"unknown method {name!r}; available: {', '.join(METHODS)}"
        ) from None


# --- plug-in methods (mipagg.plugins) ---------------------------------------------------

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
    if not isinstance(name, str) or not METHOD_NAME.match(name):
        raise ParameterError(f"plug-in method name must be lowercase letters, digits and "
                             f"- _ . +, got {name!r}")
    existing = METHODS.get(name)
    if existing is not None and not getattr(existing, "plugin", False):
        raise ParameterError(f"{name!r} is a built-in method; choose another name")
    if existing is not None and not replace:
        raise ParameterError(f"plug-in method {name!r} is already registered "
                             "(replace=True to replace it)")
    check_function(name, f)
    summary, paper = describe(f, paper, summary)
    target = f"{getattr(f, '__module__', '?')}:{getattr(f, '__qualname__', repr(f))}"
    spec = PluginSpec(name, target, summary, paper, fn=f)
    METHODS[name] = spec
    return spec


def unregister_method(name: str) -> None:
    """Remove the plug-in method ``name`` (built-ins cannot be removed)."""
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
            summary, ref = describe(f, getattr(f, "paper", None) or ref, None)
        except Exception:
            pass                            # reported by PluginSpec.load when used
        METHODS[ep.name] = PluginSpec(ep.name, ep.value, summary, ref, entry_point=ep)
        added.append(ep.name)
    return added
