"""Step 2 input, first layer: the decompressed bytes of a dump, and its multistream byte ranges.

A dump is plain or compressed (bz2, often *multistream*: ~100 pages per concatenated bz2
stream; xz; gzip), recognized by its magic bytes (:func:`wikisilver.files.compression_of`).
Unlike :func:`wikisilver.files.open_binary`, :func:`raw_chunks` does not stop at the first
corrupt block: it says where the data broke (a :class:`Break` in place of data) and, in a bz2
dump, reads on from the next block (:mod:`~wikisilver.dump.bz2blocks`), so a single-stream dump
loses only the broken block and a multistream dump at most the ~100 pages of the broken
stream; an xz or gzip dump stops there, the rest of it counted as skipped. It also reads a byte
range of the compressed file, which is how one huge multistream dump is split over workers
(:func:`stream_ranges`, from the dump's index).
"""

from __future__ import annotations

import lzma
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from wikisilver import paths
from wikisilver.dump.bz2blocks import Bz2Reader, Meter, decompress_all
from wikisilver.errors import InputError
from wikisilver.files import compression_of, open_text
from wikisilver.rejects import RejectReason

# Compressed bytes read per step: small enough that a corrupt-block offset is precise to a
# quarter MiB, large enough that the per-call overhead vanishes.
_READ = 256 << 10
# Most decompressed bytes one decompress() call may return: bounds memory on "zip bombs"
# (long runs of one character compress ~1000:1 in bz2).
_MAX_OUT = 8 << 20
BZ2_STREAM = re.compile(rb"BZh[1-9]\x31\x41\x59\x26\x53\x59")


@dataclass
class Break:
    """The compressed input stopped making sense here (yielded in place of data)."""

    reason: RejectReason  # CORRUPT_STREAM or TRUNCATED
    offset: int  # byte offset in the compressed file
    detail: str
    skipped: int = 0  # compressed bytes skipped: to the data that follows (bz2), or to the end (xz, gzip)
    read: int = 0  # compressed bytes decompressed before the gap, by this reader (its Meter then)


def _new_decompressor(kind: str):
    if kind == "xz":
        return lzma.LZMADecompressor()
    return zlib.decompressobj(wbits=31)


def raw_chunks(path: str, start: int = 0, end: int | None = None, meter: Meter | None = None) -> Iterator[bytes | Break]:
    """Decompressed bytes of ``path`` (or of compressed bytes [start, end)), then maybe a Break.

    Concatenated streams (bz2 multistream, multi-member gzip, xz) are read one after another.
    After a corrupt bz2 block the reader goes on at the next bz2 block; xz and gzip cannot be read
    on past corrupt data, and their Break counts the compressed bytes left unread as skipped.
    ``meter`` counts the compressed bytes decompressed, before the output they gave is yielded.
    """
    kind = compression_of(path)
    meter = meter if meter is not None else Meter()
    with paths.open_read(path) as handle:
        handle.seek(start)
        if kind == "bz2":
            yield from Bz2Reader(path, handle, start, end, _READ, _MAX_OUT, Break, meter).chunks()
            return
        position = start  # compressed offset of the next byte to read

        def read() -> bytes:
            nonlocal position
            size = _READ if end is None else min(_READ, end - position)
            data = handle.read(size) if size > 0 else b""
            position += len(data)
            return data

        if kind == "plain":
            while data := read():
                meter.good_bytes += len(data)
                yield data
            return
        decompressor = None
        stream_start = start
        pending = b""
        while True:
            if not pending:
                pending = read()
                if not pending:
                    break
            chunk_start = position - len(pending)
            if decompressor is None:
                pending = pending.lstrip(b"\x00")  # xz / gzip allow zero padding
                if not pending:
                    continue
                chunk_start = position - len(pending)
                decompressor = _new_decompressor(kind)
                stream_start = chunk_start
            fed = len(pending)
            try:
                if kind == "gz":  # zlib keeps unread input in unconsumed_tail, not inside
                    data, pending = pending, b""
                    while data:
                        out = decompressor.decompress(data, _MAX_OUT)
                        if out:
                            yield out
                        if decompressor.eof:
                            break
                        data = decompressor.unconsumed_tail
                else:
                    yield from decompress_all(decompressor, pending, _MAX_OUT)
                    pending = b""
            except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError) as error:
                stop = end if end is not None else paths.size(path)
                yield _stopped(path, kind, error, (chunk_start, position, stream_start, stop), meter.good_bytes)
                return
            if decompressor.eof:
                pending = decompressor.unused_data
                decompressor = None
            meter.good_bytes += fed - len(pending)
        if decompressor is not None:
            yield Break(
                RejectReason.TRUNCATED,
                position,
                f"{path}: {kind} stream starting at byte {stream_start} ends at byte {position} "
                "before its end marker (file cut short?)",
            )


