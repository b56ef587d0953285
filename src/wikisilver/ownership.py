"""What a run may replace and delete in its output directory: only what wikisilver wrote and
recorded there (a build owns only what it wrote; docs/output.md, "What a build owns").

``--out`` holds one output (a corpus, or an entity table) and whatever else the user keeps there
(where ``--out`` may be at all: wikisilver.destination). A run, before the first byte of work:

* finds what it owns there (:func:`survey`): the files a wikisilver ``manifest.json`` lists (its
  ``files``; a manifest of an earlier version: its ``outputs`` and our part names), the files its
  claim ``.wikisilver-owned.json`` lists (written before a run deletes or places anything, so the
  files of a killed run stay owned), and its staging folders ``.staging-<run>/``, each with the
  marker :data:`RUN_MARKER`;
* refuses an ``--out`` that holds anything else unless it is empty or holds a wikisilver output,
  and refuses when a file it does not own sits where the output is written: :func:`check_owned`.

Then it replaces and deletes file by file, only files it owns (:func:`place`, :func:`commit`);
every other file in ``--out`` is left as it is.
"""

from __future__ import annotations

import json
import os
import re
import socket
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from wikisilver import paths
from wikisilver.errors import InputError, OutputError
from wikisilver.lock import LOCK_NAME, holder_info

MANIFEST = "manifest.json"
CLAIM = ".wikisilver-owned.json"  # the files a run owns while no manifest lists them yet
STAGING_PREFIX = ".staging-"
RUN_MARKER = ".wikisilver-run.json"  # inside a staging folder: which run made it

@dataclass(frozen=True)
class Layout:
    """Where a job writes in its ``--out``: folders of part files, and files at the top."""

    dirs: tuple[str, ...]
    files: tuple[str, ...]

    @property
    def places(self) -> frozenset[str]:
        return frozenset((*self.dirs, *self.files))


CORPUS = Layout(("tsv", "parquet", "rejects"), ("stats.json", "README.md", MANIFEST))  # wikisilver build
ENTITY_TABLE = Layout(("entities", "rejects"), ("stats.json", MANIFEST))  # wikisilver entities
_KNOWN_DIRS = frozenset((*CORPUS.dirs, *ENTITY_TABLE.dirs))  # the only places a manifest may own files in
_KNOWN_FILES = frozenset((*CORPUS.files, *ENTITY_TABLE.files))
# What a manifest of an earlier version (without "files") owns beyond what it names, by tool.
_EARLIER = {
    "wikisilver": (("stats.json", "README.md"), re.compile(r"rejects/part-\d{5}\.jsonl")),
    "wikisilver entities": ((), re.compile(r"entities/part-\d{5}-of-\d{5}\.(tsv|parquet)")),
}
_PROBE = re.compile(r"\.write-test-[0-9a-f]{32}")  # prepare_output's probe of a writable --out


@dataclass
class Output:
    """What a run found in its ``--out`` (:func:`survey`) and what it has placed there since."""

    path: str
    layout: Layout
    owned: frozenset[str]  # relative paths a wikisilver manifest or claim lists (present or not)
    finished: bool  # a wikisilver manifest.json is there
    foreign: tuple[str, ...]  # what nothing of ours lists, where the output is written
    beside: tuple[str, ...]  # what nothing of ours lists, elsewhere ("dir/": a folder, not looked into)
    stale_staging: tuple[str, ...]  # staging folders of runs that are not alive
    placed: set[str] = field(default_factory=set)


# ----------------------------------------------------------------------------- what is ours


def owned_by(record: Any) -> tuple[frozenset[str], re.Pattern | None] | None:
    """The files a wikisilver manifest (or claim) lists, and the pattern of the part names an
    earlier version's manifest owns without naming them; None when ``record`` is not ours."""
    if not isinstance(record, dict) or record.get("tool") not in _EARLIER:
        return None
    files = record.get("files")
    if isinstance(files, list):
        return frozenset(name for name in files if _ownable(name)) | {MANIFEST}, None
    fixed, pattern = _EARLIER[record["tool"]]
    outputs = record.get("outputs") if isinstance(record.get("outputs"), dict) else {}
    named = {f"{kind}/{name}" for kind in ("tsv", "parquet") if isinstance(outputs.get(kind), list)
             for name in outputs[kind] if isinstance(name, str)}
    return frozenset(name for name in named if _ownable(name)) | {MANIFEST, *fixed}, pattern


def _ownable(name: Any) -> bool:
    """A file a manifest may own: one of our top files, or a file directly in one of our folders."""
    if not isinstance(name, str) or "\\" in name:
        return False
    parts = PurePosixPath(name).parts
    if name.startswith("/") or any(part in ("", ".", "..") for part in parts):
        return False
    return (len(parts) == 1 and parts[0] in _KNOWN_FILES) or (len(parts) == 2 and parts[0] in _KNOWN_DIRS)


