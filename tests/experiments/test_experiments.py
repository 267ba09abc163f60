"""Experiments: grid expansion, resumable runner (serial, processes, Dask),
results store, reports and plots."""

import time

import numpy as np
import pytest

from mipagg.errors import ParameterError
from mipagg.experiments import (
    GeneratorSet,
    Grid,
    GridError,
    InstanceList,
    MethodEntry,
    ResultStore,
    StopGrid,
    load_grid,
    run_grid,
)
from mipagg.experiments.report import gap_tables, il_stats_table, optimality_tables, render
from mipagg.experiments.store import decode_labels, encode_labels
from mipagg.instance import from_array
from mipagg.methods import METHODS


def _boom(X, k):
    raise RuntimeError("deliberate failure")


def _sleepy(X, k):
    time.sleep(30)


def _second_method() -> str:
    for name in ("vmdav", "mdav-mhm", "cbfs", "md"):
        if name in METHODS:
            return name
    pytest.skip("only mdav is registered")


def _tiny_instances():
    rng = np.random.default_rng(7)
    return InstanceList((from_array(rng.normal(size=(12, 3)), name="tiny12"),
                         from_array(rng.normal(size=(15, 2)), name="tiny15")), name="tiny")


@pytest.fixture
def tiny_grid():
    return Grid([_tiny_instances()], [MethodEntry("mdav"), MethodEntry(_second_method())],
                k=(2, 3), name="tiny")


def _results(store):
    return {r["key"]: (r["status"], r["sse"], r["labels"].tolist()) for r in store.records()}


def test_grid_expansion_and_keys(tiny_grid):
    runs = tiny_grid.runs()
    assert len(runs) == 2 * 2 * 2  # instances × methods × k (deterministic: one seed)
    assert len({r.key for r in runs}) == len(runs)
    assert [r.key for r in tiny_grid.runs()] == [r.key for r in runs]  # stable
    other = Grid([_tiny_instances()], [MethodEntry("mdav")], k=(2,), seeds=(0, 1, 2))
    assert len(other.runs()) == 2  # seeds do not multiply a deterministic method
    assert other.runs()[0].key == runs[0].key  # the key ignores the grid's name


