"""Output files that cannot destroy inputs: checked before the work, written atomically.

Every file mipagg writes (masked release, labels, reports, figures, exports)
goes through this module:

* :func:`check_output_path` runs *before* any long computation and refuses,
  with a one-line :class:`OutputError`, a path that is one of the input files
  (same path, a symlink to it or a hard link to it: compared by resolved path
  and by ``st_dev``/``st_ino``), an existing directory, a read-only existing
  file, or a path whose directory is missing or not writable (tested by
  actually creating and removing a temporary file there, so read-only file
  systems, ACLs and root on a read-only mount are all caught).
* :func:`atomic_write` / :func:`atomic_path` write to a temporary file in the
  same directory, flush and ``fsync`` it, then ``os.replace`` it onto the
  target, so a reader sees either the old file or the complete new one.  On
  any exception, including ``KeyboardInterrupt``, the temporary file is
  removed and the old file stays as it was.  Write failures (disk full,
  directory removed meanwhile) become an :class:`OutputError` naming the path.

Streams, devices and pipes (``/dev/stdout``, ``/dev/fd/N``, ``/dev/full``, a
named pipe) cannot be replaced by a rename; they are written in place, through
the descriptor for ``/dev/stdout`` and ``/dev/fd/N`` (which resolve to the file
the shell redirected to: ``>> log.txt`` stays appended to, never replaced).
:func:`output_transaction` replaces several outputs together, or none.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> target = check_output_path(d / "out.csv", inputs=[])
>>> with atomic_write(target) as fh:
...     _ = fh.write("group\\n0\\n")
>>> target.read_text()
'group\\n0\\n'
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
from pathlib import Path
from typing import Iterable, Iterator

from .errors import MipaggError

__all__ = ["OutputError", "check_output_path", "check_outputs", "atomic_write", "atomic_path",
           "output_transaction", "same_file"]


class OutputError(MipaggError):
    """An output path is refused (it is an input, its directory is missing or
    read-only, ...) or writing it failed; the old file, if any, is untouched."""


def _describe(exc: OSError) -> str:
    return exc.strerror or str(exc)


def same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name one file: equal resolved paths, or equal
    device and inode (hard links, bind mounts)."""
    try:
        if a.resolve() == b.resolve():
            return True
    except (OSError, RuntimeError):  # symlink loop
        pass
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _is_special(path: Path) -> bool:
    """An existing file that is neither regular nor a directory (device, pipe)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _probe_directory(directory: Path, shown: str, what: str) -> None:
    """Create and remove a temporary file in ``directory``: the only reliable
    writability test (``os.access`` says yes to root on a read-only mount)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".mipagg-probe-", dir=directory)
    except OSError as exc:
        raise OutputError(f"{what} {shown}: cannot create files in directory "
                          f"{str(directory)!r} ({_describe(exc)})") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def check_output_path(path, inputs: Iterable = (), *, what: str = "output") -> Path:
    """Check that ``path`` can be written without touching any of ``inputs``.

    Returns the path to write (symlinks resolved, so writing replaces the
    file a symlink points to, as ``open(path, "w")`` would).  Raises
    :class:`OutputError` with a one-line message naming ``what`` (e.g.
    ``"--output"``) when ``path`` is one of ``inputs`` (same path, symlink or
    hard link), is a directory, is an existing read-only file, or lies in a
    directory that is missing or where no file can be created.

    >>> try:
    ...     check_output_path("a.csv", inputs=["./a.csv"])
    ... except OutputError as exc:
    ...     print(exc)
    output a.csv: output path is the input file ./a.csv; choose another path
    """
    if path is None or str(path) == "":
        raise OutputError(f"{what}: empty path")
    shown = str(path)
    path = Path(os.path.expanduser(str(path)))
    for inp in inputs:
        if inp is not None and same_file(path, Path(inp)):
            raise OutputError(f"{what} {shown}: output path is the input file {inp}; "
                              "choose another path")
    if path.is_dir():
        raise OutputError(f"{what} {shown} is a directory; give a file name")
    if _in_place(path):  # /dev/stdout, a device, a pipe: written in place
        return path
    try:
        target = path.resolve()
    except (OSError, RuntimeError) as exc:
        raise OutputError(f"{what} {shown}: cannot resolve the path ({exc})") from None
    directory = target.parent
    if not directory.is_dir():
        raise OutputError(f"{what} {shown}: directory {str(directory)!r} does not exist")
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputError(f"{what} {shown} exists and is read-only")
    _probe_directory(directory, shown, what)
    return target


def check_outputs(outputs: dict, inputs: Iterable = ()) -> dict:
    """Check several outputs at once (``{"--output": path, "--labels": path}``;
    ``None`` values are skipped): each against the inputs, and no two the
    same file.  Returns ``{name: checked path}``."""
    inputs = [i for i in inputs if i is not None]
    checked: dict = {}
    for name, path in outputs.items():
        if path is None:
            continue
        target = check_output_path(path, inputs, what=name)
        for other, done in checked.items():
            if same_file(target, done) or target == done:
                raise OutputError(f"{name} and {other} name the same file {path}; "
                                  "give two different paths")
        checked[name] = target
    return checked


