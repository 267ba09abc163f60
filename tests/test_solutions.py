"""The best-known partitions in instances/solutions/ (made by scripts/casc.py):
every label file is k-feasible on its CASC file and its IL matches
docs/results/casc.csv and the JSON record of its cell to 1e-6.

The IL is recomputed here from the raw CSV and the labels alone (numpy, no
mipagg code), and with ``mipagg verify`` when the command exists.  Skipped when
../shared/data is absent or no label file is committed."""

import copy
import csv
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"
SOLUTIONS = ROOT / "instances" / "solutions"
RESULTS = ROOT / "docs" / "results"
NAME = re.compile(r"(census|tarragona)_k(\d+)\.csv")

LABEL_FILES = sorted(p for p in SOLUTIONS.glob("*.csv")) if SOLUTIONS.is_dir() else []

pytestmark = pytest.mark.data


def _il(data_path: Path, labels: np.ndarray, k: int) -> float:
    """IL (%) of a k-feasible labelling; asserts feasibility."""
    raw = np.loadtxt(data_path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    assert labels.shape == (raw.shape[0],), "one label per record"
    sd = raw.std(axis=0, ddof=1)
    Z = (raw[:, sd > 0] - raw[:, sd > 0].mean(axis=0)) / sd[sd > 0]
    sse = 0.0
    for g in np.unique(labels):
        members = Z[labels == g]
        assert len(members) >= k, f"group {g} has {len(members)} < {k} records"
        sse += float(((members - members.mean(axis=0)) ** 2).sum())
    return 100.0 * sse / float((Z ** 2).sum())


def _read_labels(path: Path) -> np.ndarray:
    lines = path.read_text().splitlines()
    assert lines[0] == "group", "header must be 'group' (labels only, never data)"
    assert all(re.fullmatch(r"\d+", x) for x in lines[1:]), "one integer label per line"
    return np.array([int(x) for x in lines[1:]], dtype=np.int64)


def _csv_row(data: str, k: int) -> dict:
    path = RESULTS / "casc.csv"
    assert path.is_file(), "docs/results/casc.csv is missing (python scripts/casc.py --table-only)"
    with open(path, newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["data"] == data and int(r["k"]) == k]
    assert len(rows) == 1
    return rows[0]


def test_solutions_directory_holds_labels_only():
    if not SOLUTIONS.is_dir():
        pytest.skip("no instances/solutions/")
    for path in SOLUTIONS.iterdir():
        assert path.name == "README.md" or NAME.fullmatch(path.name), path.name


@pytest.mark.parametrize("path", LABEL_FILES or [None], ids=lambda p: p.name if p else "none")
def test_label_file(path):
    if path is None:
        pytest.skip("no label file in instances/solutions/")
    m = NAME.fullmatch(path.name)
    assert m, f"unexpected file {path.name}"
    data, k = m.group(1), int(m.group(2))
    data_path = SHARED_DATA / f"{data}.csv"
    if not data_path.is_file():
        pytest.skip(f"reference file {data_path} not available (CASC data is never committed)")
    labels = _read_labels(path)
    il = _il(data_path, labels, k)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()

    row = _csv_row(data, k)
    assert row["label_sha256"] == sha, "casc.csv describes another label file: rebuild the table"
    assert abs(float(row["il"]) - il) <= 1e-6

    record = json.loads((RESULTS / "casc_runs" / f"{data}_k{k}.json").read_text())
    last = record["runs"][-1]["label_file"]
    assert last["sha256"] == sha, "the label file changed after the last recorded run"
    assert abs(last["independent"]["il"] - il) <= 1e-6
    found = [st for run in record["runs"] for st in run["stages"] if st.get("labels_sha256") == sha]
    assert found, "no recorded stage produced this partition"

    exe = Path(sys.executable).parent / "mipagg"
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-c",
                                            "import sys; from mipagg.cli import main; sys.exit(main())"]
    proc = subprocess.run(cmd + ["verify", str(data_path), str(path), "-k", str(k), "--json"],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode == 2 and ("invalid choice" in proc.stderr
                                 or "unrecognized arguments" in proc.stderr):
        return  # `mipagg verify` (or its --json) not in this version: the recomputation above stands
    assert proc.returncode == 0, proc.stderr
    assert abs(json.loads(proc.stdout)["il"] - il) <= 1e-6


def _census_k3_copy(tmp_path):
    """(data path, committed label file, out dir, solutions dir): the census
    k = 3 record and label file copied under ``tmp_path`` for scripts/casc.py."""
    data_path = SHARED_DATA / "census.csv"
    label = SOLUTIONS / "census_k3.csv"
    if not data_path.is_file() or not label.is_file():
        pytest.skip("needs ../shared/data/census.csv and the committed census_k3 labels")
    out, sol = tmp_path / "out", tmp_path / "sol"
    (out / "casc_runs").mkdir(parents=True)
    sol.mkdir()
    shutil.copy(RESULTS / "casc_runs" / "census_k3.json", out / "casc_runs")
    shutil.copy(label, sol)
    return data_path, label, out, sol


def test_casc_polish_run_on_a_copy(tmp_path):
    """``scripts/casc.py --polish`` starts from the committed label file, never
    writes a worse one, and records the stage that produced what it wrote."""
    data_path, label, out, sol = _census_k3_copy(tmp_path)
    before = _il(data_path, _read_labels(label), 3)
    runs_before = len(json.loads((out / "casc_runs" / "census_k3.json").read_text())["runs"])
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "casc.py"), str(SHARED_DATA),
                           "--polish", "4", "--polish-groups", "6", "--polish-move-time", "5",
                           "--polish-seed", "3", "--verbose",
                           "--cells", "census:3", "--out", str(out),
                           "--solutions", str(sol)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    after = _il(data_path, _read_labels(sol / "census_k3.csv"), 3)
    assert after <= before + 1e-9
    record = json.loads((out / "casc_runs" / "census_k3.json").read_text())
    run = record["runs"][-1]
    assert len(record["runs"]) == runs_before + 1 and run["primal"]["method"] == "polish"
    assert [st["method"] for st in run["stages"]] == ["merge-split search", "improve exact"]
    assert run["stages"][1]["options"]["groups"] == 6
    assert run["stages"][1]["options"]["move_time"] == 5
    assert run["parameters"]["polish_groups"] == 6 and run["parameters"]["polish_seed"] == 3
    assert [st["seed"] for st in run["stages"]] == [3, 3]
    assert run["stages"][0]["result"]["sse_before_improve"] == pytest.approx(
        run["primal"]["from_il"] * run["label_file"]["independent"]["sst"] / 100)
    sha = hashlib.sha256((sol / "census_k3.csv").read_bytes()).hexdigest()
    assert run["label_file"]["sha256"] == sha
    row = next(r for r in csv.DictReader(open(out / "casc.csv")) if r["data"] == "census"
               and r["k"] == "3")
    assert row["label_sha256"] == sha and abs(float(row["il"]) - after) <= 1e-6


