"""Portable master bases (mipagg.exact.bases): the coordinator's book and
the checkpoint arrays give back the bases they were given."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from mipagg.exact import bases as bases_module
from mipagg.exact.bases import (BasisBook, PortableBasis, SavedPool, nearest_bases, pack, ragged,
                                unpack)
from mipagg.exact.rules import Node


def _basis(clusters, art=(1,), rows=(1, 0, 2)):
    return PortableBasis.of([np.asarray(c) for c in clusters], art, np.asarray(rows, np.int8))


def _same(a: PortableBasis, b: PortableBasis) -> bool:
    return ([c.tolist() for c in a.clusters()] == [c.tolist() for c in b.clusters()]
            and a.artificial.tolist() == b.artificial.tolist()
            and a.row_status.tolist() == b.row_status.tolist())


def test_the_book_keeps_each_cluster_once_and_gives_the_bases_back():
    book = BasisBook()
    a, b = _basis([(0, 1, 2), (3, 4, 5)]), _basis([(3, 4, 5), (6, 7, 8)], art=(), rows=(1, 1))
    ka, kb = book.keep(a), book.keep(b)
    assert len(book) == 3
    assert _same(book.basis(ka), a) and _same(book.basis(kb), b)
    assert all(c.base is None for c in book.clusters.values())   # copies, not views


def test_a_basis_goes_with_its_last_node_and_a_cluster_with_its_last_basis():
    book = BasisBook()
    a, b = _basis([(0, 1, 2), (3, 4, 5)]), _basis([(3, 4, 5), (6, 7, 8)])
    ka, kb = book.keep(a), book.keep(b)
    book.attach(10, ka)
    book.attach(11, ka)                 # siblings share their parent's basis
    book.attach(12, kb)
    book.release(10)
    assert _same(book.basis(book.get(11)), a) and len(book) == 3
    book.release(11)
    assert book.get(11) is None and len(book) == 2        # (3, 4, 5) is still b's
    assert _same(book.basis(book.get(12)), b)
    c = _basis([(9, 10, 11)])
    book.attach(13, book.keep(c))
    assert len(book) == 3 and book.issued == 4 and _same(book.basis(book.get(13)), c)
    book.release(12)
    book.release(13)
    book.release(99)                    # a node without a basis
    assert len(book) == 0 and not book.nodes


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5),
                          st.lists(st.sampled_from([(0, 1), (1, 2), (2, 3, 4), (5, 6)]),
                                   min_size=1, max_size=3, unique=True)), max_size=40))
def test_the_book_holds_exactly_the_clusters_of_the_nodes_still_attached(ops):
    book, held = BasisBook(), {}
    for add, ident, clusters in ops:
        if add:
            book.attach(ident, book.keep(_basis(clusters)))
            held[ident] = clusters
        else:
            book.release(ident)
            held.pop(ident, None)
        for i, cs in held.items():
            assert [c.tolist() for c in book.basis(book.get(i)).clusters()] == \
                [list(c) for c in cs]
        assert len(book) == len({c for cs in held.values() for c in cs})


def test_checkpoint_arrays_give_the_bases_back_as_pool_indices():
    columns = [np.array([0, 1, 2]), np.array([3, 4, 5])]
    pool = SavedPool({tuple(c.tolist()): j for j, c in enumerate(columns)}, len(columns))
    book = BasisBook()
    bases = [_basis([(3, 4, 5), (0, 1, 2)]), None, _basis([(6, 7, 8), (0, 1, 2)], rows=(2,)),
             _basis([(6, 7, 8), (3, 4, 5)], art=(), rows=(0, 1))]
    kept = [None if b is None else book.keep(b) for b in bases]
    saved = [None if k is None else (book.in_pool(k, pool), k.artificial, k.row_status)
             for k in kept]
    assert [c.tolist() for c in pool.extra] == [[6, 7, 8]]    # a basic cluster the pool lacked
    assert pool.position(np.array([6, 7, 8], np.int32)) == 2 and len(pool.extra) == 1
    everything = columns + pool.extra
    back = unpack(pack(saved))
    assert len(back) == 3
    for (cols, art, rows), b in zip(back, [bases[0], bases[2], bases[3]]):
        got = sorted(everything[j].tolist() for j in cols)
        assert got == sorted(c.tolist() for c in b.clusters())
        assert art.tolist() == b.artificial.tolist() and rows.tolist() == b.row_status.tolist()
    assert unpack({}) == []


def test_a_pool_looks_up_the_clusters_of_a_book_that_grew():
    pool, book = SavedPool({(0, 1): 0}, 1), BasisBook()
    first = book.in_pool(book.keep(_basis([(0, 1), (2, 3)])), pool)
    second = book.in_pool(book.keep(_basis([(4, 5), (2, 3), (0, 1)])), pool)
    assert first.tolist() == [0, 1] and second.tolist() == [2, 1, 0]
    assert [c.tolist() for c in pool.extra] == [[2, 3], [4, 5]]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 50), max_size=6), max_size=20))
def test_ragged_keeps_the_sequences_whether_arrays_or_lists(seqs):
    for given_as in (seqs, [np.asarray(s, dtype=np.int64) for s in seqs]):
        flat, ptr = ragged(given_as, np.int32)
        assert flat.dtype == np.int32 and ptr[-1] == flat.size
        assert [flat[ptr[i]:ptr[i + 1]].tolist() for i in range(len(seqs))] == seqs


_pair = st.tuples(st.integers(0, 5), st.integers(0, 5)).map(lambda p: (min(p), max(p) + 1))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(_pair, max_size=4), st.lists(_pair, max_size=5),
                          st.integers(-1, 3)), min_size=1, max_size=12),
       st.integers(1, 4), st.sampled_from([1 << 28, 4, 100]), st.booleans())
def test_a_node_without_a_basis_gets_its_nearest_relatives(spec, chunk, block_bytes, floats):
    """Each node keeps its own basis; one without gets the basis of the node
    with one whose together and apart pairs differ from its own in the fewest
    pairs (the earliest on ties), by brute force; −1 when no node has one.
    Repeated pairs count once; a together pair is not the same as an apart one.
    The same with the nodes with a basis taken one or a few at a time
    (``block_bytes``), with float32 products (nodes of over 10 922 pairs)
    and with each node's pairs given flat (a, b, a, b, …)."""
    if floats:
        bases_module._product_type, real = (lambda most: np.float32), bases_module._product_type
    try:
        _check_nearest(spec, chunk, block_bytes)
    finally:
        if floats:
            bases_module._product_type = real


