"""A checkpoint split into parts (mipagg.exact.treeparts, ``mipagg tree
--split/--combine``): the parts cover the open nodes once each; a run
resumed from a part reports ``part_closed`` and no bound for the problem;
the parts' runs together prove the brute-force optimum; mixed-up parts are
refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _trees import TREE_ONLY, file_tree, stopped_tree

from mipagg.errors import DataError, ParameterError
from mipagg.exact import checkpoint, treeparts
from mipagg.exact.bp import branch_and_price
from mipagg.outputs import OutputError


@pytest.fixture(scope="module")
def stopped(census, tmp_path_factory):
    return stopped_tree(census, tmp_path_factory.mktemp("stopped"))


def _key(nd):
    return (nd.bound, nd.depth, nd.together, nd.apart)


@pytest.mark.parametrize("seed", [None, 7])
def test_the_parts_cover_the_open_nodes_once(stopped, tmp_path, seed):
    _, path, _ = stopped
    ck = checkpoint.load(path)
    paths = treeparts.split(path, 3, tmp_path / "p.npz", seed=seed)
    assert [p.name for p in paths] == ["p-1of3.npz", "p-2of3.npz", "p-3of3.npz"]
    parts = [checkpoint.load(p) for p in paths]
    got = sorted(_key(nd) for part in parts for nd in part.nodes)
    assert got == sorted(_key(nd) for nd in ck.nodes)
    sizes = [len(part.nodes) for part in parts]
    assert max(sizes) - min(sizes) <= 1
    for i, part in enumerate(parts, 1):
        tag = part.meta.pop("part")
        assert (tag["index"], tag["of"], tag["seed"]) == (i, 3, seed)
        assert tag["source_open_nodes"] == len(ck.nodes) and tag["nodes"] == sizes[i - 1]
        assert part.meta == ck.meta and len(part.columns) == len(ck.columns)
    if seed is None:        # dealt by bound: part 1 holds the least bound
        assert min(nd.bound for nd in parts[0].nodes) == ck.lower_bound


def test_the_parts_runs_prove_the_optimum_together(stopped, tmp_path):
    X, path, opt = stopped
    paths = treeparts.split(path, 3, tmp_path / "p")
    done = []
    for i, p in enumerate(paths, 1):
        out = tmp_path / f"done{i}.npz"
        r = branch_and_price(X, 3, resume=p, checkpoint=out, **TREE_ONLY)
        assert r.status == "part_closed" and not r.success and r.lower_bound is None
        assert r.part["index"] == i and r.part["closed"]
        assert r.part["lower_bound"] >= opt - 1e-7 and r.sse >= opt - 1e-7
        assert checkpoint.load(out).meta["part"]["index"] == i      # still tagged
        done.append(out)
    c = treeparts.combine(done)
    assert c["proven"] and c["parts"] == 3
    assert c["incumbent_sse"] == pytest.approx(opt, abs=1e-7) == c["lower_bound"]
    # before the last part has run, its open nodes bound the problem
    c = treeparts.combine(done[:2] + [paths[2]])
    last = checkpoint.load(paths[2])
    assert not c["proven"] and not c["rows"][2]["closed"]
    assert c["lower_bound"] == pytest.approx(min(min(nd.bound for nd in last.nodes),
                                                 c["incumbent_sse"]))
    assert c["lower_bound"] <= opt + 1e-7


def test_a_part_stopped_by_a_limit_reports_its_own_bound_only(stopped, tmp_path):
    X, path, opt = stopped
    p = treeparts.split(path, 1, tmp_path / "whole")[0]
    r = branch_and_price(X, 3, resume=p, node_limit=14, checkpoint=tmp_path / "a.npz",
                         **TREE_ONLY)
    assert r.status == "node_limit" and r.lower_bound is None and r.gap is None
    assert not r.part["closed"] and r.part["lower_bound"] <= opt + 1e-7
    assert r.summary()["part"]["of"] == 1
    s = checkpoint.summary(checkpoint.load(tmp_path / "a.npz"))
    assert s["part"]["index"] == 1 and s["open_nodes"] >= 1


def test_mixed_up_parts_are_refused(stopped, tmp_path):
    X, path, _ = stopped
    a = treeparts.split(path, 2, tmp_path / "a")
    b = treeparts.split(path, 3, tmp_path / "b")
    with pytest.raises(DataError, match=r"missing \[2\]"):
        treeparts.combine(a[:1])
    with pytest.raises(DataError, match="given twice"):
        treeparts.combine([a[0], a[1], a[1]])
    with pytest.raises(DataError, match="another split"):
        treeparts.combine([a[0], b[1]])
    with pytest.raises(DataError, match="not a part"):
        treeparts.combine([path])
    with pytest.raises(ParameterError, match="already a part"):
        treeparts.split(a[0], 2, tmp_path / "c")
    with pytest.raises(ParameterError, match="between 1 and"):
        treeparts.split(path, 10_000, tmp_path / "d")
    # an output that is the input is refused before any part is written
    victim = tmp_path / "e-2of2.npz"
    victim.write_bytes(path.read_bytes())
    with pytest.raises(OutputError, match="input"):
        treeparts.split(victim, 2, tmp_path / "e")
    assert not (tmp_path / "e-1of2.npz").exists()


def test_mipagg_tree_splits_and_combines(tmp_path, capsys):
    from mipagg.cli import main

    data, ck = file_tree(tmp_path)
    assert main(["tree", str(ck), "--split", "2", "--out", str(tmp_path / "p")]) == 0
    assert "wrote 2 parts" in capsys.readouterr().out
    parts = [tmp_path / "p-1of2.npz", tmp_path / "p-2of2.npz"]
    assert main(["tree", str(parts[0])]) == 0
    assert "part 1 of 2 of t.npz" in capsys.readouterr().out
    done = []
    for i, p in enumerate(parts, 1):
        out = tmp_path / f"done{i}.npz"
        assert main(["run", str(data), "-k", "3", "--method", "bp", "--quiet", "--json",
                     "--resume", str(p), "--checkpoint", str(out)]) == 0
        run = json.loads(capsys.readouterr().out)
        assert run["status"] == "part_closed"
        done.append(str(out))
    assert main(["tree", "--combine"] + done) == 0
    assert "every part is closed" in capsys.readouterr().out
    assert main(["tree", "--combine", "--json"] + done[:1] + [str(parts[1])]) == 0
    c = json.loads(capsys.readouterr().out)
    assert not c["proven"] and c["rows"][1]["open_nodes"] >= 1
    for args, msg in ((["tree", str(ck), str(ck)], "several only with --combine"),
                      (["tree", str(ck), "--split", "2"], "--out PREFIX"),
                      (["tree", str(ck), "--out", "x"], "--out names the parts"),
                      (["tree", "--combine", "--split", "2", str(ck)], "give one of"),
                      (["tree", str(ck), "--keep-bases", "2"], "--out PATH"),
                      (["tree", str(ck), "--keep-bases", "2", "--out", str(ck)], "input"),
                      (["tree", str(ck), "--keep-bases", "-1", "--out", "x"], "at least 0")):
        assert main(args) == 2
        assert msg in capsys.readouterr().err


def test_two_workers_close_a_part_as_one_does(stopped, tmp_path):
    X, path, _ = stopped
    p = treeparts.split(path, 2, tmp_path / "w")[0]
    one = branch_and_price(X, 3, resume=p, **TREE_ONLY)
    two = branch_and_price(X, 3, resume=p, workers=2, checkpoint=tmp_path / "w2.npz",
                           **TREE_ONLY)
    assert one.status == two.status == "part_closed" and two.lower_bound is None
    assert two.sse == pytest.approx(one.sse, abs=1e-9)
    assert two.part["lower_bound"] == pytest.approx(one.part["lower_bound"], abs=1e-7)
    assert checkpoint.load(tmp_path / "w2.npz").meta["part"]["index"] == 1


def test_a_part_gives_a_node_without_a_basis_its_nearest_relatives(stopped, tmp_path):
    """Nodes beyond ``checkpoint_bases`` in the source tree start, in a part,
    from the basis of their nearest relative in the whole tree (as a resume of
    the whole tree would), not cold; the parts still prove the optimum."""
    from mipagg.exact.bases import nearest_bases

    X, _, opt = stopped
    src = tmp_path / "few.npz"
    branch_and_price(X, 3, node_limit=12, checkpoint=src, checkpoint_bases=1, **TREE_ONLY)
    ck = checkpoint.load(src)
    assert (ck.node_basis >= 0).sum() == 1 < len(ck.nodes)
    want = nearest_bases([nd.together for nd in ck.nodes], [nd.apart for nd in ck.nodes],
                         ck.node_basis, len(X))
    best = []
    for path in treeparts.split(src, 2, tmp_path / "p.npz", seed=3):
        part = checkpoint.load(path)
        idx = [next(i for i, nd in enumerate(ck.nodes) if _key(nd) == _key(m))
               for m in part.nodes]
        assert (part.node_basis >= 0).all() and part.node_basis.tolist() == want[idx].tolist()
        r = branch_and_price(X, 3, resume=path, **TREE_ONLY)
        assert r.status == "part_closed" and r.warm_starts == r.nodes - r.resumed_nodes
        best.append(r.sse)
    assert min(best) == pytest.approx(opt, abs=1e-7)


@pytest.mark.parametrize("keep", [0, 2, 10_000])
def test_a_thinned_checkpoint_keeps_the_least_bound_nodes_bases_and_proves_the_optimum(
        stopped, tmp_path, keep):
    """``thin`` keeps the bases of the ``keep`` open nodes of least bound,
    unchanged, and nothing else changes but the ``thinned`` record; resumed,
    the thinned tree proves the optimum that the full one does."""
    X, path, opt = stopped
    ck = checkpoint.load(path)
    had = np.flatnonzero(ck.node_basis >= 0)
    assert had.size >= 3        # the test thins something
    out = tmp_path / "thin.npz"
    count = treeparts.thin(path, out, keep)
    th = checkpoint.load(out)
    kept = had[np.argsort([ck.nodes[i].bound for i in had], kind="stable")][:keep]
    assert sorted(np.flatnonzero(th.node_basis >= 0).tolist()) == sorted(kept.tolist())
    for i in kept.tolist():
        for new, old in zip(th.bases[th.node_basis[i]], ck.bases[ck.node_basis[i]]):
            assert np.array_equal(new, old)
    distinct = np.unique(ck.node_basis[kept]).size
    assert count == {"node_bases": [had.size, kept.size], "bases": [len(ck.bases), distinct]}
    assert len(th.bases) == distinct
    record = th.meta.pop("thinned")
    assert record == {"source_file": "t.npz", "keep": keep, **count}
    assert th.meta == ck.meta and [_key(nd) for nd in th.nodes] == [_key(nd) for nd in ck.nodes]
    assert len(th.columns) == len(ck.columns) and th.cuts == ck.cuts
    r = branch_and_price(X, 3, resume=out, **TREE_ONLY)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)


def test_mipagg_tree_thins_a_checkpoint(stopped, tmp_path, capsys):
    from mipagg.cli import main

    _, path, _ = stopped
    out = tmp_path / "small.npz"
    assert main(["tree", str(path), "--keep-bases", "1", "--out", str(out), "--json"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert t["node_bases"][1] == 1 and t["bases"][1] == 1
    assert checkpoint.summary(checkpoint.load(out))["node_bases"] == 1
    assert main(["tree", str(out)]) == 0
    assert "thinned from t.npz (--keep-bases 1;" in capsys.readouterr().out
    junk = tmp_path / "junk.npz"
    junk.write_text("not an archive")
    with pytest.raises(DataError, match="not a bp checkpoint"):
        treeparts.thin(junk, tmp_path / "x.npz", 1)
    assert not (tmp_path / "x.npz").exists()
