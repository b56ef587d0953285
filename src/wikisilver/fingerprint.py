"""Which inputs a finished corpus was built from, by content: the fingerprints manifest.json records
and a rerun compares (the no-op rerun of ``wikisilver build``).

Paths and sizes do not tell whether an input changed: a types file edited in place, or a dump
replaced by another of the same size, keeps both. A fingerprint is a digest of the file's content:

* a dump listed (same name, same size) in a ``dumpstatus.json`` beside it: the dump's own
  ``sha1`` from there, read without reading the dump (the first time the file is seen);
* any other file: the SHA-256 of its bytes.

A digest is cached in the manifest next to what ``stat()`` says of the file (size, mtime, ctime,
inode, device). A rerun that finds the same five reuses the recorded digest, so checking an
unchanged 20 GB dump costs one ``stat()``; any change re-reads the file. ctime is the key that makes
this safe: a write, a replacement (new inode) or a ``touch``/``cp -p`` that restores the mtime all
move it, and no user call can set it back. What costs a re-read without a change of content (a
``chmod``, a copy to another disk) only costs time. A remote file (``gs://``, ``s3://``, …) is
keyed by its size, last update and the store's own checksum (:func:`wikisilver.paths.state`): an
object is never changed in place, so a new one moves all three.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping

from wikisilver import paths

def digest_of(path: str, algorithm: str = "sha256") -> str:
    """``"<algorithm>:<hex>"`` of a file's bytes."""
    with paths.open_read(path) as handle:
        return f"{algorithm}:{hashlib.file_digest(handle, algorithm).hexdigest()}"


def dump_status_sha1(path: str, size: int) -> str | None:
    """The sha1 a ``dumpstatus.json`` beside a dump of ``size`` bytes gives for it (same file name
    and size), if any."""
    status_path = paths.join(paths.dirname(path), "dumpstatus.json")
    try:
        jobs = json.loads(paths.read_text(status_path)).get("jobs")
    except (OSError, ValueError, AttributeError):
        return None
    name = paths.basename(path)
    for job in (jobs.values() if isinstance(jobs, dict) else ()):
        info = ((job or {}).get("files") or {}).get(name) if isinstance(job, dict) else None
        if isinstance(info, dict) and str(info.get("size")) == str(size) and isinstance(info.get("sha1"), str):
            return info["sha1"].lower()
    return None


def fingerprint(path: str, known: Mapping[str, Mapping] | None = None, dump: bool = False) -> dict:
    """``{"path", "digest"}`` and the file's :func:`paths.state` (its size, times, …); ``known``: fingerprints recorded earlier, by
    absolute path (their digest is reused when the file's stat is unchanged); ``dump``: look for
    the file's sha1 in a ``dumpstatus.json`` beside it."""
    path = paths.absolute(path)
    state = paths.state(path)
    earlier = (known or {}).get(path)
    if earlier and all(earlier.get(key) == value for key, value in state.items()) and earlier.get("digest"):
        return {"path": path, **state, "digest": earlier["digest"]}
    listed = dump_status_sha1(path, state["bytes"]) if dump else None
    if listed and not earlier:
        digest = f"sha1:{listed}"  # first sight of a dump its dump run vouches for
    else:
        digest = digest_of(path, "sha1" if listed else "sha256")
    return {"path": path, **state, "digest": digest}


def fingerprints(paths: Iterable[str], known: Mapping[str, Mapping] | None = None, dump: bool = False) -> list[dict]:
    """:func:`fingerprint` of each path, in the given order."""
    return [fingerprint(p, known, dump) for p in paths]


def digests(records: Iterable[Mapping]) -> list[str]:
    """The digests of a set of inputs, sorted: the same files in another order or at other paths
    are the same input."""
    return sorted(record["digest"] for record in records)
