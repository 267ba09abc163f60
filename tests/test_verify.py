"""``mipagg verify``: an independent recomputation of feasibility, SSE, SST and IL."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mipagg import microaggregate, read_csv
from mipagg.cli import main
from mipagg.errors import DataError, ParameterError
from mipagg.verify import LabelsError, verify_files, verify_table

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"
SHIPPED = [("companies.csv", "surface,employees"), ("normal_n11_p3_seed1.csv", None),
           ("simc_seed1.csv", None), ("simu_n200_seed1.csv", None),
           ("simu_n1000_seed1.csv", None)]


def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def _labels(tmp_path, labels, name="l.csv") -> Path:
    path = tmp_path / name
    path.write_text("group\n" + "".join(f"{g}\n" for g in labels))
    return path


def _agrees(rep: dict, part, k: int):
    s = part.summary()
    assert rep["feasible"] == part.is_feasible(k)
    assert (rep["n"], rep["p"], rep["groups"], rep["min_group"], rep["max_group"]) == \
        (s["n"], s["p"], s["groups"], s["min_group"], s["max_group"])
    for key in ("sse", "sst", "il"):
        assert rep[key] == pytest.approx(s[key], rel=1e-9), key


@pytest.mark.parametrize("fname, columns", SHIPPED)
@pytest.mark.parametrize("method, k", [("mdav", 3), ("mdav-mhm", 5)])
def test_agrees_with_partition_on_shipped_instances(tmp_path, fname, columns, method, k):
    cols = columns.split(",") if columns else None
    inst = read_csv(INSTANCES / fname, columns=cols)
    res = microaggregate(inst, k, method)
    labels = tmp_path / "l.csv"
    res.partition.write_labels(labels)
    _agrees(verify_files(INSTANCES / fname, labels, k, columns=cols), res.partition, k)


@pytest.mark.data
@pytest.mark.parametrize("k", [3, 10])
def test_agrees_with_partition_on_census(tmp_path, census, k):
    res = microaggregate(census, k, "mdav")
    labels = tmp_path / "l.csv"
    res.partition.write_labels(labels)
    rep = verify_files(census.provenance["source"], labels, k)
    _agrees(rep, res.partition, k)
    published = {3: 5.6922, 10: 14.1559}[k]  # DESIGN.md: MDAV on Census, all 13 columns
    assert round(rep["il"], 4) == published


def test_command_output_and_json(tmp_path, capsys):
    data = INSTANCES / "companies.csv"
    labels = tmp_path / "l.csv"
    code, out, _ = run(capsys, "run", data, "-k", 3, "--columns", "surface,employees",
                       "--labels", labels, "--json")
    made = json.loads(out)
    code, out, err = run(capsys, "verify", data, labels, "-k", 3, "--columns",
                         "surface,employees", "--json")
    assert code == 0 and err == ""
    rep = json.loads(out)  # exactly one JSON object
    assert rep["feasible"] and rep["k"] == 3
    for key in ("sse", "sst", "il", "groups", "min_group", "max_group"):
        assert rep[key] == pytest.approx(made[key], rel=1e-9)
    code, out, _ = run(capsys, "verify", data, labels, "-k", 3, "--columns",
                       "surface,employees")
    assert code == 0 and "il:" in out and "min_group:" in out


@pytest.mark.parametrize("case, code, match", [
    ("infeasible", 1, "not 3-feasible"),
    ("too_few_labels", 1, "3 labels, "),
    ("too_many_labels", 1, "12 labels"),
    ("non_integer", 1, "not an integer"),
    ("no_header", 1, "expected the header 'group'"),
    ("empty_labels", 1, "expected the header 'group'"),
    ("missing_data", 2, "no such data file"),
    ("missing_labels", 2, "no such labels file"),
    ("unknown_column", 2, "unknown column"),
    ("text_column", 2, "not numeric"),
])
def test_failure_modes_exit_codes(tmp_path, capsys, case, code, match):
    data = tmp_path / "d.csv"
    data.write_text("name,a,b\n" + "".join(f"r{i},{i},{(i * 7) % 5}\n" for i in range(11)))
    good = [0] * 4 + [1] * 4 + [2] * 3
    labels = {"infeasible": [0] * 9 + [1] * 2, "too_few_labels": [0, 0, 0],
              "too_many_labels": good + [2]}.get(case, good)
    lab = _labels(tmp_path, labels)
    if case == "non_integer":
        lab.write_text("group\n" + "0\n" * 5 + "1.5\n" + "1\n" * 5)
    if case == "no_header":
        lab.write_text("".join(f"{g}\n" for g in good))
    if case == "empty_labels":
        lab.write_text("")
    columns = {"unknown_column": "a,zz", "text_column": "name,a"}.get(case, "a,b")
    argv = ["verify", data, lab, "-k", 3, "--columns", columns]
    if case == "missing_data":
        argv[1] = tmp_path / "none.csv"
    if case == "missing_labels":
        argv[2] = tmp_path / "none.csv"
    got, out, err = run(capsys, *argv)
    assert got == code and match in err and "Traceback" not in err
    if case == "infeasible":
        assert "feasible: False" in out  # the report is still printed


def test_console_exit_codes_subprocess(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a,b\n1,2\n3,4\n5,7\n8,1\n")
    ok = _labels(tmp_path, [0, 0, 1, 1], "ok.csv")
    bad = _labels(tmp_path, [0, 1, 1, 1], "bad.csv")
    cmd = [sys.executable, "-m", "mipagg.cli", "verify", str(data)]
    assert subprocess.run(cmd + [str(ok), "-k", "2"], capture_output=True).returncode == 0
    res = subprocess.run(cmd + [str(bad), "-k", "2", "--json"], capture_output=True, text=True)
    assert res.returncode == 1 and json.loads(res.stdout)["feasible"] is False
    res = subprocess.run(cmd + [str(ok)], capture_output=True, text=True)  # no -k
    assert res.returncode == 2


def test_exact_arithmetic_and_conventions():
    # constant column dropped; SST = (n − 1)·q; group labels can be any integers
    rep = verify_table(["a", "c"], [[0.0, 5.0], [1.0, 5.0], [10.0, 5.0], [11.0, 5.0]],
                       [7, 7, -3, -3], k=2)
    assert rep["dropped_columns"] == ["c"] and rep["p"] == 1 and rep["sst"] == 3.0
    assert rep["sse"] == 3 * 1 / 101  # SSE_raw = 1, SST_raw = 101, n − 1 = 3
    # invariant to affine maps of a column, whatever the magnitude
    rng = np.random.default_rng(0)
    x = rng.normal(size=(9, 2))
    labels = [0, 0, 0, 1, 1, 1, 2, 2, 2]
    ref = verify_table(["a", "b"], x.tolist(), labels, 3)
    for scale, shift in [(1e300, 0.0), (1e-300, 0.0), (1e-3, 1e9), (2.0 ** 600, 0)]:
        y = x * scale + shift
        got = verify_table(["a", "b"], y.tolist(), labels, 3)
        assert got["il"] == pytest.approx(ref["il"], rel=1e-4 if shift else 1e-12)
    with pytest.raises(LabelsError):
        verify_table(["a"], [[1.0], [2.0]], [0], 2)
    with pytest.raises(DataError, match="every key column is constant"):
        verify_table(["a"], [[1.0], [1.0]], [0, 0], 2)
    with pytest.raises(ParameterError):
        verify_table(["a"], [[1.0], [2.0]], [0, 0], 0)
