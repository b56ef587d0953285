"""Getting the inputs of step 1 and 2: a Wikimedia dump set and the DBpedia files, verified.

Wikimedia publishes each dump run as ``{base}/{lang}wiki/{date}/`` with a ``dumpstatus.json`` that
lists every job (``articlesmultistreamdump``, ``redirecttable``, …), its status and its files with
size and sha1. Mirrors copy that layout under their own base URL, so everything here is built from
``base_url`` + the layout, never from the absolute URLs inside ``dumpstatus.json``.

Downloads go to ``NAME.part`` and are resumed with an HTTP Range request (a server that ignores
Range answers 200 and the file starts over), retried with exponential backoff on connection errors,
checked against the published sha1 (or at least the size) and only then renamed to ``NAME``. A file
already present and verified is not fetched again. Only the standard library is used.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import re
import socket
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from wikisilver import __version__
from wikisilver.errors import InputError

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://dumps.wikimedia.org"
DEFAULT_DBPEDIA_BASE_URL = "https://downloads.dbpedia.org"
DEFAULT_DBPEDIA_RELEASE = "2016-10"
USER_AGENT = f"wikisilver/{__version__} (silver NER corpus builder; Python urllib)"

CHUNK = 1 << 20
_TIMEOUT_S = 60.0
# How many of the newest dump runs `latest` looks at before giving up: the newest run is often
# still in progress, the one before it is complete.
_LATEST_CANDIDATES = 4


@dataclass(frozen=True)
class FileKind:
    """A kind of dump file the user can ask for: the dumpstatus jobs that produce it, in order of
    preference, and the pattern its file names match inside those jobs."""

    name: str
    jobs: tuple[str, ...]
    pattern: str
    help: str


# The recombine jobs hold one file for the whole wiki; large wikis also publish the same content in
# pieces (…-multistream1.xml-p1p41242.bz2) under the plain job, which small wikis use instead.
FILE_KINDS: dict[str, FileKind] = {
    kind.name: kind
    for kind in (
        FileKind(
            "pages-articles", ("articlesmultistreamdumprecombine", "articlesmultistreamdump"),
            r"-pages-articles-multistream\d*\.xml(?:-p\d+p\d+)?\.bz2$",
            "articles, templates, … (multistream bz2, the input of `wikisilver build --dump`)",
        ),
        FileKind(
            "multistream-index", ("articlesmultistreamdumprecombine", "articlesmultistreamdump"),
            r"-pages-articles-multistream-index\d*\.txt(?:-p\d+p\d+)?\.bz2$",
            "offsets of the multistream dump (`--multistream-index`)",
        ),
        FileKind(
            "pages-articles-plain", ("articlesdumprecombine", "articlesdump"),
            r"-pages-articles\d*\.xml(?:-p\d+p\d+)?\.bz2$",
            "the same pages as one plain bz2 stream",
        ),
        FileKind("redirect", ("redirecttable",), r"-redirect\.sql\.gz$", "redirect table"),
        FileKind("page", ("pagetable",), r"-page\.sql\.gz$", "page table"),
        FileKind("langlinks", ("langlinkstable",), r"-langlinks\.sql\.gz$", "interlanguage links"),
        FileKind("page_props", ("pagepropstable",), r"-page_props\.sql\.gz$", "page properties"),
    )
}
DEFAULT_FILES = ("pages-articles", "multistream-index", "redirect", "page", "langlinks", "page_props")


@dataclass(frozen=True)
class DbpediaFile:
    """One file of the DBpedia manifest: a URL template with ``{base}``, ``{release}``, ``{lang}``."""

    name: str
    template: str
    help: str


# The DBpedia files `wikisilver build` reads (`--ontology`, `--types`), in the layout of the
# downloads.dbpedia.org releases (2016-10 is the last release in that layout; a mirror or a local
# copy of it works with --dbpedia-base-url). DBpedia publishes no checksums there: the size the
# server announces is checked instead.
DBPEDIA_MANIFEST: tuple[DbpediaFile, ...] = (
    DbpediaFile("ontology", "{base}/{release}/dbpedia_{release}.owl", "the DBpedia ontology (OWL)"),
    DbpediaFile(
        "instance-types", "{base}/{release}/core-i18n/{lang}/instance_types_{lang}.ttl.bz2",
        "most specific DBpedia class of each article of the language",
    ),
)


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


# --------------------------------------------------------------------------- progress


class Progress:
    """A one-line progress bar on a terminal; silent when the stream is not a TTY (logs, CI)."""

    def __init__(
        self, label: str, total: int | None, stream: TextIO | None = None, enabled: bool | None = None,
        done: int = 0,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled if enabled is not None else _isatty(self.stream)
        self.label = label
        self.total = total
        self.done = done
        self._start = time.monotonic()
        self._start_done = done
        self._last_draw = 0.0

    def update(self, count: int) -> None:
        self.done += count
        now = time.monotonic()
        if self.enabled and now - self._last_draw >= 0.1:
            self._last_draw = now
            self._draw(now)

    def restart(self) -> None:
        self.done = self._start_done = 0

    def close(self) -> None:
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-6)
        rate = (self.done - self._start_done) / elapsed
        if self.total:
            share = min(self.done / self.total, 1.0)
            filled = int(share * 24)
            bar = f"[{'#' * filled}{'.' * (24 - filled)}] {share * 100:5.1f}% "
            amount = f"{_size(self.done)}/{_size(self.total)}"
        else:
            bar, amount = "", _size(self.done)
        self.stream.write(f"\r{self.label} {bar}{amount} {_size(rate)}/s  ")
        self.stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _size(count: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GiB"  # pragma: no cover


# --------------------------------------------------------------------------- HTTP


class _Retryable(Exception):
    """A transient failure (connection reset, timeout, 5xx, short read): try again after a pause."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry transient failures (exponential backoff, capped)."""

    attempts: int = 6
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0

    def delay(self, attempt: int) -> float:
        return min(self.backoff_s * (2 ** attempt), self.max_backoff_s)


