"""``mipagg export --columns-pool FILE.mps``: the integer master over cg's
column pool, readable by another solver, with the pool's optimum."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mipagg.cli import main

ROOT = Path(__file__).resolve().parent.parent
COMPANIES = ROOT / "instances" / "companies.csv"
KEYS = "surface,employees"


def test_export_mps_solves_to_the_pool_optimum(tmp_path, capsys):
    import highspy

    mps, cols = tmp_path / "pool.mps", tmp_path / "pool.csv"
    code = main(["export", str(COMPANIES), "-k", "3", "--columns", KEYS, "--columns-pool",
                 str(mps), "--columns-csv", str(cols), "--json", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and mps.is_file()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(mps))
    assert h.getNumCol() == out["columns"] and h.getNumRow() == 11
    h.run()
    # the pool holds the optimum of companies.csv at k = 3 (seed 004 Example 1: IL 34.02)
    assert h.getInfo().objective_function_value == pytest.approx(out["best_sse"], rel=1e-9)
    assert 100 * out["best_sse"] / 20.0 == pytest.approx(34.02, abs=0.01)
    lines = cols.read_text().splitlines()
    assert lines[0] == "column,size,weight,records" and len(lines) == out["columns"] + 1
    assert all(int(line.split(",")[1]) == len(line.split(",")[3].split()) for line in lines[1:])


def test_export_refuses_bad_outputs(tmp_path, capsys):
    assert main(["export", str(COMPANIES), "-k", "3", "--columns", KEYS, "--columns-pool",
                 str(tmp_path / "pool.lp"), "--quiet"]) == 2
    assert "must end in .mps" in capsys.readouterr().err
    assert main(["export", str(COMPANIES), "-k", "3", "--columns", KEYS, "--columns-pool",
                 str(tmp_path / "a.mps"), "--columns-csv", str(COMPANIES), "--quiet"]) == 2
    assert "companies.csv" in capsys.readouterr().err
