"""Open nodes' master bases beyond one process: a store for the coordinator
of the parallel tree and the arrays a checkpoint keeps them in.

A node's first LP from its parent's final basis took about 200 dual simplex
pivots on the Tarragona k = 5 tree, against about 1 200 from an unrelated
node's basis (docs/bench/casc_gap.md §48).  A parent's basis is a
:class:`~mipagg.exact.master.Basis` of one master; as a
:class:`PortableBasis` (its basic columns as clusters)
it reaches another worker's master or the next run of the tree.  A basis is
only a starting point: whatever basis the LP starts from, its optimum, and
so every bound, is the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PortableBasis", "BasisBook", "SavedPool", "ARRAYS", "pack", "unpack", "ragged",
           "nearest_bases"]

# the arrays a checkpoint keeps the bases in
ARRAYS = ("basis_cols", "basis_ptr", "basis_art", "basis_art_ptr", "basis_rows",
          "basis_rows_ptr", "node_basis")


def ragged(seqs, dtype=np.int64) -> tuple:
    """(flat, offsets) of a list of sequences (int64 offsets, one more than
    sequences)."""
    ptr = np.zeros(len(seqs) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(s) for s in seqs])
    if not seqs:
        return np.zeros(0, dtype=dtype), ptr
    if all(isinstance(s, np.ndarray) and s.ndim == 1 for s in seqs):
        flat = np.concatenate(seqs)     # no array per sequence: bases have ~1 000 clusters
    else:
        flat = np.concatenate([np.asarray(s, dtype=dtype).ravel() for s in seqs])
    return flat.astype(dtype, copy=False), ptr


@dataclass(frozen=True, eq=False)
class PortableBasis:
    """A :class:`~mipagg.exact.master.Basis` that any master of the same
    records and rows can load (:meth:`~mipagg.exact.master.MasterProblem.export_basis`,
    :meth:`~mipagg.exact.master.MasterProblem.import_basis`): its basic pool
    columns as clusters (``flat`` records, ``ptr`` offsets), its basic
    artificial columns (indices) and every row's status."""

    flat: np.ndarray            # int32, the basic clusters' records
    ptr: np.ndarray             # int32, offsets into ``flat`` (one more than clusters)
    artificial: np.ndarray      # int32, basic artificial columns
    row_status: np.ndarray      # int8

    @classmethod
    def of(cls, clusters: list, artificial, row_status) -> PortableBasis:
        flat, ptr = ragged(clusters, np.int32)
        return cls(flat, ptr.astype(np.int32), np.asarray(artificial, dtype=np.int32),
                   row_status)

    def clusters(self) -> list:
        return [self.flat[self.ptr[i]:self.ptr[i + 1]] for i in range(self.ptr.size - 1)]


class BasisBook:
    """The open nodes' portable bases, kept compactly: each basic cluster
    once (an id), each basis as cluster ids, so that an open node's basis
    costs about five bytes per master row (siblings share one).  A basis
    is dropped when its last node leaves (:meth:`release`), and a cluster
    when its last basis goes, so the book holds the open nodes' bases and
    no more."""

    def __init__(self):
        self.ids: dict = {}             # a cluster's record bytes -> its id
        self.clusters: dict = {}        # id -> records
        self.uses: dict = {}            # id -> how many kept bases hold it
        self.issued = 0                 # ids handed out so far
        self.nodes: dict = {}           # node ident -> its kept basis

    def keep(self, basis: PortableBasis) -> _Kept:
        """``basis`` in the book, for :meth:`attach` to one or more nodes."""
        ids = np.empty(basis.ptr.size - 1, dtype=np.int32)
        for i, c in enumerate(basis.clusters()):
            key = c.tobytes()
            j = self.ids.get(key)
            if j is None:
                j = self.ids[key] = self.issued
                self.issued += 1
                self.clusters[j] = c.copy()     # not a view holding the whole basis
                self.uses[j] = 0
            self.uses[j] += 1
            ids[i] = j
        return _Kept(ids, basis.artificial, basis.row_status)

    def attach(self, ident, kept: _Kept) -> None:
        """Node ``ident`` starts from ``kept`` (siblings share one)."""
        self.release(ident)
        kept.holders += 1
        self.nodes[ident] = kept

    def get(self, ident) -> _Kept | None:
        return self.nodes.get(ident)

    def release(self, ident) -> None:
        """Node ``ident`` no longer needs its basis (its task returned, or
        it was pruned); the basis and clusters no node holds are dropped."""
        kept = self.nodes.pop(ident, None)
        if kept is None:
            return
        kept.holders -= 1
        if kept.holders:
            return
        for j in kept.ids.tolist():
            self.uses[j] -= 1
            if not self.uses[j]:
                del self.uses[j], self.ids[self.clusters.pop(j).tobytes()]

    def in_pool(self, kept: _Kept, pool: SavedPool) -> np.ndarray:
        """The positions in ``pool`` of ``kept``'s basic clusters; each
        cluster of the book is looked up in a pool once."""
        memo = pool.memo(self.issued)
        new = np.unique(kept.ids[memo[kept.ids] < 0])
        for j in new.tolist():
            memo[j] = pool.position(self.clusters[j])
        return memo[kept.ids]

    def basis(self, kept: _Kept) -> PortableBasis:
        return PortableBasis.of([self.clusters[j] for j in kept.ids.tolist()], kept.artificial,
                                kept.row_status)

    def __len__(self) -> int:
        """How many distinct clusters the book holds."""
        return len(self.ids)


