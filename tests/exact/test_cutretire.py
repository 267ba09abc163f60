"""Cuts retired from checkpoints (mipagg.exact.cutretire): a cut leaves only
when every saved basis holds its slack basic, each basis keeps its other
rows' statuses, an optimal basis stays optimal without the rows it held
slack, and a tree resumed from a checkpoint without them proves the optimum."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cutorder import _triangles

from mipagg.exact import checkpoint
from mipagg.exact.bases import ragged
from mipagg.exact.bp import branch_and_price
from mipagg.exact.cuts import rank1
from mipagg.exact.cutretire import keep_rows, live_cuts, retire
from mipagg.exact.master import MasterProblem, squared_distances

BASIC = 1


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_cut_leaves_only_when_every_basis_holds_it_basic(data):
    """Random bases over n rows and up to ``cuts`` cut rows (a basis taken
    before the last cuts covers fewer): the first ``keep`` cuts stay, a cut
    stays exactly when some basis holds it nonbasic, and each basis keeps
    its partition rows and its kept cut rows, in order."""
    n = data.draw(st.integers(1, 4))
    cuts = data.draw(st.integers(0, 6))
    keep = data.draw(st.integers(0, cuts))
    bases = [np.array(data.draw(st.lists(st.sampled_from([0, 1, 1, 1, 2]), min_size=n,
                                         max_size=n + cuts)), dtype=np.int8)
             for _ in range(data.draw(st.integers(0, 4)))]
    rows, ptr = ragged(bases, np.int8)
    live = live_cuts(rows, ptr, n, cuts, keep)
    for s in range(cuts):
        held = any(b.size > n + s and b[n + s] != BASIC for b in bases)
        assert live[s] == (s < keep or held)
    out, out_ptr = keep_rows(rows, ptr, n, live)
    for b, i in zip(bases, range(len(bases))):
        expect = [v for j, v in enumerate(b.tolist()) if j < n or live[j - n]]
        assert out[out_ptr[i]:out_ptr[i + 1]].tolist() == expect


def test_an_optimal_basis_is_optimal_without_the_cut_rows_it_holds_slack():
    """The triangles' cut {0, 3, 6} has its slack basic at the optimum: the
    basis without that row loads onto a master without the cut and is
    optimal there in 0 pivots."""
    X, columns = _triangles()
    D = squared_distances(X)
    cuts = [(0, 1, 2), (0, 3, 6), (3, 4, 5)]
    full = MasterProblem(X, D, artificial_cost=1000.0)
    full.add_columns(columns)
    full.add_cuts(cuts)
    sol = full.solve()
    status = full.export_basis(full.save_basis())
    rows, ptr = ragged([status.row_status], np.int8)
    live = live_cuts(rows, ptr, full.n, len(cuts), 0)
    assert not live[1] and live[0]
    slim = MasterProblem(X, D, artificial_cost=1000.0)
    slim.add_columns(columns)
    slim.add_cuts([c for c, v in zip(cuts, live) if v])
    kept, _ = keep_rows(rows, ptr, full.n, live)
    assert slim.load_basis(slim.import_basis(type(status)(status.flat, status.ptr,
                                                          status.artificial, kept)))
    again = slim.solve()
    assert again.simplex_iterations == 0
    assert again.value == pytest.approx(sol.value, abs=1e-9)


def _saved(X, path, **kw):
    r = branch_and_price(X, 3, node_limit=12, checkpoint=str(path), threads=1, close_gap=False,
                         mip_time=0, node_close_max_columns=0, node_cut_rounds=1, **kw)
    assert r.status == "node_limit"
    return r, checkpoint.read(path)


def test_a_checkpoint_leaves_out_the_slack_node_cuts_and_resumes_to_the_optimum(tree24,
                                                                               tmp_path):
    """The same 12 nodes saved with and without retirement: the retired
    file keeps the root's cuts and every node cut some saved basis holds
    tight, each basis's other rows unchanged, and it resumes to the optimum
    of the MIP."""
    X, opt = tree24
    _, every = _saved(X, tmp_path / "all.npz", retire_cuts=False)
    first, slim = _saved(X, tmp_path / "slim.npz")
    every_cuts = checkpoint.load(tmp_path / "all.npz").cuts
    slim_cuts = checkpoint.load(tmp_path / "slim.npz").cuts
    root = every["root_cut_duals"].size
    assert first.node_cuts > 0 and root > 0
    n = len(X)
    live = live_cuts(every["basis_rows"], every["basis_rows_ptr"], n, len(every_cuts), root)
    assert [rank1(c) for c in slim_cuts] == [rank1(c) for c, v in zip(every_cuts, live) if v]
    assert live[:root].all() and not live.all()
    retired = int(np.count_nonzero(~live))
    assert checkpoint.summary(checkpoint.load(tmp_path / "slim.npz"))["retired_cuts"] == retired
    assert checkpoint.summary(checkpoint.load(tmp_path / "all.npz"))["retired_cuts"] == 0
    expect, _ = keep_rows(every["basis_rows"], every["basis_rows_ptr"], n, live)
    assert np.array_equal(slim["basis_rows"], expect)
    done = branch_and_price(X, 3, resume=str(tmp_path / "slim.npz"), threads=1,
                            close_gap=False, mip_time=0, node_close_max_columns=0,
                            node_cut_rounds=1)
    assert done.status == "optimal" and done.sse == pytest.approx(opt, abs=1e-7)
    assert done.warm_starts > 0


def test_retire_on_a_checkpoint_without_bases_keeps_only_the_root_cuts(tree24, tmp_path):
    X, _ = tree24
    _, a = _saved(X, tmp_path / "t.npz", retire_cuts=False, checkpoint_bases=0)
    root, cuts = a["root_cut_duals"].size, a["cut_den"].size
    assert cuts > root
    assert retire(a, len(X), root) == cuts - root
    assert a["cut_den"].size == root == a["cut_ptr"].size - 1


def test_retire_cuts_is_an_on_off_option():
    from mipagg.errors import ParameterError
    from mipagg.exact.settings import BPSettings

    assert BPSettings().retire_cuts is True
    assert BPSettings(retire_cuts=False).retire_cuts is False
    with pytest.raises(ParameterError, match="retire_cuts must be True or False"):
        BPSettings(retire_cuts="False")
