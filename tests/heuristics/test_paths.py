"""Paths of seed 004 §4.2 and the path + MHM heuristics (§4.3)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mipagg.heuristics.fixed import cbfs_groups, md_groups
from mipagg.heuristics.mdav import mdav_groups
from mipagg.heuristics.paths import (
    cbfs_mhm,
    cbfs_order,
    groups_order,
    md_mhm,
    md_order,
    mdav_mhm,
    mdav_order,
    mdav_path_groups,
    npn_mhm,
    npn_order,
)
from mipagg.partition import Partition
from mipagg.univariate import mhm

ORDERS = {"md": (md_order, md_groups), "mdav": (mdav_order, mdav_path_groups),
          "cbfs": (cbfs_order, cbfs_groups)}


def _is_perm(order, n):
    return sorted(order.tolist()) == list(range(n))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30), p=st.integers(1, 3))
def test_npn_is_nearest_point_next(seed, n, p):
    X = np.random.default_rng(seed).integers(-2, 3, size=(n, p)).astype(float)  # ties
    order = npn_order(X)
    assert _is_perm(order, n)
    d0 = ((X - X.mean(0)) ** 2).sum(1)
    assert d0[order[0]] == d0.max()
    for t in range(1, n):
        rest = order[t:]
        d = ((X[rest] - X[order[t - 1]]) ** 2).sum(1)
        assert d[0] == d.min()


@pytest.mark.parametrize("name", list(ORDERS))
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), k=st.integers(2, 5))
def test_group_paths_list_groups_consecutively(name, seed, n, k):
    """Steps 6-7: the path visits the groups one after the other, so the fixed-size
    partition is compatible with the path and MHM can only improve on it (Lemma 1)."""
    if k > n:
        k = n
    X = np.random.default_rng(seed).integers(-3, 4, size=(n, 2)).astype(float)
    order_fn, groups_fn = ORDERS[name]
    order = order_fn(X, k)
    assert _is_perm(order, n)
    groups = groups_fn(X, k)
    fixed = Partition.from_groups(groups, X)
    along = fixed.labels[order]
    assert (np.diff(along) != 0).sum() == fixed.n_groups - 1
    assert mhm(X, order, k).sse() <= fixed.sse() + 1e-9


def test_point_level_order_inside_groups():
    X = np.array([[0.0, 0], [1, 0], [0.2, 0], [10, 0], [12, 0], [11, 0]])
    groups = [np.array([0, 1, 2]), np.array([4, 3, 5])]
    # first group: centre first, then by distance to it; second group starts
    # at the record nearest to the first group's centroid
    assert groups_order(X, groups).tolist() == [0, 2, 1, 3, 5, 4]


def test_mdav_path_groups_match_mdav_on_reference_data(census, tarragona):
    """Seed 004's loop (two groups while >= 2k remain, < k leftovers attached)
    and MDAV-generic agree unless 1 <= n mod 2k < k (Tarragona, k = 5)."""
    for inst in (census, tarragona):
        for k in (3, 5, 10):
            a = Partition.from_groups(mdav_path_groups(inst.X, k), inst.X)
            b = Partition.from_groups(mdav_groups(inst.X, k), inst.X)
            same = np.array_equal(a.labels, b.labels)
            assert same == (not 1 <= inst.n % (2 * k) < k)


@pytest.mark.parametrize("k", [3, 5, 10])
def test_mhm_paths_improve_their_fixed_size_heuristic(census, k):
    X = census.X
    assert mdav_mhm(X, k).sse() <= Partition.from_groups(mdav_path_groups(X, k), X).sse()
    assert cbfs_mhm(X, k).sse() <= Partition.from_groups(cbfs_groups(X, k), X).sse()


def test_npn_mhm_beats_fixed_size_on_clustered_data():
    """Seed 004 §5: on SimC (clusters), NPN-MHM is much better than MDAV."""
    from mipagg.generators import simc
    from mipagg.heuristics.mdav import mdav

    inst = simc(seed=3)
    assert npn_mhm(inst.X, 3).il() < 0.9 * mdav(inst.X, 3).il()
    assert md_mhm(inst.X, 3).il() <= Partition.from_groups(md_groups(inst.X, 3), inst.X).il()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 60), start=st.integers(0, 59))
def test_compiled_npn_equals_reference(seed, n, start):
    from mipagg.heuristics.paths import npn_order_reference

    X = np.random.default_rng(seed).integers(-2, 3, size=(n, 3)).astype(float)  # many ties
    assert np.array_equal(npn_order(X), npn_order_reference(X))
    assert np.array_equal(npn_order(X, start=start % n), npn_order_reference(X, start=start % n))
