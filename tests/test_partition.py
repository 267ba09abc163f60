"""Partition: SSE/SST/IL identities (seed 001 §2, seed 003 §2.3) and validation."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mipagg.errors import DataError
from mipagg.instance import from_array
from mipagg.partition import Partition, group_sse, sse_of_groups


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30), p=st.integers(1, 4),
       g=st.integers(1, 6))
def test_sse_plus_between_equals_sst(seed, n, p, g):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(n, p)).astype(float)
    part = Partition(rng.integers(0, g, size=n), X)
    cents = part.centroids()
    between = float((part.sizes * ((cents - X.mean(0)) ** 2).sum(1)).sum())
    assert part.sse() + between == pytest.approx(part.sst(), abs=1e-9)
    assert part.sse() == pytest.approx(sse_of_groups(X, part.groups()), abs=1e-9)
    assert 0.0 <= part.il() <= 100.0 + 1e-9


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 30))
def test_il_is_invariant_to_ddof(seed, n):
    rng = np.random.default_rng(seed)
    raw = rng.normal(size=(n, 3)) * [1, 10, 1000]
    labels = rng.integers(0, 3, size=n)
    a, b = from_array(raw, ddof=1), from_array(raw, ddof=0)
    pa, pb = Partition(labels, a.X), Partition(labels, b.X)
    assert pa.il() == pytest.approx(pb.il())
    assert pb.sst() == pytest.approx(n * 3)  # population convention: SST = n·p
    assert pa.sst() == pytest.approx((n - 1) * 3)
    assert pa.sse() == pytest.approx(pb.sse() * (n - 1) / n)


def test_labels_are_canonical_and_groups_cover_rows():
    X = np.arange(12.0).reshape(6, 2)
    p = Partition([5, 5, 2, 2, 9, 9], X)
    assert p.labels.tolist() == [0, 0, 1, 1, 2, 2]
    q = Partition.from_groups([[4, 5], [0, 1], [2, 3]], X)
    assert np.array_equal(p.labels, q.labels)
    assert [g.tolist() for g in p.groups()] == [[0, 1], [2, 3], [4, 5]]
    assert p.sizes.tolist() == [2, 2, 2] and p.is_feasible(2) and not p.is_feasible(3)
    assert group_sse(X, [0, 1]) == pytest.approx(4.0)


def test_partition_validation():
    X = np.zeros((4, 1))
    with pytest.raises(DataError):
        Partition([0, 1, 2], X)
    with pytest.raises(DataError):
        Partition([0, -1, 0, 0], X)
    with pytest.raises(DataError, match="two groups"):
        Partition.from_groups([[0, 1], [1, 2, 3]], X)
    with pytest.raises(DataError, match="no group"):
        Partition.from_groups([[0, 1]], X)


def test_write_labels(tmp_path):
    p = Partition([1, 1, 0, 0], np.zeros((4, 1)))
    p.write_labels(tmp_path / "l.csv")
    assert (tmp_path / "l.csv").read_text().splitlines() == ["group", "0", "0", "1", "1"]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 25), exponent=st.integers(-300, 300))
def test_il_of_unstandardized_extreme_data(seed, n, exponent):
    """IL is scale-invariant and never spoiled by overflow or underflow of squares
    (issue 10), even on data that was not standardized."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    labels = rng.integers(0, 3, size=n)
    base = Partition(labels, X)
    scaled = Partition(labels, X * 10.0 ** exponent)
    assert scaled.il() == pytest.approx(base.il(), rel=1e-9, abs=1e-12)
    expected = base.sst() * 10.0 ** (2 * exponent) if abs(exponent) <= 150 else None
    if expected is not None:
        assert scaled.sst() == pytest.approx(expected, rel=1e-9)
    elif exponent > 0:
        assert scaled.sst() == np.inf or scaled.sst() > 1e290
    assert np.allclose(scaled.centroids(), base.centroids() * 10.0 ** exponent, rtol=1e-12)


def test_sse_sst_of_huge_and_tiny_values():
    # groups {1, -1} and {3, 5}: SSE = 2 + 2, SST around 2 = 1 + 9 + 1 + 9, IL = 20 %
    for scale in (1e300, 1e-300, 1.0):
        part = Partition([0, 0, 1, 1], np.array([[1.0], [-1.0], [3.0], [5.0]]) * scale)
        assert part.il() == pytest.approx(20.0, rel=1e-12)
        assert part.sse() == pytest.approx(4 * scale * scale, rel=1e-12)  # inf beyond float64
        assert part.sst() == pytest.approx(20 * scale * scale, rel=1e-12)
