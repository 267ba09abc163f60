"""Instances: loading, standardization, validation, masked release."""

import numpy as np
import pytest

from mipagg.errors import ConstantColumnWarning, DataError, ParameterError
from mipagg.instance import from_array, from_dataframe, read_csv


def _write(tmp_path, text, name="d.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_standardization_sample_std(census):
    assert census.n == 1080 and census.p == 13
    assert np.allclose(census.X.mean(0), 0, atol=1e-12)
    assert np.allclose(census.X.std(0, ddof=1), 1)


def test_companies_fixture(companies):
    assert companies.n == 11 and companies.columns == ("surface", "employees")
    assert companies.raw[10].tolist() == [50.0, 12.0]  # K&K Sarl


@pytest.mark.parametrize("text,match", [
    ("", "empty"),
    ("a,b\n", "no records"),
    ("a,b\n1,2\n3,x\n", "not numeric"),
    ("a,b\n1,2\n3,\n", "missing"),
    ("a,b\n1,2\n3,nan\n", "non-finite"),
    ("a,b\n1,2\n3\n", "fields"),
    ("a,a\n1,2\n3,4\n", "repeated"),
    ("a,b\n1,2\n1,2\n", "every key column is constant"),
])
def test_read_csv_errors(tmp_path, text, match):
    with pytest.raises(DataError, match=match):
        read_csv(_write(tmp_path, text))


def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        read_csv(tmp_path / "absent.csv")


def test_unknown_column(tmp_path):
    with pytest.raises(ParameterError, match="unknown column"):
        read_csv(_write(tmp_path, "a,b\n1,2\n3,4\n"), columns=["c"])


def test_constant_column_dropped_with_warning(tmp_path):
    path = _write(tmp_path, "a,b,c\n1,5,2\n2,5,4\n3,5,9\n")
    with pytest.warns(ConstantColumnWarning, match="b"):
        inst = read_csv(path)
    assert inst.p == 2 and inst.raw.shape == (3, 3) and inst.dropped_columns == ("b",)
    assert np.allclose(inst.masked([0, 0, 0])[:, 1], 5.0)


def test_all_constant_refused():
    with pytest.raises(DataError, match="every key column is constant"):
        from_array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])


def test_non_key_text_columns_are_carried(tmp_path):
    path = _write(tmp_path, "name,a,b\nx,1,2\ny,3,5\nz,4,4\nw,8,1\n")
    inst = read_csv(path, columns=["a", "b"])
    out = tmp_path / "masked.csv"
    inst.write_masked_csv(np.array([0, 0, 1, 1]), out)
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0] == ["name", "a", "b"]
    assert [r[0] for r in rows[1:]] == ["x", "y", "z", "w"]
    assert [float(r[1]) for r in rows[1:]] == [2.0, 2.0, 6.0, 6.0]
    assert [float(r[2]) for r in rows[1:]] == [3.5, 3.5, 2.5, 2.5]


def test_subset_restandardizes(census):
    sub = census.subset(range(100), name="c100", criterion="test")
    assert sub.n == 100 and np.allclose(sub.X.std(0, ddof=1), 1)
    assert sub.provenance["parent"] == "census" and sub.provenance["criterion"] == "test"


def test_from_dataframe_checks():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"a": [1.0, 2, 3], "b": ["x", "y", "z"], "c": [3.0, 1, 2]})
    assert from_dataframe(df, ["a", "c"]).p == 2
    with pytest.raises(DataError, match="non-numeric"):
        from_dataframe(df)
    with pytest.raises(ParameterError, match="unknown"):
        from_dataframe(df, ["d"])


def test_from_array_rejects_text_and_nan():
    with pytest.raises(DataError):
        from_array([["a", "b"], ["c", "d"]])
    with pytest.raises(DataError, match="non-finite"):
        from_array([[1.0, np.nan], [2.0, 3.0]])


# ---------------------------------------------------------------- numeric robustness
# Issue 10: the same IL as an exact reference for values from 1e-300 to 1e300 and
# for columns with a tiny variance relative to their mean (1e9 + small noise).

import math  # noqa: E402
import warnings  # noqa: E402
from fractions import Fraction  # noqa: E402

from hypothesis import (  # noqa: E402
    assume,
    given,
    settings,
    strategies as st,  # noqa: E402
)

from mipagg.instance import PrecisionWarning, standardize  # noqa: E402
from mipagg.partition import Partition  # noqa: E402
from mipagg.verify import verify_table  # noqa: E402


def _column(rng, n, exponent, offset, sigma, ties):
    base = offset + sigma * rng.normal(size=n)
    if ties:
        base = offset + sigma * rng.integers(-2, 3, size=n)
    top = np.abs(base).max()
    return base / top * 10.0 ** exponent if top else base  # largest magnitude 10**exponent


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 14),
       cols=st.lists(st.tuples(st.integers(-300, 300), st.sampled_from([0.0, 1e3, 1e9]),
                               st.sampled_from([1.0, 1e-3]), st.booleans()),
                     min_size=1, max_size=3))
