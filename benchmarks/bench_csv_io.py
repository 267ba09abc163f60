"""Reading a large CSV and writing its masked release and labels, before/after.

    .venv/bin/python benchmarks/bench_csv_io.py [--n 1000000] [--p 10] [--before ecd7dc2]

One SimU file (uniform in [−10⁴, 10⁴]^p, seed n, 17 significant digits, as
``bench_large.py`` writes it) is read by ``mipagg.instance.read_csv`` in fresh
subprocesses: once with the package of commit ``--before`` (exported with
``git archive``: the cell-by-cell reader and writer), once with this checkout.
Each subprocess reads the file, then writes the masked release
(``Instance.write_masked_csv``, groups of 3 consecutive records) and the labels
file (``Partition.write_labels``); it reports the seconds of each step and its
peak resident memory after the read (``ru_maxrss``, which includes the ~100 MiB
of Python, numpy and mipagg).  The two releases must be byte-for-byte equal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _env import machine

ROOT = Path(__file__).resolve().parent.parent


def child(csv: str, out_dir: str) -> None:
    import numpy as np

    from mipagg.instance import read_csv
    from mipagg.partition import Partition

    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    inst = read_csv(csv)
    t1 = time.perf_counter()
    read_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    labels = np.arange(inst.n) // 3
    release = Path(out_dir) / "masked.csv"
    inst.write_masked_csv(labels, release)
    t2 = time.perf_counter()
    Partition(labels, inst.X).write_labels(Path(out_dir) / "labels.csv")
    t3 = time.perf_counter()
    digest = hashlib.sha256(release.read_bytes()).hexdigest()[:16]
    import mipagg

    assert Path(mipagg.__file__).parent.parent == Path(os.environ["PYTHONPATH"])
    print(json.dumps({"read_s": t1 - t0, "masked_s": t2 - t1, "labels_s": t3 - t2,
                      "base_mib": base, "read_peak_mib": read_peak,
                      "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "sha": digest}))


def run(pkg_root: Path, csv: Path, out_dir: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(pkg_root))
    out = subprocess.run([sys.executable, __file__, "--child", str(csv), str(out_dir)],
                         env=env, stdout=subprocess.PIPE, text=True, check=True, cwd=out_dir)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--p", type=int, default=10)
    ap.add_argument("--before", default="ecd7dc2")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return 0
    from bench_large import write_simu  # (it puts this checkout on sys.path: not in a child)

    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        csv = tmp / f"simu_{args.n}x{args.p}.csv"
        write_simu(csv, args.n, args.p)
        print(f"file: {args.n} × {args.p}, {csv.stat().st_size / 2**20:.0f} MiB")
        old = tmp / "before"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "mipagg"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        print("| code | read s | peak MiB after read | masked release s | labels s | "
              "peak MiB | release sha256 | load |")
        print("|---|---|---|---|---|---|---|---|")
        for name, root in ((f"before ({args.before})", old), ("after", ROOT)):
            out = tmp / name.split()[0]
            out.mkdir(exist_ok=True)
            r = run(root, csv, out)
            print(f"| {name} | {r['read_s']:.1f} | {r['read_peak_mib']:.0f} | "
                  f"{r['masked_s']:.1f} | {r['labels_s']:.2f} | {r['peak_mib']:.0f} | "
                  f"{r['sha']} | {os.getloadavg()[0]:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
