"""Step 2 input: the pages of a MediaWiki XML dump (``pages-articles``), streamed.

A dump is one ``<mediawiki>`` document: a ``<siteinfo>`` header, then millions of ``<page>``
elements. This module turns its decompressed UTF-8 bytes (:mod:`~wikisilver.dump.encoding`)
into :class:`~wikisilver.records.Page` records with flat memory, and turns every piece it
cannot read into a :class:`~wikisilver.records.PageReject` (the dead letter) instead of an
exception, so one bad block never costs the whole run.

How it reads: the bytes are cut at the literal ``<page>`` / ``</page>`` tags and each page is
parsed on its own by the C XML parser. Cutting on the tags is safe because the dump writer
escapes every ``<`` inside text as ``&lt;``, and it buys three things a single ``iterparse``
over the whole file cannot give: the exact byte offset of every page, recovery after a
malformed page (expat cannot resume after an error), and the ability to read a bare run of
pages, which is what one stream of a multistream dump holds (:func:`iter_pages_in_range`).
"""

from __future__ import annotations

import html
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping

from wikisilver.dump.bz2blocks import Meter
from wikisilver.dump.encoding import text_chunks
from wikisilver.dump.losses import Unread, account_gaps, names_a_page
from wikisilver.dump.siteinfo import PAGE_OPEN, SiteInfo, local_tag, parse_header
from wikisilver.dump.streams import Break
from wikisilver.errors import DumpError, InputError
from wikisilver.records import Page, PageReject
from wikisilver.rejects import RejectReason

# What one page may hold in memory. A longer page (or a broken stream with no </page>) is rejected
# and skipped up to its </page> without being held whole. The largest real pages are a few MB;
# 32 MiB is over 2.7 times the XML of a page at the default --max-page-chars (2,000,000 characters
# of up to 6 bytes each, as "&quot;"), which extraction rejects anyway.
MAX_PAGE_BYTES = 32 << 20
# MediaWiki's bound on a title (without its namespace prefix), in UTF-8 bytes: a longer one is no
# page of a wiki, and every sentence of the page would carry it into the corpus.
MAX_TITLE_BYTES = 255
_SNIPPET = 200
_NL = b"\n"
_PAGE_CLOSE = b"</page>"
_POSITION_SUFFIX = re.compile(r": line \d+, column \d+$")
# Also under a namespace prefix (<mw:title>), as in a <mw:page> read by _outside_pages.
_TITLE_RAW = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?title>([^<]*)</(?:[A-Za-z_][\w.-]*:)?title>")
_ID_RAW = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?id>\s*(\d+)\s*</(?:[A-Za-z_][\w.-]*:)?id>")
# A page element under a namespace prefix: not cut out as a page (only <page> is), so found in the
# text between pages.
_PREFIXED_PAGE = re.compile(rb"<([A-Za-z_][\w.-]*):page[\s>]")


def _snippet(data: bytes) -> str:
    return data[:_SNIPPET * 2].decode("utf-8", "replace")[:_SNIPPET]


def _raw_identity(data: bytes) -> tuple[int | None, str | None]:
    """Page id and title of a page that does not parse, found by pattern (best effort)."""
    title = _TITLE_RAW.search(data)
    page_id = _ID_RAW.search(data)
    return (
        int(page_id.group(1)) if page_id else None,
        html.unescape(title.group(1).decode("utf-8", "replace")) if title else None,
    )


def _outside_pages(source: str, text: bytes, line: int, offset: int | None, header: bool = False) -> Iterator[PageReject]:
    """Rejects of text between pages (starting at ``line``, byte ``offset``): one for each page element
    under a namespace prefix (``<mw:page>``, a page of the dump the cutter does not read: named, so
    counted as a page read and rejected), and one for any other text there (a stream error; not in
    the ``header``, which is the <siteinfo>)."""
    other: list[bytes] = []
    pos = 0
    at_line = line  # the line of text[pos]
    while found := _PREFIXED_PAGE.search(text, pos):
        close = b"</" + found.group(1) + b":page>"
        end = text.find(close, found.end())
        stop = end + len(close) if end >= 0 else len(text)
        element = text[found.start():stop]
        page_id, title = _raw_identity(element)
        prefix = found.group(1).decode("ascii", "replace")
        at_line += text.count(_NL, pos, found.start())
        yield PageReject(
            source, RejectReason.XML_ERROR, f"{source}: line {at_line}: a <{prefix}:page> (a page under a namespace prefix, "
            "among pages without one) is not read", page_id, title,
            None if offset is None else offset + found.start(), _snippet(element))
        at_line += element.count(_NL)
        other.append(text[pos:found.start()])
        pos = stop
    other.append(text[pos:])
    rest = b"".join(other)
    if not header and rest.strip():
        page_id, title = _raw_identity(rest)
        yield PageReject(source, RejectReason.XML_ERROR, f"{source}: line {line}: text outside any <page>",
                         page_id, title, offset, _snippet(rest.strip()))