@dataclass(eq=False)
class _Kept:
    """A basis in a :class:`BasisBook`: its clusters' ids, its basic
    artificial columns and row statuses, and how many nodes hold it."""

    ids: np.ndarray
    artificial: np.ndarray
    row_status: np.ndarray
    holders: int = 0


class SavedPool:
    """The cluster pool a checkpoint saves: a master's columns (``index``: a
    cluster's records as a tuple → its position; read, never changed), then
    the basic clusters of saved bases that the master lacks (``extra``)."""

    def __init__(self, index: dict, size: int):
        self.index, self.size = index, size
        self.added: dict = {}
        self.extra: list = []
        self._memo: np.ndarray | None = None

    def position(self, cluster) -> int:
        """Where ``cluster`` (sorted records) is in the pool; appended to
        ``extra`` when the master lacks it."""
        key = tuple(np.asarray(cluster).tolist())
        j = self.index.get(key)
        if j is None:
            j = self.added.get(key)
        if j is None:
            j = self.added[key] = self.size + len(self.extra)
            self.extra.append(np.asarray(key, dtype=np.int64))
        return j

    def memo(self, n: int) -> np.ndarray:
        """The positions of a :class:`BasisBook`'s clusters by id (-1: not
        looked up yet), ids below ``n``; one book per pool (it may grow
        between lookups)."""
        if self._memo is None or self._memo.size < n:
            old = self._memo
            self._memo = np.full(n, -1, dtype=np.int64)
            if old is not None:
                self._memo[:old.size] = old
        return self._memo


def pack(bases: list) -> dict:
    """Arrays for a checkpoint of ``bases``: each None or (the positions of
    its basic clusters in the pool saved beside them, :class:`SavedPool`;
    its basic artificial columns; its row statuses).  The sorted positions
    are stored as differences, which compress well."""
    cols, arts, rows = [], [], []
    for b in bases:
        if b is None:
            continue
        cols.append(np.sort(np.asarray(b[0], dtype=np.int64)))
        arts.append(np.asarray(b[1], dtype=np.int64))
        rows.append(np.asarray(b[2], dtype=np.int8))
    col_flat, col_ptr = ragged(cols, np.int64)
    art_flat, art_ptr = ragged(arts, np.int32)
    row_flat, row_ptr = ragged(rows, np.int8)
    return {"basis_cols": np.diff(col_flat, prepend=0).astype(np.int32), "basis_ptr": col_ptr,
            "basis_art": art_flat, "basis_art_ptr": art_ptr,
            "basis_rows": row_flat, "basis_rows_ptr": row_ptr}


def unpack(arrays: dict) -> list:
    """The bases of :func:`pack`'s ``arrays`` as (indices into the saved
    pool of the basic clusters, basic artificial columns, row statuses);
    [] when the checkpoint holds none."""
    if "basis_cols" not in arrays:
        return []
    cols = np.cumsum(arrays["basis_cols"].astype(np.int64))
    ptr, art_ptr = arrays["basis_ptr"], arrays["basis_art_ptr"]
    art = arrays["basis_art"].astype(np.int32)
    rows, row_ptr = arrays["basis_rows"], arrays["basis_rows_ptr"]
    return [(cols[ptr[i]:ptr[i + 1]], art[art_ptr[i]:art_ptr[i + 1]],
             rows[row_ptr[i]:row_ptr[i + 1]]) for i in range(ptr.size - 1)]


