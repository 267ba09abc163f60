"""Checkpoint format 3's table of distinct pairs (mipagg.exact.pairtable)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mipagg.exact import pairtable
from mipagg.exact.bases import ragged

pair = st.tuples(st.integers(0, 40), st.integers(0, 40))
nodes_pairs = st.lists(st.lists(pair, max_size=12), max_size=15)


@given(nodes_pairs, st.sampled_from([1 << 24, 0]))
def test_encode_then_decode_gives_each_node_its_pairs(nodes, dense_limit):
    """Each node gets back the same pairs, orientation and repeats included,
    in the order of the table; the table holds each distinct pair once.
    Both ways of finding positions (lookup array, binary search)."""
    flat, ptr = ragged([np.array(p, dtype=np.int64).reshape(-1) for p in nodes])
    positions, offsets, table = pairtable.encode(flat, ptr, dense_limit)
    pairs = table.reshape(-1, 2)
    assert len({tuple(p) for p in pairs.tolist()}) == len(pairs)
    assert [tuple(p) for p in pairs.tolist()] == sorted({p for node in nodes for p in node})
    for i in range(len(nodes)):                          # increasing within a node
        assert (np.diff(positions[offsets[i]:offsets[i + 1]]) >= 0).all()
    back, back_ptr = pairtable.decode(positions, offsets, table)
    assert np.array_equal(back_ptr, ptr)
    for i, node in enumerate(nodes):
        got = back[back_ptr[i]:back_ptr[i + 1]].reshape(-1, 2)
        assert Counter(map(tuple, got.tolist())) == Counter(node)
        assert [tuple(p) for p in got.tolist()] == sorted(node)
    tuples = pairtable.node_tuples(flat, ptr)
    assert tuples == [tuple(sorted(node)) for node in nodes]
    assert all(type(v) is int for node in tuples for p in node for v in p)
    shared = {id(p) for node in tuples for p in node}
    assert len(shared) == len(pairs)                     # one object per distinct pair


def test_shared_pairs_are_stored_once():
    flat, ptr = ragged([np.array([5, 9, 1, 2]), np.array([1, 2]), np.array([], dtype=np.int64),
                        np.array([5, 9, 1, 2, 3, 4])])
    positions, offsets, table = pairtable.encode(flat, ptr)
    assert table.tolist() == [1, 2, 3, 4, 5, 9]
    assert positions.tolist() == [0, 2, 0, 0, 1, 2]
    assert offsets.tolist() == [0, 2, 3, 3, 6]


def test_bad_pairs_are_refused():
    with pytest.raises(ValueError, match="odd offsets"):
        pairtable.encode(np.array([1, 2, 3]), np.array([0, 3]))
    with pytest.raises(ValueError, match="negative"):
        pairtable.encode(np.array([-1, 2]), np.array([0, 2]))
