"""Restricted master LP (9) of seed 001: warm re-solves, duals, weights."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.spatial.distance import cdist

from mipagg.errors import DataError, SolverError
from mipagg.exact.cuts import Rank1Cut, rank1
from mipagg.exact.master import MasterProblem, cluster_weight, squared_distances
from mipagg.partition import group_sse


def _random_columns(rng, n, k, m):
    sizes = rng.integers(k, 2 * k, size=m)
    return [np.sort(rng.choice(n, size=s, replace=False)) for s in sizes]


def _dual_master(seed, m, n=18, k=3):
    """(rng, n random points in the plane, their master re-optimized by the
    dual simplex: a partition into triples and m random columns)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    mp = MasterProblem(X, artificial_cost=1e4)
    mp.add_columns([np.arange(i, i + 3) for i in range(0, n, 3)] + _random_columns(rng, n, k, m))
    mp.use_algorithm("dual")
    return rng, X, mp


def _linprog_value(n, columns, weights):
    A = np.zeros((n, len(columns)))
    for j, c in enumerate(columns):
        A[c, j] = 1.0
    res = linprog(weights, A_eq=A, b_eq=np.ones(n), bounds=(0, None), method="highs-ipm")
    assert res.status == 0
    return res.fun


def test_squared_distances_and_weights():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    D = squared_distances(X)
    np.testing.assert_allclose(D, cdist(X, X, "sqeuclidean"), atol=1e-12)
    for c in _random_columns(rng, 12, 3, 20):
        assert cluster_weight(D, c) == pytest.approx(group_sse(X, c), rel=1e-12)


def test_warm_resolve_matches_fresh_lp_and_duals_certify():
    rng = np.random.default_rng(1)
    n, k = 15, 3
    X = rng.normal(size=(n, 2))
    mp = MasterProblem(X)
    # a partition keeps the master feasible
    mp.add_columns([np.arange(i, i + 3) for i in range(0, 15, 3)])
    batches = [_random_columns(rng, n, k, 25) for _ in range(4)]
    for batch in batches:
        mp.add_columns(batch)
        sol = mp.solve()
        # independent solver on the same columns
        assert sol.value == pytest.approx(_linprog_value(n, mp.columns, mp.weights), rel=1e-8)
        rc = mp.reduced_costs(sol.duals)
        assert rc.min() >= -1e-7                                   # dual feasible
        assert sol.duals.sum() == pytest.approx(sol.value, rel=1e-8)  # strong duality
        assert np.all(np.abs(rc[sol.x > 1e-7]) < 1e-7)             # complementary slackness
        cover = np.zeros(n)
        for c, xc in zip(mp.columns, sol.x):
            cover[c] += xc
        np.testing.assert_allclose(cover, 1.0, atol=1e-8)


def test_duplicate_columns_are_ignored_and_bad_columns_refused():
    X = np.arange(6.0)[:, None]
    mp = MasterProblem(X)
    assert mp.add_columns([[0, 1, 2], [3, 4, 5]]) == 2
    assert mp.add_columns([[2, 1, 0], [3, 4, 5], [1, 2, 3]]) == 1
    assert len(mp) == 3 and mp.has([3, 2, 1])
    assert mp.add_columns([np.array([1, 3, 1, 2])]) == 0     # {1, 2, 3} again
    assert mp.add_columns([(5, 0, 5)]) == 1 and mp.columns[-1].tolist() == [0, 5]
    for bad in ([4, 5, 6], [], [-1, 2]):
        with pytest.raises(DataError):
            mp.add_columns([bad])
    assert len(mp) == 4
    with pytest.raises(SolverError):
        MasterProblem(X).solve()


def test_better_column_enters_the_basis():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [10.0], [11.0]])
    mp = MasterProblem(X)
    mp.add_columns([[0, 1, 2, 3, 4, 5]])
    v0 = mp.solve().value
    mp.add_columns([[0, 1, 2, 3], [4, 5]])
    sol = mp.solve()
    assert sol.value < v0
    assert sol.value == pytest.approx(5.0 + 0.5)
    np.testing.assert_allclose(sol.x, [0.0, 1.0, 1.0], atol=1e-9)


def test_infeasible_master_raises():
    mp = MasterProblem(np.arange(4.0)[:, None])
    mp.add_columns([[0, 1], [1, 2, 3]])   # record 0 and 1 cannot both be covered once
    with pytest.raises(SolverError):
        mp.solve()


