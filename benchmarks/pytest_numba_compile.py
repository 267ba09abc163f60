"""pytest plugin: where the suite's numba compilation time goes (docs/bench/suite.md §5).

    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=benchmarks \\
        .venv/bin/python -m pytest -n 0 -p pytest_numba_compile [tests...]

Listens to numba's ``numba:compile`` event, which fires only when a kernel is
really compiled (not when it is loaded from the cache). The time is counted per
kernel as *self time*: the kernels it compiles on the way (its callees) are
subtracted. It is also counted per test. At the end it prints the
kernels that cost the most, with the number of versions compiled and the
argument types that differ between them (an integer literal, a read-only
array). It writes everything to ``$NUMBA_COMPILE_JSON`` (default
``numba-compile.json``). Compilations in child processes are not counted.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter, defaultdict

import pytest
from numba.core import event

_stack: list[list] = []          # [kernel, start, callee seconds]
_self: Counter = Counter()
_versions: defaultdict = defaultdict(list)
_per_test: Counter = Counter()
_test = ["<collection>"]


class _Listener(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        _stack.append([f"{f.__module__}.{f.__qualname__}", time.perf_counter(), 0.0])
        _versions[_stack[-1][0]].append([str(t) for t in ev.data["args"]])

    def on_end(self, ev):
        name, start, callees = _stack.pop()
        total = time.perf_counter() - start
        _self[name] += total - callees
        _per_test[_test[0]] += total - callees
        if _stack:
            _stack[-1][2] += total


event.register("numba:compile", _Listener())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _test[0] = item.nodeid
    return (yield)


def _differing(versions):
    """The argument positions whose types differ between the versions."""
    width = max(map(len, versions))
    cols = [[v[i] if i < len(v) else "-" for v in versions] for i in range(width)]
    return {i: sorted(set(c)) for i, c in enumerate(cols) if len(set(c)) > 1}


def pytest_terminal_summary(terminalreporter):
    tr = terminalreporter
    total = sum(_self.values())
    tr.section("numba compilation (self seconds)")
    tr.write_line(f"{total:.1f} s in {sum(map(len, _versions.values()))} compilations")
    for name, sec in _self.most_common(15):
        tr.write_line(f"{sec:7.1f} s  {len(_versions[name])}x  {name}")
        for i, types in _differing(_versions[name]).items():
            tr.write_line(f"{'':20}arg {i}: " + " | ".join(t[:60] for t in types))
    for test, sec in _per_test.most_common(10):
        tr.write_line(f"{sec:7.1f} s  {test}")
    out = os.environ.get("NUMBA_COMPILE_JSON", "numba-compile.json")
    with open(out, "w") as fh:
        json.dump({"self_seconds": _self.most_common(), "versions": _versions,
                   "per_test": _per_test.most_common()}, fh, indent=1)
