"""Anonymization, step two: replace the names of one document, consistently (Dias 2016's four methods).

* ``suppress``: every name becomes one mask (``[MASK]``);
* ``tag``: its type, numbered per distinct entity of the document (``[PER-1]``, ``[PER-2]``, ``[LOC-1]``);
* ``substitute``: a surrogate of the same type (and DBpedia class) from the corpus's entity table;
* ``generalize``: its DBpedia class, worded in the text's language (persons are substituted).

An entity is a name's uninflected form within one document, of the type most of its mentions have:
all its mentions get one replacement, whatever their case ending (*Budapest*, *Budapesten*), and a
shorter name that begins or ends a longer one of the same type, or either a person's, follows it
(*Angela Merkel* … *Merkel* -> *Ruth Berger* … *Berger*), whichever comes first. A surrogate or class word takes the name's case ending where the
language has a table for it (:mod:`wikisilver.anonymize.inflect`); one it cannot carry is left off
and counted. A whole document is held in memory while it is replaced.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wikisilver.anonymize.detect import Span
from wikisilver.anonymize.generalize import Generalizer, Wording
from wikisilver.anonymize.inflect import Ending, Inflector
from wikisilver.anonymize.surrogates import MAX_SURFACE_TOKENS, EntityTable
from wikisilver.corpus.tags import CONLL_TYPES, TaggedSentence, spans_to_iob
from wikisilver.text.base import is_punct_token

METHODS = ("suppress", "tag", "substitute", "generalize")
DEFAULT_MASK = "[MASK]"


@dataclass(frozen=True)
class Options:
    """What to replace and how."""

    method: str
    classes: frozenset[str] = CONLL_TYPES
    mask: str = DEFAULT_MASK
    seed: int = 0


@dataclass
class Counts:
    """What the replacement did, over all documents."""

    documents: int = 0
    sentences: int = 0
    tokens: int = 0
    mentions: Counter = field(default_factory=Counter)  # replaced, per type
    entities: Counter = field(default_factory=Counter)  # distinct per document, per type
    endings_carried: int = 0
    endings_left_off: int = 0
    no_surrogate: int = 0  # entities the corpus had no surrogate for: tagged instead


@dataclass
class _Entity:
    kind: str
    base: tuple[str, ...]
    key: tuple[str, ...]  # the base casefolded
    first: tuple[int, int]
    parent: "_Entity | None" = None
    label: str = ""  # tag label: TYPE-N of its root
    words: tuple[str, ...] = ()  # uninflected replacement (suppress, tag, substitute)
    cls: str | None = None  # generalization class


@dataclass(frozen=True)
class _Mention:
    sentence: int
    span: Span
    ending: Ending
    base: tuple[str, ...]  # the name's uninflected tokens
    entity: tuple[str, ...]  # ... casefolded: the entity's key (EK-Szerződés is EK-szerződés)


@dataclass(frozen=True)
class Replaced:
    """One mention's replacement: tokens ``[start, end)`` of the original sentence, its type, the
    entity it belongs to (``PER-1``: numbered per type in the document) and what stands there now."""

    start: int
    end: int
    kind: str
    entity: str
    text: str


@dataclass(frozen=True)
class AnonymizedDocument:
    """A document's sentences with their names replaced, and what replaced what."""

    doc_id: str
    sentences: list[TaggedSentence]
    mapping: list[dict]  # {"type", "entity", "original", "replacement"}, in order of first mention
    replaced: list[list[Replaced]]  # per original sentence


