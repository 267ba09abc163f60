"""Fixed- and variable-size heuristics: published values (seed 004 Table 5,
../shared/DESIGN.md), seed 004 Example 1, and properties of every registered
foundation method."""

import numpy as np
import pytest
from _bruteforce import optimal_partition
from hypothesis import HealthCheck, given, settings, strategies as st

from mipagg.api import microaggregate
from mipagg.heuristics.fixed import cbfs_groups, md, md_groups
from mipagg.heuristics.mdav import mdav, mdav_groups
from mipagg.heuristics.vmdav import vmdav, vmdav_best
from mipagg.methods import METHODS
from mipagg.partition import Partition, sse_of_groups

FOUNDATION = ["mdav", "vmdav", "md", "cbfs", "npn-mhm", "md-mhm", "mdav-mhm", "cbfs-mhm"]

PUBLISHED_MDAV = {
    "census": {3: 5.6922, 4: 7.4947, 5: 9.0884, 10: 14.1559},
    "tarragona": {3: 16.9326, 4: 19.5460, 5: 22.4619, 10: 33.1929},
}


@pytest.mark.parametrize("name", ["census", "tarragona"])
@pytest.mark.parametrize("k", [3, 4, 5, 10])
def test_mdav_published_il(name, k, request):
    inst = request.getfixturevalue(name)
    p = mdav(inst.X, k)
    assert p.is_feasible(k)
    assert round(p.il(), 4) == PUBLISHED_MDAV[name][k]


# Seed 004 Table 5, maximum distance: the entries this implementation reproduces
# to every printed digit.  The other three differ by one unit in the last digit
# (Tarragona k = 3, 5) or by 0.001 (Census k = 3); the paper does not fix which
# end of the most distant pair is r, and that choice changes the result (see
# docs/bench/foundation.md).
@pytest.mark.parametrize("name,k,published", [
    ("census", 5, "9.00648"), ("census", 10, "14.3965"), ("tarragona", 10, "33.1834"),
])
def test_md_published_il(name, k, published, request):
    inst = request.getfixturevalue(name)
    p = md(inst.X, k)
    assert p.is_feasible(k)
    decimals = len(published.split(".")[1])
    assert f"{p.il():.{decimals}f}" == published


def test_companies_optimum_seed004_example1(companies):
    """Seed 004 Example 1: the optimal 3-partition of the 11 SMEs is
    {1,2,3,10}, {4,5,9}, {6,7,8,11} with SSE 7.484 and SST 22 (population
    standard deviation), SSE/SST = 0.34."""
    from mipagg.instance import read_csv

    pop = read_csv(companies.provenance["source"], columns=list(companies.columns), ddof=0)
    sse, groups = optimal_partition(pop.X, 3)
    assert sorted(groups) == [(0, 1, 2, 9), (3, 4, 8), (5, 6, 7, 10)]
    assert abs(sse - 7.484) < 1e-3  # 7.4848, printed truncated as 7.484
    opt = Partition.from_groups(groups, pop.X)
    assert opt.sst() == pytest.approx(22.0)
    assert round(opt.sse() / opt.sst(), 2) == 0.34
    # the sample-std convention scales SSE and SST by (n-1)/n; IL is unchanged
    same = Partition(opt.labels, companies.X)
    assert same.sse() == pytest.approx(sse * 10 / 11)
    assert same.il() == pytest.approx(opt.il())
    # every heuristic is at least as bad as the optimum
    for name in FOUNDATION:
        assert microaggregate(companies, 3, name).partition.sse() >= same.sse() - 1e-9


def test_vmdav_gamma_zero_never_extends(census):
    p = vmdav(census.X, 3, gamma=0.0)
    assert sorted(set(p.sizes.tolist())) == [3]
    q = vmdav(census.X, 3, gamma=2.0)
    assert q.is_feasible(3) and (q.sizes > 3).any()
    # groups grow to at most 2k-1; only the < k leftovers may exceed that
    assert np.maximum(q.sizes - 5, 0).sum() <= 2


def test_vmdav_best_is_the_minimum_over_its_grid(tarragona):
    X = tarragona.X[:300]
    gammas = (0.0, 0.5, 1.0)
    best = vmdav_best(X, 4, gammas=gammas)
    assert best.sse() == pytest.approx(min(vmdav(X, 4, gamma=g).sse() for g in gammas))


def test_vmdav_rejects_negative_gamma():
    from mipagg.errors import ParameterError

    with pytest.raises(ParameterError, match="gamma"):
        vmdav(np.arange(10.0), 3, gamma=-1)


def test_fixed_size_group_sizes(census):
    for groups in (md_groups(census.X[:200], 7), cbfs_groups(census.X[:200], 7),
                   mdav_groups(census.X[:200], 7)):
        sizes = sorted(len(g) for g in groups)
        assert sizes[:-1] == [7] * (len(sizes) - 1) and 7 <= sizes[-1] <= 13
        assert sorted(np.concatenate(groups).tolist()) == list(range(200))


def test_md_first_pair_is_the_diameter():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 3))
    g = md_groups(X, 4)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    i, j = np.unravel_index(np.argmax(D), D.shape)
    assert {g[0][0], g[1][0]} == {i, j}
    c = ((X[[i, j]] - X.mean(0)) ** 2).sum(1)
    assert g[0][0] == (i, j)[int(np.argmax(c))]  # r: the end farther from the centroid


