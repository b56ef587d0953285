"""§6 of the method, used: a trained model run over new text (``wikisilver tag``).

Input is plain text (split into sentences and tokens by the language's processor of step 2, each
sentence keeping its text and offsets; wikiextractor's ``<doc id=… title=…>`` lines start a
document), JSONL (our export's records, ``{"text": …}`` or ``{"tokens": [...]}`` per line) or any
corpus format :mod:`wikisilver.corpus.inputs` reads (CoNLL-2003, CoNLL-U, our TSV and Parquet),
whose tags are replaced by the model's. ``-`` is standard input, its format given or told from
its first lines (:func:`sniff_format`).

A CoNLL file written back in its own format keeps every line it had (comments such as
``# sent_id``, ``# text`` and ``# doc_title``, every column, ``SpaceAfter=No``, multiword-token
rows, ``-DOCSTART-``): only the NER cell of each token changes (:func:`write_retagged`).
"""

from __future__ import annotations

import dataclasses
import html
import io
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

from wikisilver.corpus.gold import conll2003_sentences, conllu_sentences, ner_column
from wikisilver.corpus.inputs import corpus_files, format_of, read_corpus
from wikisilver.corpus.read import read_tsv
from wikisilver.corpus.tags import STDIN, TaggedSentence, text_lines
from wikisilver.errors import InputError
from wikisilver.ner.crf import Tagger
from wikisilver.text import TextProcessor

# Input format -> the output format written by default (plain text has no place for tags).
TAG_INPUTS = {"text": "jsonl", "jsonl": "jsonl", "conll2003": "conll2003", "conllu": "conllup",
              "conllup": "conllup", "tsv": "tsv", "parquet": "parquet"}
NER_COLUMN = "WIKISILVER:NER"  # the column a CoNLL-U file without a NER column gets


def input_format(path: str, fmt: str | None) -> str:
    """The format of an input file: given, or from its extension (``.txt`` text, ``.jsonl``); of
    standard input (:data:`STDIN`), given or told from its first lines."""
    if path == STDIN:
        found = fmt or sniff_format(_peek_stdin())
        if found == "parquet":
            raise InputError(STDIN, "Parquet cannot be read from standard input; name the file")
        return found
    if fmt is not None:
        return fmt
    suffix = Path(path).suffix.lower()
    found = {".txt": "text", ".jsonl": "jsonl", ".json": "jsonl"}.get(suffix) or format_of(path)
    if found is None:
        raise InputError(path, "cannot tell the format from the extension; pass --format")
    return found


# --------------------------------------------------------------------------- standard input

_HEAD_BYTES = 1 << 16
_HEAD_LINES = 8
_TAG = re.compile(r"O|[BIES]-\S+")
_CONLLU_ID = re.compile(r"\d+(?:[-.]\d+)?")
_OUR_TSV_COMMENT = re.compile(r"#\s*(?:page_id|doc)=")


def sniff_format(head: bytes) -> str:
    """The format the first bytes of an input look like: ``parquet`` (its magic), ``jsonl`` (a
    line starting ``{``), ``conllup`` (``# global.columns``), ``conllu`` (ten tab-separated
    columns, a number first, or ``# sent_id``/``# text`` comments), our ``tsv`` (``# page_id=``,
    five or seven tab-separated columns), ``conll2003`` (``-DOCSTART-``, or lines of the same
    number of columns ending in a tag), else ``text``."""
    if head.startswith(b"PAR1"):
        return "parquet"
    lines = [line for line in head.decode("utf-8", "replace").lstrip("\ufeff").splitlines() if line.strip()]
    if head and not head.endswith((b"\n", b"\r")) and len(head) >= _HEAD_BYTES:
        lines = lines[:-1]  # cut off at the head's end: not a whole line
    comments = []
    for at, line in enumerate(lines):
        if line.startswith("# global.columns"):
            return "conllup"
        if line.startswith("#") and "\t" not in line:
            if _OUR_TSV_COMMENT.match(line):
                return "tsv"
            comments.append(line)
            continue
        if line.lstrip().startswith("{"):
            return "jsonl"
        if line.split()[0] == "-DOCSTART-":
            return "conll2003"
        cells = line.split("\t")
        if len(cells) == 10 and _CONLLU_ID.fullmatch(cells[0]):
            return "conllu"
        if any(c.startswith(("# sent_id", "# text =", "# newdoc")) for c in comments):
            return "conllu"
        if len(cells) in (5, 7):
            return "tsv"
        rows = [row.split() for row in lines[at:] if not row.startswith("#")]
        if all(2 <= len(row) == len(rows[0]) <= 6 and _TAG.fullmatch(row[-1]) for row in rows):
            return "conll2003"
        return "text"
    return "text"


