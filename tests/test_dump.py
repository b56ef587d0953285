"""Tests of the dump reader: pages, siteinfo, compressions, encodings, broken and split dumps."""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import itertools
import lzma
from collections import Counter
from pathlib import Path

import pytest
from conftest import ENWIKI_EXTRACT, shared_file
from dump_support import build_multistream

from wikisilver import dump
from wikisilver.errors import DumpError, InputError
from wikisilver.records import Page, PageReject

HEADER_010 = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="hu">
  <siteinfo>
    <sitename>Wikipédia</sitename>
    <dbname>huwiki</dbname>
    <base>https://hu.wikipedia.org/wiki/Kezdőlap</base>
    <generator>MediaWiki 1.41.0-wmf.6</generator>
    <case>first-letter</case>
    <namespaces>
      <namespace key="0" case="first-letter" />
      <namespace key="6" case="first-letter">Fájl</namespace>
      <namespace key="14" case="first-letter">Kategória</namespace>
    </namespaces>
  </siteinfo>
"""


def page_xml(page_id: int, title: str, text: str, ns: int = 0, redirect: str | None = None) -> str:
    redirect_tag = f'    <redirect title="{redirect}" />\n' if redirect else ""
    return f"""  <page>
    <title>{title}</title>
    <ns>{ns}</ns>
    <id>{page_id}</id>
{redirect_tag}    <revision>
      <id>{page_id * 10}</id>
      <timestamp>2023-05-01T12:00:00Z</timestamp>
      <contributor><username>Szerkesztő</username><id>7</id></contributor>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text bytes="{len(text.encode())}" xml:space="preserve">{text}</text>
      <sha1>abc</sha1>
    </revision>
  </page>
