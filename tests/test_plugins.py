"""Plug-in methods (mipagg.plugins): register_method and the ``mipagg.methods``
entry points, used by run, gap, grids, the portfolio; outputs validated."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mipagg
from mipagg.api import microaggregate
from mipagg.errors import ParameterError
from mipagg.methods import (
    METHODS,
    get_method,
    load_entry_points,
    register_method,
    unregister_method,
)
from mipagg.plugins import PluginError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mipagg-example-plugin"
COMPANIES = ROOT / "instances" / "companies.csv"
KEYS = "surface,employees"


@pytest.fixture
def registry():
    before = dict(METHODS)
    yield
    METHODS.clear()
    METHODS.update(before)


def blocks(X, k, *, seed=None, time_limit=None):
    """consecutive blocks of k in input order"""
    n = len(X)
    return np.minimum(np.arange(n) // k, n // k - 1)


def test_registered_function_runs_and_is_validated(registry):
    calls = []

    def shuffled(X, k, *, seed=None, time_limit=None):
        calls.append((seed, time_limit))
        rng = np.random.default_rng(seed)
        return rng.permutation(blocks(X, k))

    register_method("shuffled-blocks", shuffled, paper="test paper")
    assert get_method("shuffled-blocks").reference == "test paper"
    X = np.random.default_rng(0).normal(size=(20, 3))
    r = microaggregate(X, 4, "shuffled-blocks", seed=3, time_limit=2.0)
    assert calls == [(3, 2.0)]
    assert r.partition.is_feasible(4) and r.partition.n_groups == 5
    # SSE recomputed from the labels, not taken from the plug-in
    expect = sum(((X[g] - X[g].mean(0)) ** 2).sum() for g in r.partition.groups())
    assert r.partition.sse() == pytest.approx(
        sum(((r.partition.X[g] - r.partition.X[g].mean(0)) ** 2).sum()
            for g in r.partition.groups()))
    assert expect > 0
    with pytest.raises(ParameterError, match="already registered"):
        register_method("shuffled-blocks", shuffled)
    register_method("shuffled-blocks", blocks, replace=True)
    unregister_method("shuffled-blocks")
    with pytest.raises(ParameterError, match="unknown method"):
        get_method("shuffled-blocks")


@pytest.mark.parametrize("output,message", [
    (lambda X, k: np.zeros(len(X) - 1, dtype=int), "returned 5 labels"),
    (lambda X, k: np.arange(len(X)), "returned a partition that is not 3-feasible: 6 group"),
    (lambda X, k: np.full(len(X), -1), "returned a negative label"),
    (lambda X, k: np.full(len(X), 0.5), "returned labels that are not integers"),
    (lambda X, k: "oops", "returned str"),
])
def test_bad_outputs_name_the_plugin(registry, output, message):
    register_method("bad-one", lambda X, k, *, seed=None: output(X, k))
    with pytest.raises(PluginError, match=f"plug-in method 'bad-one' {message}"):
        microaggregate(np.arange(6.0)[:, None], 3, "bad-one")


def test_names_and_signatures_are_checked(registry):
    with pytest.raises(ParameterError, match="built-in"):
        register_method("mdav", blocks)
    with pytest.raises(ParameterError, match="lowercase"):
        register_method("My Method", blocks)
    with pytest.raises(ParameterError, match="must take"):
        register_method("one-arg", lambda X: X)


def test_portfolio_and_gap_use_plugins(registry):
    register_method("blocks", blocks)
    X = np.random.default_rng(2).normal(size=(24, 2))
    r = microaggregate(X, 3, "portfolio", time_limit=3, methods=["vmdav", "blocks"])
    runs = [run.method for run in r.raw.runs]
    assert "blocks" in runs and "vmdav" in runs
    c = mipagg.certify(X, microaggregate(X, 3, "blocks"), 3, time_limit=20)
    assert c.sse == pytest.approx(microaggregate(X, 3, "blocks").partition.sse())
    assert c.lower_bound <= r.partition.sse() + 1e-9


def _fake_install(tmp_path) -> Path:
    """A dist-info directory declaring the example's entry point (what pip
    install would write), next to the example package on sys.path."""
    site = tmp_path / "site"
    info = site / "mipagg_example_plugin-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mipagg-example-plugin\n"
                                   "Version: 0.1.0\n")
    (info / "entry_points.txt").write_text(
        "[mipagg.methods]\nexample-sorted = mipagg_example_plugin:sorted_blocks\n")
    return site


def test_entry_point_of_the_example_package(tmp_path, monkeypatch, registry):
    site = _fake_install(tmp_path)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(EXAMPLE))
    assert "example-sorted" in load_entry_points(force=True)
    spec = get_method("example-sorted")
    assert spec.plugin and "principal-axis" in spec.reference
    X = np.random.default_rng(5).normal(size=(17, 2))
    r = microaggregate(X, 4, "example-sorted")
    assert r.partition.is_feasible(4) and sorted(r.partition.sizes.tolist()) == [4, 4, 4, 5]


def test_cli_with_an_installed_plugin(tmp_path, monkeypatch, registry, capsys):
    from mipagg.cli import main

    site = _fake_install(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(site), str(EXAMPLE), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-m", "mipagg.cli", "methods"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "example-sorted" in p.stdout and "(plug-in)" in p.stdout
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(EXAMPLE))
    load_entry_points(force=True)
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--method",
                 "example-sorted", "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["min_group"] >= 3
    code = main(["gap", str(COMPANIES), "--from", "example-sorted", "-k", "3", "--columns",
                 KEYS, "--json", "--quiet", "--time-limit", "120"])
    out, err = capsys.readouterr()
    assert code == 0, err
    out = json.loads(out)
    assert out["partition"] == "method example-sorted" and out["gap"] >= 0
    assert out["lower_bound_il"] == pytest.approx(34.02, abs=0.01)   # seed 004 Example 1


def test_grid_runs_a_plugin_and_reports_its_gap(registry, tmp_path):
    from mipagg.experiments import Grid, InstanceList, MethodEntry, ResultStore, run_grid
    from mipagg.experiments.bounds import bound_gap_tables, stored_bounds
    from mipagg.instance import from_array

    register_method("blocks", blocks, paper="test")
    inst = from_array(np.random.default_rng(4).normal(size=(12, 2)), name="toy")
    grid = Grid([InstanceList((inst,))], [MethodEntry("blocks"), MethodEntry("mdav")], k=(3,),
                bounds={"method": "bp", "time_limit": 20})
    out = run_grid(grid, tmp_path / "g.sqlite", jobs=1, progress=False)
    assert out.ok == 2
    with ResultStore(tmp_path / "g.sqlite") as store:
        (table,) = bound_gap_tables(store.to_dataframe(), stored_bounds(store))
    assert [r[0] for r in table.rows][:2] == ["blocks", "mdav"]


def test_cli_portfolio_methods_takes_plugins(registry, capsys):
    from mipagg.cli import main

    register_method("blocks", blocks)
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--method", "portfolio",
                 "--portfolio-methods", "vmdav,blocks", "--time-limit", "3", "--json",
                 "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert {"vmdav", "blocks"} <= {r["method"] for r in json.loads(out)["runs"]}
