"""Checkpoints of the bp tree (mipagg.exact.checkpoint): a tree stopped by a
limit and resumed from its checkpoint reaches the brute-force optimum, the
checkpoint's bound is certified, and bad checkpoints are refused before
any work."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _bruteforce import optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings, strategies as st

from mipagg.cli_tree import _bases_line, _lines
from mipagg.errors import DataError, ParameterError
from mipagg.exact import checkpoint
from mipagg.exact.bounds import node_cutoff
from mipagg.exact.bp import branch_and_price
from mipagg.outputs import OutputError
from mipagg.subsets import subset

TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0, threads=1)
# the most-fractional rule: tree24 in about 45 nodes (the default rule: 30–40), for node limits
DEEP = dict(TREE_ONLY, branching="fractional")



@settings(max_examples=12, deadline=None)
@given(tiny_instances(min_n=8), st.integers(1, 4))
def test_a_resumed_tree_reaches_the_brute_force_optimum(tmp_path_factory, inst, limit):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    path = tmp_path_factory.mktemp("ck") / "tree.npz"
    first = branch_and_price(X, k, node_limit=limit, checkpoint=path, **TREE_ONLY)
    assert first.checkpoint == str(path.resolve())
    ck = checkpoint.load(path)
    assert ck.meta["counts"]["nodes"] == first.nodes
    # listed nodes at or above the incumbent's cutoff (queued before it fell) are not open
    assert ck.live().size == first.open_nodes
    if ck.live().size:                  # certified: no partition is below the open bounds
        assert ck.lower_bound <= opt + 1e-7
        assert first.lower_bound == pytest.approx(min(ck.lower_bound, first.sse), abs=1e-9)
    else:
        assert first.status == "optimal"
    second = branch_and_price(X, k, resume=path, **TREE_ONLY)
    assert second.status == "optimal"
    assert second.sse == pytest.approx(opt, abs=1e-7)
    assert second.lower_bound == pytest.approx(opt, abs=1e-7)
    assert second.partition.is_feasible(k)
    assert second.resumed_nodes == first.nodes and second.nodes >= first.nodes


@pytest.mark.parametrize("fmt", [1, 2])
def test_an_older_checkpoint_loads_and_resumes_as_written(tree24, tmp_path, fmt):
    """Checkpoints of format 1 (before 2026-12-02: indices as int64, like the
    older docs/results/trees files) and 2 (before 2026-12-03: the nodes'
    pairs flat, no table) read as they were: the same nodes, pool and bases
    as the current file, and the resumed tree reaches the optimum."""
    X, opt = tree24
    path = tmp_path / "new.npz"
    branch_and_price(X, 3, node_limit=10, checkpoint=path, **TREE_ONLY)
    with np.load(path, allow_pickle=False) as z:
        assert {"tog_table", "apart_table"} <= set(z.files)
    arrays = checkpoint.read(path)
    assert "apart_table" not in arrays and arrays["apart"].size == arrays["apart_ptr"][-1]
    meta = json.loads(str(arrays["meta"]))
    if fmt == 1:
        for name in ("col_flat", "tog", "apart"):
            arrays[name] = arrays[name].astype(np.int64)
        arrays["basis_cols"] = arrays["basis_cols"].astype(np.int32)
        arrays["basis_art"] = arrays["basis_art"].astype(np.int32)
    arrays["meta"] = np.array(json.dumps(meta | {"format": fmt}))
    np.savez_compressed(tmp_path / "old.npz", **arrays)
    new, old = checkpoint.load(path), checkpoint.load(tmp_path / "old.npz")
    assert old.meta["format"] == fmt and new.meta["format"] == checkpoint.FORMAT == 3
    assert [(nd.bound, nd.together, nd.apart) for nd in old.nodes] == \
        [(nd.bound, nd.together, nd.apart) for nd in new.nodes]
    assert sum(len(nd.apart) for nd in new.nodes) > 0
    assert all(np.array_equal(a, b) and a.dtype == b.dtype == np.int64
               for a, b in zip(old.columns, new.columns))
    assert len(old.bases) == len(new.bases) >= 1
    for a, b in zip(old.bases, new.bases):
        assert all(np.array_equal(u, v) for u, v in zip(a, b))
    r = branch_and_price(X, 3, resume=tmp_path / "old.npz", **TREE_ONLY)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)


def test_a_tree_resumed_twice_gives_the_optimum_of_one_run(tree24, tmp_path):
    X, opt = tree24
    whole = branch_and_price(X, 3, **TREE_ONLY)
    a = branch_and_price(X, 3, node_limit=15, checkpoint=tmp_path / "a.npz", **TREE_ONLY)
    b = branch_and_price(X, 3, node_limit=25, resume=tmp_path / "a.npz",
                         checkpoint=tmp_path / "b.npz", **TREE_ONLY)
    c = branch_and_price(X, 3, resume=tmp_path / "b.npz", **TREE_ONLY)
    assert whole.status == c.status == "optimal"
    assert a.status == b.status == "node_limit"
    assert (a.nodes, b.resumed_nodes, b.nodes, c.resumed_nodes) == (15, 15, 25, 25)
    assert a.lower_bound <= b.lower_bound <= c.lower_bound    # the bound never falls
    assert c.sse == pytest.approx(opt, abs=1e-7) and whole.sse == pytest.approx(opt, abs=1e-7)
    assert c.lower_bound == pytest.approx(opt, abs=1e-7)
    trends = []
    for name in ("a.npz", "b.npz"):      # the bound trend goes on across the resume
        with np.load(tmp_path / name, allow_pickle=False) as z:
            trends.append(json.loads(str(z["meta"]))["bound_trend"])
    assert trends[0] and trends[1][:len(trends[0])] == trends[0]
    assert trends[0][-1][0] == 15 and trends[1][-1][0] == 25


def test_a_resumed_tree_keeps_reliability_branchings_pseudocosts(tree24, tmp_path, capsys):
    """The checkpoint holds the pseudocost table (one observation per two LP
    re-solves), ``mipagg tree`` reports it, and a resumed run adds its probes
    to it; a run with another rule resumes from it too."""
    from mipagg.cli import main

    X, opt = tree24
    rel = dict(TREE_ONLY, branching="reliability:4")
    a = branch_and_price(X, 3, node_limit=15, checkpoint=tmp_path / "a.npz", **rel)
    ck = checkpoint.load(tmp_path / "a.npz")
    pairs, sums, probes = ck.pseudocosts
    assert probes.sum() * 2 == a.strong_evaluations > 0
    s = checkpoint.summary(ck)
    assert (s["pseudocost_pairs"], s["pseudocost_probes"]) == (probes.size, probes.sum())
    assert s["branching"] == "reliability:4"          # named even when it is the default
    assert main(["tree", str(tmp_path / "a.npz")]) == 0
    out = capsys.readouterr().out
    assert f"{probes.size:,} pairs, {probes.sum():,} probes" in out
    assert "branching rule reliability:4" in out
    b = branch_and_price(X, 3, node_limit=30, resume=tmp_path / "a.npz",
                         checkpoint=tmp_path / "b.npz", **rel)
    pairs_b, sums_b, probes_b = checkpoint.load(tmp_path / "b.npz").pseudocosts
    assert probes_b.sum() * 2 == a.strong_evaluations + b.strong_evaluations
    table = {tuple(p): (t, n) for p, t, n in zip(pairs_b.tolist(), sums_b.tolist(), probes_b)}
    for p, t, n in zip(pairs.tolist(), sums.tolist(), probes):
        assert table[tuple(p)][1] >= n and table[tuple(p)][0][0] >= t[0] - 1e-12
    fractional = dict(TREE_ONLY, branching="fractional")     # a rule without pseudocosts
    c = branch_and_price(X, 3, resume=tmp_path / "b.npz", **fractional)
    assert c.status == "optimal" and c.sse == pytest.approx(opt, abs=1e-7)
    plain = branch_and_price(X, 3, node_limit=15, checkpoint=tmp_path / "p.npz", **fractional)
    assert plain.status == "node_limit" and checkpoint.load(tmp_path / "p.npz").pseudocosts is None


def test_a_resumed_tree_keeps_its_node_closing_counts(tree24, tmp_path):
    """Partial node closings only (``node_close_max_columns`` 0): the counts
    of the checkpointed tree go on in the resumed one."""
    X, opt = tree24
    options = dict(TREE_ONLY, node_close_partial=200)
    a = branch_and_price(X, 3, node_limit=6, checkpoint=tmp_path / "a.npz", **options)
    b = branch_and_price(X, 3, resume=tmp_path / "a.npz", **options)
    same = branch_and_price(X, 3, node_limit=6, resume=tmp_path / "a.npz", **options)
    with np.load(tmp_path / "a.npz", allow_pickle=False) as z:
        closer = json.loads(str(z["meta"]))["closer"]
    assert a.node_partial_closings >= 1
    assert (closer["tried"], closer["partial"]) == (a.node_closings, a.node_partial_closings)
    counts = ("nodes", "node_closings", "node_partial_closings", "node_closing_incumbents")
    assert [getattr(same, c) for c in counts] == [getattr(a, c) for c in counts]
    assert b.node_partial_closings > a.node_partial_closings
    assert b.status == "optimal" and b.sse == pytest.approx(opt, abs=1e-7)


def test_the_file_holds_the_tree(tree24, tmp_path):
    X, _ = tree24
    path = tmp_path / "t.npz"
    r = branch_and_price(X, 3, node_limit=10, checkpoint=path, cuts=True, max_cut_rounds=3,
                         close_gap=False, mip_time=0, threads=1)
    with np.load(path, allow_pickle=False) as z:      # plain arrays: loading runs no code
        meta = json.loads(str(z["meta"]))
        labels = z["labels"]
    assert meta["format"] == checkpoint.FORMAT and (meta["n"], meta["k"]) == (24, 3)
    assert meta["fingerprint"] == checkpoint.fingerprint(X, 3)
    assert meta["incumbent_sse"] == pytest.approx(r.sse)
    with np.load(path, allow_pickle=False) as z:      # format 2: 24 records fit int8
        assert {z[name].dtype for name in ("col_flat", "tog", "apart")
                if z[name].size} == {np.dtype(np.int8)}
    ck = checkpoint.load(path)
    assert len(ck.columns) == r.columns
    retired = ck.meta["counts"]["retired_cuts"]      # node cuts no saved basis holds tight
    assert len(ck.cuts) + retired == r.cuts
    assert all(len(set(c)) == len(c) for c in ck.columns)
    assert labels.shape == (24,)
    assert ck.root_stop.duals is not None and ck.root_stop.duals.shape == (24,)
    for nd in ck.nodes:                 # branching pairs are pairs of records
        for i, j in nd.together + nd.apart:
            assert 0 <= i < j < 24


def test_periodic_checkpoints_are_written_between_nodes(tree24, tmp_path, monkeypatch):
    X, _ = tree24
    calls = []
    real = checkpoint.save
    monkeypatch.setattr(checkpoint, "save", lambda tree, path: calls.append(
        len(tree.open)) or real(tree, path))
    branch_and_price(X, 3, node_limit=12, checkpoint=tmp_path / "p.npz",
                     checkpoint_every=1e-9, **TREE_ONLY)
    assert len(calls) == 12                 # after each of the 11 tree nodes, and at the end


def test_no_checkpoint_when_the_root_did_not_finish(census, tmp_path):
    s = subset(census, 150, "random", 1)
    path = tmp_path / "none.npz"
    with pytest.warns(RuntimeWarning, match="root did not finish"):
        r = branch_and_price(s.X, 5, time_limit=0.05, checkpoint=path, threads=1)
    assert r.checkpoint is None and not path.exists()


def test_bad_checkpoints_are_refused_before_any_work(tree24, tmp_path):
    X, _ = tree24
    path = tmp_path / "a.npz"
    branch_and_price(X, 3, node_limit=3, checkpoint=path, **TREE_ONLY)
    with pytest.raises(DataError, match="other data or another k"):
        branch_and_price(X, 4, resume=path, **TREE_ONLY)
    with pytest.raises(DataError, match="other data or another k"):
        branch_and_price(X[::-1], 3, resume=path, **TREE_ONLY)
    with pytest.raises(DataError, match="does not exist"):
        branch_and_price(X, 3, resume=tmp_path / "missing.npz", **TREE_ONLY)
    junk = tmp_path / "junk.npz"
    junk.write_text("group\n0\n")
    with pytest.raises(DataError, match="not a bp checkpoint"):
        branch_and_price(X, 3, resume=junk, **TREE_ONLY)
    with np.load(path, allow_pickle=False) as z:
        arrays = {name: z[name] for name in z.files}
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps(meta | {"format": 99}))
    np.savez(tmp_path / "future.npz", **arrays)
    with pytest.raises(DataError, match="format 99"):
        branch_and_price(X, 3, resume=tmp_path / "future.npz", **TREE_ONLY)
    arrays.update(meta=np.array(json.dumps(meta)), pc_pairs=np.zeros((2, 2), np.int64),
                  pc_sums=np.zeros((3, 2)), pc_probes=np.ones(2, np.int64))
    np.savez(tmp_path / "torn.npz", **arrays)
    with pytest.raises(DataError, match="damaged.*pseudocost"):
        branch_and_price(X, 3, resume=tmp_path / "torn.npz", **TREE_ONLY)
    for pc in ("pc_pairs", "pc_sums", "pc_probes"):
        arrays.pop(pc)
    arrays["node_basis"] = np.zeros(arrays["node_bound"].size + 1, np.int32)
    np.savez(tmp_path / "bases.npz", **arrays)
    with pytest.raises(DataError, match="damaged.*node bases"):
        branch_and_price(X, 3, resume=tmp_path / "bases.npz", **TREE_ONLY)
    before = path.read_bytes()
    with pytest.raises(OutputError, match="input file"):      # never overwrite the input
        branch_and_price(X, 3, resume=path, checkpoint=path, **TREE_ONLY)
    assert path.read_bytes() == before
    with pytest.raises(OutputError, match="does not exist"):
        branch_and_price(X, 3, checkpoint=tmp_path / "no" / "dir.npz", **TREE_ONLY)
    for bad in ({"checkpoint": ""}, {"checkpoint_every": 0}, {"resume": 3},
                {"checkpoint_bases": -1}, {"checkpoint_bases": 2.5}, {"checkpoint_bases": "all"}):
        with pytest.raises(ParameterError):
            branch_and_price(X, 3, **bad, **TREE_ONLY)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_checkpoint_keeps_the_bases_the_open_nodes_start_from(tree24, tmp_path, workers):
    """The open nodes of least bound keep their parent's final basis
    (``checkpoint_bases`` of them; siblings share one): the first node the
    resumed tree solves starts warm, and without the bases cold; either way
    the resumed tree reaches the optimum.  With workers, the bases come back
    from the worker that solved the parent (the tasks still out keep theirs)."""
    X, opt = tree24
    path, few, none = tmp_path / "a.npz", tmp_path / "few.npz", tmp_path / "none.npz"
    a = branch_and_price(X, 3, node_limit=12, checkpoint=path, workers=workers, **TREE_ONLY)
    branch_and_price(X, 3, node_limit=12, checkpoint=few, checkpoint_bases=3, **TREE_ONLY)
    branch_and_price(X, 3, node_limit=12, checkpoint=none, checkpoint_bases=0, **TREE_ONLY)
    ck = checkpoint.load(path)
    assert a.status == "node_limit" and len(ck.nodes) == a.open_nodes > 2
    assert (ck.node_basis >= 0).all()       # every open node is some parent's child
    assert 0 < len(ck.bases) <= len(ck.nodes)
    rows = len(X) + len(ck.cuts)
    assert all(r.size == rows for _, _, r in ck.bases)
    ck_few = checkpoint.load(few)
    kept = np.flatnonzero(ck_few.node_basis >= 0)
    bounds = np.array([nd.bound for nd in ck_few.nodes])
    assert kept.size == 3 and bounds[kept].max() <= np.delete(bounds, kept).min() + 1e-12
    s = checkpoint.summary(ck_few)
    assert s["node_bases"] == 3 and s["open_nodes"] + s["cut_off_nodes"] == len(ck_few.nodes)
    assert (f"master basis: 3 of {len(ck_few.nodes):,}; a resumed run starts the others "
            "from their nearest relative's") in "\n".join(_lines(s))
    assert "the others" not in _bases_line(checkpoint.summary(ck))
    # the nodes beyond the 3 kept start from a relative's basis: every node warm
    rest = branch_and_price(X, 3, resume=few, **TREE_ONLY)
    assert rest.status == "optimal" and rest.sse == pytest.approx(opt, abs=1e-7)
    assert rest.warm_starts == rest.nodes - rest.resumed_nodes > len(ck_few.nodes) > 3
    ck_none = checkpoint.load(none)
    assert ck_none.node_basis is None
    again = tmp_path / "again.npz"      # nodes without a basis: saved as such
    branch_and_price(X, 3, resume=none, node_limit=12, checkpoint=again, **TREE_ONLY)
    ck_again = checkpoint.load(again)
    assert len(ck_again.nodes) == len(ck_none.nodes) and ck_again.bases == []
    assert (ck_again.node_basis == -1).all()
    for src, warm in ((path, 1), (none, 0)):
        one = branch_and_price(X, 3, resume=src, node_limit=13, **TREE_ONLY)
        assert one.nodes == 13 and one.warm_starts == warm
        r = branch_and_price(X, 3, resume=src, **TREE_ONLY)
        assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)


def test_two_workers_go_on_from_a_serial_checkpoint(tree24, tmp_path):
    X, opt = tree24
    branch_and_price(X, 3, node_limit=10, checkpoint=tmp_path / "s.npz", **TREE_ONLY)
    r = branch_and_price(X, 3, resume=tmp_path / "s.npz", workers=2, **TREE_ONLY)
    assert r.status == "optimal" and r.workers == 2
    assert r.sse == pytest.approx(opt, abs=1e-7)


def test_a_parallel_tree_leaves_a_checkpoint_the_serial_tree_finishes(tree24, tmp_path):
    X, opt = tree24
    a = branch_and_price(X, 3, node_limit=20, workers=2, checkpoint=tmp_path / "w.npz",
                         **TREE_ONLY)
    ck = checkpoint.load(tmp_path / "w.npz")
    assert a.status == "node_limit" and len(ck.nodes) == a.open_nodes > 0
    assert a.lower_bound == pytest.approx(min(ck.lower_bound, a.sse), abs=1e-9)
    assert ck.lower_bound <= opt + 1e-7
    r = branch_and_price(X, 3, resume=tmp_path / "w.npz", **TREE_ONLY)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.resumed_nodes == a.nodes


def test_a_parallel_tree_writes_periodic_checkpoints_with_the_nodes_in_flight(
        tree24, tmp_path, monkeypatch):
    X, opt = tree24
    saved = []
    real = checkpoint.save

    def save(tree, path):
        out = real(tree, path)
        ck = checkpoint.load(path)
        saved.append((len(ck.nodes), len(tree.open), len(tree.in_flight), ck.lower_bound,
                      tree.global_bound()))
        return out

    monkeypatch.setattr(checkpoint, "save", save)
    path = tmp_path / "p.npz"
    a = branch_and_price(X, 3, node_limit=40, workers=2, checkpoint=path,
                         checkpoint_every=1e-9, **DEEP)
    periodic = saved[:-1]
    assert len(periodic) >= 2 and any(inflight for _, _, inflight, _, _ in periodic)
    for nodes, queued, inflight, lb, global_lb in saved:
        assert nodes == queued + inflight           # the tasks still out are saved as open
        assert lb <= opt + 1e-7 and lb == pytest.approx(global_lb, abs=1e-9)
    # resuming from a periodic checkpoint (one with nodes in flight) reaches the optimum
    mid = tmp_path / "mid.npz"
    saved.clear()
    monkeypatch.setattr(checkpoint, "save", lambda tree, p: real(
        tree, mid if tree.in_flight and not mid.exists() else p))
    branch_and_price(X, 3, node_limit=40, workers=2, checkpoint=path, checkpoint_every=1e-9,
                     **DEEP)
    assert mid.exists() and a.status == "node_limit"
    r = branch_and_price(X, 3, resume=mid, **TREE_ONLY)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)


def test_the_command_line_writes_and_resumes(tmp_path, capsys):
    from mipagg.cli import main

    rng = np.random.default_rng(3)
    data = tmp_path / "d.csv"
    np.savetxt(data, rng.lognormal(size=(40, 3)), delimiter=",", header="a,b,c", comments="")
    ck, ck2 = tmp_path / "t.npz", tmp_path / "t2.npz"
    run = ["run", str(data), "-k", "3", "--method", "bp", "--json", "--quiet"]
    assert main(run + ["--checkpoint", str(ck)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["checkpoint"] == str(ck.resolve()) and first["resumed_nodes"] == 0
    assert main(run + ["--resume", str(ck), "--checkpoint", str(ck2)]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["resumed_nodes"] == first["nodes"]
    assert second["sse"] == pytest.approx(first["sse"]) and second["status"] == "optimal"
    assert main(run + ["--resume", str(ck), "--labels", str(ck)]) == 2
    assert "input file" in capsys.readouterr().err
    assert main(run + ["--resume", str(data)]) == 2
    assert "not a bp checkpoint" in capsys.readouterr().err
    assert main(run[:-4] + ["--method", "mdav", "--checkpoint", str(ck2)]) == 2
    assert "--checkpoint" in capsys.readouterr().err


def test_the_summary_and_mipagg_tree_report_the_stopped_tree(tree24, tmp_path, capsys):
    """``checkpoint.summary`` and ``mipagg tree`` give the run's own incumbent,
    bound, gap, counts and tree-size estimate, from the file alone."""
    from mipagg.cli import main

    X, _ = tree24
    path = tmp_path / "t.npz"
    r = branch_and_price(X, 3, node_limit=20, checkpoint=path,     # root cuts only: it stops
                         **dict(TREE_ONLY, cuts=True, max_cut_rounds=1, node_cut_rounds=0))
    s = checkpoint.summary(checkpoint.load(path))
    assert r.status == "node_limit" and s["open_nodes"] == r.open_nodes > 0
    assert s["incumbent_sse"] == pytest.approx(r.sse)
    assert s["lower_bound"] == pytest.approx(r.lower_bound)
    assert s["gap"] == pytest.approx(r.gap) and s["gap_closed"] == pytest.approx(r.gap_closed)
    assert s["open_bound_quantiles"]["min"] == pytest.approx(r.lower_bound)
    assert s["open_bound_quantiles"]["max"] <= r.sse
    assert (s["nodes"], s["max_depth"], s["tree_estimate"]) == (r.nodes, r.max_depth,
                                                                r.tree_estimate)
    assert s["tree_estimate"] > r.nodes
    assert s["nodes_per_second"] > 0 and r.tree_seconds_left > 0
    assert s["seconds_left"] == pytest.approx((r.tree_estimate - r.nodes) / s["nodes_per_second"])
    assert r.bound_trend_nodes is not None and s["bound_trend_nodes"] == r.bound_trend_nodes
    assert s["bound_trend_seconds_left"] == pytest.approx(r.bound_trend_nodes
                                                          / s["nodes_per_second"])
    assert (s["cuts"], s["columns"], s["fixed_pairs"]) == (r.cuts, r.columns, r.fixed_pairs)
    assert sum(s["cuts_by_rows"].values()) == r.cuts
    cutoff = node_cutoff(r.sse, 1e-6)
    live = [nd.bound for nd in checkpoint.load(path).nodes if nd.bound < cutoff]
    assert len(live) == r.open_nodes and s["open_gap"] == pytest.approx(sum(cutoff - b
                                                                           for b in live))
    assert s["open_gap"] >= r.open_nodes * (cutoff - s["open_bound_quantiles"]["max"]) > 0
    assert s["options"]["node_limit"] == 20 and "time_limit" not in s["options"]
    assert main(["tree", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"gap {r.gap:.4f} %" in text and f"open {r.open_nodes:,}" in text
    assert "more at the pace of the run that wrote it" in text
    assert f"{r.bound_trend_nodes:,} more nodes to the cutoff at the bound's recent pace" in text
    assert f"summed gap to the cutoff {s['open_gap']:.4f}" in text
    assert s["node_bases"] == r.open_nodes      # every open node is some parent's child
    assert f"open nodes with a saved master basis: {r.open_nodes:,}" in text
    assert main(["tree", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["lower_bound"] == pytest.approx(r.lower_bound) and doc["checkpoint"] == str(path)
    assert main(["tree", str(tmp_path / "missing.npz")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_the_summary_counts_nodes_above_the_incumbent_as_cut_off(tree24, tmp_path):
    """A checkpoint may list nodes queued before the incumbent fell below their
    bound: they are neither open nor in the estimate, and the bound ignores them."""
    from mipagg.exact.rules import Node

    X, _ = tree24
    path = tmp_path / "t.npz"
    branch_and_price(X, 3, node_limit=20, checkpoint=path, **TREE_ONLY)
    ck = checkpoint.load(path)
    before = checkpoint.summary(ck)
    ub = ck.meta["incumbent_sse"]
    ck.nodes = list(ck.nodes) + [Node(ub + 1.0, -30, 999), Node(ub, -31, 1000)]
    after = checkpoint.summary(ck)
    assert before["open_nodes"] > 0 and before["cut_off_nodes"] == 0
    assert after["open_nodes"] == before["open_nodes"] and after["cut_off_nodes"] == 2
    for key in ("lower_bound", "gap", "tree_estimate", "open_bound_quantiles",
                "open_depth_quantiles"):
        assert after[key] == before[key], key
    ck.nodes = [Node(ub + 1.0, -3, 1)]             # every listed node cut off
    s = checkpoint.summary(ck)
    assert s["open_nodes"] == 0 and s["lower_bound"] == ub and s["gap"] == 0


def test_mipagg_tree_with_the_data_gives_the_il_of_the_run(tmp_path, capsys):
    """``mipagg tree --data`` reports the IL of the incumbent and of the bound
    that ``mipagg gap`` reported for the run that wrote the checkpoint; a file
    the tree was not made from is refused; a closed tree says so."""
    from mipagg.cli import main

    rng = np.random.default_rng(3)
    data, other = tmp_path / "d.csv", tmp_path / "e.csv"
    np.savetxt(data, rng.lognormal(size=(60, 3)), delimiter=",", header="a,b,c", comments="")
    np.savetxt(other, rng.lognormal(size=(60, 3)), delimiter=",", header="a,b,c", comments="")
    ck = tmp_path / "t.npz"
    opts = [f"--option={o}" for o in ("node_limit=4", "cuts=false", "close_gap=false",
                                      "node_close_max_columns=0", "mip_time=0", f"checkpoint={ck}")]
    assert main(["gap", str(data), "--from", "mdav", "-k", "3", "--json", "--quiet"] + opts) == 0
    run = json.loads(capsys.readouterr().out)
    assert run["bound_status"] == "node_limit"
    assert main(["tree", str(ck), "--data", str(data), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["sst"] == pytest.approx(run["sst"])
    assert s["il"] == pytest.approx(run["better_il"]) and s["il_bound"] == pytest.approx(
        run["lower_bound_il"])
    assert main(["tree", str(ck), "--data", str(other)]) == 2
    assert "other values or columns" in capsys.readouterr().err
    closed = tmp_path / "c.npz"
    assert main(["run", str(data), "-k", "3", "--method", "bp", "--quiet",
                 "--checkpoint", str(closed)]) == 0
    capsys.readouterr()
    assert main(["tree", str(closed)]) == 0
    assert "the tree is closed" in capsys.readouterr().out
    assert main(["tree", str(closed), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    # a closed tree proves its incumbent optimal within gap_tol of the nodes cut off
    assert s["open_nodes"] == 0 and s["gap_tol"] == 1e-6
    assert s["pruned_bound"] >= s["incumbent_sse"] * (1 - s["gap_tol"]) - 1e-12


def test_the_progress_line_counts_open_nodes_below_the_cutoff(tree24):
    """The run's progress line counts the open nodes as the result and
    ``mipagg tree`` do: a queued node at or above the incumbent is cut off
    (nor does it count in ``open_gap``, their summed gap to the cutoff)."""
    import io
    import re

    from mipagg.exact.bp import BranchAndPrice
    from mipagg.exact.rules import Node
    from mipagg.exact.settings import BPSettings

    X, _ = tree24
    tree = BranchAndPrice(X, 3, BPSettings(node_limit=12, **TREE_ONLY), verbose=True)
    tree.root_column_generation()
    tree.explore_tree()
    below = len(tree.open_depths())
    assert below > 0 and tree.nodes == 12
    tree.open.push(Node(tree.rounder.best_sse + 1.0, -30, 999, (), ()))
    tree.progress.stream, tree.progress.every = io.StringIO(), 0.0
    tree.report_progress()
    line = tree.progress.stream.getvalue()
    assert int(re.search(r"\bopen (\d+)", line).group(1)) == below == len(tree.open) - 1
    cutoff = tree.cutoff()                  # the node above the cutoff adds nothing
    summed = sum(cutoff - nd.bound for nd in tree.open if nd.bound < cutoff)
    assert float(re.search(r"\bopen_gap (\S+)", line).group(1)) == pytest.approx(summed,
                                                                                  rel=1e-5)
