"""Progress lines on stderr for long runs.

Methods that can run for more than a few seconds take a ``verbose`` keyword
(the scikit-learn convention): ``verbose=True`` prints a line to stderr at
most every ``every`` seconds with the elapsed time and whatever the method
reports (iteration, LP value, bound, best SSE, ...); ``verbose=False``
(the Python default) prints nothing.  The command line passes
``verbose=True`` unless ``--quiet`` is given, so stdout stays free for the
single JSON object of ``--json``.

>>> p = Progress("cg", enabled=False)
>>> p.update(iteration=1, lp=2.0)   # disabled: prints nothing
False
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress", "format_fields", "format_duration"]


def format_duration(seconds: float | None) -> str | None:
    """``seconds`` as "42 s", "3.5 min", "7.2 h" or "160 d" (None stays None).

    >>> format_duration(1.4e7)
    '162 d'
    """
    if seconds is None:
        return None
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= 2 * size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.0f} s"


def format_fields(fields: dict) -> str:
    """``key value`` pairs, floats with 6 significant digits, ``None`` as "–"."""
    parts = []
    for key, value in fields.items():
        if value is None:
            text = "–"
        elif isinstance(value, float):
            text = f"{value:.6g}"
        else:
            text = str(value)
        parts.append(f"{key} {text}")
    return "  ".join(parts)


class Progress:
    """Throttled progress reporter: ``update(**fields)`` prints
    ``[name 12.3s] key value ...`` to ``stream`` (default stderr) when
    enabled and at least ``every`` seconds passed since the last line (or
    ``force=True``); returns whether it printed.  ``done(**fields)`` prints a
    final line when at least one line was printed before or the run took
    longer than ``every`` seconds."""

    def __init__(self, name: str, *, enabled: bool = True, every: float = 2.0, stream=None):
        self.name = name
        self.enabled = bool(enabled)
        self.every = float(every)
        self.stream = stream
        self.start = time.perf_counter()
        self._last = self.start
        self.lines = 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def update(self, force: bool = False, **fields) -> bool:
        if not self.enabled:
            return False
        now = time.perf_counter()
        if not force and now - self._last < self.every:
            return False
        self._last = now
        stream = self.stream if self.stream is not None else sys.stderr
        print(f"[{self.name} {now - self.start:.1f}s] {format_fields(fields)}", file=stream,
              flush=True)
        self.lines += 1
        return True

    def done(self, **fields) -> bool:
        if not self.enabled or (self.lines == 0 and self.elapsed() < self.every):
            return False
        return self.update(force=True, **fields)