_INT64 = 1 << 63


class _PageParser:
    """Page / PageReject from the bytes of one ``<page>…</page>``."""

    def __init__(self, source: str, site: SiteInfo) -> None:
        self.source = source
        self.site = site

    def parse(self, data: bytes, offset: int | None, line: int | None) -> Page | PageReject:
        try:
            root = ET.fromstring(data)
        except ET.ParseError as error:
            page_id, title = _raw_identity(data)
            at_line, column = error.position
            where = f"line {line + at_line - 1}, column {column}" if line is not None else f"page line {at_line}, column {column}"
            message = _POSITION_SUFFIX.sub("", str(error))
            return PageReject(
                self.source, RejectReason.XML_ERROR, f"{self.source}: {where}: {message}",
                page_id, title, offset, _snippet(data),
            )
        if root.tag != "page":  # a page that declares its own namespace: strip it everywhere
            for element in root.iter():
                element.tag = local_tag(element.tag)
        title = root.findtext("title")
        raw_id = root.findtext("id")
        try:
            page_id = int(raw_id)
        except (TypeError, ValueError):
            return PageReject(self.source, RejectReason.XML_ERROR, f"{self.source}: page without a numeric <id> ({raw_id!r})",
                              None, title, offset, _snippet(data))
        if not -_INT64 <= page_id < _INT64:  # the corpus stores page ids as int64
            return PageReject(self.source, RejectReason.BAD_PAGE_ID, f"{self.source}: page id {page_id} is out of range",
                              None, title, offset, _snippet(data))
        if title is None:
            return PageReject(self.source, RejectReason.XML_ERROR, f"{self.source}: page {page_id} has no <title>",
                              page_id, None, offset, _snippet(data))
        if not title.strip():
            return PageReject(self.source, RejectReason.EMPTY_TITLE, f"{self.source}: page {page_id} has an empty <title>",
                              page_id, title, offset, _snippet(data))
        raw_ns = root.findtext("ns")
        try:
            ns = int(raw_ns) if raw_ns is not None else self.site.namespace_of(title)
        except ValueError:
            ns = self.site.namespace_of(title)
        name = title.split(":", 1)[1] if ns != 0 and ":" in title else title  # MediaWiki bounds it without the prefix
        size = len(name.encode("utf-8"))
        if size > MAX_TITLE_BYTES:
            detail = f"{self.source}: page {page_id} has a title of {size:,} bytes, over MediaWiki's {MAX_TITLE_BYTES}"
            return PageReject(self.source, RejectReason.LONG_TITLE, detail, page_id, title[:_SNIPPET], offset, _snippet(data))
        redirect = root.find("redirect")
        revisions = root.findall("revision")
        revision = revisions[-1] if revisions else None  # oldest first in history dumps
        revision_id = timestamp = None
        text = ""
        if revision is not None:
            text = revision.findtext("text") or ""
            timestamp = revision.findtext("timestamp")
            raw_revision = revision.findtext("id")
            revision_id = int(raw_revision) if raw_revision and raw_revision.strip().isdigit() else None
        return Page(
            page_id=page_id,
            title=title,
            ns=ns,
            text=text,
            redirect=redirect.get("title") if redirect is not None else None,
            revision_id=revision_id,
            timestamp=timestamp,
            source=self.source,
            offset=offset,
        )


