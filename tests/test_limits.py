"""Every limit honoured (issue 20): deadlines reach every long loop, Ctrl-C
stops compiled kernels, the same seed gives the same labels when no limit
binds, and what cannot fit in memory is refused before it starts."""

import os
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from mipagg.api import microaggregate
from mipagg.deadline import Deadline, chunk_steps
from mipagg.errors import MipaggError
from mipagg.generators import simu
from mipagg.heuristics.fixed import md_groups
from mipagg.improve import local_search, random_cluster_shuffling
from mipagg.memory import available_bytes, check_memory, estimate_bytes, max_records
from mipagg.methods import METHODS
from mipagg.partition import Partition
from mipagg.portfolio import portfolio
from mipagg.tsp import (
    improve_tour,
    insertion_tour,
    nearest_neighbor_tour,
    repetitive_nn_tour,
    tour_length,
)
from mipagg.tsp_micro import mdav_lk_mhm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ------------------------------------------------------------------ deadlines

def test_deadline_basics():
    d = Deadline(None)
    assert not d.bounded and not d.expired() and d.left() == float("inf")
    assert not Deadline(1e30).bounded            # cannot bind: no limit at all
    d = Deadline(0.0)
    assert d.expired() and d.hit
    assert Deadline.of(d) is d                   # shared by nested loops
    for bad in (-1, float("nan"), "5", True):
        with pytest.raises(MipaggError, match="time_limit"):
            Deadline(bad)


def test_lin_kernighan_stops_at_its_limit_with_a_path_no_longer():
    X = simu(2500, 5, seed=3).X
    t = time.perf_counter()
    full = mdav_lk_mhm(X, 3)
    t_full = time.perf_counter() - t
    t = time.perf_counter()
    cut = mdav_lk_mhm(X, 3, time_limit=0.05)
    t_cut = time.perf_counter() - t
    assert cut.extra["time_limited"] is True and "time_limited" not in full.extra
    assert cut.path_length <= cut.extra["mdav_path_length"] + 1e-9
    assert cut.path_length >= full.path_length - 1e-9   # stopped early: not better
    assert t_cut < t_full
    assert cut.partition.is_feasible(3)


def test_tour_limits_keep_a_valid_tour():
    X = simu(3000, 4, seed=1).X
    nn = nearest_neighbor_tour(X, start=0, time_limit=0.0)   # expires at once
    assert sorted(nn.tolist()) == list(range(3000))
    d = Deadline(0.0)
    t = improve_tour(X, nn, time_limit=d)
    assert d.hit and sorted(t.tolist()) == list(range(3000))
    assert tour_length(X, t) <= tour_length(X, nn) + 1e-9


@pytest.mark.parametrize("rule", ["nearest", "farthest", "cheapest", "arbitrary"])
def test_insertion_tours_stop_at_the_deadline(rule):
    X = simu(3000, 3, seed=5).X
    d = Deadline(0.0)
    cut = insertion_tour(X, rule, start=7, seed=1, time_limit=d)
    assert d.hit and sorted(cut.tolist()) == list(range(3000)) and cut[0] == 7
    assert cut.tolist() != insertion_tour(X, rule, start=7, seed=1).tolist()
    assert np.all(np.diff(cut[-20:]) > 0)           # records not inserted: index order


def test_repetitive_nn_stops_at_the_deadline():
    X = simu(400, 3, seed=6).X
    d = Deadline(0.0)
    cut = repetitive_nn_tour(X, time_limit=d)
    assert d.hit and sorted(cut.tolist()) == list(range(400))
    # the best over the first chunk of starts: never shorter than over all starts
    assert tour_length(X, cut) >= tour_length(X, repetitive_nn_tour(X)) - 1e-9
    tried = chunk_steps(400.0 * 400)                  # the first chunk of starts
    assert tried < 400
    assert min(tour_length(X, nearest_neighbor_tour(X, start=s)) for s in range(tried)) == \
        pytest.approx(tour_length(X, cut), rel=1e-12)


def test_local_search_and_rcs_stop_at_the_deadline():
    X = simu(3000, 4, seed=2).X
    P = Partition(np.arange(3000) % 500, X)                 # a poor start, groups of 6
    for fn in (local_search, random_cluster_shuffling):
        d = Deadline(0.0)
        Q = fn(X, P, 3, time_limit=d)
        assert d.hit and Q.is_feasible(3) and Q.sse() <= P.sse()
    assert local_search(X, P, 3).sse() < P.sse()


