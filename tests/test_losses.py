"""Losses counted where they happen (issue "Trust"): corrupt bz2, xz and gzip dumps, multistream
streams named by their index, pages under a namespace prefix, duplicate page ids, titles that look
like comment fields in the TSV, malformed SQL and types lines in stats.json, FIFOs, and a truncated
``.sql.gz``. Real files (the Latgalian dump, the mtwiki SQL tables) damaged in the test."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from build_support import read_corpus, read_rejects, read_stats
from conftest import shared_file
from dump_support import build_multistream, dump_xml
from wikisilver.config.resolve import demo_inputs
from wikisilver.corpus.read import read_tsv
from wikisilver.corpus.write import write_tsv_sentence
from wikisilver.dump import (
    first_pages, iter_pages, iter_pages_in_range, names_a_page, read_multistream_index, stream_ranges,
)
from wikisilver.dump.losses import _Side, estimate
from wikisilver.entities.sql import iter_page_table
from wikisilver.errors import InputError
from wikisilver.files import special_kind
from wikisilver.records import LabelledSentence, Page, PageReject

LATGALIAN = "wikidumps/ltgwiki-smallwiki-latest-pages-articles.xml.bz2"
DEMO_DUMP, DEMO_TYPES = demo_inputs()


def build(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``wikisilver build`` in a subprocess, without -v: what a user sees."""
    done = subprocess.run([sys.executable, "-m", "wikisilver.cli", "build", "--progress-interval", "0", *args],
                          capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def flipped(data: bytes, at: int, length: int = 2000) -> bytes:
    damaged = bytearray(data)
    damaged[at : at + length] = bytes(b ^ 0xFF for b in damaged[at : at + length])
    return bytes(damaged)


def page_ids(path: str | Path, index: str | None = None) -> tuple[list[int], list[PageReject]]:
    records = list(iter_pages(str(path), index))
    return [r.page_id for r in records if isinstance(r, Page)], [r for r in records if isinstance(r, PageReject)]


# -- a corrupt block of a single-stream bz2 dump ------------------------------------------------


def test_corrupt_block_of_the_latgalian_dump_is_estimated_from_the_pages_around_it(tmp_path):
    """2,000 bytes flipped at 345,000 (the dump's second of four 900 kB blocks): the pages of the
    other blocks are read, and the estimate of those lost is within a quarter of the truth (it was
    377 of 469, from the pages per byte of everything before the gap)."""
    source = shared_file(LATGALIAN)
    clean, _ = page_ids(source)
    broken = tmp_path / "ltgwiki-latest-pages-articles.xml.bz2"
    broken.write_bytes(flipped(source.read_bytes(), 345_000))
    read, [gap] = page_ids(broken)
    assert gap.reason == "corrupt_stream" and gap.offset <= 345_000 < gap.offset + gap.bytes_skipped
    lost = sorted(set(clean) - set(read) - {gap.page_id})  # the page the gap cut into is named, not unread
    assert read == [i for i in clean if i in set(read)] and len(read) > 1400  # the other blocks, in order
    assert lost == [i for i in clean if lost[0] <= i <= lost[-1] and i != gap.page_id]  # one run of pages
    assert abs(gap.pages_unread_estimate - len(lost)) <= 0.25 * len(lost), (gap.pages_unread_estimate, len(lost))


def test_a_trial_run_that_stops_after_a_gap_still_reports_it(tmp_path):
    """--max-pages stops reading before the pages after the gap are all read: the gap's reject comes
    with what was read by then, and the pages read still count the page the gap cut into."""
    source = shared_file(LATGALIAN)
    broken = tmp_path / "ltgwiki-latest-pages-articles.xml.bz2"
    broken.write_bytes(flipped(source.read_bytes(), 345_000))
    records = list(first_pages([str(broken)], 400))
    [gap] = [r for r in records if isinstance(r, PageReject)]
    assert sum(map(names_a_page, records)) == 400 and gap.page_id is not None and gap.pages_unread_estimate > 100


def test_estimate_reads_page_ids_across_the_gap_and_bytes_when_they_do_not_go_up():
    before = _Side([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 1000)  # every id a page
    after = _Side([31, 33, 35, 37, 39], 1000)  # every other id
    assert estimate(5000, before, after) == round(20 * (1 + 5 / 9) / 2)  # ids 11-30 missing; the mean share of pages
    shuffled = _Side([10, 3, 7], 300)
    assert estimate(600, shuffled, _Side([2, 1], 100)) == round(600 * (3 / 300 + 2 / 100) / 2)
    assert estimate(600, _Side(), _Side()) == 0  # nothing read to measure by: unknown


@pytest.mark.slow
def test_corrupt_latgalian_build_reports_the_loss_against_the_clean_build(tmp_path):
    """The same damage through ``wikisilver build``: stats.json and the summary estimate the pages
    lost within a quarter of what the clean build read, and the articles missing from the corpus are
    those of the damaged block."""
    source = shared_file(LATGALIAN)
    broken = tmp_path / "ltgwiki-20170701-pages-articles.xml.bz2"
    broken.write_bytes(flipped(source.read_bytes(), 345_000))
    common = ("--lang", "ltg", "--types", DEMO_TYPES)
    assert build("--dump", str(source), *common, "--out", str(tmp_path / "clean")).returncode == 0
    done = build("--dump", str(broken), *common, "--out", str(tmp_path / "broken"))
    assert done.returncode == 0, done.stderr
    clean, stats = read_stats(tmp_path / "clean"), read_stats(tmp_path / "broken")
    lost = clean["pages_read"] - stats["pages_read"]
    assert 400 < lost < 600 and stats["pages_accounted"] is False and stats["bytes_skipped"] > 150_000
    assert abs(stats["pages_unread_estimate"] - lost) <= 0.25 * lost, (stats["pages_unread_estimate"], lost)
    assert f"about {stats['pages_unread_estimate']:,} page(s) unread" in done.stderr
    [gap] = read_rejects(tmp_path / "broken")
    missing = {row["page_id"] for row in read_corpus(tmp_path / "clean")} - {
        row["page_id"] for row in read_corpus(tmp_path / "broken")}
    assert missing and all(gap["page_id"] <= i < gap["page_id"] + 600 for i in missing)


# -- a corrupt stream of a multistream dump, with its index -------------------------------------


@pytest.fixture(scope="module")
def corrupt_multistream(tmp_path_factory) -> tuple[str, str, set[int]]:
    """The Latgalian pages as a multistream dump of 100 pages a stream, its index, the fourth page
    stream corrupted; and the ids the index lists in that stream."""
    dump_path, index_path, _ = build_multistream(shared_file(LATGALIAN), tmp_path_factory.mktemp("multistream"))
    offsets = sorted({offset for offset, _, _ in read_multistream_index(index_path)})
    data = Path(dump_path).read_bytes()
    Path(dump_path).write_bytes(flipped(data, (offsets[3] + offsets[4]) // 2, 8))
    return dump_path, index_path, {i for offset, i, _ in read_multistream_index(index_path) if offset == offsets[3]}


def test_index_names_the_pages_of_a_corrupt_stream(corrupt_multistream):
    dump_path, index_path, truth = corrupt_multistream
    assert len(truth) == 100
    read, [gap] = page_ids(dump_path, index_path)
    assert not truth & set(read) and len(read) == 2004 - 100
    assert gap.page_id is None and gap.pages_unread_estimate == 100  # exact, not an estimate
    assert {i for i, _ in gap.unread_pages} == truth and all(title for _, title in gap.unread_pages)
    # read in parallel byte ranges (as the build reads it), the same
    parts = [r for start, end in stream_ranges(dump_path, index_path, 100_000)
             for r in iter_pages_in_range(dump_path, start, end, index_path)]
    [part_gap] = [r for r in parts if isinstance(r, PageReject)]
    assert part_gap.unread_pages == gap.unread_pages
    # without the index: an estimate, from the pages of the neighbouring streams
    _, [guess] = page_ids(dump_path)
    assert guess.unread_pages == () and 50 <= guess.pages_unread_estimate <= 150


@pytest.mark.slow
def test_build_with_the_index_names_the_lost_pages_and_counts_them_exactly(corrupt_multistream, tmp_path):
    dump_path, index_path, truth = corrupt_multistream
    out = tmp_path / "out"
    done = build("--dump", dump_path, "--multistream-index", index_path, "--lang", "ltg", "--types", DEMO_TYPES,
                 "--out", str(out))
    assert done.returncode == 0, done.stderr
    stats = read_stats(out)
    assert stats["pages_unread_estimate"] == stats["pages_unread_listed"] == 100
    assert stats["pages_read"] == 2004 - 100 and stats["pages_accounted"] is False
    [gap] = read_rejects(out)
    assert {page["page_id"] for page in gap["unread_pages"]} == truth
    assert "100 page(s) unread" in done.stderr and "about 100" not in done.stderr


# -- xz and gzip dumps corrupted mid-file --------------------------------------------------------


@pytest.mark.parametrize("kind", ["xz", "gz"])
def test_corrupt_xz_or_gzip_is_never_a_silent_complete(tmp_path, kind):
    """xz stops at the corrupt data: the rest of the file is bytes skipped with an estimate. gzip's
    deflate has no check of its own: the damage decodes into wrong text up to the member's CRC, which
    fails at the end; the reject says text read from it may be wrong."""
    xml = bz2.decompress(shared_file(LATGALIAN).read_bytes())
    packed = lzma.compress(xml) if kind == "xz" else gzip.compress(xml, mtime=0)
    path = tmp_path / f"ltgwiki-latest-pages-articles.xml.{kind}"
    path.write_bytes(flipped(packed, len(packed) // 2))
    read, rejects = page_ids(path)
    [gap] = [r for r in rejects if r.reason == "corrupt_stream"]
    assert 300 < len(read) < 2004 and str(path) in gap.detail
    if kind == "xz":
        assert gap.offset <= len(packed) // 2 and gap.offset + gap.bytes_skipped == len(packed)
        assert gap.pages_unread_estimate > 300
    else:
        assert "fails its check" in gap.detail and "may be wrong" in gap.detail


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["xz", "gz"])
def test_corrupt_xz_or_gzip_build_is_not_accounted(tmp_path, kind):
    xml = bz2.decompress(shared_file(LATGALIAN).read_bytes())
    packed = lzma.compress(xml) if kind == "xz" else gzip.compress(xml, mtime=0)
    path = tmp_path / f"ltgwiki-latest-pages-articles.xml.{kind}"
    path.write_bytes(flipped(packed, len(packed) // 2))
    done = build("--dump", str(path), "--lang", "ltg", "--types", DEMO_TYPES, "--out", str(tmp_path / "out"))
    assert done.returncode == 0 and "warning" in done.stderr, done.stderr
    stats = read_stats(tmp_path / "out")
    assert stats["pages_accounted"] is False and stats["stream_errors"].get("corrupt_stream") == 1, stats
    if kind == "xz":
        assert stats["bytes_skipped"] > 100_000 and stats["pages_unread_estimate"] > 300
        assert "page(s) unread" in done.stderr
    assert build("--dump", str(path), "--lang", "ltg", "--types", DEMO_TYPES, "--strict",
                 "--out", str(tmp_path / "strict")).returncode == 1


# -- a small dump of pages that break the rules of the corpus -----------------------------------

SPOOF = "Riga sentence=7 low_quality=1"
PROSE = "Riga is the capital of [[Latvia]]. It lies on the [[Baltic Sea]]. Many people live in it."


def awkward_dump(tmp_path: Path) -> Path:
    """A page under a namespace prefix, two titles under one page id, a title that looks like
    comment fields."""
    xml = dump_xml([(100, "Alpha", PROSE), (100, "Beta", PROSE), (101, SPOOF, PROSE), (102, "Gamma", PROSE)])
    prefixed = ("<mw:page><mw:title>Delta</mw:title><mw:ns>0</mw:ns><mw:id>103</mw:id><mw:revision><mw:id>1</mw:id>"
                f"<mw:text>{PROSE}</mw:text></mw:revision></mw:page>\n")
    xml = xml.replace('xml:lang="en">', 'xmlns:mw="http://www.mediawiki.org/xml/export-0.10/" xml:lang="en">')
    xml = xml.replace("<page><title>Gamma", prefixed + "<page><title>Gamma")
    path = tmp_path / "enwiki-20240101-pages-articles.xml"
    path.write_text(xml, encoding="utf-8")
    return path


def test_page_under_a_namespace_prefix_is_a_page_read_and_rejected(tmp_path):
    read, [reject] = page_ids(awkward_dump(tmp_path))
    assert read == [100, 100, 101, 102]
    assert (reject.reason, reject.page_id, reject.title) == ("xml_error", 103, "Delta") and "<mw:page>" in reject.detail


@pytest.mark.slow
def test_build_counts_a_prefixed_page_keeps_page_ids_unique_and_escapes_titles(tmp_path):
    out = tmp_path / "out"
    done = build("--dump", str(awkward_dump(tmp_path)), "--lang", "en", "--types", DEMO_TYPES, "--out", str(out))
    assert done.returncode == 0, done.stderr
    stats = read_stats(out)
    assert stats["pages_read"] == 5 and stats["pages_accounted"] is True and stats["stream_errors"] == {}
    assert stats["pages_rejected"] == {"duplicate_page_id": 1, "xml_error": 1}
    rows = read_corpus(out)
    assert len({row["id"] for row in rows}) == len(rows) and {row["title"] for row in rows if row["page_id"] == 100} == {
        "Alpha"}
    [beta] = [r for r in read_rejects(out) if r["reason"] == "duplicate_page_id"]
    assert beta["title"] == "Beta" and "'Alpha'" in beta["detail"]
    tsv = [s for part in sorted((out / "tsv").glob("*.tsv")) for s in read_tsv(str(part))]
    spoofed = [s for s in tsv if s.doc_id == "101"]
    # the title as the corpus holds it (MediaWiki's underscores are spaces), comment-like text and all
    assert spoofed and {s.title for s in spoofed} == {row["title"] for row in rows if row["page_id"] == 101} == {
        SPOOF.replace("_", " ")}
    assert [s.sentence_index for s in spoofed] == [row["sentence_index"] for row in rows if row["page_id"] == 101]
    assert [s.low_quality for s in spoofed] == [row["low_quality"] for row in rows if row["page_id"] == 101]


_TITLE_PIECES = ["a", "Z", " ", "=", "\\", "t", "n", "r", "\t", "\n", "\r", "#", "é", " sentence=7", " low_quality=1",
                 " page_id=3", " doc=x", " title=y", " source=second_pass", "\\=", "\\\\"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_TITLE_PIECES), min_size=1, max_size=12).map("".join).filter(str.strip))
def test_tsv_titles_read_back_exactly(tmp_path_factory, title):
    path = tmp_path_factory.mktemp("tsv") / "part.tsv"
    sentence = LabelledSentence(7, title, 2, ("Riga",), ("Riga",), ("PROPN",), ("B-City",), ("B-LOC",),
                                low_quality=True, text="Riga", offsets=((0, 4),))
    with path.open("w", encoding="utf-8") as handle:
        write_tsv_sentence(handle, sentence)
    [back] = read_tsv(str(path))
    assert (back.title, back.doc_id, back.sentence_index, back.low_quality) == (title, "7", 2, True)


def test_plain_titles_are_written_as_before(tmp_path):
    path = tmp_path / "part.tsv"
    with path.open("w", encoding="utf-8") as handle:
        write_tsv_sentence(handle, LabelledSentence(7, "E=mc² (song)", 0, ("E",), ("E",), ("X",), ("O",), ("O",)))
    assert path.read_text(encoding="utf-8").startswith("# page_id=7 title=E=mc² (song) sentence=0 low_quality=0\n")


# -- malformed SQL tuples and types lines in stats.json ------------------------------------------


@pytest.mark.slow
def test_malformed_sql_tuples_and_types_lines_are_counted_in_stats(tmp_path):
    redirect = shared_file("sql/mtwiki-20160111-redirect.sql").read_bytes().replace(b"),(", b"),(oops ", 3)
    (tmp_path / "redirect.sql").write_bytes(redirect)
    types = Path(DEMO_TYPES).read_bytes() + b"this is not a triple\n<a> <b>\n"
    (tmp_path / "types.nt").write_bytes(types)
    out = tmp_path / "out"
    done = build("--demo", "--types", str(tmp_path / "types.nt"), "--redirect-sql", str(tmp_path / "redirect.sql"),
                 "--page-sql", str(shared_file("sql/mtwiki-20160111-page.sql")), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert read_stats(out)["input_problems"] == {"redirect_sql.malformed_tuples": 3, "types.malformed_lines": 2}


# -- FIFOs and truncated inputs: one line, saying what and where ----------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_fifo_is_named_as_what_it_is(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert special_kind(fifo) == "a named pipe (FIFO)" and special_kind(DEMO_TYPES) is None


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_fifo_as_config_or_input_is_refused_saying_what_it_is(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for args in (["--config", str(fifo)], ["--demo", "--types", str(fifo)], ["--dump", str(fifo), "--lang", "en"]):
        done = build(*args, "--types", DEMO_TYPES, "--out", str(tmp_path / "out"), timeout=60)  # no hang
        assert done.returncode == 2 and done.stderr.strip().splitlines() == [
            f"wikisilver build: error: {fifo}: is a named pipe (FIFO), not a regular file: "
            + ("give the config as a file" if args[0] == "--config" else "inputs are read more than once, so give a file")]


def truncated_sql_gz(tmp_path: Path) -> Path:
    """mtwiki's page table gzip-compressed, cut after two thirds: the data ends in line 53 of 66."""
    packed = gzip.compress(shared_file("sql/mtwiki-20160111-page.sql").read_bytes())
    path = tmp_path / "mtwiki-20160111-page.sql.gz"
    path.write_bytes(packed[: len(packed) * 2 // 3])
    return path


def test_truncated_sql_gz_names_the_line_it_broke_in(tmp_path):
    with pytest.raises(InputError, match=r"line 53: unreadable or truncated gz data after decompressed byte 1,0\d\d,\d\d\d"):
        list(iter_page_table(str(truncated_sql_gz(tmp_path))))


@pytest.mark.slow
def test_build_with_a_truncated_sql_gz_says_where_in_one_line(tmp_path):
    done = build("--demo", "--page-sql", str(truncated_sql_gz(tmp_path)), "--redirect-sql",
                 str(shared_file("sql/mtwiki-20160111-redirect.sql")), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "mtwiki-20160111-page.sql.gz:line 53: unreadable or truncated gz data after decompressed byte" in line


def test_rejects_of_a_gap_name_the_unread_pages_in_json(tmp_path):
    """The reject row of a gap the index named carries the pages, as the dead letters are written."""
    from wikisilver.pipelines.write import _reject_row

    row = _reject_row(PageReject("d.xml.bz2", "corrupt_stream", "x", offset=5, bytes_skipped=9,
                                 pages_unread_estimate=2, unread_pages=((3, "A"), (4, "B"))))
    assert json.loads(json.dumps(row))["unread_pages"] == [{"page_id": 3, "title": "A"}, {"page_id": 4, "title": "B"}]