def _read_record(path: str) -> Any:
    try:
        return json.loads(paths.read_text(path))
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def survey(out: str, layout: Layout) -> Output:
    """What ``out`` holds, sorted into ours (owned files, staging folders) and the user's."""
    try:
        entries = _entries(out)
    except OSError as error:
        raise InputError(out, f"cannot read the output directory ({error.strerror or error})") from None
    # Only plain files are read: a symlink named manifest.json is not ours.
    manifest = owned_by(_read_record(paths.join(out, MANIFEST))) if entries.get(MANIFEST) == "file" else None
    claim = owned_by(_read_record(paths.join(out, CLAIM))) if entries.get(CLAIM) == "file" else None
    owned: set[str] = set()
    for found in (manifest, claim):
        if found is not None:
            named, pattern = found
            owned |= named
            if pattern is not None:
                owned |= {rel for rel in entries if pattern.fullmatch(rel)}
    foreign, beside, stale = [], [], []
    for rel, kind in sorted(entries.items()):
        top = rel.split("/", 1)[0]
        if rel in (LOCK_NAME, CLAIM) or _PROBE.fullmatch(rel):
            continue
        if top.startswith(STAGING_PREFIX) and kind == "dir" and _our_staging(out, top):
            if not _run_alive(out, top):
                stale.append(top)
            continue
        ours = rel in owned and kind != "dir"
        temp = re.fullmatch(r"\.(?:[a-z0-9_]{8}\.)?(.+)\.tmp", rel)  # a write of ours cut short (wikisilver.outputs)
        if temp and temp[1] in (*layout.files, CLAIM) and kind == "file":
            continue
        if ours:
            continue
        where = temp[1] if temp else top
        (foreign if where in (*layout.places, CLAIM) else beside).append(rel)
    return Output(out, layout, frozenset(owned), manifest is not None, tuple(foreign), tuple(beside), tuple(stale))


def _entries(out: str) -> dict[str, str]:
    """What ``out`` holds, relative path -> "file", "dir", "link" or "other": the top entries (an
    empty folder left out), the entries directly in our folder names (a folder deeper is one
    entry, not looked into)."""
    if paths.is_remote(out):
        prefix = paths.normalize(out).rstrip("/") + "/"
        found: dict[str, str] = {}
        for key in paths.walk_files(out):
            parts = key[len(prefix):].split("/")
            depth = 2 if parts[0] in _KNOWN_DIRS else 1
            rel = "/".join(parts[:depth])
            found[rel] = "file" if len(parts) == depth else "dir"
        return found
    if not os.path.isdir(out):
        return {}
    found = {}
    with os.scandir(out) as top:
        for entry in top:
            kind = _kind(entry)
            if kind != "dir":
                found[entry.name] = kind
                continue
            with os.scandir(entry.path) as inner:
                if entry.name in _KNOWN_DIRS:
                    found.update({f"{entry.name}/{sub.name}": _kind(sub) for sub in inner})
                elif next(inner, None) is not None:  # an empty folder holds nothing to lose
                    found[entry.name] = kind
    return found


def _kind(entry: os.DirEntry) -> str:
    if entry.is_symlink():
        return "link"
    if entry.is_dir(follow_symlinks=False):
        return "dir"
    return "file" if entry.is_file(follow_symlinks=False) else "other"


def _our_staging(out: str, name: str) -> bool:
    """A staging folder one of our runs made: its marker names it."""
    marker = _read_record(paths.join(out, name, RUN_MARKER))
    return isinstance(marker, dict) and marker.get("run") == name[len(STAGING_PREFIX):]


def _run_alive(out: str, name: str) -> bool:
    """Whether the run that made a staging folder still lives (a process of this host, not us)."""
    marker = _read_record(paths.join(out, name, RUN_MARKER)) or {}
    pid = marker.get("pid")
    if marker.get("host") != socket.gethostname() or not isinstance(pid, int) or pid == os.getpid() or pid < 1:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def _some(names: Iterable[str], shown: int = 3) -> str:
    names = list(names)
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def check_owned(output: Output) -> None:
    """Refuse an ``--out`` holding what no wikisilver output lists, unless it holds one of ours
    (then only what sits where the output is written is refused; the rest is left alone)."""
    if not output.owned and (output.foreign or output.beside):
        raise InputError(output.path, f"holds files that are not wikisilver's ({_some([*output.foreign, *output.beside])}): "
                                      "refused; --out must be an empty or new folder, or one holding a wikisilver output")
    if output.foreign:
        raise InputError(output.path, f"holds files that its wikisilver output does not list, where the output is "
                                      f"written ({_some(output.foreign)}): refused, wikisilver replaces only what it "
                                      "wrote; move them away or give another --out")