def nearest_bases(together, apart, node_basis: np.ndarray, n: int, only=None,
                  chunk: int = 512, block_bytes: int = 1 << 28) -> np.ndarray:
    """For each node, the basis it starts from: its own (``node_basis`` ≥ 0),
    else that of the node with one whose branching pairs (``together[i]`` and
    ``apart[i]``, sequences of pairs; the fixed apart pairs among them) differ
    from its own in the fewest pairs, the earliest on ties; −1 when no node
    has a basis.  A resumed tree's nodes beyond ``checkpoint_bases`` then
    start from a relative's basis instead of whichever node the master solved
    last: on the Census k = 5 tree, 730 dual simplex pivots on average
    instead of 2 000 (docs/bench/casc_gap.md §59).  ``n``: the records;
    ``only``: the indices of the nodes to resolve (default all; the others
    keep ``node_basis``).  The pairs shared between nodes are few (§64), so
    the nodes with a basis are held dense over them, ``block_bytes`` at a
    time, and each ``chunk`` of nodes without one is one sparse-dense product:
    on the Census k = 4 tree (34 134 nodes against 16 384), 28–30 s instead
    of 166 s for sparse-sparse products over all 2n² pairs."""
    out = np.asarray(node_basis, dtype=np.int64).copy()
    have = np.flatnonzero(out >= 0)
    lack = np.flatnonzero(out < 0) if only is None else \
        np.unique(np.asarray(only, dtype=np.int64)[out[only] < 0])
    if not have.size or not lack.size:
        return out
    pairs = _pair_matrix(together, apart, np.concatenate([have, lack]), n)
    counts = np.diff(pairs.indptr)
    kind = _product_type(int(counts.max(initial=0)))
    pairs.data = pairs.data.astype(kind)
    donors, wanting = pairs[:have.size], pairs[have.size:]
    size = counts[:have.size].astype(kind)
    best = np.full(lack.size, np.inf)
    pick = np.zeros(lack.size, dtype=np.int64)
    step = max(1, block_bytes // (np.dtype(kind).itemsize * max(pairs.shape[1], 1)))
    for lo in range(0, have.size, step):
        dense = np.ascontiguousarray(donors[lo:lo + step].T.toarray())
        for start in range(0, lack.size, chunk):
            # |S_i Δ S_j| = |S_i| + |S_j| − 2|S_i ∩ S_j|; |S_i| is the same along a row
            score = wanting[start:start + chunk] @ dense
            score *= -2
            score += size[lo:lo + step]
            j = np.argmin(score, axis=1)
            s = score[np.arange(j.size), j]
            better = s < best[start:start + chunk]       # strictly: the earliest on ties
            best[start:start + chunk][better] = s[better]
            pick[start:start + chunk][better] = lo + j[better]
    out[lack] = out[have[pick]]
    return out


def _product_type(most: int):
    """The type of :func:`nearest_bases`' products for nodes of at most
    ``most`` pairs: int16 (2.7× faster than float32 on §64's tree) while
    |S_j| − 2|S_i ∩ S_j| fits in it, else float32 (exact below 2**24)."""
    return np.int16 if 3 * most < np.iinfo(np.int16).max else np.float32


def _pair_matrix(together, apart, rows: np.ndarray, n: int):
    """CSR matrix (float32 ones) of the nodes ``rows``' distinct pairs, one
    row per node, one column per pair held by any of them (together and
    apart pairs apart; a pair as given, (a, b) ≠ (b, a))."""
    import itertools

    import scipy.sparse as sp

    from .pairtable import distinct

    def ints(seq):                # a node's pairs: (a, b) tuples, or their values flat
        return seq.ravel().tolist() if isinstance(seq, np.ndarray) else \
            itertools.chain.from_iterable(seq)

    def count(seq) -> int:
        return seq.size // 2 if isinstance(seq, np.ndarray) else len(seq)

    idx = rows.tolist()
    lens = np.array([(count(together[i]), count(apart[i])) for i in idx],
                    dtype=np.int64).reshape(-1, 2)
    flat = np.fromiter(itertools.chain.from_iterable(
        itertools.chain(ints(together[i]), ints(apart[i])) for i in idx),
        dtype=np.int64, count=2 * int(lens.sum())).reshape(-1, 2)
    side = np.repeat(np.tile([0, 1], rows.size), lens.ravel())     # 1: an apart pair
    node = np.repeat(np.arange(rows.size, dtype=np.int64), lens.sum(axis=1))
    code = side * n * n + flat[:, 0] * n + flat[:, 1]
    key = distinct(node * (2 * n * n) + code)
    node, code = key // (2 * n * n), key % (2 * n * n)
    columns = distinct(code)
    ptr = np.zeros(rows.size + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(np.bincount(node, minlength=rows.size))
    return sp.csr_matrix((np.ones(code.size, dtype=np.float32), np.searchsorted(columns, code),
                          ptr), shape=(rows.size, columns.size))
