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
