"""Input text files: read whole, decoded, or refused with a one-line message.

:func:`read_text` is shared by ``mipagg run`` (:func:`mipagg.instance.read_csv`)
and ``mipagg verify`` (:mod:`mipagg.verify`): a gzip-compressed file is
decompressed, UTF-8 (with or without a byte-order mark) and UTF-16 with a
byte-order mark are decoded, and anything else — another encoding such as
latin-1, a binary file, a directory, a pipe or a device — is a
:class:`~mipagg.errors.DataError` naming the file, never a traceback.

>>> import gzip, pathlib, tempfile
>>> p = pathlib.Path(tempfile.mkdtemp()) / "d.csv.gz"
>>> _ = p.write_bytes(gzip.compress("a,b\\r1,2\\r".encode()))
>>> text = read_text(p)
>>> text, line_ending(text)
('a,b\\r1,2\\r', '\\r')
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from pathlib import Path

from .errors import DataError

__all__ = ["read_text", "line_ending", "looks_like_a_record"]

GZIP_MAGIC = b"\x1f\x8b"


def _check_file(path: Path, what: str) -> None:
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise DataError(f"no such {what}file: {path}") from None
    except OSError as exc:
        raise DataError(f"cannot read {what}file {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise DataError(f"{path} is a directory, not a {what}file")
    if not stat.S_ISREG(mode):
        raise DataError(f"{path} is not a regular file (a pipe or a device); "
                        f"save the {what}data to a file first")


def read_text(path, what: str = "") -> str:
    """The text of ``path``: gunzipped when compressed, decoded from UTF-8
    (a BOM dropped) or BOM-marked UTF-16.  ``what`` ("data ", "labels ")
    prefixes the word "file" in messages."""
    path = Path(path)
    _check_file(path, what)
    data = path.read_bytes()
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataError(f"{path} is a damaged gzip file ({exc})") from None
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise DataError(f"{path} starts with a UTF-16 byte-order mark but is not "
                            "UTF-16 text") from None
    if b"\x00" in data:
        raise DataError(f"{path} is a binary file, not CSV text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                        f"{exc.start}); save it as UTF-8, e.g. iconv -f latin1 -t utf-8")  \
            from None


def line_ending(text: str) -> str:
    """The line ending of ``text``: ``"\\r\\n"``, ``"\\r"`` or ``"\\n"``
    (the first one found; ``"\\n"`` for a single line)."""
    i = text.find("\n")
    j = text.find("\r")
    if j >= 0 and (i < 0 or j < i):
        return "\r\n" if text[j + 1:j + 2] == "\n" else "\r"
    return "\n"


def looks_like_a_record(header: list[str]) -> bool:
    """True when every column name is a number: the file has no header row
    and its first record would be taken for one."""
    def number(cell: str) -> bool:
        try:
            float(cell)
        except ValueError:
            return False
        return True
    return bool(header) and all(number(h.strip()) for h in header)
