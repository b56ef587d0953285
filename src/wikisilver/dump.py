"""Step 2 input: the pages of a MediaWiki XML dump (``pages-articles``), streamed.

A dump is one ``<mediawiki>`` document: a ``<siteinfo>`` header, then millions of ``<page>``
elements, compressed (bz2, often *multistream* = ~100 pages per concatenated bz2 stream; xz;
gzip) or plain. This module turns it into :class:`~wikisilver.records.Page` records with flat
memory, and turns every piece it cannot read into a :class:`~wikisilver.records.PageReject`
(the dead letter) instead of an exception, so one bad block never costs the whole run.

How it reads: the decompressed bytes are cut at the literal ``<page>`` / ``</page>`` tags and
each page is parsed on its own by the C XML parser. Cutting on the tags is safe because the
dump writer escapes every ``<`` inside text as ``&lt;``, and it buys three things a single
``iterparse`` over the whole file cannot give: the exact byte offset of every page, recovery
after a malformed page (expat cannot resume after an error), and the ability to read a bare
run of pages — which is what one stream of a multistream dump holds, so a huge dump can be
split over workers by byte ranges of the compressed file (:func:`stream_ranges`,
:func:`iter_pages_in_range`). It is also faster than ``iterparse``, which must create and
clear an element for every ``<contributor>``, ``<sha1>``, … of every page.

Dumps are UTF-8 in practice, but copies re-saved on Windows turn up as UTF-16 with CRLF: the
encoding comes from the BOM or the XML declaration, the stream is transcoded to UTF-8 before
cutting, and a stream that does not decode raises :class:`DumpError` (never garbage text).
"""

from __future__ import annotations

import bz2
import codecs
import html
import io
import lzma
import os
import re
import xml.etree.ElementTree as ET
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from wikisilver.errors import DumpError, InputError
from wikisilver.records import Page, PageReject

# Compressed bytes read per step: small enough that a corrupt-block offset is precise to a
# quarter MiB, large enough that the per-call overhead vanishes.
_READ = 256 << 10
# Most decompressed bytes one decompress() call may return: bounds memory on "zip bombs"
# (long runs of one character compress ~1000:1 in bz2).
_MAX_OUT = 8 << 20
# The header (<siteinfo>) is a few KB; read_siteinfo gives up looking after this much.
_HEAD_LIMIT = 8 << 20
# A page longer than this is not wikitext but a broken stream with no </page>; cut it off
# rather than buffer the rest of the file.
MAX_PAGE_BYTES = 256 << 20
_SNIPPET = 200
_NL = b"\n"

_PAGE_OPEN = b"<page>"
_PAGE_CLOSE = b"</page>"
_BZ2_STREAM = re.compile(rb"BZh[1-9]\x31\x41\x59\x26\x53\x59")
_POSITION_SUFFIX = re.compile(r": line \d+, column \d+$")
_TITLE_RAW = re.compile(rb"<title>([^<]*)</title>")
_ID_RAW = re.compile(rb"<id>\s*(\d+)\s*</id>")
_ROOT_VERSION = re.compile(rb"<mediawiki\b[^>]*?\bversion=\"([^\"]*)\"")
_ROOT_LANG = re.compile(rb"<mediawiki\b[^>]*?\bxml:lang=\"([^\"]*)\"")
_XML_DECL_ENCODING = re.compile(rb"^<\?xml[^>]*?\bencoding=[\"']([A-Za-z0-9._:\-]+)[\"']")
_WIKI_DATE = re.compile(r"(?:^|[-_.])((?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?=[-_.]|$)")


# -- opening: compression by magic bytes ---------------------------------------------------------

