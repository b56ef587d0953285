"""Anonymization's units: documents of sentences, and plain text kept line for line.

Consistency holds within a document: an article of our corpus or JSONL export (its ``page_id``), a
``-DOCSTART-`` block of CoNLL-2003, a ``# newdoc`` of CoNLL-U, a whole plain-text file. Plain text
comes back as plain text: each line with its names replaced and every other character as it was,
so each line remembers where its sentences start.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby

from wikisilver.corpus.tags import TaggedSentence, text_lines
from wikisilver.text import TextProcessor


def documents(sentences: Iterable[TaggedSentence]) -> Iterator[list[TaggedSentence]]:
    """Runs of consecutive sentences of one document (same ``doc_id``)."""
    for _, run in groupby(sentences, key=lambda sentence: sentence.doc_id):
        yield list(run)


@dataclass(frozen=True)
class TextLine:
    """A line of a plain-text file and its sentences, each with where it starts in the line."""

    text: str
    starts: tuple[int, ...]
    sentences: tuple[TaggedSentence, ...]


def read_text_lines(path: str, processor: TextProcessor, doc: str, encoding: str = "utf-8") -> list[TextLine]:
    """The lines of a plain-text file (one document), split into sentences and tokens by the
    language's processor, as ``wikisilver tag`` splits them."""
    lines, index = [], 0
    for _, line in text_lines(path, encoding):
        starts, sentences = [], []
        for s_start, s_end in processor.split_sentences(line):
            spans = processor.tokenize(line, s_start, s_end)
            if spans:
                starts.append(s_start)
                sentences.append(TaggedSentence(
                    tokens=tuple(line[s:e] for s, e in spans), tags=("O",) * len(spans), doc_id=doc, title=doc,
                    sentence_index=index, text=line[s_start:s_end],
                    offsets=tuple((s - s_start, e - s_start) for s, e in spans),
                ))
                index += 1
        lines.append(TextLine(line, tuple(starts), tuple(sentences)))
    return lines


def rebuild_lines(lines: Sequence[TextLine], anonymized: Sequence[TaggedSentence]) -> Iterator[str]:
    """Each line with its sentences' text replaced by their anonymized text (in line order)."""
    replaced = iter(anonymized)
    for line in lines:
        pieces, cursor = [], 0
        for start, sentence in zip(line.starts, line.sentences):
            new = next(replaced)
            pieces.append(line.text[cursor:start])
            pieces.append(new.text if new.text is not None else " ".join(new.tokens))
            cursor = start + len(sentence.text or "")
        pieces.append(line.text[cursor:])
        yield "".join(pieces)
