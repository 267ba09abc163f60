"""The tree checkpoints committed in docs/results/trees/ (written by
``bp --checkpoint`` during scripts/casc.py's bound stages): each one belongs
to its CASC file and k (fingerprint), its incumbent is a k-feasible partition
of the SSE it claims (recomputed with numpy), its certified bound lies below
the committed best-known partition of the cell (LB ≤ OPT ≤ any partition),
and a checkpoint that resumed another one holds a bound no lower than it (a
subtree's bound never falls below its parent's).  Skipped without
../shared/data."""

import re

import numpy as np
import pytest
from _casc_files import ROOT, cell_of

from mipagg.exact import checkpoint
from mipagg.instance import read_csv

TREES = ROOT / "docs" / "results" / "trees"
NAME = re.compile(r"(census|tarragona)_k(\d+)(_\w+)?\.npz")
FILES = sorted(TREES.glob("*.npz")) if TREES.is_dir() else []

pytestmark = pytest.mark.data


def _sse(Z, labels, k) -> float:
    sse = 0.0
    for g in np.unique(labels):
        members = Z[labels == g]
        assert len(members) >= k, f"group {g} has {len(members)} < {k} records"
        sse += float(((members - members.mean(axis=0)) ** 2).sum())
    return sse


def _best_known_sse(Z, data: str, k: int) -> float | None:
    path = ROOT / "instances" / "solutions" / f"{data}_k{k}.csv"
    if not path.is_file():
        return None
    labels = np.array([int(x) for x in path.read_text().splitlines()[1:]], dtype=np.int64)
    return _sse(Z, labels, k)


@pytest.mark.parametrize("path", FILES or [None], ids=lambda p: p.name if p else "none")
def test_committed_checkpoint(path):
    data, k, data_path = cell_of(path, NAME)
    Z = read_csv(data_path).X
    ck = checkpoint.load(path)
    assert ck.meta["fingerprint"] == checkpoint.fingerprint(Z, k), "another file or k"
    incumbent = _sse(Z, np.asarray(ck.labels), k)
    assert incumbent == pytest.approx(ck.meta["incumbent_sse"], rel=1e-9)
    lb = ck.lower_bound
    assert lb is not None and lb <= incumbent + 1e-6
    best = _best_known_sse(Z, data, k)
    if best is not None:
        assert lb <= best + 1e-6, "a certified bound above a known partition"
    resumed = ck.meta["settings"].get("resume")
    if resumed and (ROOT / resumed).is_file():
        assert lb >= checkpoint.load(ROOT / resumed).lower_bound - 1e-9