def test_casc_polish_guided_by_the_lp_on_a_copy(tmp_path):
    """``--polish-guide lp``: one exact stage whose sub-problems the root LP
    chooses (its summary recorded), no merge-split step, never a worse file."""
    data_path, label, out, sol = _census_k3_copy(tmp_path)
    before = _il(data_path, _read_labels(label), 3)
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "casc.py"), str(SHARED_DATA),
                           "--polish", "8", "--polish-groups", "6", "--polish-move-time", "5",
                           "--polish-guide", "lp", "--cells", "census:3", "--out", str(out),
                           "--solutions", str(sol)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _il(data_path, _read_labels(sol / "census_k3.csv"), 3) <= before + 1e-9
    run = json.loads((out / "casc_runs" / "census_k3.json").read_text())["runs"][-1]
    assert [st["method"] for st in run["stages"]] == ["improve exact"]
    stage = run["stages"][0]
    assert stage["options"]["guide"] == "lp" and run["parameters"]["polish_guide"] == "lp"
    # (the root may be stopped by its 4-s share before a first LP under load)
    assert stage["result"]["lp_support"] >= stage["result"]["lp_fractional"] >= 0
    assert "lp_affinity" in stage["note"]


def _casc(*args):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "casc.py"), str(SHARED_DATA),
                           *map(str, args)], capture_output=True, text=True, timeout=600)


