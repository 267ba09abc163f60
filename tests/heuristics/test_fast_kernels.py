"""The indexed MDAV-family kernels give exactly the groups of the quadratic
references (same groups, same order, ties to the lowest row index)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mipagg.generators import simu
from mipagg.heuristics import _common, _index as ix, _twocore as tc
from mipagg.heuristics.fixed import (
    cbfs_groups,
    cbfs_groups_reference,
    md_groups,
    md_groups_reference,
)
from mipagg.heuristics.mdav import mdav_groups, mdav_groups_reference
from mipagg.heuristics.paths import (
    _npn_kernel,
    mdav_path_groups,
    mdav_path_groups_reference,
    npn_order,
)
from mipagg.heuristics.vmdav import vmdav_labels, vmdav_labels_reference
from mipagg.validation import as_rows


def mdav_two_threads(X, k):
    return mdav_groups(X, k, threads=2)


KERNELS = [(mdav_groups, mdav_groups_reference), (mdav_two_threads, mdav_groups_reference),
           (cbfs_groups, cbfs_groups_reference), (mdav_path_groups, mdav_path_groups_reference)]


def same_groups(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@st.composite
def tie_data(draw):
    """Small files with few distinct rows (duplicates, exact distance ties,
    symmetric configurations) or continuous values, p = 1..10."""
    n = draw(st.integers(2, 80))
    p = draw(st.integers(1, 10))
    k = draw(st.integers(2, max(2, min(7, n))))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["pool", "grid", "normal"]))
    rng = np.random.default_rng(seed)
    if kind == "pool":
        base = rng.integers(-3, 4, size=(draw(st.integers(1, n)), p)).astype(float)
        X = base[rng.integers(0, base.shape[0], size=n)]
    elif kind == "grid":
        X = rng.integers(-2, 3, size=(n, p)).astype(float)
    else:
        X = rng.normal(size=(n, p))
    return X, k


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tie_data())
def test_groups_equal_reference(data):
    X, k = data
    for fast, ref in KERNELS:
        assert same_groups(fast(X, k), ref(X, k)), fast.__name__


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tie_data())
def test_npn_equals_quadratic_kernel(data):
    X, _ = data
    X = as_rows(X)
    for start in (0, X.shape[0] - 1):
        assert np.array_equal(npn_order(X, start), _npn_kernel(X, start))


@pytest.mark.parametrize("n,k", [(2, 2), (5, 2), (6, 3), (9, 3), (17, 4), (40, 10)])
def test_identical_rows(n, k):
    for fast, ref in KERNELS:
        X = np.ones((n, 3))
        assert same_groups(fast(X, k), ref(X, k))
        X = np.repeat(np.array([[0.0, 1.0], [1.0, 0.0], [0.0, -1.0], [-1.0, 0.0]]), n, axis=0)
        assert same_groups(fast(X, k), ref(X, k))


@pytest.mark.parametrize("name", ["census", "tarragona"])
@pytest.mark.parametrize("k", [3, 4, 5, 10])
def test_casc_files_equal_reference(name, k, request):
    X = request.getfixturevalue(name).X
    for fast, ref in KERNELS:
        assert same_groups(fast(X, k), ref(X, k)), fast.__name__
    assert np.array_equal(npn_order(X), _npn_kernel(X, int(npn_order(X)[0])))


@pytest.mark.parametrize("p", [1, 2, 5, 10])
def test_random_file_equal_reference(p):
    X = simu(3000, p, seed=p).X
    for fast, ref in KERNELS:
        assert same_groups(fast(X, 3), ref(X, 3)), fast.__name__


@pytest.mark.slow
@pytest.mark.parametrize("n,p,k", [(20_000, 10, 3), (100_000, 10, 3), (30_000, 3, 5)])
def test_large_random_file_equal_reference(n, p, k):
    X = simu(n, p, seed=n + p).X
    for fast, ref in KERNELS:
        assert same_groups(fast(X, k), ref(X, k)), fast.__name__


# --- the queries one by one, on random subsets of remaining records -----------

@st.composite
def query_data(draw):
    X, _ = draw(tie_data())
    n = X.shape[0]
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    removed = order[: draw(st.integers(0, n - 1))]
    m = draw(st.integers(1, n))
    return (as_rows(X), removed, int(order[-1]), m, draw(st.integers(2, 16)),
            draw(st.integers(0, len(removed))))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query_data())
def test_queries_equal_reference(data):
    X, removed, q, m, leaf, cut = data
    n = X.shape[0]
    T = ix.build_tree(X, leaf)
    C = ix.centroid_state(X)
    alive = np.ones(n, dtype=np.bool_)
    for t, i in enumerate(removed):
        if t == cut and t > 0:  # the tree rebuilt over the records left, then more removals
            ix.rebuild(T, X, alive)
        ix.remove(T, C, X, alive, i)
    rows = np.flatnonzero(alive)
    m = min(m, rows.size)
    far = rows[int(np.argmax(_common.sqdist_to(X, rows, X[q])))]
    assert ix.tree_farthest(T, X, alive, X[q]) == far
    near = rows[_common.nearest(X, rows, X[q], m)]
    assert np.array_equal(ix.tree_nearest(T, X, alive, X[q], m), near)
    fc = rows[_common.farthest_from_centroid(X, rows)]
    assert ix.farthest_from_centroid(C, X, alive, rows.size) == fc
    if alive[q]:  # the two-thread queries around a remaining record
        s, near2 = tc.farthest_and_nearest(T, X, alive, q, m)
        assert s == far and np.array_equal(near2, near)


def _state(X, removed, leaf):
    """Tree, centroid state and remaining mask after removing ``removed``."""
    T = ix.build_tree(X, leaf)
    C = ix.centroid_state(X)
    alive = np.ones(X.shape[0], dtype=np.bool_)
    for i in removed:
        ix.remove(T, C, X, alive, i)
    return T, C, alive


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query_data(), st.integers(1, 4))
def test_farthest_list_outlasts_removals_during_the_search(data, h):
    """The farthest search keeping h + 1 records, with the h records farthest
    from q removed half-way (between its subtrees, as the other thread of
    ``_twocore.group_of_s_and_next`` does), gives as the first remaining record
    of its list the farthest of the records left."""
    X, removed, q, _, leaf, _ = data
    T, C, alive = _state(X, removed, leaf)
    rows = np.flatnonzero(alive)
    if rows.size <= h:
        return
    d = _common.sqdist_to(X, rows, X[q])
    gone = rows[np.lexsort((rows, -d))[:h]]  # the h farthest: they would prune the rest
    w, qn = ix.far_terms(T, X[q])
    roots, rb = tc._frontier(T, X[q], w, qn)
    bd, bi = np.full(h + 1, -1.0), np.full(h + 1, -1, dtype=np.int64)
    shared, final = np.full(1, -1.0), np.zeros(1, dtype=np.int64)
    half = roots.size // 2
    ix.farthest_below(T, X[q], w, qn, roots[:half], rb[:half], half, bd, bi, shared, 0, alive, final)
    for i in gone:
        ix.remove(T, C, X, alive, i)
    final[0] = 1
    rest = roots.size - half
    ix.farthest_below(T, X[q], w, qn, roots[half:], rb[half:], rest, bd, bi, shared, 0, alive, final)
    left = np.flatnonzero(alive)
    far = left[int(np.argmax(_common.sqdist_to(X, left, X[q])))]
    assert tc._first_alive(bd[None], bi[None], alive) == far


def _serial_step(X, removed, leaf, s, k, m):
    """The group of s, then the next r, its farthest s and its k nearest, one
    query after the other (fresh state)."""
    T, C, alive = _state(X, removed, leaf)
    out = np.empty(k, dtype=np.int64)
    ix.take_group(T, C, X, alive, s, k, out, 0, False)
    r = ix.farthest_from_centroid(C, X, alive, m - k)
    centroid = X[alive].mean(axis=0)
    return out, r, ix.tree_farthest(T, X, alive, X[r]), ix.tree_nearest(T, X, alive, X[r], k), centroid


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query_data(), st.integers(1, 4), st.booleans())
def test_group_of_s_and_next_equals_the_serial_queries(data, k, good_guess):
    """The two-thread pipeline step gives the group of s and the next r of the
    serial queries; when its guess of r is confirmed, also r's farthest record
    and k nearest.  A guess at the next centroid (hit) or far from it (miss)."""
    X, removed, s, _, leaf, _ = data
    T, C, alive = _state(X, removed, leaf)
    before = alive.copy()
    m = int(alive.sum())
    if not alive[s] or m < 2 * k + 1:
        return
    group, r, far, near, centroid = _serial_step(X, removed, leaf, s, k, m)
    guess = centroid if good_guess else centroid + 1e6
    out = np.empty(k, dtype=np.int64)
    ok, r2, far2, near2 = tc.group_of_s_and_next(T, C, X, alive, s, k, m, out, 0, guess, 0)
    assert np.array_equal(out, group) and r2 == r
    assert np.array_equal(np.flatnonzero(alive), np.setdiff1d(np.flatnonzero(before), group))
    if ok:
        assert far2 == far and np.array_equal(near2, near)


@pytest.mark.parametrize("late", [0, 1, 2, 3])
def test_group_of_s_and_next_with_the_guess_on_time_or_late(late):
    """On SimU, a guess at the exact next centroid is confirmed when thread 0
    publishes it in time (3: thread 1 waits for it), also with its frontier
    published only once thread 1 has found r (2: thread 1 waits for the
    guess, then for the frontier);
    published after thread 1 has decided (1), it is not used, even though it
    is right.  Without waits (0) the threads race, and a loaded machine can
    make thread 0 late: the step is right either way."""
    if late and tc.numba.get_num_threads() < 2:
        pytest.skip("one numba thread: the two halves run one after the other")
    X = as_rows(simu(2000, 10, seed=3).X)  # C order, read-only: as the methods pass it
    T, C, alive = _state(X, [], 32)
    s = ix.tree_farthest(T, X, alive, X[0])
    group, r, far, near, centroid = _serial_step(X, [], 32, s, 3, 2000)
    out = np.empty(3, dtype=np.int64)
    ok, r2, far2, near2 = tc.group_of_s_and_next(T, C, X, alive, s, 3, 2000, out, 0, centroid,
                                                 late)
    assert np.array_equal(out, group) and r2 == r
    if late != 0:
        assert ok == (late != 1)
    if ok:
        assert far2 == far and np.array_equal(near2, near)


def test_centroid_near_tie_is_decided_by_the_reference_centroid():
    """Records at the same distance from the centroid (a symmetric file): the
    exact sequential centroid of the reference decides, through the fallback."""
    X = as_rows([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [0.1, 0.2], [-0.1, -0.2]])
    C = ix.centroid_state(X)
    alive = np.ones(6, dtype=np.bool_)
    got = ix.farthest_from_centroid(C, X, alive, 6)
    assert got == _common.farthest_from_centroid(X, np.arange(6))
    assert C[7][1] == 1  # one fallback to the sequential centroid


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tie_data(), st.sampled_from([0.0, 0.2, 1.0, 2.0, 50.0]))
def test_vmdav_equals_reference(data, gamma):
    X, k = data
    assert np.array_equal(vmdav_labels(X, k, gamma), vmdav_labels_reference(X, k, gamma))


@pytest.mark.parametrize("name", ["census", "tarragona"])
@pytest.mark.parametrize("k,gamma", [(3, 0.2), (5, 1.1), (10, 2.0)])
def test_vmdav_casc_files_equal_reference(name, k, gamma, request):
    X = request.getfixturevalue(name).X
    assert np.array_equal(vmdav_labels(X, k, gamma), vmdav_labels_reference(X, k, gamma))


def test_vmdav_random_file_equal_reference():
    X = simu(3000, 10, seed=5).X
    assert np.array_equal(vmdav_labels(X, 3, 0.2), vmdav_labels_reference(X, 3, 0.2))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tie_data())
def test_md_stale_partners_from_the_index(data):
    """MD's stale farthest partners from the index give the groups of the scan."""
    X, k = data
    assert same_groups(md_groups(X, k), md_groups_reference(X, k))