def test_improve_time_limit_in_the_json():
    inst = simu(2000, 4, seed=4)
    r = microaggregate(inst, 3, "mdav", improve="local", improve_options={"time_limit": 1e-9})
    assert r.summary()["improve_time_limited"] is True and r.partition.is_feasible(3)
    r = microaggregate(inst, 3, "mdav", improve="local", improve_options={"time_limit": 600})
    assert r.summary()["improve_time_limited"] is False


def test_portfolio_stops_near_its_limit():
    X = simu(5000, 5, seed=5).X
    t = time.perf_counter()
    r = portfolio(X, 3, time_limit=3.0, seed=0)
    seconds = time.perf_counter() - t
    assert r.time_limited and r.partition.is_feasible(3)
    assert seconds < 3.0 + 3.0, r.summary()["budget"]
    assert microaggregate(X, 3, "portfolio", time_limit=2.0).summary()["time_limited"] is True


# ------------------------------------------------------------ reproducibility

SMALL_OPTIONS = {
    # every stage but the exact ones, with a limit that cannot bind
    "portfolio": {"time_limit": 600.0,
                  "methods": ["mdav-mhm", "vmdav", "mdav-lk-mhm", "compress", "tsp-mhm"]},
    "cg": {"time_limit": 1e30},      # the case: the limit cannot bind
}


@pytest.mark.parametrize("method", list(METHODS))
def test_same_seed_same_labels_for_every_method(method):
    """With a seed and no binding limit every method gives the same labels
    on every run; a run given a limit says whether it bound."""
    inst = simu(36, 3, seed=11)
    opts = SMALL_OPTIONS.get(method, {})
    runs = [microaggregate(inst, 3, method, seed=7, **opts) for _ in range(3)]
    for r in runs[1:]:
        assert np.array_equal(r.labels, runs[0].labels)
    if "time_limit" in opts:
        assert runs[0].summary()["time_limited"] is False


# --------------------------------------------------------------------- memory

def test_estimates_grow_as_the_method_needs():
    for m in ("mdav", "mdav-lk-mhm", "vmdav"):            # linear in n
        small, big = (estimate_bytes(m, n, 10, 5) for n in (10_000, 20_000))
        assert big - small < 2 * 10_000 * 2000
    for m in ("cg", "bp", "mf-tsp"):                       # n × n
        small, big = (estimate_bytes(m, n, 10, 5) for n in (10_000, 20_000))
        assert big - small > 3 * 10_000**2 * 8
    assert estimate_bytes("tsp-mhm", 30_000, 10, 5, {"tour": "lk"}) < 2**30
    assert estimate_bytes("compress", 30_000, 10, 5, {"c": 4}) \
        < estimate_bytes("compress", 30_000, 10, 5, {"c": 2})