def test_casc_initial_file_that_is_no_k_partition_is_refused_before_any_stage(tmp_path):
    _, label, out, sol = _census_k3_copy(tmp_path)
    labels = _read_labels(label)
    bad = tmp_path / "bad.csv"
    bad.write_text("group\n" + "\n".join(map(str, range(labels.size))) + "\n")
    record = (out / "casc_runs" / "census_k3.json").read_text()
    for extra in (["--initial", bad], ["--initial", tmp_path / "missing.csv"],
                  ["--initial", label, "--cells", "census:3,census:4"],
                  ["--initial-note", "no file"], ["--initial", label, "--table-only"]):
        cells = [] if "--cells" in extra else ["--cells", "census:3"]
        proc = _casc("--polish", "2", *cells, *extra, "--out", out, "--solutions", sol)
        assert proc.returncode == 2 and "casc: " in proc.stderr, (extra, proc.stderr)
        assert "polish" not in proc.stderr.split("casc: ")[0]    # no stage ran
    assert (out / "casc_runs" / "census_k3.json").read_text() == record
    assert "not a 3-partition" in _casc("--polish", "2", "--cells", "census:3", "--initial",
                                        bad, "--out", out, "--solutions", sol).stderr


def test_casc_initial_file_better_than_the_committed_one_becomes_the_cell_partition(tmp_path):
    """``--initial FILE``: a partition made elsewhere is recorded as a stage of
    its own (role ``given``), polished, written when it beats the committed
    label file, and named in the table as the source of the partition."""
    data_path, label, out, sol = _census_k3_copy(tmp_path)
    best = _read_labels(label)
    given = tmp_path / "given.csv"
    shutil.copy(label, given)
    worse = np.arange(best.size) // 3              # groups of 3 in input order
    # a partition no recorded run made: the runs that found the optimum are dropped
    path = out / "casc_runs" / "census_k3.json"
    record, sha = json.loads(path.read_text()), hashlib.sha256(label.read_bytes()).hexdigest()
    record["runs"] = [r for r in record["runs"]
                      if all(st.get("labels_sha256") != sha for st in r["stages"])]
    path.write_text(json.dumps(record))
    (sol / "census_k3.csv").write_text("group\n" + "\n".join(map(str, worse)) + "\n")
    proc = _casc("--polish", "2", "--polish-groups", "4", "--polish-move-time", "1",
                 "--cells", "census:3", "--initial", given, "--initial-note", "made by hand",
                 "--out", out, "--solutions", sol)
    assert proc.returncode == 0, proc.stderr[-2000:]
    run = json.loads((out / "casc_runs" / "census_k3.json").read_text())["runs"][-1]
    assert [st["role"] for st in run["stages"]] == ["given", "polish", "polish"]
    assert [st.get("source_stage") for st in run["stages"][1:]] == [0, 1]
    stage = run["stages"][0]
    assert stage["note"] == "made by hand" and stage["source_label"].endswith("given.csv")
    assert stage["labels_sha256"] == run["primal"]["from_sha256"]
    assert run["parameters"]["initial_note"] == "made by hand"
    assert run["label_file"]["written"]
    after = _il(data_path, _read_labels(sol / "census_k3.csv"), 3)
    assert after <= _il(data_path, best, 3) + 1e-9 < _il(data_path, worse, 3)
    row = next(r for r in csv.DictReader(open(out / "casc.csv")) if r["data"] == "census"
               and r["k"] == "3")
    assert row["method"].startswith("label file given.csv: made by hand")
    assert row["primal_seconds"] == ""              # made elsewhere: no time of its own