_TRANSIENT = (
    urllib.error.URLError, ConnectionError, TimeoutError, socket.timeout, http.client.HTTPException,
)


def _request(url: str, headers: dict[str, str] | None = None) -> urllib.request.Request:
    return urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **(headers or {})})


def _open(url: str, headers: dict[str, str] | None = None):
    """Open a URL; HTTP errors become InputError (4xx) or _Retryable (5xx, network)."""
    try:
        return urllib.request.urlopen(_request(url, headers), timeout=_TIMEOUT_S)
    except urllib.error.HTTPError as error:
        error.close()
        if error.code == 416:
            raise
        if error.code == 404:
            raise InputError(url, "not found on the server (HTTP 404)") from None
        if 400 <= error.code < 500:
            raise InputError(url, f"refused by the server (HTTP {error.code} {error.reason})") from None
        raise _Retryable(f"HTTP {error.code} {error.reason}") from None
    except _TRANSIENT as error:
        raise _Retryable(str(getattr(error, "reason", error))) from None


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def _with_retries(
    what: str, action: Callable[[], object], policy: RetryPolicy,
    sleep: Callable[[float], None] | None = None,
) -> object:
    for attempt in range(policy.attempts):
        try:
            return action()
        except _Retryable as error:
            if attempt + 1 >= policy.attempts:
                raise InputError(
                    what, f"giving up after {policy.attempts} attempts ({error})"
                ) from None
            delay = policy.delay(attempt)
            log.warning("%s: %s; retrying in %.0f s", what, error, delay)
            (sleep or _sleep)(delay)
    raise AssertionError("unreachable")  # pragma: no cover


def fetch_text(
    url: str, policy: RetryPolicy = RetryPolicy(), sleep: Callable[[float], None] | None = None
) -> str:
    """A small document (dumpstatus.json, a directory listing), with retries."""

    def action() -> str:
        try:
            with _open(url) as response:
                return response.read().decode("utf-8", errors="replace")
        except _TRANSIENT as error:
            raise _Retryable(str(error)) from None

    return _with_retries(url, action, policy, sleep)  # type: ignore[return-value]


# --------------------------------------------------------------------------- dump sets


def wiki_url(base_url: str, lang: str, *parts: str) -> str:
    """``{base}/{lang}wiki/{parts…}`` (a mirror's base URL may carry a path)."""
    return "/".join([base_url.rstrip("/"), f"{lang}wiki", *parts])


