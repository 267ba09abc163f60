"""``run --initial LABELS`` / ``microaggregate(..., initial=)``: the given
partition is the first incumbent of cg, bp and portfolio and the start of
every improvement, so the result is never worse than it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _bruteforce import optimal_partition

from mipagg.api import microaggregate
from mipagg.cli import main
from mipagg.errors import ParameterError
from mipagg.instance import from_array

ROOT = Path(__file__).resolve().parent.parent
COMPANIES = ROOT / "instances" / "companies.csv"
KEYS = "surface,employees"


@pytest.fixture(scope="module")
def case():
    X = np.random.default_rng(7).normal(size=(12, 2))
    inst = from_array(X)
    opt, groups = optimal_partition(inst.X, 3)
    labels = np.empty(12, dtype=int)
    for g, rows in enumerate(groups):
        labels[list(rows)] = g
    return inst, opt, labels


@pytest.mark.parametrize("method,options", [
    ("cg", {"max_iterations": 1, "close_gap": False}),
    ("bp", {"node_limit": 1, "cuts": False, "close_gap": False}),
    ("portfolio", {"time_limit": 2, "methods": ["vmdav"]})])
def test_methods_start_from_the_initial_partition(case, method, options):
    inst, opt, labels = case
    r = microaggregate(inst, 3, method, initial=labels, **options)
    assert r.partition.sse() == pytest.approx(opt, abs=1e-9)
    assert r.options["initial"] is True and r.details["initial_sse"] == pytest.approx(opt)


@pytest.mark.parametrize("improve", ["local", "rcs", "exact"])
def test_improvements_start_from_the_better_partition(case, improve):
    inst, opt, labels = case
    plain = microaggregate(inst, 3, "md", seed=0).partition.sse()
    assert plain > opt + 1e-6                 # md alone is not optimal here
    opts = {"time_limit": 5} if improve == "exact" else None
    r = microaggregate(inst, 3, "md", improve=improve, seed=0, initial=labels,
                       improve_options=opts)
    assert r.details["improve_start"] == "initial"
    assert r.partition.sse() == pytest.approx(opt, abs=1e-9)


def test_bad_initial_partitions_are_refused(case):
    inst, _, labels = case
    with pytest.raises(ParameterError, match="does not take an initial"):
        microaggregate(inst, 3, "mdav", initial=labels)
    with pytest.raises(ParameterError, match="smaller than k"):
        microaggregate(inst, 3, "cg", initial=np.arange(12) // 2)
    with pytest.raises(ParameterError, match="11 labels for 12"):
        microaggregate(inst, 3, "bp", initial=labels[:11])


def test_cli_initial(tmp_path, capsys):
    init = tmp_path / "init.csv"
    init.write_text("group\n" + "\n".join(map(str, [0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2])) + "\n")
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--method", "mdav",
                 "--improve", "local", "--initial", str(init), "--json", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 0, err
    s = json.loads(out)
    assert s["options"]["initial"] is True and s["improve_start"] in ("initial", "mdav")
    code = main(["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--method", "cg",
                 "--initial", str(init), "--labels", str(init), "--quiet"])
    assert code == 2 and "init.csv" in capsys.readouterr().err   # never overwrite an input