def _replay(tmp_path, edit=None):
    """``scripts/casc.py --replay`` of census k = 3 with a 3-s budget on a copy
    of the record and label file; ``edit`` may change the copied record first.
    Returns (process, record after, record before)."""
    _, label, out, sol = _census_k3_copy(tmp_path)
    record = json.loads((out / "casc_runs" / "census_k3.json").read_text())
    if edit is not None:
        edit(record)
        (out / "casc_runs" / "census_k3.json").write_text(json.dumps(record))
    sha = hashlib.sha256(label.read_bytes()).hexdigest()
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "casc.py"), str(SHARED_DATA),
                           "--replay", "--cells", "census:3", "--budget-bound", "3",
                           "--out", str(out), "--solutions", str(sol)],
                          capture_output=True, text=True, timeout=600)
    assert hashlib.sha256((sol / "census_k3.csv").read_bytes()).hexdigest() == sha
    assert not (out / "casc.md").exists()        # a replay does not rebuild the table
    return proc, json.loads((out / "casc_runs" / "census_k3.json").read_text()), record


def _certified(record) -> dict:
    """The run behind a record's certified bound (the one ``--replay`` reruns)."""
    return max((r for r in record["runs"] if r["bound"].get("lower_bound") is not None),
               key=lambda r: r["bound"]["lower_bound"])


def _without_proofs(record):
    """The record without its proven runs (census k = 3 is proven since
    2026-11-27): the replay then reruns a time-limited bound stage."""
    record["runs"] = [r for r in record["runs"] if r.get("bound", {}).get("status") != "optimal"]


def test_casc_replay_reruns_the_bound_stage_of_the_certified_bound(tmp_path):
    proc, after, before = _replay(tmp_path, _without_proofs)
    assert proc.returncode == 0, proc.stderr[-2000:]
    best = _certified(before)
    assert after["runs"] == before["runs"]
    assert len(after["replays"]) == len(before.get("replays", [])) + 1
    replay = after["replays"][-1]
    assert replay["replay_of"] == best["started"]
    assert replay["recorded"]["lower_bound"] == best["bound"]["lower_bound"]
    assert replay["stage"]["method"] == best["stages"][best["bound"]["stage"]]["method"]
    assert replay["replayed"]["time_limit"] == 3
    # recorded before node cut rounds were the default: replayed with the root's cuts only
    assert "node_cut_rounds" not in best["stages"][best["bound"]["stage"]]["options"]
    assert replay["stage"]["options"]["node_cut_rounds"] == 0
    # three seconds certify less than the recorded run, and never more than the labels' SSE
    got = replay["replayed"]
    assert got["lower_bound"] <= got["sse"] + 1e-9
    assert got["lower_bound"] < best["bound"]["lower_bound"]
    assert replay["verdict"].startswith("weaker bound")


def test_casc_replay_of_a_split_reruns_each_sides_bound_stage(tmp_path):
    """When the split on the number of groups bounds the cell, ``--replay``
    reruns the best run of each side, with its restriction."""
    def split(record):
        _without_proofs(record)
        best = _certified(record)
        for i, side in enumerate(({"max_groups": 359}, {"max_size": 3})):
            run = copy.deepcopy(best)
            run["started"] = f"side {i}"
            run["parameters"]["bp_options"] = {**(run["parameters"].get("bp_options") or {}),
                                               **side}
            run["parameters"]["bp_options"].pop("resume", None)
            stage = run["stages"][run["bound"]["stage"]]
            stage["options"] = {**stage["options"], **side}
            stage["options"].pop("resume", None)
            run["bound"]["lower_bound"] += 0.01 * (i + 1)
            record["runs"].append(run)

    proc, after, before = _replay(tmp_path, split)
    assert proc.returncode == 0, proc.stderr[-2000:]
    new = after["replays"][len(before.get("replays", [])):]
    assert [r["replay_of"] for r in new] == ["side 0", "side 1"]
    assert [r["side"] for r in new] == ["partitions into at most 359 groups",
                                        "partitions into groups of at most 3 records"]
    assert new[0]["stage"]["options"]["max_groups"] == 359
    assert new[1]["stage"]["options"]["max_size"] == 3
    for r in new:       # each side's 3-s run against its own recorded bound
        assert r["replayed"]["time_limit"] == 3
        higher = r["replayed"]["lower_bound"] >= r["recorded"]["lower_bound"] - 1e-6
        assert r["verdict"] == "bound reproduced" if higher else r["verdict"].startswith("weaker")


