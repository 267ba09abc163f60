"""Shared fixtures: the CASC reference files are read from ../shared/data and
never copied into the project; tests that need them skip when absent."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
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
def tarragona():
    from mipagg.instance import read_csv

    return read_csv(_data_file("tarragona"))


@pytest.fixture(scope="session")
def companies():
    """Seed 004 Table 1: 11 companies, key attributes surface and employees."""
    from mipagg.instance import read_csv

    return read_csv(INSTANCES / "companies.csv", columns=["surface", "employees"])