def load_dump_status(
    base_url: str, lang: str, date: str, policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] | None = None,
) -> dict:
    """The parsed ``dumpstatus.json`` of one dump run."""
    url = wiki_url(base_url, lang, date, "dumpstatus.json")
    text = fetch_text(url, policy, sleep)
    try:
        status = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(url, f"not valid JSON ({error.msg})", f"line {error.lineno}") from None
    if not isinstance(status, dict) or not isinstance(status.get("jobs"), dict):
        raise InputError(url, "no 'jobs' object: not a Wikimedia dumpstatus.json")
    return status


def select_files(
    status: dict, kinds: Sequence[str], base_url: str, lang: str, date: str
) -> list[RemoteFile]:
    """The files of the asked kinds in a dump run; InputError when one is missing or unfinished."""
    jobs = status["jobs"]
    where = wiki_url(base_url, lang, date, "dumpstatus.json")
    chosen: list[RemoteFile] = []
    for kind_name in kinds:
        kind = file_kind(kind_name)
        pattern = re.compile(kind.pattern)
        found: list[RemoteFile] = []
        unfinished: list[str] = []
        for job_name in kind.jobs:
            job = jobs.get(job_name)
            if not isinstance(job, dict):
                continue
            names = sorted(name for name in (job.get("files") or {}) if pattern.search(name))
            if job.get("status") != "done":
                if job.get("status") != "skipped":
                    unfinished.append(f"{job_name} is {job.get('status', 'unknown')}")
                continue
            if names:
                found = [
                    _remote_file(name, job["files"][name], base_url, lang, date) for name in names
                ]
                break
        if not found:
            why = "; ".join(unfinished) or f"no job {' or '.join(kind.jobs)} with such files"
            raise InputError(where, f"no finished {kind.name} files in this dump run ({why})")
        chosen.extend(found)
    return chosen


def _remote_file(name: str, info: dict, base_url: str, lang: str, date: str) -> RemoteFile:
    size = info.get("size")
    sha1 = info.get("sha1")
    return RemoteFile(
        name=name,
        url=wiki_url(base_url, lang, date, name),
        size=int(size) if isinstance(size, (int, str)) and str(size).isdigit() else None,
        sha1=sha1.lower() if isinstance(sha1, str) and sha1 else None,
    )


def file_kind(name: str) -> FileKind:
    if name not in FILE_KINDS:
        raise InputError(
            None, f"unknown dump file kind {name!r} (expected one of {', '.join(FILE_KINDS)})"
        )
    return FILE_KINDS[name]


_DATE_LINK = re.compile(r'href="(?:\./)?(\d{8})/?"')


def resolve_date(
    base_url: str, lang: str, date: str, kinds: Sequence[str], policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] | None = None,
) -> tuple[str, dict]:
    """``(date, dumpstatus)`` of the run to fetch: the given YYYYMMDD, or for ``latest`` the newest
    run whose asked-for jobs are all done (read from the directory listing of ``{lang}wiki/``)."""
    if date != "latest":
        if not re.fullmatch(r"\d{8}", date):
            raise InputError(None, f"--date must be 'latest' or YYYYMMDD, not {date!r}")
        return date, load_dump_status(base_url, lang, date, policy, sleep)
    listing_url = wiki_url(base_url, lang) + "/"
    listing = fetch_text(listing_url, policy, sleep)
    dates = sorted(set(_DATE_LINK.findall(listing)), reverse=True)
    if not dates:
        raise InputError(listing_url, "no dump runs (YYYYMMDD/ links) in the directory listing")
    reasons = []
    for candidate in dates[:_LATEST_CANDIDATES]:
        try:
            status = load_dump_status(base_url, lang, candidate, policy, sleep)
            select_files(status, kinds, base_url, lang, candidate)
        except InputError as error:
            log.info("skipping dump run %s: %s", candidate, error.reason)
            reasons.append(f"{candidate}: {error.reason}")
            continue
        return candidate, status
    raise InputError(
        listing_url, f"none of the newest dump runs has every asked file finished ({'; '.join(reasons)})"
    )


