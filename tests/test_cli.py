"""The ``mipagg`` command and the Python API: outputs and input errors."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mipagg.api import microaggregate
from mipagg.cli import main
from mipagg.errors import DataError, ParameterError
from mipagg.instance import read_csv

ROOT = Path(__file__).resolve().parent.parent
COMPANIES = ROOT / "instances" / "companies.csv"
KEYS = "surface,employees"
REQUIRED = {"method", "k", "n", "p", "sse", "sst", "il", "groups", "min_group", "max_group",
            "seconds"}


def run(capsys, *argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_summary(capsys):
    code, out, err = run(capsys, "run", COMPANIES, "-k", 3, "--columns", KEYS, "--method",
                         "cbfs-mhm", "--json")
    assert code == 0
    s = json.loads(out)
    assert REQUIRED <= set(s)
    assert s["method"] == "cbfs-mhm" and s["k"] == 3 and s["n"] == 11 and s["p"] == 2
    assert s["il"] == pytest.approx(100 * s["sse"] / s["sst"])
    assert s["min_group"] >= 3


def test_labels_and_masked_output(capsys, tmp_path):
    labels, masked = tmp_path / "labels.csv", tmp_path / "masked.csv"
    code, out, err = run(capsys, "run", COMPANIES, "-k", 3, "--columns", KEYS, "--method", "mdav",
                         "--labels", labels, "--output", masked, "--json")
    assert code == 0
    lab = labels.read_text().splitlines()
    assert lab[0] == "group" and len(lab) == 12
    g = np.array(list(map(int, lab[1:])))
    with open(COMPANIES) as fh:
        orig = list(csv.reader(fh))
    with open(masked) as fh:
        rel = list(csv.reader(fh))
    assert rel[0] == orig[0] and len(rel) == len(orig)
    for j, name in enumerate(orig[0]):
        col_o = [r[j] for r in orig[1:]]
        col_m = [r[j] for r in rel[1:]]
        if name in KEYS.split(","):
            vals = np.array(col_o, dtype=float)
            expect = [vals[g == g[i]].mean() for i in range(11)]
            assert np.allclose(np.array(col_m, dtype=float), expect)
        else:
            assert col_m == col_o  # untouched, input order
    inst = read_csv(COMPANIES, columns=KEYS.split(","))
    assert json.loads(out)["sse"] == pytest.approx(microaggregate(inst, 3, "mdav").partition.sse())


@pytest.mark.parametrize("content,args,match", [
    (None, [], "no such file"),
    ("", [], "empty"),
    ("a,b\n", [], "no records"),
    ("a,b\n1,2\n3,x\n4,5\n", [], "not numeric"),
    ("a,b\n1,2\n3,nan\n4,5\n", [], "non-finite"),
    ("a,b\n1,2\n1,2\n1,2\n", [], "constant"),
    ("a,b\n1,2\n3,4\n5,6\n", ["-k", "1"], "at least 2"),
    ("a,b\n1,2\n3,4\n5,6\n", ["-k", "4"], "exceeds"),
    ("a,b\n1,2\n3,4\n5,6\n", ["--method", "nope"], "unknown method"),
    ("a,b\n1,2\n3,4\n5,6\n", ["--columns", "a,zz"], "unknown column"),
    ("a,b\n1,2\n3,4\n5,6\n", ["--method", "mdav", "--gamma", "0.5"], "does not take"),
    ("a,b\n1,2\n3,4\n5,6\n", ["--method", "mdav", "--option", "plunge=1"], "cg and bp"),
    ("a,b\n1,2\n3,4\n5,6\n", ["--method", "bp", "--option", "plung=1"], "expected KEY=VALUE"),
    ("a,b\n1,2\n3,4\n5,6\n", ["--method", "bp", "--option", "plunge=-1"], "plunge"),
    ("a,b\n1,2\n3,4\n5,6\n", ["--method", "cg", "--time-limit", "5", "--option",
                                 "time_limit=3"], "set the same option"),
])
def test_command_errors(capsys, tmp_path, content, args, match):
    path = tmp_path / "in.csv"
    if content is not None:
        path.write_text(content)
    argv = ["run", path] + (args if "-k" in args else ["-k", "2"] + args)
    code, out, err = run(capsys, *argv)
    assert code != 0
    assert match in err and err.startswith("mipagg: error:")
    assert "Traceback" not in err


def test_option_sets_any_bp_setting(capsys):
    """``--option KEY=VALUE`` reaches the settings no flag names (issue 22)."""
    code, out, err = run(capsys, "run", ROOT / "instances" / "simu_n200_seed1.csv", "-k", 3,
                         "--method", "bp", "--option", "node_limit=1", "--option",
                         "close_gap=false", "--option", "max_cut_rounds=2", "--json", "--quiet")
    assert code == 0, err
    s = json.loads(out)
    assert s["options"] == {"node_limit": 1, "close_gap": False, "max_cut_rounds": 2}
    assert s["status"] == "node_limit" and s["nodes"] == 1 and s["cut_rounds"] <= 2
    assert s["lower_bound"] <= s["sse"]


def test_option_checkpoint_never_overwrites_the_input(capsys, tmp_path):
    data = tmp_path / "in.csv"
    data.write_bytes(COMPANIES.read_bytes())
    before = data.read_bytes()
    code, out, err = run(capsys, "run", data, "-k", 3, "--columns", KEYS, "--method", "bp",
                         "--option", f"checkpoint={data}")
    assert code != 0 and "--option checkpoint" in err and data.read_bytes() == before


def test_constant_column_warns_but_runs(capsys, tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("a,b\n1,7\n2,7\n3,7\n4,7\n")
    code, out, err = run(capsys, "run", path, "-k", 2, "--json")
    assert code == 0 and json.loads(out)["p"] == 1
    assert err.startswith("mipagg: warning: constant key column(s) b dropped")


def test_api_errors():
    X = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ParameterError, match="at least 2"):
        microaggregate(X, 1, "mdav")
    with pytest.raises(DataError, match="exceeds"):
        microaggregate(X, 11, "mdav")
    with pytest.raises(ParameterError, match="unknown method"):
        microaggregate(X, 3, "nope")
    with pytest.raises(ParameterError, match="does not take"):
        microaggregate(X, 3, "cbfs", gamma=0.3)
    assert microaggregate(X, 3, "vmdav", gamma=0.3).options == {"gamma": 0.3}


def test_methods_lists_foundation(capsys):
    code, out, _ = run(capsys, "methods")
    assert code == 0
    for name in ["mdav", "vmdav", "md", "cbfs", "npn-mhm", "md-mhm", "mdav-mhm", "cbfs-mhm"]:
        assert any(line.split()[0] == name for line in out.splitlines())


def test_console_script_subprocess(tmp_path):
    exe = Path(sys.executable).with_name("mipagg")
    if not exe.exists():
        pytest.skip("mipagg console script not installed in this environment")
    ok = subprocess.run([exe, "run", COMPANIES, "-k", "3", "--columns", KEYS, "--json"],
                        capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["n"] == 11
    bad = subprocess.run([exe, "run", tmp_path / "none.csv", "-k", "3"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "no such file" in bad.stderr and "Traceback" not in bad.stderr


# ---------------------------------------------------------------- --quiet and verbose

def _verbose_module(tmp_path, monkeypatch):
    """A method module whose function takes ``verbose`` and reports progress
    through :class:`mipagg.progress.Progress`, registered as ``fake-verbose``."""
    from mipagg.methods import METHODS, MethodSpec

    (tmp_path / "fake_verbose_method.py").write_text(
        "from mipagg.heuristics.mdav import mdav\n"
        "from mipagg.progress import Progress\n"
        "def fake(X, k, *, verbose=False):\n"
        "    prog = Progress('fake', enabled=verbose)\n"
        "    prog.update(force=True, step=1, best=2.5)\n"
        "    return mdav(X, k)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(METHODS, "fake-verbose", MethodSpec(
        "fake-verbose", "fake_verbose_method:fake", "test method with progress", "none"))


def test_progress_goes_to_stderr_and_stdout_stays_one_json_object(capsys, tmp_path,
                                                                  monkeypatch):
    _verbose_module(tmp_path, monkeypatch)
    code, out, err = run(capsys, "run", COMPANIES, "-k", 3, "--columns", KEYS, "--method",
                         "fake-verbose", "--json")
    assert code == 0
    summary = json.loads(out)  # the whole of stdout is one JSON object
    assert "[fake " in err and "step 1" in err
    assert "verbose" not in summary["options"]  # it does not change the result
    code, out, err = run(capsys, "run", COMPANIES, "-k", 3, "--columns", KEYS, "--method",
                         "fake-verbose", "--json", "--quiet")
    assert code == 0 and err == "" and json.loads(out)["sse"] == summary["sse"]


def test_verbose_is_passed_only_to_methods_that_take_it(tmp_path, monkeypatch):
    _verbose_module(tmp_path, monkeypatch)
    X = np.random.default_rng(0).normal(size=(10, 2))
    quiet = microaggregate(X, 3, "fake-verbose")
    loud = microaggregate(X, 3, "fake-verbose", verbose=True)
    assert quiet.options == loud.options == {}
    assert np.array_equal(quiet.labels, loud.labels)
    assert microaggregate(X, 3, "mdav", verbose=True).options == {}  # ignored, no error


def _verbose_methods():
    from mipagg.methods import METHODS

    return [name for name, spec in METHODS.items() if "verbose" in spec.options()]


@pytest.mark.parametrize("method", _verbose_methods() or [
    pytest.param(None, marks=pytest.mark.skip(reason="no registered method takes `verbose` "
                                              "yet; the fake-verbose tests cover the CLI"))])
def test_real_verbose_methods_keep_stdout_one_json_object(method, capfd):
    """In this process, captured at the file descriptors (what a kernel or a
    solver library prints goes there too); the console script itself runs in
    a subprocess in test_console_script_subprocess."""
    from mipagg import cli

    argv = ["run", str(COMPANIES), "-k", "3", "--columns", KEYS, "--method", method, "--json"]
    capfd.readouterr()
    code = cli.main(argv)
    loud = capfd.readouterr()
    assert code == 0, loud.err
    s = json.loads(loud.out)
    assert "verbose" not in s["options"]
    assert all(line.startswith(("[", "mipagg: warning")) for line in loud.err.splitlines())
    code = cli.main(argv + ["--quiet"])
    quiet = capfd.readouterr()
    assert code == 0
    assert not any(line.startswith("[") for line in quiet.err.splitlines())
    assert json.loads(quiet.out)["sse"] == pytest.approx(s["sse"])
