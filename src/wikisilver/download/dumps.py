"""Getting the input of step 1: the files of one Wikimedia dump run, found from its ``dumpstatus.json``.

Wikimedia publishes each dump run as ``{base}/{lang}wiki/{date}/`` with a ``dumpstatus.json`` that
lists every job (``articlesmultistreamdump``, ``redirecttable``, …), its status and its files with
size and sha1. Mirrors copy that layout under their own base URL, so everything here is built from
``base_url`` + the layout, never from the absolute URLs inside ``dumpstatus.json``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from wikisilver.download.files import DownloadResult, RemoteFile, download_all
from wikisilver.download.http import RetryPolicy, fetch_text
from wikisilver.errors import InputError

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://dumps.wikimedia.org"
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
    return resolved, download_all(files, out_dir, policy, sleep, progress, progress_stream)