def test_serial_processes_and_dask_agree(tiny_grid):
    distributed = pytest.importorskip("distributed")
    serial, procs, dask = ResultStore(":memory:"), ResultStore(":memory:"), ResultStore(":memory:")
    out = run_grid(tiny_grid, serial, jobs=1, progress=False)
    assert (out.total, out.ok, out.skipped) == (8, 8, 0)
    run_grid(tiny_grid, procs, jobs=2, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        run_grid(tiny_grid, dask, scheduler=client, progress=False)
    expected = _results(serial)
    assert len(expected) == 8 and all(v[0] == "ok" for v in expected.values())
    assert _results(procs) == expected
    assert _results(dask) == expected
    # the stored SSE is the SSE of the stored labels
    rec = serial.records()[0]
    inst = {i.name: i for i in _tiny_instances().instances}[rec["instance"]]
    from mipagg.partition import Partition

    assert Partition(rec["labels"], inst.X).sse() == pytest.approx(rec["sse"])


@pytest.mark.parametrize("jobs", [1, 2])
def test_interrupted_grid_resumes_only_missing_runs(tiny_grid, tmp_path, jobs):
    db = tmp_path / "r.sqlite"
    stored = []

    def stop_after_three(rec, outcome):
        stored.append(rec["key"])
        if len(stored) == 3:
            raise StopGrid

    first = run_grid(tiny_grid, db, jobs=jobs, progress=False, on_result=stop_after_three)
    assert first.interrupted and len(first.executed) == 3
    with ResultStore(db) as store:
        assert store.count() == 3
    second = run_grid(tiny_grid, db, jobs=jobs, progress=False)
    all_keys = {r.key for r in tiny_grid.runs()}
    assert second.skipped == 3 and not second.interrupted
    assert sorted(second.executed) == sorted(all_keys - set(first.executed))
    third = run_grid(tiny_grid, db, jobs=jobs, progress=False)
    assert third.executed == [] and third.skipped == 8


def test_keyboard_interrupt_keeps_stored_runs(tiny_grid, tmp_path):
    def interrupt(rec, outcome):
        raise KeyboardInterrupt

    out = run_grid(tiny_grid, tmp_path / "r.sqlite", jobs=1, progress=False, on_result=interrupt)
    assert out.interrupted and len(out.executed) == 1
    assert run_grid(tiny_grid, tmp_path / "r.sqlite", jobs=1, progress=False).skipped == 1


def test_failed_runs_are_stored_and_the_grid_goes_on():
    grid = Grid([_tiny_instances()],
                [MethodEntry("mdav"), MethodEntry("boom", label="boom", target=f"{__name__}:_boom")],
                k=(2, 13), name="failing")
    store = ResultStore(":memory:")
    out = run_grid(grid, store, jobs=1, progress=False)
    recs = {(r["instance"], r["label"], r["k"]): r for r in store.records()}
    assert out.total == 8 and out.ok == 3 and out.failed == 5
    assert recs[("tiny15", "mdav", 13)]["status"] == "ok"
    bad = recs[("tiny12", "mdav", 13)]  # k > n
    assert bad["status"] == "failed" and bad["error"].startswith("DataError")
    assert recs[("tiny12", "boom", 2)]["error"] == "RuntimeError: deliberate failure"
    assert "deliberate failure" in recs[("tiny12", "boom", 2)]["summary"]["traceback"]
    # finished (failed) runs are not redone unless asked
    assert run_grid(grid, store, jobs=1, progress=False).executed == []
    assert len(run_grid(grid, store, jobs=1, progress=False, retry=("failed",)).executed) == 5


def test_hard_time_limit_kills_the_run():
    grid = Grid([_tiny_instances()], [MethodEntry("slow", label="slow",
                                                  target=f"{__name__}:_sleepy")],
                k=(2,), hard_time_limit=0.5, name="slow")
    store = ResultStore(":memory:")
    t0 = time.perf_counter()
    out = run_grid(grid, store, jobs=1, progress=False)
    assert time.perf_counter() - t0 < 10
    assert out.timeout == 2
    assert all(r["status"] == "timeout" and "killed after 0.5 s" in r["error"]
               for r in store.records())


def test_hard_limit_child_gives_the_same_result(tiny_grid):
    plain, isolated = ResultStore(":memory:"), ResultStore(":memory:")
    run_grid(tiny_grid, plain, jobs=1, progress=False)
    tiny_grid.hard_time_limit = 60
    run_grid(tiny_grid, isolated, jobs=1, progress=False)
    assert _results(isolated) == _results(plain)


def test_labels_are_stored_compactly():
    labels = np.repeat(np.arange(400), 3)
    blob = encode_labels(labels)
    assert len(blob) < labels.size  # less than one byte a label
    assert decode_labels(blob).tolist() == labels.tolist()


# ---------------------------------------------------------------- TOML

GOOD = """
name = "t"
k = [2, 3]
repeats = 2
[[instances]]
generator = "normal_small"
seeds = [0, 1]
[[methods]]
name = "mdav"
[[methods]]
name = "vmdav"
sweep = { gamma = [0.2, 1.0] }
"""


def _write(tmp_path, text):
    path = tmp_path / "grid.toml"
    path.write_text(text)
    return path


def test_toml_grid(tmp_path):
    if "vmdav" not in METHODS:
        pytest.skip("vmdav not registered")
    grid = load_grid(_write(tmp_path, GOOD))
    assert grid.name == "t" and grid.k == (2, 3) and grid.seeds == (0, 1)
    assert [m.name for m in grid.methods] == ["mdav", "vmdav(gamma=0.2)", "vmdav(gamma=1.0)"]
    assert len(grid.runs()) == 2 * 3 * 2


@pytest.mark.parametrize("text, message", [
    ("k = [2\n", "not valid TOML"),
    ("k = [2]\n[[methods]]\nname='mdav'\n", "missing required key 'instances'"),
    ("k = 'two'\n[[instances]]\ngenerator='simu'\n[[methods]]\nname='mdav'\n",
     "k must be an integer or a list of integers"),
    ("k = [2]\nspeed = 1\n[[instances]]\ngenerator='simu'\n[[methods]]\nname='mdav'\n",
     "unknown key(s) ['speed']"),
    ("k = [2]\n[[instances]]\ngenerator='simx'\n[[methods]]\nname='mdav'\n",
     "unknown generator 'simx'"),
    ("k = [2]\n[[instances]]\ncsv='a.csv'\ngenerator='simu'\n[[methods]]\nname='mdav'\n",
     "instances[0]: give exactly one of 'csv', 'subsets' or 'generator'"),
    ("k = [2]\n[[instances]]\ngenerator='simc'\nn=5\n[[methods]]\nname='mdav'\n",
     "generator 'simc' does not take ['n']"),
    ("k = [2]\n[[instances]]\ngenerator='simu'\n[[methods]]\nname='mdav'\nsweep={gamma=0.2}\n",
     "methods[0]: sweep values must be non-empty lists"),
])
def test_toml_errors_are_clear(tmp_path, text, message):
    with pytest.raises(GridError) as err:
        load_grid(_write(tmp_path, text))
    assert message in str(err.value) and "grid.toml" in str(err.value)


def test_unknown_method_is_named(tmp_path):
    grid = load_grid(_write(tmp_path, "k=[2]\n[[instances]]\ngenerator='normal_small'\n"
                                      "[[methods]]\nname='nosuch'\n"))
    with pytest.raises(ParameterError, match=r"\['nosuch'\] are not registered; available: mdav"):
        grid.runs()
    grid.missing = "skip"
    assert grid.runs() == []


# ---------------------------------------------------------------- reports

def _record(store, instance, label, k, il, seed=None, method=None, dataset="D", **summary):
    key = f"{instance}-{label}-{k}-{seed}"
    store.add({"key": key, "dataset": dataset, "instance": instance, "fingerprint": "f",
               "n": 30, "p": 3, "method": method or label, "label": label, "k": k,
               "seed": seed, "status": "ok", "sse": summary.pop("sse", il), "il": il,
               "seconds": summary.pop("seconds", 1.0), "gap": summary.get("gap"),
               "lower_bound": summary.get("lower_bound"), "summary": summary})


def test_il_stats_report_text():
    store = ResultStore(":memory:")
    _record(store, "census", "MDAV", 3, 5.6922)
    for seed, il in enumerate([5.0, 5.5, 6.5]):
        _record(store, "census", "TSP", 3, il, seed=seed)
    _record(store, "census", "MDAV", 4, 7.4947)
    _record(store, "failed-one", "MDAV", 4, 1.0)
    store.con.execute("UPDATE runs SET status='failed' WHERE instance='failed-one'")
    table = il_stats_table(store.to_dataframe(), dataset="D")
    assert table.to_markdown() == (
        "**Information loss (%) on D: average, σ, min and max over repeats**\n\n"
        "| Method | k = 3 average | k = 3 σ | k = 3 min | k = 3 max | k = 4 average | k = 4 σ "
        "| k = 4 min | k = 4 max |\n"
        "|:---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        "| MDAV | 5.6922 | NA | NA | NA | 7.4947 | NA | NA | NA |\n"
        "| TSP | 5.6667 | 0.7638 | 5.0000 | 6.5000 | – | – | – | – |\n")
    latex = table.to_latex()
    assert "\\multicolumn{4}{c}{k = 3} & \\multicolumn{4}{c}{k = 4}" in latex
    assert "TSP & 5.6667 & 0.7638 & 5.0000 & 6.5000 & -- & -- & -- & -- \\\\" in latex
    assert table.to_csv().splitlines()[2] == "TSP,5.6667,0.7638,5.0000,6.5000,–,–,–,–"


def test_il_by_k_report_text():
    store = ResultStore(":memory:")
    _record(store, "a", "MDAV", 3, 10.0, dataset="SimU", path_length=None)
    _record(store, "b", "MDAV", 3, 12.0, dataset="SimU")
    _record(store, "c", "C-MHM", 3, 4.0, dataset="Census", path_length=100.0)
    _record(store, "c", "C-MHM", 5, 6.0, dataset="Census", path_length=100.0)
    text = render(store.to_dataframe(), "il-by-k", "md")
    assert text == (
        "**Information loss (%) by k**\n\n"
        "| Dataset | Method | Path length | k = 3 | k = 5 |\n"
        "|:---|:---|---:|---:|---:|\n"
        "| SimU | MDAV | N/A | 11.0000 ± 1.4142 | – |\n"
        "| Census | C-MHM | 100.00 | 4.0000 | 6.0000 |\n")


def test_gap_report_text():
    store = ResultStore(":memory:")
    for i, (crit, exact) in enumerate([("random", True), ("random", False), ("norm", False)]):
        inst = from_array(np.arange(60.0).reshape(30, 2) + i, name=f"census-n30-{crit}-{i}")
        inst.provenance.update(parent="census", criterion=crit, size=30)
        store.add_instance("census", inst, "f")
        _record(store, inst.name, "cg", 3, 1.0, dataset="census", lower_bound=90.0,
                sse=90.0 if exact else 95.0, gap=0.0 if exact else 100 * 5 / 95,
                sse_mdav=100.0, sse_vmdav=120.0, sse_msth=90.0 if exact else 95.0,
                sse_srh=None, exact=exact, seconds=2.0 + i)
    [table] = gap_tables(store.to_dataframe())
    assert table.rows == [
        ["30", "3", "random", "10.00", "25.00", "2.63", "–", "2.50", "1", "2"],
        ["30", "3", "norm", "10.00", "25.00", "5.26", "–", "4.00", "0", "1"]]
    assert table.columns == ["n", "k", "criterion", "MDAV", "V-MDAV", "MSTH", "SRH",
                             "time (s)", "Ex", "inst."]


def test_optimality_report():
    store = ResultStore(":memory:")
    for i, (h, opt) in enumerate([(10.0, 10.0), (12.0, 10.0), (15.0, 10.0)]):
        _record(store, f"d{i}", "opt", 2, 0.0, sse=opt)
        _record(store, f"d{i}", "MDAV", 2, 0.0, sse=h)
    counts, maxima, averages = optimality_tables(store.to_dataframe())
    assert counts.rows == [["2", "1", "3"]]
    assert maxima.rows == [["2", "1.50"]]
    assert averages.rows == [["2", "1.23 ± 0.25"]]


# ---------------------------------------------------------------- command line

def test_command_line(tmp_path, capsys):
    from mipagg.cli import main

    grid = _write(tmp_path, "name='cli'\nk=[2,3]\n[[instances]]\ngenerator='normal_small'\n"
                            "seeds=[0,1]\n[[methods]]\nname='mdav'\n")
    db = tmp_path / "cli.sqlite"
    assert main(["experiment", str(grid), "--db", str(db), "--jobs", "1", "--quiet"]) == 0
    assert "4 run now (4 ok" in capsys.readouterr().out
    assert main(["experiment", str(grid), "--db", str(db), "--jobs", "1", "--quiet"]) == 0
    assert "4 already stored, 0 run now" in capsys.readouterr().out
    assert main(["report", str(db), "--table", "il-by-k", "--format", "latex"]) == 0
    assert "normal\\_small & mdav &" in capsys.readouterr().out
    assert main(["report", str(db), "--table", "gaps"]) == 2
    assert "no successful 'cg' runs" in capsys.readouterr().err
    png = tmp_path / "box.png"
    assert main(["plot", str(db), "--kind", "box", "--out", str(png)]) == 0
    assert png.stat().st_size > 5000
    assert main(["report", str(tmp_path / "none.sqlite"), "--table", "il-by-k"]) == 2


def test_generator_set_names_are_unique():
    grid = Grid([GeneratorSet("normal_small", (0, 1), {"n": 11, "p": 2})], [MethodEntry("mdav")],
                k=(3,))
    names = [inst.name for _, inst in grid.load_instances()]
    assert len(set(names)) == 2


def test_example_grid_file_parses():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "grids" / "example.toml"
    grid = load_grid(path)
    assert grid.name == "example" and grid.k == (3, 4) and grid.seeds == (0, 1, 2)
    assert grid.hard_limit == 1.5 * 120 + 10
    assert [m.name for m in grid.methods] == ["MDAV", "MDAV-MHM", "TSP-MHM(tour=nearest)",
                                              "TSP-MHM(tour=farthest)"]


def test_bad_options_and_targets_are_refused_before_running():
    with pytest.raises(GridError, match=r"method 'mdav\(speed=2\)' does not take option\(s\) "
                                        r"\['speed'\]; it takes \['threads'\]"):
        Grid([_tiny_instances()], [MethodEntry("mdav", {"speed": 2})], k=(2,)).runs()
    with pytest.raises(GridError, match=r"method 'cbfs\(speed=2\)' does not take option\(s\) "
                                        r"\['speed'\]; it takes none"):
        Grid([_tiny_instances()], [MethodEntry("cbfs", {"speed": 2})], k=(2,)).runs()
    with pytest.raises(GridError, match="cannot load target 'no.such:fn'"):
        Grid([_tiny_instances()], [MethodEntry("x", target="no.such:fn")], k=(2,)).runs()


def test_correlation_report_and_figures(tmp_path):
    from mipagg.experiments.plots import il_boxplot, path_sse_plot, tradeoff_plot
    from mipagg.experiments.report import correlation_table

    store = ResultStore(":memory:")
    for seed, (length, sse) in enumerate([(10.0, 1.0), (11.0, 2.0), (12.0, 2.5), (13.0, 4.5)]):
        for k in (3, 4):
            _record(store, "census", "NN", k, sse, seed=seed, sse=sse * k, path_length=length)
    _record(store, "census", "MDAV", 3, 3.0)
    df = store.to_dataframe()
    table = correlation_table(df, methods=["NN"])
    r = np.corrcoef([10, 11, 12, 13], [1, 2, 2.5, 4.5])[0, 1]
    assert table.rows == [["D", f"{r:.2f}", f"{r:.2f}"]]
    for fn in (il_boxplot, tradeoff_plot, path_sse_plot):
        out = fn(df, tmp_path / f"{fn.__name__}.png")
        assert out.stat().st_size > 5000
    with pytest.raises(ParameterError, match="no run reports 'tour_length'"):
        correlation_table(df, field="tour_length")


def test_dask_local_cluster_with_hard_limit(tiny_grid):
    pytest.importorskip("distributed")
    plain, dask = ResultStore(":memory:"), ResultStore(":memory:")
    run_grid(tiny_grid, plain, jobs=1, progress=False)
    tiny_grid.hard_time_limit = 60  # runs in a child of each worker process
    out = run_grid(tiny_grid, dask, scheduler="local", jobs=1, progress=False)
    assert out.ok == 8
    assert _results(dask) == _results(plain)


def _slowish(X, k):
    from mipagg.partition import Partition

    time.sleep(0.15)
    return Partition(np.zeros(len(X), dtype=int), X)


def test_killed_command_resumes_only_missing_runs(tmp_path):
    """SIGKILL a running `mipagg experiment`, rerun it: only the missing runs are done."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    grid = _write(tmp_path, "name='kill'\nk=[2]\n[[instances]]\ngenerator='normal_small'\n"
                            "count=20\n[[methods]]\nname='slowish'\n"
                            f"target='{__name__}:_slowish'\n")
    db = tmp_path / "kill.sqlite"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parent), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "mipagg.cli", "experiment", str(grid), "--db", str(db),
           "--jobs", "1", "--quiet"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stored = 0
    deadline = time.monotonic() + 60
    while stored < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
        if db.exists():
            with ResultStore(db) as store:
                stored = store.count()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with ResultStore(db) as store:
        first = store.done_keys()
    if not 0 < len(first) < 20:
        pytest.skip(f"could not kill the grid midway ({len(first)} of 20 runs stored)")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert f"{len(first)} already stored, {20 - len(first)} run now" in out.stdout
    with ResultStore(db) as store:
        assert store.count() == store.count("ok") == 20
        assert first <= store.done_keys()


def test_improve_options_enter_key_label_and_runs(tmp_path):
    """Post-processing options (RCS probability / max_events, seed 003 Table
    6.1) are part of the run key and the default label, reach RCS, and are
    stored in the run's summary."""
    inst = InstanceList((from_array(np.random.default_rng(11).normal(size=(40, 3)),
                                    name="rand40"),))
    always = MethodEntry("mdav", improve="rcs",
                         improve_options={"probability": 1.0, "max_events": 30})
    never = MethodEntry("mdav", improve="rcs",
                        improve_options={"probability": 0.0, "max_events": 30})
    plain = MethodEntry("mdav", improve="rcs")
    assert always.name == "mdav+rcs(max_events=30,probability=1.0)"
    grid = Grid([inst], [always, never, plain, MethodEntry("mdav", improve="rcs",
                                                           improve_options={})],
                k=(3,), seeds=(0, 1), name="iopts")
    runs = grid.runs()
    keys = [r.key for r in runs]
    assert len(set(keys[:6])) == 6  # three entries × two seeds: all different
    assert keys[4:6] == keys[6:8]  # empty improve_options = none: same key
    db = tmp_path / "i.sqlite"
    out = run_grid(grid, db, jobs=1, progress=False)
    assert out.ok == 8
    with ResultStore(db) as store:
        recs = {r["key"]: r for r in store.records()}
    assert len(recs) == 6
    a, n = recs[keys[0]], recs[keys[2]]
    assert a["summary"]["improve_options"] == {"probability": 1.0, "max_events": 30}
    assert n["summary"]["improve_options"] == {"probability": 0.0, "max_events": 30}
    # 30 forced shuffling events change the walk: the two partitions differ
    assert a["labels"].tolist() != n["labels"].tolist()
    # probability 0 is deterministic: both seeds agree
    assert recs[keys[2]]["labels"].tolist() == recs[keys[3]]["labels"].tolist()


def test_improve_options_in_toml_and_errors(tmp_path):
    head = "k=[2]\n[[instances]]\ngenerator='normal_small'\n[[methods]]\nname='mdav'\n"
    grid = load_grid(_write(tmp_path, head + "improve='rcs'\nlabel='RCS'\n"
                                             "sweep={max_events=[5, 10]}\n"
                            "improve_options={probability=0.01}\n"))
    assert [m.improve_options for m in grid.methods] == [{"probability": 0.01}] * 2
    assert [m.name for m in grid.methods] == ["RCS(max_events=5)", "RCS(max_events=10)"]
    with pytest.raises(GridError, match=r"grid.toml: methods\[0\]: improvement 'rcs' does "
                                        r"not take option\(s\) \['chance'\]"):
        load_grid(_write(tmp_path, head + "improve='rcs'\nimprove_options={chance=0.1}\n"))
    with pytest.raises(GridError, match="without improve"):
        load_grid(_write(tmp_path, head + "improve_options={probability=0.1}\n"))
    with pytest.raises(GridError, match="'improve_options' must be a table"):
        load_grid(_write(tmp_path, head + "improve='rcs'\nimprove_options=3\n"))
    bad = Grid([_tiny_instances()], [MethodEntry("mdav", improve="local",
                                                 improve_options={"probability": 0.1})], k=(2,))
    with pytest.raises(GridError, match="does not take option"):
        bad.runs()


def test_script_options_reach_build(tmp_path):
    """A script's own flags (``script_main(options=...)``) reach ``build``;
    the bp_optimality plan honours --full and --max-size."""
    import importlib.util
    from pathlib import Path

    from mipagg.experiments.scripting import script_main

    seen = {}

    def build(data, quick, full=False, max_size=None):
        seen.update(full=full, max_size=max_size)
        return []
    opts = {"--full": dict(action="store_true"), "--max-size": dict(type=int, default=None)}
    assert script_main("t", "", build, lambda df, out, stem: [], argv=["--full", "--max-size",
                       "100", "--out", str(tmp_path)], needs_data=False, options=opts) == 0
    assert seen == {"full": True, "max_size": 100}

    path = Path(__file__).resolve().parents[2] / "scripts" / "bp_optimality.py"
    spec = importlib.util.spec_from_file_location("bp_optimality", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    grids = mod.build(tmp_path, False, full=True, max_size=100)
    assert len(grids) == 1 and grids[0].k == (3, 4, 5)
    assert {s.sizes for s in grids[0].instances} == {(30, 50, 100)}
    assert all(s.count == 5 for s in grids[0].instances)
    assert [g.k for g in mod.build(tmp_path, False, max_size=50)] == [(3, 4, 5)]