def test_refused_before_starting_with_what_it_needs(monkeypatch):
    monkeypatch.setenv("MIPAGG_MEMORY_LIMIT", "2G")
    assert available_bytes() == (2 * 2**30, "MIPAGG_MEMORY_LIMIT")
    with pytest.raises(MipaggError, match=r"'cg' on n = 30,000 records would need about "
                       r"[0-9.]+ GiB .* more than the 2\.0 GiB available "
                       r"\(MIPAGG_MEMORY_LIMIT\); it accepts up to about n = [0-9,]+"):
        check_memory("cg", 30_000, 10, 5)
    fit = max_records("cg", 10, 5)
    check_memory("cg", fit, 10, 5)                        # the suggested size fits
    with pytest.raises(MipaggError):
        check_memory("cg", fit + fit // 50 + 1, 10, 5)
    check_memory("mdav-lk-mhm", 1_000_000, 10, 5)        # O(n·p): accepted
    X = np.zeros((9000, 2)) + np.arange(9000)[:, None]
    t = time.perf_counter()
    for method in ("cg", "bp", "mf-tsp", "tsp-mhm"):
        with pytest.raises(MipaggError, match="would need about"):
            microaggregate(X, 3, method)
    assert time.perf_counter() - t < 2.0                  # refused up front
    monkeypatch.setenv("MIPAGG_MEMORY_LIMIT", "lots")
    with pytest.raises(MipaggError, match="MIPAGG_MEMORY_LIMIT"):
        available_bytes()


def test_md_works_in_linear_memory(monkeypatch):
    """MD and MD-MHM no longer build 2048 × n distance blocks (4.9 GiB
    measured at n = 10⁵ before the index): a million records pass the check,
    and a run on 8 000 records allocates a few MiB of numpy arrays (the old
    blocks alone were 131 MB)."""
    import tracemalloc

    monkeypatch.setenv("MIPAGG_MEMORY_LIMIT", "24G")
    for method in ("md", "md-mhm"):
        assert max_records(method, 10, 3) is None
        assert estimate_bytes(method, 100_000, 10, 3) < 2**30
        check_memory(method, 1_000_000, 10, 3)
    X = np.random.default_rng(0).normal(size=(8_000, 10))
    md_groups(X[:100], 3)                               # compile outside the count
    tracemalloc.start()
    try:
        groups = md_groups(X, 3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(len(g) for g in groups) == 8_000
    assert peak < 40 * 2**20


def test_portfolio_skips_what_does_not_fit(monkeypatch):
    monkeypatch.setenv("MIPAGG_MEMORY_LIMIT", "300M")
    X = simu(2500, 3, seed=6).X
    r = portfolio(X, 3, time_limit=3, seed=0, methods=["mdav-mhm", "bp"])
    reasons = {s["method"]: s["reason"] for s in r.skipped}
    assert reasons["bp"].startswith("memory: ") and "would need about" in reasons["bp"]
    assert r.best_method == "mdav-mhm" and r.partition.is_feasible(3)


def test_cli_refusal_is_one_line_exit_2(tmp_path):
    path = tmp_path / "d.csv"
    np.savetxt(path, simu(3000, 3, seed=1).X, delimiter=",", header="a,b,c", comments="")
    env = {**os.environ, "MIPAGG_MEMORY_LIMIT": "400M", "PYTHONPATH": ROOT}
    out = subprocess.run([sys.executable, "-m", "mipagg.cli", "run", str(path), "-k", "3",
                          "--method", "cg", "--output", str(tmp_path / "o.csv")],
                         capture_output=True, text=True, env=env, timeout=600, check=False)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("mipagg: error: method 'cg' on n = 3,000 records would need")
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert not (tmp_path / "o.csv").exists()


# -------------------------------------------------------------------- signals

@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    """30 000 × 10 records from the generators (never the CASC files)."""
    path = tmp_path_factory.mktemp("big") / "w.csv"
    np.savetxt(path, simu(30_000, 10, seed=1).X, delimiter=",", fmt="%.6f",
               header=",".join(f"a{i}" for i in range(10)), comments="")
    return path


def _interrupt(path, args, wait_line=True, wait=4.0):
    """Start ``mipagg run``, wait for its first progress line (at most ``wait``
    seconds), send SIGINT; returns (exit status or None, seconds from the
    signal to the exit, stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mipagg.cli", "run", str(path), "-k", "5", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": ROOT},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = ""
    if not wait_line:
        time.sleep(wait)
    elif select.select([proc.stderr], [], [], wait)[0]:    # a progress line, or ``wait`` s
        seen = proc.stderr.readline()
    if proc.poll() is None:
        time.sleep(0.5)                   # well inside the long loop
    if proc.poll() is not None:            # finished (or refused) before the signal
        err = proc.communicate()[1]
        return proc.returncode, None, seen + err
    t = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    try:
        err = proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        err = proc.communicate()[1]
        return None, 60.0, seen + err
    return proc.returncode, time.perf_counter() - t, seen + err


def test_ctrl_c_stops_lin_kernighan_at_once(big_csv):
    """mdav-lk-mhm on 30 000 records: Ctrl-C during the LK search (the MDAV
    path takes about a second, LK minutes) exits 130 within 2 s."""
    code, after, err = _interrupt(big_csv, ["--method", "mdav-lk-mhm"], wait_line=False,
                                  wait=8.0)
    assert code == 130 and after is not None and after < 2.0, (code, after, err)
    assert "interrupted" in err and "Traceback" not in err


LONG = [m for m in METHODS if m != "mdav-lk-mhm"]


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--method", m] for m in LONG]
                         + [["--method", "mdav", "--improve", "local"],
                            ["--method", "mdav", "--improve", "rcs"],
                            ["--method", "tsp-mhm", "--tour", "lk"],
                            ["--method", "compress", "--c", "4"]], ids=" ".join)
def test_ctrl_c_stops_every_long_method(big_csv, args):
    """Every method on 30 000 records: SIGINT a few seconds in gives exit 130
    within 2 s — or the run had already ended (0) or was refused (2, memory)."""
    code, after, err = _interrupt(big_csv, args, wait_line=False, wait=6.0)
    if after is None:
        assert code in (0, 2), err
        if code == 2:
            assert "would need about" in err and "Traceback" not in err
        return
    assert after < 2.0, (code, after, err)
    # 130; or the run ended (0) or was refused (2) in the instant the signal was sent
    assert code == 130 or (code in (0, 2) and "Traceback" not in err), (code, err)
    assert "Traceback" not in err
