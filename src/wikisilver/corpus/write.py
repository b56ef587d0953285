"""Step 5 of the method: the corpus written as part files (multitag TSV and Parquet), and JSON
written so that no reader sees half a file.

The layout of both formats is :mod:`wikisilver.corpus.schema`; :mod:`wikisilver.corpus.read` reads
them back. Each sentence of the TSV follows a comment line that keeps its article and a ``# text = …`` line;
a split of the corpus (:mod:`wikisilver.corpus.splits`) is written in the same TSV.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import NamedTuple, TextIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from wikisilver import outputs, paths
from wikisilver.corpus.schema import (
    LINKS, NER_LABELS, SENTENCE_SCHEMA, SOURCE_SCHEMA, TEXT_COMMENT, escape_title,
)
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.errors import OutputError
from wikisilver.records import EntitySpan, LabelledSentence

try:
    from wikisilver.corpus import _tsv  # compiled at install where a C compiler is found
except ImportError:  # pragma: no cover - an install without a C compiler
    _tsv = None

_ESCAPES = str.maketrans({"\t": " ", "\n": " ", "\r": " "})  # one character for one: offsets hold


def tsv_comment(
    page_id: str | None, title: str | None, index: int | None, low_quality: bool, source: str = LINKS
) -> str:
    """The ``# page_id=… title=… sentence=… low_quality=…`` line before a sentence of our TSV
    (``doc=…`` for a document id that is not a page id; `` source=…`` after it for a sentence the
    second pass kept, none for the rules' own; a title that would read back otherwise escaped:
    :func:`~wikisilver.corpus.schema.escape_title`)."""
    fields = []
    if page_id is not None and page_id.isdigit():
        fields.append(f"page_id={page_id}")
    elif page_id is not None:
        fields.append("doc=" + re.sub(r"\s", "_", page_id))
    if title:
        fields.append(f"title={escape_title(title)}")
    if index is not None:
        fields.append(f"sentence={index}")
    fields.append(f"low_quality={int(low_quality)}")
    if source != LINKS:
        fields.append(f"source={source}")
    return "# " + _escaped(" ".join(fields))


def _cells(column: Sequence[str]) -> Sequence[str]:
    """One column's cells as TSV cells: tabs and line breaks as spaces, an empty cell as "_"."""
    joined = "".join(column)
    if "\t" in joined or "\n" in joined or "\r" in joined or "" in column:
        return tuple(cell.translate(_ESCAPES) or "_" for cell in column)
    return column


def tsv_block(
    comment: str, text: str | None, columns: Sequence[Sequence[str]],
    offsets: Sequence[tuple[int, int]] | None,
) -> str:
    """One sentence of our TSV: the comment line, ``# text = …`` when the text is known, the token
    lines (with ``start``/``end`` when the offsets are known) and the blank line after it."""
    lines = [comment]
    if text is not None:
        lines.append(TEXT_COMMENT + _escaped(text))
    body = _token_lines(columns, offsets)
    if body:
        lines.append(body)
    return "\n".join(lines) + "\n\n"


def _token_lines(columns: Sequence[Sequence[str]], offsets: Sequence[tuple[int, int]] | None) -> str:
    """A line a token, joined: its cells (:func:`_cells`), then its ``start`` and ``end`` where
    known. Speed, in one place: written in C where ``corpus/_tsv.c`` was built, else (and for
    offsets it does not take: pairs not tuples, integers past 64 bits) by :func:`_joined_lines`;
    ``tests/test_write_parts.py`` holds the two equal."""
    if _tsv is not None:
        try:
            return _tsv.token_lines(tuple(columns), offsets or ())
        except (TypeError, OverflowError):
            pass
    return _joined_lines(columns, offsets)


def _joined_lines(columns: Sequence[Sequence[str]], offsets: Sequence[tuple[int, int]] | None) -> str:
    cells = [_cells(column) for column in columns]
    if offsets:  # two more columns, so that each line is one join
        cells += ([str(start) for start, _ in offsets], [str(end) for _, end in offsets])
    return "\n".join(map("\t".join, zip(*cells)))


def _escaped(text: str) -> str:
    """Tabs and line breaks as spaces (looked for first: a sentence seldom holds one)."""
    return text.translate(_ESCAPES) if "\t" in text or "\n" in text or "\r" in text else text


