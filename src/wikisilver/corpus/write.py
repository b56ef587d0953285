"""Step 5 of the method: the corpus written as part files (multitag TSV and Parquet), and JSON
written so that no reader sees half a file.

The layout of both formats is :mod:`wikisilver.corpus.schema`; :mod:`wikisilver.corpus.read` reads
them back. A split of the corpus (:mod:`wikisilver.corpus.splits`) is written in the same TSV, with
a comment line that keeps each sentence's article.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

import pyarrow as pa
import pyarrow.parquet as pq

from wikisilver.corpus.schema import SENTENCE_SCHEMA
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.errors import OutputError
from wikisilver.records import EntitySpan, LabelledSentence

_ESCAPES = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


def sentence_sort_key(sentence: LabelledSentence) -> tuple[int, int]:
    """Order of sentences within a part file: by page id, then sentence index."""
    return (sentence.page_id, sentence.index)


def write_tsv_sentence(handle: TextIO, sentence: LabelledSentence) -> None:
    """Append one sentence in the multitag TSV format (cells never contain tabs or newlines)."""
    columns = (sentence.tokens, sentence.lemmas, sentence.pos, sentence.dbpedia_tags, sentence.conll_tags)
    joined = "".join(sentence.tokens) + "".join(sentence.lemmas) + "".join(sentence.pos)
    if "\t" in joined or "\n" in joined or "\r" in joined or any("" in column for column in columns):
        columns = tuple(tuple(cell.translate(_ESCAPES) or "_" for cell in column) for column in columns)
    handle.write("\n".join(map("\t".join, zip(*columns))))
    handle.write("\n\n")


def _span_dict(span: EntitySpan) -> dict:
    return {
        "start": span.start,
        "end": span.end,
        "conll": span.conll,
        "dbpedia_class": span.dbpedia_class,
        "target": span.target,
        "rule": span.rule,
    }


def sentences_to_table(sentences: Iterable[LabelledSentence]) -> pa.Table:
    """A Parquet-ready table of sentences with :data:`SENTENCE_SCHEMA`.

    Column by column, and the token tuples as they are (Arrow reads any sequence): no per-row
    copies into lists."""
    rows = list(sentences)
    columns = {
        "title": [s.title for s in rows],
        "page_id": [s.page_id for s in rows],
        "sentence_index": [s.index for s in rows],
        "tokens": [s.tokens for s in rows],
        "lemmas": [s.lemmas for s in rows],
        "pos": [s.pos for s in rows],
        "dbpedia_tags": [s.dbpedia_tags for s in rows],
        "conll_tags": [s.conll_tags for s in rows],
        "spans": [[_span_dict(span) for span in s.spans] for s in rows],
        "low_quality": [s.low_quality for s in rows],
        "quality_reasons": [s.quality_reasons for s in rows],
    }
    return pa.table(columns, schema=SENTENCE_SCHEMA)


def write_part(
    sentences: Iterable[LabelledSentence], tsv_path: str | Path, parquet_path: str | Path,
    row_group_size: int = 20_000,
) -> int:
    """Write one part of the corpus in both formats, in the given order; returns sentences written.

    Rows are flushed in row groups so a part never has to be held twice in memory.
    """
    try:
        return _write_part(sentences, tsv_path, parquet_path, row_group_size)
    except OSError as error:  # a full disk: name the part, which the OS error does not
        raise OutputError(str(tsv_path), f"cannot write this part or {Path(parquet_path).name}: "
                                         f"{error.strerror or error}") from None


def _write_part(
    sentences: Iterable[LabelledSentence], tsv_path: str | Path, parquet_path: str | Path, row_group_size: int
) -> int:
    count = 0
    batch: list[LabelledSentence] = []
    writer = pq.ParquetWriter(str(parquet_path), SENTENCE_SCHEMA, compression="zstd")
    try:
        with open(tsv_path, "w", encoding="utf-8", newline="\n") as tsv:
            for sentence in sentences:
                write_tsv_sentence(tsv, sentence)
                batch.append(sentence)
                count += 1
                if len(batch) >= row_group_size:
                    writer.write_table(sentences_to_table(batch))
                    batch = []
            if batch or count == 0:
                writer.write_table(sentences_to_table(batch))
    finally:
        writer.close()
    return count


def write_tagged_tsv(handle: TextIO, sentences: Iterable[TaggedSentence]) -> int:
    """Sentences in the multitag TSV, each after a ``# page_id=… title=…`` comment; returns tokens."""
    tokens = 0
    for s in sentences:
        fields = []
        if s.doc_id is not None and s.doc_id.isdigit():
            fields.append(f"page_id={s.doc_id}")
        elif s.doc_id is not None:
            fields.append("doc=" + re.sub(r"\s", "_", s.doc_id))
        if s.title:
            fields.append(f"title={s.title}")
        if s.sentence_index is not None:
            fields.append(f"sentence={s.sentence_index}")
        fields.append(f"low_quality={int(s.low_quality)}")
        lines = ["# " + " ".join(fields).replace("\n", " ")]
        conll = s.conll_tags or s.tags
        dbpedia = s.dbpedia_tags or conll
        lemmas = s.lemmas or ("_",) * len(s.tokens)
        pos = s.pos or ("_",) * len(s.tokens)
        for cells in zip(s.tokens, lemmas, pos, dbpedia, conll):
            lines.append("\t".join(c.replace("\t", " ") or "_" for c in cells))
        handle.write("\n".join(lines))
        handle.write("\n\n")
        tokens += len(s.tokens)
    return tokens


def write_json_atomic(path: str | Path, data: object) -> None:
    """Write JSON through a temporary file and a rename, so readers never see half a file.

    A write that fails (a full disk) leaves no temporary file and raises :class:`OutputError`
    naming the path."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, indent=2, sort_keys=True)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise OutputError(str(path), f"cannot write: {error.strerror or error}") from None
