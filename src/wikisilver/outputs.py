"""Where a command's output goes, checked before any work and written so that nothing the user did
not name is replaced: the one way every command writes a file.

A destination (``--out``, ``--model``, ``--json``) is one of:

* absent, or a regular file the user may write: written under a temporary name beside it and
  renamed over it when complete (readers never see half a file; a failed run leaves the old one);
* a symbolic link: written *through*, atomically at the file it points to, which stays where it
  is (the link is never replaced by a file);
* a named pipe (FIFO), a character device (``/dev/null``, a terminal) or an open file descriptor
  (``/dev/stdout``, ``/dev/fd/N``): opened for writing and streamed to, never renamed over; only
  formats that are a stream of lines (CoNLL, JSONL, TSV, HTML, JSON) can go there;
* ``-``: standard output (a stream);
* ``gs://…``, ``s3://…`` and any scheme Beam knows: written through :mod:`wikisilver.paths`
  (an object appears whole when its upload ends).

A directory, a socket or a block device is refused in one line, and so is a destination whose
folder cannot be created or written, or a read-only file: :func:`check_output` says which before
the first byte of work, with :class:`~wikisilver.errors.OutputError` (the CLI's one line, exit 2).
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO

from wikisilver import paths
from wikisilver.errors import OutputError

STDOUT = "-"

FILE, STREAM, REMOTE = "file", "stream", "remote"

_MAX_LINKS = 40  # as the kernel's own limit on a chain of symbolic links


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_umask()  # read once, at import, before any thread of a command starts


@dataclass(frozen=True)
class Output:
    """A checked destination: ``given`` as the user wrote it, ``target`` where the bytes go (a
    link's file, the remote URL, ``-``), and how: :data:`FILE` (temporary name and rename),
    :data:`STREAM` (opened and written, ``-`` is standard output) or :data:`REMOTE`."""

    given: str
    target: str
    kind: str
    # ``-``, or a stream that is this process's standard output (/dev/stdout): the command's own
    # lines then go to stderr.
    is_stdout: bool = False

    @property
    def is_stream(self) -> bool:
        return self.kind == STREAM

    def __str__(self) -> str:
        return "standard output" if self.target == STDOUT else self.given


def check_output(path: str | os.PathLike | Output, *, stream: bool = True, what: str = "",
                 option: str = "--out") -> Output:
    """The destination ``path`` checked, before any work: what kind it is and that it can be
    written; :class:`OutputError` in one line otherwise. ``stream``: whether the format can be
    written as a stream (``-``, a pipe, a device); ``what`` names the format in the refusal, and
    ``option`` the option that named the file."""
    if isinstance(path, Output):
        if path.is_stream and not stream:
            raise OutputError(str(path), _no_stream(path, what))
        return path
    given = os.fspath(path)
    if given.endswith(("/", os.sep)) and not paths.is_remote(given) and not os.path.isdir(given):
        raise OutputError(given, f"ends in a slash: {option} names the file to write")
    if given == STDOUT:
        output = Output(given, STDOUT, STREAM, is_stdout=True)
    elif paths.is_remote(given):
        return Output(given, given, REMOTE)
    else:
        output = _local(paths.normalize(given), option)
    if output.is_stream and not stream:
        raise OutputError(str(output), _no_stream(output, what))
    return output


def _no_stream(output: Output, what: str) -> str:
    kind = "standard output" if output.target == STDOUT else _kind_name(os.stat(output.target).st_mode)
    return f"is {kind}: {what or 'this output'} needs a regular file to write; name a file"


def _kind_name(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _local(given: str, option: str) -> Output:
    target, through_fd = _resolve(given)
    if through_fd:  # /dev/stdout, /dev/fd/1: an open file of a process, whatever it is
        try:
            return Output(given, given, STREAM, is_stdout=_is_stdout(os.stat(given)))
        except OSError as error:
            raise OutputError(given, f"cannot write: {error.strerror or error}") from None
    try:
        mode = os.stat(target).st_mode
    except (FileNotFoundError, NotADirectoryError):
        _check_folder_of(given, target)
        return Output(given, target, FILE)
    except OSError as error:
        raise OutputError(given, f"cannot write: {error.strerror or error}") from None
    if stat.S_ISREG(mode):
        if not os.access(target, os.W_OK):
            raise OutputError(given, f"{_via(given, target)}is read-only: not replacing it")
        _check_folder_of(given, target)
        return Output(given, target, FILE)
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        if not os.access(target, os.W_OK):
            raise OutputError(given, f"{_via(given, target)}cannot be written (permission denied)")
        return Output(given, target, STREAM, is_stdout=_is_stdout(os.stat(target)))
    if stat.S_ISDIR(mode):
        raise OutputError(given, f"{_via(given, target)}is a directory: {option} names the file to write")
    raise OutputError(given, f"{_via(given, target)}is {_kind_name(mode)}: name a file, a named pipe or -")


def _is_stdout(found: os.stat_result) -> bool:
    try:
        return os.path.samestat(found, os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):  # no standard output, or not a real file
        return False


def _via(given: str, target: str) -> str:
    return "" if os.path.abspath(given) == target else f"links to {target}, which "


def _resolve(given: str) -> tuple[str, bool]:
    """The file a path's chain of symbolic links ends at (absolute), and whether the chain goes
    through a process's file descriptors (``/proc/…/fd``, where ``/dev/stdout`` leads)."""
    path = os.path.abspath(given)
    for _ in range(_MAX_LINKS):
        folder, name = os.path.split(path)
        path = os.path.join(os.path.realpath(folder), name)
        if path.startswith("/proc/") and "/fd/" in path:
            return path, True
        if not os.path.islink(path):
            return path, False
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    raise OutputError(given, "too many levels of symbolic links")


def _check_folder_of(given: str, target: str) -> None:
    """The folder a new file goes in exists and can be written, or can be created."""
    folder = os.path.dirname(target)
    existing = folder
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        where = "" if existing == folder else f"cannot create folder {folder}: "
        raise OutputError(given, f"{where}{existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        if existing == folder:
            raise OutputError(given, f"cannot write in folder {folder} (permission denied)")
        raise OutputError(given, f"cannot create folder {folder} in {existing} (permission denied)")


def check_folder(path: str | os.PathLike, what: str = "--out") -> str:
    """A folder to write files in (``split --out``, ``download --out``), checked before any work:
    an existing writable folder (or a link to one), or one that can be created."""
    given = paths.normalize(path)
    if paths.is_remote(given):
        return given
    if given == STDOUT:
        raise OutputError(given, f"{what} names a folder; - (standard output) cannot hold files")
    real = os.path.realpath(given)
    if os.path.exists(real):
        if not os.path.isdir(real):
            raise OutputError(given, f"is not a folder: {what} names the folder to write in")
        if not os.access(real, os.W_OK | os.X_OK):
            raise OutputError(given, "cannot write in this folder (permission denied)")
        return given
    _check_folder_of(given, os.path.join(real, "x"))
    return given


# --------------------------------------------------------------------------- writing


@contextmanager
def open_output(out: str | os.PathLike | Output, *, binary: bool = False,
                newline: str | None = "\n") -> Iterator[IO]:
    """A handle to write ``out`` with (text is UTF-8; ``newline`` as :func:`open` takes it). A file
    appears under its name only when the block ends without an error; a stream is written as it
    goes. A failed write is :class:`OutputError` naming the destination."""
    out = check_output(out)
    if out.kind == REMOTE:
        try:
            handle = paths.open_write(out.target) if binary else paths.open_text_write(out.target, newline)
            with handle:
                yield handle
        except OSError as error:
            raise OutputError(out.given, f"cannot write: {error.strerror or error}") from None
        return
    if out.target == STDOUT:
        with _guard(out), _stdout(binary, newline) as handle:
            yield handle
        return
    if out.is_stream:
        try:
            fd = os.open(out.target, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY)
        except OSError as error:
            raise OutputError(out.given, f"cannot write: {error.strerror or error}") from None
        with _guard(out), (os.fdopen(fd, "wb") if binary
                           else open(fd, "w", encoding="utf-8", newline=newline)) as handle:
            yield handle
        return
    text = {} if binary else {"encoding": "utf-8", "newline": newline}
    with _replacing(out) as (fd, _), _guard(out), open(fd, "wb" if binary else "w", **text) as handle:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())


@contextmanager
def output_path(out: str | os.PathLike | Output) -> Iterator[str]:
    """A local path for a writer that takes a file name (Parquet, CRFsuite's model): a new file
    beside the destination, renamed over it when the block ends and removed if it fails; for a
    remote destination, a local temporary file uploaded when the block ends."""
    out = check_output(out, stream=False)
    if out.kind == REMOTE:
        fd, tmp = tempfile.mkstemp(prefix=".wikisilver-", suffix="-" + paths.basename(out.target))
        os.close(fd)
        try:
            yield tmp
            with _guard(out), open(tmp, "rb") as source, paths.open_write(out.target) as sink:
                shutil.copyfileobj(source, sink, 1 << 20)
        finally:
            os.unlink(tmp)
        return
    with _replacing(out) as (fd, tmp):
        os.close(fd)
        yield tmp


@contextmanager
def _replacing(out: Output) -> Iterator[tuple[int, str]]:
    """A new file beside ``out`` (created with O_EXCL, its descriptor and name), renamed over
    ``out`` when the block ends, with the mode of the file it replaces (or the umask's)."""
    folder, name = os.path.split(out.target)
    with _guard(out):
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".", suffix=f".{name}.tmp")
    try:
        yield fd, tmp
        with _guard(out):
            try:
                mode = stat.S_IMODE(os.stat(out.target).st_mode)
            except FileNotFoundError:
                mode = _NEW_FILE_MODE
            os.chmod(tmp, mode)
            os.replace(tmp, out.target)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def write_text(out: str | os.PathLike | Output, text: str) -> None:
    """A whole (small) text file, as :func:`open_output` writes it."""
    with open_output(out) as handle:
        handle.write(text)


@contextmanager
def _guard(out: Output) -> Iterator[None]:
    """An OSError while writing ``out`` as one line naming it (a closed pipe stays what it is:
    the reader went away, which the CLI ends quietly)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(out.given, f"cannot write: {error.strerror or error}") from None


@contextmanager
def _stdout(binary: bool, newline: str | None) -> Iterator[IO]:
    """Standard output as UTF-8 (whatever the locale says), flushed, and left open at the end."""
    sys.stdout.flush()
    buffer = sys.stdout.buffer
    if binary:
        yield buffer
        buffer.flush()
        return
    handle = io.TextIOWrapper(buffer, encoding="utf-8", newline=newline)
    try:
        yield handle
        handle.flush()
    finally:
        handle.detach()