def test_casc_replay_takes_the_defaults_its_stage_recorded(tmp_path):
    """A bound stage records the defaults it ran with; the replay passes
    them, so a default changed since (or an old value in CHANGED_DEFAULTS)
    does not change the tree."""
    def record_defaults(record):
        _without_proofs(record)
        stage = (best := _certified(record))["stages"][best["bound"]["stage"]]
        stage["defaults"] = {"node_cut_rounds": 2, "tail_off": 0.5, "plunge": 0.5}
        stage["options"]["plunge"] = 0.25       # an option the stage gives wins

    proc, after, _ = _replay(tmp_path, record_defaults)
    assert proc.returncode == 0, proc.stderr[-2000:]
    options = after["replays"][-1]["stage"]["options"]
    assert (options["node_cut_rounds"], options["tail_off"], options["plunge"]) == (2, 0.5, 0.25)


def test_casc_replay_exits_1_when_a_recorded_proof_is_not_reproduced(tmp_path):
    def claim_a_proof(record):
        _without_proofs(record)
        best = _certified(record)
        best["bound"]["status"] = "optimal"

    proc, after, _ = _replay(tmp_path, claim_a_proof)
    assert proc.returncode == 1
    assert after["replays"][-1]["verdict"] == "proof NOT reproduced"


def test_casc_bp_options_reach_the_bound_stage_and_its_record(tmp_path):
    """``--bp-option KEY=VALUE`` goes to branch_and_price and into the record
    (stage options and run parameters), so that ``--replay`` reruns it."""
    _, _, out, sol = _census_k3_copy(tmp_path)
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "casc.py"), str(SHARED_DATA),
                           "--cells", "census:3", "--budget-primal", "2", "--budget-bound", "8",
                           "--bp-option", "max_cut_rounds=0", "--bp-option", "aggregation=on",
                           "--out", str(out), "--solutions", str(sol)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    run = json.loads((out / "casc_runs" / "census_k3.json").read_text())["runs"][-1]
    assert run["parameters"]["bp_options"] == {"max_cut_rounds": 0, "aggregation": "on"}
    stage = run["stages"][run["bound"]["stage"]]
    assert stage["method"] == "bp"
    assert stage["options"]["max_cut_rounds"] == 0 and stage["options"]["aggregation"] == "on"
    # every other option's default is recorded for --replay, today's node_cut_rounds among them
    assert stage["defaults"]["node_cut_rounds"] == 1 and stage["defaults"]["cuts"] is True
    assert not set(stage["defaults"]) & set(stage["options"])
    # both took effect: no cut round, and the aggregated phase ran (off by default at k = 3)
    assert stage["result"]["cut_rounds"] == 0
    assert stage["result"]["aggregation"]["iterations"] >= 1


def test_casc_ctrl_c_in_the_bound_stage_records_the_run_and_runs_no_further_cell(tmp_path):
    """Ctrl-C once during bp (here in its root): the bound stage stops as at
    its time limit, the cell is saved and recorded with status "interrupted",
    the table is rebuilt, and the next cell (census:4) is not run."""
    import signal

    _, _, out, sol = _census_k3_copy(tmp_path)
    runs_before = len(json.loads((out / "casc_runs" / "census_k3.json").read_text())["runs"])
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "casc.py"), str(SHARED_DATA),
                             "--cells", "census:3,census:4", "--budget-primal", "2",
                             "--budget-bound", "600", "--verbose", "--out", str(out),
                             "--solutions", str(sol)], stderr=subprocess.PIPE, text=True,
                            stdout=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []       # wait for bp's first progress line: the bound stage is on
    while not any(line.startswith("[bp") for line in seen):
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
    assert proc.poll() is None, "".join(seen)
    proc.send_signal(signal.SIGINT)
    err = "".join(seen) + proc.communicate(timeout=300)[1]
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err and "the cells after it are not run" in err
    record = json.loads((out / "casc_runs" / "census_k3.json").read_text())
    run = record["runs"][-1]
    assert len(record["runs"]) == runs_before + 1
    assert run["bound"]["status"] == "interrupted" and run["bound"]["method"] == "bp"
    if run["bound"]["lower_bound"] is not None:
        assert run["bound"]["lower_bound"] <= run["best"]["sse"] + 1e-9
    assert not (out / "casc_runs" / "census_k4.json").exists()
    assert (out / "casc.md").is_file()