def test_dropped_columns_leave_the_lp_and_the_pool():
    """Dropping nonbasic columns keeps the LP optimum; the others keep their
    order, lookups and allowed state; a dropped cluster can be added again."""
    rng = np.random.default_rng(4)
    n, k = 15, 3
    X = rng.normal(size=(n, 2))
    mp = MasterProblem(X)
    mp.add_columns([np.arange(i, i + 3) for i in range(0, 15, 3)] + _random_columns(rng, n, k, 60))
    sol = mp.solve()
    rc = mp.reduced_costs(sol.duals)
    drop = rc > np.quantile(rc, 0.5)
    assert drop.any() and not (drop & (sol.x > 1e-9)).any()
    kept = [c.tolist() for c, d in zip(mp.columns, drop) if not d]
    gone = [c.tolist() for c, d in zip(mp.columns, drop) if d]
    allowed = np.ones(len(mp), dtype=bool)
    allowed[np.flatnonzero(~drop)[0]] = False
    mp.set_allowed(allowed)
    assert mp.drop_columns(drop) == len(gone)
    assert [c.tolist() for c in mp.columns] == kept and len(mp.weights) == len(kept)
    assert not mp.has(gone[0]) and all(mp.has(c) for c in kept)
    assert mp.allowed.tolist() == [False] + [True] * (len(kept) - 1)
    for v in range(n):
        assert sorted(mp.columns_of(v)) == [j for j, c in enumerate(kept) if v in c]
    mp.set_allowed(None)
    assert mp.solve().value == pytest.approx(sol.value, rel=1e-9)
    assert mp.add_columns([gone[0]]) == 1 and mp.solve().value == pytest.approx(sol.value)
    with pytest.raises(ValueError):
        mp.drop_columns(np.ones(3, dtype=bool))


def test_saved_basis_restarts_a_node_where_it_ended():
    """A basis saved after a node's solve brings the master back to that
    optimum in no simplex iteration after another node was solved, with cut
    rows and columns added in between; a saved basis survives the deletion
    of nonbasic columns, not of one of its basic columns."""
    rng, X, mp = _dual_master(7, 80)
    n, k = mp.n, 3
    parent = mp.solve()
    saved = mp.save_basis()
    assert saved is not None and saved.basic_cols.size + (saved.row_status == 1).sum() == n
    forbid = np.ones(len(mp), dtype=bool)
    forbid[np.flatnonzero(parent.x > 1e-6)[:2]] = False       # another node
    mp.set_allowed(forbid)
    other = mp.solve()
    assert other.value >= parent.value - 1e-9
    mp.add_cuts([(0, 1, 2)])
    mp.add_columns(_random_columns(rng, n, k, 10))
    mp.set_allowed(None)
    assert mp.load_basis(saved)
    again = mp.solve()
    fresh = MasterProblem(X, artificial_cost=1e4)
    fresh.add_columns(mp.columns)
    fresh.add_cuts(mp.cuts)
    assert again.value == pytest.approx(fresh.solve().value, rel=1e-9)
    assert again.value <= parent.value + 1e-9
    # the same LP again: its own basis is optimal at once
    same = mp.save_basis()
    elsewhere = np.ones(len(mp), dtype=bool)
    elsewhere[np.flatnonzero(again.x > 1e-6)[:2]] = False
    mp.set_allowed(elsewhere)
    assert mp.solve().simplex_iterations > 0
    mp.set_allowed(None)
    assert mp.load_basis(same) and mp.solve().simplex_iterations == 0
    sol = mp.solve()
    drop = mp.reduced_costs(sol.duals, sol.cut_duals) > 1.0
    assert drop.any() and mp.drop_columns(drop) > 0      # nonbasic ones
    assert mp.solve().value == pytest.approx(sol.value, rel=1e-9)
    mp.set_allowed(elsewhere[~drop])
    assert mp.solve().simplex_iterations > 0
    mp.set_allowed(None)
    assert mp.load_basis(same) and mp.solve().simplex_iterations == 0   # translated
    gone = np.zeros(len(mp), dtype=bool)
    gone[mp.basic_columns()] = True             # same's basic columns ...
    mp.set_allowed(elsewhere[~drop])
    mp.solve()
    gone[mp.basic_columns()] = False            # ... nonbasic in another node's basis
    assert gone.any()
    mp.set_allowed(None)
    mp.drop_columns(gone)
    assert not mp.load_basis(same)                      # a basic column of it was deleted


