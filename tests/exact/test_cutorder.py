"""Cut rows shared among the masters of a parallel tree (mipagg.exact.cutorder):
a basis keeps each cut row's status whichever worker's order it travels
through, an LP basis optimal on one worker is optimal on another whose cut
rows are in another order, and a parallel tree with node cuts proves the
brute-force optimum."""

from __future__ import annotations

import numpy as np
import pytest
from _bruteforce import optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings
from hypothesis import strategies as st

from mipagg.exact import checkpoint
from mipagg.exact.bases import PortableBasis
from mipagg.exact.bp import branch_and_price
from mipagg.exact.cutorder import CanonicalCuts, CutOrder
from mipagg.exact.cuts import rank1
from mipagg.exact.master import MasterProblem, squared_distances

BASIC = 1


class _Rows:
    """The cut bookkeeping of a master, without an LP."""

    def __init__(self, n, cuts=()):
        self.n, self.cuts = n, []
        self.first_cut_row = n          # no count row
        self.add_cuts(cuts)

    def add_cuts(self, cuts):
        have = {rank1(c) for c in self.cuts}
        added = 0
        for c in cuts:
            if rank1(c) not in have:
                have.add(rank1(c))
                self.cuts.append(c)
                added += 1
        return added


def _portable(row_status):
    return PortableBasis.of([], [], np.asarray(row_status, dtype=np.int8))


def _by_cut(master, row_status):
    """Cut → status of ``row_status`` over ``master``'s rows (slack basic past its end)."""
    n = master.n
    return {rank1(c): int(row_status[n + j]) if n + j < row_status.size else BASIC
            for j, c in enumerate(master.cuts)}


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_a_basis_keeps_every_cut_rows_status_through_any_order(data):
    """Three workers whose tasks overlap add their own cuts in any order and
    hear of the others' late: a basis one sends back, placed by the
    coordinator and taken by the next task's worker, gives every cut row
    both know the status it had, the others' slack basic."""
    n = 9
    triples = [(a, b, c) for a in range(n) for b in range(a + 1, n) for c in range(b + 1, n)]
    pick = st.lists(st.sampled_from(triples), max_size=5)
    coordinator = _Rows(n, data.draw(pick))
    canon = CanonicalCuts(coordinator)
    workers = [_Rows(n, coordinator.cuts) for _ in range(3)]
    orders = [CutOrder(w) for w in workers]
    synced = [len(coordinator.cuts)] * 3
    busy = [False] * 3

    def start(v):                       # a task starts: the coordinator's news first
        first = min(synced)
        orders[v].sync(first, canon.since(first))
        busy[v] = True

    for _ in range(data.draw(st.integers(2, 12))):
        w = data.draw(st.integers(0, 2))
        if not busy[w]:
            start(w)
            workers[w].add_cuts(data.draw(pick))                 # its node cut rounds
            continue
        size = n + len(workers[w].cuts)
        rows = np.array(data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=size,
                                           max_size=size)), dtype=np.int8)
        sent = orders[w].canonical(_portable(rows))
        unsynced, width = orders[w].unsynced(), orders[w].width
        canon.absorb(unsynced)                                   # the coordinator merges
        synced[w], busy[w] = width, False
        placed = canon.place(sent, width, unsynced)
        theirs = _by_cut(workers[w], rows)
        assert placed.row_status.size <= n + len(coordinator.cuts)
        assert (placed.row_status[:n] == rows[:n]).all()
        for cut, status in _by_cut(coordinator, placed.row_status).items():
            assert status == theirs.get(cut, BASIC)
        v = data.draw(st.sampled_from([u for u in range(3) if not busy[u]]))
        start(v)                                                 # the node's next worker
        got = orders[v].to_local(placed)
        assert got is not None and got.row_status.size <= n + len(workers[v].cuts)
        assert (got.row_status[:n] == rows[:n]).all()
        for cut, status in _by_cut(workers[v], got.row_status).items():
            assert status == theirs.get(cut, BASIC)
        workers[v].add_cuts(data.draw(pick))


def test_a_canonical_row_a_worker_never_heard_of_refuses_the_basis_unless_basic():
    coordinator = _Rows(9, [(0, 1, 2)])
    canon = CanonicalCuts(coordinator)
    worker = _Rows(9, coordinator.cuts)
    order = CutOrder(worker)
    canon.absorb([(3, 4, 5), (6, 7, 8)])
    order.sync(2, canon.since(2))                   # missed the second cut: a gap
    tight = np.r_[np.zeros(9), 0, 0, 0].astype(np.int8)
    assert order.to_local(_portable(tight)) is None
    slack = tight.copy()
    slack[9 + 1] = BASIC
    got = order.to_local(_portable(slack))
    assert got is not None and got.row_status.size == 9 + 2
    assert _by_cut(worker, got.row_status) == {rank1((0, 1, 2)): 0, rank1((6, 7, 8)): 0}


