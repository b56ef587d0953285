"""The part writer of the build (pipelines/write.py) and the packed articles it shuffles."""

from __future__ import annotations

import pickle

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from hypothesis import given, settings
from hypothesis import strategies as st

from dataclasses import replace

from wikisilver.packed import articles_in_order, pack_sentences, unpack_sentences
from wikisilver.corpus.read import read_sentences
from wikisilver.pipelines.write import WriteCorpus, part_name, shard_of
from wikisilver.records import EntitySpan, LabelledSentence


def article(page_id: int, n: int) -> tuple[LabelledSentence, ...]:
    return tuple(
        LabelledSentence(page_id, f"Title {page_id}", k, ("Riga", "lies", "here", "."), ("Riga", "lie", "here", "."),
                         ("PROPN", "VERB", "ADV", "PUNCT"), ("B-City", "O", "O", "O"), ("B-LOC", "O", "O", "O"),
                         spans=(EntitySpan(0, 1, "LOC", "City", "Riga", "link"),), text="Riga lies here.",
                         offsets=((0, 4), (5, 9), (10, 14), (14, 15)))
        for k in range(n)
    )


def test_packed_articles_come_back_whole_and_in_page_order() -> None:
    articles = [article(page_id, 3) for page_id in (31, 4, 1000, 7)]
    packed = [pack_sentences(a) for a in articles]
    assert tuple(unpack_sentences(packed[0][2])) == articles[0]
    # sentences whose tokens the text does not give, or whose offsets are unknown, come back as they were
    odd = (replace(articles[1][0], tokens=("Rīga", "lies", "here", ".")), replace(articles[1][1], offsets=()),
           articles[1][2], replace(articles[1][2], index=3, lemmas=("Ri\x1fga", "", "\ue000", ".")),
           replace(articles[1][2], index=4, tokens=(), lemmas=(), pos=(), dbpedia_tags=(), conll_tags=(), offsets=()))
    assert tuple(unpack_sentences(pack_sentences(odd)[2])) == odd
    # an article's sentences cost a few bytes each packed: a fraction of their pickle
    long = article(5, 200)
    assert len(pack_sentences(long)[2]) < len(pickle.dumps(long)) / 5
    ordered = [(page_id, index) for block in articles_in_order(packed) for page_id, index in zip(block.page_id, block.index)]
    assert ordered == sorted((s.page_id, s.index) for a in articles for s in a)


def test_pack_takes_zstandard_for_large_values_and_zlib_for_small_ones() -> None:
    from wikisilver import packed
    from wikisilver.packed import pack, unpack

    text = " ".join(f"word{k % 997} {k}" for k in range(20_000))  # text-like: words repeat, numbers do not
    for value in (None, "", ("Riga", 7), {"Q": b"\x00" * 3}, article(1, 2), text, [text, article(2, 300)]):
        assert unpack(pack(value)) == value
    assert pack(("Riga", 7))[:1] == b"z" and pack(text)[:1] == b"s"
    # Zstandard packs text-like pickles no larger than zlib at its fastest level does (and sooner)
    assert len(pack(text)) <= len(b"z" + packed.zlib.compress(pickle.dumps(text, protocol=5), 1))
    edge = "x" * (packed._LARGE - 40)  # around the threshold, either way back whole
    for k in range(80):
        assert unpack(pack(edge + "y" * k)) == edge + "y" * k


def test_a_packed_article_comes_back_with_its_links() -> None:
    from wikisilver.packed import pack, pack_article, unpack_article
    from wikisilver.records import Article, Link

    text = "Riga is the capital of Latvia. " * 300
    links = tuple(Link(k * 31, k * 31 + 4, "Riga", "Riga") for k in range(300))
    links += (Link(10, 17, "Capital city", "capital"),)
    for article in (Article(7, "Riga", text, links), Article(8, "Empty", "", ())):
        again = unpack_article(pack_article(article))
        assert again == article and all(type(link) is Link for link in again.links)
    # rows of fields, not records: no larger than the records' own pickle
    assert len(pack_article(Article(7, "Riga", text, links))) <= len(pack(Article(7, "Riga", text, links)))


