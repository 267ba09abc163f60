"""What a tree checkpoint costs (issue 22): one ``bp`` tree run whole, and the
same tree stopped at a node limit with ``checkpoint=``, then resumed with
``resume=``, same run.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_checkpoint.py [--quick]
        [--lognormal 80:3:1,100:3:1] [--census 0:300:5] [--split 200]
        [--branching fractional]
    PYTHONPATH=. .venv/bin/python benchmarks/bench_checkpoint.py \
        --rewrite census:5:docs/results/trees/census_k5_8.npz [--repeat 3]
        [--bases 0,4096,16384]

Instances: ``n:k:seed`` of :func:`mipagg.generators.lognormal` (11 columns),
*tree-only* as in ``bench_bp_workers.py`` (cuts, gap closing and the pool MIP
off, so that the tree does the work: hundreds of light nodes), and
``start:stop:k`` blocks of consecutive Census records (``--census``,
``../shared/data/census.csv``, never committed; bp's defaults), one pricing
thread.  Printed per instance: nodes and seconds of the whole tree; of the
split one, the nodes before and after, the seconds of writing the checkpoint
(``time_checkpoint``), its size, the seconds of loading and restoring it
(the resumed run's ``time_tree`` minus the nodes' work is not separable, so
the load is timed on its own), and whether both reach the same optimum.

``--rewrite DATA:K:PATH`` times what a long tree pays per checkpoint: the
committed checkpoint PATH of ``../shared/data/DATA.csv`` at k is restored
and written again (``checkpoint.save``, ``--repeat`` times), its open
nodes' bases held as one process holds them (the master's bases) and as the
parallel coordinator holds them (its :class:`~mipagg.exact.bases.BasisBook`
of the bases the workers sent back).  Run it from two checkouts for a
before/after ratio.  With ``--bases N,M,...`` it writes the checkpoint
instead once per value of ``checkpoint_bases`` (how many open nodes keep
their master basis; the restored nodes without a saved one hold their
nearest relative's), bases held by the master: what keeping more costs in
seconds and bytes.  It also prints what ``retire_cuts`` leaves out of the
checkpoint PATH (the node cuts no saved basis holds tight) and the seconds
that takes (:mod:`mipagg.exact.cutretire`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from _env import machine  # noqa: E402

import mipagg  # noqa: E402
from mipagg.exact import checkpoint  # noqa: E402
from mipagg.exact.bases import BasisBook  # noqa: E402
from mipagg.exact.bp import BPSettings, BranchAndPrice, branch_and_price  # noqa: E402
from mipagg.exact.settings import merge_settings  # noqa: E402
from mipagg.generators import lognormal  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


TREE_ONLY = dict(cuts=False, close_gap=False, mip_time=0, node_close_max_columns=0)


def instances(a):
    for item in filter(None, a.lognormal.split(",")):
        n, k, seed = (int(v) for v in item.split(":"))
        yield f"lognormal n={n} seed={seed}", lognormal(n, 11, seed=seed).X, k, TREE_ONLY
    if a.census:
        X = mipagg.read_csv(DATA / "census.csv").X
        for item in a.census.split(","):
            lo, hi, k = (int(v) for v in item.split(":"))
            B = X[lo:hi]
            yield f"census {lo}-{hi - 1}", (B - B.mean(axis=0)) / B.std(axis=0, ddof=1), k, {}


class _Restored(Exception):
    """Raised with the tree once a checkpoint is restored, before any node."""


class _RestoreOnly(BranchAndPrice):
    def search_tree(self, t0):
        raise _Restored(self)


def restored(spec: str):
    """The tree of ``DATA:K:PATH`` restored, no node solved."""
    data, k, path = spec.split(":", 2)
    X = mipagg.read_csv(DATA / f"{data}.csv").X
    settings = merge_settings(BPSettings, None, dict(resume=path, threads=1))
    try:
        _RestoreOnly(X, int(k), settings).run()
    except _Restored as done:
        return done.args[0]
    raise RuntimeError(f"{path}: the tree did not stop after its restore")


def to_book(tree) -> None:
    """Hand the open nodes' bases to a :class:`BasisBook`, as the parallel
    coordinator keeps those its workers send back."""
    tree.basis_book, kept = BasisBook(), {}
    for nd in tree.open:
        if nd.basis is not None:
            if id(nd.basis) not in kept:
                kept[id(nd.basis)] = tree.basis_book.keep(tree.master.export_basis(nd.basis))
            tree.basis_book.attach(nd.ident, kept[id(nd.basis)])
            nd.basis = None


def rewrite(a) -> None:
    print(f"# {machine()}; {a.rewrite}, written {a.repeat} times per "
          f"{'checkpoint_bases' if a.bases else 'holder'}")
    t0 = time.perf_counter()
    tree = restored(a.rewrite)
    print(f"restored in {time.perf_counter() - t0:.1f} s: {len(tree.open):,} open nodes, "
          f"{len(tree.master.columns):,} columns")
    retire_line(a.rewrite)
    if a.bases:
        return rewrite_bases(tree, a)
    print("| bases held by | write s (each) | file KiB | same arrays as the master's |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        first = Path(tmp) / "master.npz"
        for holder in ("master", "book"):
            out = first if holder == "master" else Path(tmp) / f"{holder}.npz"
            if holder == "book":
                to_book(tree)
            print(f"| {holder} | {saves(tree, out, a.repeat)} | "
                  f"{out.stat().st_size / 1024:,.0f} | {same_arrays(first, out)} |")


def retire_line(spec: str) -> None:
    """What a save's ``retire_cuts`` leaves out of the checkpoint, and its seconds."""
    from mipagg.exact import cutretire

    arrays = checkpoint.read(spec.split(":", 2)[2])
    n, cuts = int(json.loads(str(arrays["meta"]))["n"]), arrays["cut_den"].size
    root = arrays["root_cut_duals"].size if "root_cut_duals" in arrays else 0
    t0 = time.perf_counter()
    gone = cutretire.retire(arrays, n, root)
    print(f"retire_cuts: {gone:,} of {cuts:,} cuts left out ({root:,} the root's, kept) in "
          f"{time.perf_counter() - t0:.2f} s")


