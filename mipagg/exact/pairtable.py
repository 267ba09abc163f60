"""The open nodes' record pairs in a checkpoint, stored through a table of
the distinct pairs (checkpoint format 3; issue 22).

A wide tree's open nodes share few pairs: the 50 518 open nodes of the
Census k = 4 tree hold 13.3 million apart pairs (branching decisions and
pairs fixed by reduced cost), only 4 016 of them distinct.  Each node's
pairs are stored as positions in the table of distinct pairs, in increasing
order: a pair takes 2 bytes instead of 4 before compression, and sibling
nodes' runs of positions compress well (docs/bench/casc_gap.md §64).

The order of a node's pairs is not kept: every user of a node's pairs takes
them as a set (pricing constraints, the master's column mask, pair fixing's
known pairs, the nearest saved basis).  Each pair keeps its orientation.
"""

from __future__ import annotations

import numpy as np

__all__ = ["encode", "decode", "node_tuples", "distinct"]


def encode(flat: np.ndarray, ptr: np.ndarray, dense_limit: int = 1 << 24) -> tuple:
    """(positions, offsets, table) of the nodes' pairs ``flat`` (a, b, a, b,
    …; node i's are ``flat[ptr[i]:ptr[i + 1]]``): ``table`` the distinct
    pairs flattened, in increasing order of (a, b); ``positions`` each
    node's pairs as positions in it, increasing within a node;
    ``offsets`` = ``ptr`` / 2.  Pairs of records below √``dense_limit``
    find their position through a lookup array (0.1 s for the 13.3 million
    pairs above, against 5 s for ``np.unique``'s inverse), others by
    binary search."""
    flat = np.asarray(flat, dtype=np.int64)
    ptr = np.asarray(ptr, dtype=np.int64)
    if flat.size % 2 or (ptr % 2).any():
        raise ValueError(f"pairs of {flat.size} values cut at odd offsets")
    offsets = ptr // 2
    if not flat.size:
        return np.zeros(0, dtype=np.int64), offsets, np.zeros(0, dtype=np.int64)
    if flat.min() < 0:
        raise ValueError("a pair holds a negative record")
    pairs = flat.reshape(-1, 2)
    base = int(pairs.max()) + 1
    code = pairs[:, 0] * base + pairs[:, 1]
    if base * base <= dense_limit:
        seen = np.zeros(base * base, dtype=bool)
        seen[code] = True
        codes = np.flatnonzero(seen)
        positions = (np.cumsum(seen, dtype=np.int64) - 1)[code]
    else:
        codes = distinct(code)
        positions = np.searchsorted(codes, code)
    node = np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))
    positions = np.sort(node * codes.size + positions) - node * codes.size
    table = np.stack([codes // base, codes % base], axis=1).ravel()
    return positions, offsets, table


def decode(positions: np.ndarray, offsets: np.ndarray, table: np.ndarray) -> tuple:
    """(flat, ptr) of :func:`encode`'s output: each node's pairs in the
    order of the table."""
    pairs = np.asarray(table, dtype=np.int64).reshape(-1, 2)
    return pairs[np.asarray(positions, dtype=np.int64)].ravel(), \
        np.asarray(offsets, dtype=np.int64) * 2


def node_tuples(flat: np.ndarray, ptr: np.ndarray) -> list:
    """Each node's pairs as a tuple of (a, b) tuples of ints, in the order of
    :func:`decode`, the nodes sharing one tuple per distinct pair: the
    13.3 million pairs above become 4 016 tuples, not 13.3 million."""
    positions, offsets, table = encode(flat, ptr)
    shared = list(map(tuple, table.reshape(-1, 2).tolist()))
    at = positions.tolist()
    return [tuple(map(shared.__getitem__, at[lo:hi]))
            for lo, hi in zip(offsets[:-1].tolist(), offsets[1:].tolist())]


def distinct(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` by sorting: on the 14 million codes of §64's tree,
    numpy 2.4's hashing ``unique`` took 18 s for two calls, sorting 0.3 s."""
    a = np.sort(a)
    return a[np.concatenate([[True], a[1:] != a[:-1]])] if a.size else a