"""


SMALL_DUMP = (
    HEADER_010
    + page_xml(1, "Budapest", "'''Budapest''' Magyarország fővárosa. A &lt;ref&gt; [[Duna]] partján.")
    + page_xml(2, "Pest", "#ÁTIRÁNYÍTÁS [[Budapest]]", redirect="Budapest")
    + page_xml(3, "Kategória:Városok", "Magyar városok.", ns=14)
    + "</mediawiki>\n"
)


def write(tmp_path: Path, name: str, data: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return str(path)


def pages_of(path: str) -> list[Page]:
    records = list(dump.iter_pages(path))
    assert all(isinstance(r, Page) for r in records), [r for r in records if isinstance(r, PageReject)]
    return records


def without_offset(records):
    return [dataclasses.replace(r, offset=None) for r in records]


# -- opening ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,pack",
    [
        ("plain.xml", lambda b: b),
        ("packed.xml.bz2", bz2.compress),
        ("packed.xml.gz", gzip.compress),
        ("packed.xml.xz", lzma.compress),
        ("mislabeled_bz2.xml", bz2.compress),  # magic bytes win over the extension
        ("mislabeled_xz.bz2", lzma.compress),
    ],
)
def test_pages_of_every_compression(tmp_path, name, pack):
    path = write(tmp_path, name, pack(SMALL_DUMP.encode()))
    titles = [p.title for p in pages_of(path)]
    assert titles == ["Budapest", "Pest", "Kategória:Városok"]


def test_missing_file_is_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        list(dump.iter_pages(str(tmp_path / "nowhere.xml.bz2")))


# -- pages -----------------------------------------------------------------------------------


def test_page_fields_of_small_dump(tmp_path):
    path = write(tmp_path, "small.xml", SMALL_DUMP)
    budapest, pest, category = pages_of(path)
    assert budapest == Page(
        page_id=1, title="Budapest", ns=0,
        text="'''Budapest''' Magyarország fővárosa. A <ref> [[Duna]] partján.",
        redirect=None, revision_id=10, timestamp="2023-05-01T12:00:00Z", source=path,
        offset=SMALL_DUMP.encode().index(b"<page>"),
    )
    assert pest.redirect == "Budapest"
    assert category.ns == 14
    raw = Path(path).read_bytes()
    assert all(raw[p.offset : p.offset + 6] == b"<page>" for p in (budapest, pest, category))


def test_export_011_and_no_namespace_and_no_siteinfo(tmp_path):
    v11 = SMALL_DUMP.replace("export-0.10", "export-0.11").replace('version="0.10"', 'version="0.11"')
    bare = "<mediawiki>\n" + page_xml(5, "Szeged", "Város.") + "</mediawiki>\n"
    assert [p.title for p in pages_of(write(tmp_path, "v11.xml", v11))] == ["Budapest", "Pest", "Kategória:Városok"]
    assert dump.read_siteinfo(write(tmp_path, "v11b.xml", v11)).export_version == "0.11"
    (szeged,) = pages_of(write(tmp_path, "bare.xml", bare))
    assert (szeged.page_id, szeged.title, szeged.text) == (5, "Szeged", "Város.")
    site = dump.read_siteinfo(str(tmp_path / "bare.xml"))
    assert site == dump.SiteInfo(dbname=None, lang=None, base=None, namespaces={})


def test_history_dump_keeps_latest_revision(tmp_path):
    page = page_xml(9, "Eger", "régi").replace(
        "    </revision>\n", "    </revision>\n    <revision><id>99</id><timestamp>2024-01-01T00:00:00Z</timestamp>"
        '<text xml:space="preserve">új szöveg</text></revision>\n'
    )
    (eger,) = pages_of(write(tmp_path, "hist.xml", HEADER_010 + page + "</mediawiki>"))
    assert (eger.text, eger.revision_id, eger.timestamp) == ("új szöveg", 99, "2024-01-01T00:00:00Z")


def test_missing_text_and_ns_from_title_prefix(tmp_path):
    page = page_xml(4, "Kategória:Folyók", "x").replace("    <ns>14</ns>\n", "").replace("    <ns>0</ns>\n", "")
    page = page.replace('<text bytes="1" xml:space="preserve">x</text>', '<text deleted="deleted" />')
    (folyok,) = pages_of(write(tmp_path, "old.xml", HEADER_010 + page + "</mediawiki>"))
    assert (folyok.ns, folyok.text) == (14, "")


def test_enwiki_extract_pages_and_redirects():
    path = str(shared_file(ENWIKI_EXTRACT))
    pages = pages_of(path)
    assert len(pages) == 206
    assert sum(1 for p in pages if p.redirect) == 100
    first = pages[0]
    assert (first.title, first.page_id, first.redirect) == ("AccessibleComputing", 10, "Computer accessibility")
    assert any(p.title == "Anarchism" and "anarchism" in p.text.lower() for p in pages)
    offsets = [p.offset for p in pages]
    assert offsets == sorted(offsets) and None not in offsets
    with bz2.open(path) as stream:
        stream.seek(offsets[5])
        assert stream.read(6) == b"<page>"


def test_tinywiki_edge_cases():
    pages = pages_of(str(shared_file("wikidumps/tinywiki-latest-pages-articles.xml")))
    titles = [p.title for p in pages]
    assert titles == ["Hello", "Toronto", "Duplicate title", "Duplicate title", "Big Page",
                      "Redirect page", "Disambiguation page", "Bodmin"]
    duplicates = [p.text.strip() for p in pages if p.title == "Duplicate title"]
    assert duplicates == ["this duplicate should be removed", "this duplicate should stay"]
    redirect = pages[5]
    # No <redirect/> element in this dump: the text keeps it for the wikitext step to see.
    assert redirect.redirect is None and redirect.text.startswith("#REDIRECT [[The Beatles]]")
    assert "Belleville" in pages[6].text
    assert max(pages, key=lambda p: len(p.text)).title == "Bodmin"
    assert "{{Infobox settlement" in pages[1].text
    site = dump.read_siteinfo(str(shared_file("wikidumps/tinywiki-latest-pages-articles.xml")))
    assert site.dbname == "tmp-wp" and site.lang is None
    assert dump.dump_language(site) == "ltg"  # from the base URL's host


def test_huwiki_with_wrong_siteinfo_is_read():
    path = str(shared_file("wikidumps/huwiki-minidump.xml.bz2"))
    (berlin,) = pages_of(path)
    assert berlin.title == "Berlin" and "Németország" in berlin.text
    assert dump.read_siteinfo(path).dbname == "enwiki"  # wrong, as documented: the user passes --lang


def test_ltgwiki_complete_dump_counts():
    path = str(shared_file("wikidumps/ltgwiki-smallwiki-latest-pages-articles.xml.bz2"))
    pages = pages_of(path)
    assert len(pages) == 2004
    assert len({p.page_id for p in pages}) == 2004
    namespaces = Counter(p.ns for p in pages)
    assert namespaces == {0: 1050, 14: 539, 10: 347, 4: 28, 828: 28, 8: 12}
    assert sum(1 for p in pages if p.redirect) == 195
    site = dump.read_siteinfo(path)
    assert (site.dbname, site.lang, site.namespaces[14]) == ("ltgwiki", "ltg", "Kategoreja")


# -- siteinfo and names ----------------------------------------------------------------------


def test_read_siteinfo_of_enwiki():
    site = dump.read_siteinfo(str(shared_file(ENWIKI_EXTRACT)))
    assert (site.dbname, site.lang, site.case, site.export_version) == ("enwiki", "en", "first-letter", "0.10")
    assert site.namespaces[6] == "File" and site.namespaces[14] == "Category" and site.namespaces[0] == ""
    assert site.generator == "MediaWiki 1.27.0-wmf.22"
    assert site.base == "https://en.wikipedia.org/wiki/Main_Page"


def test_dump_without_siteinfo_has_empty_siteinfo():
    site = dump.read_siteinfo(str(shared_file("wikidumps/gensim_enwiki-table-markup.xml.bz2")))
    assert (site.dbname, site.lang, site.base, site.namespaces) == (None, None, None, {})
    assert dump.dump_language(site) is None


def test_namespaces_of_several_dumps_of_one_wiki(tmp_path):
    with_header = write(tmp_path, "part1.xml", SMALL_DUMP)
    bare = write(tmp_path, "part2.xml", "<mediawiki>\n" + page_xml(5, "Szeged", "Város.") + "</mediawiki>\n")
    broken = write(tmp_path, "part3.xml", SMALL_DUMP.replace("</namespaces>", "</namespace>"))
    expected = {0: "", 6: "Fájl", 14: "Kategória"}
    assert dump.wiki_namespaces([bare, broken, with_header]) == expected
    assert dump.wiki_namespaces([bare]) == {}


@pytest.mark.parametrize(
    "dbname,lang",
    [("enwiki", "en"), ("huwiki", "hu"), ("zh_yuewiki", "zh-yue"), ("be_x_oldwiki", "be-x-old"),
     ("dewiktionary", "de"), ("commonswiki", None), ("wikidatawiki", None), ("tmp-wp", None), (None, None)],
)
def test_language_from_dbname(tmp_path, dbname, lang):
    header = HEADER_010.replace("<dbname>huwiki</dbname>", f"<dbname>{dbname}</dbname>" if dbname else "")
    header = header.replace("<base>https://hu.wikipedia.org/wiki/Kezdőlap</base>", "")
    path = write(tmp_path, "site.xml", header + page_xml(1, "Budapest", "x") + "</mediawiki>\n")
    assert dump.dump_language(dump.read_siteinfo(path)) == lang


@pytest.mark.parametrize(
    "name,date",
    [("enwiki-20240101-pages-articles.xml.bz2", "20240101"),
     ("/data/huwiki-20160501-pages-articles-multistream.xml.bz2", "20160501"),
     ("enwiki-latest-pages-articles.xml.bz2", None),
     ("enwiki-20241399-pages-articles.xml.bz2", None),  # not a date
     ("gensim_enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2", None)],
)
def test_wiki_date_from_name(name, date):
    assert dump.wiki_date_from_name(name) == date


# -- broken dumps ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang,complete", [("ja", 238), ("mr", 1820), ("uk", 532)])
def test_truncated_dump_yields_complete_pages_then_one_reject(lang, complete):
    path = str(shared_file(f"wikidumps/{lang}wiki-truncated-100k.xml.xz"))
    records = list(dump.iter_pages(path))
    *pages, last = records
    assert len(pages) == complete and all(isinstance(p, Page) for p in pages)
    assert isinstance(last, PageReject) and last.reason == "truncated"
    assert last.page_id is not None and last.title and last.page_id not in {p.page_id for p in pages}
    assert last.offset > pages[-1].offset and last.snippet.startswith("<page>")
    assert path in last.detail


def test_truncated_between_pages(tmp_path):
    cut = SMALL_DUMP[: SMALL_DUMP.index("</mediawiki>")]
    *pages, last = dump.iter_pages(write(tmp_path, "cut.xml.gz", gzip.compress(cut.encode())))
    assert len(pages) == 3 and last.reason == "truncated" and last.page_id is None


def test_truncated_compressed_file(tmp_path):
    packed = bz2.compress((SMALL_DUMP * 1).encode())
    path = write(tmp_path, "cut.xml.bz2", packed[: len(packed) - 20])
    records = list(dump.iter_pages(path))
    assert [r.reason for r in records if isinstance(r, PageReject)] == ["truncated"]


def test_corrupt_bz2_block_keeps_pages_before_and_reads_on_after(tmp_path):
    """A single-stream dump (one bz2 stream of 900 kB blocks) with a block corrupted in the
    middle: the pages before it, one reject saying what was skipped, then the pages after it."""
    source = shared_file(ENWIKI_EXTRACT)
    whole = [dataclasses.replace(p, source="") for p in pages_of(str(source))]
    data = bytearray(source.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 16] = bytes(b ^ 0x5A for b in data[middle : middle + 16])
    path = write(tmp_path, "corrupt.xml.bz2", bytes(data))
    records = list(dump.iter_pages(path))
    [reject] = [r for r in records if isinstance(r, PageReject)]  # yielded once the pages after it are read
    before = [r for r in records if isinstance(r, Page) and r.offset is not None]
    after = [r for r in records if isinstance(r, Page) and r.offset is None]  # offsets after a gap are unknown
    assert records[: len(before)] == before
    assert 0 < len(before) and [dataclasses.replace(p, source="") for p in before] == whole[: len(before)]
    assert reject.reason == "corrupt_stream" and reject.title == whole[len(before)].title  # the page cut by the gap
    assert reject.offset <= middle < reject.offset + reject.bytes_skipped and path in reject.detail
    assert len(after) > 10  # read on at the next block: the dump's last pages, whole
    assert [dataclasses.replace(p, source="", offset=None) for p in after] == [
        dataclasses.replace(p, offset=None) for p in whole[-len(after) :]]
    lost = len(whole) - len(before) - 1 - len(after)
    assert lost > 0 and lost / 3 <= reject.pages_unread_estimate <= lost * 3


def test_corrupt_xz_keeps_pages_before(tmp_path):
    source = shared_file("wikidumps/jawiki-truncated-100k.xml.xz")
    data = bytearray(source.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 16] = bytes(b ^ 0x5A for b in data[middle : middle + 16])
    path = write(tmp_path, "corrupt.xml.xz", bytes(data))
    *pages, last = list(dump.iter_pages(path))
    assert len(pages) > 10 and all(isinstance(p, Page) for p in pages)
    assert last.reason == "corrupt_stream" and 0 < last.offset <= middle and path in last.detail


def test_malformed_page_is_rejected_with_line_and_column(tmp_path):
    broken = page_xml(2, "Pest", "a <b> c")  # an unescaped tag closing nothing
    text = HEADER_010 + page_xml(1, "Buda", "ok") + broken + page_xml(3, "Óbuda", "ok") + "</mediawiki>\n"
    path = write(tmp_path, "broken.xml", text)
    buda, reject, obuda = dump.iter_pages(path)
    assert (buda.title, obuda.title) == ("Buda", "Óbuda")
    assert isinstance(reject, PageReject) and reject.reason == "xml_error"
    assert (reject.page_id, reject.title) == (2, "Pest")
    bad_line = text[: text.index("a <b> c")].count("\n") + 1
    assert f"line {bad_line}, column" in reject.detail and path in reject.detail
    assert reject.offset == text.encode().index(b"<page>", text.encode().index(b"<title>Pest") - 40)


def test_page_missing_its_close_tag_does_not_swallow_the_next(tmp_path):
    unclosed = page_xml(2, "Pest", "x").replace("  </page>\n", "")
    path = write(tmp_path, "unclosed.xml", HEADER_010 + unclosed + page_xml(3, "Óbuda", "ok") + "</mediawiki>")
    reject, obuda = dump.iter_pages(path)
    assert reject.reason == "xml_error" and reject.title == "Pest" and "not closed" in reject.detail
    assert obuda.title == "Óbuda"


# -- encodings -------------------------------------------------------------------------------


def test_utf16_bulgarian_dump_is_decoded():
    path = str(shared_file("wikidumps/gensim_bgwiki-latest-pages-articles-shortened.xml.bz2"))
    pages = pages_of(path)
    assert pages[0].title == "Григориански календар"
    assert [p.page_id for p in pages] == [558, 559, 560]
    assert "Григорий XIII" in pages[0].text and "\r" not in pages[0].text  # CRLF normalized by XML
    site = dump.read_siteinfo(path)
    assert (site.dbname, site.lang, site.sitename, site.namespaces[14]) == ("bgwiki", "bg", "Уикипедия", "Категория")


def test_declared_latin1_is_transcoded(tmp_path):
    text = '<?xml version="1.0" encoding="ISO-8859-1"?>\n' + SMALL_DUMP.replace("ő", "o")
    (budapest, *_) = pages_of(write(tmp_path, "latin1.xml", text.encode("latin-1")))
    assert "Magyarország" in budapest.text


def test_unknown_encoding_is_dump_error(tmp_path):
    path = write(tmp_path, "odd.xml", '<?xml version="1.0" encoding="x-klingon"?>\n' + SMALL_DUMP)
    with pytest.raises(DumpError, match="unknown encoding 'x-klingon'"):
        list(dump.iter_pages(path))


def test_undecodable_utf16_rejects_its_page_only(tmp_path):
    """A lone low surrogate in one page's text: that page is an xml_error reject, never garbage
    text, and the pages around it are read (issue 21: one bad page never kills the run)."""
    at = 2 * SMALL_DUMP.index("<title>Pest</title>")
    data = SMALL_DUMP.encode("utf-16-le")
    data = b"\xff\xfe" + data[:at] + b"\x00\xdc" + data[at:]
    records = list(dump.iter_pages(write(tmp_path, "bad16.xml", data)))
    assert [r.title for r in records if isinstance(r, Page)] == ["Budapest", "Kategória:Városok"]
    rejects = [r for r in records if isinstance(r, PageReject)]
    assert [r.reason for r in rejects] == ["xml_error"] and "bad16.xml" in rejects[0].detail


# -- multistream -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def multistream(tmp_path_factory):
    source = shared_file("wikidumps/ltgwiki-smallwiki-latest-pages-articles.xml.bz2")
    return build_multistream(source, tmp_path_factory.mktemp("multistream"))


def test_multistream_ranges_read_exactly_the_whole_file(multistream):
    dump_path, index_path, count = multistream
    whole = pages_of(dump_path)
    assert len(whole) == count == 2004
    ranges = dump.stream_ranges(dump_path, index_path, target_bytes=100_000)
    assert len(ranges) > 3 and ranges[0][0] == 0 and ranges[-1][1] is None
    assert all(end == next_start for (_, end), (next_start, _) in itertools.pairwise(ranges))
    parts = [list(dump.iter_pages_in_range(dump_path, start, end)) for start, end in ranges]
    assert all(isinstance(r, Page) for part in parts for r in part)
    assert all(p.offset is None for part in parts[1:] for p in part)
    assert without_offset([p for part in parts for p in part]) == without_offset(whole)
    assert parts[0] == whole[: len(parts[0])]  # the first range knows its offsets


def test_multistream_index_lines(multistream):
    dump_path, index_path, count = multistream
    entries = list(dump.read_multistream_index(index_path))
    assert len(entries) == count
    assert any(":" in title for _, _, title in entries)  # titles keep their colons
    offsets = [offset for offset, _, _ in entries]
    assert offsets == sorted(offsets) and len(set(offsets)) == 21
    with open(dump_path, "rb") as handle:
        handle.seek(offsets[-1])
        assert handle.read(3) == b"BZh"


def test_stream_ranges_without_index_or_with_a_wrong_one(multistream, tmp_path):
    dump_path, index_path, _ = multistream
    assert dump.stream_ranges(dump_path, None) == [(0, None)]
    assert dump.stream_ranges(dump_path, index_path) == [(0, None)]  # all fits in 64 MB
    wrong = write(tmp_path, "wrong-index.txt", "5:1:Foo\n1234:2:Bar\n")
    with pytest.raises(InputError, match="not the start of a bz2 stream"):
        dump.stream_ranges(dump_path, wrong, target_bytes=1000)
    garbage = write(tmp_path, "garbage-index.txt", "this is not an index\n")
    with pytest.raises(InputError, match="line 1"):
        dump.stream_ranges(dump_path, garbage)


def test_corrupt_stream_in_multistream_loses_only_that_stream(multistream, tmp_path):
    dump_path, index_path, _ = multistream
    offsets = sorted({offset for offset, _, _ in dump.read_multistream_index(index_path)})
    data = bytearray(Path(dump_path).read_bytes())
    bad = (offsets[3] + offsets[4]) // 2  # inside the 4th page stream (pages 301-400)
    data[bad : bad + 8] = bytes(b ^ 0xFF for b in data[bad : bad + 8])
    path = write(tmp_path, "corrupt-multistream.xml.bz2", bytes(data))
    records = list(dump.iter_pages(path))
    rejects = [r for r in records if isinstance(r, PageReject)]
    assert len(rejects) == 1 and rejects[0].reason == "corrupt_stream"
    assert offsets[3] <= rejects[0].offset < offsets[4]
    assert rejects[0].offset + rejects[0].bytes_skipped == offsets[4]  # read on at the next stream
    assert 50 <= rejects[0].pages_unread_estimate <= 200
    assert sum(isinstance(r, Page) for r in records) == 2004 - 100
    # read in parallel byte ranges, the same: each range reads on past a gap the same way
    ranges = dump.stream_ranges(path, index_path, target_bytes=100_000)
    parts = [r for start, end in ranges for r in dump.iter_pages_in_range(path, start, end)]
    assert without_offset([r for r in parts if isinstance(r, Page)]) == without_offset(
        [r for r in records if isinstance(r, Page)])
    [reject] = [r for r in parts if isinstance(r, PageReject)]
    assert (reject.offset, reject.bytes_skipped, reject.reason) == (rejects[0].offset, rejects[0].bytes_skipped,
                                                                    "corrupt_stream")