def saves(tree, out: Path, repeat: int) -> str:
    """Write ``tree``'s checkpoint to ``out`` ``repeat`` times; the seconds of each."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        checkpoint.save(tree, out)
        times.append(time.perf_counter() - t0)
    return ", ".join(f"{t:.2f}" for t in times)


def rewrite_bases(tree, a) -> None:
    """Write the restored tree once per ``checkpoint_bases`` of ``--bases``."""
    print("| checkpoint_bases | open nodes with a basis | distinct bases | write s (each) | "
          "file KiB |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for room in (int(v) for v in a.bases.split(",")):
            tree.settings.checkpoint_bases = room
            out = Path(tmp) / f"b{room}.npz"
            took = saves(tree, out, a.repeat)
            ck = checkpoint.load(out)
            own = np.zeros(0, int) if ck.node_basis is None else ck.node_basis
            own = own[own >= 0]
            print(f"| {room:,} | {own.size:,} | {np.unique(own).size:,} | {took} "
                  f"| {out.stat().st_size / 1024:,.0f} |")


def same_arrays(a, b) -> str:
    """Whether two checkpoints hold the same arrays (their metadata aside)."""
    with np.load(a) as x, np.load(b) as y:
        names = sorted(set(x.files) - {"meta"})
        if names != sorted(set(y.files) - {"meta"}):
            return "no (other arrays)"
        differ = [f for f in names if not np.array_equal(x[f], y[f])]
    return "yes" if not differ else f"no ({', '.join(differ)})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one small instance")
    ap.add_argument("--lognormal", default="80:3:1,100:3:1")
    ap.add_argument("--census", default="")
    ap.add_argument("--split", type=int, default=200, help="node limit of the first run")
    ap.add_argument("--branching", default="fractional")
    ap.add_argument("--rewrite", default="", help="DATA:K:PATH, a committed checkpoint")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bases", default="", help="with --rewrite: checkpoint_bases values N,M,...")
    a = ap.parse_args()
    if a.rewrite:
        return rewrite(a)
    if a.quick:
        a.lognormal, a.census, a.split = "60:3:1", "", 5
    print(f"# {machine()}; split at {a.split} nodes, branching {a.branching}")
    print("| instance | k | whole: nodes, s | split: nodes first + rest, s | write s | "
          "file KiB | load s | same optimum |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tree.npz"
        for name, X, k, extra in instances(a):
            opts = dict(threads=1, branching=a.branching, **extra)
            t0 = time.perf_counter()
            whole = branch_and_price(X, k, **opts)
            t_whole = time.perf_counter() - t0
            t0 = time.perf_counter()
            first = branch_and_price(X, k, node_limit=a.split, checkpoint=path, **opts)
            if first.checkpoint is None:
                print(f"| {name} | {k} | {whole.nodes}, {t_whole:.1f} | no checkpoint "
                      f"(status {first.status}) | | | | |")
                continue
            t1 = time.perf_counter()
            ck = checkpoint.load(path)
            t_load = time.perf_counter() - t1
            rest = branch_and_price(X, k, resume=path, **opts)
            t_split = time.perf_counter() - t0
            same = rest.status == whole.status == "optimal" and \
                abs(rest.sse - whole.sse) <= 1e-7 * max(1.0, whole.sse)
            print(f"| {name} | {k} | {whole.nodes}, {t_whole:.1f} | {first.nodes} + "
                  f"{rest.nodes - rest.resumed_nodes}, {t_split:.1f} | "
                  f"{first.seconds.get('checkpoint', 0.0):.3f} | "
                  f"{path.stat().st_size / 1024:.0f} | {t_load:.3f} | "
                  f"{'yes' if same else 'NO'} ({len(ck.nodes)} open, {len(ck.columns)} columns) |")


if __name__ == "__main__":
    main()