def _triangles():
    """Three triangles of records, each covered by its pairs at ½ without a
    cut on it, and a cut row {0, 3, 6} that no column has two records of
    (its slack stays basic)."""
    X = np.array([[0.0], [0.1], [0.2], [3.0], [3.4], [3.5], [10.0], [20.0], [30.0]])
    columns = [[a + i, a + j] for a in (0, 3, 6) for i, j in ((0, 1), (1, 2), (0, 2))] \
        + [[a, a + 1, a + 2] for a in (0, 3, 6)]
    return X, columns


def test_an_optimal_basis_is_optimal_on_a_worker_whose_cut_rows_are_in_another_order():
    X, columns = _triangles()
    D = squared_distances(X)
    masters = [MasterProblem(X, D, artificial_cost=1000.0) for _ in range(3)]
    coordinator, a, b = masters
    for m in masters:
        m.add_columns(columns)
    canon = CanonicalCuts(coordinator)
    oa, ob = CutOrder(a), CutOrder(b)
    a.add_cuts([(0, 1, 2), (0, 3, 6)])                   # worker a's node cuts
    canon.absorb(oa.unsynced())
    b.add_cuts([(0, 3, 6), (3, 4, 5)])                   # worker b's, another order
    canon.absorb(ob.unsynced())
    oa.sync(0, canon.since(0))
    ob.sync(0, canon.since(0))
    assert [rank1(c) for c in a.cuts] == [rank1(c) for c in coordinator.cuts]
    assert [rank1(c).rows for c in b.cuts] == [(0, 3, 6), (3, 4, 5), (0, 1, 2)]
    sol = a.solve()
    assert sol.cut_duals.size == 3 and sol.cut_duals[0] < 0 and sol.cut_duals[1] == 0
    sent = oa.canonical(a.export_basis(a.save_basis()))
    got = ob.to_local(canon.place(sent, oa.width, oa.unsynced()))
    assert b.load_basis(b.import_basis(got))
    again = b.solve()
    assert again.simplex_iterations == 0
    assert again.value == pytest.approx(sol.value, abs=1e-9)
    # the same statuses in a's row order are not a basis of b's optimum
    c = MasterProblem(X, D, artificial_cost=1000.0)
    c.add_columns(columns)
    c.add_cuts(b.cuts)
    assert c.load_basis(c.import_basis(sent))
    assert c.solve().simplex_iterations > 0


@settings(max_examples=10, deadline=None)
@given(tiny_instances(min_n=8))
def test_two_workers_with_node_cuts_give_the_brute_force_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, threads=1, workers=2, close_gap=False, mip_time=0,
                         node_close_max_columns=0, node_cut_rounds=2, max_cut_rounds=0)
    assert r.status == "optimal" and r.sse == pytest.approx(opt, abs=1e-7)
    assert r.lower_bound == pytest.approx(opt, abs=1e-7)


def test_a_parallel_tree_with_node_cuts_saves_them_and_resumes_to_the_optimum(tree24, tmp_path):
    """The workers' node cuts reach the coordinator's master, so a checkpoint
    keeps them with bases in its row order, and a resumed run proves the
    optimum of the uninterrupted one."""
    X, opt = tree24
    kw = dict(threads=1, workers=2, close_gap=False, mip_time=0, node_close_max_columns=0,
              node_cut_rounds=1, max_cut_rounds=0)
    path = tmp_path / "tree.npz"
    first = branch_and_price(X, 3, node_limit=12, checkpoint=str(path), **kw)
    assert first.status == "node_limit" and first.node_cuts > 0
    saved = checkpoint.load(path)
    retired = saved.meta["counts"]["retired_cuts"]
    assert len(saved.cuts) + retired == first.node_cuts > 0  # each once, however many found it
    assert saved.bases and (saved.node_basis >= 0).any()
    for _, _, rows in saved.bases:
        assert len(X) < rows.size <= len(X) + len(saved.cuts)
    done = branch_and_price(X, 3, resume=str(path), **kw)
    assert done.status == "optimal" and done.sse == pytest.approx(opt, abs=1e-7)
    assert done.warm_starts > 0
