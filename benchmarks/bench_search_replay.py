"""The exact pricing search (:func:`mipagg.exact.pricing.search.search_clusters`)
on the duals of real tree nodes: capture every exact search of a few nodes,
then time the same searches again, so that two versions of the kernel can be
compared call for call.

    .venv/bin/python benchmarks/bench_search_replay.py --capture /tmp/t5.pkl \
        --resume tarragona:5:docs/results/trees/tarragona_k5_18.npz --nodes 30
    .venv/bin/python benchmarks/bench_search_replay.py --capture /tmp/ln.pkl --lognormal 300:5:1 --nodes 30
    .venv/bin/python benchmarks/bench_search_replay.py --replay /tmp/t5.pkl --repeats 3
    .venv/bin/python benchmarks/compare_trees.py --old ../old --new . --repeats 3 -- \
        benchmarks/bench_search_replay.py --replay /tmp/t5.pkl

Without either, the script captures the lognormal run and replays it.
``--capture`` runs ``bp`` (``--resume name:k:checkpoint``: a CASC tree resumed
from a committed checkpoint, with the options of docs/bench/casc_gap.md §41;
``--lognormal n:k:seed``: from the root, with bp's defaults) for ``--nodes``
nodes and pickles the arguments of every exact search it made (duals, node
constraints, cut penalties, mode).  The file holds data derived from the
reference files: keep it outside the project.  ``--replay`` runs those
searches ``--repeats`` times and prints the best total seconds, the partial
clusters expanded, the microseconds per expansion, and a digest of the
results (every minimum and every column returned): two versions of the
kernel that return the same results print the same digest.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from _env import machine  # noqa: E402

TREE_OPTIONS = dict(max_cut_rounds=30, tail_off=0.005, min_violation=0.02,
                    branching="reliability:4", threads=1, node_close_time=120,
                    column_fixing=True, checkpoint_every=1e9)


def capture(a) -> dict:
    """The distance matrix and the exact searches of ``a.nodes`` nodes of one
    bp run."""
    import mipagg.exact.pricing.enumeration as enumeration
    from mipagg.exact.bp import branch_and_price

    calls: list = []
    found = {}
    search = enumeration.search_clusters

    def recorded(space, lam, cons, **kw):
        found.setdefault("D", space.D)
        calls.append({"eta": space.eta, "lam": np.array(lam), "cons": cons,
                      "kw": {key: v for key, v in kw.items() if key != "deadline"}})
        return search(space, lam, cons, **kw)

    enumeration.search_clusters = recorded
    if a.resume:
        from mipagg.exact.checkpoint import load
        from mipagg.instance import read_csv

        name, k, path = a.resume.split(":", 2)
        X = read_csv(str(Path(a.data_dir) / f"{name}.csv")).X
        done = int(load(path).meta["counts"]["nodes"])
        r = branch_and_price(X, int(k), node_limit=done + a.nodes, resume=path, **TREE_OPTIONS)
    else:
        from mipagg.generators import lognormal

        n, k, seed = (int(v) for v in a.lognormal.split(":"))
        X = lognormal(n, 11, seed=seed).X
        r = branch_and_price(X, k, node_limit=a.nodes)
    enumeration.search_clusters = search
    print(f"captured {len(calls)} searches of {r.nodes - r.resumed_nodes} nodes "
          f"(status {r.status})")
    return {"D": found.get("D"), "calls": calls}


def replay(captured: dict, repeats: int) -> None:
    from mipagg.exact.pricing.search import SearchSpace, search_clusters

    D, calls = captured["D"], captured["calls"]
    spaces = {eta: SearchSpace.build(D, eta) for eta in {c["eta"] for c in calls}}
    best, expansions, digest = np.inf, 0, ""
    for rep in range(max(1, repeats) + 1):         # the first run compiles: not counted
        h = hashlib.sha1()
        total, expansions = 0.0, 0
        for c in calls:
            t0 = time.perf_counter()
            r = search_clusters(spaces[c["eta"]], c["lam"], c["cons"], **c["kw"])
            total += time.perf_counter() - t0
            expansions += r.expansions
            h.update(repr(None if r.min_rc is None else round(r.min_rc, 9)).encode())
            h.update(np.sort(r.columns, axis=1).tobytes() if r.columns.size else b"-")
        best, digest = (min(best, total) if rep else best), h.hexdigest()[:16]
    print(f"{len(calls)} searches: best of {repeats} {best:.3f} s, {expansions} expansions, "
          f"{best / max(expansions, 1) * 1e6:.2f} us each, digest {digest}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--capture", help="write the searches to this file")
    ap.add_argument("--replay", help="time the searches of this file")
    ap.add_argument("--resume", default="", help="name:k:checkpoint")
    ap.add_argument("--lognormal", default="300:5:1", help="n:k:seed (without --resume)")
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[2] / "shared"
                                              / "data"))
    ap.add_argument("--nodes", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    print(machine())
    if not (a.capture or a.replay):         # alone: capture the lognormal run and replay it
        with tempfile.TemporaryDirectory() as tmp:
            a.capture = a.replay = str(Path(tmp) / "searches.pkl")
            return run(a)
    return run(a)


def run(a) -> int:
    if a.capture:
        calls = capture(a)
        with open(a.capture, "wb") as fh:
            pickle.dump(calls, fh)
    if a.replay:
        with open(a.replay, "rb") as fh:
            replay(pickle.load(fh), a.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
