"""§6 of the method, used: a trained model run over new text (``wikisilver tag``).

Input is plain text (split into sentences and tokens by the language's processor of step 2, each
sentence keeping its text and offsets), JSONL (our export's records, ``{"text": …}`` or
``{"tokens": [...]}`` per line) or any corpus format :mod:`wikisilver.corpus.inputs` reads
(CoNLL-2003, CoNLL-U, our TSV and Parquet), whose tags are replaced by the model's.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from wikisilver.corpus.inputs import format_of, read_corpus
from wikisilver.corpus.tags import TaggedSentence, text_lines
from wikisilver.errors import InputError
from wikisilver.ner.crf import Tagger
from wikisilver.text import TextProcessor

# Input format -> the output format written by default (plain text has no place for tags).
TAG_INPUTS = {"text": "jsonl", "jsonl": "jsonl", "conll2003": "conll2003", "conllu": "conllup",
              "conllup": "conllup", "tsv": "tsv", "parquet": "parquet"}


def input_format(path: str, fmt: str | None) -> str:
    """The format of an input file: given, or from its extension (``.txt`` text, ``.jsonl``)."""
    if fmt is not None:
        return fmt
    suffix = Path(path).suffix.lower()
    found = {".txt": "text", ".jsonl": "jsonl", ".json": "jsonl"}.get(suffix) or format_of(path)
    if found is None:
        raise InputError(path, "cannot tell the format from the extension; pass --format")
    return found


def _sentences_of(text: str, processor: TextProcessor, doc: str, first: int) -> list[TaggedSentence]:
    """The sentences of a piece of text, tokenized, each with its text and token offsets."""
    out = []
    for s_start, s_end in processor.split_sentences(text):
        spans = processor.tokenize(text, s_start, s_end)
        if spans:
            out.append(TaggedSentence(
                tokens=tuple(text[s:e] for s, e in spans), tags=("O",) * len(spans), doc_id=doc,
                title=doc, sentence_index=first + len(out), text=text[s_start:s_end],
                offsets=tuple((s - s_start, e - s_start) for s, e in spans),
            ))
    return out


def read_text(path: str, processor: TextProcessor, encoding: str = "utf-8") -> Iterator[TaggedSentence]:
    """Plain text, line by line (a sentence never crosses a line): one document per file."""
    doc, index = os.path.basename(path), 0
    for _, line in text_lines(path, encoding):
        sentences = _sentences_of(line, processor, doc, index)
        index += len(sentences)
        yield from sentences


def read_jsonl(path: str, processor: TextProcessor, encoding: str = "utf-8") -> Iterator[TaggedSentence]:
    """JSON lines: our export's records (``text`` and ``tokens`` with offsets) are kept as they are
    tokenized; ``{"tokens": ["…"]}`` is taken as tokens, ``{"text": "…"}`` is split and tokenized."""
    doc = os.path.basename(path)
    index = 0
    for line_no, line in text_lines(path, encoding):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(path, f"invalid JSON ({error.msg})", f"line {line_no}") from None
        if not isinstance(record, dict) or not isinstance(record.get("tokens", record.get("text")), (list, str)):
            raise InputError(path, "expected an object with \"text\" or \"tokens\"", f"line {line_no}")
        tokens = record.get("tokens")
        page = str(record["page_id"]) if "page_id" in record else doc
        where = dict(doc_id=page, title=record.get("title") or doc,
                     sentence_index=record.get("sentence_index", index))
        if isinstance(tokens, list) and tokens and isinstance(tokens[0], dict):
            words = tuple(t["text"] for t in tokens)
            offsets = tuple((t["start"], t["end"]) for t in tokens) if "start" in tokens[0] else None
            yield TaggedSentence(tokens=words, tags=("O",) * len(words), text=record.get("text") if offsets else None,
                                 offsets=offsets, **where)
        elif isinstance(tokens, list):
            yield TaggedSentence(tokens=tuple(map(str, tokens)), tags=("O",) * len(tokens), **where)
        else:
            found = _sentences_of(record["text"], processor, doc, index)
            yield from (dataclasses.replace(s, doc_id=page, title=where["title"]) for s in found)
            index += len(found) - 1
        index += 1


def read_input(path: str, fmt: str, processor: TextProcessor, encoding: str = "utf-8") -> Iterator[TaggedSentence]:
    """The sentences of one input file in format ``fmt`` (see :data:`TAG_INPUTS`)."""
    if fmt == "text":
        return read_text(path, processor, encoding)
    if fmt == "jsonl":
        return read_jsonl(path, processor, encoding)
    return read_corpus(path, fmt, encoding=encoding)


def tag_sentences(tagger: Tagger, sentences: Iterable[TaggedSentence]) -> Iterator[TaggedSentence]:
    """The sentences with the model's tags (their own tags, other layers and spans dropped)."""
    for sentence in sentences:
        tags = tuple(tagger.tag(sentence.tokens))
        yield dataclasses.replace(sentence, tags=tags, conll_tags=tags, dbpedia_tags=None, spans=None)
