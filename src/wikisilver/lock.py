"""One run per output directory: the lock a build (or ``entities`` job) holds on its ``--out``.

Two runs into one directory would sweep each other's staging directories and mix their outputs.
The lock is ``OUT/.wikisilver.lock``, held with ``flock`` for the whole run, and holding the
holder's pid, host and start time as JSON, so the second run can say who holds it. The kernel
drops a ``flock`` when its process dies (even by kill -9), so the lock of a dead local run is taken
over without any guessing; a lock file whose holder is alive refuses the second run, which exits 2.
The lock file is created with ``O_CREAT|O_EXCL|O_NOFOLLOW`` and opened, when there, with
``O_NOFOLLOW``: a symlink, a FIFO, a file with other names or a file that holds something other
than a run's JSON is refused in one line, never followed or written.

An object store (``gs://``, ``s3://``) has no ``flock``: there the lock is the object
``OUT/.wikisilver.lock`` holding the same JSON and a token of the run, rewritten every
:data:`HEARTBEAT_S` seconds while the run lives and deleted at its end. A run that finds a lock
object refreshed within :data:`STALE_S` refuses; an older one is a killed run's and is taken over.
Beam's FileSystems offers no create-if-absent, so taking the lock is write-then-read-back: a run
that reads back another run's token backs off, but two runs started within the same moment can
both see their own token (docs/cloud.md: schedule runs into one cloud ``--out`` so they do not
start together).
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import json
import os
import socket
import stat
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wikisilver import paths
from wikisilver.errors import InputError, OutputLocked

LOCK_NAME = ".wikisilver.lock"
HEARTBEAT_S = 60.0  # how often a run rewrites its lock object on an object store
STALE_S = 600.0  # a lock object not rewritten for this long is a dead run's


def _holder(path: Path | str) -> str:
    try:
        info = json.loads(paths.read_text(path))
        return f"pid {info['pid']} on {info['host']} (since {info['started']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another run"


@contextmanager
def output_lock(out: Path | str) -> Iterator[Path | str]:
    """Hold the lock of ``out`` (created if needed) for the body; raise :class:`OutputLocked`
    naming the holder when another live run has it."""
    if paths.is_remote(out):
        with _object_lock(str(out)) as path:
            yield path
        return
    path = Path(out) / LOCK_NAME
    while True:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(str(out), f"output directory is not writable ({error.strerror or error})") from None
        fd = _open_lock_file(path, str(out))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno not in (errno.EAGAIN, errno.EACCES):
                raise InputError(str(out), f"cannot lock the output directory ({error.strerror or error})") from None
            raise OutputLocked(str(out), f"another wikisilver run is writing here: {_holder(path)}; "
                                         f"wait for it to finish (lock file {path})") from None
        if _same_file(fd, path):
            break
        os.close(fd)  # the holder removed the file between our open and our lock: lock the new one
    try:
        _check_lock_content(fd, path)
    except InputError:
        os.close(fd)
        raise
    try:
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(holder_info()).encode("utf-8"))
        yield path
    finally:
        try:
            if _same_file(fd, path):  # never another file put there meanwhile
                path.unlink()
        except OSError:
            pass
        os.close(fd)


def _open_lock_file(path: Path, out: str) -> int:
    """The lock file, created if absent (O_EXCL), never through a symlink (O_NOFOLLOW); a lock
    file that is not a plain file with one name is refused, never written."""
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    for _ in range(100):  # another run may remove its lock file between our two opens: open again
        try:
            try:
                fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                fd = os.open(path, flags)  # a lock file left by a run (stale, or alive: flock says)
            break
        except FileNotFoundError:
            if not path.parent.is_dir():
                raise InputError(out, "output directory is not writable (it was removed)") from None
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise InputError(str(path), "is a symbolic link: refused, a lock file is never followed; "
                                            "remove it if no wikisilver run is writing here") from None
            if error.errno == errno.EISDIR:
                raise InputError(str(path), "is a directory: refused as a lock file") from None
            raise InputError(out, f"output directory is not writable ({error.strerror or error})") from None
    else:
        raise InputError(str(path), "cannot be opened: other runs keep removing it")
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        what = "not a plain file" if not stat.S_ISREG(st.st_mode) else "a file with other names (hard links)"
        raise InputError(str(path), f"is {what}: refused as a lock file, never written; "
                                    "remove it if no wikisilver run is writing here")
    return fd


def _check_lock_content(fd: int, path: Path) -> None:
    """A lock file we may rewrite holds nothing or a run's JSON; anything else is not ours."""
    data = os.pread(fd, 4096, 0)
    if not data.strip():
        return
    try:
        info = json.loads(data)
    except ValueError:
        info = None
    if not (isinstance(info, dict) and "pid" in info):
        raise InputError(str(path), "is not a wikisilver lock file: refused, never overwritten; "
                                    "remove it if no wikisilver run is writing here")


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` (not followed) is still the file open as ``fd``."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_ino, st.st_dev) == (mine.st_ino, mine.st_dev)


def holder_info() -> dict:
    """Who runs: pid, host and start time (the lock's content, and a staging folder's marker)."""
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}


@contextmanager
def _object_lock(out: str) -> Iterator[str]:
    """The lock of an output on an object store: a lock object kept fresh by a heartbeat."""
    path = paths.join(out, LOCK_NAME)

    def held_by_another() -> OutputLocked:
        return OutputLocked(out, f"another wikisilver run is writing here: {_holder(path)}; "
                                 f"wait for it to finish (lock object {path})")

    try:
        try:
            fresh = time.time() - paths.modified(path) < STALE_S
        except FileNotFoundError:
            fresh = False
        if fresh:
            raise held_by_another()
        text = json.dumps({**holder_info(), "token": uuid.uuid4().hex})
        data = text.encode("utf-8")
        paths.write_bytes(path, data)
        if paths.read_text(path) != text:  # another run wrote its own at the same time
            raise held_by_another()
    except OSError as error:
        raise InputError(out, f"output directory is not writable ({error.strerror or error})") from None
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(path, data, stop), name="wikisilver-lock", daemon=True)
    beat.start()
    try:
        yield path
    finally:
        stop.set()
        beat.join(timeout=10)
        try:
            if paths.read_text(path) == text:
                paths.remove([path])
        except OSError:
            pass


def _heartbeat(path: str, data: bytes, stop: threading.Event) -> None:
    """Rewrite the lock object every HEARTBEAT_S seconds, so that it never looks stale while we run."""
    while not stop.wait(HEARTBEAT_S):
        try:
            paths.write_bytes(path, data)
        except OSError:
            pass  # the next beat tries again; a lock lost for STALE_S may be taken over
