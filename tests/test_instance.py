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
