"""Step 2 input, first layer, bz2 part: the decompressed bytes of a bz2 dump, read on past a corrupt block.

A bz2 stream is ``BZh1``…``BZh9``, then blocks of at most 900 kB of text, each opening with the
48-bit magic 0x314159265359, then the end marker 0x177245385090 and the combined CRC. Blocks are
not byte aligned, and a single-stream dump (what ``bzip2`` writes) is one stream of thousands of
blocks: a decompressor that meets a corrupt block cannot go on, and without help the rest of
the dump would be lost.

How it reads on, as ``bzip2recover`` does:

* every compressed byte read is searched for both magics at each of the 8 bit offsets (the
  bytes a magic fully covers at that offset, found by ``bytes.find``, then checked bit by bit):
  linear time, and only a short tail of bytes is kept between reads;
* the decompressor is fed up to the byte where the next block starts, so when it fails, every
  block before the failing one has been decompressed and passed on;
* from the next block magic on, each block is cut out bit-exactly and decompressed alone as a
  stream of its own: ``BZh9``, its bits re-packed from byte 0, the end marker and, as combined
  CRC, the block's own CRC (the combined CRC of a one-block stream). A block that still fails is
  skipped too; at the stream's end marker the reader goes back to whole streams.

Each gap is reported once, as a :class:`~wikisilver.dump.streams.Break` with the compressed
bytes skipped, before the data that follows it. Gaps that touch are one: damage across a
stream's end marker and the next stream's header is skipped as two pieces, but reported as one.
"""

from __future__ import annotations

import bz2
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import BinaryIO

from wikisilver.rejects import RejectReason

BLOCK_MAGIC = 0x314159265359
END_MAGIC = 0x177245385090
_MASK48 = (1 << 48) - 1
# The largest a block can be compressed: 900,000 symbols of at most 20 bits, plus its tables.
# A longer run without a magic is no block (garbage, or a block whose next magic is corrupt).
MAX_BLOCK_BYTES = 3 << 20
_TAIL = 7  # a magic at bit offset 1-7 spans 7 bytes


@dataclass
class Meter:
    """Compressed bytes decompressed so far by one reader (not counting skipped ones): read as
    each page comes, it says about where in the compressed input the page lay (to the block)."""

    good_bytes: int = 0


def _patterns() -> list[tuple[bytes, int, int, bool]]:
    """(needle, needle index in the magic's bytes, bit offset, is the end marker) per magic and offset."""
    patterns = []
    for magic, is_end in ((BLOCK_MAGIC, False), (END_MAGIC, True)):
        for shift in range(8):
            size = 6 if shift == 0 else 7
            raw = (magic << (size * 8 - 48 - shift)).to_bytes(size, "big")
            first = 0 if shift == 0 else 1  # the bytes the magic fully covers
            patterns.append((raw[first:6], first, shift, is_end))
    return patterns


_PATTERNS = _patterns()


def find_magics(window: bytes, new_from: int) -> list[tuple[int, bool]]:
    """(bit offset in ``window``, is the end marker) of every magic that lies wholly inside
    ``window`` and ends after byte ``new_from`` (those ending before were found in the last window)."""
    found = []
    for needle, first, shift, is_end in _PATTERNS:
        size = 6 if shift == 0 else 7
        magic = END_MAGIC if is_end else BLOCK_MAGIC
        index = window.find(needle, max(0, new_from - size + 1 + first - 1))
        while index >= 0:
            start = index - first
            if start >= 0 and start + size <= len(window) and start + size > new_from:
                value = int.from_bytes(window[start : start + size], "big") >> (size * 8 - 48 - shift)
                if value & _MASK48 == magic:
                    found.append((start * 8 + shift, is_end))
            index = window.find(needle, index + 1)
    found.sort()
    return found


