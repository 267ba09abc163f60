"""Node closings' set-partitioning MIPs captured from a tree and solved again
under other HiGHS settings (issue 22, docs/bench/casc_gap.md §61, §81).

``capture DIR -- ARGS`` runs :mod:`bench_subtrees` with ARGS (a sample of a
checkpoint's open subtrees) and writes every node closing's MIP with at least
``--min-clusters`` clusters to DIR, one ``.npz`` each: the clusters, their
weights, the cuts given as rows, the node's cut duals, the incumbent's groups
(the MIP start), the settings of the tree (presolve, restarts) and what the
tree's solve returned (status, seconds, its time limit)::

    python benchmarks/bench_closing_mips.py capture /tmp/mips -- \\
        --resume census:4:docs/results/trees/census_k4_sizes_3.npz --sample 40 --seed 11 \\
        --time-limit 600 --bp-option node_close_gap=0.0002 --bp-option node_close_cuts=all ...

``solve DIR`` solves each captured MIP again, once per variant, the variants
in turn (so that a drift of the machine's speed falls on all of them), each
with ``--time-limit`` seconds, and prints one line per MIP and the totals.
A variant is ``tree`` (as captured) or ``+``-joined changes of it:
``restart=on|off``, ``presolve=on|off``, ``cuts=none``, ``cuts=tight`` (the
cuts of negative dual at the node, :func:`~mipagg.exact.nodeclosing.tight_cuts`;
for MIPs captured with ``node_close_cuts=all``, which get every cut)::

    python benchmarks/bench_closing_mips.py solve /tmp/mips --variants tree,cuts=tight,restart=off

Without arguments: both, on :mod:`bench_subtrees`'s ``--quick`` sample (two
open nodes) of ``census_k4_sizes_3.npz``, in a temporary folder.
The captured files hold record indices and SSE weights, no data; they stay
outside the repository.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine  # noqa: E402

from mipagg.exact import gapclosing, nodeclosing  # noqa: E402
from mipagg.exact.cuts import Rank1Cut, rank1  # noqa: E402
from mipagg.exact.master import set_partitioning_mip  # noqa: E402
from mipagg.exact.nodeclosing import tight_cuts  # noqa: E402


def _flat(groups) -> tuple[np.ndarray, np.ndarray]:
    """Lists of ints as (pointers, values)."""
    sizes = [len(g) for g in groups]
    values = np.concatenate([np.asarray(g, dtype=np.int64) for g in groups]) if groups \
        else np.zeros(0, dtype=np.int64)
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), values


def _unflat(ptr, values) -> list:
    return [values[ptr[i]:ptr[i + 1]] for i in range(ptr.size - 1)]


def save_mip(path: Path, n, columns, weights, kw: dict, result: tuple, seconds: float,
             cut_duals=None) -> None:
    """One closing's MIP and the tree's solve of it as ``path`` (.npz), with
    the node's ``cut_duals`` when the MIP got all the master's cuts."""
    cuts = [rank1(c) for c in kw.get("cuts", ())]
    col_ptr, col_idx = _flat([list(c) for c in columns])
    cut_ptr, cut_rows = _flat([c.rows for c in cuts])
    _, cut_nums = _flat([c.nums for c in cuts])
    meta = {"n": int(n), "presolve": kw.get("presolve", "off"),
            "restart": bool(kw.get("restart", True)), "time_limit": kw.get("time_limit"),
            "status": result[0], "value": result[1], "seconds": round(seconds, 4)}
    np.savez_compressed(path, col_ptr=col_ptr, col_idx=col_idx,
                        weights=np.asarray(weights, dtype=float),
                        start=np.asarray(list(kw.get("start") or ()), dtype=np.int64),
                        cut_ptr=cut_ptr, cut_rows=cut_rows, cut_nums=cut_nums,
                        cut_den=np.array([c.den for c in cuts], dtype=np.int64),
                        cut_duals=np.zeros(0) if cut_duals is None
                        else np.asarray(cut_duals, dtype=float),
                        meta=np.array(json.dumps(meta)))


def load_mip(path: Path) -> dict:
    z = np.load(path)
    mip = json.loads(str(z["meta"]))
    mip["columns"] = [c.tolist() for c in _unflat(z["col_ptr"], z["col_idx"])]
    mip["weights"] = z["weights"]
    mip["start"] = z["start"].tolist()
    rows, nums = _unflat(z["cut_ptr"], z["cut_rows"]), _unflat(z["cut_ptr"], z["cut_nums"])
    mip["cuts"] = [Rank1Cut(tuple(r.tolist()), tuple(a.tolist()), int(d))
                   for r, a, d in zip(rows, nums, z["cut_den"])]
    mip["cut_duals"] = z["cut_duals"] if z["cut_duals"].size else None
    return mip


def capture(out: Path, min_clusters: int, argv: list) -> int:
    """Run bench_subtrees.py with ``argv``, every node closing's MIP of at
    least ``min_clusters`` clusters written to ``out``."""
    import bench_subtrees

    out.mkdir(parents=True, exist_ok=True)
    solve, close, count, node = gapclosing.set_partitioning_mip, nodeclosing.close_node, [0], {}

    def closing(D, X, k, master, stop, *args, **kw):
        node["cuts"], node["duals"] = len(master.cuts), stop.cut_duals
        return close(D, X, k, master, stop, *args, **kw)

    def saving(n, columns, weights, **kw):
        t = time.perf_counter()
        result = solve(n, columns, weights, **kw)
        node_seen = dict(node)
        node.clear()        # a closing outside close_node (the root's) gets no node duals
        if len(columns) >= min_clusters:
            count[0] += 1
            every = len(kw.get("cuts", ())) == node_seen.get("cuts")
            save_mip(out / f"mip{count[0]:04d}.npz", n, columns, weights, kw, result,
                     time.perf_counter() - t, node_seen.get("duals") if every else None)
        return result

    gapclosing.set_partitioning_mip, nodeclosing.close_node = saving, closing
    try:
        code = bench_subtrees.main(argv)
    finally:
        gapclosing.set_partitioning_mip, nodeclosing.close_node = solve, close
    print(f"captured {count[0]} MIPs in {out}")
    return code or 0


def variant_options(mip: dict, variant: str) -> dict:
    """``set_partitioning_mip`` keywords of ``variant`` for ``mip``."""
    opts = {"presolve": mip["presolve"], "restart": mip["restart"], "cuts": mip["cuts"]}
    for change in ([] if variant == "tree" else variant.split("+")):
        key, _, value = change.partition("=")
        if key in ("restart", "presolve") and value in ("on", "off"):
            opts[key] = value if key == "presolve" else value == "on"
        elif change == "cuts=none":
            opts["cuts"] = ()
        elif change == "cuts=tight":
            if mip["cut_duals"] is None:
                raise SystemExit("cuts=tight needs MIPs captured with node_close_cuts=all")
            opts["cuts"] = tight_cuts(mip["cuts"], mip["cut_duals"])
        else:
            raise SystemExit(f"unknown variant change {change!r}")
    return opts


def solve_all(folder: Path, variants: list, time_limit: float, limit: int | None) -> int:
    files = sorted(folder.glob("mip*.npz"))[:limit]
    if not files:
        raise SystemExit(f"no captured MIPs in {folder}")
    print(f"<!-- {machine()} -->")
    totals = {v: [0.0, 0] for v in variants}
    first = load_mip(files[0])          # HiGHS's first solve in a process is slower: untimed
    set_partitioning_mip(first["n"], first["columns"], first["weights"], time_limit=time_limit,
                         start=first["start"], **variant_options(first, "tree"))
    for path in files:
        mip = load_mip(path)
        cells = [path.name, str(len(mip["columns"])), f"tree {mip['status']} {mip['seconds']:.2f}s"]
        for variant in variants:
            info: dict = {}
            t = time.perf_counter()
            status, _, _ = set_partitioning_mip(mip["n"], mip["columns"], mip["weights"],
                                                time_limit=time_limit, start=mip["start"],
                                                info=info, **variant_options(mip, variant))
            seconds = time.perf_counter() - t
            totals[variant][0] += seconds
            totals[variant][1] += status == "optimal"
            cells.append(f"{variant}: {status} {seconds:.2f}s {info.get('nodes', '?')} nodes")
        print(" | ".join(cells), flush=True)
    for variant, (seconds, solved) in totals.items():
        print(f"{variant}: {seconds:.2f} s in all, {solved} of {len(files)} solved")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="bench_closing_mips-"))
        tree = Path(__file__).resolve().parent.parent / "docs/results/trees/census_k4_sizes_3.npz"
        capture(folder, 1, ["--quick", "--resume", f"census:4:{tree}", "--bp-option", "max_size=4",
                            "--bp-option", "node_close_nested=true",
                            "--bp-option", "node_close_cuts=all"])
        return solve_all(folder, ["tree", "cuts=tight", "restart=off"], 30.0, None)
    rest = []
    if "--" in argv:
        cut = argv.index("--")
        argv, rest = argv[:cut], argv[cut + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("capture", "solve"))
    ap.add_argument("folder", type=Path)
    ap.add_argument("--min-clusters", type=int, default=1500,
                    help="capture: the smallest MIP kept, in clusters")
    ap.add_argument("--variants", default="tree,cuts=tight")
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--limit", type=int, help="solve: the first N captured MIPs only")
    a = ap.parse_args(argv)
    if a.mode == "capture":
        return capture(a.folder, a.min_clusters, rest)
    return solve_all(a.folder, a.variants.split(","), a.time_limit, a.limit)


if __name__ == "__main__":
    sys.exit(main())
