"""Records packed for a shuffle: pickled, then compressed at a fast level.

Three shuffles of the build carry the bulk of a dump: its pages (spread over the workers), its
articles (joined with what their links point to) and its labelled sentences (grouped into parts).
A runner holds what crosses a shuffle (Beam's local runner in memory, a distributed one on its
shuffle service), and as Python objects a record of text costs several times its text: a string
object per token, lemma, tag and class. Packed, it costs a fraction of its text, and only the
step that reads it unpacks it, one record at a time. One way to pack, for all three.

The compressor, by size: Zstandard at level 3 (Arrow's, which the Parquet parts are written with)
for a pickle of 4 KiB or more, an article or its sentences: about twice as fast as zlib's fastest
level both ways, and a fifth smaller; level 3 rather than 1 for a tenth smaller still at a tenth
more time, since the one-worker build's peak memory is its packed sentences, held for the part
writers (docs/performance.md). zlib below that, the packed link targets and requests, where a call
into Arrow costs more than it saves. A first byte says which.
"""

from __future__ import annotations

import pickle
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pyarrow as pa

from wikisilver.corpus.columns import Sentences, columns_of, records_of
from wikisilver.records import Article, LabelledSentence, Link


_ZSTD = pa.Codec("zstd", compression_level=3)
_LARGE = 4096  # bytes of pickle from which Zstandard packs
_ZLIB, _ZSTD_MARK = b"z", b"s"  # the first byte: zlib's stream follows, or the size and Zstandard's


def pack(value: Any) -> bytes:
    """``value`` as a few compressed bytes (anything picklable)."""
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    if len(data) < _LARGE:
        return _ZLIB + zlib.compress(data, 1)
    return _ZSTD_MARK + len(data).to_bytes(8, "little") + _ZSTD.compress(data, asbytes=True)


def unpack(packed: bytes) -> Any:
    """The value :func:`pack` packed."""
    body = memoryview(packed)
    if packed[:1] == _ZSTD_MARK:
        size = int.from_bytes(body[1:9], "little")
        return pickle.loads(_ZSTD.decompress(body[9:], decompressed_size=size, asbytes=True))
    return pickle.loads(zlib.decompress(body[1:]))


def pack_article(article: Article) -> bytes:
    """An article packed with its links as rows of their fields: a record pickles through a call
    of its ``__reduce__``, and an article has hundreds of links."""
    links = tuple([(link.start, link.end, link.target, link.anchor) for link in article.links])
    return pack((article.page_id, article.title, article.text, links))


def unpack_article(packed: bytes) -> Article:
    """The article :func:`pack_article` packed."""
    page_id, title, text, links = unpack(packed)
    return Article(page_id, title, text, tuple([Link(*fields) for fields in links]))


PackedArticle = tuple[int, int, bytes]  # (page id, index of its first sentence, its sentences packed)


def pack_sentences(sentences: Sequence[LabelledSentence]) -> PackedArticle:
    """The kept sentences of one article (in order, at least one), packed and keyed for sorting.

    Packed column by column (:class:`~wikisilver.corpus.columns.Sentences`), not sentence by
    sentence: the cells of a column a token has as one joined string, the offsets as one array,
    which pickle as a few objects, not one a cell, and compress better side by side."""
    first = sentences[0]
    s = columns_of(sentences)
    return first.page_id, first.index, pack((first.page_id, first.title, *s[2:]))


def unpack_columns(packed: bytes) -> Sentences:
    """The sentences :func:`pack_sentences` packed, column by column (the part writer's input)."""
    page_id, title, index, *rest = unpack(packed)
    n = len(index)
    return Sentences([page_id] * n, [title] * n, index, *rest)


def unpack_sentences(packed: bytes) -> Iterator[LabelledSentence]:
    """The sentences :func:`pack_sentences` packed, in order, as records."""
    return records_of(unpack_columns(packed))


def articles_in_order(articles: Iterable[PackedArticle]) -> Iterator[Sentences]:
    """The sentences of packed articles by (page id, sentence index), an article at a time."""
    for _page_id, _index, packed in sorted(articles, key=lambda article: article[:2]):
        yield unpack_columns(packed)
