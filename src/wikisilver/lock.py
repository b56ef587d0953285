"""One run per output directory: the lock a build (or ``entities`` job) holds on its ``--out``.

Two runs into one directory would sweep each other's staging directories and mix their outputs.
The lock is ``OUT/.wikisilver.lock``, held with ``flock`` for the whole run, and holding the
holder's pid, host and start time as JSON, so the second run can say who holds it. The kernel
drops a ``flock`` when its process dies (even by kill -9), so the lock of a dead local run is taken
over without any guessing; a lock file whose holder is alive refuses the second run, which exits 2.

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
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wikisilver import paths
from wikisilver.errors import InputError

LOCK_NAME = ".wikisilver.lock"
HEARTBEAT_S = 60.0  # how often a run rewrites its lock object on an object store
STALE_S = 600.0  # a lock object not rewritten for this long is a dead run's


class OutputLocked(InputError):
    """Another run holds the output directory."""


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
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise InputError(str(out), f"output directory is not writable ({error.strerror or error})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno not in (errno.EAGAIN, errno.EACCES):
                raise InputError(str(out), f"cannot lock the output directory ({error.strerror or error})") from None
            raise OutputLocked(str(out), f"another wikisilver run is writing here: {_holder(path)}; "
                                         f"wait for it to finish (lock file {path})") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder removed the file between our open and our lock: lock the new one
    try:
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(_holder_info()).encode("utf-8"))
        yield path
    finally:
        try:
            path.unlink()
        except OSError:
            pass
        os.close(fd)


def _holder_info() -> dict:
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
        text = json.dumps({**_holder_info(), "token": uuid.uuid4().hex})
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
