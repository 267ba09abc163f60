"""The MDAV family at large n, side by side with sdcMicro's C++ MDAV.

    .venv/bin/python benchmarks/bench_large.py [--sizes 1000,10000,100000,1000000]
        [--methods mdav,mdav-1t,mdav-2t] [--k 3] [--p 10] [--reference-up-to 10000] [--peer-up-to 100000]
        [--peer-dir ../shared/peers/sdcmicro]

For every n: one SimU file (seed 004 §5: uniform in [−10⁴, 10⁴]^p, seed n) is
written as CSV; each mipagg method runs in a fresh subprocess that reads the
CSV, standardizes, runs the method (numba kernels loaded from cache and warmed
up on a tiny file first) and computes the IL; the table gives the method's
seconds, the end-to-end seconds and the peak resident memory of that
subprocess (``os.wait4``); the best of 3 runs for n ≤ 10⁴ (both tools), one
run above.  Where n ≤ ``--reference-up-to`` the quadratic
reference kernel runs in the same subprocess and the labels are compared.
sdcMicro's MDAV (``Rscript mdav_peer.R``, the peer driver: best of one run,
its own timer around the C++ call) runs on the same CSV with the same k where
n ≤ ``--peer-up-to``; skipped with a message when Rscript is absent.  The
peer folder is copied to a temporary directory (it compiles into ``cache/``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _env import machine

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT.parent / "shared" / "peers" / "sdcmicro"

# method name -> (module, fast function, reference function or None[, keyword arguments]);
# labels via Partition.  mdav chooses one or two threads as it goes; the -1t/-2t rows fix it.
KERNELS = {
    "mdav": ("mipagg.heuristics.mdav", "mdav_groups", "mdav_groups_reference"),
    "mdav-1t": ("mipagg.heuristics.mdav", "mdav_groups", "mdav_groups_reference", {"threads": 1}),
    "mdav-2t": ("mipagg.heuristics.mdav", "mdav_groups", "mdav_groups_reference", {"threads": 2}),
    "cbfs": ("mipagg.heuristics.fixed", "cbfs_groups", "cbfs_groups_reference"),
    "vmdav": ("mipagg.heuristics.vmdav", "vmdav_labels", "vmdav_labels_reference"),
    "mdav-mhm": ("mipagg.heuristics.paths", "mdav_mhm", None),
    "md": ("mipagg.heuristics.fixed", "md_groups", "md_groups_reference"),
}


def _labels(result, n):
    """Labels from groups, labels or a Partition."""
    import numpy as np

    if hasattr(result, "labels"):
        return np.asarray(result.labels)
    if isinstance(result, np.ndarray):
        return result
    labels = np.empty(n, dtype=np.int64)
    for g, rows in enumerate(result):
        labels[rows] = g
    return labels


def child(args) -> None:
    """Run one method on one CSV and print a JSON line (in a subprocess)."""
    import functools
    import importlib

    import numpy as np

    from mipagg.instance import read_csv
    from mipagg.partition import Partition

    mod, fast, ref, *kw = KERNELS[args.method]
    module = importlib.import_module(mod)
    fast_fn = functools.partial(getattr(module, fast), **(kw[0] if kw else {}))
    warm = np.random.default_rng(0).normal(size=(60, args.p))
    fast_fn(warm, args.k)  # load / compile the kernels outside the timing
    t0 = time.perf_counter()
    inst = read_csv(args.csv)
    t1 = time.perf_counter()
    best = (float("inf"), 0.0)
    for _ in range(args.repeats):  # best of repeats, like the peer driver
        c1, w1 = time.process_time(), time.perf_counter()
        labels = _labels(fast_fn(inst.X, args.k), inst.n)
        best = min(best, (time.perf_counter() - w1, time.process_time() - c1))
    i0 = time.perf_counter()
    il = Partition(labels, inst.X).il()
    total = (t1 - t0) + best[0] + (time.perf_counter() - i0)
    out = {"read": t1 - t0, "method": best[0], "cpu": best[1], "total": total, "il": il}
    if args.reference:
        r0 = time.perf_counter()
        ref_labels = _labels(getattr(module, ref)(inst.X, args.k), inst.n)
        out["reference"] = time.perf_counter() - r0
        out["same"] = bool(np.array_equal(ref_labels, labels))
    print(json.dumps(out))


def run_child(csv: Path, method: str, k: int, p: int, reference: bool, repeats: int) -> dict:
    cmd = [sys.executable, __file__, "--child", "--csv", str(csv), "--method", method,
           "--k", str(k), "--p", str(p), "--repeats", str(repeats)]
    cmd += ["--reference"] if reference else []
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({proc.returncode}): {' '.join(cmd)}")
    res = json.loads(stdout.strip().splitlines()[-1])
    res["peak_mib"] = usage.ru_maxrss / 1024  # kilobytes on Linux
    return res


def run_peer(peer: Path, csv: Path, k: int, repeats: int) -> dict | str:
    out = subprocess.run(["Rscript", str(peer / "mdav_peer.R"), str(peer), str(csv), str(k),
                          str(repeats)],
                         capture_output=True, text=True, check=False)
    m = re.search(r": ([0-9.]+) s .*IL ([0-9.]+)", out.stdout)
    if out.returncode != 0 or not m:
        return f"failed: {out.stderr.strip().splitlines()[-1:] or out.stdout}"
    return {"seconds": float(m.group(1)), "il": float(m.group(2))}


def write_simu(path: Path, n: int, p: int) -> None:
    import numpy as np

    rng = np.random.default_rng(n)
    raw = rng.uniform(-10_000.0, 10_000.0, size=(n, p))
    with open(path, "w") as fh:
        fh.write(",".join(f"x{j + 1}" for j in range(p)) + "\n")
        np.savetxt(fh, raw, delimiter=",", fmt="%.17g")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--methods", default="mdav")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--reference-up-to", type=int, default=10_000)
    ap.add_argument("--peer-up-to", type=int, default=100_000)
    ap.add_argument("--peer-dir", type=Path, default=PEER)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--csv", help=argparse.SUPPRESS)
    ap.add_argument("--method", help=argparse.SUPPRESS)
    ap.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--repeats", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return 0
    print(f"machine: {machine()}")
    print(f"command: python benchmarks/bench_large.py {' '.join(sys.argv[1:])}")
    sizes = [int(s) for s in args.sizes.split(",")]
    methods = args.methods.split(",")
    work = Path(tempfile.mkdtemp(prefix="mipagg-large-"))
    peer = None
    if shutil.which("Rscript") is None:
        print("sdcMicro: skipped (Rscript not found; see ../shared/peers/sdcmicro/README.md)")
    elif not (args.peer_dir / "mdav_peer.R").is_file():
        print(f"sdcMicro: skipped (no peer driver in {args.peer_dir})")
    else:
        peer = work / "sdcmicro"
        shutil.copytree(args.peer_dir, peer, ignore=shutil.ignore_patterns("cache"))
    print()
    print("| n | method | mipagg s (method) | CPU s (method) | mipagg s (read+method+IL) "
          "| peak MiB | IL mipagg | reference s, same labels | sdcMicro s | IL sdcMicro "
          "| sdcMicro / mipagg | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    try:
        for n in sizes:
            csv = work / f"simu-{n}.csv"
            write_simu(csv, n, args.p)
            for method in methods:
                ref = n <= args.reference_up_to and KERNELS[method][2] is not None
                repeats = 3 if n <= 10_000 else 1
                r = run_child(csv, method, args.k, args.p, ref, repeats)
                refcell = f"{r['reference']:.2f}, {'yes' if r['same'] else 'NO'}" if ref else "–"
                pc = "–"
                pil = "–"
                ratio = "–"
                if method == "mdav" and peer is not None and n <= args.peer_up_to:
                    pr = run_peer(peer, csv, args.k, repeats)
                    if isinstance(pr, dict):
                        pc, pil = f"{pr['seconds']:.2f}", f"{pr['il']:.4f}"
                        ratio = f"{pr['seconds'] / r['method']:.1f}×"
                    else:
                        pc = pr
                print(f"| {n} | {method} | {r['method']:.2f} | {r['cpu']:.2f} | {r['total']:.2f} | "
                      f"{r['peak_mib']:.0f} | {r['il']:.4f} | {refcell} | {pc} | {pil} | {ratio} "
                      f"| {os.getloadavg()[0]:.1f} |", flush=True)
            csv.unlink()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