@pytest.mark.parametrize("n,p", [(1500, 10), (2000, 2),
                                 pytest.param(20_000, 10, marks=pytest.mark.slow)])
def test_md_random_file_index_equals_scan(n, p):
    X = simu(n, p, seed=n).X
    assert same_groups(md_groups(X, 3), md_groups_reference(X, 3))


# --- two threads: when they run --------------------------------------------------

def test_threads_choice():
    with pytest.raises(ValueError, match="threads must be 1, 2 or None"):
        tc.Threads(3, 10**6)
    assert tc.Threads(None, tc.MIN_N - 1).pick() == 1
    assert tc.Threads(2, 10).pick() == 2


@pytest.mark.skipif(tc.numba.get_num_threads() < 2, reason="one numba thread")
def test_threads_automatic_choice_follows_the_faster_kernel():
    import time

    ran = []

    def kernel(budget, two):  # the one-thread kernel is the slower here
        ran.append(two)
        time.sleep(0.001 if two else 0.03)
        return len(ran) == 3 * tc.PROBE

    choice = tc.Threads(None, 10**6)
    steps = choice.steps(kernel)
    while not steps(1):
        pass
    assert ran[:2] == [False, True]                 # both timed first
    assert ran.count(False) == 1 + 3                # then once per PROBE chunks
    assert choice.chunks == {1: 4, 2: 3 * tc.PROBE - 4}


