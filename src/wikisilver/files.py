"""Opening input files whatever their compression: dumps, indexes, type files, SQL tables.

Every input of the method (step 1's type files and SQL tables, step 2's dumps and their
multistream indexes) comes plain or compressed with bz2 (a multistream dump is many bz2
streams one after another), xz or gzip. The compression is read from the file's first bytes,
never from its name: dumps get renamed, and a ``.bz2`` saved as ``.xml`` is still bz2.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import zlib
from typing import BinaryIO, TextIO

from wikisilver import paths
from wikisilver.errors import InputError

# The magic bytes that open a file of each compression.
_MAGIC = ((b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"), (b"\x1f\x8b", "gz"))
# Each takes a path or a file object.
_OPENERS = {"bz2": bz2.BZ2File, "xz": lzma.LZMAFile, "gz": gzip.open}
# What the decompressors raise on corrupt or cut-short data.
_CORRUPT = (OSError, EOFError, lzma.LZMAError, zlib.error)
# Decompressed bytes asked of a decompressor at a time: what it decoded before failing in one call is
# lost with the call, so a failure is placed within this much of where the data went bad.
_STEP = 8 << 10
_SPECIAL = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
            (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def special_kind(path: str | os.PathLike) -> str | None:
    """What a local path is when it exists but is neither a regular file nor a directory ("a named
    pipe (FIFO)", "a character device", …): an input read more than once cannot be one, and opening
    a FIFO waits for a writer. None for anything else (a remote path too)."""
    path = paths.normalize(path)
    if paths.is_remote(path):
        return None
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return next((name for test, name in _SPECIAL if test(mode)), None)


def compression_of(path: str | os.PathLike) -> str:
    """``"bz2"``, ``"xz"``, ``"gz"`` or ``"plain"``, from the file's magic bytes.

    Raises :class:`InputError` naming the path for a missing file, a directory or a file
    that cannot be opened.
    """
    path = paths.normalize(path)
    special = special_kind(path)
    if special is not None:
        raise InputError(path, f"is {special}, not a regular file")
    try:
        with paths.open_read(path) as handle:
            head = handle.read(8)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a file") from None
    except OSError as error:
        raise InputError(path, f"cannot open: {error.strerror or error}") from None
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return "plain"


class _Decompressed(io.RawIOBase):
    """The decompressed bytes of a file; corrupt data becomes an InputError naming the file and the
    decompressed byte it came after, raised once the bytes before it were passed on (so a reader
    of lines meets it at the line it broke in, not at a read-ahead)."""

    def __init__(self, path: str, kind: str) -> None:
        self._path = path
        self._kind = kind
        # A remote file (gs://, s3://, …) is decompressed from Beam's stream of its bytes.
        self._raw = paths.open_read(path) if paths.is_remote(path) else None
        self._inner = _OPENERS[kind](self._raw or path, "rb")
        self._delivered = 0  # decompressed bytes passed on
        self._failed: InputError | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        if self._failed is not None:
            raise self._failed
        view = memoryview(target)
        filled = 0
        while filled < len(view):
            try:
                got = self._inner.readinto(view[filled : filled + _STEP])
            except _CORRUPT as error:
                self._failed = InputError(
                    self._path, f"unreadable or truncated {self._kind} data after decompressed byte "
                    f"{self._delivered + filled:,} ({error})")
                if filled:
                    break
                raise self._failed from None
            if not got:
                break
            filled += got
        self._delivered += filled
        return filled

    def close(self) -> None:
        self._inner.close()
        if self._raw is not None:  # a file object given to BZ2File & co. is not closed by them
            self._raw.close()
        super().close()


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """The bytes of a plain, bz2 (multistream too), xz or gzip file, decompressed.

    The compression comes from the magic bytes, not the extension. A file that cannot be
    opened, or compressed data that does not decompress, raises :class:`InputError`.
    """
    path = paths.normalize(path)
    kind = compression_of(path)
    if kind == "plain":
        try:
            return paths.open_read(path)
        except OSError as error:
            raise InputError(path, f"cannot open: {error.strerror or error}") from None
    return io.BufferedReader(_Decompressed(path, kind), buffer_size=1 << 20)


def open_text(path: str | os.PathLike, encoding: str = "utf-8", errors: str = "strict") -> TextIO:
    """The text of a plain or compressed file (see :func:`open_binary`), universal newlines."""
    return io.TextIOWrapper(open_binary(path), encoding=encoding, errors=errors, newline=None)
