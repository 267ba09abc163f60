"""Exact references: subset DP, set-partitioning LP/MIP (seed 001 model (9)),
an independent exhaustive search, and seed 004 Example 1."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mipagg.errors import DataError, ParameterError
from mipagg.exact.pricing import price, squared_distances
from mipagg.exact.reference import (
    enumerate_clusters,
    optimal_partition_bruteforce,
    set_partitioning,
)
from mipagg.partition import sse_of_groups


def set_partitions(items):
    """Every partition of ``items`` into blocks (Bell-number many)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


def exhaustive_optimum(X, k):
    """Least SSE over all partitions with every group of size >= k (no upper size)."""
    return min(sse_of_groups(X, p) for p in set_partitions(list(range(len(X))))
               if all(len(g) >= k for g in p))


@st.composite
def small_data(draw, n_min=4, n_max=11):
    n = draw(st.integers(n_min, n_max))
    p = draw(st.integers(1, 3))
    k = draw(st.integers(2, min(3, n)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if draw(st.booleans()):
        X = rng.integers(0, 3, size=(n, p)).astype(float)  # duplicates and ties
    else:
        X = rng.normal(size=(n, p))
    return X, k


@settings(max_examples=25, deadline=None)
@given(small_data(n_max=8))
def test_bruteforce_matches_exhaustive_search(data):
    X, k = data
    value, part = optimal_partition_bruteforce(X, k)
    assert value == pytest.approx(exhaustive_optimum(X, k), abs=1e-9)
    assert value == pytest.approx(part.sse(), abs=1e-9)
    assert part.is_feasible(k) and part.sizes.max() <= 2 * k - 1


@settings(max_examples=25, deadline=None)
@given(small_data(n_max=12))
def test_bruteforce_equals_set_partitioning(data):
    X, k = data
    value, part = optimal_partition_bruteforce(X, k)
    mip, mpart = set_partitioning(X, k, integral=True)
    lp, x = set_partitioning(X, k, integral=False)
    assert mip == pytest.approx(value, abs=1e-7)
    assert mpart.is_feasible(k) and mip == pytest.approx(mpart.sse(), abs=1e-9)
    assert lp <= mip + 1e-7
    assert np.all(x >= -1e-9) and np.all(x <= 1 + 1e-9)
    from mipagg.heuristics.mdav import mdav
    assert value <= mdav(X, k).sse() + 1e-9


def test_larger_groups_never_help():
    # optimal groups have sizes k..2k-1 (seed 001 Prop. 2.2): allowing any size gives the same
    rng = np.random.default_rng(1)
    for _ in range(5):
        X = rng.normal(size=(10, 2))
        a, _ = optimal_partition_bruteforce(X, 2)
        b, _ = optimal_partition_bruteforce(X, 2, max_size=10)
        assert a == pytest.approx(b, abs=1e-9)


def test_lp_duals_certify_the_bound():
    # strong duality, and no cluster prices out at the optimal LP duals
    rng = np.random.default_rng(4)
    X = rng.normal(size=(11, 2))
    lp, x, duals = set_partitioning(X, 3, integral=False, with_duals=True)
    assert duals.sum() == pytest.approx(lp, abs=1e-7)
    D = squared_distances(X)
    for eta in (3, 4, 5):
        res = price(D, duals, eta, "enumeration")
        assert res.exact and res.min_reduced_cost >= -1e-7
        assert res.columns == []


def test_companies_example(companies):
    # seed 004 Example 1: optimal 3-partition, SSE/SST = 0.34 (SST = 20 with sample std)
    expected = [[1, 2, 3, 10], [4, 5, 9], [6, 7, 8, 11]]
    value, part = optimal_partition_bruteforce(companies.X, 3)
    assert part.sst() == pytest.approx(20.0)
    assert round(value / part.sst(), 2) == 0.34
    assert sorted((g + 1).tolist() for g in part.groups()) == expected
    mip, mpart = set_partitioning(companies.X, 3, integral=True)
    assert mip == pytest.approx(value, abs=1e-9)
    assert sorted((g + 1).tolist() for g in mpart.groups()) == expected
    lp, _ = set_partitioning(companies.X, 3, integral=False)
    assert lp <= mip + 1e-9


def test_enumerate_clusters_counts_and_costs():
    X = np.random.default_rng(0).normal(size=(7, 2))
    clusters, costs = enumerate_clusters(X, 2)
    assert [c.shape for c in clusters] == [(21, 2), (35, 3)]
    for C, w in zip(clusters, costs):
        for c, v in zip(C[:5], w[:5]):
            assert v == pytest.approx(sse_of_groups(X, [c]))


def test_reference_errors():
    with pytest.raises(ParameterError):
        optimal_partition_bruteforce(np.zeros((17, 1)), 2)
    with pytest.raises(ParameterError):
        set_partitioning(np.zeros((60, 1)), 5, integral=False)
    with pytest.raises(DataError):
        set_partitioning(np.zeros((3, 1)), 4, integral=True)
    with pytest.raises(ParameterError):
        optimal_partition_bruteforce(np.zeros((5, 1)), 1)