def _check_nearest(spec, chunk, block_bytes):
    nodes = [Node(0.0, 0, i, tuple(t), tuple(a)) for i, (t, a, _) in enumerate(spec)]
    own = np.array([b for _, _, b in spec])
    got = nearest_bases([nd.together for nd in nodes], [nd.apart for nd in nodes], own, n=7,
                        chunk=chunk, block_bytes=block_bytes)
    flat = nearest_bases([np.ravel(np.array(nd.together, dtype=np.int64)) for nd in nodes],
                         [np.ravel(np.array(nd.apart, dtype=np.int64)) for nd in nodes], own, n=7)
    assert flat.tolist() == got.tolist()
    some = list(range(0, len(nodes), 2))        # only these resolved, the others as given
    part = nearest_bases([nd.together for nd in nodes], [nd.apart for nd in nodes], own, n=7,
                         only=some, chunk=chunk)
    assert part[some].tolist() == got[some].tolist()
    assert all(part[i] == own[i] for i in range(len(nodes)) if i not in some)
    sets = [{("t", *p) for p in nd.together} | {("a", *p) for p in nd.apart} for nd in nodes]
    have = [j for j in range(len(nodes)) if own[j] >= 0]
    for i in range(len(nodes)):
        if own[i] >= 0 or not have:
            assert got[i] == own[i]
        else:
            j = min(have, key=lambda j: (len(sets[i] ^ sets[j]), j))
            assert got[i] == own[j]


def test_nearest_bases_products_are_int16_while_they_fit():
    """|S_j| − 2|S_i ∩ S_j| lies in [−2m, m] for nodes of at most m pairs."""
    assert bases_module._product_type(10_922) is np.int16
    assert bases_module._product_type(10_923) is np.float32
