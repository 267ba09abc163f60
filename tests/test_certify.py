"""``mipagg gap`` and :func:`mipagg.certify`: the bound never exceeds the
brute-force optimum, the gap is formula (15) of seed 001 on the exactly
recomputed SSE, a better partition is really better, bad partitions refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _bruteforce import optimal_partition
from hypothesis import assume, example, given, settings, strategies as st

import mipagg
from mipagg.certification import NotFeasibleError, certify
from mipagg.errors import ParameterError
from mipagg.instance import from_array
from mipagg.verify import LabelsError, verify_table

ROOT = Path(__file__).resolve().parent.parent
COMPANIES = ROOT / "instances" / "companies.csv"
KEYS = "surface,employees"
TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0,
                 dive_time=0)


def feasible_labels(rng, n, k):
    """A random k-feasible partition: g groups of at least k records."""
    g = int(rng.integers(1, n // k + 1))
    order = rng.permutation(n)
    labels = np.empty(n, dtype=int)
    labels[order[:g * k]] = np.arange(g * k) % g
    labels[order[g * k:]] = rng.integers(0, g, size=n - g * k)
    return labels


@st.composite
def tiny(draw):
    n = draw(st.integers(4, 11))
    k = draw(st.integers(2, max(2, min(4, n // 2))))
    rng = np.random.default_rng(draw(st.integers(0, 100_000)))
    X = rng.integers(0, 5, size=(n, draw(st.integers(1, 3)))).astype(float)
    assume(np.ptp(X, axis=0).max() > 0)
    return X, k, feasible_labels(rng, n, k)


@pytest.mark.filterwarnings("ignore::UserWarning")
@settings(max_examples=30, deadline=None)
@given(tiny(), st.sampled_from(["bp", "bp-limited", "cg"]))
@example((np.array([[2.0], [2.0], [4.0], [4.0]]), 2, np.array([1, 1, 0, 0])), "bp")  # SSE 0
def test_bound_never_exceeds_the_brute_force_optimum(case, how):
    X, k, labels = case
    inst = from_array(X)
    opt, _ = optimal_partition(inst.X, k)
    options = {"bp": {}, "bp-limited": dict(TREE_ONLY, node_limit=1),
               "cg": {"threads": 1}}[how]
    r = certify(inst, labels, k, time_limit=30, method=how[:2], **options)
    exact = verify_table(list(inst.columns), X.tolist(), labels.tolist(), k)
    assert r.sse == pytest.approx(exact["sse"], rel=1e-12) and r.il == exact["il"]
    assert r.sse >= opt - 1e-9
    assert r.lower_bound <= opt + 1e-7
    # a partition of SSE 0 (duplicate records) is optimal: gap 0
    expected = 0.0 if r.sse <= 0 else max(0.0, 100 * (r.sse - r.lower_bound) / r.sse)
    assert r.gap == pytest.approx(expected, abs=1e-9)
    if r.better is not None:
        assert r.better.is_feasible(k)
        assert opt - 1e-9 <= r.better_sse < r.sse
        assert r.better_sse == pytest.approx(r.better.sse(), rel=1e-9)
    if how == "bp":         # unlimited on a tiny instance: proven optimum
        assert r.bound_status == "optimal" and r.lower_bound == pytest.approx(opt, abs=1e-7)
        assert r.proven_optimal == (r.sse <= opt + 1e-7)
        assert (r.better is None) == r.proven_optimal


def test_an_optimal_partition_has_gap_zero():
    X = np.array([[0.], [1.], [2.], [10.], [11.], [12.]])
    opt, groups = optimal_partition(from_array(X).X, 3)
    labels = np.empty(6, dtype=int)
    for g, rows in enumerate(groups):
        labels[list(rows)] = g
    r = mipagg.certify(X, labels, 3, time_limit=10)
    assert r.proven_optimal and r.gap == pytest.approx(0, abs=1e-6) and r.better is None
    assert r.summary()["lower_bound_il"] == pytest.approx(100 * r.lower_bound / r.sst)


def test_run_result_and_partition_are_accepted():
    X = np.random.default_rng(1).normal(size=(12, 2))
    run = mipagg.microaggregate(X, 3, "mdav")
    a = certify(X, run, 3, time_limit=10)
    b = certify(X, run.partition, 3, time_limit=10)
    assert a.sse == pytest.approx(run.partition.sse()) and a.sse == b.sse


def test_bad_partitions_are_refused():
    X = np.arange(8.0)[:, None]
    with pytest.raises(NotFeasibleError, match="not 3-feasible"):
        certify(X, [0, 0, 0, 1, 1, 2, 2, 2], 3)
    with pytest.raises(LabelsError, match="7 labels for 8"):
        certify(X, [0] * 7, 3)
    with pytest.raises(LabelsError, match="non-negative"):
        certify(X, [-1] * 8, 3)
    with pytest.raises(ParameterError, match="bound method"):
        certify(X, [0] * 8, 3, method="mdav")


def _cli(*argv):
    return subprocess.run([sys.executable, "-m", "mipagg.cli", *map(str, argv)],
                          capture_output=True, text=True, timeout=300)


def test_cli_gap(tmp_path, capsys):
    from mipagg.cli import main

    def cli(*argv):
        code = main(list(map(str, argv)))
        out, err = capsys.readouterr()
        return code, out, err

    labels = tmp_path / "mdav.csv"
    labels.write_text("group\n" + "\n".join(map(str, [0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2])) + "\n")
    better = tmp_path / "better.csv"
    p = _cli("gap", COMPANIES, labels, "-k", 3, "--columns", KEYS, "--json", "--quiet",
             "--labels", better, "--time-limit", 30)          # the installed command
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    code, ver, _ = cli("verify", COMPANIES, labels, "-k", 3, "--columns", KEYS, "--json")
    assert out["sse"] == json.loads(ver)["sse"]
    assert out["bound_method"] == "bp" and out["bound_status"] == "optimal"
    assert out["gap"] == pytest.approx(100 * (out["sse"] - out["lower_bound"]) / out["sse"])
    # the optimum of companies.csv at k = 3 is IL 34.02 (seed 004 Example 1: SSE/SST 0.34)
    assert out["better_il"] == pytest.approx(34.02, abs=0.01)
    code, again, _ = cli("verify", COMPANIES, better, "-k", 3, "--columns", KEYS, "--json")
    assert json.loads(again)["sse"] == pytest.approx(out["better_sse"])
    bad = tmp_path / "bad.csv"
    bad.write_text("group\n" + "\n".join(["0", "0", "1", "1"] + ["2"] * 7) + "\n")
    code, _, err = cli("gap", COMPANIES, bad, "-k", 3, "--columns", KEYS, "--quiet")
    assert code == 1 and "not 3-feasible" in err
    code, _, err = cli("gap", COMPANIES, "-k", 3, "--columns", KEYS, "--quiet")
    assert code == 2 and "LABELS file or --from" in err
    code, out2, err = cli("gap", COMPANIES, "-k", 3, "--columns", KEYS, "--quiet", "--from",
                          "mdav", "--method", "cg", "--json")
    assert code == 0, err
    assert json.loads(out2)["partition"] == "method mdav"


def test_cli_gap_options_reach_the_bound_method(tmp_path, capsys):
    """``mipagg gap --option KEY=VALUE``: an option of the bound method
    (BPSettings or CGSettings), checked before any work; a checkpoint is an
    output like ``--labels``."""
    from mipagg.cli import main

    def gap(*argv):
        code = main(["gap", str(COMPANIES), str(labels), "-k", "3", "--columns", KEYS,
                     "--quiet", "--json", *map(str, argv)])
        out, err = capsys.readouterr()
        return code, (json.loads(out) if code == 0 else None), err

    labels = tmp_path / "mdav.csv"
    text = "group\n" + "\n".join(map(str, [0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2])) + "\n"
    labels.write_text(text)
    code, closed, _ = gap("--method", "cg")
    assert code == 0 and closed["bound_source"] == "cg enumeration"
    assert closed["bound_status"] == "optimal"
    code, lp, _ = gap("--method", "cg", "--option", "close_gap=false")
    assert code == 0 and lp["bound_source"] == "cg lp" and lp["bound_status"] == "converged"
    assert lp["lower_bound"] < closed["lower_bound"] - 1.0          # 5.57 against 6.80
    tree = tmp_path / "tree.npz"
    code, out, _ = gap("--option", "branching=strong", "--option", f"checkpoint={tree}")
    assert code == 0 and out["bound_method"] == "bp" and tree.exists()
    for bad, message in (("foo=1", "expected KEY=VALUE"), ("time_limit=5", "expected KEY=VALUE"),
                         ("close_gap_partial=-1", "close_gap_partial must be an integer"),
                         (f"checkpoint={labels}", "is the input file")):
        code, _, err = gap("--option", bad)
        assert code == 2 and message in err
    code, _, err = gap("--method", "cg", "--option", "branching=strong")
    assert code == 2 and "expected KEY=VALUE" in err
    assert labels.read_text() == text