def test_il_matches_exact_reference_at_any_magnitude(seed, n, cols):
    rng = np.random.default_rng(seed)
    raw = np.column_stack([_column(rng, n, *c) for c in cols])
    labels = rng.integers(0, max(1, n // 3), size=n)
    names = [f"x{j}" for j in range(raw.shape[1])]
    try:
        ref = verify_table(names, raw.tolist(), labels.tolist(), 1)
    except DataError:  # every column constant: refused by both
        with pytest.raises(DataError, match="constant"):
            from_array(raw)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inst = from_array(raw)
    part = Partition(labels, inst.X)
    assert inst.p == ref["p"]  # no column silently dropped (or kept) differently
    assert np.isfinite(inst.X).all()
    assert part.sst() == pytest.approx(ref["sst"], rel=1e-12)
    assert part.sse() == pytest.approx(ref["sse"], rel=1e-9, abs=1e-12 * ref["sst"])
    assert part.il() == pytest.approx(ref["il"], rel=1e-9, abs=1e-10)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 20), shift=st.integers(-1000, 900))
def test_power_of_two_scaling_leaves_z_scores_bit_identical(seed, n, shift):
    raw = np.random.default_rng(seed).normal(size=(n, 3)) * [1.0, 1e-5, 3e4]
    scaled = np.ldexp(raw, shift)
    # the property holds while scaling is exact: no value may become subnormal
    assume(np.abs(scaled[raw != 0]).min() >= np.finfo(float).tiny)
    Z, kept = standardize(raw)
    Zs, kept_s = standardize(scaled)
    if kept.all() and kept_s.all():
        assert np.array_equal(Z, Zs)


def test_standardize_extremes_without_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning (overflow), no ConstantColumnWarning
        inst = from_array([[1e300, 1.0], [-1e300, 2.0], [5e299, 4.0], [8e299, 3.0]])
        tiny = from_array([[1e-300, 1.0], [-1e-300, 2.0], [5e-324, 4.0], [3e-310, 3.0]])
        near_max = from_array([[1.7e308, 1.0], [-1.7e308, 2.0], [1.0e308, 4.0]])
    for i in (inst, tiny, near_max):
        assert i.p == 2 and np.allclose(i.X.std(0, ddof=1), 1.0, rtol=1e-14)
        assert np.allclose(i.X.mean(0), 0.0, atol=1e-15)
    assert Partition(np.arange(4) // 2, inst.X).sst() == pytest.approx(6.0)  # n = 4, p = 2
    masked = inst.masked([0, 0, 1, 1])
    assert np.isfinite(masked).all() and masked[0, 0] == 0.0 and masked[2, 0] == 6.5e299
    assert np.isfinite(near_max.masked([0, 0, 0])).all()


def test_constant_means_all_values_equal():
    rng = np.random.default_rng(3)
    noisy = 1e9 + 1e-3 * rng.normal(size=50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        inst = from_array(np.column_stack([noisy, rng.normal(size=50)]))
    assert inst.p == 2 and inst.dropped_columns == ()
    # reference in exact rational arithmetic (numpy.longdouble is not enough here:
    # its 64-bit mantissa leaves a mean error of ~5e-11, i.e. 5e-8 standard deviations)
    values = [Fraction(v) for v in noisy.tolist()]
    mean = sum(values) / len(values)
    dev = [v - mean for v in values]
    sd = math.sqrt(float(sum(d * d for d in dev) / (len(values) - 1)))
    z_ref = np.array([float(d) / sd for d in dev])
    assert np.allclose(inst.X[:, 0], z_ref, rtol=0, atol=1e-13)
    # a column that differs from a constant only by float noise is kept but flagged
    with pytest.warns(PrecisionWarning, match="x1"):
        inst = from_array([[0.3, 1.0], [0.1 + 0.2, 2.0], [0.3, 4.0]])
    assert inst.p == 2
    with pytest.warns(ConstantColumnWarning, match="x1"):
        assert from_array([[1e9, 1.0], [1e9, 2.0], [1e9, 4.0]]).p == 1


def test_semicolon_file_keeps_its_delimiter(tmp_path):
    path = _write(tmp_path, "a;b;name\n1;2;x\n3;5;y\n4;4;z\n8;1;w\n")
    inst = read_csv(path, columns=["a", "b"])
    out = tmp_path / "m.csv"
    inst.write_masked_csv(np.array([0, 0, 1, 1]), out)
    assert out.read_text().splitlines()[0] == "a;b;name"
    assert out.read_text().splitlines()[1] == "2.0;3.5;x"