@pytest.mark.parametrize("option, message", [("foo=1", "expected KEY=VALUE"),
                                             ("time_limit=5", "expected KEY=VALUE"),
                                             ("aggregation=maybe", "aggregation must be one of"),
                                             ("column_fixing=no", "must be True or False")])
def test_casc_refuses_a_bad_bp_option_before_any_stage(tmp_path, option, message):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "casc.py"), str(tmp_path),
                           "--cells", "census:3", "--bp-option", option, "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and message in proc.stderr
    assert not out.exists()


def _casc_module():
    """scripts/casc.py imported as a module (it is a script, not in the package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("casc", ROOT / "scripts" / "casc.py")
    casc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(casc)
    return casc


def test_casc_lineage_follows_polishing_runs_back_to_the_run_that_made_the_partition():
    """casc.md lists every run behind a polished partition, oldest first: each
    polishing run starts from the label file an earlier run produced."""
    casc = _casc_module()

    def run(name, made, start=None):
        primal = {"method": "polish", "from_sha256": start} if start else {"method": "portfolio"}
        return {"command": name, "primal": primal,
                "stages": [{"labels_sha256": sha} for sha in made]}

    dive, other = run("dive", ["a", "b"]), run("other", ["x"])
    first, second = run("polish 1", ["c", "d"], start="b"), run("polish 2", ["e"], start="d")
    runs = [dive, other, first, second]
    assert [r["command"] for r in casc.lineage(runs, second)] == ["dive", "polish 1", "polish 2"]
    assert casc.lineage(runs, dive) == [dive]
    lost = run("polish 3", ["f"], start="unknown")        # its start is in no record
    assert casc.lineage(runs + [lost], lost) == [lost]
    loop = run("polish 4", ["g"], start="g")               # never loops
    assert casc.lineage([loop], loop) == [loop]


def test_casc_tree_lineage_follows_resumed_checkpoints_through_runs_stopped_by_hand():
    """casc.md counts every run of a resumed tree: a bound stage with
    resume=FILE continues the run that wrote FILE, or, when no record wrote it
    (a run stopped by hand), the checkpoint FILE itself resumed."""
    casc = _casc_module()

    def run(name, resume=None, checkpoint=None):
        return {"command": name, "parameters": {"bp_options": {"resume": resume,
                                                               "checkpoint": checkpoint}}}

    first, side = run("first", checkpoint="t1"), run("side branch", "t1", "t2b")
    second, fourth = run("second", "t1", "t2"), run("fourth", "t3", "t4")   # t3: no record
    parents = {"t3": "t2", "t2": "t1", "t1": None}
    runs = [first, side, second, fourth, run("no tree")]
    assert casc.tree_lineage(runs, fourth, parents.get) == ([first, second, fourth], ["t3"])
    assert casc.tree_lineage(runs, side, parents.get) == ([first, side], [])
    assert casc.tree_lineage(runs, first, parents.get) == ([first], [])
    lost = run("lost", "t9")                            # a checkpoint nobody knows
    assert casc.tree_lineage(runs + [lost], lost, {}.get) == ([lost], ["t9"])
    loop = run("loop", "t5", "t5")                      # never loops
    assert casc.tree_lineage([loop], loop, parents.get) == ([loop], [])
    looped = run("looped", "u1")
    assert casc.tree_lineage([looped], looped, {"u1": "u1"}.get) == ([looped], ["u1"])
    row = {"tree_runs": 3, "tree_unrecorded": 2, "tree_seconds": 15410.0}
    assert casc.tree_runs_text(row) == "3 runs, 4.3 h, and 2 stopped by hand"
    assert casc.tree_runs_text({**row, "tree_runs": 1, "tree_unrecorded": 0}) == "1 run, 4.3 h"


def test_casc_bound_run_is_the_highest_bound_and_of_tied_proofs_the_fastest_tree():
    """The run behind casc.md's bound (and --replay's): the highest bound; when
    several runs reach it (a cell proven again from the root), the one whose
    tree took the least time in all, counting every run of a resumed tree."""
    casc = _casc_module()

    def run(name, lb, seconds, resume=None, checkpoint=None):
        return {"command": name, "bound": {"lower_bound": lb, "wall_seconds": seconds},
                "parameters": {"bp_options": {"resume": resume, "checkpoint": checkpoint}}}

    a = run("a", 10.0, 3000.0, checkpoint="t1")
    b = run("b", 11.0, 1000.0, "t1", "t2")              # the chain's proof: 4 000 s in all
    c = run("c", 11.0 - 1e-12, 2000.0)                  # from the root, 2 000 s: fastest
    d = run("d", 10.5, 10.0)
    assert casc.bound_run([a, b, d], {}.get) == (b, 1)
    assert casc.bound_run([a, b, c, d], {}.get) == (c, 2)
    e = run("e", 11.0, 5000.0)                           # slower than the chain
    assert casc.bound_run([a, b, e], {}.get) == (b, 2)
    f = run("f", 11.0, 4000.0)                           # as fast: the earliest wins
    assert casc.bound_run([a, b, f], {}.get) == (b, 2)
    assert casc.bound_run([a, b, run("g", 11.0 + 1e-6, 9e9)], {}.get)[0]["command"] == "g"


def _side_run(name, lb, seconds, status="time_limit", **options):
    """A made-up casc record of a bound stage of 10 nodes with these --bp-options."""
    return {"command": name, "started": name, "parameters": {"bp_options": options,
                                                             "budget_bound": seconds,
                                                             "quick": False},
            "bound": {"lower_bound": lb, "wall_seconds": seconds, "status": status,
                      "nodes": 10}}


def test_casc_a_side_of_a_split_bounds_the_cell_only_with_the_other_side():
    """A bound stage restricted to one side of a split on the number of
    groups (max_groups / max_size) never bounds the cell alone: the least of
    the two sides' best bounds does, when it beats (or, faster, ties) the
    best run on the whole problem."""
    casc = _casc_module()
    run = _side_run
    whole = run("whole", 100.0, 9000.0)
    fewer = [run("g1", 101.0, 100.0, max_groups=269), run("g2", 103.0, 500.0, max_groups=269)]
    four = run("s", 102.0, 300.0, "optimal", max_size=4)
    assert casc.side_of(whole) == {} and casc.side_of(four) == {"max_size": 4}
    assert casc.split_runs([whole] + fewer, 1080, 4) is None        # one side only
    split = casc.split_runs([whole, four] + fewer, 1080, 4)
    assert [r["command"] for r in split] == ["g2", "s"]             # each side's best
    assert casc.split_wins([whole, four] + fewer, split, [whole])
    f = casc.split_fields([whole, four] + fewer, split)
    assert f["lower_bound"] == 102.0 and f["bound_status"] == "time_limit"
    assert f["bound_seconds"] == 800.0 and f["bound_nodes"] == 20
    assert [d["restriction"] for d in f["bound_split"]] == [
        "partitions into at most 269 groups", "partitions into groups of at most 4 records"]
    assert not casc.split_wins([], split, [run("better", 102.5, 1.0)])
    assert casc.split_wins([], split, [run("tied, slower", 102.0, 900.0)])
    assert not casc.split_wins([], split, [run("tied, faster", 102.0, 700.0)])


def test_casc_a_side_resumed_over_runs_names_its_tree():
    """A side whose tree went on over several runs (resume=) counts their
    time, and the table names its runs and its first run's command."""
    casc = _casc_module()
    fewer = _side_run("g", 101.0, 100.0, "optimal", max_groups=269)
    four = [_side_run("s0", 100.5, 200.0, max_size=4, checkpoint="s0.npz"),
            _side_run("s1", 101.0, 300.0, "optimal", max_size=4, resume="s0.npz")]
    runs = [fewer] + four
    f = casc.split_fields(runs, casc.split_runs(runs, 1080, 4))
    assert f["bound_status"] == "optimal" and f["bound_seconds"] == 600.0
    side = f["bound_split"][1]
    assert (side["tree_runs"], side["tree_seconds"], side["tree_first_command"]) == (2, 500.0, "s0")
    assert "tree_runs" not in f["bound_split"][0]
    assert casc.tree_text(side) == ", the last run of a tree of 2 runs, 0.1 h; its first " \
        "recorded run `s0`"
    assert casc.tree_text(f["bound_split"][0]) == ""


