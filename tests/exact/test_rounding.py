"""SimpleRoundingHeuristic and RoundingMSTHeuristic (seed 001 section 5.2)."""

import numpy as np
from hypothesis import given, settings, strategies as st

from mipagg.exact.bases import ragged
from mipagg.exact.colgen import POLISH_MEMO, Rounder
from mipagg.exact.master import squared_distances
from mipagg.exact.rounding import (
    _glue,
    _glue_reference,
    _take_disjoint,
    _take_disjoint_reference,
    add_remaining_nodes,
    edge_values,
    rounding_mst,
    simple_rounding,
)
from mipagg.heuristics.mdav import mdav
from mipagg.partition import Partition


def _fractional_mix(rng, X, k, n_parts):
    """Columns of several k-feasible partitions with convex weights: a feasible master x."""
    n = X.shape[0]
    columns, x = [], []
    lam = rng.dirichlet(np.ones(n_parts))
    for t in range(n_parts):
        order = rng.permutation(n)
        p = mdav(X[order], k)          # random k-feasible partition of the permuted rows
        for g in p.groups():
            columns.append(np.sort(order[g]))
            x.append(lam[t])
    return columns, np.array(x)


def test_srh_on_integral_solution_returns_it():
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0], [13.0]])
    cols = [[0, 1, 2], [3, 4, 5, 6], [2, 3, 4]]
    p = simple_rounding(X, cols, [1.0, 1.0, 0.0], 3)
    assert p.labels.tolist() == [0, 0, 0, 1, 1, 1, 1]


def test_srh_takes_largest_x_then_builds_last_group():
    # [4,5,6] has the largest x; it leaves 4 < 2k records, so the loop stops
    # and they form the last group although [0,1,2] has x = 0.6
    X = np.arange(7.0)[:, None]
    cols = [[0, 1, 2], [1, 2, 3], [4, 5, 6]]
    p = simple_rounding(X, cols, [0.6, 0.4, 0.9], 3)
    assert [g.tolist() for g in p.groups()] == [[0, 1, 2, 3], [4, 5, 6]]
    # with 9 records, [0,1,2] (x=.6) is taken before [1,2,3] (x=.4), then [3,4,5] (.55)
    X = np.arange(10.0)[:, None]
    cols = [[1, 2, 3], [0, 1, 2], [4, 5, 6], [3, 4, 5]]
    p = simple_rounding(X, cols, [0.4, 0.6, 0.45, 0.55], 3)
    assert [g.tolist() for g in p.groups()] == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]


def test_srh_add_remaining_nodes_to_nearest_centroid():
    # k = 2: columns {0,1}, {4,5}; 6 records; after taking {4,5} (x=1) and {0,1}
    # two records 2, 3 remain (< 2k=4 but == k): they form one group.
    X = np.array([[0.0], [0.1], [5.0], [5.2], [10.0], [10.1]])
    p = simple_rounding(X, [[4, 5], [0, 1]], [1.0, 0.5], 2)
    assert sorted(map(list, p.groups())) == [[0, 1], [2, 3], [4, 5]]
    # k = 3, n = 12: two columns of size 5 leave 2 < k records, which
    # AddRemainingNodes sends to the nearest centroid (2 and 22)
    X = np.array([0.0, 1, 2, 3, 4, 20, 21, 22, 23, 24, 3.0, 21.5])[:, None]
    p = simple_rounding(X, [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]], [1.0, 1.0], 3)
    assert [g.tolist() for g in p.groups()] == [[0, 1, 2, 3, 4, 10], [5, 6, 7, 8, 9, 11]]
    # no disjoint column left while |U| >= 2k: the rest also goes to nearest groups
    p = simple_rounding(X, [[0, 1, 2, 3, 4], [4, 5, 6]], [1.0, 1.0], 3)
    assert [g.tolist() for g in p.groups()] == [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]


