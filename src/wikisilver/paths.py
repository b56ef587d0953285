"""Where the inputs and outputs live: a local path, or any file system Apache Beam knows.

Every file wikisilver reads (dumps, multistream indexes, types, ontology, SQL tables, entity
tables, infobox mappings, ``--config``) and every file it writes (parts, rejects, counts, stats,
manifest, dataset card, the lock, staging) goes through these functions. A path with a scheme
(``gs://``, ``s3://``, ``hdfs://``, any other a Beam ``FileSystem`` registers) is handed to Beam's
:class:`~apache_beam.io.filesystems.FileSystems`; a plain path, or ``file://`` + a path, is a local
file and is handled by ``open``/``os`` exactly as before, so local runs do not change by a byte.

Beam's object-store readers (GCS, S3) are seekable, so the multistream dump is read by byte ranges
there too. An object store has no directories and no rename: a "directory" is the prefix
``path/``, and :func:`move` is Beam's copy-and-delete (docs/cloud.md says how the output stays
atomic all the same). Beam's file systems take their settings (credentials, endpoint, project)
from the pipeline options: :func:`configure` hands the run's Beam options to them before any file
is touched, as the workers get them from the job.
"""

from __future__ import annotations

import io
import os
import re
import shutil
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import BinaryIO, TextIO

_SCHEME = re.compile(r"^([a-zA-Z][-a-zA-Z0-9+.]*)://")


def scheme(path: str | os.PathLike) -> str | None:
    """The scheme of a path (``"gs"``, ``"s3"``, …), None for a local path (``file://`` too)."""
    found = _SCHEME.match(os.fspath(path))
    if not found or found.group(1).lower() == "file":
        return None
    return found.group(1).lower()


def is_remote(path: str | os.PathLike) -> bool:
    """Whether a path is read and written through Beam's FileSystems (it has a scheme other than file)."""
    return scheme(path) is not None


def normalize(path: str | os.PathLike) -> str:
    """The path as a string; ``file:///x`` becomes the local path ``/x``."""
    path = os.fspath(path)
    if path[:7].lower() == "file://":
        return path[7:]
    return path


def absolute(path: str | os.PathLike) -> str:
    """A local path made absolute; a remote one as it is."""
    path = normalize(path)
    return path if is_remote(path) else os.path.abspath(path)


def join(base: str | os.PathLike, *parts: str) -> str:
    """``base/part/…`` for a local or a remote base."""
    base = normalize(base)
    if not is_remote(base):
        return os.path.join(base, *parts)
    return "/".join([base.rstrip("/"), *(part.strip("/") for part in parts)])


def basename(path: str | os.PathLike) -> str:
    path = normalize(path)
    return path.rstrip("/").rsplit("/", 1)[-1] if is_remote(path) else os.path.basename(path)


def dirname(path: str | os.PathLike) -> str:
    path = normalize(path)
    if not is_remote(path):
        return os.path.dirname(os.path.abspath(path))
    return path.rstrip("/").rsplit("/", 1)[0]


def _filesystems():
    from apache_beam.io.filesystems import FileSystems

    if FileSystems._pipeline_options is None:  # S3 needs options; none given: the environment's
        from apache_beam.options.pipeline_options import PipelineOptions

        FileSystems.set_options(PipelineOptions([]))
    return FileSystems


def configure(beam_args: Sequence[str]) -> None:
    """Give Beam's file systems the run's pipeline options (S3 endpoint and keys, GCP project, …)
    before the launcher reads or writes a remote path."""
    if not beam_args:
        return
    from apache_beam.options.pipeline_options import PipelineOptions

    _filesystems().set_options(PipelineOptions(list(beam_args)))


def check_remote(path: str | os.PathLike, *, output: bool = False) -> None:
    """Before any work: fail in one line (InputError), within seconds, when a remote input cannot
    be read or a remote output's store cannot be reached (no credentials, no answer from the
    endpoint, no such bucket or object, a scheme no file system reads); local paths pass.
    Every command calls it on the paths it was given (:mod:`wikisilver.remote` probes)."""
    path = normalize(path)
    if is_remote(path):
        from wikisilver.remote import check_remote as probe

        probe(path, output=output)


def _remote_error(path: str, error: Exception) -> OSError:
    """A FileSystems failure as an OSError naming its cause in one line (a missing object stays
    FileNotFoundError)."""
    if isinstance(error, FileNotFoundError):
        return error
    text = str(error).strip().splitlines()
    return OSError(f"{type(error).__name__}: {text[-1] if text else ''}"[:300])


def open_read(path: str | os.PathLike) -> BinaryIO:
    """The raw bytes of a file, seekable (no decompression: :mod:`wikisilver.files` does that)."""
    path = normalize(path)
    if not is_remote(path):
        return open(path, "rb")
    from apache_beam.io.filesystem import CompressionTypes

    try:
        return _filesystems().open(path, compression_type=CompressionTypes.UNCOMPRESSED)
    except FileNotFoundError:
        if isdir(path):
            raise IsADirectoryError(path) from None
        raise
    except Exception as error:  # noqa: BLE001 - every file system raises its own kinds
        raise _remote_error(path, error) from None