def test_casc_table_never_prints_an_open_gap_as_zero():
    """casc.md's gap column: 0 only for a closed gap, two significant decimals
    below 0.1 % (Tarragona k = 5 at 0.0030 % printed as 0.00 before)."""
    casc = _casc_module()
    assert [casc._gap(g) for g in (0.0, 1e-9, 0.0030327, 0.0496, 0.09, 0.109, 2.25, None)] == \
        ["0", "0", "0.0030", "0.050", "0.090", "0.11", "2.25", "–"]


CHECKPOINTS = sorted((RESULTS / "trees").glob("*.npz")) if (RESULTS / "trees").is_dir() else []


@pytest.mark.parametrize("path", CHECKPOINTS, ids=lambda p: p.name)
def test_every_committed_tree_checkpoint_fits_its_file_and_bounds_below_its_partition(path):
    """docs/results/trees/{data}_k{K}[_SUFFIX].npz (the suffix of letters,
    digits and _): made for that CASC file and k
    (fingerprint), its incumbent a k-feasible partition of the SSE it claims,
    its least open bound (certified) not above the committed partition nor
    above its own incumbent, and not below that of the checkpoint it resumed
    (a subtree's bound never falls below its parent's).  A closed tree (no open
    node) bounds with its incumbent, so the committed partition must be as good,
    and every node it cut off had a bound within ``gap_tol`` of that incumbent."""
    from mipagg.exact import checkpoint
    from mipagg.instance import read_csv

    data, k = re.fullmatch(r"(census|tarragona)_k(\d+)(?:_[a-z0-9_]+)?\.npz", path.name).groups()
    source = SHARED_DATA / f"{data}.csv"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    X = read_csv(source).X
    ck = checkpoint.load(path)
    assert ck.meta["fingerprint"] == checkpoint.fingerprint(X, int(k))
    lb = ck.lower_bound
    if not ck.nodes:                # a closed tree: its incumbent is the proven optimum
        lb = ck.meta["incumbent_sse"]
        pruned, tol = ck.meta["bounds"]["pruned_bound"], ck.meta["settings"]["gap_tol"]
        assert pruned is None or pruned >= lb * (1 - tol) - 1e-9
    assert lb is not None and lb <= ck.meta["incumbent_sse"] + 1e-9
    sst = float(((X - X.mean(axis=0)) ** 2).sum())
    incumbent = _il(source, np.asarray(ck.labels), int(k)) * sst / 100
    assert incumbent == pytest.approx(ck.meta["incumbent_sse"], rel=1e-9)
    committed = _il(source, _read_labels(SOLUTIONS / f"{data}_k{k}.csv"), int(k)) * sst / 100
    assert lb <= committed + 1e-6
    resumed = ck.meta["settings"].get("resume")
    if resumed and (ROOT / resumed).is_file():
        assert lb >= checkpoint.load(ROOT / resumed).lower_bound - 1e-9


def test_the_kept_census_k5_partition_is_feasible_and_of_its_sse():
    """docs/results/trees/census_k5_sample1_labels.csv (casc_gap §51): a
    k = 5 partition of Census of the SSE its README gives, below that of the
    partition committed when it was kept (1016.4610)."""
    from mipagg.instance import read_csv
    from mipagg.partition import Partition
    from mipagg.verify import read_labels

    data = SHARED_DATA / "census.csv"
    if not data.exists():
        pytest.skip("needs ../shared/data/census.csv")
    X = read_csv(data).X
    kept = Partition(read_labels(RESULTS / "trees" / "census_k5_sample1_labels.csv"), X)
    assert kept.is_feasible(5) and kept.sse() == pytest.approx(1015.4356, abs=1e-4)
    assert kept.sse() < 1016.4610 - 1.0
