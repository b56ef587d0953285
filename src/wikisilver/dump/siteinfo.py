"""Step 2 input: the ``<siteinfo>`` header of a dump, and the wiki's language and dump date.

The header names the wiki (``dbname``, the base URL), its namespaces in the wiki's language
(``Fichier``, ``Catégorie``: what the cleaner drops in a wiki without a table in
``mappings/wikitext.toml``) and the MediaWiki version. Only the head of a dump is read.
"""

from __future__ import annotations

import functools
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from wikisilver import paths
from wikisilver.dump.encoding import text_chunks
from wikisilver.dump.streams import Break
from wikisilver.errors import DumpError, InputError

PAGE_OPEN = b"<page>"
# The header (<siteinfo>) is a few KB; read_siteinfo gives up looking after this much.
_HEAD_LIMIT = 8 << 20
_ROOT_VERSION = re.compile(rb"<mediawiki\b[^>]*?\bversion=\"([^\"]*)\"")
_ROOT_LANG = re.compile(rb"<mediawiki\b[^>]*?\bxml:lang=\"([^\"]*)\"")
_WIKI_DATE = re.compile(r"(?:^|[-_.])((?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?=[-_.]|$)")

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


def local_tag(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def parse_header(path: str, head: bytes) -> SiteInfo:
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
        name = local_tag(child.tag)
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
    """The ``<siteinfo>`` of a dump, reading only its head (a few KB of decompressed data).

    A build asks for it several times (the language, the checks, the namespaces, the warnings,
    the manifest): the head is read once while the file stays as it was (``paths.state``), not
    once a question (a bz2 dump's first block, some 40 ms each)."""
    path = os.fspath(path)
    site = _siteinfo(path, tuple(sorted(paths.state(path).items())))
    return replace(site, namespaces=dict(site.namespaces))


@functools.lru_cache(maxsize=64)
def _siteinfo(path: str, _state: tuple) -> SiteInfo:
    head, _ = _head(path, stop_at_break=True)
    cut = head.find(PAGE_OPEN)
    return parse_header(path, head if cut < 0 else head[:cut])


def check_dump(path: str) -> None:
    """Raise InputError unless ``path`` decompresses to a MediaWiki XML export: its head holds
    the ``<mediawiki`` root. Random bytes, a text file and a file that decompresses to nothing
    are refused before any work. A dump whose first block is corrupt is let through: reading
    it reports the corrupt stream (a reject) and reads on past it."""
    path = os.fspath(path)
    head, broken = _head(path, stop_at_break=False)
    if broken and b"<mediawiki" not in head:
        return
    if not head.strip():
        reason = "is empty" if paths.size(path) == 0 else "decompresses to nothing"
        raise InputError(path, f"not a MediaWiki dump: the file {reason}")
    if b"<mediawiki" not in head:
        raise InputError(path, "not a MediaWiki dump: no <mediawiki> root at the start of the XML")


def _head(path: str, stop_at_break: bool) -> tuple[bytes, bool]:
    """Decompressed UTF-8 bytes of the start of a dump, up to its first page or _HEAD_LIMIT, and
    whether a corrupt block was met; ``stop_at_break``: DumpError there, else read on past it."""
    chunks, _ = text_chunks(path)
    head = b""
    broken = False
    try:
        for item in chunks:
            if isinstance(item, Break):
                if stop_at_break:
                    raise DumpError(path, item.offset, None, item.detail.split(": ", 1)[1])
                broken = True
                continue
            head += item
            if b"</siteinfo>" in head or PAGE_OPEN in head or len(head) > _HEAD_LIMIT:
                break
    finally:
        chunks.close()
    return head, broken


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


def wiki_namespaces(paths: Iterable[str]) -> dict[int, str]:
    """The namespace names of a wiki from the ``<siteinfo>`` of its dump files, read once.

    Several dumps of one wiki share their namespaces; a dump without a header (or with one
    that does not parse, which its pages' rejects report) adds nothing.
    """
    namespaces: dict[int, str] = {}
    for path in paths:
        try:
            site = read_siteinfo(path)
        except DumpError:
            continue
        for key, name in site.namespaces.items():
            namespaces.setdefault(key, name)
    return namespaces