def test_write_corpus_writes_each_part_in_page_order(tmp_path) -> None:
    articles = [article(page_id, 2) for page_id in range(50, 0, -1)]  # arriving in reverse
    for folder in ("tsv", "parquet"):  # the build's staging folder has them
        (tmp_path / folder).mkdir()
    with TestPipeline() as pipeline:
        _ = pipeline | beam.Create(articles) | WriteCorpus(str(tmp_path), shards=3, progress_interval=0)
    for shard in range(3):
        name = part_name(shard, 3)
        assert (tmp_path / "tsv" / f"{name}.tsv").is_file()
    read = list(read_sentences(str(tmp_path)))
    assert len(read) == 100
    for shard in range(3):
        ids = [s.page_id for s in read if shard_of(s.page_id, 3) == shard]
        assert ids == sorted(ids) and ids
    assert read[0].tokens == ("Riga", "lies", "here", ".") and read[0].spans[0].conll == "LOC"


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 7), min_size=1, max_size=6), st.integers(1, 9))
def test_a_part_written_from_packed_articles_is_the_part_of_their_records(tmp_path_factory, sizes, group) -> None:
    """The build writes a part from packed articles, column by column: the same TSV and Parquet
    bytes as from the records one by one, its row groups of ``group`` sentences whatever the
    articles' sizes."""
    from wikisilver.corpus.write import write_part

    articles = [article(page_id, n) for page_id, n in enumerate(sizes, 1)]
    records = [s for a in articles for s in a]
    out = tmp_path_factory.mktemp("part")
    write_part(records, out / "a.tsv", out / "a.parquet", row_group_size=group)
    write_part(articles_in_order([pack_sentences(a) for a in articles]), out / "b.tsv", out / "b.parquet",
               row_group_size=group)
    assert (out / "a.tsv").read_bytes() == (out / "b.tsv").read_bytes()
    assert (out / "a.parquet").read_bytes() == (out / "b.parquet").read_bytes()
    import pyarrow.parquet as pq

    groups = pq.ParquetFile(out / "b.parquet").metadata
    assert [groups.row_group(k).num_rows for k in range(groups.num_row_groups)][:-1] == (
        [group] * ((len(records) - 1) // group))


def test_tsv_lines_hold_every_offset_and_no_tab_or_line_break_of_the_text() -> None:
    import io

    from wikisilver.corpus.write import write_tsv_sentence

    long_text = "x" * 9000 + " Riga\tlies\nhere."  # offsets past the writer's table of digits
    sentence = LabelledSentence(3, "T", 0, ("Riga", "lies", "here", "."), ("Riga", "lie", "here", "."),
                                ("PROPN", "VERB", "ADV", "PUNCT"), ("B-City", "O", "O", "O"), ("B-LOC", "O", "O", "O"),
                                text=long_text, offsets=((9001, 9005), (9006, 9010), (9011, 9015), (9015, 9016)))
    handle = io.StringIO()
    write_tsv_sentence(handle, sentence)
    for short in article(4, 1):
        write_tsv_sentence(handle, short)
    lines = handle.getvalue().split("\n")
    assert lines[0] == "# page_id=3 title=T sentence=0 low_quality=0"
    assert lines[1] == "# text = " + "x" * 9000 + " Riga lies here."
    assert [line.split("\t")[-2:] for line in lines[2:6]] == [["9001", "9005"], ["9006", "9010"], ["9011", "9015"],
                                                             ["9015", "9016"]]
    assert [line.split("\t")[-2:] for line in lines[9:13]] == [["0", "4"], ["5", "9"], ["10", "14"], ["14", "15"]]


def test_the_table_s_offsets_and_tag_integers_are_each_token_s() -> None:
    from wikisilver.corpus.schema import NER_LABEL_IDS
    from wikisilver.corpus.write import sentences_to_table

    sentences = [*article(5, 3), replace(article(6, 1)[0], offsets=(), conll_tags=("B-LOC", "UNK", "I-MISC", "O")),
                 replace(article(7, 1)[0], tokens=(), lemmas=(), pos=(), dbpedia_tags=(), conll_tags=(), offsets=(),
                         spans=())]
    table = sentences_to_table(sentences).to_pydict()
    assert table["token_starts"] == [[start for start, _ in s.offsets] for s in sentences]
    assert table["token_ends"] == [[end for _, end in s.offsets] for s in sentences]
    assert table["ner_tags"] == [[NER_LABEL_IDS.get(tag, 0) for tag in s.conll_tags] for s in sentences]
    assert table["ner_tags"][3] == [5, 0, 8, 0]
    assert sentences_to_table([]).num_rows == 0


_CELL = st.text(alphabet=st.sampled_from(list("ab_ \t\n\r.é\u0100日\U0001f600\x1f")), max_size=4)
_SENTENCE = st.tuples(
    st.lists(st.lists(_CELL, max_size=6), min_size=5, max_size=5),  # its five columns, of any lengths
    st.one_of(st.just(()), st.lists(st.tuples(st.integers(-12, 10**12), st.integers(-5, 10**6)), max_size=7)),
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(_SENTENCE, max_size=4))
def test_the_compiled_token_lines_are_the_python_join(sentences) -> None:
    """corpus/_tsv.c writes sentences' token lines from their joined columns as the Python join of
    each sentence's cells does: escaped and empty cells, every width of character, a cell holding
    the usual separator, offsets or none, columns of different lengths."""
    from itertools import chain

    from wikisilver.corpus import write
    from wikisilver.corpus.columns import joined

    columns = tuple(joined([cells[c] for cells, _ in sentences]) for c in range(5))
    offsets = [n for _, pairs in sentences for pair in pairs for n in pair]
    lengths = [len(pairs) for _, pairs in sentences]
    def lines(cells, pairs):  # the Python join of one sentence, as the writer made it before
        offsets = [[str(a) for a, _ in pairs], [str(b) for _, b in pairs]] if pairs else []
        return "\n".join(map("\t".join, zip(*[write._cells(column) for column in cells], *offsets)))

    expected = [lines(cells, pairs) for cells, pairs in sentences]
    assert write._joined_lines(columns, offsets, lengths) == expected
    if write._tsv is None:
        pytest.skip("wikisilver.corpus._tsv was not built (no C compiler at install): the Python join alone")
    assert write._tsv.token_lines(columns, offsets, lengths) == expected
    assert write._tsv.token_lines(tuple(c._replace(lengths=tuple(c.lengths)) for c in columns), tuple(offsets),
                                  tuple(lengths)) == expected
    assert list(chain.from_iterable(c.split() for c in columns[:1])) == [x for cells, _ in sentences for x in cells[0]]


def test_the_compiled_token_lines_refuse_columns_their_lengths_overrun() -> None:
    from wikisilver.corpus import write
    from wikisilver.corpus.columns import Joined

    if write._tsv is None:
        pytest.skip("wikisilver.corpus._tsv was not built (no C compiler at install)")
    with pytest.raises(ValueError):
        write._tsv.token_lines((Joined("a\x1fb", "\x1f", [3]),), [], [0])
    with pytest.raises(ValueError):
        write._tsv.token_lines((Joined("a\x1fb", "\x1f", [2]),), [0, 1], [1, 1])
    with pytest.raises(TypeError):
        write._tsv.token_lines((("a", "", [1]),), [], [0])


def test_token_lines_the_c_writer_cannot_take_go_to_the_python_join() -> None:
    from wikisilver.corpus.write import tsv_block

    columns = (("Riga", "."), ("Riga", "."), ("PROPN", "PUNCT"), ("B-City", "O"), ("B-LOC", "O"))
    for offsets in ([[0, 4], [4, 5]], ((0, 4), (4, 10**30))):  # lists for pairs; an offset past 64 bits
        last = "\t".join([".", ".", "PUNCT", "O", "O", str(offsets[1][0]), str(offsets[1][1])])
        assert tsv_block("# c", None, columns, offsets) == f"# c\nRiga\tRiga\tPROPN\tB-City\tB-LOC\t0\t4\n{last}\n\n"
