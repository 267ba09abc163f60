"""Properties every registered method must have on tiny inputs (issue 10, item 4).

For each method of :data:`mipagg.methods.METHODS` (new ones are picked up
automatically, e.g. ``bp``), on random data with n ≤ 12, ties and duplicate
records included:

* the partition is k-feasible and covers every record;
* the reported SSE, SST and IL equal an independent recomputation (exact
  rational arithmetic on the raw values, :mod:`mipagg.verify`);
* a method that certifies a ``lower_bound`` (``cg``, ``bp``) has
  bound ≤ brute-force optimum ≤ SSE, and SSE = optimum when its status is
  ``optimal``.

A method that fails on such a legal input is a bug, not a skip.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from mipagg import from_array, microaggregate
from mipagg.errors import DataError
from mipagg.exact.reference import optimal_partition_bruteforce
from mipagg.methods import METHODS
from mipagg.verify import verify_table

REL = 1e-9


@st.composite
def instances(draw):
    """(raw data, k): n ≤ 12 records drawn from a small pool of distinct points
    (so duplicates are frequent) or from a small grid of values (ties)."""
    n = draw(st.integers(2, 12))
    p = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["pool", "grid", "normal"]))
    if kind == "pool":
        pool = rng.normal(size=(draw(st.integers(1, n)), p))
        raw = pool[rng.integers(0, len(pool), size=n)]
    elif kind == "grid":
        raw = rng.integers(-2, 3, size=(n, p)).astype(float)
    else:
        raw = rng.normal(size=(n, p)) * 10.0 ** rng.integers(-3, 4, size=p)
    k = draw(st.integers(2, n))
    return raw, k


def _instance(raw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return from_array(raw)
        except DataError:  # every column constant: refused, not a method input
            return None


# portfolio runs several of the other methods on every example; they are
# checked one by one here, so it gets fewer examples of its own.
EXAMPLES = {"portfolio": 25}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_method_properties(method):
    @settings(max_examples=EXAMPLES.get(method, 100), deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(case=instances())
    def check(case):
        _check_method(method, case)

    check()


def _check_method(method, case):
    raw, k = case
    inst = _instance(raw)
    assume(inst is not None)
    res = microaggregate(inst, k, method, seed=0)
    part = res.partition
    labels = np.asarray(part.labels)
    assert labels.shape == (inst.n,)
    sizes = np.bincount(labels)
    assert (sizes >= k).all(), f"{method}: group sizes {sizes.tolist()} for k = {k}"
    summary = res.summary()
    ref = verify_table(list(inst.columns), raw.tolist(), labels.tolist(), k)
    assert ref["feasible"] and ref["p"] == summary["p"] and ref["groups"] == summary["groups"]
    tol = REL * ref["sst"]
    assert summary["sse"] == pytest.approx(ref["sse"], rel=REL, abs=tol)
    assert summary["sst"] == pytest.approx(ref["sst"], rel=REL)
    assert summary["il"] == pytest.approx(ref["il"], rel=REL, abs=REL)
    if summary.get("lower_bound") is not None:
        opt, _ = optimal_partition_bruteforce(inst.X, k)
        lb = summary["lower_bound"]
        assert lb <= opt + 1e-7 * max(1.0, opt), f"{method}: bound {lb} > optimum {opt}"
        assert opt <= summary["sse"] + 1e-7 * max(1.0, opt)
        if summary.get("status") == "optimal":
            assert summary["sse"] == pytest.approx(opt, rel=1e-7, abs=1e-9)


def test_every_method_is_covered():
    """The property test runs over the registry itself, so a method added
    later (``bp``) is tested without editing this file."""
    assert {"mdav", "cg"} <= set(METHODS)