def test_add_remaining_nodes_uses_centroids_before_assignment():
    X = np.array([[0.0], [1.0], [2.0], [9.0], [10.0], [11.0], [5.4], [5.6]])
    groups = add_remaining_nodes(X, [np.array([0, 1, 2]), np.array([3, 4, 5])], [6, 7])
    assert [g.tolist() for g in groups] == [[0, 1, 2, 6], [3, 4, 5, 7]]


def test_edge_values():
    z = edge_values(4, [[0, 1, 2], [1, 2, 3]], [0.25, 0.75])
    assert z[0, 1] == 0.25 and z[1, 2] == 1.0 and z[2, 3] == 0.75 and z[0, 3] == 0.0
    np.testing.assert_allclose(z, z.T)


def test_msth_recovers_integral_partition_and_never_worse():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 3))
    p = mdav(X, 4)   # sizes 4 and up to 7
    out = rounding_mst(X, p.groups(), np.ones(p.n_groups), 4)
    assert out is not None and out.is_feasible(4)
    assert out.sse() <= p.sse() + 1e-12
    # the pass with maxcl = 2k−1 rebuilds the partition exactly (z = 1 inside groups)
    D = squared_distances(X)
    z = edge_values(20, p.groups(), np.ones(p.n_groups))
    ei, ej = np.triu_indices(20, 1)
    o = np.lexsort((D[ei, ej], -z[ei, ej]))
    roots = _glue(ei[o].astype(np.int64), ej[o].astype(np.int64), 20, 7)
    assert np.array_equal(Partition(roots, X).labels, p.labels)


def test_msth_infeasible_returns_none():
    # with k = 2 only maxcl = 3 is tried; an odd-free chain that leaves a singleton
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    # z glues (0,1,2) first; 3 is left alone and cannot join (size 4 > 3)
    out = rounding_mst(X, [[0, 1, 2], [3, 2]], [1.0, 0.0], 2)
    assert out is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 4), n=st.integers(8, 30),
       parts=st.integers(1, 4))
def test_rounding_is_always_k_feasible(seed, k, n, parts):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    if rng.random() < 0.3:
        X[: n // 2] = X[0]                       # duplicates and ties are legal
    columns, x = _fractional_mix(rng, X, k, parts)
    p = simple_rounding(X, columns, x, k)
    assert p.is_feasible(k) and p.n == n
    m = rounding_mst(X, columns, x, k)
    if m is not None:
        assert m.is_feasible(k) and m.n == n
    # compiled and reference union-find agree
    D = squared_distances(X)
    z = edge_values(n, columns, x)
    ei, ej = np.triu_indices(n, 1)
    o = np.lexsort((D[ei, ej], -z[ei, ej]))
    a, b = ei[o].astype(np.int64), ej[o].astype(np.int64)
    for maxcl in range(k + 1, 2 * k):
        assert np.array_equal(_glue(a, b, n, maxcl), _glue_reference(a, b, n, maxcl))


def test_msth_compiled_flag_same_result():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(25, 2))
    columns, x = _fractional_mix(rng, X, 3, 3)
    a = rounding_mst(X, columns, x, 3)
    b = rounding_mst(X, columns, x, 3, compiled=False)
    assert (a is None and b is None) or np.array_equal(a.labels, b.labels)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(2, 5), n=st.integers(6, 60),
       parts=st.integers(1, 5), dup=st.booleans(), grid=st.booleans())
