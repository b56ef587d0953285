"""Anonymization, its knowledge: the entity table of a corpus, and surrogates drawn from it.

Every entity mention of the corpus given with ``--corpus`` (ours: CoNLL and DBpedia layers; a gold
file: its one layer) is counted under its surface form. The table then serves four needs:

* the second detector (:mod:`wikisilver.anonymize.detect`): surface -> type, with how often a
  one-word surface is a name rather than a common capitalized word;
* surrogates: uninflected names of a type (and, where the corpus says, of a DBpedia class),
  drawn reproducibly, never the original nor sharing a word with it;
* generalization: the DBpedia class of a surface, and how many known entities each class and its
  ancestors hold (:mod:`wikisilver.anonymize.generalize`);
* the grammar of a surrogate: the inflected forms the corpus shows of a name (*Debrecenben*, so
  Debrecen takes the inner locative series; *Kovácsot*, not *Kovácst*).

The table is built in one pass over the corpus and holds one entry per distinct surface.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from wikisilver.anonymize.inflect import Inflector
from wikisilver.corpus.tags import CONLL_TYPES, TaggedSentence, iob_to_spans

MAX_SURFACE_TOKENS = 8  # as the gazetteers: longer "names" are titles of works
_TRIES = 64  # random draws before a surrogate is searched for in order
_SCAN = 4096  # names looked at in order, at most, per pool: a draw costs the same however full the document


@dataclass
class EntityTable:
    """Surfaces of the corpus's entity mentions, with their types, classes and inflected forms."""

    types: dict[tuple[str, ...], Counter] = field(default_factory=dict)  # surface -> CoNLL type counts
    classes: dict[tuple[tuple[str, ...], str], Counter] = field(default_factory=dict)  # (base, type) -> class counts
    lemmas: dict[tuple[str, ...], str] = field(default_factory=dict)  # surface -> lemma of its last token
    capitalized_outside: Counter = field(default_factory=Counter)  # capitalized token -> times outside any entity
    bases: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)  # surface -> uninflected form
    forms: dict[tuple[str, str], Counter] = field(default_factory=dict)  # (stem, case) -> inflected tokens
    max_length: int = 0
    last_tokens: frozenset[str] = frozenset()
    _pools: dict = field(default_factory=dict, repr=False)

    # -- building --------------------------------------------------------------------------------

    @classmethod
    def from_sentences(cls, sentences: Iterable[TaggedSentence], inflector: Inflector) -> "EntityTable":
        """The table of a corpus's sentences (their ``conll_tags`` or tags; DBpedia classes from
        ``dbpedia_tags`` where the corpus has them)."""
        table = cls()
        for sentence in sentences:
            table._add(sentence)
        table._finish(inflector)
        return table

    def _add(self, sentence: TaggedSentence) -> None:
        conll = sentence.conll_tags or sentence.tags
        inside = [False] * len(sentence.tokens)
        for start, end, kind in iob_to_spans(conll):
            for i in range(start, end):
                inside[i] = True
            if kind not in CONLL_TYPES or end - start > MAX_SURFACE_TOKENS:
                continue
            surface = sentence.tokens[start:end]
            self.types.setdefault(surface, Counter())[kind] += 1
            dbpedia = sentence.dbpedia_tags[start] if sentence.dbpedia_tags else "O"
            cls = dbpedia.split("-", 1)[1] if "-" in dbpedia else ""
            if cls and cls not in CONLL_TYPES:
                self.classes.setdefault((surface, kind), Counter())[cls] += 1
            lemma = sentence.lemmas[end - 1] if sentence.lemmas else "_"
            if lemma not in ("_", "") and surface not in self.lemmas:
                self.lemmas[surface] = lemma
        for token, within in zip(sentence.tokens, inside):
            if not within and token[:1].isupper():
                self.capitalized_outside[token] += 1

    def _finish(self, inflector: Inflector) -> None:
        self.max_length = max((len(s) for s in self.types), default=0)
        self.last_tokens = frozenset(s[-1] for s in self.types)
        for surface in self.types:
            ending = inflector.split(surface[-1], self.lemmas.get(surface), self.knows_token)
            self.bases[surface] = surface[:-1] + (ending.stem,)
            if ending.case:
                self.forms.setdefault((ending.stem, ending.case), Counter())[surface[-1]] += sum(self.types[surface].values())
        self.lemmas.clear()  # only needed to find the bases
        by_base: dict[tuple[tuple[str, ...], str], Counter] = {}
        for (surface, kind), classes in self.classes.items():
            by_base.setdefault((self.bases[surface], kind), Counter()).update(classes)
        self.classes = by_base  # keyed by uninflected surface from here on

    def knows_token(self, token: str) -> bool:
        """Whether ``token`` ends a surface of the corpus (a stem it knows as a name)."""
        return token in self.last_tokens

    # -- lookups ---------------------------------------------------------------------------------

    def type_of(self, surface: Sequence[str]) -> str | None:
        """The type most mentions of ``surface`` have (a tie: the alphabetically first)."""
        counts = self.types.get(tuple(surface))
        if not counts:
            return None
        return min(counts, key=lambda kind: (-counts[kind], kind))

    def is_name(self, surface: Sequence[str]) -> bool:
        """Whether a one-word surface is a name at least as often as it is a capitalized word outside
        any entity (*Magyar* at the start of a sentence is not the band); longer surfaces always are."""
        surface = tuple(surface)
        if len(surface) > 1:
            return True
        return surface in self.types and not self.common_word(surface[0])

    def common_word(self, word: str) -> bool:
        """Whether the corpus has ``word`` more often as a capitalized word outside names than as a name."""
        return self.capitalized_outside[word] > sum(self.types.get((word,), Counter()).values())

    def class_of(self, base: Sequence[str], kind: str) -> str | None:
        """The DBpedia class most mentions of the uninflected surface ``base`` as ``kind`` have."""
        counts = self.classes.get((tuple(base), kind))
        return min(counts, key=lambda c: (-counts[c], c)) if counts else None

    def observed_form(self, stem: str, case: str) -> str | None:
        """How the corpus writes ``stem`` in ``case`` (*Kovácsot*), if it shows it."""
        counts = self.forms.get((stem, case))
        return min(counts, key=lambda form: (-counts[form], form)) if counts else None

    def series(self, stem: str, inflector: Inflector) -> str | None:
        """The locative series the corpus shows ``stem`` in (*Debrecenben*: inner), None if neither."""
        votes: Counter = Counter()
        for name, cases in inflector.series.items():
            for case in cases:
                votes[name] += sum(self.forms.get((stem, case), Counter()).values())
        if not votes or not any(votes.values()):
            return None
        return min(votes, key=lambda name: (-votes[name], name))

    def class_members(self) -> Counter:
        """Class -> distinct uninflected surfaces of the corpus typed with it (not yet its ancestors')."""
        counts: Counter = Counter()
        for (base, kind), classes in self.classes.items():
            counts[min(classes, key=lambda c: (-classes[c], c))] += 1
        return counts

    # -- surrogates ------------------------------------------------------------------------------

    def _pool(self, kind: str, cls: str | None, length: int | None, frequent: bool) -> list[tuple[str, ...]]:
        """Uninflected names of a type (and class, and length; ``frequent``: seen more than once, which
        a mislabelled silver span rarely is): indexed in one pass when first asked."""
        if not self._pools:
            pools: dict[tuple, set] = defaultdict(set)
            for surface, base in self.bases.items():
                surface_kind = self.type_of(surface)
                if base != surface or surface_kind is None or not _looks_like_a_name(surface, surface_kind):
                    continue
                surface_class = self.class_of(surface, surface_kind)
                seen = {False, sum(self.types[surface].values()) > 1}
                for c in {None, surface_class}:
                    for n in (None, len(surface)):
                        for f in seen:
                            pools[(surface_kind, c, n, f)].add(surface)
            self._pools.update({key: sorted(found) for key, found in pools.items()})
            self._pools[None] = []  # built, even if empty
        return self._pools.get((kind, cls, length, frequent), [])

    def surrogate(
        self, kind: str, original: Sequence[str], rng: random.Random, avoid: set[tuple[str, ...]],
        cls: str | None = None, avoid_words: set[str] = frozenset(),
    ) -> tuple[str, ...] | None:
        """An uninflected name of ``kind`` (one the corpus has more than once, of class ``cls``, of
        the original's length, where it can), never in ``avoid`` and sharing no word with the
        original nor with ``avoid_words`` (casefolded: the document's other names); None when none
        is found (the corpus has none left, or none among the names looked at)."""
        words = {token.casefold() for token in original} | set(avoid_words)

        def fits(candidate: tuple[str, ...]) -> bool:
            return candidate not in avoid and not words & {token.casefold() for token in candidate}

        keys = [(cls, len(original)), (cls, None)] if cls else []
        keys += [(None, len(original)), (None, None)]
        for pool in (self._pool(kind, c, n, frequent) for frequent in (True, False) for c, n in keys):
            if not pool:
                continue
            for _ in range(min(_TRIES, len(pool))):
                candidate = pool[rng.randrange(len(pool))]
                if fits(candidate):
                    return candidate
            start = rng.randrange(len(pool))
            for i in range(min(len(pool), _SCAN)):
                candidate = pool[(start + i) % len(pool)]
                if fits(candidate):
                    return candidate
        return None


def _looks_like_a_name(surface: tuple[str, ...], kind: str) -> bool:
    """A surrogate starts with a capital and is made of words of letters (a hyphen or apostrophe
    inside); a person's has a lower-case letter in every word (no initials, no regnal numbers: III.)."""
    if not surface[0][:1].isupper():
        return False
    if not all(token.replace("-", "").replace("'", "").isalpha() for token in surface):
        return False
    return kind != "PER" or all(any(c.islower() for c in token) for token in surface)


def shared_words(original: Iterable[str], replacement: Iterable[str]) -> set[str]:
    """Words (casefolded) a replacement shares with what it replaced: a leak if not empty."""
    return {t.casefold() for t in original} & {t.casefold() for t in replacement}


def table_summary(table: EntityTable) -> dict[str, int]:
    """Distinct uninflected surfaces per type, for the command's summary line."""
    counts: dict[str, int] = defaultdict(int)
    for surface, base in table.bases.items():
        if surface == base:
            kind = table.type_of(surface)
            if kind:
                counts[kind] += 1
    return dict(counts)
