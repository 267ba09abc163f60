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
    # --- portfolio (best-known partitions; issue 8) ---
    ("portfolio", "mipagg.portfolio:portfolio", "best of cg (and bp), tsp-mhm (LKH, seeded repeats), mdav-lk-mhm, compress, mdav-mhm, V-MDAV within one time budget, each split/local-search/RCS post-processed, plus merge-and-resplit search (options time_limit, methods)", "seed 001 §5 and Prop. 2.2; seed 002 §4-5; seed 003 chs. 4-6; seed 004 §4"),
]

METHODS: dict[str, MethodSpec] = {r[0]: MethodSpec(*r) for r in _ROWS}


def method_names() -> list[str]:
    """Every method name, plug-ins included (:mod:`mipagg.plugins`)."""
    from .plugins import load_entry_points

    load_entry_points()
    return list(METHODS)


def get_method(name: str) -> MethodSpec:
    """The registry row of ``name``; plug-in entry points are discovered on first use."""
    if name not in METHODS:
        from .plugins import load_entry_points

        load_entry_points()
    try:
        return METHODS[name]
    except KeyError:
        raise ParameterError(
            f"unknown method {name!r}; available: {', '.join(METHODS)}"
        ) from None
