"""The fast CSV path (mipagg.fastcsv) reads and writes exactly what the cell-by-cell
reader does: same Instance (raw, columns, table, provenance), same errors, same
masked release, byte for byte; irregular files fall back to the old reader."""

import gzip
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import mipagg.fastcsv as fastcsv
from mipagg.errors import MipaggError
from mipagg.instance import read_csv

PLAIN = st.one_of(st.integers(-10**6, 10**6).map(str),
                  st.floats(-1e6, 1e6, allow_nan=False).map(repr))
ODD = (st.sampled_from(["1e3", " 2.5", "3 ", "+4", "-0", "1_000", "0.1e-2", "7.", ".5", "",
                     "nan", "inf", "x", "1,5", "٣"]))


def _read(path, force_old, monkeypatch, **kw):
    with monkeypatch.context() as m:
        if force_old:
            m.setattr(fastcsv, "plain_lines", lambda text, d: None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return read_csv(path, **kw)
            except MipaggError as exc:
                return f"{type(exc).__name__}: {exc}"


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert np.array_equal(a.raw, b.raw, equal_nan=True)
    assert a.columns == b.columns and a.provenance == b.provenance
    assert a.table[0] == b.table[0] and list(map(list, a.table[1])) == b.table[1]
    assert a.table[1] == b.table[1]


@st.composite
def files(draw):
    p = draw(st.integers(1, 4))
    n = draw(st.integers(1, 8))
    header = draw(st.sampled_from([[f"c{j}" for j in range(p)], [str(j) for j in range(p)],
                                   ["a"] * p, [f" v{j} " for j in range(p)]]))
    cells = [[draw(PLAIN if draw(st.integers(0, 40)) else ODD) for _ in range(p)]
             for _ in range(n)]
    if draw(st.integers(0, 19)) == 0 and n > 1:  # a ragged record
        cells[draw(st.integers(0, n - 1))].append("9")
    delim = draw(st.sampled_from([",", ";", "\t"]))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    has_header = draw(st.integers(0, 3)) > 0
    rows = [header] + cells if has_header else cells
    text = end.join(delim.join(r) for r in rows) + draw(st.sampled_from(["", end, end * 2]))
    if draw(st.booleans()) and n > 1:  # a blank line in the middle
        text = text.replace(end, end + end, 1)
    return text, p, draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "gzip"])), has_header


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(f=files(), subset=st.booleans(), quote=st.booleans())
def test_fast_path_reads_like_the_cell_reader(tmp_path_factory, monkeypatch, f, subset, quote):
    text, p, enc, header = f
    if quote:  # quotes send the file to the csv module
        text = text.replace("1", '"1"', 1)
    path = tmp_path_factory.mktemp("f") / "d.csv"
    data = text.encode("utf-8" if enc == "gzip" else enc)
    path.write_bytes(gzip.compress(data) if enc == "gzip" else data)
    kw = {"header": header}
    if subset and p > 1 and header:
        kw["columns"] = ["c1"]
    old = _read(path, True, monkeypatch, **kw)
    new = _read(path, False, monkeypatch, **kw)
    _same(new, old)
    if not isinstance(new, str):  # and the masked releases are byte for byte the same
        labels = np.arange(new.n) // 2
        outs = []
        for inst, name in ((old, "o.csv"), (new, "n.csv")):
            target = path.parent / name
            inst.write_masked_csv(labels, target)
            outs.append(target.read_bytes())
        assert outs[0] == outs[1]


def test_fast_path_is_taken_and_falls_back(tmp_path, monkeypatch):
    path = tmp_path / "d.csv"
    path.write_text("a,b\n1,2\n3,4\n5,7\n")
    assert isinstance(read_csv(path).table[1], fastcsv.Rows)
    path.write_text('a,b\n"1",2\n3,4\n5,7\n')
    inst = read_csv(path)
    assert isinstance(inst.table[1], list) and inst.raw.tolist() == [[1, 2], [3, 4], [5, 7]]
    path.write_text("a,b\n1,2\n3,4\n5,\n")
    with pytest.raises(MipaggError, match="column 'b' has a missing .* record 3"):
        read_csv(path)
    path.write_text("a,b\n1,2\n3,4\n5,1,5\n")
    with pytest.raises(MipaggError, match="record 3 has 3 fields, header has 2"):
        read_csv(path)
    # a bad cell past the first chunk is named with its record number
    monkeypatch.setattr(fastcsv, "CHUNK", 2)
    path.write_text("a,b\n1,2\n3,4\n5,6\n7,z\n")
    with pytest.raises(MipaggError, match=r"key column 'b' is not numeric \(record 4: 'z'\)"):
        read_csv(path)


def test_masked_release_with_non_key_columns_in_any_order(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("id;b;a;note\r\nr1;1;10;x\r\nr2;3;30;\"y;z\"\r\nr3;5;20;w\r\n")
    inst = read_csv(path, columns=["a", "b"])
    out = tmp_path / "m.csv"
    inst.write_masked_csv([0, 0, 1], out)
    assert out.read_bytes() == (b"id;b;a;note\r\nr1;2.0;20.0;x\r\nr2;2.0;20.0;\"y;z\"\r\n"
                                b"r3;5.0;20.0;w\r\n")
    path.write_text("b;a\r\n1;10\r\n3;30\r\n5;20\r\n")
    inst = read_csv(path, columns=["a", "b"])
    inst.write_masked_csv([0, 0, 1], out)
    assert out.read_bytes() == b"b;a\r\n2.0;20.0\r\n2.0;20.0\r\n5.0;20.0\r\n"