# ----------------------------------------------------------------------------- a run's life


def prepare_output(out: str, overwrite: bool, changed: Iterable[str] = (), layout: Layout = CORPUS) -> Output:
    """Make ``out`` ready for a run (the caller holds its lock, wikisilver.lock): refuse what is
    not ours (:func:`check_owned`) and a finished output unless ``overwrite``; claim what the
    previous output owns, then delete its manifest (from here on it no longer looks finished);
    remove the staging folders of dead runs. ``changed``: what differs from the finished output's
    inputs and options, named in the refusal."""
    output = survey(out, layout)
    check_owned(output)
    if output.finished and not overwrite:
        what = f" (changed: {', '.join(changed)})" if changed else ""
        raise InputError(str(out), f"holds a finished corpus of other inputs or options{what}; "
                                   "pass --overwrite to replace it")
    try:
        paths.makedirs(out)
        probe = paths.join(out, f".write-test-{uuid.uuid4().hex}")
        paths.write_bytes(probe, b"")
        paths.remove([probe])
        if output.owned:
            claim(output, output.owned)
        if output.finished:
            paths.remove([paths.join(out, MANIFEST)])
    except OSError as error:
        raise InputError(str(out), f"output directory is not writable ({error.strerror or error})") from None
    for name in output.stale_staging:
        paths.remove_tree(paths.join(out, name))
    return output


def claim(output: Output, files: Iterable[str]) -> None:
    """Record ``files`` as ours before they are placed or deleted (a killed run's stay owned)."""
    from wikisilver.corpus.write import write_json_atomic

    write_json_atomic(paths.join(output.path, CLAIM), {"tool": "wikisilver", "files": sorted(files)})


@contextmanager
def staged(out: str, names: Iterable[str] = ()) -> Iterator[str]:
    """A staging folder of this run in ``out`` (``.staging-<run>/``, with its marker and the
    subfolders ``names``) for the job to write into; removed on the way out, whether the job
    finished or failed. On an object store it is a prefix."""
    run = uuid.uuid4().hex[:12]
    staging = paths.join(out, f"{STAGING_PREFIX}{run}")
    try:
        paths.makedirs(staging)
        paths.write_bytes(paths.join(staging, RUN_MARKER), json.dumps({**holder_info(), "run": run}).encode())
        for name in names:
            paths.makedirs(paths.join(staging, name))
    except OSError as error:
        raise OutputError(staging, f"cannot write: {error.strerror or error}") from None
    try:
        yield staging
    finally:
        paths.remove_tree(staging)


def place(output: Output, staging: str, names: Iterable[str]) -> None:
    """Move the staged files of the folders ``names`` to the same names in ``out``, file by file
    (a file of ours of that name is replaced); then delete the files the previous output owned
    that this one does not write. Other files are never touched."""
    out = output.path
    names = tuple(names)
    new = set()
    for name in names:
        prefix = paths.join(staging, name).rstrip("/") + "/"
        new |= {f"{name}/{path[len(prefix):]}" for path in paths.walk_files(paths.join(staging, name))}
    claim(output, output.owned | new | set(output.layout.files))
    for name in names:
        target = paths.join(out, name)
        if not paths.is_remote(out) and (os.path.islink(target) or (os.path.lexists(target) and not os.path.isdir(target))):
            raise OutputError(target, "is not a folder of this output: refused, never replaced")
        try:
            paths.move(paths.join(staging, name), target)
        except OSError as error:
            raise OutputError(target, f"cannot write: {error.strerror or error}") from None
    output.placed = new
    _delete_owned(out, output.owned - new - set(output.layout.files), keep=names)


def _delete_owned(out: str, files: Iterable[str], keep: Iterable[str] = ()) -> None:
    """Delete files we own (a folder there now is not one: left), then the folders they were in
    if that left them empty, except the folders ``keep``."""
    files = sorted(files)
    if paths.is_remote(out):
        paths.remove([paths.join(out, rel) for rel in files])
        return
    for rel in files:
        path = os.path.join(out, rel)
        if os.path.isdir(path) and not os.path.islink(path):
            continue
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as error:
            raise OutputError(path, f"cannot delete: {error.strerror or error}") from None
    for folder in sorted({rel.split("/")[0] for rel in files if "/" in rel} - set(keep)):
        try:
            os.rmdir(os.path.join(out, folder))  # only when empty
        except OSError:
            pass


def commit(output: Output, manifest: dict) -> None:
    """Write ``manifest.json`` (the commit marker) listing every file of the output, then drop the claim."""
    from wikisilver.corpus.write import write_json_atomic

    files = sorted(output.placed | set(output.layout.files))
    write_json_atomic(paths.join(output.path, MANIFEST), {**manifest, "files": files})
    paths.remove([paths.join(output.path, CLAIM)])
