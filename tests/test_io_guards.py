"""Nothing lost, nothing leaked (issue 20): inputs, outputs, the command line.

Each case drives ``python -m mipagg.cli`` (or a script) in a subprocess, as a
user does, and checks the exit status, a one-line message without a
traceback, and what is left on disk.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = "a,b\n1,2\n3,4\n5,7\n8,1\n"


def run_cli(*args, cwd, timeout=120, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "mipagg.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=env, **kw)


def assert_clean_error(res, match: str, code: int = 2):
    assert res.returncode == code, (res.returncode, res.stderr)
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if not line.startswith("mipagg: warning")]
    assert len(lines) == 1 and lines[0].startswith("mipagg: error:"), res.stderr
    assert match in lines[0], res.stderr


@pytest.fixture
def data(tmp_path) -> Path:
    path = tmp_path / "t.csv"
    path.write_text(DATA)
    return path


# ------------------------------------------------- the grid runner forks safely

def test_grid_child_after_a_solver_run_in_the_parent(tmp_path):
    """HiGHS 1.16 keeps a global thread pool after the parent's warm-up solve;
    a child forked from it used to spin until killed (status timeout)."""
    lines = (ROOT / "instances" / "simu_n200_seed1.csv").read_text().splitlines()
    (tmp_path / "d.csv").write_text("\n".join(lines[:41]) + "\n")
    (tmp_path / "g.toml").write_text(
        'name = "fork"\nk = [3]\ntime_limit = 20\n[[instances]]\ncsv = "d.csv"\n'
        '[[methods]]\nname = "cg"\noptions = { threads = 1 }\n'
        '[[methods]]\nname = "bp"\noptions = { threads = 1, node_limit = 3 }\n')
    res = run_cli("experiment", "g.toml", "--jobs", 1, "--db", "r.sqlite", "--quiet",
                  cwd=tmp_path, timeout=170)
    assert res.returncode == 0, res.stderr
    assert "(2 ok, 0 failed, 0 timeout)" in res.stdout, res.stdout + res.stderr
