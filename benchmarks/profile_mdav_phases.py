"""Where indexed MDAV spends its time: CPU seconds per query kind.

    .venv/bin/python benchmarks/profile_mdav_phases.py N [LEAF] [--no-rebuild]

Runs the MDAV loop of ``mipagg.heuristics.mdav._mdav_steps`` on SimU (N × 10,
seed N, standardized, k = 3) with libc ``clock()`` (process CPU time) read
around each step inside the compiled loop: farthest from the centroid,
farthest from r, the k nearest of r (asked once more, on its own, to time it),
the group of r (k nearest + removals), the group of s, the tree rebuilds.
"""

from __future__ import annotations

import ctypes
import sys
import time

import numpy as np
from numba import njit

from mipagg.generators import simu
from mipagg.heuristics import _index as ix  # noqa: PLC2701

clock = ctypes.CDLL(None).clock
clock.restype = ctypes.c_long
clock.argtypes = []


@njit
def _run(X, k, T, C, alive, out, tm, rebuild):
    m = X.shape[0]
    pos = 0
    while m >= 3 * k:
        a = clock()
        if rebuild:
            ix.maybe_rebuild(T, X, alive, m)
        b = clock()
        tm[5] += b - a
        r = ix.farthest_from_centroid(C, X, alive, m)
        a = clock()
        tm[0] += a - b
        s = ix.tree_farthest(T, X, alive, X[r])
        b = clock()
        tm[1] += b - a
        ix.tree_nearest(T, X, alive, X[r], k)
        a = clock()
        tm[2] += a - b
        pos = ix.take_group(T, C, X, alive, r, k, out, pos, False)
        b = clock()
        tm[3] += b - a
        if not alive[s]:
            s = ix.tree_farthest(T, X, alive, X[r])
        pos = ix.take_group(T, C, X, alive, s, k, out, pos, False)
        a = clock()
        tm[4] += a - b
        m -= 2 * k
    return pos


def main() -> int:
    n = int(sys.argv[1])
    leaf = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].isdigit() else ix.LEAF_SIZE
    rebuild = "--no-rebuild" not in sys.argv
    k = 3
    for X in (np.random.default_rng(0).normal(size=(60, 10)),  # compile first
              np.ascontiguousarray(simu(n, 10, seed=n).X)):
        c = time.process_time()
        T = ix.build_tree(X, leaf)
        C = ix.centroid_state(X)
        alive = np.ones(X.shape[0], dtype=np.bool_)
        out = np.empty(X.shape[0], dtype=np.int64)
        build = time.process_time() - c
        if X.shape[0] == 60:
            _run(X, k, T, C, alive, out, np.zeros(6, dtype=np.int64), rebuild)
    tm = np.zeros(6, dtype=np.int64)
    c = time.process_time()
    _run(X, k, T, C, alive, out, tm, rebuild)
    total = time.process_time() - c
    s = tm / 1e6
    print(f"n={n} leaf={leaf} rebuild={rebuild}: build {build:.2f} s, loop {total:.2f} CPU s = "
          f"centroid {s[0]:.2f} + farthest from r {s[1]:.2f} + nearest of r (extra) {s[2]:.2f}"
          f" + group r {s[3]:.2f} + group s {s[4]:.2f} + rebuilds {s[5]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