def open_write(path: str | os.PathLike) -> BinaryIO:
    """A new file for writing bytes; on an object store the object appears, whole, on close."""
    path = normalize(path)
    if not is_remote(path):
        return open(path, "wb")
    return io.BufferedWriter(_RemoteWriter(path), buffer_size=1 << 20)


class _RemoteWriter(io.RawIOBase):
    """Beam's stream of a new remote file, opened at the first byte written.

    Beam's S3 uploader cannot finish an upload of no bytes (S3 wants at least one part), and an
    empty part of a corpus is a file of no bytes: an object that got no byte is put directly.
    """

    def __init__(self, path: str) -> None:
        self._path = path
        self._stream = None
        self._written = 0

    def writable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._written

    def write(self, data) -> int:
        try:
            if self._stream is None:
                from apache_beam.io.filesystem import CompressionTypes

                self._stream = _filesystems().create(self._path, mime_type="application/octet-stream",
                                                     compression_type=CompressionTypes.UNCOMPRESSED)
            self._stream.write(data)
        except Exception as error:  # noqa: BLE001 - every file system raises its own kinds
            raise _remote_error(self._path, error) from None
        self._written += len(data)
        return len(data)

    def close(self) -> None:
        if self.closed:
            return
        try:
            if self._stream is not None:
                self._stream.close()
            elif scheme(self._path) == "s3":
                _put_empty_s3_object(self._path)
            else:
                from apache_beam.io.filesystem import CompressionTypes

                _filesystems().create(self._path, compression_type=CompressionTypes.UNCOMPRESSED).close()
        except Exception as error:  # noqa: BLE001
            raise _remote_error(self._path, error) from None
        finally:
            super().close()


def _put_empty_s3_object(path: str) -> None:
    """An object of no bytes on S3, put with the client Beam builds from its S3 options."""
    from apache_beam.io.aws.clients.s3.boto3_client import Client
    from apache_beam.io.aws.s3io import parse_s3_path

    bucket, name = parse_s3_path(path)
    Client(options=_filesystems()._pipeline_options).client.put_object(Bucket=bucket, Key=name, Body=b"")


def open_text_write(path: str | os.PathLike, newline: str | None = "\n") -> TextIO:
    """A new UTF-8 text file (``newline`` as :func:`open` takes it)."""
    path = normalize(path)
    if not is_remote(path):
        return open(path, "w", encoding="utf-8", newline=newline)
    return io.TextIOWrapper(open_write(path), encoding="utf-8", newline=newline)


def read_text(path: str | os.PathLike, errors: str = "strict") -> str:
    """The whole of a (small) UTF-8 text file (``errors``: as ``bytes.decode`` takes them)."""
    with open_read(path) as handle:
        return handle.read().decode("utf-8", errors=errors)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with open_write(path) as handle:
        handle.write(data)


def _exists(path: str) -> bool:
    try:
        return _filesystems().exists(path)
    except Exception as error:  # noqa: BLE001
        raise _remote_error(path, error) from None


def exists(path: str | os.PathLike) -> bool:
    """Whether a file (or, locally, a directory) exists."""
    path = normalize(path)
    return os.path.exists(path) if not is_remote(path) else _exists(path)


def isfile(path: str | os.PathLike) -> bool:
    path = normalize(path)
    return os.path.isfile(path) if not is_remote(path) else _exists(path)


def isdir(path: str | os.PathLike) -> bool:
    """A local directory, or a remote prefix ``path/`` with at least one object under it."""
    path = normalize(path)
    if not is_remote(path):
        return os.path.isdir(path)
    return bool(_match(path.rstrip("/") + "/**", limit=1))


def _match(pattern: str, limit: int | None = None) -> list:
    try:
        found = _filesystems().match([pattern], [limit] if limit else None)
    except Exception as error:  # noqa: BLE001 - Beam raises BeamIOError for "nothing matched" too
        if "No files found" in str(error) or "not found" in str(error).lower():
            return []
        raise _remote_error(pattern, error) from None
    return found[0].metadata_list if found else []


def _metadata(path: str):
    """What the store lists of one remote object; FileNotFoundError when it has none."""
    metadata = next((m for m in _match(path) if m.path == path), None)
    if metadata is None:
        raise FileNotFoundError(path)
    return metadata


def size(path: str | os.PathLike) -> int:
    path = normalize(path)
    if not is_remote(path):
        return os.path.getsize(path)
    return _metadata(path).size_in_bytes


