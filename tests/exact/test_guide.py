"""The master LP's record-pair weights (mipagg.exact.guide) and the exact
neighbourhood search they guide (``affinity=``)."""

import itertools

import numpy as np
import pytest
from _bruteforce import optimal_partition
from hypothesis import given, settings, strategies as st
from scipy import sparse
from test_improve import partitions

from mipagg.errors import ParameterError
from mipagg.exact.guide import lp_affinity, pair_weights_of
from mipagg.exact.neighbourhood import _affine_groups, exact_neighbourhood_search
from mipagg.generators import lognormal
from mipagg.heuristics.mdav import mdav


def test_affine_groups_follow_the_weights_then_the_centroids():
    # four groups of two records on a line; groups 0 and 2 strongly linked, 2 and 3 weakly
    X = np.array([[0.], [0.1], [1.], [1.1], [2.], [2.1], [3.], [3.1]])
    lab = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    W = np.zeros((8, 8))
    W[0, 4] = W[4, 0] = 0.9
    W[5, 6] = W[6, 5] = 0.2
    ids = np.arange(4)
    C = np.array([X[lab == g].mean(axis=0) for g in ids])
    assert _affine_groups(sparse.csr_matrix(W), lab, ids, C, 0, 2).tolist() == [0, 2]
    assert _affine_groups(sparse.csr_matrix(W), lab, ids, C, 0, 3).tolist() == [0, 2, 3]   # 3 via 2
    # nothing left with weight: the group nearest the seed's centroid
    assert _affine_groups(sparse.csr_matrix(W), lab, ids, C, 0, 4).tolist() == [0, 1, 2, 3]
    assert _affine_groups(sparse.csr_matrix((8, 8)), lab, ids, C, 3, 2).tolist() == [2, 3]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([(9, 2), (10, 3), (12, 3)]))
def test_lp_weights_are_the_lp_and_the_bound_is_below_the_optimum(seed, nk):
    n, k = nk
    X = np.random.default_rng(seed).normal(size=(n, 2))
    P = mdav(X, k)
    g = lp_affinity(X, k, P)
    opt, _ = optimal_partition(X, k)
    W = g.weights.toarray()
    assert np.allclose(W, W.T) and np.all(np.diag(W) == 0)
    assert np.all((W >= 0) & (W <= 1 + 1e-9))        # each record's clusters sum to one
    assert g.bound is not None and g.bound <= opt + 1e-7
    assert 0 <= g.fractional <= g.support
    if g.fractional == 0:                                # an integral LP is a partition
        assert g.bound == pytest.approx(opt, abs=1e-6)


def test_pair_weights_count_each_pair_of_a_cluster_once_per_cluster():
    cols = [np.array([0, 1, 2]), np.array([2, 3]), np.array([0, 1])]
    W = pair_weights_of(cols, np.array([0.5, 1.0, 0.25]), 4).toarray()
    expect = np.zeros((4, 4))
    for c, x in zip(cols, (0.5, 1.0, 0.25)):
        for a, b in itertools.combinations(c, 2):
            expect[a, b] += x
            expect[b, a] += x
    assert np.array_equal(W, expect)


@settings(max_examples=20, deadline=None)
@given(partitions(max_n=12), st.integers(2, 4), st.integers(0, 3))
def test_guided_search_never_worse_and_feasible(data, groups, seed):
    X, k, P = data
    W = np.random.default_rng(seed).uniform(size=(X.shape[0],) * 2)
    W = np.where(W > 0.7, W + W.T, 0.0)
    np.fill_diagonal(W, 0.0)
    r = exact_neighbourhood_search(X, P, k, groups=groups, seed=seed, affinity=W)
    assert r.partition.is_feasible(k)
    assert r.partition.sse() <= P.sse() + 1e-9
    whole = exact_neighbourhood_search(X, P, k, groups=X.shape[0], seed=seed, affinity=W)
    assert whole.partition.sse() == pytest.approx(optimal_partition(X, k)[0], abs=1e-7)
    assert whole.converged


def test_guided_search_from_the_lp_beats_distance_on_lognormal_300():
    """lognormal n = 300 seed 2, k = 3, from MDAV, 6-group sub-problems until
    convergence: the LP-guided search ends within 0.05 % of the root bound
    (594.79 against 594.55); the distance-guided one, converged too, 1 % above
    it (600.51)."""
    X = lognormal(300, 11, seed=2).X
    P = mdav(X, 3)
    g = lp_affinity(X, 3, P, max_cut_rounds=5)
    guided = exact_neighbourhood_search(X, P, 3, groups=6, move_time=10, seed=1,
                                        affinity=g.weights)
    near = exact_neighbourhood_search(X, P, 3, groups=6, move_time=10, seed=1)
    assert guided.converged and near.converged
    assert g.bound <= guided.partition.sse() < near.partition.sse()
    assert guided.partition.sse() <= g.bound * 1.001


def test_bad_affinity_is_refused_before_any_work():
    X = np.arange(12.0).reshape(6, 2)
    P = mdav(X, 3)
    for bad in (np.zeros((5, 5)), -np.ones((6, 6)), np.full((6, 6), np.nan)):
        with pytest.raises(ParameterError, match="affinity"):
            exact_neighbourhood_search(X, P, 3, affinity=bad)


def test_command_line_improve_guide(capsys):
    """``--improve exact --improve-guide lp`` runs the guided search from MDAV
    (recorded in the options, never worse than MDAV); the flag needs
    ``--improve exact``; a bad guide is refused through the API."""
    import json
    from pathlib import Path

    from mipagg.cli import main
    from mipagg.improve import improve_partition

    data = str(Path(__file__).resolve().parents[2] / "instances" / "simu_n200_seed1.csv")
    run = ["run", data, "-k", "3", "--method", "mdav", "--json", "--quiet"]
    assert main(run + ["--improve", "exact", "--improve-guide", "lp",
                       "--improve-time", "20"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["improve_options"] == {"time_limit": 20.0, "guide": "lp"}
    assert out["sse"] <= out["sse_before_improve"] + 1e-9
    assert main(run + ["--improve-guide", "lp"]) == 2
    assert "--improve-guide needs --improve exact" in capsys.readouterr().err
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(ParameterError, match="guide"):
        improve_partition(X, mdav(X, 3), 3, how="exact", guide="nearest")
