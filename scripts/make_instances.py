"""Write the small simulated instances shipped in ``instances/`` (deterministic).

    .venv/bin/python scripts/make_instances.py

Values are written rounded to 0.01 (the generators draw from [-10 000, 10 000],
so the rounding is far below any group's spread) to keep each file < 200 KB.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from mipagg.generators import normal_small, simc, simu

OUT = Path(__file__).resolve().parent.parent / "instances"

FILES = {
    "simu_n200_seed1.csv": lambda: simu(200, 10, seed=1),
    "simu_n1000_seed1.csv": lambda: simu(1000, 10, seed=1),
    "simc_seed1.csv": lambda: simc(10, seed=1),
    "normal_n11_p3_seed1.csv": lambda: normal_small(11, 3, seed=1),
}


def write(inst, path: Path) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(inst.columns)
        for row in inst.raw:
            w.writerow([f"{v:.2f}" for v in row])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(OUT), help="output folder")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, make in FILES.items():
        inst = make()
        write(inst, out / name)
        print(f"{out / name}: {inst.n} x {inst.raw.shape[1]} ({(out / name).stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
