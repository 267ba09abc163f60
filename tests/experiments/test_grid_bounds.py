"""Grids with certified bounds (mipagg.experiments.bounds): one bound per
instance and k, never above the brute-force optimum, stored once and reused
on resume; the gap table of ``mipagg report DB --table gaps``."""

from __future__ import annotations

import numpy as np
import pytest
from _bruteforce import optimal_partition

from mipagg.cli import main
from mipagg.experiments import Grid, GridError, InstanceList, MethodEntry, ResultStore, run_grid
from mipagg.experiments.bounds import bound_gap_tables, stored_bounds
from mipagg.instance import from_array


@pytest.fixture
def grid():
    rng = np.random.default_rng(11)
    insts = tuple(from_array(rng.normal(size=(10, 2)), name=f"toy{i}") for i in range(2))
    return Grid([InstanceList(insts, name="toys")],
                [MethodEntry("mdav", label="MDAV"), MethodEntry("md", label="MD")],
                k=(2, 3), bounds={"method": "bp", "time_limit": 20})


def test_bounds_are_stored_once_and_below_the_optimum(grid, tmp_path):
    db = tmp_path / "g.sqlite"
    out = run_grid(grid, db, jobs=1, progress=False)
    assert out.bounds == {"computed": 4, "reused": 0}
    again = run_grid(grid, db, jobs=1, progress=False)
    assert again.bounds == {"computed": 0, "reused": 4}
    with ResultStore(db) as store:
        bounds = stored_bounds(store)
        df = store.to_dataframe()
    insts = {i.name: i for i in grid.instances[0].instances}
    assert len(bounds) == 4
    for b in bounds:
        opt, _ = optimal_partition(insts[b["instance"]].X, b["k"])
        assert b["lower_bound"] <= opt + 1e-7
        assert b["status"] == "optimal" and b["sse"] == pytest.approx(opt, abs=1e-7)
        assert b["initial_sse"] is not None and b["sse"] <= b["initial_sse"] + 1e-9
    (table,) = bound_gap_tables(df, bounds)
    rows = {r[0]: r for r in table.rows}
    for label in ("MDAV", "MD"):
        runs = df[df["label"] == label]
        gaps, opts = [], 0
        for _, r in runs.iterrows():
            b = next(b for b in bounds if b["instance"] == r["instance"] and b["k"] == r["k"])
            gaps.append(100 * (r["sse"] - b["lower_bound"]) / r["sse"])
            opts += r["sse"] <= b["lower_bound"] * (1 + 1e-6)
        assert rows[label][7] == f"{max(0.0, np.mean(gaps)):.2f}"       # all k: mean
        assert rows[label][8] == f"{max(0.0, max(gaps)):.2f}"           # all k: max
        assert rows[label][9] == f"{opts}/{len(runs)}"


def test_report_gaps_command(grid, tmp_path, capsys):
    db = tmp_path / "g.sqlite"
    run_grid(grid, db, jobs=1, progress=False)
    for fmt, marker in (("md", "| MDAV |"), ("latex", "\\multicolumn{3}{c}{k = 2}"),
                        ("csv", "k = 3 mean gap %")):
        assert main(["report", str(db), "--table", "gaps", "--format", fmt]) == 0
        assert marker in capsys.readouterr().out


@pytest.mark.parametrize("spec,message", [
    ({"method": "mdav", "time_limit": 5}, "method must be one of"),
    ({"method": "bp"}, "time_limit must be a positive"),
    ({"method": "bp", "time_limit": 5, "nodes": 3}, "unknown key"),
    ("bp", "must be a table")])
def test_bad_bounds_entries(spec, message):
    with pytest.raises(GridError, match=message):
        Grid([InstanceList((from_array(np.arange(8.0)[:, None], name="a"),))],
             [MethodEntry("mdav")], k=(2,), bounds=spec)


def test_toml_bounds_entry(tmp_path):
    from mipagg.experiments import load_grid

    path = tmp_path / "g.toml"
    path.write_text('name = "t"\nk = [3]\nbounds = { method = "cg", time_limit = 30 }\n'
                    '[[instances]]\ngenerator = "simu"\nn = 20\np = 2\n'
                    '[[methods]]\nname = "mdav"\n')
    assert load_grid(path).bounds == {"method": "cg", "time_limit": 30.0}
