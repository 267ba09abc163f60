"""The work a saved tree has left, from a sample of its open subtrees
(mipagg.exact.treesample, ``mipagg tree --sample``): a part checkpoint
resumes exactly its nodes' subtrees, whose best partition over all open
nodes is the optimum; the estimate of a sample of every open node is exact;
bad requests are refused before any work."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from _trees import TREE_ONLY, file_tree, stopped_tree

from mipagg.errors import ParameterError
from mipagg.exact import checkpoint, treeparts, treesample
from mipagg.exact.bounds import node_cutoff
from mipagg.exact.bp import branch_and_price


@pytest.fixture(scope="module")
def stopped(census, tmp_path_factory):
    return stopped_tree(census, tmp_path_factory.mktemp("stopped"))


def test_a_subset_checkpoint_resumes_exactly_its_nodes(stopped, tmp_path):
    """Each open node alone: the subset holds that node (bound, depth, pairs)
    and the rest of the checkpoint; its subtree closes; the best partition
    over all the subtrees is the optimum, and none is below it."""
    X, path, opt = stopped
    ck = checkpoint.load(path)
    best = ck.meta["incumbent_sse"]
    for i, nd in enumerate(ck.nodes):
        one = checkpoint.load(treeparts.subset(path, [i], tmp_path / f"n{i}.npz"))
        (got,) = one.nodes
        assert (got.bound, got.depth, got.together, got.apart) == \
            (nd.bound, nd.depth, nd.together, nd.apart)
        assert one.meta.pop("part")["nodes"] == 1
        assert len(one.columns) == len(ck.columns) and one.meta == ck.meta
        r = branch_and_price(X, 3, resume=tmp_path / f"n{i}.npz", **TREE_ONLY)
        assert r.status == "part_closed" and r.sse >= opt - 1e-7
        best = min(best, r.sse)
    assert best == pytest.approx(opt, abs=1e-7)


def test_a_sample_of_every_open_node_has_no_sampling_error(stopped):
    X, path, opt = stopped
    ck = checkpoint.load(path)
    live = checkpoint.summary(ck)["open_nodes"]
    seen = []
    est = treesample.sample_subtrees(X, 3, path, live, seed=1, options=TREE_ONLY,
                                     progress=lambda j, t: seen.append((j, t.node)))
    assert [j for j, _ in seen] == list(range(live))
    assert est.complete and len(est.subtrees) == live == est.open_nodes
    nodes, se = est.nodes
    assert nodes == pytest.approx(sum(t.nodes for t in est.subtrees)) and se == 0
    assert est.seconds[1] == 0 and est.seconds[0] == pytest.approx(
        sum(t.seconds for t in est.subtrees))
    assert all(t.nodes >= 1 for t in est.subtrees)
    # a subtree holds a better partition exactly when the incumbent is not optimal
    assert est.better == (ck.meta["incumbent_sse"] > opt + 1e-7)
    s = est.summary()
    assert s["complete"] and s["nodes_left"] == nodes and len(s["subtrees"]) == live


def test_the_draw_is_seeded_and_below_the_cutoff(stopped):
    _, path, _ = stopped
    ck = checkpoint.load(path)
    cutoff = node_cutoff(ck.meta["incumbent_sse"], 1e-6)
    live = sum(nd.bound < cutoff for nd in ck.nodes)
    a, b = treesample.draw(ck, 2, seed=5), treesample.draw(ck, 2, seed=5)
    assert np.array_equal(a, b) and len(set(a.tolist())) == 2
    assert all(ck.nodes[i].bound < cutoff for i in a)
    assert sorted(treesample.draw(ck, live, seed=0).tolist()) == \
        [i for i, nd in enumerate(ck.nodes) if nd.bound < cutoff]
    for bad in (0, live + 1):
        with pytest.raises(ParameterError, match="between 1 and"):
            treesample.draw(ck, bad, seed=0)
    ck.nodes = []
    with pytest.raises(ParameterError, match="closed"):
        treesample.draw(ck, 1, seed=0)


def test_a_draw_among_nodes_with_or_without_a_basis_splits_the_open_nodes(stopped):
    """``among`` draws among the open nodes the checkpoint keeps a master basis
    for, or the others; together they are every open node."""
    _, path, _ = stopped
    ck = checkpoint.load(path)
    live = ck.live()
    has = (np.zeros(live.size, bool) if ck.node_basis is None
           else ck.node_basis[live] >= 0)
    for among, want in (("with-basis", live[has]), ("without-basis", live[~has])):
        if want.size:
            assert np.array_equal(treesample.draw(ck, want.size, 0, among), np.sort(want))
            refused = f"between 1 and the {want.size} open nodes \\({among}\\)"
        else:
            refused = f"no open node below its incumbent \\({among}\\), nothing"
        with pytest.raises(ParameterError, match=refused):
            treesample.draw(ck, want.size + 1, 0, among)
    with pytest.raises(ParameterError, match="among must be"):
        treesample.draw(ck, 1, 0, "some")


def test_bad_requests_are_refused_before_any_work(stopped):
    X, path, _ = stopped
    with pytest.raises(ParameterError, match="other data"):
        treesample.sample_subtrees(X[:-1], 3, path, 1)
    with pytest.raises(ParameterError, match="other data"):
        treesample.sample_subtrees(X, 4, path, 1)
    with pytest.raises(ParameterError, match="positive"):
        treesample.sample_subtrees(X, 3, path, 1, time_limit=0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1e4), min_size=2, max_size=30), st.integers(0, 50))
@example([5462.071494767597] * 3, 1)    # equal times: their mean is not exactly each of them
def test_the_estimate_is_the_scaled_mean_with_the_corrected_error(values, extra):
    N = len(values) + extra
    est = treesample.SubtreeEstimate(N, 0, 1.0, [
        treesample.Subtree(i, 0.0, 1, True, 1, v, 1.0) for i, v in enumerate(values)])
    total, se = est.seconds
    m, v = len(values), np.asarray(values)
    assert total == pytest.approx(N * v.mean())
    assert se == pytest.approx(N * v.std(ddof=1) / math.sqrt(m) * math.sqrt((N - m) / N),
                               abs=1e-9)
    assert (se == 0) == (extra == 0 or np.ptp(v) == 0)


def test_mipagg_tree_sample_prints_the_estimate(tmp_path, capsys):
    from mipagg.cli import main

    data, ck = file_tree(tmp_path)
    opts = ["--option=node_close_max_columns=0", "--option=cuts=false"]
    assert main(["tree", str(ck), "--data", str(data), "--sample", "2", "--seed", "1",
                 "--json"] + opts) == 0
    out = capsys.readouterr()
    s = json.loads(out.out)["sample"]
    assert s["sample"] == 2 and len(s["subtrees"]) == 2 and s["seed"] == 1
    assert s["open_nodes"] >= 2 and s["nodes_left"] > 0
    assert out.err.count("mipagg tree: subtree") == 2
    assert main(["tree", str(ck), "--data", str(data), "--sample", "1", "--quiet"] + opts) == 0
    text = capsys.readouterr().out
    assert "sampled 1 of the" in text and "work left, estimated from the sample" in text
    for args, msg in ((["--sample", "1"], "needs --data"),
                      (["--data", str(data), "--option=cuts=false"], "give --sample"),
                      (["--data", str(data), "--sample", "1", "--option=bogus=1"], "KEY=VALUE"),
                      (["--data", str(data), "--sample", "99"], "between 1 and")):
        assert main(["tree", str(ck)] + args) == 2
        assert msg in capsys.readouterr().err
