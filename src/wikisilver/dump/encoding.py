"""Step 2 input, second layer: the decompressed bytes of a dump as UTF-8, whatever it was saved in.

Dumps are UTF-8 in practice, but copies re-saved on Windows turn up as UTF-16 with CRLF: the
encoding comes from the BOM or the XML declaration (XML 1.0 appendix F), the stream is
transcoded to UTF-8 before the pages are cut from it. A lone surrogate reaches the page cutter as
bytes that are not UTF-8 (that page is rejected, never garbage text), a stream cut inside a
character ends there (a truncation), and any other undecodable stream raises
:class:`~wikisilver.errors.DumpError`.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

from wikisilver.dump.bz2blocks import Meter
from wikisilver.dump.streams import Break, raw_chunks
from wikisilver.errors import DumpError

_XML_DECL_ENCODING = re.compile(rb"^<\?xml[^>]*?\bencoding=[\"']([A-Za-z0-9._:\-]+)[\"']")
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _detect_encoding(path: str, head: bytes) -> tuple[str, int]:
    """(codec name, BOM length) of a stream, from its BOM or XML declaration."""
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


def text_chunks(
    path: str, start: int = 0, end: int | None = None, meter: Meter | None = None
) -> tuple[Iterator[bytes | Break], bool]:
    """Decompressed chunks as UTF-8, and whether they were transcoded (offsets then are not bytes);
    ``meter``: counts the compressed bytes decompressed (:func:`~wikisilver.dump.streams.raw_chunks`)."""
    raw = raw_chunks(path, start, end, meter)
    head = b""
    items: list[bytes | Break] = []
    for item in raw:
        items.append(item)
        if isinstance(item, Break):
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


def _transcode(path: str, encoding: str, bom: int, chunks: Iterator[bytes | Break]) -> Iterator[bytes | Break]:
    # A lone surrogate passes through as one, which the UTF-8 written here then cannot hold: the
    # page around it fails to parse and becomes an xml_error reject, as invalid UTF-8 does.
    decoder = codecs.getincrementaldecoder(encoding)("surrogatepass")
    seen = 0
    skip = bom
    for item in chunks:
        if isinstance(item, Break):
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
    except UnicodeDecodeError:
        # Cut inside a character (at an odd byte): the dump is cut short, which the page
        # cutter reports as the truncation of its last page.
        return
    if tail:
        yield tail.encode("utf-8", "surrogatepass")