class Sentences(NamedTuple):
    """Sentences column by column: each field of :class:`LabelledSentence`, in its order, as a list
    (the writers' input: the build's sentences come unpacked an article at a time,
    :func:`wikisilver.packed.unpack_columns`, never one record each)."""

    page_id: list[int]
    title: list[str]
    index: list[int]
    tokens: list[tuple[str, ...]]
    lemmas: list[tuple[str, ...]]
    pos: list[tuple[str, ...]]
    dbpedia_tags: list[tuple[str, ...]]
    conll_tags: list[tuple[str, ...]]
    spans: list[tuple[EntitySpan, ...]]
    low_quality: list[bool]
    quality_reasons: list[tuple[str, ...]]
    text: list[str]
    offsets: list[tuple[tuple[int, int], ...]]
    source: list[str]


def columns_of(sentences: Iterable[LabelledSentence]) -> Sentences:
    """Records as :class:`Sentences`."""
    rows = list(sentences)
    return Sentences(*([getattr(s, name) for s in rows] for name in Sentences._fields))


def joined(blocks: Sequence[Sentences]) -> Sentences:
    """Several :class:`Sentences` one after the other, as one."""
    return blocks[0] if len(blocks) == 1 else Sentences(*(list(chain.from_iterable(column)) for column in zip(*blocks)))


def write_tsv_sentence(handle: TextIO, sentence: LabelledSentence) -> None:
    """Append one sentence in the multitag TSV format (cells never contain tabs or newlines)."""
    write_tsv(handle, columns_of([sentence]))


def write_tsv(handle: TextIO, s: Sentences) -> None:
    """Append sentences in the multitag TSV format, each after its comment line."""
    for page_id, title, index, tokens, lemmas, pos, dbpedia, conll, low_quality, text, offsets, source in zip(
            s.page_id, s.title, s.index, s.tokens, s.lemmas, s.pos, s.dbpedia_tags, s.conll_tags, s.low_quality,
            s.text, s.offsets, s.source):
        handle.write(tsv_block(tsv_comment(str(page_id), title, index, low_quality, source),
                               text if offsets else None, (tokens, lemmas, pos, dbpedia, conll), offsets))


def _span_dict(span: EntitySpan) -> dict:
    return {
        "start": span.start,
        "end": span.end,
        "conll": span.conll,
        "dbpedia_class": span.dbpedia_class,
        "target": span.target,
        "rule": span.rule,
    }


def sentences_to_table(sentences: Iterable[LabelledSentence] | Sentences, with_source: bool = False) -> pa.Table:
    """A Parquet-ready table of sentences with :data:`SENTENCE_SCHEMA` (:data:`SOURCE_SCHEMA`
    ``with_source``: a build with a second pass), one column at a time; the offsets and the tags'
    integers as arrays, not a Python list a token."""
    s = sentences if isinstance(sentences, Sentences) else columns_of(sentences)
    conll = pa.array(s.conll_tags, type=pa.list_(pa.string()))
    starts, ends = _offset_columns(s.offsets)
    columns = {
        "id": [f"{page_id}-{index}" for page_id, index in zip(s.page_id, s.index)],  # LabelledSentence.sentence_id
        "title": s.title,
        "page_id": s.page_id,
        "sentence_index": s.index,
        "text": s.text,
        "tokens": s.tokens,
        "token_starts": starts,
        "token_ends": ends,
        "lemmas": s.lemmas,
        "pos": s.pos,
        "dbpedia_tags": s.dbpedia_tags,
        "conll_tags": conll,
        "ner_tags": _ner_ids(conll),
        "spans": [[_span_dict(span) for span in spans] for spans in s.spans],
        "low_quality": s.low_quality,
        "quality_reasons": s.quality_reasons,
    }
    if with_source:
        columns["source"] = s.source
    return pa.table(columns, schema=SOURCE_SCHEMA if with_source else SENTENCE_SCHEMA)


def _offset_columns(offsets: Sequence[tuple[tuple[int, int], ...]]) -> tuple[pa.ListArray, pa.ListArray]:
    """``token_starts`` and ``token_ends``: every offset pair read once into one array."""
    counts = [len(pairs) for pairs in offsets]
    flat = np.fromiter(chain.from_iterable(chain.from_iterable(offsets)), dtype=np.int32, count=2 * sum(counts))
    bounds = np.zeros(len(offsets) + 1, dtype=np.int32)
    np.cumsum(counts, out=bounds[1:])
    bounds = pa.array(bounds)
    starts, ends = pa.array(flat[0::2]), pa.array(flat[1::2])
    return pa.ListArray.from_arrays(bounds, starts), pa.ListArray.from_arrays(bounds, ends)


_NER_LABELS = pa.array(NER_LABELS)  # a tag's position is its ``ner_tags`` integer


