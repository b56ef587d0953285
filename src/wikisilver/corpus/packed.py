"""An article's labelled sentences as a few compressed bytes, for the shuffle before writing.

Between the labeller and the part writer every kept sentence of a dump crosses a shuffle, and the
writer of a part must see all of its articles before it can write them in order. As objects, a
sentence costs some hundred bytes a token (a string object per token, lemma, tag and class); packed
(pickled, then zlib at its fastest level) it costs a few. The writer keeps its part's articles
packed, sorts them by page id and unpacks one article at a time as it writes, so its memory is the
packed size of its part.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterable, Iterator, Sequence

from wikisilver.records import LabelledSentence

Packed = tuple[int, int, bytes]  # (page id, index of the first sentence, the sentences packed)


def pack(sentences: Sequence[LabelledSentence]) -> Packed:
    """The kept sentences of one article (in order, at least one), packed."""
    first = sentences[0]
    return first.page_id, first.index, zlib.compress(pickle.dumps(tuple(sentences), protocol=pickle.HIGHEST_PROTOCOL), 1)


def unpack(packed: Packed) -> tuple[LabelledSentence, ...]:
    return pickle.loads(zlib.decompress(packed[2]))


def unpack_in_order(articles: Iterable[Packed]) -> Iterator[LabelledSentence]:
    """The sentences of packed articles by (page id, sentence index), one article unpacked at a time."""
    for packed in sorted(articles, key=lambda packed: packed[:2]):
        yield from unpack(packed)