def _split_pages(
    source: str,
    chunks: Iterator[bytes | Break],
    *,
    exact_offsets: bool,
    expect_footer: bool | None,
) -> Iterator[Page | PageReject | Unread]:
    """Cut a decompressed UTF-8 stream at <page>…</page> and parse each piece.

    ``expect_footer``: whether the stream must end in ``</mediawiki>``; None: only if it opens
    with a ``<mediawiki>`` root (a whole dump does, a bare run of pages does not).
    """
    buf = b""
    base = 0  # decompressed offset of buf[0]
    line = 1
    pos = 0  # everything before pos in buf is consumed
    # Absolute offsets where the searches for the next <page> / </page> resume, so a long page
    # arriving in many chunks is scanned once, not once per chunk.
    open_from = close_from = 0
    header = True  # before the first page: the gap holds <mediawiki> and <siteinfo>
    parser = _PageParser(source, SiteInfo())
    broken = False  # the last thing read was a Break: its reject already says the rest is lost
    resumed = False  # read on after a gap: what comes before the next <page> is the tail of a lost one
    skipping = False  # inside a page rejected as too long: dropped up to its </page>

    def at(index: int) -> int | None:
        return base + index if exact_offsets else None

    counted = 0  # line numbers are counted incrementally: line is the line of buf[counted]

    def line_of(index: int) -> int:
        nonlocal counted, line
        if index >= counted:
            line += buf.count(_NL, counted, index)
            counted = index
            return line
        return line - buf.count(_NL, index, counted)

    for item in chunks:
        if isinstance(item, Break):
            # The complete pages in buf were yielded already; the partial one is lost with the block.
            start = buf.find(PAGE_OPEN, pos)
            partial = buf[start:] if start >= 0 else b""
            page_id, title = _raw_identity(partial) if partial else (None, None)
            reject = PageReject(source, item.reason, item.detail, page_id, title, item.offset, _snippet(partial),
                                bytes_skipped=item.skipped)
            yield Unread(reject, item) if item.skipped else reject
            if item.reason == RejectReason.TRUNCATED:
                return
            # After a skipped block, decompressed offsets are unknown and the next stream starts
            # with a bare <page>: read on from there without expecting anything else.
            line_of(len(buf))
            base += len(buf)
            buf, pos, counted, open_from, close_from = b"", 0, 0, base, base
            exact_offsets = False
            broken, skipping, resumed = True, False, True
            continue
        broken = False
        if pos:  # drop the consumed prefix, counting its lines for error messages
            line_of(pos)
            counted -= pos
            base += pos
            buf = buf[pos:]
            pos = 0
        buf = buf + item if buf else item
        while True:
            if skipping:
                end = buf.find(_PAGE_CLOSE, pos)
                if end < 0:
                    pos = max(pos, len(buf) - len(_PAGE_CLOSE) + 1)
                    break
                pos, skipping = end + len(_PAGE_CLOSE), False
                open_from = base + pos
            start = buf.find(PAGE_OPEN, max(pos, open_from - base))
            if start < 0:
                open_from = base + max(pos, len(buf) - len(PAGE_OPEN) + 1)
                if len(buf) - pos > MAX_PAGE_BYTES:
                    yield PageReject(source, RejectReason.XML_ERROR, f"{source}: line {line_of(pos)}: "
                                     f"over {MAX_PAGE_BYTES} bytes outside any <page>", None, None, at(pos),
                                     _snippet(buf[pos:]))
                    pos = len(buf)
                break
            if header:
                head = buf[pos:start]
                parser.site = _safe_header(source, head)
                if expect_footer is None:
                    expect_footer = b"<mediawiki" in head
                header = False
                if _PREFIXED_PAGE.search(head):
                    yield from _outside_pages(source, head, line_of(pos), at(pos), header=True)
            elif buf[pos:start].strip() and not resumed:
                yield from _outside_pages(source, buf[pos:start], line_of(pos), at(pos))
            pos, resumed = start, False
            end = buf.find(_PAGE_CLOSE, max(start, close_from - base))
            if end < 0:
                close_from = base + max(start, len(buf) - len(_PAGE_CLOSE) + 1)
                if len(buf) - start > MAX_PAGE_BYTES:
                    page_id, title = _raw_identity(buf[start : start + 4096])
                    yield PageReject(source, RejectReason.XML_ERROR, f"{source}: line {line_of(start)}: <page> longer than "
                                     f"{MAX_PAGE_BYTES} bytes; skipped", page_id, title, at(start),
                                     _snippet(buf[start:]))
                    pos, skipping = start + len(PAGE_OPEN), True  # drop it up to its </page>
                    continue
                break
            nested = buf.find(PAGE_OPEN, start + len(PAGE_OPEN), end)
            if nested >= 0:  # a page lost its </page>: reject it, read on from the next one
                page_id, title = _raw_identity(buf[start:nested])
                yield PageReject(source, RejectReason.XML_ERROR, f"{source}: line {line_of(start)}: <page> not closed "
                                 "before the next <page>", page_id, title, at(start), _snippet(buf[start:nested]))
                pos = nested
                continue
            stop = end + len(_PAGE_CLOSE)
            yield parser.parse(buf[start:stop], at(start), line_of(start))
            pos = stop
    rest = buf[pos:]
    if broken:
        return
    if header:
        if expect_footer and rest.strip():  # a range that should hold pages holds none
            yield PageReject(source, RejectReason.TRUNCATED, f"{source}: no <page> in the input", None, None, at(pos),
                             _snippet(rest))
        elif expect_footer is None and b"<mediawiki" in rest and b"</mediawiki>" not in rest:
            yield PageReject(source, RejectReason.TRUNCATED, f"{source}: input ends inside the header, before any page",
                             None, None, at(pos), _snippet(rest))
        if _PREFIXED_PAGE.search(rest):  # pages, but none without a prefix
            yield from _outside_pages(source, rest, line_of(pos), at(pos), header=True)
        return
    start = rest.find(PAGE_OPEN)
    if start >= 0:
        partial = rest[start:]
        page_id, title = _raw_identity(partial)
        yield PageReject(
            source, RejectReason.TRUNCATED,
            f"{source}: input ends inside a <page> (from line {line_of(pos + start)}, no </page>): the dump is cut short",
            page_id, title, at(pos + start), _snippet(partial),
        )
        return
    footer = rest.find(b"</mediawiki>")
    if resumed:  # the text up to the footer is the tail of a page lost in the gap
        rest = rest[footer:] if footer >= 0 else b""
        footer = 0 if footer >= 0 else -1
    if expect_footer and footer < 0:
        yield PageReject(
            source, RejectReason.TRUNCATED,
            f"{source}: input ends without </mediawiki> after the last complete page: the dump is cut short",
            None, None, at(len(buf)), _snippet(rest.strip()),
        )
    elif rest[:footer if footer >= 0 else len(rest)].strip() or (footer >= 0 and rest[footer + 12:].strip()):
        outside = rest[:footer] + b" " + rest[footer + 12:] if footer >= 0 else rest
        yield from _outside_pages(source, outside, line_of(pos), at(pos))


