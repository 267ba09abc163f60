"""The aggregated root phase (mipagg.exact.aggregation): the aggregation
helpers' identities, the phase's converged value equal to the master LP of
plain column generation, its bound below that value, and ``bp`` with it
keeping the brute-force optimum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mipagg.errors import ParameterError
from mipagg.exact.aggregation import (
    aggregated_root,
    compatible,
    compatible_mask,
    disaggregate,
    labels_of,
    refine,
)
from mipagg.exact.bp import BranchAndPrice, branch_and_price
from mipagg.exact.colgen import column_generation
from mipagg.exact.settings import BPSettings
from mipagg.partition import Partition

from _strategies import tiny_instances
from _bruteforce import optimal_partition


@st.composite
def aggregations(draw, max_n=20):
    n = draw(st.integers(2, max_n))
    labels = np.asarray(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    _, labels = np.unique(labels, return_inverse=True)
    column = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n)))
    return labels.astype(np.int64), column


@given(aggregations(), st.integers(0, 10_000))
@settings(max_examples=80, deadline=None)
def test_disaggregated_duals_sum_to_aggregate_duals(agg, seed):
    labels, _ = agg
    rng = np.random.default_rng(seed)
    m = int(labels.max()) + 1
    mu, nu = rng.normal(size=m), rng.normal(size=labels.size)
    lam = disaggregate(mu, labels, nu)
    assert np.allclose(np.bincount(labels, weights=lam, minlength=m), mu)
    # within an aggregate the duals keep the shape of nu
    for a in range(m):
        d = lam[labels == a] - nu[labels == a]
        assert np.allclose(d, d[0])


@given(aggregations())
@settings(max_examples=80, deadline=None)
def test_refine_makes_the_column_compatible_and_keeps_unions(agg):
    labels, column = agg
    sizes = np.bincount(labels)
    new = refine(labels, column)
    assert compatible(new, np.bincount(new), column)
    # finer: records apart before stay apart
    assert all(labels[i] == labels[j] for i in range(labels.size) for j in range(labels.size)
               if new[i] == new[j])
    # a union of old aggregates is still compatible
    union = np.flatnonzero(np.isin(labels, [0, int(labels.max())]))
    assert compatible(labels, sizes, union) and compatible(new, np.bincount(new), union)
    # a column cutting an aggregate is not
    first = np.flatnonzero(labels == 0)
    if first.size > 1:
        assert not compatible(labels, sizes, first[:1])


@given(aggregations(), st.lists(st.sets(st.integers(0, 19), min_size=1), max_size=8))
@settings(max_examples=80, deadline=None)
def test_compatible_mask_is_the_definition_column_by_column(agg, columns):
    labels, _ = agg
    columns = [sorted(v for v in c if v < labels.size) or [0] for c in columns]
    sizes = np.bincount(labels)
    expected = [set(np.flatnonzero(np.isin(labels, labels[c])).tolist()) == set(c)
                for c in columns]
    assert compatible_mask(labels, sizes, columns).tolist() == expected


@pytest.mark.parametrize("n,k,seed", [(60, 3, 1), (80, 5, 2), (90, 6, 3)])
def test_converged_phase_value_is_the_master_lp(n, k, seed):
    X = np.random.default_rng(seed).lognormal(size=(n, 4))
    bp = BranchAndPrice(X, k, BPSettings(), initial=None)
    agg = aggregated_root(bp.master, bp.ctx, bp.rounder.best.groups(), bp.loop, max_share=1.0)
    lp = column_generation(X, k, close_gap=False)
    assert lp.bound_source == "lp"
    assert agg.converged and agg.reason == "converged"
    assert agg.value == pytest.approx(lp.lower_bound, rel=1e-7)
    assert agg.bound <= agg.value + 1e-7
    assert agg.value <= bp.rounder.best_sse + 1e-9


def test_phase_stops_at_the_size_limit_with_a_bound_below_the_lp():
    X = np.random.default_rng(4).lognormal(size=(120, 4))
    bp = BranchAndPrice(X, 6, BPSettings(), initial=None)
    agg = aggregated_root(bp.master, bp.ctx, bp.rounder.best.groups(), bp.loop, max_share=0.3)
    assert agg.reason == "size_limit" and agg.aggregates > 0.3 * 120
    lp = column_generation(X, 6, close_gap=False)
    if agg.bound is not None:
        assert agg.bound <= lp.lower_bound + 1e-7


@given(tiny_instances(min_n=6, max_n=10, max_k=3))
@settings(max_examples=25, deadline=None)
def test_bp_with_aggregation_keeps_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, aggregation="on")
    assert str(r.status) == "optimal"
    assert r.sse == pytest.approx(opt, abs=1e-7)
    assert r.lower_bound <= opt + 1e-7
    assert r.aggregation is not None and r.aggregation["iterations"] >= 1


def test_aggregation_option_resolution_and_errors():
    X = np.random.default_rng(0).normal(size=(40, 2))
    labels = Partition.from_groups([list(range(i, i + 10)) for i in range(0, 40, 10)], X)
    assert BranchAndPrice(X, 10, BPSettings(time_limit=5), initial=labels).aggregation_on()
    assert not BranchAndPrice(X, 5, BPSettings(time_limit=5)).aggregation_on()
    assert not BranchAndPrice(X, 10, BPSettings(time_limit=5, aggregation="off")).aggregation_on()
    with pytest.raises(ParameterError, match="aggregation"):
        BPSettings(aggregation="dca")
    with pytest.raises(ValueError, match="cover"):
        labels_of([[0, 1]], 3)


@pytest.mark.parametrize("n,k,seed", [(60, 3, 5), (80, 5, 6)])
def test_cg_with_aggregation_reaches_the_same_master_lp(n, k, seed):
    """``cg`` with the phase converges to the LP value of plain ``cg``, and
    the phase is reported (None when off)."""
    X = np.random.default_rng(seed).lognormal(size=(n, 4))
    off = column_generation(X, k, close_gap=False, aggregation="off")
    on = column_generation(X, k, close_gap=False, aggregation="on")
    assert off.aggregation is None and "aggregation" not in off.seconds
    assert on.aggregation is not None and on.aggregation["iterations"] >= 1
    assert on.seconds["aggregation"] >= 0
    assert str(on.status) in ("converged", "optimal") and on.bound_source in ("lp", "enumeration")
    assert on.lower_bound == pytest.approx(off.lower_bound, rel=1e-7)
    assert on.summary()["aggregation"]["reason"] in ("converged", "size_limit")


@given(tiny_instances(min_n=6, max_n=10, max_k=3))
@settings(max_examples=20, deadline=None)
def test_cg_with_aggregation_bound_stays_below_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = column_generation(X, k, aggregation="on", close_gap=False)
    assert r.lower_bound is not None and r.lower_bound <= opt + 1e-7 <= r.sse + 2e-7


def test_cg_aggregation_option_resolution_and_errors():
    from mipagg.exact.colgen import ColumnGeneration
    from mipagg.exact.settings import CGSettings

    X = np.random.default_rng(0).normal(size=(40, 2))
    assert ColumnGeneration(X, 10, CGSettings(time_limit=5)).aggregation_on()
    assert not ColumnGeneration(X, 5, CGSettings(time_limit=5)).aggregation_on()
    assert not ColumnGeneration(X, 10, CGSettings(pricing="heuristic")).aggregation_on()
    with pytest.raises(ParameterError, match="exact pricing"):
        CGSettings(aggregation="on", pricing="heuristic")
    with pytest.raises(ParameterError, match="aggregation must be one of"):
        column_generation(X, 3, aggregation="yes")