class _Replay(io.RawIOBase):
    """The bytes read ahead of a stream, then the rest of the stream."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read1(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _peek_stdin() -> bytes:
    """The first lines of standard input, read and put back: ``sys.stdin`` is then a stream that
    gives them again before the rest."""
    raw = sys.stdin.buffer
    head = b""
    while head.count(b"\n") < _HEAD_LINES and len(head) < _HEAD_BYTES:
        chunk = raw.read1(_HEAD_BYTES - len(head))
        if not chunk:
            break
        head += chunk
    sys.stdin = io.TextIOWrapper(io.BufferedReader(_Replay(head, raw)), encoding="utf-8")
    return head


# --------------------------------------------------------------------------- readers


def _sentences_of(text: str, processor: TextProcessor, doc: str, first: int,
                  title: str | None = None) -> list[TaggedSentence]:
    """The sentences of a piece of text, tokenized, each with its text and token offsets."""
    out = []
    for s_start, s_end in processor.split_sentences(text):
        spans = processor.tokenize(text, s_start, s_end)
        if spans:
            out.append(TaggedSentence(
                tokens=tuple(text[s:e] for s, e in spans), tags=("O",) * len(spans), doc_id=doc,
                title=title or doc, sentence_index=first + len(out), text=text[s_start:s_end],
                offsets=tuple((s - s_start, e - s_start) for s, e in spans),
            ))
    return out


_DOC_START = re.compile(r'<doc(?:\s+\w+="[^"]*")*\s*>')
_ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')


def read_text(path: str, processor: TextProcessor, encoding: str = "utf-8") -> Iterator[TaggedSentence]:
    """Plain text, line by line (a sentence never crosses a line): one document per file, or one
    per wikiextractor ``<doc id="…" url="…" title="…">`` … ``</doc>`` block."""
    doc, title, index = os.path.basename(path), None, 0
    for _, line in text_lines(path, encoding):
        stripped = line.strip()
        if stripped.startswith("<doc ") and _DOC_START.fullmatch(stripped):
            attributes = {key: html.unescape(value) for key, value in _ATTRIBUTE.findall(stripped)}
            doc, title, index = attributes.get("id", doc), attributes.get("title"), 0
            continue
        if stripped == "</doc>":
            continue
        sentences = _sentences_of(line, processor, doc, index, title)
        index += len(sentences)
        yield from sentences


def read_jsonl(path: str, processor: TextProcessor, encoding: str = "utf-8") -> Iterator[TaggedSentence]:
    """JSON lines: our export's records (``text`` and ``tokens`` with offsets) are kept as they are
    tokenized; ``{"tokens": ["…"]}`` is taken as tokens, ``{"text": "…"}`` is split and tokenized
    (wikiextractor's ``--json`` records: ``id`` and ``title`` name the document)."""
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
        page = str(record["page_id"]) if "page_id" in record else str(record["id"]) if "id" in record else doc
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


def _files(path: str, fmt: str) -> list[str]:
    return [STDIN] if path == STDIN else [file for file, _ in corpus_files(path, fmt)]


def read_conll(path: str, fmt: str, encoding: str = "utf-8") -> Iterator[TaggedSentence]:
    """The sentences of CoNLL-2003 or CoNLL-U files with what they say of themselves: CoNLL-2003's
    POS column; CoNLL-U's lemmas, UPOS, ``# newdoc id``, ``# doc_title``, ``# text`` and, where
    the tokens can be found in it in order, their offsets (so JSONL and TSV keep the text)."""
    for file in _files(path, fmt):
        if fmt == "conll2003":
            doc, index = None, 0
            for sentence in conll2003_sentences(file, encoding):
                doc, index = sentence.doc_id, index + 1 if sentence.doc_id == doc else 0
                rows = [cells for _, cells in sentence.rows]
                yield TaggedSentence(tokens=tuple(cells[0] for cells in rows), tags=("O",) * len(rows),
                                     doc_id=doc, sentence_index=index,
                                     pos=tuple(cells[1] for cells in rows) if len(rows[0]) > 2 else None)
            continue
        names, sentences = conllu_sentences(file, encoding)
        column = {name: i for i, name in reversed(list(enumerate(names)))}
        title, doc, index = None, None, 0
        for sentence in sentences:
            if sentence.doc_id != doc:
                doc, title, index = sentence.doc_id, None, 0
            comments = _comments(sentence.lines)
            title = comments.get("doc_title", title)
            rows = [cells for _, cells in sentence.rows]
            tokens = tuple(cells[column.get("FORM", 0)] for cells in rows)
            text = comments.get("text")
            yield TaggedSentence(
                tokens=tokens, tags=("O",) * len(tokens), doc_id=doc, title=title, sentence_index=index,
                lemmas=tuple(cells[column["LEMMA"]] for cells in rows) if "LEMMA" in column else None,
                pos=tuple(cells[column["UPOS"]] for cells in rows) if "UPOS" in column else None,
                text=text if text is not None and _offsets(tokens, text) else None, offsets=_offsets(tokens, text),
            )
            index += 1


def _comments(lines: Iterable[str]) -> dict[str, str]:
    """``# key = value`` comments of a CoNLL-U sentence."""
    found = {}
    for line in lines:
        if line.startswith("#") and "\t" not in line and "=" in line:
            key, _, value = line[1:].partition("=")
            found.setdefault(key.strip(), value.strip())
    return found


def _offsets(tokens: tuple[str, ...], text: str | None) -> tuple[tuple[int, int], ...] | None:
    """Each token's ``[start, end)`` in ``text``, found in order with only whitespace between; None
    where a token is not there."""
    if text is None:
        return None
    offsets, position = [], 0
    for token in tokens:
        start = text.find(token, position)
        if start < 0 or text[position:start].strip():
            return None
        offsets.append((start, start + len(token)))
        position = start + len(token)
    return tuple(offsets)


def read_input(path: str, fmt: str, processor: TextProcessor, encoding: str = "utf-8") -> Iterator[TaggedSentence]:
    """The sentences of one input file in format ``fmt`` (see :data:`TAG_INPUTS`)."""
    if fmt == "text":
        return read_text(path, processor, encoding)
    if fmt == "jsonl":
        return read_jsonl(path, processor, encoding)
    if fmt in ("conll2003", "conllu", "conllup"):
        return read_conll(path, fmt, encoding)
    if path != STDIN:
        return read_corpus(path, fmt, encoding=encoding)
    if fmt == "parquet":
        raise InputError(STDIN, "Parquet cannot be read from standard input; name the file")
    return read_tsv(STDIN, encoding=encoding)


def tag_sentences(tagger: Tagger, sentences: Iterable[TaggedSentence]) -> Iterator[TaggedSentence]:
    """The sentences with the model's tags (their own tags, other layers and spans dropped)."""
    for sentence in sentences:
        tags = tuple(tagger.tag(sentence.tokens))
        yield dataclasses.replace(sentence, tags=tags, conll_tags=tags, dbpedia_tags=None, spans=None)


# --------------------------------------------------------------------------- CoNLL written back


def keeps_lines(fmt: str, out_format: str) -> bool:
    """Whether a CoNLL input is written back line for line (its own format out)."""
    return (fmt, out_format) in (("conll2003", "conll2003"), ("conllu", "conllup"), ("conllup", "conllup"))


def write_retagged(handle: TextIO, tagger: Tagger, path: str, fmt: str, encoding: str = "utf-8") -> tuple[int, int, int]:
    """A CoNLL-2003 or CoNLL-U input written to ``handle`` as it stands, each token's NER cell the
    model's tag (IOB2): the last column of CoNLL-2003; the NER column of CoNLL-U Plus (named in
    ``# global.columns``), or a :data:`NER_COLUMN` added after the others. Returns (sentences,
    tokens, mentions)."""
    counts = [0, 0, 0]
    header = None
    for file in _files(path, fmt):
        if fmt == "conll2003":
            blocks = conll2003_sentences(file, encoding)
            ner = -1
        else:
            names, blocks = conllu_sentences(file, encoding)
            ner = ner_column(names)
            columns = names if ner is not None else (*names, NER_COLUMN)
            if header is None:
                header = f"# global.columns = {' '.join(columns)}"
                handle.write(header + "\n")
            elif header != f"# global.columns = {' '.join(columns)}":
                raise InputError(file, f"columns {' '.join(columns)} differ from the first file's", "line 1")
        for block in blocks:
            tags = tagger.tag([cells[0 if fmt == "conll2003" else _form(names)] for _, cells in block.rows])
            counts[0] += 1
            counts[1] += len(tags)
            counts[2] += sum(tag.startswith("B-") for tag in tags)
            handle.write(_retagged_block(block.lines, block.token_lines, tags, ner, fmt))
    return counts[0], counts[1], counts[2]


def _form(names: tuple[str, ...]) -> int:
    return names.index("FORM") if "FORM" in names else 0


def _retagged_block(lines: tuple[str, ...], token_lines: tuple[int, ...], tags: list[str], ner: int | None,
                    fmt: str) -> str:
    out = list(lines)
    tag_of = dict(zip(token_lines, tags))
    for at, line in enumerate(lines):
        if fmt == "conll2003":
            if at in tag_of:
                cells_end = len(line.rstrip())
                last = cells_end - len(line.rstrip().split()[-1])
                out[at] = line[:last] + tag_of[at]
            else:  # -DOCSTART-: a blank line after it, as CoNLL-2003 has
                out[at] = line + "\n"
            continue
        if line.startswith("#") and "\t" not in line:
            continue
        cells = line.split("\t")
        tag = tag_of.get(at, "_")  # a multiword-token or empty-node row has no tag of its own
        if ner is None:
            cells.append(tag)
        elif at in tag_of:
            cells[ner] = tag
        out[at] = "\t".join(cells)
    return "\n".join(out) + "\n\n"
