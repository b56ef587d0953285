"""One run per output directory: the lock a build (or ``entities`` job) holds on its ``--out``.

Two runs into one directory would sweep each other's staging directories and mix their outputs.
The lock is ``OUT/.wikisilver.lock``, held with ``flock`` for the whole run, and holding the
holder's pid, host and start time as JSON, so the second run can say who holds it. The kernel
drops a ``flock`` when its process dies (even by kill -9), so the lock of a dead local run is taken
over without any guessing; a lock file whose holder is alive refuses the second run, which exits 2.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wikisilver.errors import InputError

LOCK_NAME = ".wikisilver.lock"


class OutputLocked(InputError):
    """Another run holds the output directory."""


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return f"pid {info['pid']} on {info['host']} (since {info['started']})"
    except (OSError, ValueError, KeyError, TypeError):
        return "another run"


@contextmanager
def output_lock(out: Path) -> Iterator[Path]:
    """Hold the lock of ``out`` (created if needed) for the body; raise :class:`OutputLocked`
    naming the holder when another live run has it."""
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
        info = {"pid": os.getpid(), "host": socket.gethostname(),
                "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(info).encode("utf-8"))
        yield path
    finally:
        try:
            path.unlink()
        except OSError:
            pass
        os.close(fd)
