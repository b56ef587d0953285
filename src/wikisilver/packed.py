"""Records packed for a shuffle: pickled, then compressed at zlib's fastest level.

Three shuffles of the build carry the bulk of a dump: its pages (spread over the workers), its
articles (joined with what their links point to) and its labelled sentences (grouped into parts).
A runner holds what crosses a shuffle (Beam's local runner in memory, a distributed one on its
shuffle service), and as Python objects a record of text costs several times its text: a string
object per token, lemma, tag and class. Packed, it costs a fraction of its text, and only the
step that reads it unpacks it, one record at a time. One way to pack, for all three.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from typing import Any

from wikisilver.records import LabelledSentence


def pack(value: Any) -> bytes:
    """``value`` as a few compressed bytes (anything picklable)."""
    return zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)


def unpack(packed: bytes) -> Any:
    """The value :func:`pack` packed."""
    return pickle.loads(zlib.decompress(packed))


PackedArticle = tuple[int, int, bytes]  # (page id, index of its first sentence, its sentences packed)

# The fields of a sentence that differ within an article, in record order after page id and title.
_COLUMNS = tuple(f.name for f in fields(LabelledSentence))[2:]
_TOKENS, _TEXT, _OFFSETS = (_COLUMNS.index(name) for name in ("tokens", "text", "offsets"))


def pack_sentences(sentences: Sequence[LabelledSentence]) -> PackedArticle:
    """The kept sentences of one article (in order, at least one), packed and keyed for sorting.

    Packed field by field, not sentence by sentence: an article's tags, lemmas and offsets side by
    side compress better. A token is left out where its offsets give it (``text[start:end]``, as
    the labeller cuts it): the same sentences come back, in a quarter fewer bytes, and the part
    writer holds its whole part's articles so."""
    first = sentences[0]
    columns = [tuple(getattr(sentence, name) for sentence in sentences) for name in _COLUMNS]
    columns[_TOKENS] = tuple(None if _cut_from_text(s) else s.tokens for s in sentences)
    return first.page_id, first.index, pack((first.page_id, first.title, tuple(columns)))


def _cut_from_text(sentence: LabelledSentence) -> bool:
    text = sentence.text
    return len(sentence.offsets) == len(sentence.tokens) and all(
        token == text[start:end] for token, (start, end) in zip(sentence.tokens, sentence.offsets))


def unpack_sentences(packed: bytes) -> Iterator[LabelledSentence]:
    """The sentences :func:`pack_sentences` packed, in order."""
    page_id, title, columns = unpack(packed)
    for values in zip(*columns):
        tokens, text, offsets = values[_TOKENS], values[_TEXT], values[_OFFSETS]
        if tokens is None:
            values = (*values[:_TOKENS], tuple([text[start:end] for start, end in offsets]), *values[_TOKENS + 1:])
        yield LabelledSentence(page_id, title, *values)


def sentences_in_order(articles: Iterable[PackedArticle]) -> Iterator[LabelledSentence]:
    """The sentences of packed articles by (page id, sentence index), one article unpacked at a time."""
    for _page_id, _index, packed in sorted(articles, key=lambda article: article[:2]):
        yield from unpack_sentences(packed)
