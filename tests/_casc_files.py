"""The committed files of the CASC cells (label files, tree checkpoints), named
``{census|tarragona}_k{K}…``, and the reference file each belongs to, read
from ../shared/data (never committed)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


def cell_of(path: Path | None, name) -> tuple[str, int, Path]:
    """(data, k, the data file) of ``path``, whose name ``name`` (a compiled
    pattern: data, k) must match; skips when no such file is committed
    (``path`` None) or the data file is absent."""
    if path is None:
        pytest.skip("no such file committed")
    m = name.fullmatch(path.name)
    assert m, f"unexpected file {path.name}"
    data, k = m.group(1), int(m.group(2))
    data_path = SHARED_DATA / f"{data}.csv"
    if not data_path.is_file():
        pytest.skip(f"reference file {data_path} not available (CASC data is never committed)")
    return data, k, data_path
