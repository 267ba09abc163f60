"""Paper-style subsets (seed 001 section 6)."""

import numpy as np
import pytest

from mipagg.errors import ParameterError
from mipagg.subsets import CRITERIA, paper_subsets, subset, subset_rows


def test_hundred_instances_with_stable_names(tarragona):
    subs = paper_subsets(tarragona, seed=0)
    assert len(subs) == 100
    names = [s.name for s in subs]
    assert len(set(names)) == 100
    assert "tarragona-n30-norm-2" in names and "tarragona-n200-centroid-4" in names
    s = subs[names.index("tarragona-n40-random-3")]
    assert s.n == 40 and s.provenance["parent"] == "tarragona"
    assert (s.provenance["criterion"], s.provenance["size"], s.provenance["index"],
            s.provenance["seed"]) == ("random", 40, 3, 0)
    assert np.array_equal(s.raw, tarragona.raw[s.provenance["rows"]])
    assert np.allclose(s.X.mean(0), 0, atol=1e-12) and np.allclose(s.X.std(0, ddof=1), 1)


def test_deterministic_and_rebuildable_alone(census):
    a = paper_subsets(census, sizes=(30, 50), seed=5)
    b = paper_subsets(census, sizes=(30, 50), seed=5)
    assert [s.provenance["rows"] for s in a] == [s.provenance["rows"] for s in b]
    one = subset(census, 50, "norm", 4, seed=5)
    match = next(s for s in a if s.name == one.name)
    assert match.provenance["rows"] == one.provenance["rows"]
    other = subset(census, 50, "norm", 4, seed=6)
    assert other.provenance["rows"] != one.provenance["rows"]


@pytest.mark.parametrize("criterion", CRITERIA)
def test_criteria(census, criterion):
    for index in range(5):
        rows = subset_rows(census, 100, criterion, index, seed=1)
        assert rows.size == 100 == np.unique(rows).size
        assert np.all(np.diff(rows) > 0)  # file order
        if criterion == "random":
            continue
        if criterion == "consecutive":
            key = np.arange(census.n)
        elif criterion == "norm":
            key = np.linalg.norm(census.raw, axis=1)
        else:
            key = np.linalg.norm(census.X, axis=1)
        pos = np.empty(census.n, dtype=int)
        pos[np.argsort(key, kind="stable")] = np.arange(census.n)
        window = np.sort(pos[rows])
        assert window[-1] - window[0] == 99  # a contiguous window of the order


def test_norm_and_centroid_criteria_differ(census):
    assert not np.array_equal(subset_rows(census, 30, "norm", 0), subset_rows(census, 30, "centroid", 0))


def test_subset_errors(census):
    with pytest.raises(ParameterError, match="criterion"):
        subset(census, 30, "sorted", 0)
    with pytest.raises(ParameterError, match="size"):
        subset(census, 5000, "random", 0)
    with pytest.raises(ParameterError, match="index"):
        subset(census, 30, "random", -1)
    assert len(paper_subsets(census, sizes=(30, 5000), count=2)) == 8  # too large: skipped
