"""Memory each method needs, checked before it starts.

Most methods work in O(n·p + n·k) memory.  A few build dense n×n matrices
(distances for the exact methods and the TSP constructions, the LKH input,
MF-TSP's neighbourhood matrix), which at n = 30 000 is 6.7 GiB per matrix.
:func:`check_memory` estimates the peak of a run from n, p, k and the
method's options and raises :class:`~mipagg.errors.MipaggError` *before*
any work when it exceeds the memory available, stating what the run would
need and the largest n that fits — instead of a MemoryError traceback or
the OOM killer hours later.

The estimate is ``BASE + n·(LINEAR_P·p + LINEAR_K·k + LINEAR) +
quadratic(method)·m²`` bytes, where m is the number of points the dense
part works on (n, n + 1 with the dummy node of the Hamiltonian paths, or
the ⌈n/c⌉ centroids of ``compress``).  The quadratic factors were measured
as peak resident memory (``ru_maxrss``) of one run per size,
``benchmarks/bench_memory.py`` and docs/bench/memory.md.

The memory available is the smallest of the physical memory, the cgroup
limit (``memory.max``), ``RLIMIT_AS`` (``ulimit -v``, less what the process
has reserved already) and the environment variable ``MIPAGG_MEMORY_LIMIT``
(bytes, or with a suffix K, M, G: ``MIPAGG_MEMORY_LIMIT=8G``).

>>> estimate_bytes("mdav", 1000, 5, 3) < estimate_bytes("cg", 1000, 5, 3)
True
"""

from __future__ import annotations

import math
import os
import re

from .errors import MipaggError

__all__ = ["QUADRATIC", "available_bytes", "check_memory", "estimate_bytes", "format_bytes",
           "max_records"]

BASE = 250 * 2**20          # interpreter, numpy, scipy, numba and its compiled kernels
LINEAR_P = 80               # copies of the standardized data (bytes per value)
LINEAR_K = 40               # MHM's arc costs (k per record) and the like
LINEAR = 400                # labels, orders, neighbour lists (bytes per record)

# bytes per m² of the dense part (measured, docs/bench/memory.md), by tour method
# for the TSP-based methods; 0: no n×n matrix
TOUR_QUADRATIC = {"nn": 0.0, "2opt": 0.0, "oropt": 0.0, "lk": 0.0, "rnn": 32.0,
                  "nearest": 16.0, "farthest": 16.0, "cheapest": 16.0, "arbitrary": 16.0,
                  "lkh": 80.0, "exact": 40.0}
QUADRATIC = {"cg": 40.0, "bp": 40.0, "bp-split": 40.0, "mf-tsp": 64.0}
_WHY = {"cg": "its n×n distance matrices", "bp": "its n×n distance matrices",
        "bp-split": "its n×n distance matrices",
        "mf-tsp": "its n paths of n records and its n×n neighbourhood matrix",
        "tsp-mhm": "the n×n distance matrix of its tour", "compress": "the distance matrix "
        "of its tour over the n/c centroids"}
LINEAR_METHODS = ("mdav", "vmdav", "md", "cbfs", "npn-mhm", "mdav-mhm", "md-mhm",
                  "cbfs-mhm", "mdav-lk-mhm")


def _dense(method: str, n: int, options: dict) -> tuple[float, int]:
    """(bytes per m², m) of the dense part of ``method``."""
    options = options or {}
    if method == "tsp-mhm":
        tour = options.get("tour") or "lkh"
        return TOUR_QUADRATIC.get(tour, 40.0), n + 1
    if method == "compress":
        tour = options.get("tour") or "lkh"
        c = options.get("c") or 2
        return TOUR_QUADRATIC.get(tour, 40.0), -(-n // max(int(c), 1)) + 1
    if method == "mf-tsp":
        return QUADRATIC["mf-tsp"], n
    return QUADRATIC.get(method, 0.0), n


def estimate_bytes(method: str, n: int, p: int, k: int, options: dict | None = None) -> int:
    """Estimated peak memory (bytes) of ``method`` on n records of p attributes."""
    per, m = _dense(method, int(n), options or {})
    linear = int(n) * (LINEAR_P * int(p) + LINEAR_K * int(k) + LINEAR)
    return int(BASE + linear + per * float(m) ** 2)


def _parse_size(text: str) -> int | None:
    m = re.fullmatch(r"\s*([0-9.]+)\s*([KMGT]?)i?B?\s*", text, re.IGNORECASE)
    if not m:
        return None
    scale = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}[m.group(2).upper()]
    return int(float(m.group(1)) * scale)


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def available_bytes() -> tuple[int, str]:
    """(bytes, where the limit comes from): the smallest of the physical
    memory, the cgroup limit, RLIMIT_AS and ``MIPAGG_MEMORY_LIMIT``."""
    limits = []
    env = os.environ.get("MIPAGG_MEMORY_LIMIT")
    if env:
        size = _parse_size(env)
        if size is None:
            raise MipaggError(f"MIPAGG_MEMORY_LIMIT must be a size such as 8G or 512M, got {env!r}")
        limits.append((size, "MIPAGG_MEMORY_LIMIT"))
    try:
        limits.append((os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
                       "physical memory"))
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:
            limits.append((int(text), "cgroup memory limit"))
        break
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            # address space already reserved but not resident (numba, thread stacks)
            reserved = (_status_kib("VmSize") or 0) - (_status_kib("VmRSS") or 0)
            limits.append((max(soft - reserved, 0), "address-space limit (ulimit -v)"))
    except (ImportError, ValueError, OSError):
        pass
    if not limits:
        return 2**62, "unknown"
    return min(limits)


def max_records(method: str, p: int, k: int, options: dict | None = None,
                limit: int | None = None) -> int | None:
    """Largest n whose estimate fits in ``limit`` bytes (default: available);
    None when the method has no n×n part (it is linear in n)."""
    per, _ = _dense(method, 1000, options or {})
    if limit is None:
        limit = available_bytes()[0]
    lin = LINEAR_P * p + LINEAR_K * k + LINEAR
    room = limit - BASE
    if room <= 0:
        return 0
    if per <= 0:
        return None
    # the dense part works on m ≈ n/c (+1) points
    c = 1.0
    if method == "compress":
        c = float((options or {}).get("c") or 2)
    a = per / c**2
    n = (-lin + math.sqrt(lin * lin + 4 * a * room)) / (2 * a)
    n = int(n)
    while n > 0 and estimate_bytes(method, n, p, k, options) > limit:
        n -= max(1, n // 1000)
    return n


def format_bytes(b: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= scale:
            return f"{b / scale:.1f} {unit}"
    return f"{int(b)} B"


def check_memory(method: str, n: int, p: int, k: int, options: dict | None = None) -> int:
    """Raise :class:`MipaggError` when ``method`` on n records would need
    more memory than is available (see the module docstring); returns the
    estimate in bytes otherwise.  Called by the methods with an n×n part
    before any work, and by :func:`mipagg.api.microaggregate` for every
    method."""
    need = estimate_bytes(method, n, p, k, options)
    limit, source = available_bytes()
    if need <= limit:
        return need
    fit = max_records(method, p, k, options, limit)
    why = _WHY.get(method, "its data")
    hint = (f"; it accepts up to about n = {fit:,} records here" if fit else "")
    raise MipaggError(
        f"method {method!r} on n = {n:,} records would need about {format_bytes(need)} of "
        f"memory ({why}), more than the {format_bytes(limit)} available ({source}){hint}; "
        f"methods in O(n·p) memory: {', '.join(LINEAR_METHODS)}")