def test_msth_sparse_pair_order_equals_full_sort(seed, k, n, parts, dup, grid):
    """Sorting only the pairs with z_ij > 0 and appending the precomputed
    distance order of the rest gives exactly the full lexsort of step 2, hence
    the same RoundingMSTHeuristic partition (ties in z and in D included)."""
    from mipagg.exact.rounding import distance_pair_order, mst_pair_order

    rng = np.random.default_rng(seed)
    k = min(k, n // 2)
    X = rng.normal(size=(n, 2))
    if grid:
        X = np.round(X)                     # many equal distances
    if dup:
        X[: n // 3] = X[0]
    columns, x = _fractional_mix(rng, X, k, parts)
    if parts > 2:                           # equal x values too
        x = np.round(x, 1) + 0.05
    D = squared_distances(X)
    z = edge_values(n, columns, x)
    full = mst_pair_order(z, D)
    fast = mst_pair_order(z, D, distance_pair_order(D))
    assert np.array_equal(full[0], fast[0]) and np.array_equal(full[1], fast[1])
    a = rounding_mst(X, columns, x, k, D=D)
    b = rounding_mst(X, columns, x, k, D=D, pair_order=distance_pair_order(D))
    assert (a is None and b is None) or np.array_equal(a.labels, b.labels)


def test_msth_sparse_order_on_master_solutions(census):
    """Same equality on the fractional master solutions of a real run."""
    from mipagg.exact.colgen import column_generation
    from mipagg.exact.master import MasterProblem
    from mipagg.exact.rounding import distance_pair_order, mst_pair_order

    X = census.subset(np.arange(500, 580)).X
    D = squared_distances(X)
    r = column_generation(X, 3, close_gap=False, max_iterations=15)
    mp = MasterProblem(X, D)
    order = distance_pair_order(D)
    from mipagg.heuristics.mdav import mdav_groups
    first = len(mdav_groups(X, 3))                # the MDAV groups come first: feasible
    for m in range(first, len(r.columns) + 1, 15):   # growing column sets, as in the loop
        mp.add_columns(r.columns[:m])
        sol = mp.solve()
        z = edge_values(X.shape[0], mp.columns, sol.x)
        full, fast = mst_pair_order(z, D), mst_pair_order(z, D, order)
        assert np.array_equal(full[0], fast[0]) and np.array_equal(full[1], fast[1])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 4), n=st.integers(4, 40),
       m=st.integers(0, 120))
def test_the_compiled_greedy_scan_takes_the_reference_columns(seed, k, n, m):
    """Random columns (repeats and overlaps included) in a random order: the
    compiled scan takes the same columns and leaves the same records free."""
    rng = np.random.default_rng(seed)
    columns = [rng.choice(n, size=int(rng.integers(1, min(n, 2 * k) + 1)), replace=False)
               for _ in range(m)]
    idx, ptr = ragged(columns)
    order = rng.permutation(m).astype(np.int64)
    taken, free = _take_disjoint(order, ptr, idx, n, k)
    want_taken, want_free = _take_disjoint_reference(order, ptr, idx, n, k)
    assert taken.tolist() == want_taken.tolist() and free.tolist() == want_free.tolist()
    covered = np.concatenate([idx[ptr[j]:ptr[j + 1]] for j in taken]) if taken.size else []
    assert len(covered) == len(set(covered)) == n - int(free.sum())


def test_the_rounder_polishes_a_partition_once():
    """The incumbent offered again and again (as node closings do) is
    polished once; the remembered result is polish's own; the memo keeps the
    last POLISH_MEMO inputs."""
    from mipagg.refine import local_search

    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    calls = []

    def polish(p):
        calls.append(p.labels.tobytes())
        return local_search(X, p, 3)

    r = Rounder(X, squared_distances(X), 3, mdav(X, 3), polish=polish)
    assert len(calls) == 1                     # the start, polished at once
    best = r.best
    assert [r.offer(Partition(best.labels, X)) for _ in range(3)] == [False] * 3
    assert len(calls) == 2 and r.polish_hits == 2
    assert np.array_equal(r.polished(best).labels, local_search(X, best, 3).labels)
    def shuffled():
        return Partition(rng.permutation(np.repeat(np.arange(10), 3)), X)

    first, others = shuffled(), [shuffled() for _ in range(POLISH_MEMO - 1)]
    for p in [first, *others, first]:          # POLISH_MEMO inputs: all remembered
        r.polished(p)
    assert len(calls) == 2 + POLISH_MEMO
    r.polished(shuffled())                     # one more: the oldest, `first`, forgotten
    r.polished(first)
    assert len(calls) == 4 + POLISH_MEMO