def test_cbfs_first_group_is_farthest_from_centroid_and_its_neighbours():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 2))
    g = cbfs_groups(X, 3)[0]
    r = int(np.argmax(((X - X.mean(0)) ** 2).sum(1)))
    d = ((X - X[r]) ** 2).sum(1)
    assert g[0] == r and set(g) == set(np.argsort(d)[:3])


# --- properties of every registered foundation method -----------------------

@st.composite
def datasets(draw):
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 4))
    k = draw(st.integers(2, max(2, min(6, n))))
    pool = draw(st.integers(1, n))  # few distinct rows -> duplicates and ties
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    base = rng.integers(-3, 4, size=(pool, p)).astype(float)
    X = base[rng.integers(0, pool, size=n)]
    return X, k


@pytest.mark.parametrize("method", FOUNDATION)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=datasets())
def test_method_returns_feasible_partition_with_correct_sse(method, data):
    X, k = data
    part = METHODS[method].load()(X, k)
    assert part.labels.shape == (X.shape[0],)
    assert part.is_feasible(k)
    assert part.sse() == pytest.approx(sse_of_groups(X, part.groups()), abs=1e-9)
    assert part.sse() <= part.sst() + 1e-9


@pytest.mark.parametrize("method", FOUNDATION)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(6, 9), k=st.integers(2, 3))
def test_method_never_beats_brute_force(method, seed, n, k):
    X = np.random.default_rng(seed).normal(size=(n, 2))
    opt, _ = optimal_partition(X, k)
    assert METHODS[method].load()(X, k).sse() >= opt - 1e-9


def test_foundation_methods_are_registered():
    assert set(FOUNDATION) <= set(METHODS)


# --- compiled distance kernels against their numpy references ---------------

def test_kernels_equal_numpy_references():
    from mipagg.heuristics import _common

    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 7))
    rows = np.sort(rng.choice(500, 300, replace=False))
    # einsum may add the p products in another order: equal to rounding
    assert np.allclose(_common.sqdist_to(X, rows, X[3]),
                       _common.sqdist_to_reference(X, rows, X[3]), rtol=1e-14, atol=0)
    assert np.array_equal(_common.centroid(X, rows), _common.centroid_reference(X, rows))


@pytest.mark.parametrize("fn", ["mdav", "cbfs", "md", "vmdav", "mdav-mhm", "npn-mhm"])
def test_heuristics_identical_with_numpy_kernels(fn, census, monkeypatch):
    """Every heuristic gives the same labels when the compiled kernels are
    replaced by the numpy references (exact equality, ties included)."""
    from mipagg.heuristics import _common, fixed, mdav as mdav_mod, paths, vmdav as vm

    X = np.vstack([census.X[:300], census.X[:40]])  # duplicates
    run = METHODS[fn].load()
    fast = run(X, 4).labels
    for mod in (_common, fixed, mdav_mod, paths, vm):
        if hasattr(mod, "sqdist_to"):
            monkeypatch.setattr(mod, "sqdist_to", _common.sqdist_to_reference)
        if hasattr(mod, "_centroid"):
            monkeypatch.setattr(mod, "_centroid", _common.centroid_reference)
    assert np.array_equal(run(X, 4).labels, fast)


# --- seed 004 Table 6: closeness to the optimum on 100 small normal data sets ---

TABLE6_METHODS = ["npn-mhm", "cbfs", "cbfs-mhm", "mdav", "mdav-mhm", "md", "md-mhm"]


def table6_stats(k, datasets=100, p=3):
    """For each method: (number of optimal partitions, max ratio, mean ratio)
    of SSE_method / SSE_opt over ``datasets`` normal_small(11, p, seed=i)."""
    from mipagg.generators import normal_small

    ratios = {m: [] for m in TABLE6_METHODS}
    for seed in range(datasets):
        X = normal_small(11, p, seed=seed).X
        opt, _ = optimal_partition(X, k)
        for m in TABLE6_METHODS:
            ratios[m].append(METHODS[m].load()(X, k).sse() / opt)
    return {m: (int(np.sum(np.isclose(r, 1.0, rtol=1e-9))), float(np.max(r)), float(np.mean(r)),
                float(np.std(r))) for m, r in ratios.items()}


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, 3, 5])
def test_table6_study(k):
    """Seed 004 Table 6 (qualitative): every ratio >= 1; the MHM variants reach
    the optimum at least as often as their fixed-size counterparts (Lemma 1:
    our paths keep each fixed-size group together); the best method is within
    1.3 of the optimum on average (paper: 1.10-1.16).  The paper's counts of
    optimal partitions (42-57 of 100 for the best method) are NOT reached
    (ours: 27-34); see docs/bench/foundation.md."""
    stats = table6_stats(k)
    for m, (count, worst, mean, _) in stats.items():
        print(f"k={k} {m:9s} optimal {count:3d}/100  max {worst:.2f}  mean {mean:.2f}")
        assert worst >= 1 - 1e-9 and mean >= 1 - 1e-9
    for fixed_size, with_mhm in [("cbfs", "cbfs-mhm"), ("mdav", "mdav-mhm"), ("md", "md-mhm")]:
        assert stats[with_mhm][0] >= stats[fixed_size][0]
    assert min(stats[m][2] for m in stats) <= 1.3
