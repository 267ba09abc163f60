"""A numba cache directory that can be written, so that a read-only install runs.

The compiled kernels are cached (``@njit(cache=True)``) in ``__pycache__``
beside the sources or, failing that, in the user's cache directory
(``~/.cache/numba``).  When neither can be written — an installation owned by
another user, with no writable ``$HOME`` — numba refuses to decorate the
functions and even ``mipagg --version`` would fail.  :func:`ensure_cache_dir`
then points ``NUMBA_CACHE_DIR`` at a private temporary directory, removed at
exit: the kernels are compiled for this process and everything works.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def _user_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "numba"


def ensure_cache_dir() -> None:
    """Set ``NUMBA_CACHE_DIR`` to a temporary directory when no cache
    location numba would use can be written (before numba is imported)."""
    if "numba" in sys.modules:
        return
    given = os.environ.get("NUMBA_CACHE_DIR")
    places = [Path(given)] if given else [Path(__file__).parent / "__pycache__", _user_cache()]
    if any(_writable(p) for p in places):
        return
    try:
        tmp = tempfile.mkdtemp(prefix="mipagg-numba-")
    except OSError:
        return
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = tmp
