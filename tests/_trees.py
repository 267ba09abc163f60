"""A small bp tree stopped with a checkpoint, for the tests of what is done
with checkpoints (tests/exact/test_treesample.py, test_treeparts.py)."""

from __future__ import annotations

from mipagg.exact.bp import branch_and_price
from mipagg.exact.reference import set_partitioning
from mipagg.subsets import subset

# the tree alone, most-fractional branching: a few dozen light nodes on 24 records
TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0, threads=1,
                 branching="fractional")


def stopped_tree(census, directory):
    """24 Census records at k = 3 (X), the tree stopped after 12 nodes with
    a checkpoint in ``directory`` (path), and the optimum by the full MIP."""
    X = subset(census, 24, "random", 0).X
    path = directory / "t.npz"
    r = branch_and_price(X, 3, node_limit=12, checkpoint=path, **TREE_ONLY)
    assert r.status == "node_limit" and r.open_nodes >= 4
    return X, path, set_partitioning(X, 3, integral=True)[0]


def file_tree(directory):
    """A 60-record lognormal CSV in ``directory`` and its tree (on the
    standardized file, k = 3) stopped after 4 nodes with a checkpoint:
    (data path, checkpoint path)."""
    import numpy as np

    from mipagg.instance import read_csv

    data, ck = directory / "d.csv", directory / "t.npz"
    rng = np.random.default_rng(3)
    np.savetxt(data, rng.lognormal(size=(60, 3)), delimiter=",", header="a,b,c", comments="")
    r = branch_and_price(read_csv(str(data)).X, 3, node_limit=4, checkpoint=ck, **TREE_ONLY)
    assert r.open_nodes >= 2
    return data, ck
