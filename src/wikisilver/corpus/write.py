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
from typing import TextIO

import pyarrow as pa
import pyarrow.compute as pc

from wikisilver import outputs, paths
from wikisilver.corpus.columns import (
    SPAN_FIELDS, Joined, Sentences, columns_of, concatenated, joined, offset_lists, string_lists,
)
from wikisilver.corpus.schema import (
    LINKS, NER_LABELS, SENTENCE_SCHEMA, SOURCE_SCHEMA, TEXT_COMMENT, escape_title,
)
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.errors import OutputError
from wikisilver.records import LabelledSentence

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
    return _comment(_comment_head(page_id, title), index, low_quality, source)


def _comment_head(page_id: str | None, title: str | None) -> list[str]:
    """The fields of the comment line that an article's sentences share."""
    fields = []
    if page_id is not None and page_id.isdigit():
        fields.append(f"page_id={page_id}")
    elif page_id is not None:
        fields.append("doc=" + re.sub(r"\s", "_", page_id))
    if title:
        fields.append(f"title={escape_title(title)}")
    return fields


def _comment(head: list[str], index: int | None, low_quality: bool, source: str) -> str:
    fields = list(head)
    if index is not None:
        fields.append(f"sentence={index}")
    fields.append(f"low_quality={int(low_quality)}")
    if source != LINKS:
        fields.append(f"source={source}")
    return "# " + _escaped(" ".join(fields))


def _cells(column: Sequence[str]) -> Sequence[str]:
    """One column's cells as TSV cells: tabs and line breaks as spaces, an empty cell as "_"."""
    text = "".join(column)
    if "\t" in text or "\n" in text or "\r" in text or "" in column:
        return tuple(cell.translate(_ESCAPES) or "_" for cell in column)
    return column


def tsv_block(
    comment: str, text: str | None, columns: Sequence[Sequence[str]],
    offsets: Sequence[tuple[int, int]] | None,
) -> str:
    """One sentence of our TSV: the comment line, ``# text = …`` when the text is known, the token
    lines (with ``start``/``end`` when the offsets are known) and the blank line after it."""
    pairs = list(offsets or ())
    body = token_lines(tuple(joined([column]) for column in columns),
                       list(chain.from_iterable(pairs)), [len(pairs)])[0]
    return _block(comment, text, body)


def _block(comment: str, text: str | None, body: str) -> str:
    lines = [comment]
    if text is not None:
        lines.append(TEXT_COMMENT + _escaped(text))
    if body:
        lines.append(body)
    return "\n".join(lines) + "\n\n"


def token_lines(columns: Sequence[Joined], offsets: Sequence[int], offset_lengths: Sequence[int]) -> list[str]:
    """Each sentence's token lines, joined: a line a token, its cells (:func:`_cells`), then its
    ``start`` and ``end`` where known (``offsets``: flat, ``offset_lengths`` pairs a sentence).
    Speed, in one place: written in C where ``corpus/_tsv.c`` was built, else (and for offsets
    past 64 bits) by :func:`_joined_lines`; ``tests/test_write_parts.py`` holds the two equal."""
    if _tsv is not None:
        try:
            return _tsv.token_lines(tuple(columns), offsets, offset_lengths)
        except OverflowError:
            pass
    return _joined_lines(columns, offsets, offset_lengths)


def _joined_lines(columns: Sequence[Joined], offsets: Sequence[int], offset_lengths: Sequence[int]) -> list[str]:
    values = [column.split() for column in columns]
    at = [0] * len(columns)
    pair_at = 0
    out = []
    for k, pairs in enumerate(offset_lengths):
        cells = []
        for c, column in enumerate(columns):
            cells.append(_cells(values[c][at[c]:at[c] + column.lengths[k]]))
            at[c] += column.lengths[k]
        flat = offsets[pair_at:pair_at + 2 * pairs]
        pair_at += 2 * pairs
        if pairs:  # two more columns, so that each line is one join
            cells += ([str(start) for start in flat[0::2]], [str(end) for end in flat[1::2]])
        out.append("\n".join(map("\t".join, zip(*cells))))
    return out