def test_a_basis_highs_still_holds_is_kept():
    """Loading the basis just saved, with only columns added and bounds
    changed since (a plunge's child), keeps HiGHS's own (``bases_kept``) and
    solves to the optimum of a fresh master; after another run, new cut
    rows or a deletion, the basis is set again and restarts its LP as before."""
    rng, X, mp = _dual_master(11, 60)

    def fresh_value():
        fresh = MasterProblem(X, artificial_cost=1e4)
        fresh.add_columns(mp.columns)
        fresh.add_cuts(mp.cuts)
        fresh.set_allowed(mp.allowed)
        return fresh.solve().value

    parent = mp.solve()
    saved = mp.save_basis()
    child = np.ones(len(mp), dtype=bool)
    child[np.flatnonzero(parent.x > 1e-6)[0]] = False
    mp.add_columns(_random_columns(rng, mp.n, 3, 10))
    mp.set_allowed(np.append(child, np.ones(len(mp) - child.size, dtype=bool)))
    assert mp.load_basis(saved) and mp.bases_kept == 1
    assert mp.solve().value == pytest.approx(fresh_value(), rel=1e-9)
    mp.set_allowed(None)
    assert mp.load_basis(saved) and mp.bases_kept == 1      # a run since: set again
    assert mp.solve().value == pytest.approx(fresh_value(), rel=1e-9)
    for change in (lambda: mp.add_cuts([(0, 1, 2)]),
                   lambda: mp.drop_columns(np.arange(len(mp)) == len(mp) - 1)):
        again = mp.save_basis()
        change()
        assert mp.load_basis(again) and mp.bases_kept == 1
        assert mp.solve().value == pytest.approx(fresh_value(), rel=1e-9)
    mp.keep_held = False                # the benchmarks' switch: set every basis again
    assert mp.load_basis(mp.save_basis()) and mp.bases_kept == 1


def test_a_rebased_basis_outlives_any_number_of_deletions():
    """A saved basis whose basic columns are kept (:meth:`basic_in`) and which
    is brought to the current indices after each deletion (:meth:`rebase`)
    still restarts its LP in no iteration after more than ``KEPT_EPOCHS``
    deletions; without rebasing it expires."""
    from mipagg.exact.master import KEPT_EPOCHS

    rng, _, mp = _dual_master(3, 200)
    sol = mp.solve()
    saved = kept = mp.save_basis()
    assert saved is not None
    for _ in range(KEPT_EPOCHS + 2):
        drop = np.zeros(len(mp), dtype=bool)
        drop[rng.choice(len(mp), size=len(mp) // 10, replace=False)] = True
        drop[mp.basic_in([kept])] = False
        assert mp.drop_columns(drop) > 0
        kept = mp.rebase(kept)
        assert kept is not None and kept.epoch == mp._epoch
    assert mp.basic_in([saved]).size == 0 and not mp.load_basis(saved)     # expired
    now = mp.solve()                    # the basis kept all along: no pivot
    assert now.simplex_iterations == 0 and now.value == pytest.approx(sol.value, rel=1e-9)
    elsewhere = np.ones(len(mp), dtype=bool)
    elsewhere[np.flatnonzero(now.x > 1e-6)[:2]] = False
    mp.set_allowed(elsewhere)
    assert mp.solve().simplex_iterations > 0
    mp.set_allowed(None)
    assert mp.load_basis(kept)
    again = mp.solve()
    assert again.simplex_iterations == 0 and again.value == pytest.approx(sol.value, rel=1e-9)


def test_a_basis_moves_to_a_master_with_other_columns():
    """A basis exported as clusters (:meth:`export_basis`) loads into another
    master of the same rows whose pool holds part of the first one's columns
    in another order and none of the basic ones (they are added): there its
    LP is optimal at once, at the first master's value; from the other
    master's own basis the same LP takes pivots."""
    rng, X, mp = _dual_master(11, 120)
    mp.add_cuts([(0, 1, 2), (3, 4, 5)])
    sol = mp.solve()
    portable = mp.export_basis(mp.save_basis())
    assert portable is not None and portable.row_status.size == mp.n + 2
    basic = {tuple(c.tolist()) for c in portable.clusters()}
    order = rng.permutation(len(mp.columns))
    keep = [mp.columns[j] for j in order if tuple(mp.columns[j].tolist()) not in basic]

    def other_master():
        other = MasterProblem(X, artificial_cost=1e4)
        other.add_columns(keep[:70])
        other.add_cuts(mp.cuts)
        other.use_algorithm("dual")
        other.solve()
        other.add_columns([np.asarray(c) for c in sorted(basic)])
        return other

    cold = other_master()
    assert cold.solve().simplex_iterations > 0
    other = other_master()
    before = len(other)
    assert other.load_basis(other.import_basis(portable)) and len(other) == before
    again = other.solve()
    assert again.simplex_iterations == 0
    assert again.value == pytest.approx(sol.value, rel=1e-9)
    fresh = MasterProblem(X, artificial_cost=1e4)       # no cut rows: refused
    assert not fresh.load_basis(fresh.import_basis(portable))
    assert all(fresh.has(c) for c in portable.clusters())     # the clusters came along
    # a basis whose column was deleted cannot be exported
    drop = np.zeros(len(mp), dtype=bool)
    drop[mp.basic_columns()[0]] = True
    saved = mp.save_basis()
    mp.drop_columns(drop)
    assert mp.export_basis(saved) is None


def test_a_cut_dual_of_the_wrong_sign_never_reaches_a_bound(monkeypatch):
    """A "≤" cut row's dual σ enters the Lagrangian bound Σλ + Σσ + …, which
    holds only for σ ≤ 0: a positive σ from the LP solver (within its dual
    tolerance) is read as 0, the penalty the pricing charges anyway."""
    import highspy

    rng = np.random.default_rng(3)
    X = rng.normal(size=(9, 2))
    mp = MasterProblem(X)
    mp.add_columns([np.arange(i, i + 3) for i in range(0, 9, 3)] + _random_columns(rng, 9, 3, 12))
    assert mp.add_cuts([(0, 1, 3), (2, 4, 5)]) == 2
    honest = mp.solve()
    assert honest.cut_duals.size == 2 and (honest.cut_duals <= 0).all()

    real = highspy.Highs.getSolution

    def wrong_sign(h):
        sol = real(h)
        row = list(sol.row_dual)
        row[-1] = 0.25                      # the last cut row: a positive dual
        sol.row_dual = row
        return sol

    monkeypatch.setattr(highspy.Highs, "getSolution", wrong_sign)
    sol = mp.solve()
    assert sol.cut_duals[-1] == 0.0
    np.testing.assert_array_equal(sol.cut_duals[:-1], np.minimum(honest.cut_duals[:-1], 0.0))
    np.testing.assert_allclose(sol.duals, honest.duals)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.one_of(
    st.lists(st.integers(0, 8), min_size=3, max_size=3, unique=True),
    st.builds(lambda rows: Rank1Cut(tuple(rows), (1, 1, 1, 2), 3),
              st.lists(st.integers(0, 8), min_size=4, max_size=4, unique=True))),
    max_size=4), max_size=4),
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)).filter(lambda p: p[0] != p[1]),
             max_size=3))