_MAGIC = ((b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"), (b"\x1f\x8b", "gz"))
_EXTENSIONS = {".bz2": "bz2", ".xz": "xz", ".gz": "gz"}


def compression_of(path: str) -> str:
    """``"bz2"``, ``"xz"``, ``"gz"`` or ``"plain"``: from the magic bytes, else the extension.

    Magic bytes win because dumps get renamed (a ``.bz2`` saved as ``.xml``); the extension is
    only the fallback for files too short to carry a magic number.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a dump file") from None
    except OSError as error:
        raise InputError(path, f"cannot open dump: {error.strerror or error}") from None
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if len(head) >= len(b"<?xml") or not head:
        return "plain"
    return _EXTENSIONS.get(os.path.splitext(path)[1].lower(), "plain")


@dataclass
class _Break:
    """The compressed input stopped making sense here (yielded in place of data)."""

    reason: str  # "corrupt_stream" or "truncated"
    offset: int  # byte offset in the compressed file
    detail: str


def _new_decompressor(kind: str):
    if kind == "bz2":
        return bz2.BZ2Decompressor()
    if kind == "xz":
        return lzma.LZMADecompressor()
    return zlib.decompressobj(wbits=31)


def _raw_chunks(path: str, start: int = 0, end: int | None = None) -> Iterator[bytes | _Break]:
    """Decompressed bytes of ``path`` (or of compressed bytes [start, end)), then maybe a _Break.

    Concatenated streams (bz2 multistream, multi-member gzip, xz) are read one after another.
    After a corrupt bz2 block the reader skips to the next bz2 stream header, so a multistream
    dump loses only the ~100 pages of the broken stream.
    """
    kind = compression_of(path)
    with open(path, "rb") as handle:
        handle.seek(start)
        position = start  # compressed offset of the next byte to read

        def read() -> bytes:
            nonlocal position
            size = _READ if end is None else min(_READ, end - position)
            data = handle.read(size) if size > 0 else b""
            position += len(data)
            return data

        if kind == "plain":
            while data := read():
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
                if kind != "bz2":
                    pending = pending.lstrip(b"\x00")  # xz / gzip allow zero padding
                    if not pending:
                        continue
                    chunk_start = position - len(pending)
                decompressor = _new_decompressor(kind)
                stream_start = chunk_start
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
                    out = decompressor.decompress(pending, _MAX_OUT)
                    pending = b""
                    while True:
                        if out:
                            yield out
                        if decompressor.eof or decompressor.needs_input:
                            break
                        out = decompressor.decompress(b"", _MAX_OUT)
            except (OSError, EOFError, lzma.LZMAError, zlib.error, ValueError) as error:
                detail = (
                    f"{path}: corrupt {kind} data in compressed bytes {chunk_start}-{position} "
                    f"(stream starting at byte {stream_start}): {error}"
                )
                yield _Break("corrupt_stream", chunk_start, detail)
                if kind != "bz2":
                    return
                resume = _next_bz2_stream(handle, stream_start + 1, end)
                if resume is None:
                    return
                handle.seek(resume)
                position, pending, decompressor = resume, b"", None
                continue
            if decompressor.eof:
                pending = decompressor.unused_data
                decompressor = None
        if decompressor is not None:
            yield _Break(
                "truncated",
                position,
                f"{path}: {kind} stream starting at byte {stream_start} ends at byte {position} "
                "before its end marker (file cut short?)",
            )


def _next_bz2_stream(handle: BinaryIO, after: int, end: int | None) -> int | None:
    """Offset of the next bz2 stream header at or after ``after`` (before ``end``), or None."""
    overlap = 9
    handle.seek(after)
    base = after
    carry = b""
    while True:
        size = _READ if end is None else min(_READ, end - base - len(carry))
        data = handle.read(size) if size > 0 else b""
        if not data:
            return None
        window = carry + data
        found = _BZ2_STREAM.search(window)
        if found:
            return base + found.start()
        carry = window[-overlap:]
        base += len(window) - len(carry)


class _ChunkReader(io.RawIOBase):
    """A read-only binary file over decompressed chunks (what :func:`open_dump` returns)."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._chunks = _raw_chunks(path)
        self._buffer = b""
        self._offset = 0

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        while not self._buffer:
            item = next(self._chunks, None)
            if item is None:
                return 0
            if isinstance(item, _Break):
                self._chunks = iter(())
                raise DumpError(self._path, item.offset, None, item.detail.split(": ", 1)[1])
            self._buffer = item
        size = min(len(target), len(self._buffer))
        target[:size] = self._buffer[:size]
        self._buffer = self._buffer[size:]
        self._offset += size
        return size

    def close(self) -> None:
        close = getattr(self._chunks, "close", None)
        if close is not None:
            close()
        super().close()


def open_dump(path: str) -> BinaryIO:
    """The decompressed bytes of a dump (.xml, .bz2 incl. multistream, .xz, .gz; by magic bytes).

    A missing file raises InputError; unreadable compressed data raises DumpError on read.
    """
    path = os.fspath(path)
    compression_of(path)  # the one clear error for a missing file, before any read
    return io.BufferedReader(_ChunkReader(path), buffer_size=1 << 20)


# -- encoding ------------------------------------------------------------------------------------

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _detect_encoding(path: str, head: bytes) -> tuple[str, int]:
    """(codec name, BOM length) of a stream, from its BOM or XML declaration (XML 1.0 app. F)."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name, len(bom)
    if head.startswith(b"<\x00\x00\x00"):
        return "utf-32-le", 0
    if head.startswith(b"\x00\x00\x00<"):
        return "utf-32-be", 0
    if head.startswith(b"<\x00") and head[2:3] != b"\x00":
        return "utf-16-le", 0
    if head.startswith(b"\x00<"):
        return "utf-16-be", 0
    declared = _XML_DECL_ENCODING.match(head)
    if not declared:
        return "utf-8", 0
    label = declared.group(1).decode("ascii")
    try:
        name = codecs.lookup(label).name
    except LookupError:
        raise DumpError(path, 0, None, f"unknown encoding {label!r} in the XML declaration") from None
    if name in ("utf-16", "utf-32"):  # declared without BOM and without order: XML says big-endian
        name += "-be"
    return name, 0


def _text_chunks(path: str, start: int = 0, end: int | None = None) -> tuple[Iterator[bytes | _Break], bool]:
    """Decompressed chunks as UTF-8, and whether they were transcoded (offsets then are not bytes)."""
    raw = _raw_chunks(path, start, end)
    head = b""
    items: list[bytes | _Break] = []
    for item in raw:
        items.append(item)
        if isinstance(item, _Break):
            break
        head += item
        if len(head) >= 512:
            break
    encoding, bom = _detect_encoding(path, head[:512])
    if encoding == "utf-8":  # a UTF-8 BOM stays in the header gap, where it is harmless
        return _chain(items, raw), False
    return _transcode(path, encoding, bom, _chain(items, raw)), True


def _chain(first: list, rest: Iterator) -> Iterator:
    yield from first
    yield from rest


def _transcode(path: str, encoding: str, bom: int, chunks: Iterator[bytes | _Break]) -> Iterator[bytes | _Break]:
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    seen = 0
    skip = bom
    for item in chunks:
        if isinstance(item, _Break):
            yield item
            return
        data = item[skip:] if skip else item
        skip = max(0, skip - len(item))
        try:
            text = decoder.decode(data)
        except UnicodeDecodeError as error:
            raise DumpError(
                path, None, None,
                f"not valid {encoding.upper()} text near decompressed byte {seen + bom + error.start} "
                f"(encoding taken from the BOM / XML declaration): {error.reason}",
            ) from None
        seen += len(data)
        if text:
            yield text.encode("utf-8", "surrogatepass")
    try:
        tail = decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        raise DumpError(path, None, None, f"not valid {encoding.upper()} text at its end: {error.reason}") from None
    if tail:
        yield tail.encode("utf-8", "surrogatepass")


# -- siteinfo ------------------------------------------------------------------------------------

# Database names of Wikimedia projects that are not in one language.
_MULTILINGUAL = {"commonswiki", "wikidatawiki", "metawiki", "specieswiki", "mediawikiwiki",
                 "sourceswiki", "incubatorwiki", "outreachwiki", "foundationwiki", "testwiki"}
_PROJECT_SUFFIXES = ("wiktionary", "wikibooks", "wikinews", "wikiquote", "wikisource",
                     "wikiversity", "wikivoyage", "wiki")
_BASE_HOST = re.compile(r"^https?://([a-z][a-z0-9\-]*)\.(?:m\.)?(?:wikipedia|wiktionary|wikibooks|wikinews|"
                        r"wikiquote|wikisource|wikiversity|wikivoyage)\.org/")


def _lang_from_dbname(dbname: str | None) -> str | None:
    if not dbname or dbname in _MULTILINGUAL:
        return None
    for suffix in _PROJECT_SUFFIXES:
        if dbname.endswith(suffix) and len(dbname) > len(suffix):
            code = dbname[: -len(suffix)]
            if re.fullmatch(r"[a-z]{2,3}(?:_[a-z]+)*", code):
                return code.replace("_", "-")
            return None
    return None


@dataclass(frozen=True)
class SiteInfo:
    """The ``<siteinfo>`` header of a dump (all None / empty when the dump has none)."""

    dbname: str | None = None
    lang: str | None = None  # from dbname: enwiki -> en, zh_yuewiki -> zh-yue
    base: str | None = None  # URL of the main page
    case: str = "first-letter"
    namespaces: dict[int, str] = field(default_factory=dict)  # key -> localized name ("" for 0)
    generator: str | None = None
    export_version: str | None = None  # version="0.10" of the <mediawiki> root
    sitename: str | None = None
    xml_lang: str | None = None  # xml:lang of the root (often "en" whatever the wiki)

    def namespace_of(self, title: str) -> int:
        """Namespace key of a title by its prefix (for old dumps without <ns>); 0 if none."""
        if ":" in title:
            prefix = title.split(":", 1)[0].strip().replace("_", " ").casefold()
            for key, name in self.namespaces.items():
                if name and name.casefold() == prefix:
                    return key
        return 0


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _parse_header(path: str, head: bytes) -> SiteInfo:
    """SiteInfo from the bytes before the first page (root start tag + <siteinfo>)."""
    version = _ROOT_VERSION.search(head)
    xml_lang = _ROOT_LANG.search(head)
    start = head.find(b"<siteinfo")
    end = head.find(b"</siteinfo>", start)
    if start < 0 or end < 0:
        return SiteInfo(
            export_version=version.group(1).decode() if version else None,
            xml_lang=xml_lang.group(1).decode() if xml_lang else None,
        )
    try:
        element = ET.fromstring(head[start : end + len(b"</siteinfo>")])
    except ET.ParseError as error:
        line, column = error.position
        line += head.count(b"\n", 0, start)
        raise DumpError(path, start, None, f"malformed <siteinfo> at line {line}, column {column}: {error}") from None
    values: dict[str, str | None] = {}
    namespaces: dict[int, str] = {}
    for child in element:
        name = _local(child.tag)
        if name == "namespaces":
            for space in child:
                try:
                    namespaces[int(space.get("key", ""))] = (space.text or "").strip()
                except ValueError:
                    continue
        else:
            values[name] = (child.text or "").strip() or None
    dbname = values.get("dbname")
    return SiteInfo(
        dbname=dbname,
        lang=_lang_from_dbname(dbname),
        base=values.get("base"),
        case=values.get("case") or "first-letter",
        namespaces=namespaces,
        generator=values.get("generator"),
        export_version=version.group(1).decode() if version else None,
        sitename=values.get("sitename"),
        xml_lang=xml_lang.group(1).decode() if xml_lang else None,
    )


def read_siteinfo(path: str) -> SiteInfo:
    """The ``<siteinfo>`` of a dump, reading only its head (a few KB of decompressed data)."""
    path = os.fspath(path)
    chunks, _ = _text_chunks(path)
    head = b""
    try:
        for item in chunks:
            if isinstance(item, _Break):
                raise DumpError(path, item.offset, None, item.detail.split(": ", 1)[1])
            head += item
            if b"</siteinfo>" in head or _PAGE_OPEN in head or len(head) > _HEAD_LIMIT:
                break
    finally:
        chunks.close()
    cut = head.find(_PAGE_OPEN)
    return _parse_header(path, head if cut < 0 else head[:cut])


def dump_language(site: SiteInfo) -> str | None:
    """Wiki language code of a dump: from its dbname, else from the host of its base URL."""
    if site.lang:
        return site.lang
    if site.base:
        host = _BASE_HOST.match(site.base)
        if host and host.group(1) not in ("www", "commons", "meta", "species", "incubator"):
            return host.group(1)
    return None


def wiki_date_from_name(path: str) -> str | None:
    """Dump date (YYYYMMDD) in a Wikimedia file name, e.g. enwiki-20240101-…; None for "latest"."""
    found = _WIKI_DATE.search(os.path.basename(os.fspath(path)))
    return found.group(1) if found else None


# -- pages ---------------------------------------------------------------------------------------


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
                self.source, "xml_error", f"{self.source}: {where}: {message}",
                page_id, title, offset, _snippet(data),
            )
        if root.tag != "page":  # a page that declares its own namespace: strip it everywhere
            for element in root.iter():
                element.tag = _local(element.tag)
        title = root.findtext("title")
        raw_id = root.findtext("id")
        try:
            page_id = int(raw_id)
        except (TypeError, ValueError):
            return PageReject(self.source, "xml_error", f"{self.source}: page without a numeric <id> ({raw_id!r})",
                              None, title, offset, _snippet(data))
        if title is None:
            return PageReject(self.source, "xml_error", f"{self.source}: page {page_id} has no <title>",
                              page_id, None, offset, _snippet(data))
        raw_ns = root.findtext("ns")
        try:
            ns = int(raw_ns) if raw_ns is not None else self.site.namespace_of(title)
        except ValueError:
            ns = self.site.namespace_of(title)
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
    chunks: Iterator[bytes | _Break],
    *,
    exact_offsets: bool,
    expect_footer: bool | None,
) -> Iterator[Page | PageReject]:
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
    broken = False  # the last thing read was a _Break: its reject already says the rest is lost

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
        if isinstance(item, _Break):
            # The complete pages in buf were yielded already; the partial one is lost with the block.
            start = buf.find(_PAGE_OPEN, pos)
            partial = buf[start:] if start >= 0 else b""
            page_id, title = _raw_identity(partial) if partial else (None, None)
            yield PageReject(source, item.reason, item.detail, page_id, title, item.offset, _snippet(partial))
            if item.reason == "truncated":
                return
            # After a skipped block, decompressed offsets are unknown and the next stream starts
            # with a bare <page>: read on from there without expecting anything else.
            line_of(len(buf))
            base += len(buf)
            buf, pos, counted, open_from, close_from = b"", 0, 0, base, base
            exact_offsets = False
            broken = True
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
            start = buf.find(_PAGE_OPEN, max(pos, open_from - base))
            if start < 0:
                open_from = base + max(pos, len(buf) - len(_PAGE_OPEN) + 1)
                if len(buf) - pos > MAX_PAGE_BYTES:
                    yield PageReject(source, "xml_error", f"{source}: line {line_of(pos)}: "
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
            elif buf[pos:start].strip():
                gap = buf[pos:start]
                page_id, title = _raw_identity(gap)
                yield PageReject(source, "xml_error", f"{source}: line {line_of(pos)}: text outside any <page>",
                                 page_id, title, at(pos), _snippet(gap.strip()))
            pos = start
            end = buf.find(_PAGE_CLOSE, max(start, close_from - base))
            if end < 0:
                close_from = base + max(start, len(buf) - len(_PAGE_CLOSE) + 1)
                if len(buf) - start > MAX_PAGE_BYTES:
                    page_id, title = _raw_identity(buf[start : start + 4096])
                    yield PageReject(source, "xml_error", f"{source}: line {line_of(start)}: <page> longer than "
                                     f"{MAX_PAGE_BYTES} bytes without </page>", page_id, title, at(start),
                                     _snippet(buf[start:]))
                    pos = open_from = len(buf)  # resynchronize at the next <page>
                    open_from += base
                break
            nested = buf.find(_PAGE_OPEN, start + len(_PAGE_OPEN), end)
            if nested >= 0:  # a page lost its </page>: reject it, read on from the next one
                page_id, title = _raw_identity(buf[start:nested])
                yield PageReject(source, "xml_error", f"{source}: line {line_of(start)}: <page> not closed "
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
            yield PageReject(source, "truncated", f"{source}: no <page> in the input", None, None, at(pos),
                             _snippet(rest))
        elif expect_footer is None and b"<mediawiki" in rest and b"</mediawiki>" not in rest:
            yield PageReject(source, "truncated", f"{source}: input ends inside the header, before any page",
                             None, None, at(pos), _snippet(rest))
        return
    start = rest.find(_PAGE_OPEN)
    if start >= 0:
        partial = rest[start:]
        page_id, title = _raw_identity(partial)
        yield PageReject(
            source, "truncated",
            f"{source}: input ends inside a <page> (from line {line_of(pos + start)}, no </page>): the dump is cut short",
            page_id, title, at(pos + start), _snippet(partial),
        )
        return
    footer = rest.find(b"</mediawiki>")
    if expect_footer and footer < 0:
        yield PageReject(
            source, "truncated",
            f"{source}: input ends without </mediawiki> after the last complete page: the dump is cut short",
            None, None, at(len(buf)), _snippet(rest.strip()),
        )
    elif rest[:footer if footer >= 0 else len(rest)].strip() or (footer >= 0 and rest[footer + 12:].strip()):
        yield PageReject(source, "xml_error", f"{source}: line {line_of(pos)}: text outside any <page>",
                         None, None, at(pos), _snippet(rest.strip()))


def _safe_header(source: str, head: bytes) -> SiteInfo:
    try:
        return _parse_header(source, head)
    except DumpError:
        return SiteInfo()  # a broken header must not stop the pages; read_siteinfo reports it


def iter_pages(path: str) -> Iterator[Page | PageReject]:
    """Every page of a dump, in order, then a PageReject for each piece that could not be read.

    Streaming with flat memory. ``Page.offset`` is the byte offset of ``<page>`` in the
    decompressed stream (None for transcoded UTF-16 dumps and after a skipped corrupt block).
    """
    path = os.fspath(path)
    chunks, transcoded = _text_chunks(path)
    try:
        yield from _split_pages(path, chunks, exact_offsets=not transcoded, expect_footer=None)
    finally:
        chunks.close()


# -- multistream: splitting one huge bz2 dump over workers ----------------------------------------


def read_multistream_index(index_path: str) -> Iterator[tuple[int, int, str]]:
    """(stream offset, page id, title) per line of a ``…-multistream-index.txt[.bz2]``."""
    index_path = os.fspath(index_path)
    with io.TextIOWrapper(open_dump(index_path), encoding="utf-8", errors="strict", newline="\n") as lines:
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
    size = os.path.getsize(dump_path)
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
    with open(dump_path, "rb") as handle:
        for offset in starts[1:]:
            handle.seek(offset)
            if not _BZ2_STREAM.match(handle.read(10)):
                raise InputError(index_path, f"offset {offset} is not the start of a bz2 stream in {dump_path} "
                                 "(is this the index of another dump?)")
    return [(start, end) for start, end in zip(starts, starts[1:] + [None])]


def iter_pages_in_range(path: str, start: int, end: int | None) -> Iterator[Page | PageReject]:
    """The pages of compressed bytes [start, end) of a multistream dump (stream boundaries).

    Only the first range (start 0) sees the ``<siteinfo>``; pages of the others have
    ``offset=None``, because their position in the decompressed stream is not known without
    decompressing everything before them.
    """
    path = os.fspath(path)
    if start == 0 and end is None:
        yield from iter_pages(path)
        return
    if start < 0 or (end is not None and end < start):
        raise InputError(path, f"bad byte range [{start}, {end})")
    chunks, transcoded = _text_chunks(path, start, end)
    try:
        yield from _split_pages(
            path, chunks, exact_offsets=start == 0 and not transcoded,
            expect_footer=end is None,
        )
    finally:
        chunks.close()