class Anonymizer:
    """Replaces the names of documents by one method; ``lemmatize`` gives the lemmas of a sentence
    where the input has none (only needed where the language has case endings)."""

    def __init__(self, options: Options, inflector: Inflector, *, table: EntityTable | None = None,
                 generalizer: Generalizer | None = None, wording: Wording | None = None,
                 lemmatize: Callable[[Sequence[str]], Sequence[str]] | None = None) -> None:
        self.options = options
        self.inflector = inflector
        self.table = table
        self.generalizer = generalizer
        self.wording = wording
        self.lemmatize = lemmatize
        self.counts = Counts()

    # -- entities --------------------------------------------------------------------------------

    def _lemmas(self, sentence: TaggedSentence) -> Sequence[str] | None:
        if sentence.lemmas and any(lemma != "_" for lemma in sentence.lemmas):
            return sentence.lemmas
        if self.lemmatize is not None and (self.inflector.carries or self.inflector.bare_suffixes):
            return self.lemmatize(sentence.tokens)
        return None

    def _mentions(self, sentences: Sequence[TaggedSentence], spans: Sequence[Sequence[Span]]) -> list[_Mention]:
        chosen = [[s for s in found if s.kind in self.options.classes] for found in spans]
        inside = {sentence.tokens[i].casefold() for sentence, found in zip(sentences, chosen) for s in found
                  for i in range(s.start, s.end)}
        table = self.table

        def known(stem: str) -> bool:
            return stem.casefold() in inside or (table is not None and table.knows_token(stem))

        mentions = []
        for index, (sentence, found) in enumerate(zip(sentences, chosen)):
            lemmas = self._lemmas(sentence) if found else None
            for span in found:
                last = sentence.tokens[span.end - 1]
                ending = self.inflector.split(last, lemmas[span.end - 1] if lemmas else None, known)
                base = sentence.tokens[span.start:span.end - 1] + (ending.stem,)
                mentions.append(_Mention(index, span, ending, base, tuple(t.casefold() for t in base)))
        return mentions

    @staticmethod
    def _entities(mentions: Sequence[_Mention]) -> dict[tuple, _Entity]:
        entities: dict[tuple, _Entity] = {}
        kinds: dict[tuple, Counter] = {}
        for m in mentions:
            if m.entity not in entities:
                entities[m.entity] = _Entity(m.span.kind, m.base, m.entity, (m.sentence, m.span.start))
                kinds[m.entity] = Counter()
            kinds[m.entity][m.span.kind] += 1
        for key, entity in entities.items():  # the majority type; a tie goes to the first mention's
            entity.kind = max(kinds[key], key=lambda kind: (kinds[key][kind], kind == entity.kind))
        # Each longer name (of at most MAX_SURFACE_TOKENS) under each of its proper prefixes and
        # suffixes: every entry is looked at once, by the one entity whose name it is.
        around: dict[tuple[str, ...], list[_Entity]] = defaultdict(list)
        for p in entities.values():
            for k in range(1, len(p.key) if len(p.key) <= MAX_SURFACE_TOKENS else 0):
                around[p.key[:k]].append(p)
                if p.key[-k:] != p.key[:k]:
                    around[p.key[-k:]].append(p)
        for entity in entities.values():
            longer = [p for p in around.get(entity.key, ()) if p.kind == entity.kind or "PER" in (p.kind, entity.kind)]
            before = [p for p in longer if p.first < entity.first]
            if before:
                entity.parent = max(before, key=lambda p: p.first)
            elif longer:
                entity.parent = min(longer, key=lambda p: p.first)
        return entities

    @staticmethod
    def _part(entity: _Entity, words: tuple[str, ...]) -> tuple[str, ...]:
        """The part of the parent's replacement that stands where ``entity`` stands in the parent."""
        parent = entity.parent
        assert parent is not None
        n, length = len(parent.key), len(entity.key)
        start = 0 if parent.key[:length] == entity.key else n - length
        if len(words) == n:
            return words[start:start + length]
        return words[:length] if start == 0 else words[-length:]

    def _plan(self, doc_id: str, entities: dict[tuple, _Entity]) -> None:
        """Each entity's replacement (before any case ending), roots first, longest first."""
        method, table = self.options.method, self.table
        ordered = sorted(entities.values(), key=lambda e: (-len(e.base), e.first))
        first: dict[int, tuple[int, int]] = {}
        for entity in ordered:
            root = id(_root(entity))
            first[root] = min(first.get(root, entity.first), entity.first)
        roots = sorted((e for e in ordered if e.parent is None), key=lambda e: first[id(e)])
        numbers: Counter = Counter()
        for root in roots:
            numbers[root.kind] += 1
            root.label = f"[{root.kind}-{numbers[root.kind]}]"
        taken = {e.base for e in entities.values()}
        words_in_doc = {token.casefold() for e in entities.values() for token in e.base}
        for entity in ordered:
            entity.label = _root(entity).label
            entity.kind = _root(entity).kind
            if method == "suppress":
                entity.words = (self.options.mask,)
            elif method == "tag":
                entity.words = (entity.label,)
            elif method == "generalize" and entity.kind != "PER":
                entity.cls = entity.parent.cls if entity.parent else self.generalizer.class_for(entity.base, entity.kind)
            elif entity.parent is not None:
                entity.words = self._part(entity, entity.parent.words)
            else:
                rng = random.Random(f"{self.options.seed}\x1f{doc_id}\x1f{entity.kind}\x1f{' '.join(entity.base)}")
                chosen = table.surrogate(entity.kind, entity.base, rng, taken, table.class_of(entity.base, entity.kind),
                                         avoid_words=words_in_doc) if table else None
                if chosen is None:
                    self.counts.no_surrogate += 1
                    chosen = (entity.label,)
                taken.add(chosen)
                words_in_doc.update(token.casefold() for token in chosen)  # no two surrogates share a word
                entity.words = chosen

    # -- one mention ------------------------------------------------------------------------------

    def _inflected(self, words: tuple[str, ...], ending: Ending) -> str:
        text = " ".join(words)
        if ending.case is None or self.options.method in ("suppress", "tag") or text.startswith("["):
            return text  # a mask or a tag takes no ending
        last, table, inflector = words[-1], self.table, self.inflector
        case = ending.case
        if case and inflector.series_of(case):
            series = (table.series(last, inflector) if table else None) or inflector.default_series
            case = inflector.move(case, series) if series else case
        word = (table.observed_form(last, case) if table and case else None) or inflector.inflect_token(last, case)
        if word is None:
            self.counts.endings_left_off += 1
            return text
        self.counts.endings_carried += 1
        return " ".join((*words[:-1], word))

    def _text(self, entity: _Entity, mention: _Mention, sentence: TaggedSentence) -> str:
        if entity.cls is None:
            return self._inflected(entity.words, mention.ending)
        start = mention.span.start
        previous = sentence.tokens[start - 1] if start else None
        text, carried = self.generalizer.phrase(entity.cls, mention.ending.case, previous)
        if mention.ending.case is not None:
            if carried:
                self.counts.endings_carried += 1
            else:
                self.counts.endings_left_off += 1
        if all(is_punct_token(t) for t in sentence.tokens[:start]):
            text = text[:1].upper() + text[1:]
        return text

    # -- a document -------------------------------------------------------------------------------

    def document(self, doc_id: str, sentences: Sequence[TaggedSentence],
                 spans: Sequence[Sequence[Span]]) -> AnonymizedDocument:
        """The document with every name of ``options.classes`` among ``spans`` replaced."""
        mentions = self._mentions(sentences, spans)
        entities = self._entities(mentions)
        self._plan(doc_id, entities)
        edits: list[list[Replaced]] = [[] for _ in sentences]
        mapping: dict[tuple[str, str, str], dict] = {}
        for m in mentions:
            entity, sentence = entities[m.entity], sentences[m.sentence]
            text = self._text(entity, m, sentence)
            label = entity.label.strip("[]")
            edits[m.sentence].append(Replaced(m.span.start, m.span.end, entity.kind, label, text))
            original = " ".join(sentence.tokens[m.span.start:m.span.end])
            mapping.setdefault((entity.kind, original, text), {
                "type": entity.kind, "entity": label, "original": original, "replacement": text})
            self.counts.mentions[entity.kind] += 1
        for entity in entities.values():
            self.counts.entities[entity.kind] += 1
        wording = self.wording if self.options.method in ("substitute", "generalize") else None  # a mask is no word
        out = [rewrite(sentence, found, spans[i], wording, doc_id) for i, (sentence, found) in enumerate(zip(sentences, edits))]
        self.counts.documents += 1
        self.counts.sentences += len(sentences)
        self.counts.tokens += sum(len(s.tokens) for s in sentences)
        return AnonymizedDocument(doc_id, out, list(mapping.values()), edits)