# --------------------------------------------------------------------------- one file


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
    bar = Progress(remote.name, remote.size, progress_stream, progress, done=have)
    fetched = 0

    def attempt() -> None:
        nonlocal have, hasher, fetched, resumed
        if remote.size is not None and have == remote.size:
            return
        headers = {"Range": f"bytes={have}-"} if have else {}
        try:
            response = _open(remote.url, headers)
        except urllib.error.HTTPError as error:  # 416: nothing left to send from this offset
            if remote.size is None and have:
                return
            log.warning("%s: server refused range from byte %d; starting over", remote.name, have)
            part.unlink(missing_ok=True)
            have, hasher, resumed = 0, hashlib.sha1(), False
            bar.restart()
            raise _Retryable(f"HTTP {error.code}") from None
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
                        bar.update(len(block))
            except _TRANSIENT as error:
                raise _Retryable(f"connection lost at byte {have} ({error})") from None
            except OSError as error:  # disk full, permissions: retrying will not help
                raise InputError(str(part), f"cannot write ({error.strerror or error})") from None
        if remote.size is not None and have < remote.size:
            raise _Retryable(f"connection closed at byte {have} of {remote.size}")

    try:
        _with_retries(remote.url, attempt, policy, sleep)
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


def _probe_size(
    url: str, policy: RetryPolicy, sleep: Callable[[float], None] | None
) -> int | None:
    """The size a server announces for a URL (HEAD), or None when it does not say."""

    def action() -> int | None:
        request = _request(url)
        request.method = "HEAD"
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as response:
                length = response.headers.get("Content-Length")
                return int(length) if length and length.isdigit() else None
        except urllib.error.HTTPError as error:
            error.close()
            if error.code == 404:
                raise InputError(url, "not found on the server (HTTP 404)") from None
            if error.code < 500:
                return None  # some servers refuse HEAD; the GET will tell
            raise _Retryable(f"HTTP {error.code}") from None
        except _TRANSIENT as error:
            raise _Retryable(str(error)) from None

    return _with_retries(url, action, policy, sleep)  # type: ignore[return-value]


# --------------------------------------------------------------------------- whole sets


def download_dump(
    lang: str, date: str, out_dir: str | Path, *, base_url: str = DEFAULT_BASE_URL,
    kinds: Sequence[str] = DEFAULT_FILES, policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] | None = None, progress: bool | None = None,
    progress_stream: TextIO | None = None,
) -> tuple[str, list[DownloadResult]]:
    """Fetch the asked files of one dump run of ``{lang}wiki``; returns the run's date and results."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", lang):
        raise InputError(None, f"--lang must be a Wikipedia language code such as 'hu', not {lang!r}")
    for kind in kinds:
        file_kind(kind)
    resolved, status = resolve_date(base_url, lang.replace("-", "_"), date, kinds, policy, sleep)
    files = select_files(status, kinds, base_url, lang.replace("-", "_"), resolved)
    return resolved, _download_all(files, out_dir, policy, sleep, progress, progress_stream)


def dbpedia_files(
    lang: str, *, base_url: str = DEFAULT_DBPEDIA_BASE_URL, release: str = DEFAULT_DBPEDIA_RELEASE,
    manifest: Iterable[DbpediaFile] = DBPEDIA_MANIFEST,
) -> list[RemoteFile]:
    """The DBpedia files of the manifest for one language (sizes unknown until asked)."""
    files = []
    for entry in manifest:
        url = entry.template.format(base=base_url.rstrip("/"), release=release, lang=lang)
        files.append(RemoteFile(name=url.rsplit("/", 1)[-1], url=url))
    return files


def download_dbpedia(
    lang: str, out_dir: str | Path, *, base_url: str = DEFAULT_DBPEDIA_BASE_URL,
    release: str = DEFAULT_DBPEDIA_RELEASE, policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] | None = None, progress: bool | None = None,
    progress_stream: TextIO | None = None,
) -> list[DownloadResult]:
    """Fetch the DBpedia ontology and instance types; completeness is checked by size."""
    files = [
        RemoteFile(remote.name, remote.url, _probe_size(remote.url, policy, sleep))
        for remote in dbpedia_files(lang, base_url=base_url, release=release)
    ]
    return _download_all(files, out_dir, policy, sleep, progress, progress_stream)


def _download_all(
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
