"""Machine description printed by every foundation benchmark."""

from __future__ import annotations

import os
import platform
from importlib import metadata


def machine() -> str:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    vers = []
    for pkg in ("numpy", "numba", "scipy", "microagg1d"):
        try:
            vers.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{os.cpu_count()} cores, {cpu}; Python {platform.python_version()}; "
            f"{', '.join(vers)}; load average at start {load:.1f}")


def option(text: str):
    """``key=value`` -> (key, value), the value read as the package's
    command-line options are (:func:`mipagg.exact.settings.option_value`)."""
    from mipagg.exact.settings import option_value

    key, _, value = text.partition("=")
    return key, option_value(value)


def watch_node_solves(hook):
    """Route every :meth:`MasterProblem.solve` through ``hook(master, first,
    kept, solve)``, which runs the real solve by calling ``solve()`` and
    returns its result.  ``first``: :meth:`MasterProblem.set_allowed` ran
    since the last solve (a node's first LP); ``kept``: that node's basis
    was the one HiGHS still held (``bases_kept`` grew since).  Returns a
    function that undoes the wrapping."""
    from mipagg.exact.master import MasterProblem

    solve, set_allowed = MasterProblem.solve, MasterProblem.set_allowed
    state = {"new": False, "kept": 0}

    def set_allowed_(self, allowed):
        state["new"], state["kept"] = True, self.bases_kept
        return set_allowed(self, allowed)

    def solve_(self, time_limit=None):
        first, state["new"] = state["new"], False
        return hook(self, first, first and self.bases_kept > state["kept"],
                    lambda: solve(self, time_limit))

    def undo():
        MasterProblem.solve, MasterProblem.set_allowed = solve, set_allowed

    MasterProblem.solve, MasterProblem.set_allowed = solve_, set_allowed_
    return undo