def _root(entity: _Entity) -> _Entity:
    while entity.parent is not None:
        entity = entity.parent
    return entity


def rewrite(sentence: TaggedSentence, edits: Sequence[Replaced],
            detected: Sequence[Span] = (), wording: Wording | None = None, doc_id: str | None = None) -> TaggedSentence:
    """The sentence with tokens ``[start, end)`` of each edit replaced by its words (tagged with its
    type), its text and offsets rebuilt, the replaced tokens' lemma and POS ``_``; the detected
    names it keeps carry their tags; an article before a replacement is set to fit it (a/an); its
    title is the document's id (``doc_id``, else its own), never an article's title: that is a name."""
    n = len(sentence.tokens)
    base_tags = spans_to_iob(n, [(s.start, s.end, s.kind) for s in detected])
    by_start = {edit.start: (edit.end, edit.text, edit.kind) for edit in edits}
    text, offsets = sentence.text, sentence.offsets
    has_text = text is not None and offsets is not None and len(offsets) == n
    tokens, tags, lemmas, pos, new_offsets, pieces = [], [], [], [], [], []
    cursor, length = 0, 0  # in the old text, in the new one

    def put(word: str, tag: str, lemma: str, upos: str, gap: str) -> None:
        nonlocal length
        pieces.append(gap)
        length += len(gap)
        new_offsets.append((length, length + len(word)))
        pieces.append(word)
        length += len(word)
        tokens.append(word)
        tags.append(tag)
        lemmas.append(lemma)
        pos.append(upos)

    i = 0
    while i < n:
        gap = text[cursor:offsets[i][0]] if has_text else (" " if i else "")
        if i in by_start:
            end, words, kind = by_start[i]
            for k, word in enumerate(words.split(" ")):
                put(word, f"{'B' if k == 0 else 'I'}-{kind}", "_", "_", gap if k == 0 else " ")
            cursor = offsets[end - 1][1] if has_text else cursor
            i = end
            continue
        token = sentence.tokens[i]
        following = by_start.get(i + 1)
        if wording is not None and following is not None and not following[1].startswith("["):
            token = wording.alternate(token, following[1])
        put(token, base_tags[i], sentence.lemmas[i] if sentence.lemmas else "_",
            sentence.pos[i] if sentence.pos else "_", gap)
        cursor = offsets[i][1] if has_text else cursor
        i += 1
    if has_text:
        pieces.append(text[cursor:])
    tags_tuple = tuple(tags)
    return dataclasses.replace(
        sentence, tokens=tuple(tokens), tags=tags_tuple, conll_tags=tags_tuple, dbpedia_tags=None, spans=None,
        lemmas=tuple(lemmas) if sentence.lemmas else None, pos=tuple(pos) if sentence.pos else None,
        text="".join(pieces) if has_text else None, offsets=tuple(new_offsets) if has_text else None,
        title=doc_id if doc_id is not None else sentence.doc_id,
    )