def _new_file_mode(target: Path) -> int:
    """Permission bits the file would get from ``open(target, "w")``: those of
    the file it replaces, else 0o666 minus the umask."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


_STD_STREAMS = {"/dev/stdout": 1, "/dev/stderr": 2}
_FD_PATH = re.compile(r"^/(?:dev/fd|proc/self/fd)/(\d+)$")


def _stream_fd(path) -> int | None:
    """The file descriptor ``path`` names (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``), else None.  Such a path resolves to whatever the
    descriptor is open on — with ``>> log.txt`` a regular file that a rename
    would replace and ``open(path, "w")`` would truncate — so it is written
    through the descriptor, never renamed onto or reopened."""
    p = os.path.abspath(os.path.expanduser(str(path)))
    if p in _STD_STREAMS:
        return _STD_STREAMS[p]
    m = _FD_PATH.match(p)
    return int(m.group(1)) if m else None


def _in_place(path: Path) -> bool:
    """A target written in place, not replaced: a stream, a device or a pipe."""
    return _stream_fd(path) is not None or _is_special(path)


def _copy_out(tmp: Path, path: Path) -> None:
    """Write the finished ``tmp`` to a stream, device or pipe ``path``."""
    fd = _stream_fd(path)
    with open(tmp, "rb") as src:
        if fd is None:
            with open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
            return
        for stream in (sys.stdout, sys.stderr):  # keep the order of earlier output
            with contextlib.suppress(Exception):
                stream.flush()
        while chunk := src.read(1 << 16):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view):]


class _Transaction:
    """Finished temporary files waiting for the end of :func:`output_transaction`."""

    def __init__(self):
        self.pending: list[tuple[Path, Path]] = []  # (temporary file, target)

    def discard(self) -> None:
        for tmp, _ in self.pending:
            with contextlib.suppress(OSError):
                tmp.unlink()
        self.pending.clear()

    def commit(self) -> None:
        """Streams and devices first (they can fail, e.g. ``/dev/full``), then
        every rename with SIGINT/SIGTERM held back; a rename that fails puts
        the targets already replaced back as they were."""
        target = None
        try:
            for tmp, target in self.pending:
                if _in_place(target):
                    _copy_out(tmp, target)
            files = [(t, g) for t, g in self.pending if not _in_place(g)]
            backups = []
            with _signals_held():
                try:
                    for tmp, target in files:
                        backups.append((target, _backup(target)))
                        os.replace(tmp, target)
                except OSError:
                    self._roll_back(backups)
                    raise
                finally:
                    for _, backup in backups:
                        if isinstance(backup, Path):
                            with contextlib.suppress(OSError):
                                backup.unlink()
            for _, target in files:
                _sync_directory(target.parent)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"cannot write {target or 'the outputs'}: {_describe(exc)}; "
                              "no output file was replaced") from None
        finally:
            self.discard()

    @staticmethod
    def _roll_back(backups) -> None:
        for target, backup in reversed(backups):
            with contextlib.suppress(OSError):
                if isinstance(backup, Path):
                    os.replace(backup, target)
                elif backup is None:  # there was no file before
                    target.unlink()


def _backup(target: Path):
    """A hard link to the file ``target`` replaces (None: no file there;
    False: it could not be linked, so it cannot be put back)."""
    if not target.is_file():
        return None
    backup = target.with_name(f".{target.name}.{os.getpid()}.old")
    try:
        os.link(target, backup)
    except OSError:
        return False
    return backup


_transaction: list[_Transaction] = []


@contextlib.contextmanager
def output_transaction() -> Iterator[None]:
    """Every :func:`atomic_path` / :func:`atomic_write` inside the block is
    kept in its temporary file until the block ends; then all targets are
    replaced together (``--labels`` and ``--output`` always come from the same
    run).  On an error or interrupt in the block no target is touched."""
    tx = _Transaction()
    _transaction.append(tx)
    try:
        yield
    except BaseException:
        tx.discard()
        raise
    finally:
        _transaction.remove(tx)
    tx.commit()


@contextlib.contextmanager
def _signals_held():
    held = {signal.SIGINT, signal.SIGTERM}
    main = threading.current_thread() is threading.main_thread()
    if main:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        if main:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


@contextlib.contextmanager
def atomic_path(path) -> Iterator[Path]:
    """Yield a temporary path next to ``path`` (same suffix, so writers that
    infer the format from it, e.g. matplotlib, still work); when the block
    ends without error it is fsynced and renamed onto ``path``.  On an
    error or interrupt it is removed and ``path`` is left as it was.

    Streams, devices and pipes (``/dev/stdout``, ``/dev/full``, a FIFO) get
    a temporary file in the temporary directory, copied to them at the end:
    they are written in place, never replaced by a rename.  Inside
    :func:`output_transaction` the final step waits for the end of the
    transaction."""
    path = Path(os.path.expanduser(str(path)))
    special = _in_place(path)
    target = path if special else path.resolve()
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=f".tmp{target.suffix}",
                                    dir=None if special else target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_describe(exc)} (directory "
                          f"{str(target.parent)!r})") from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if not special:
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.chmod(tmp, _new_file_mode(target))
        if _transaction:
            _transaction[-1].pending.append((tmp, target))
            return
        if special:
            _copy_out(tmp, target)
            tmp.unlink()
        else:
            os.replace(tmp, target)
    except BrokenPipeError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise OutputError(f"cannot write {path}: {_describe(exc)}; "
                          "the previous file, if any, is unchanged") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if not special:
        _sync_directory(target.parent)


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", **open_kwargs):
    """``open(path, mode)`` that replaces ``path`` only once everything was
    written (see :func:`atomic_path`); ``mode`` is "w" or "wb"."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path) as tmp:
        try:
            fh = open(tmp, mode, **open_kwargs)
        except OSError as exc:
            raise OutputError(f"cannot write {path}: {_describe(exc)}") from None
        with fh:
            yield fh