def test_tree_types_do_not_depend_on_the_size():
    """One compiled version of every kernel: a tree over a few records has the
    array layouts of a large one (two cached versions of the parallel kernel
    of ``_twocore`` crash numba)."""
    small, large = (ix.start(as_rows(np.random.default_rng(0).normal(size=(n, 3))))[0]
                    for n in (2, 500))
    assert tc.numba.typeof(small) == tc.numba.typeof(large)


def _compiled_signatures(kernel):
    """The signatures ``kernel`` was compiled for in this process and, through
    numba's cache index (internal API, skipped where it differs), in earlier
    ones: a kernel loaded from the cache never compiles its callees."""
    sigs = list(kernel.signatures)
    try:
        sigs += [key[0] for key in kernel._cache._cache_file._load_index()]
    except AttributeError:
        pass
    return sigs


def test_kernels_compile_one_version_per_argument_type():
    """A constant passed between kernels (``f(x, 0)``, or ``i = 0`` then
    ``i += 1``) is typed as an integer literal, and numba compiles the callee
    for it besides int64 (seconds each for the index queries); a ``prange``
    index is uint64.  The methods over the index, the local search and
    Lin–Kernighan pass int64 and bool; every other mipagg kernel is checked
    on what this process and the cache hold."""
    import sys

    from mipagg.heuristics.mdav import mdav
    from mipagg.refine import local_search
    from mipagg.tsp import lin_kernighan

    from numba import types
    from numba.core.registry import CPUDispatcher

    def odd(t):
        return isinstance(t, types.Literal) or (isinstance(t, types.Integer) and not t.signed)

    X = simu(300, 4, seed=3).X
    for fast, _ in KERNELS:
        fast(X, 3)
    vmdav_labels(X, 3, 0.2)
    md_groups(X, 3)
    order = npn_order(X)
    local_search(X, mdav(X, 3), 3)
    lin_kernighan(X, order)
    kernels = {id(f): f for name, module in list(sys.modules.items())
               if name.startswith("mipagg.")
               for f in vars(module).values() if isinstance(f, CPUDispatcher)}
    assert len(kernels) > 30
    found = sorted({(f.py_func.__qualname__, str(sig)) for f in kernels.values()
                    for sig in _compiled_signatures(f) if any(odd(t) for t in sig)})
    assert found == []


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork")
def test_forked_child_of_a_two_thread_run_keeps_to_one_thread():
    import multiprocessing as mp

    X = simu(300, 4, seed=3).X
    groups = mdav_groups(X, 3, threads=2)   # this process has run the two-thread kernel
    with mp.get_context("fork").Pool(1) as pool:
        child = pool.apply_async(mdav_groups, (X, 3), {"threads": 2}).get(timeout=60)
    assert same_groups(child, groups)