def _safe_header(source: str, head: bytes) -> SiteInfo:
    try:
        return parse_header(source, head)
    except DumpError:
        return SiteInfo()  # a broken header must not stop the pages; read_siteinfo reports it


def first_pages(dumps: Iterable[str], max_pages: int, index_files: Mapping[str, str] | None = None
                ) -> Iterator[Page | PageReject]:
    """The records of the dumps, in order, up to the ``max_pages``-th page read (a reject that names
    a page counts: it was read), so that a trial run's counts still add up; stream errors before it
    pass too."""
    left = max_pages
    for path in dumps:
        for record in iter_pages(path, (index_files or {}).get(path), limit=left):
            left -= names_a_page(record)
            yield record
        if left <= 0:  # not one record more is read
            return


def iter_pages(path: str, index: str | None = None, limit: int | None = None) -> Iterator[Page | PageReject]:
    """Every page of a dump, in order, then a PageReject for each piece that could not be read.

    Streaming with flat memory. ``Page.offset`` is the byte offset of ``<page>`` in the
    decompressed stream (None for transcoded UTF-16 dumps and after a skipped corrupt block).
    ``index``: the dump's multistream index, which names the pages lost in a corrupt stream;
    ``limit``: stop after that many pages read.
    """
    path = os.fspath(path)
    meter = Meter()
    chunks, transcoded = text_chunks(path, meter=meter)
    try:
        yield from account_gaps(_split_pages(path, chunks, exact_offsets=not transcoded, expect_footer=None),
                                meter, index, limit)
    finally:
        chunks.close()


def iter_pages_in_range(path: str, start: int, end: int | None, index: str | None = None) -> Iterator[Page | PageReject]:
    """The pages of compressed bytes [start, end) of a multistream dump (stream boundaries).

    Only the first range (start 0) sees the ``<siteinfo>``; pages of the others have
    ``offset=None``, because their position in the decompressed stream is not known without
    decompressing everything before them.
    """
    path = os.fspath(path)
    if start == 0 and end is None:
        yield from iter_pages(path, index)
        return
    if start < 0 or (end is not None and end < start):
        raise InputError(path, f"bad byte range [{start}, {end})")
    meter = Meter()
    chunks, transcoded = text_chunks(path, start, end, meter)
    try:
        yield from account_gaps(_split_pages(
            path, chunks, exact_offsets=start == 0 and not transcoded,
            expect_footer=end is None,
        ), meter, index)
    finally:
        chunks.close()
