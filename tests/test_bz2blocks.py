"""Reading on past a corrupt bz2 block (issue 21 item 4): block magics at any bit offset, blocks
cut out and decompressed alone, and random corruption of single-stream and multistream dumps."""

from __future__ import annotations

import pytest

import bz2
import random
import subprocess
import sys
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from dump_support import dump_xml, many_pages, peak_rss_mib
from wikisilver.dump import iter_pages
from wikisilver.dump.bz2blocks import Bz2Reader, block_stream, find_magics
from wikisilver.dump.streams import Break
from wikisilver.records import Page, PageReject

XML = dump_xml(many_pages(1200)).encode()
SINGLE = bz2.compress(XML, 1)  # one stream of 100 kB blocks
BLOCKS = [bit for bit, is_end in find_magics(SINGLE, 0) if not is_end]


def multistream(xml: bytes, per_stream: int = 100) -> bytes:
    """The dump as Wikimedia's multistream: the header, then ~100 pages per bz2 stream, the footer."""
    head, _, body = xml.partition(b"<page>")
    pages = (b"<page>" + body).split(b"</page>\n")
    footer = pages.pop()
    groups = [b"".join(page + b"</page>\n" for page in pages[i : i + per_stream]) for i in range(0, len(pages), per_stream)]
    return b"".join(bz2.compress(part, 1) for part in [head, *groups, footer])


MULTI = multistream(XML)


def test_block_magics_are_found_at_every_bit_offset():
    assert len(BLOCKS) >= 4 and BLOCKS[0] == 32  # right after "BZh1"
    [end] = [bit for bit, is_end in find_magics(SINGLE, 0) if is_end]
    assert sorted({bit % 8 for bit in BLOCKS[1:]}) != [0]  # blocks are not byte aligned
    for shift in range(8):  # the same stream behind `shift` more bits
        value = int.from_bytes(SINGLE, "big") << (8 - shift if shift else 0)
        moved = value.to_bytes(len(SINGLE) + (1 if shift else 0), "big")
        expected = [(bit + shift, False) for bit in BLOCKS] + [(end + shift, True)]
        assert find_magics(moved, 0) == expected


def test_each_block_cut_out_decompresses_alone_as_a_stream_of_its_own():
    ends = BLOCKS[1:] + [bit for bit, is_end in find_magics(SINGLE, 0) if is_end]
    pieces = [bz2.decompress(block_stream(SINGLE, start, end)) for start, end in zip(BLOCKS, ends)]
    assert b"".join(pieces) == XML


def read_all(data: bytes, tmp_path: Path, read_size: int) -> list:
    path = tmp_path / "dump.xml.bz2"
    path.write_bytes(data)
    with open(path, "rb") as handle:
        return list(Bz2Reader(str(path), handle, 0, None, read_size, 1 << 20, Break).chunks())


def test_magics_across_reads_are_found(tmp_path):
    """Read a few bytes at a time, every magic straddles two reads somewhere: same output."""
    for data in (SINGLE, MULTI):
        for read_size in (5, 7, 4096):
            assert b"".join(read_all(data, tmp_path, read_size)) == XML