def modified(path: str | os.PathLike) -> float:
    """When a file was last written (seconds since the epoch); FileNotFoundError for none."""
    path = normalize(path)
    if not is_remote(path):
        return os.path.getmtime(path)
    return _metadata(path).last_updated_in_seconds


def listdir(path: str | os.PathLike) -> list[str]:
    """The files directly in a directory (full paths, sorted); [] for a missing one."""
    path = normalize(path)
    if not is_remote(path):
        if not os.path.isdir(path):
            return []
        return sorted(os.path.join(path, name) for name in os.listdir(path)
                      if os.path.isfile(os.path.join(path, name)))
    return sorted(m.path for m in _match(path.rstrip("/") + "/*"))


def walk_files(path: str | os.PathLike) -> list[str]:
    """Every file under a directory, at any depth (full paths, sorted)."""
    path = normalize(path)
    if not is_remote(path):
        return sorted(os.path.join(root, name) for root, _, names in os.walk(path) for name in names)
    return sorted(m.path for m in _match(path.rstrip("/") + "/**"))


def state(path: str | os.PathLike) -> dict[str, int | str]:
    """What changes when a file's content may have: locally what ``stat()`` says (size, mtime,
    ctime, inode, device); remotely size, last update and the store's checksum (an object is
    never changed in place: a new one gets a new time and checksum)."""
    path = normalize(path)
    if not is_remote(path):
        st = os.stat(path)
        return {"bytes": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns,
                "inode": st.st_ino, "device": st.st_dev}
    try:
        metadata = _metadata(path)
        return {"bytes": metadata.size_in_bytes, "mtime_ns": int(metadata.last_updated_in_seconds * 1e9),
                "checksum": str(_filesystems().checksum(path))}
    except FileNotFoundError:
        raise
    except Exception as error:  # noqa: BLE001
        raise _remote_error(path, error) from None


def makedirs(path: str | os.PathLike) -> None:
    """A local directory and its parents (an object store needs none)."""
    path = normalize(path)
    if not is_remote(path):
        os.makedirs(path, exist_ok=True)


def remove(paths: Iterable[str]) -> None:
    """Delete files (missing ones are fine). Remote ones go in one batch without asking first
    whether each exists (a round trip per object); only where the store refuses to delete is
    it asked, and a refusal for an object that is not there is no error."""
    local, remote = [], []
    for path in map(normalize, paths):
        (remote if is_remote(path) else local).append(path)
    for path in local:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    if remote:
        from apache_beam.io.filesystem import BeamIOError

        try:
            _filesystems().delete(remote)
        except BeamIOError as error:
            if any(_exists(path) for path in error.exception_details or remote):
                raise


def remove_tree(path: str | os.PathLike) -> None:
    """Delete a directory (a prefix of objects) and everything under it."""
    path = normalize(path)
    if not is_remote(path):
        shutil.rmtree(path, ignore_errors=True)
        return
    remove(walk_files(path))


def move(source: str, target: str) -> None:
    """Move every file under the directory ``source`` to the same relative path under ``target``
    (locally a rename each, then the emptied ``source`` removed; remotely each object copied, then
    deleted). A file of the same name under ``target`` is replaced; every other file there stays."""
    source, target = normalize(source), normalize(target)
    files = walk_files(source)
    if not is_remote(target):
        os.makedirs(target, exist_ok=True)
        for path in files:
            moved = os.path.join(target, os.path.relpath(path, source))
            os.makedirs(os.path.dirname(moved), exist_ok=True)
            os.replace(path, moved)
        for root, _, _ in sorted(os.walk(source), reverse=True):  # deepest first; only empty ones go
            try:
                os.rmdir(root)
            except OSError:
                pass
        return
    if files:
        prefix = source.rstrip("/") + "/"
        _filesystems().rename(files, [join(target, name[len(prefix):]) for name in files])


@contextmanager
def parquet_writer(path: str | os.PathLike, schema, **options) -> Iterator:
    """A ``pyarrow.parquet.ParquetWriter`` writing ``path``, local or remote (through a stream)."""
    import pyarrow.parquet as pq

    path = normalize(path)
    if not is_remote(path):
        with pq.ParquetWriter(path, schema, **options) as writer:
            yield writer
        return
    with open_write(path) as sink, pq.ParquetWriter(sink, schema, **options) as writer:
        yield writer


def parquet_file(path: str | os.PathLike):
    """A ``pyarrow.parquet.ParquetFile`` of a local or remote file."""
    import pyarrow.parquet as pq

    path = normalize(path)
    return pq.ParquetFile(open_read(path) if is_remote(path) else path)


def glob(pattern: str) -> list[str]:
    """The files and (locally) directories a pattern with ``*`` matches (remotely: ``**`` crosses ``/``)."""
    pattern = normalize(pattern)
    if not is_remote(pattern):
        import glob as globbing

        return sorted(globbing.glob(pattern))
    return sorted(m.path for m in _match(pattern))
