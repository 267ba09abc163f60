"""Shared fixtures: the CASC reference files are read from ../shared/data and
never copied into the project; tests that need them skip when absent.

Under pytest-xdist (``make test`` runs ``-n auto``) every worker compiles into a
numba cache of its own: numba names a cached overload's data file after its
position in the index file, so two processes compiling different signatures of
one kernel into the same directory can load each other's machine code.
"""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _worker_numba_cache() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return
    if "numba" in sys.modules:  # too late: the cache directory is read at import
        raise RuntimeError("numba was imported before tests/conftest.py set a per-worker cache")
    base = os.environ.get("NUMBA_CACHE_DIR") or str(ROOT / ".pytest_cache" / "numba")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, worker)


_worker_numba_cache()
SHARED_DATA = ROOT.parent / "shared" / "data"
INSTANCES = ROOT / "instances"


def _data_file(name: str) -> Path:
    path = SHARED_DATA / f"{name}.csv"
    if not path.is_file():
        pytest.skip(f"reference file {path} not available (CASC data is never committed)")
    return path


@pytest.fixture(scope="session")
def census():
    from mipagg.instance import read_csv

    return read_csv(_data_file("census"))


@pytest.fixture(scope="session")
def tree24(census):
    """24 Census records at k = 3 (random subset, seed 0) and their optimum
    by the full MIP: the small bp tree of tests/exact (30–150 nodes with the
    root's extras off, by the branching rule)."""
    from mipagg.exact.reference import set_partitioning
    from mipagg.subsets import subset

    X = subset(census, 24, "random", 0).X
    return X, set_partitioning(X, 3, integral=True)[0]


@pytest.fixture(scope="session")
def tarragona():
    from mipagg.instance import read_csv

    return read_csv(_data_file("tarragona"))


@pytest.fixture(scope="session")
def companies():
    """Seed 004 Table 1: 11 companies, key attributes surface and employees."""
    from mipagg.instance import read_csv

    return read_csv(INSTANCES / "companies.csv", columns=["surface", "employees"])


@pytest.fixture
def closing_deadlines(monkeypatch):
    """The seconds from each node gap closing's start to its deadline, as the
    closings of the test's runs happen (bp's ``close_node`` spied on)."""
    import time

    from mipagg.exact import nodeclosing

    seen: list = []
    real = nodeclosing.close_node

    def spy(*args):
        seen.append(args[9] - time.perf_counter())     # the deadline, from now
        return real(*args)

    monkeypatch.setattr(nodeclosing, "close_node", spy)
    return seen