def test_the_cut_table_prices_as_the_cuts_built_one_by_one(batches, apart):
    """The master's cut table, grown batch by batch (subset-row cuts and
    rank-1 cuts on four rows, repeats among them), gives the pricing the
    same cut structure as building every cut again."""
    from mipagg.exact.pricing.constraints import PricingConstraints

    X = np.arange(9.0).reshape(-1, 1)
    m = MasterProblem(X, squared_distances(X))
    base = PricingConstraints.build(9, apart=apart, sizes_out=0b1000)
    for batch in batches:
        m.add_cuts(batch)
        got = base.with_cut_table(*m.cut_table())
        want = PricingConstraints.build(9, apart=apart, cuts=[(c, 0.0) for c in m.cuts],
                                        sizes_out=0b1000)
        assert len(m.cuts) == len({rank1(c) for c in m.cuts})     # no repeat kept
        for name in ("cut_rows", "cut_w", "cut_den", "mu", "cut_start", "cut_idx", "cut_num",
                     "comp_of", "apart_start", "apart_idx"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
        assert got.sizes_out == want.sizes_out and got.apart == want.apart


def test_an_lp_copy_takes_a_row_without_touching_the_master():
    """lp_copy: the same LP value under the current mask; a row added to the
    copy (at most one of the random columns) raises the copy's value to
    scipy's LP with that row, and the master's next solve is unchanged."""
    rng, X, mp = _dual_master(7, 30)
    allowed = np.ones(len(mp.columns), dtype=bool)
    allowed[6::2] = False
    mp.set_allowed(allowed)
    value = mp.solve().value
    h, offset = mp.lp_copy()
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(value, rel=1e-9)
    idx = np.arange(6, len(mp.columns))
    h.addRow(-np.inf, 1.0, idx.size, (idx + offset).astype(np.int32), np.ones(idx.size))
    h.run()
    n = X.shape[0]
    A = np.zeros((n, len(mp.columns)))
    for j, c in enumerate(mp.columns):
        A[c, j] = 1.0
    row = np.zeros((1, len(mp.columns)))
    row[0, 6:] = 1.0
    ref = linprog(mp.weights, A_ub=row, b_ub=[1.0], A_eq=A, b_eq=np.ones(n),
                  bounds=[(0, None if a else 0) for a in allowed], method="highs")
    assert ref.status == 0
    assert h.getInfo().objective_function_value == pytest.approx(ref.fun, rel=1e-8)
    assert h.getInfo().objective_function_value >= value - 1e-9
    assert mp.solve().value == pytest.approx(value, rel=1e-12)
