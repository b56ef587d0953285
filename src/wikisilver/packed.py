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
from typing import Any

from wikisilver.records import LabelledSentence


def pack(value: Any) -> bytes:
    """``value`` as a few compressed bytes (anything picklable)."""
    return zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)


def unpack(packed: bytes) -> Any:
    """The value :func:`pack` packed."""
    return pickle.loads(zlib.decompress(packed))


PackedArticle = tuple[int, int, bytes]  # (page id, index of its first sentence, its sentences packed)


def pack_sentences(sentences: Sequence[LabelledSentence]) -> PackedArticle:
    """The kept sentences of one article (in order, at least one), packed and keyed for sorting."""
    return sentences[0].page_id, sentences[0].index, pack(tuple(sentences))


def sentences_in_order(articles: Iterable[PackedArticle]) -> Iterator[LabelledSentence]:
    """The sentences of packed articles by (page id, sentence index), one article unpacked at a time."""
    for page_id, index, packed in sorted(articles, key=lambda article: article[:2]):
        yield from unpack(packed)