def test_corrupt_block_loses_exactly_that_block(tmp_path):
    middle = len(BLOCKS) // 2
    bad = bytearray(SINGLE)
    bad[BLOCKS[middle] // 8 + 100] ^= 0x55
    chunks = read_all(bytes(bad), tmp_path, 64 << 10)
    [gap] = [i for i, chunk in enumerate(chunks) if isinstance(chunk, Break)]
    before, after = b"".join(chunks[:gap]), b"".join(chunks[gap + 1 :])
    lost_block = bz2.decompress(block_stream(SINGLE, BLOCKS[middle], BLOCKS[middle + 1]))
    assert before + lost_block + after == XML
    assert (chunks[gap].offset, chunks[gap].skipped) == (BLOCKS[middle] // 8, BLOCKS[middle + 1] // 8 - BLOCKS[middle] // 8)


def check_pages(records: list) -> tuple[int, list[PageReject]]:
    """Only true pages, in order, none twice (a block is never passed on twice or half-corrupt)."""
    pages = [r for r in records if isinstance(r, Page)]
    ids = [page.page_id for page in pages]
    assert ids == sorted(set(ids))
    original = dict((i, text) for i, _, text in many_pages(1200))
    assert all(page.title == f"Page {page.page_id}" and page.text == original[page.page_id] for page in pages)
    return len(pages), [r for r in records if isinstance(r, PageReject)]


@settings(max_examples=30, deadline=None)
@example("multi", [(0.5029001008381714, 4, 0)])  # across a stream's end and the next one's "BZh1": one gap
@given(st.sampled_from(["single", "multi"]), st.lists(st.tuples(st.floats(0, 1), st.integers(1, 64), st.integers(0, 255)),
                                                      min_size=1, max_size=3))
@pytest.mark.slow
def test_random_corruption_never_crashes_duplicates_or_invents_pages(tmp_path_factory, layout, damages):
    """Bytes overwritten anywhere (header, blocks, end markers): every page read is a true page,
    in order and once; each gap is one corrupt_stream reject with the bytes it skipped."""
    data = bytearray(SINGLE if layout == "single" else MULTI)
    for where, length, value in damages:  # past "BZh", which says the file is bz2 at all
        at = 3 + int(where * (len(data) - 4))
        data[at : at + length] = bytes([value]) * len(data[at : at + length])
    path = tmp_path_factory.mktemp("fuzz") / "dump.xml.bz2"
    path.write_bytes(bytes(data))
    pages, rejects = check_pages(list(iter_pages(str(path))))
    gaps = [r for r in rejects if r.reason == "corrupt_stream"]
    assert len(gaps) <= len(damages) and all(r.bytes_skipped > 0 for r in gaps)
    assert all(r.reason in ("corrupt_stream", "truncated", "xml_error") for r in rejects)
    if not rejects:
        assert pages == 1200  # damage that changed nothing (a byte overwritten by itself)


def test_garbage_between_streams_is_skipped_in_linear_time_and_bounded_memory(tmp_path):
    """40 MB of random bytes between two streams: searched for a block magic as it is read, in
    seconds, holding a few MB; the pages of both sides are read."""
    head, _, rest = XML.partition(b"<page>")
    first, second = bz2.compress(head + b"<page>" + rest[: rest.index(b"</page>") + 8]), bz2.compress(rest[rest.index(b"</page>") + 8 :])
    path = tmp_path / "garbage.xml.bz2"
    with path.open("wb") as handle:
        handle.write(first)
        rng = random.Random(4)
        for _ in range(40):
            handle.write(rng.randbytes(1 << 20))
        handle.write(second)
    peak, printed = peak_rss_mib(
        "from wikisilver.dump import iter_pages\n"
        f"records = list(iter_pages({str(path)!r}))\n"
        "print(sum(type(r).__name__ == 'Page' for r in records))\n"
        "print(*[(str(r.reason), r.bytes_skipped) for r in records if type(r).__name__ == 'PageReject'])")
    count, gap = printed.splitlines()
    # skipped: the garbage and the next stream's "BZh9" (read on from its first block's magic)
    assert count == "1200" and gap == f"('corrupt_stream', {(40 << 20) + 4})"
    assert peak < 150, f"peak RSS {peak} MiB"


def test_single_stream_dump_corrupt_in_its_first_block_estimates_by_the_pages_after(tmp_path):
    bad = bytearray(SINGLE)
    bad[BLOCKS[0] // 8 + 500] ^= 0xFF
    path = tmp_path / "first.xml.bz2"
    path.write_bytes(bytes(bad))
    pages, [reject] = check_pages(list(iter_pages(str(path))))
    lost = 1200 - pages
    assert reject.reason == "corrupt_stream" and lost / 2 <= reject.pages_unread_estimate <= 2 * lost


@pytest.mark.slow
def test_reading_a_corrupt_dump_does_not_hang():
    """The whole reader on every damaged variant above runs in a subprocess under a timeout."""
    code = ("from test_bz2blocks import *\nimport tempfile, pathlib\n"
            "for i in range(0, len(SINGLE), len(SINGLE) // 20):\n"
            "    d = bytearray(SINGLE); d[i:i + 16] = bytes(16)\n"
            "    p = pathlib.Path(tempfile.mkdtemp()) / 'd.xml.bz2'; p.write_bytes(bytes(d))\n"
            "    check_pages(list(iter_pages(str(p))))\n")
    subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent, check=True, timeout=120)