def _stopped(path: str, kind: str, error: Exception, where: tuple[int, int, int, int], read: int) -> Break:
    """The Break of an xz or gzip stream that cannot be read on: the compressed bytes from the
    failing piece (``where``: its start and end, the stream's start, the end of the input) on."""
    chunk_start, position, stream_start, stop = where
    if kind == "gz" and re.search(r"incorrect (data|length) check", str(error)):
        # Deflate data has no check of its own: damage may decode into wrong text, which only
        # the member's CRC at its end reveals. Pages read from it may be wrong: say so.
        skipped = stop - position
        return Break(RejectReason.CORRUPT_STREAM, stream_start, (
            f"{path}: the gzip member starting at byte {stream_start:,} fails its check at its end ({error}): "
            "some of its data is corrupt, so text read from it may be wrong (pages rejected as xml_error "
            f"show where); {skipped:,} compressed bytes after it not read"), skipped=skipped, read=read)
    skipped = stop - chunk_start
    return Break(RejectReason.CORRUPT_STREAM, chunk_start, (
        f"{path}: corrupt {kind} data in compressed bytes {chunk_start:,}-{position:,} (stream starting at byte "
        f"{stream_start:,}): {error}; {skipped:,} compressed bytes to the end of the input not read "
        f"({kind} cannot be read on past corrupt data)"), skipped=skipped, read=read)


# -- multistream: splitting one huge bz2 dump over workers ----------------------------------------


def read_multistream_index(index_path: str) -> Iterator[tuple[int, int, str]]:
    """(stream offset, page id, title) per line of a ``…-multistream-index.txt[.bz2]``."""
    index_path = os.fspath(index_path)
    with open_text(index_path) as lines:
        number = 0
        try:
            for number, line in enumerate(lines, 1):
                line = line.rstrip("\r\n")
                if not line:
                    continue
                parts = line.split(":", 2)  # titles may hold colons; offset and id never do
                if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
                    raise InputError(index_path, f"not a multistream index line (offset:page_id:title): {line[:80]!r}",
                                     f"line {number}")
                yield int(parts[0]), int(parts[1]), parts[2]
        except UnicodeDecodeError:
            raise InputError(index_path, "multistream index is not UTF-8 text", f"line {number + 1}") from None


def stream_ranges(dump_path: str, index_path: str | None, target_bytes: int = 64 << 20) -> list[tuple[int, int | None]]:
    """Byte ranges [start, end) of a multistream bz2 dump, each of whole streams, ~target_bytes each.

    The first range starts at 0 (the header stream); the last ends at None (end of file, with
    the ``</mediawiki>`` footer stream). Without an index (or for a dump that is not bz2) the
    whole file is one range, ``[(0, None)]``.
    """
    dump_path = os.fspath(dump_path)
    if index_path is None or compression_of(dump_path) != "bz2":
        return [(0, None)]
    size = paths.size(dump_path)
    starts: list[int] = [0]
    last = 0
    for offset, _, _ in read_multistream_index(index_path):
        if offset != last:  # ~100 consecutive lines share one stream
            if offset < last:
                raise InputError(index_path, f"stream offsets go backwards ({last} then {offset})")
            if offset >= size:
                raise InputError(index_path, f"stream offset {offset} lies beyond the end of {dump_path} ({size} bytes)")
            if offset - starts[-1] >= target_bytes:
                starts.append(offset)
            last = offset
    with paths.open_read(dump_path) as handle:
        for offset in starts[1:]:
            handle.seek(offset)
            if not BZ2_STREAM.match(handle.read(10)):
                raise InputError(index_path, f"offset {offset} is not the start of a bz2 stream in {dump_path} "
                                 "(is this the index of another dump?)")
    return [(start, end) for start, end in zip(starts, starts[1:] + [None])]
