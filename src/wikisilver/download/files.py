"""Getting the inputs of steps 1 and 2, one file at a time: resumed, verified, renamed into place.

Downloads go to ``NAME.part`` and are resumed with an HTTP Range request (a server that ignores
Range answers 200 and the file starts over), retried on connection errors
(:mod:`wikisilver.download.http`), checked against the published sha1 (or at least the size) and
only then renamed to ``NAME``. A file already present and verified is not fetched again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import urllib.error
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from wikisilver.download.http import TRANSIENT, RetryPolicy, open_url, with_retries
from wikisilver.errors import Retryable
from wikisilver.errors import InputError
from wikisilver.progress import Progress

log = logging.getLogger(__name__)

CHUNK = 1 << 20


@dataclass(frozen=True)
class RemoteFile:
    """A file to fetch: where from, its name on disk, and what it must look like when complete."""

    name: str
    url: str
    size: int | None = None
    sha1: str | None = None


@dataclass(frozen=True)
class DownloadResult:
    """What happened to one file."""

    path: Path
    size: int
    fetched: int  # bytes transferred in this run
    status: str  # "downloaded", "resumed" or "present" (already there and verified)


def sha1_of(path: Path, hasher: hashlib._Hash | None = None) -> hashlib._Hash:
    """Feed a file to a sha1 (a new one unless given), streamed."""
    hasher = hasher or hashlib.sha1()
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            hasher.update(block)
    return hasher


def _verify(remote: RemoteFile, path: Path, size: int, digest: str | None) -> str | None:
    """Why a complete file does not match what the server published, or None."""
    if remote.size is not None and size != remote.size:
        return f"size {size} where the server published {remote.size}"
    if remote.sha1 is not None and digest is not None and digest != remote.sha1:
        return f"sha1 mismatch: expected {remote.sha1}, got {digest}"
    return None


def download_file(
    remote: RemoteFile, out_dir: str | Path, *, policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] | None = None, progress_stream: TextIO | None = None,
    progress: bool | None = None,
) -> DownloadResult:
    """Fetch one file into ``out_dir`` (resuming ``NAME.part``), verify it, rename it into place."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(str(out), f"cannot create the directory ({error.strerror or error})") from None
    final = out / remote.name
    part = out / f"{remote.name}.part"
    if final.exists():
        size = final.stat().st_size
        digest = sha1_of(final).hexdigest() if remote.sha1 else None
        if _verify(remote, final, size, digest) is None:
            return DownloadResult(final, size, 0, "present")
        log.warning("%s: does not match the published checksum; downloading it again", final)
        final.unlink()

    hasher = hashlib.sha1()
    have = part.stat().st_size if part.exists() else 0
    if remote.size is not None and have > remote.size:
        part.unlink()  # longer than the file can be: not a prefix of it
        have = 0
    resumed = have > 0
    if have:
        sha1_of(part, hasher)
    bar = Progress.terminal_bar(remote.name, remote.size, progress_stream, enabled=progress, done=have)
    fetched = 0

    def attempt() -> None:
        nonlocal have, hasher, fetched, resumed
        if remote.size is not None and have == remote.size:
            return
        headers = {"Range": f"bytes={have}-"} if have else {}
        try:
            response = open_url(remote.url, headers)
        except urllib.error.HTTPError as error:  # 416: nothing left to send from this offset
            if remote.size is None and have:
                return
            log.warning("%s: server refused range from byte %d; starting over", remote.name, have)
            part.unlink(missing_ok=True)
            have, hasher, resumed = 0, hashlib.sha1(), False
            bar.restart()
            raise Retryable(f"HTTP {error.code}") from None
        with response:
            mode = "ab"
            if have and response.status != 206:
                # The server ignored Range and sends the whole file: start over.
                log.info("%s: server ignored the Range request; restarting", remote.name)
                have, hasher, mode, resumed = 0, hashlib.sha1(), "wb", False
                bar.restart()
            elif have and not _content_range_starts_at(response.headers.get("Content-Range"), have):
                raise InputError(remote.url, f"server answered a range not starting at byte {have}")
            try:
                with open(part, mode) as handle:
                    while block := response.read(CHUNK):
                        handle.write(block)
                        hasher.update(block)
                        have += len(block)
                        fetched += len(block)
                        bar.add(len(block))
            except TRANSIENT as error:
                raise Retryable(f"connection lost at byte {have} ({error})") from None
            except OSError as error:  # disk full, permissions: retrying will not help
                raise InputError(str(part), f"cannot write ({error.strerror or error})") from None
        if remote.size is not None and have < remote.size:
            raise Retryable(f"connection closed at byte {have} of {remote.size}")

    try:
        with_retries(remote.url, attempt, policy, sleep)
    finally:
        bar.close()
    digest = hasher.hexdigest()
    problem = _verify(remote, part, have, digest)
    if problem is not None:
        part.unlink(missing_ok=True)  # a resume would only extend the bad bytes
        raise InputError(str(final), f"{problem}; the partial download was removed, run again")
    os.replace(part, final)
    return DownloadResult(final, have, fetched, "resumed" if resumed else "downloaded")


def _content_range_starts_at(header: str | None, offset: int) -> bool:
    match = re.match(r"bytes\s+(\d+)-", header or "")
    return bool(match) and int(match.group(1)) == offset


def download_all(
    files: Sequence[RemoteFile], out_dir: str | Path, policy: RetryPolicy,
    sleep: Callable[[float], None] | None, progress: bool | None, progress_stream: TextIO | None,
) -> list[DownloadResult]:
    return [
        download_file(
            remote, out_dir, policy=policy, sleep=sleep, progress=progress,
            progress_stream=progress_stream,
        )
        for remote in files
    ]
