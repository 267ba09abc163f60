"""Nothing lost, nothing leaked (issue 20): inputs, outputs, the command line.

Each case drives ``python -m mipagg.cli`` (or a script) in a subprocess, as a
user does, and checks the exit status, a one-line message without a
traceback, and what is left on disk.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = "a,b\n1,2\n3,4\n5,7\n8,1\n"


def run_cli(*args, cwd, timeout=600, env=None, **kw):
    # the timeouts only stop a hung child: under pytest-xdist a child may compile
    # the kernels its worker has not met yet (minutes on a loaded machine)
    return subprocess.run([sys.executable, "-m", "mipagg.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env, **kw)


class InProcess:
    """``mipagg ARGS`` through :func:`mipagg.cli.main` in this process (for the
    long matrices of error cases; each kind also has a subprocess case)."""

    def __init__(self, code, stderr):
        self.returncode, self.stderr, self.stdout = code, stderr, ""


def main_cli(*args, cwd, capsys, monkeypatch):
    from mipagg import cli

    monkeypatch.chdir(cwd)
    capsys.readouterr()
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    res = InProcess(code, out.err)
    res.stdout = out.out
    return res


def assert_clean_error(res, match: str, code: int = 2):
    assert res.returncode == code, (res.returncode, res.stderr)
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if not line.startswith("mipagg: warning")]
    assert len(lines) == 1 and lines[0].startswith("mipagg: error:"), res.stderr
    assert match in lines[0], res.stderr


@pytest.fixture
def data(tmp_path) -> Path:
    path = tmp_path / "t.csv"
    path.write_text(DATA)
    return path


# ------------------------------------------------- the grid runner forks safely

def test_grid_child_after_a_solver_run_in_the_parent(tmp_path):
    """HiGHS 1.16 keeps a global thread pool after the parent's warm-up solve;
    a child forked from it used to spin until killed (status timeout, here
    after 1.5 × 60 + 10 s; a 20-s limit timed out on a machine with load 6)."""
    lines = (ROOT / "instances" / "simu_n200_seed1.csv").read_text().splitlines()
    (tmp_path / "d.csv").write_text("\n".join(lines[:41]) + "\n")
    (tmp_path / "g.toml").write_text(
        'name = "fork"\nk = [3]\ntime_limit = 60\n[[instances]]\ncsv = "d.csv"\n'
        '[[methods]]\nname = "cg"\noptions = { threads = 1 }\n'
        '[[methods]]\nname = "bp"\noptions = { threads = 1, node_limit = 3 }\n')
    res = run_cli("experiment", "g.toml", "--jobs", 1, "--db", "r.sqlite", "--quiet",
                  cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "(2 ok, 0 failed, 0 timeout)" in res.stdout, res.stdout + res.stderr


# ------------------------------------------------- outputs through device paths

def test_dev_stdout_appends_to_the_redirected_file(tmp_path, data):
    """`--output /dev/stdout --json >> log.txt` used to replace log.txt by a rename."""
    log = tmp_path / "log.txt"
    log.write_text("earlier line\n")
    with open(log, "a") as fh:
        res = subprocess.run([sys.executable, "-m", "mipagg.cli", "run", "t.csv", "-k", "2",
                              "--output", "/dev/stdout", "--json", "--quiet"], cwd=tmp_path,
                             stdout=fh, stderr=subprocess.PIPE, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    lines = log.read_text().splitlines()
    assert lines[0] == "earlier line" and lines[1] == "a,b" and len(lines) == 1 + 5 + 1
    assert json.loads(lines[-1])["n"] == 4
    assert {p.name for p in tmp_path.iterdir()} == {"t.csv", "log.txt"}


def test_labels_through_dev_fd(tmp_path, data):
    log = tmp_path / "log.txt"
    log.write_text("keep\n")
    with open(log, "a") as fh:
        res = subprocess.run([sys.executable, "-m", "mipagg.cli", "run", "t.csv", "-k", "2",
                              "--labels", "/dev/fd/1", "--quiet"], cwd=tmp_path, stdout=fh,
                             stderr=subprocess.PIPE, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert log.read_text().splitlines()[:2] == ["keep", "group"]


# ------------------------------------------------- both outputs, or neither

def test_failing_output_keeps_the_old_pair(tmp_path, data):
    (tmp_path / "a.csv").write_text("group\nold\n")
    res = run_cli("run", "t.csv", "-k", 2, "--labels", "a.csv", "--output", "/dev/full",
                  cwd=tmp_path)
    assert_clean_error(res, "/dev/full")
    assert (tmp_path / "a.csv").read_text() == "group\nold\n"
    assert {p.name for p in tmp_path.iterdir()} == {"t.csv", "a.csv"}


def test_both_outputs_replaced_together(tmp_path, data):
    (tmp_path / "a.csv").write_text("group\nold\n")
    (tmp_path / "m.csv").write_text("old\n")
    res = run_cli("run", "t.csv", "-k", 2, "--labels", "a.csv", "--output", "m.csv",
                  cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "a.csv").read_text().startswith("group\n0\n")
    assert (tmp_path / "m.csv").read_text().startswith("a,b\n")


def test_transaction_rolls_back_when_the_second_rename_fails(tmp_path, monkeypatch):
    """A rename that fails after the first one succeeded puts the first back."""
    import os

    from mipagg.errors import MipaggError
    from mipagg.outputs import atomic_write, output_transaction

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("old a\n")
    b.write_text("old b\n")
    real = os.replace
    calls = []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2 and str(dst) == str(b):
            raise OSError(5, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(MipaggError, match="no output file was replaced"):
        with output_transaction():
            with atomic_write(a) as fh:
                fh.write("new a\n")
            with atomic_write(b) as fh:
                fh.write("new b\n")
    assert a.read_text() == "old a\n" and b.read_text() == "old b\n"
    assert {p.name for p in tmp_path.iterdir()} == {"a.csv", "b.csv"}


# ------------------------------------------------- inputs a user may have

def test_csv_without_header_is_refused(tmp_path):
    (tmp_path / "n.csv").write_text("1,2\n3,4\n5,7\n8,1\n")
    res = run_cli("run", "n.csv", "-k", 2, "--output", "out.csv", cwd=tmp_path)
    assert_clean_error(res, "is all numbers, so it is a record, not a header")
    assert not (tmp_path / "out.csv").exists()
    res = run_cli("verify", "n.csv", "n.csv", "-k", 2, cwd=tmp_path)
    assert_clean_error(res, "--no-header")


def test_no_header_option_masks_every_record(tmp_path):
    (tmp_path / "n.csv").write_text("1,2\n3,4\n5,7\n8,1\n")
    res = run_cli("run", "n.csv", "-k", 2, "--no-header", "--output", "out.csv", "--labels",
                  "l.csv", "--columns", "x1, x2", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = (tmp_path / "out.csv").read_text().splitlines()
    assert len(rows) == 4 and "1,2" not in rows and "1.0,2.0" not in rows
    res = run_cli("verify", "n.csv", "l.csv", "-k", 2, "--no-header", cwd=tmp_path)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("kind, match", [
    ("latin1", "is not UTF-8 text"), ("binary", "is a binary file"),
    ("directory", "is a directory"), ("fifo", "is not a regular file"),
    ("badgzip", "damaged gzip file")])
@pytest.mark.parametrize("command", ["run", "verify-data", "verify-labels"])
def test_unreadable_inputs_exit_2(tmp_path, data, kind, match, command, capsys, monkeypatch):
    import gzip
    import os

    bad = tmp_path / "bad.csv"
    if kind == "latin1":
        bad.write_bytes("a,b\n1,2\n3,4\n5,7\n8,1\n# café\n".encode("latin-1"))
    elif kind == "binary":
        bad.write_bytes(b"\x00\x01\x02PK\x03\x04" * 20)
    elif kind == "directory":
        bad.mkdir()
    elif kind == "fifo":
        os.mkfifo(bad)
    else:
        bad.write_bytes(gzip.compress(DATA.encode())[:-8] + b"junk")
    (tmp_path / "l.csv").write_text("group\n0\n0\n1\n1\n")
    args = {"run": ("run", "bad.csv", "-k", 2),
            "verify-data": ("verify", "bad.csv", "l.csv", "-k", 2),
            "verify-labels": ("verify", "t.csv", "bad.csv", "-k", 2)}[command]
    assert_clean_error(main_cli(*args, cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch),
                       match)


def test_latin1_input_through_the_command(tmp_path):
    (tmp_path / "l1.csv").write_bytes("a,b\n1,2\n3,4\n5,7\n8,1\n# café\n".encode("latin-1"))
    for args in (("run", "l1.csv", "-k", 2), ("verify", "l1.csv", "l1.csv", "-k", 2)):
        assert_clean_error(run_cli(*args, cwd=tmp_path), "is not UTF-8 text (byte 0xe9")


@pytest.mark.parametrize("encode", ["gzip", "utf-16", "cr", "crlf"])
def test_readable_encodings(tmp_path, encode):
    import gzip

    text = DATA.replace("\n", {"cr": "\r", "crlf": "\r\n"}.get(encode, "\n"))
    raw = {"gzip": gzip.compress(text.encode()), "utf-16": text.encode("utf-16")}.get(
        encode, text.encode())
    (tmp_path / "d.csv").write_bytes(raw)
    res = run_cli("run", "d.csv", "-k", 2, "--labels", "l.csv", "--output", "m.csv",
                  "--quiet", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    res = run_cli("verify", "d.csv", "l.csv", "-k", 2, "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["n"] == 4
    released = (tmp_path / "m.csv").read_bytes()
    ending = {"cr": b"\r", "crlf": b"\r\n"}.get(encode, b"\n")
    assert released.count(ending) == 5 and released.startswith(b"a,b" + ending)
    if ending == b"\n":
        assert b"\r" not in released


# ------------------------------------------------- options a user may mistype

def test_columns_are_trimmed_and_not_repeated(tmp_path, data):
    res = run_cli("run", "t.csv", "-k", 2, "--columns", "a,a", cwd=tmp_path)
    assert_clean_error(res, "--columns names 'a' more than once")
    res = run_cli("verify", "t.csv", "t.csv", "-k", 2, "--columns", "a,a", cwd=tmp_path)
    assert_clean_error(res, "--columns names 'a' more than once")
    res = run_cli("run", "t.csv", "-k", 2, "--columns", "a, b", "--json", "--quiet",
                  cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["p"] == 2


def test_improve_time_is_named_as_a_flag(tmp_path, data):
    res = run_cli("run", "t.csv", "-k", 2, "--improve-time", 5, cwd=tmp_path)
    assert_clean_error(res, "--improve-time")
    assert "improve_options" not in res.stderr


def test_verify_k_below_2_and_json_on_a_count_mismatch(tmp_path, data):
    (tmp_path / "l.csv").write_text("group\n0\n0\n0\n0\n")
    res = run_cli("verify", "t.csv", "l.csv", "-k", 1, cwd=tmp_path)
    assert_clean_error(res, "k must be at least 2")
    (tmp_path / "short.csv").write_text("group\n0\n0\n")
    res = run_cli("verify", "t.csv", "short.csv", "-k", 2, "--json", cwd=tmp_path)
    assert res.returncode == 1
    out = json.loads(res.stdout)
    assert out["feasible"] is False and "2 labels" in out["error"]


def test_closed_pipe_exits_quietly(tmp_path):
    rows = "a,b\n" + "".join(f"{i},{(i * 7) % 11}\n" for i in range(3000))
    (tmp_path / "big.csv").write_text(rows)
    res = subprocess.run(f"{sys.executable} -m mipagg.cli run big.csv -k 3 --quiet "
                         "--output /dev/stdout | head -n 2", shell=True, cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert res.stdout.splitlines()[0] == "a,b"
    assert res.stderr == "", res.stderr


# ------------------------------------------------- a read-only installation

def test_read_only_install_without_home_runs(tmp_path):
    """numba refused to decorate cached kernels when neither the package's
    __pycache__ nor ~/.cache could be written: even --version failed."""
    import os
    import shutil
    import stat
    import tempfile

    if os.geteuid() == 0:  # root writes anywhere: run the command as nobody
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv to drop privileges")
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    else:
        prefix = []
    base = Path(tempfile.mkdtemp(prefix="mipagg-ro-"))
    try:
        site = base / "site"
        shutil.copytree(ROOT / "mipagg", site / "mipagg",
                        ignore=shutil.ignore_patterns("__pycache__"))
        (base / "t.csv").write_text(DATA)
        for path in [base, *base.rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(base / "nohome"),
               "PYTHONPATH": str(site)}
        # tsp-mhm with the nearest-neighbour tour: compiled kernels (the tour, MHM's
        # shortest path) that compile in seconds; the k-d tree of md and mdav takes
        # a minute, and every run of this install compiles its kernels again
        run = ["run", "t.csv", "-k", "2", "--method", "tsp-mhm", "--tour", "nn", "--json"]
        for args in (["--version"], run):
            res = subprocess.run([*prefix, sys.executable, "-m", "mipagg.cli", *args],
                                 cwd=base, env=env, capture_output=True, text=True, timeout=600)
            assert res.returncode == 0, res.stderr[-2000:]
        assert json.loads(res.stdout)["groups"] == 2
        assert not list(site.rglob("__pycache__"))
    finally:
        for path in [base, *base.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
        shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------- seeds and time limits

@pytest.mark.parametrize("args", [["--method", "tsp-mhm"], ["--method", "mdav-lk-mhm"],
                                  ["--method", "compress"], ["--improve", "rcs"]])
def test_negative_seed_names_the_flag(tmp_path, data, args, capsys, monkeypatch):
    res = (run_cli if args[0] == "--improve" else main_cli)(
        "run", "t.csv", "-k", 2, "--seed", -1, *args, cwd=tmp_path,
        **({} if args[0] == "--improve" else {"capsys": capsys, "monkeypatch": monkeypatch}))
    assert_clean_error(res, "--seed must be a non-negative integer, got -1")


@pytest.mark.parametrize("flag, value", [("--time-limit", "0"), ("--time-limit", "nan"),
                                         ("--improve-time", "-3")])
def test_bad_time_limits_name_the_flag(tmp_path, data, flag, value, capsys, monkeypatch):
    extra = ["--method", "cg"] if flag == "--time-limit" else ["--improve", "exact"]
    res = main_cli("run", "t.csv", "-k", 2, flag, value, *extra, cwd=tmp_path, capsys=capsys,
                   monkeypatch=monkeypatch)
    assert_clean_error(res, f"{flag} must be a positive number of seconds")


def test_api_validates_seed_and_time_limit():
    import numpy as np

    from mipagg import ParameterError, microaggregate

    X = np.arange(24.0).reshape(12, 2)
    for method in ("tsp-mhm", "mdav-lk-mhm", "compress"):
        with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
            microaggregate(X, 3, method, seed=-1)
    with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
        microaggregate(X, 3, "mdav", improve="rcs", seed=-1)
    with pytest.raises(ParameterError, match="time_limit must be a positive number"):
        microaggregate(X, 3, "cg", time_limit="5")
    with pytest.raises(ParameterError, match="improve_options time_limit"):
        microaggregate(X, 3, "mdav", improve="exact", improve_options={"time_limit": -1})


def test_api_phase_budgets_of_bp_take_zero_as_off():
    """bp documents 0 as "off" for its phase budgets; the API passes 0 on
    (and still refuses negative or zero time limits)."""
    import numpy as np

    from mipagg import ParameterError, microaggregate

    X = np.arange(24.0).reshape(12, 2)
    r = microaggregate(X, 3, "bp", dive_time=0, mip_time=0, neighbourhood_time=0,
                       close_gap_time=0, time_limit=30)
    assert r.details["status"] == "optimal" and r.details["dive_steps"] == 0
    with pytest.raises(ParameterError, match="dive_time must be a non-negative number"):
        microaggregate(X, 3, "bp", dive_time=-1)
    with pytest.raises(ParameterError, match="time_limit must be a positive number"):
        microaggregate(X, 3, "bp", time_limit=0)


def test_dataframe_column_names_in_messages():
    pd = pytest.importorskip("pandas")
    from mipagg import DataError, microaggregate

    df = pd.DataFrame({"income": [1.0, 2.0, float("nan"), 4.0], "age": [1.0, 5.0, 3.0, 2.0]})
    with pytest.raises(DataError, match="'income'"):
        microaggregate(df, 2)


# ------------------------------------------------- results files

@pytest.mark.parametrize("command", ["report", "plot", "experiment"])
@pytest.mark.parametrize("kind", ["csv", "sqlite"])
def test_not_a_results_database(tmp_path, data, command, kind, capsys, monkeypatch):
    import sqlite3

    db = tmp_path / "other.db"
    if kind == "csv":
        db.write_text(DATA)
    else:
        with sqlite3.connect(db) as con:
            con.execute("CREATE TABLE people (name TEXT)")
    before = db.read_bytes()
    (tmp_path / "g.toml").write_text('name = "g"\nk = [2]\n[[instances]]\ncsv = "t.csv"\n'
                                     '[[methods]]\nname = "mdav"\n')
    args = {"report": ("report", "other.db", "--table", "runs"),
            "plot": ("plot", "other.db", "--kind", "box", "--out", "f.png"),
            "experiment": ("experiment", "g.toml", "--db", "other.db", "--jobs", 1)}[command]
    res = (run_cli(*args, cwd=tmp_path) if (command, kind) == ("report", "csv") else
           main_cli(*args, cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch))
    assert_clean_error(res, "is not a results database" if kind == "csv"
                       else "not a results database (no runs table)")
    assert db.read_bytes() == before


# ------------------------------------------------- scripts of an installed copy

def _copy_numba_cache(src: Path, dst: Path, cache: Path) -> Path:
    """A copy of NUMBA_CACHE_DIR's entries for the package at ``src``, filed
    under the names numba gives the same sources at ``dst``."""
    import os
    import shutil

    from numba.core.caching import _CacheLocator

    given = Path(os.environ["NUMBA_CACHE_DIR"])
    for here in [src, *(d for d in src.rglob("*") if d.is_dir())]:
        there = dst / here.relative_to(src)
        found = given / _CacheLocator.get_suitable_cache_subpath(str(here / "x.py"))
        if found.is_dir():
            shutil.copytree(found, cache / _CacheLocator.get_suitable_cache_subpath(
                str(there / "x.py")))
    return cache


def test_script_results_never_go_into_the_installed_package(tmp_path):
    """``scripting.REPO`` of a non-editable install is ``site-packages``: the
    scripts used to write ``site-packages/docs/results``."""
    import os
    import shutil

    site, work, data_dir = tmp_path / "site", tmp_path / "work", tmp_path / "data"
    # the compiled kernels come along (numba's index files key on the source's
    # mtime, which copytree keeps): the script is tested, not a minute of JIT
    shutil.copytree(ROOT / "mipagg", site / "mipagg",
                    ignore=lambda d, names: [n for n in names if n.endswith((".pyc", ".pyo"))])
    for d in (work, data_dir):
        d.mkdir()
    (data_dir / "tiny.csv").write_text(DATA)
    (tmp_path / "user_script.py").write_text(
        "import sys\n"
        "from mipagg.experiments import CsvSet, Grid, MethodEntry\n"
        "from mipagg.experiments.report import Table\n"
        "from mipagg.experiments.scripting import script_main\n"
        "build = lambda data, quick: [Grid([CsvSet(str(data / 'tiny.csv'))],\n"
        "                                  [MethodEntry('mdav')], k=(2,), name='tiny')]\n"
        "report = lambda df, out, stem: [Table('t', ['n'], [[str(len(df))]])]\n"
        "sys.exit(script_main('tiny', 'a user script', build, report))\n")
    env = {key: v for key, v in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    if os.environ.get("NUMBA_CACHE_DIR"):  # a cache of its own (pytest-xdist worker)
        env["NUMBA_CACHE_DIR"] = str(_copy_numba_cache(ROOT / "mipagg", site / "mipagg",
                                                       tmp_path / "numba"))
    env["PYTHONPATH"] = str(site)
    res = subprocess.run([sys.executable, str(tmp_path / "user_script.py"), str(data_dir),
                          "--quick", "--jobs", "1", "--quiet"], cwd=work, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (work / "results" / "tiny-quick.md").is_file()
    assert (work / "results" / "tiny-quick.sqlite").is_file()
    assert not (site / "docs").exists()


def test_interrupt_between_the_two_writes_keeps_the_old_pair(tmp_path, data, monkeypatch,
                                                             capsys):
    """Ctrl-C or SIGTERM (both raise KeyboardInterrupt in the command) after the
    labels were written used to leave new labels beside the old release."""
    from mipagg import cli
    from mipagg.instance import Instance

    (tmp_path / "a.csv").write_text("group\nold\n")
    (tmp_path / "m.csv").write_text("old release\n")

    def interrupted(self, labels, path):
        raise KeyboardInterrupt

    monkeypatch.setattr(Instance, "write_masked_csv", interrupted)
    monkeypatch.chdir(tmp_path)
    code = cli.main(["run", "t.csv", "-k", "2", "--labels", "a.csv", "--output", "m.csv",
                     "--quiet"])
    assert code == 130
    assert (tmp_path / "a.csv").read_text() == "group\nold\n"
    assert (tmp_path / "m.csv").read_text() == "old release\n"
    assert {p.name for p in tmp_path.iterdir()} == {"t.csv", "a.csv", "m.csv"}


def test_method_options_are_named_as_flags(tmp_path, data, capsys, monkeypatch):
    res = main_cli("run", "t.csv", "-k", 2, "--method", "mdav", "--time-limit", 5,
                   "--max-iterations", 3, cwd=tmp_path, capsys=capsys, monkeypatch=monkeypatch)
    assert_clean_error(res, "method 'mdav' does not take --time-limit, --max-iterations")
    assert "time_limit" not in res.stderr