def block_stream(data: bytes, first_bit: int, end_bit: int) -> bytes:
    """A one-block bz2 stream of the block in bits [first_bit, end_bit) of ``data`` (from its magic)."""
    first, last = first_bit // 8, (end_bit + 7) // 8
    value = int.from_bytes(data[first:last], "big")
    value >>= last * 8 - end_bit
    bits = end_bit - first_bit
    value &= (1 << bits) - 1
    crc = (value >> (bits - 80)) & 0xFFFFFFFF  # stored right after the block magic
    value = (((value << 48) | END_MAGIC) << 32) | crc
    bits += 80
    pad = -bits % 8
    return b"BZh9" + (value << pad).to_bytes((bits + pad) // 8, "big")


def decompress_all(decompressor, data: bytes, max_out: int) -> Iterator[bytes]:
    """All the output of ``data`` so far, in pieces of at most ``max_out`` bytes (bounds memory on
    bombs). ``needs_input`` is not trusted to end it: CPython's bz2 decompressor says it needs
    input while output of the block it has read is still pending (it returns only what fit its
    first buffer), so the decompressor is asked until it answers nothing."""
    out = decompressor.decompress(data, max_out)
    while True:
        if out:
            yield out
        if decompressor.eof or (decompressor.needs_input and not out):
            return
        out = decompressor.decompress(b"", max_out)


@dataclass
class _Gap:
    start: int  # compressed byte where the unreadable data begins
    stream_start: int
    error: str


class Bz2Reader:
    """Decompressed bytes of the bz2 data in bytes [start, end) of ``handle``, with Breaks at gaps."""

    def __init__(self, path: str, handle: BinaryIO, start: int, end: int | None, read_size: int, max_out: int,
                 make_break, meter: Meter | None = None) -> None:
        self.path, self.handle, self.end = path, handle, end
        self.read_size, self.max_out, self.make_break = read_size, max_out, make_break
        self.data = b""  # compressed bytes not yet used; data[0] is byte `base` of the file
        self.base = self.read_to = start
        self.tail = b""  # the last bytes searched for magics, so one across two reads is found
        self.magics: deque[tuple[int, bool]] = deque()  # (file bit, is end marker) ahead, in order
        self.meter = meter if meter is not None else Meter()

    def _more(self) -> bool:
        size = self.read_size if self.end is None else min(self.read_size, self.end - self.read_to)
        chunk = self.handle.read(size) if size > 0 else b""
        if not chunk:
            return False
        window = self.tail + chunk
        origin = (self.read_to - len(self.tail)) * 8
        self.magics.extend((origin + bit, is_end) for bit, is_end in find_magics(window, len(self.tail)))
        self.tail = window[-_TAIL:]
        self.read_to += len(chunk)
        self.data += chunk
        return True

    def _drop_to(self, byte: int) -> None:
        """Forget the compressed bytes before ``byte`` (reading up to it if need be)."""
        while self.read_to < byte and self._more():
            pass
        byte = min(byte, self.read_to)
        if byte > self.base:
            self.data = self.data[byte - self.base :]
            self.base = byte
        while self.magics and self.magics[0][0] < byte * 8:
            self.magics.popleft()

    def _next_magic(self, after: int, block_only: bool = False) -> tuple[int, bool] | None:
        """The first magic at or after file bit ``after`` among those found so far, or None."""
        for bit, is_end in self.magics:
            if bit >= after and not (block_only and is_end):
                return bit, is_end
        return None

    def chunks(self) -> Iterator:
        """The decompressed bytes, with a Break at each gap; a gap that starts where the one before
        it ended, nothing read between them, is the same gap (its Break counts both)."""
        pending = None
        for item in self._chunks():
            if isinstance(item, bytes):
                if pending is not None:
                    yield pending
                    pending = None
                yield item
            elif (pending is not None and pending.reason == item.reason == RejectReason.CORRUPT_STREAM
                  and item.offset == pending.offset + pending.skipped):
                where = item.detail.rsplit(", ", 1)[-1]
                pending = replace(pending, skipped=pending.skipped + item.skipped,
                                  detail=f"{pending.detail}; the next stream's start too: {item.skipped:,} "
                                         f"more compressed bytes skipped, {where}")
            else:
                if pending is not None:
                    yield pending
                pending = item
        if pending is not None:
            yield pending

    def _chunks(self) -> Iterator:
        decompressor = None
        stream_start = self.base
        good = self.base * 8  # file bit where the block now being decompressed begins
        while self.data or self._more():
            cut = self._next_magic(good + 1, block_only=True)
            while cut is None and len(self.data) < MAX_BLOCK_BYTES and self._more():
                cut = self._next_magic(good + 1, block_only=True)
            size = cut[0] // 8 - self.base + 1 if cut is not None else len(self.data)
            if decompressor is None:
                decompressor, stream_start, good = bz2.BZ2Decompressor(), self.base, self.base * 8
            try:  # the output of one block (at most ~46 MB by the format) is passed on once it checked out
                out = list(decompress_all(decompressor, self.data[:size], self.max_out))
            except (OSError, EOFError, ValueError) as error:
                # Nothing of this feed was passed on: reading goes on at the next block that can be
                # found (_read_on). Only a stream's first block is fed again alone; a block already
                # dropped from the buffer is not, so a bad end marker or combined CRC costs the
                # stream's last block.
                resume = yield from self._read_on(_Gap(good // 8, stream_start, str(error)), good)
                if resume is None:
                    return
                decompressor = None
                continue
            if decompressor.eof:
                size -= len(decompressor.unused_data)
                decompressor = None
            self.meter.good_bytes += size
            yield from out
            fed_to = self.base + size
            # Every block that starts in the bytes fed was reached, so all before it was passed on.
            for bit, is_end in self.magics:
                if bit // 8 >= fed_to:
                    break
                if not is_end and bit > good and decompressor is not None:
                    good = bit
            self._drop_to(fed_to)
            if decompressor is None:
                good = self.base * 8
        if decompressor is not None:
            yield self.make_break(
                RejectReason.TRUNCATED, self.read_to,
                f"{self.path}: bz2 stream starting at byte {stream_start} ends at byte {self.read_to} "
                "before its end marker (file cut short?)",
            )

    def _gap_break(self, gap: _Gap, resume: int | None):
        stop = self.read_to if resume is None else resume
        skipped = stop - gap.start
        read = self.meter.good_bytes
        where = f"reading on at byte {resume:,}" if resume is not None else "to the end of the input"
        return self.make_break(
            RejectReason.CORRUPT_STREAM, gap.start,
            f"{self.path}: corrupt bz2 data at compressed byte {gap.start:,} (stream starting at byte "
            f"{gap.stream_start:,}): {gap.error}; {skipped:,} compressed bytes skipped, {where}",
            skipped=skipped, read=read,
        )

    def _read_on(self, gap: _Gap, after: int):
        """Decompress block by block from the first block magic at or after bit ``after`` to the
        stream's end marker (yields data and the gap's Break); returns the byte where the next
        stream may start, or None at the end of the input."""
        block = None  # file bit where the block being cut out begins
        stream_start = gap.stream_start
        while True:
            found = self._next_magic(after)
            while found is None:
                if block is None:
                    self._drop_to(max(self.base, self.read_to - _TAIL))
                elif self.read_to - block // 8 > MAX_BLOCK_BYTES:  # no block is this long
                    gap = gap or _Gap(block // 8, stream_start, "no block magic or end marker where the next was due")
                    block = None
                    continue
                if not self._more():
                    break
                found = self._next_magic(after)
            if found is None:
                if gap is None:  # the input ends inside a block: cut short, as a stream without its end
                    yield self.make_break(
                        RejectReason.TRUNCATED, self.read_to,
                        f"{self.path}: bz2 data ends at byte {self.read_to} inside the block starting at byte "
                        f"{block // 8} (file cut short?)",
                    )
                else:
                    yield self._gap_break(gap, None)
                return None
            bit, is_end = found
            if block is not None:
                out = self._decompress_block(block_stream(self.data, block - self.base * 8, bit - self.base * 8))
                if out is None:
                    if gap is None:
                        gap = _Gap(block // 8, stream_start, "a block that does not decompress")
                else:
                    if gap is not None and block // 8 > gap.start:  # else nothing was lost
                        yield self._gap_break(gap, block // 8)
                    gap = None
                    self.meter.good_bytes += (bit - block) // 8
                    yield from out
            if is_end:  # end marker and 32-bit CRC, padded to a byte: the next stream starts there
                resume = (bit + 80 + 7) // 8
                self._drop_to(resume)
                if gap is not None:
                    yield self._gap_break(gap, resume)
                return resume
            block, after = bit, bit + 48
            self._drop_to(bit // 8)

    def _decompress_block(self, stream: bytes) -> list[bytes] | None:
        """The output of a one-block stream, or None if it does not decompress (held whole: a
        failing block must pass on nothing; a block's output is bounded by the format)."""
        decompressor = bz2.BZ2Decompressor()
        try:
            out = list(decompress_all(decompressor, stream, self.max_out))
        except (OSError, EOFError, ValueError):
            return None
        return out if decompressor.eof else None