def _escaped(text: str) -> str:
    """Tabs and line breaks as spaces (looked for first: a sentence seldom holds one)."""
    return text.translate(_ESCAPES) if "\t" in text or "\n" in text or "\r" in text else text


def write_tsv_sentence(handle: TextIO, sentence: LabelledSentence) -> None:
    """Append one sentence in the multitag TSV format (cells never contain tabs or newlines)."""
    write_tsv(handle, columns_of([sentence]))


def write_tsv(handle: TextIO, s: Sentences) -> None:
    """Append sentences in the multitag TSV format, each after its comment line."""
    bodies = token_lines(s.columns, s.offsets, s.offset_lengths)
    heads: dict[tuple[int, str], list[str]] = {}  # an article's sentences share the start of their comments
    out = []
    for page_id, title, index, low_quality, text, pairs, source, body in zip(
            s.page_id, s.title, s.index, s.low_quality, s.text, s.offset_lengths, s.source, bodies):
        head = heads.get((page_id, title))
        if head is None:
            head = heads[(page_id, title)] = _comment_head(str(page_id), title)
        out.append(_block(_comment(head, index, low_quality, source), text if pairs else None, body))
    handle.write("".join(out))


def sentences_to_table(sentences: Iterable[LabelledSentence] | Sentences, with_source: bool = False) -> pa.Table:
    """A Parquet-ready table of sentences with :data:`SENTENCE_SCHEMA` (:data:`SOURCE_SCHEMA`
    ``with_source``: a build with a second pass), one column at a time: the columns a token has
    split by Arrow from their joined cells, the offsets as arrays, not a Python object a token."""
    s = sentences if isinstance(sentences, Sentences) else columns_of(sentences)
    tokens, lemmas, pos, dbpedia, conll = (string_lists(column) for column in s.columns)
    starts, ends = offset_lists(s)
    columns = {
        "id": [f"{page_id}-{index}" for page_id, index in zip(s.page_id, s.index)],  # LabelledSentence.sentence_id
        "title": s.title,
        "page_id": s.page_id,
        "sentence_index": s.index,
        "text": s.text,
        "tokens": tokens,
        "token_starts": starts,
        "token_ends": ends,
        "lemmas": lemmas,
        "pos": pos,
        "dbpedia_tags": dbpedia,
        "conll_tags": conll,
        "ner_tags": _ner_ids(conll),
        "spans": [[dict(zip(SPAN_FIELDS, span)) for span in spans] for spans in s.spans],
        "low_quality": s.low_quality,
        "quality_reasons": s.quality_reasons,
    }
    if with_source:
        columns["source"] = s.source
    return pa.table(columns, schema=SOURCE_SCHEMA if with_source else SENTENCE_SCHEMA)


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
    sentences whatever the blocks' sizes; returns sentences written. The blocks of a group become
    one table, cut where the groups end; what is left begins the next group."""
    count = 0
    held: list[Sentences] = []
    size = 0
    left: pa.Table | None = None
    schema = SOURCE_SCHEMA if with_source else SENTENCE_SCHEMA
    with paths.parquet_writer(path, schema, compression="zstd") as writer:
        for block in blocks:
            held.append(block)
            size += len(block.index)
            count += len(block.index)
            if size >= row_group_size:
                left = _write_full_groups(writer, left, held, row_group_size, with_source)
                held, size = [], left.num_rows
        if held:
            left = _write_full_groups(writer, left, held, row_group_size, with_source)
        if (left is not None and left.num_rows) or count == 0:
            writer.write_table(left if left is not None else sentences_to_table(columns_of([]), with_source))
    return count


def _write_full_groups(writer, left: pa.Table | None, held: list[Sentences], size: int, with_source: bool
                       ) -> pa.Table:
    """Write the full row groups of ``left`` then the ``held`` blocks; what is left over."""
    table = sentences_to_table(concatenated(held), with_source)
    if left is not None and left.num_rows:
        table = pa.concat_tables([left, table])
    start = 0
    while table.num_rows - start >= size:
        writer.write_table(table.slice(start, size))
        start += size
    return table.slice(start)


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