def _ner_ids(conll: pa.ListArray) -> pa.ListArray:
    """``ner_tags``: each CoNLL tag's integer (:data:`NER_LABEL_IDS`; 0 for a tag not there)."""
    ids = pc.fill_null(pc.index_in(conll.values, value_set=_NER_LABELS), 0).cast(pa.int64())
    return pa.ListArray.from_arrays(conll.offsets, ids)


# Sentences a Parquet row group holds (some 25,000 tokens): the writer holds one group's sentences
# as objects and as an Arrow table at a time, so this, not a part's size, bounds its memory (4,096
# held ~25 MB more at the peak of the one-worker 8x build, docs/performance.md).
ROW_GROUP_SENTENCES = 1024


def write_part(
    sentences: Iterable[LabelledSentence] | Iterable[Sentences], tsv_path: str | Path, parquet_path: str | Path,
    row_group_size: int = ROW_GROUP_SENTENCES, with_source: bool = False,
) -> int:
    """Write one part of the corpus in both formats, in the given order; returns sentences written
    (``with_source``: the Parquet ``source`` column of a build with a second pass). ``sentences``:
    records, or :class:`Sentences` (an article's each, as the build writes them).

    Rows are flushed in row groups so a part never has to be held twice in memory.
    """
    try:
        with paths.open_text_write(tsv_path) as tsv:

            def each() -> Iterator[Sentences]:
                for block in _blocks(sentences, row_group_size):
                    write_tsv(tsv, block)
                    yield block

            return _write_groups(each(), parquet_path, row_group_size, with_source)
    except OSError as error:  # a full disk: name the part, which the OS error does not
        raise OutputError(str(tsv_path), f"cannot write this part or {paths.basename(parquet_path)}: "
                                         f"{error.strerror or error}") from None


def write_parquet(
    sentences: Iterable[LabelledSentence], path: str | Path, row_group_size: int = ROW_GROUP_SENTENCES,
    with_source: bool = False
) -> int:
    """Sentences as one Parquet file of our schema, in row groups; returns sentences written."""
    return _write_groups(_blocks(sentences, row_group_size), path, row_group_size, with_source)


def _blocks(sentences: Iterable[LabelledSentence] | Iterable[Sentences], size: int) -> Iterator[Sentences]:
    """:class:`Sentences` as they come; records in blocks of ``size``."""
    batch: list[LabelledSentence] = []
    for item in sentences:
        if isinstance(item, Sentences):
            yield item
            continue
        batch.append(item)
        if len(batch) >= size:
            yield columns_of(batch)
            batch = []
    if batch:
        yield columns_of(batch)


def _write_groups(blocks: Iterable[Sentences], path: str | Path, row_group_size: int, with_source: bool) -> int:
    """Blocks of sentences as one Parquet file of our schema, in row groups of ``row_group_size``
    sentences whatever the blocks' sizes; returns sentences written."""
    count = 0
    held: list[Sentences] = []
    size = 0
    schema = SOURCE_SCHEMA if with_source else SENTENCE_SCHEMA
    with paths.parquet_writer(path, schema, compression="zstd") as writer:
        for block in blocks:
            held.append(block)
            size += len(block.index)
            count += len(block.index)
            while size >= row_group_size:
                rows = joined(held)
                writer.write_table(sentences_to_table(Sentences(*(c[:row_group_size] for c in rows)), with_source))
                held = [Sentences(*(c[row_group_size:] for c in rows))]
                size = len(held[0].index)
        if size or count == 0:
            writer.write_table(sentences_to_table(joined(held) if held else columns_of([]), with_source))
    return count


def write_tagged_tsv(handle: TextIO, sentences: Iterable[TaggedSentence]) -> int:
    """Sentences in the multitag TSV, each after its ``# page_id=… title=…`` comment; returns tokens."""
    tokens = 0
    for s in sentences:
        n = len(s.tokens)
        conll = s.conll_tags or s.tags
        columns = (s.tokens, s.lemmas or ("_",) * n, s.pos or ("_",) * n, s.dbpedia_tags or conll, conll)
        comment = tsv_comment(s.doc_id, s.title, s.sentence_index, s.low_quality, s.source)
        handle.write(tsv_block(comment, s.text, columns, s.offsets))
        tokens += n
    return tokens


def write_json_atomic(path: str | Path | outputs.Output, data: object) -> None:
    """Write JSON so readers never see half a file (:func:`wikisilver.outputs.write_text`)."""
    write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def write_text_atomic(path: str | Path | outputs.Output, text: str) -> None:
    """Write a text file so readers never see half a file: through a temporary file and a rename
    (on an object store one upload is already all or nothing). A failed write (a full disk) leaves
    no temporary file and raises :class:`OutputError` naming the path (:mod:`wikisilver.outputs`)."""
    outputs.write_text(path, text)
