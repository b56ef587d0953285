"""The small immutable records that flow between the steps of the method.

Every stage reads and writes these, never loose dicts: a page from the dump, the
cleaned article with its link spans, the entity type of a title, and the labelled
sentence that ends in the corpus.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from wikisilver.rejects import RejectReason

T = TypeVar("T")


def record(cls: type[T]) -> type[T]:
    """A frozen dataclass that pickles as its class and its field values in order, without the
    field names a dataclass pickles by default: records cross the job's shuffles by the million
    (a page's link targets, its sentences), and the names were half of their bytes."""
    cls = dataclass(frozen=True)(cls)
    names = tuple(f.name for f in fields(cls))

    def __reduce__(self):
        return type(self), tuple(getattr(self, name) for name in names)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls


@record
class Page:
    """One <page> of a MediaWiki XML export, as read (step 2 input)."""

    page_id: int
    title: str
    ns: int
    text: str
    redirect: str | None = None  # target title of <redirect title=…/>, if any
    revision_id: int | None = None
    timestamp: str | None = None
    source: str = ""  # dump file it came from
    offset: int | None = None  # byte offset of the page in the (decompressed) stream, if known


@record
class PageReject:
    """A page (or a piece of a dump) that could not be processed, with why: the dead letter."""

    source: str
    reason: RejectReason  # why: one of the reasons of wikisilver.rejects (a str, as written)
    detail: str = ""  # human-readable detail (exception message)
    page_id: int | None = None
    title: str | None = None
    offset: int | None = None
    snippet: str = ""
    bytes_skipped: int = 0  # corrupt_stream: compressed bytes skipped to the next readable block
    pages_unread_estimate: int = 0  # corrupt_stream: pages estimated lost in those bytes
    unread_pages: tuple[tuple[int, str], ...] = ()  # corrupt_stream: (id, title) of each, by the multistream index


@record
class Link:
    """A wikilink kept in the clean text: [start, end) character span of its anchor."""

    start: int
    end: int
    target: str  # normalized target title (no fragment), as written in the link
    anchor: str


@record
class Article:
    """The clean text of an article and its links (output of step 2's parse)."""

    page_id: int
    title: str
    text: str
    links: tuple[Link, ...] = ()


@record
class PageFlags:
    """What the dump itself says about a title: it exists, it is a disambiguation page."""

    title: str
    is_disambiguation: bool = False
    is_redirect: bool = False


@record
class EntityType:
    """The entity type of one title (step 1): the most specific DBpedia class and its tags."""

    title: str
    dbpedia_class: str | None  # e.g. "City"; None when the title is known but untyped
    conll: str  # PER, LOC, ORG, MISC or O
    fine: str = "O"  # OntoNotes-like fine tag (PERSON, GPE, …) or O
    source: str = ""  # which source typed it: types, infobox, langlinks, sparql, entities, calendar


@record
class TargetInfo:
    """What the labeller knows about one link target after redirects and typing are resolved."""

    title: str  # resolved title (after redirects)
    entity: EntityType | None  # None: not typed by any source -> unknown
    exists: bool = False  # the page exists in the dump
    is_disambiguation: bool = False
    aliases: tuple[str, ...] = ()  # redirect titles pointing at it, other-language titles


@record
class EntitySpan:
    """An entity mention in a labelled sentence: token span [start, end), its tags and target."""

    start: int
    end: int
    conll: str
    dbpedia_class: str
    target: str
    rule: str = "link"  # which rule produced it (link, alias, …)


@record
class LabelledSentence:
    """One sentence of the corpus (step 5 input)."""

    page_id: int
    title: str
    index: int  # sentence index within the article
    tokens: tuple[str, ...]
    lemmas: tuple[str, ...]
    pos: tuple[str, ...]
    dbpedia_tags: tuple[str, ...]  # IOB2 with the most specific class, e.g. B-City
    conll_tags: tuple[str, ...]  # IOB2 CoNLL tags
    spans: tuple[EntitySpan, ...] = ()
    low_quality: bool = False
    quality_reasons: tuple[str, ...] = field(default=())
    text: str = ""  # the sentence as it stands in the clean article text
    offsets: tuple[tuple[int, int], ...] = ()  # each token's [start, end) in ``text`` (empty: unknown)
    source: str = "links"  # "links": labelled by the rules; "second_pass": UNK relabelled by a model

    @property
    def sentence_id(self) -> str:
        """``page_id-index``: unique in a corpus (the ``id`` of Parquet, JSONL and Hugging Face)."""
        return f"{self.page_id}-{self.index}"
