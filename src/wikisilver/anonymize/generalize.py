"""Anonymization by generalization: a name becomes the DBpedia class it belongs to, worded in the
text's language (*Hamburg* -> *a city*, *Budapesten* -> *egy városban*).

The class is the one the corpus's entity table gives the name (its DBpedia layer), else the top
class of its CoNLL type (``mappings/anonymize.toml``). k-anonymity: the class climbs the ontology's
hierarchy (City -> Settlement -> PopulatedPlace -> Place) until at least ``min_members`` distinct
entities of the corpus share it, so the word names a crowd, not the one city the corpus has.

The word is the class's ``rdfs:label`` in the language where the ontology has one (``--ontology``),
else the language pack's (``mappings/<lang>/anonymize.toml``), else the class name de-camel-cased
(``PopulatedPlace`` -> *populated place*) where class names are words of the language, or the
nearest ancestor's word where they are not.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wikisilver.anonymize.inflect import Inflector
from wikisilver.anonymize.surrogates import EntityTable
from wikisilver.ontology.hierarchy import THING, Ontology, depth
from wikisilver.resources import has_mapping, load_toml

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_VOWELS = frozenset("aeiouAEIOUáéíóöőúüűÁÉÍÓÖŐÚÜŰ")


@functools.lru_cache(maxsize=1)
def top_classes() -> dict[str, str]:
    """CoNLL type -> the class its names generalize to when nothing more is known."""
    return dict(load_toml("anonymize.toml")["top_classes"])


@dataclass(frozen=True)
class Wording:
    """How a language puts a class word in a sentence (``mappings/<lang>/anonymize.toml``)."""

    article: str
    article_before_vowel: str
    determiners: frozenset[str]
    alternations: tuple[tuple[str, str], ...]
    class_names_are_words: bool
    lowercase_labels: bool
    labels: Mapping[str, str]
    outer_series: frozenset[str]

    @classmethod
    @functools.lru_cache(maxsize=None)
    def load(cls, lang: str) -> "Wording":
        data = load_toml(lang if has_mapping(lang, "anonymize.toml") else "default", "anonymize.toml")
        return cls(
            article=data.get("article", ""), article_before_vowel=data.get("article_before_vowel", ""),
            determiners=frozenset(data.get("determiners", ())),
            alternations=tuple((a, b) for a, b in data.get("alternations", ())),
            class_names_are_words=bool(data.get("class_names_are_words", True)),
            lowercase_labels=bool(data.get("lowercase_labels", False)),
            labels=dict(data.get("labels", {})), outer_series=frozenset(data.get("outer_series", ())),
        )

    def alternate(self, word: str, following: str) -> str:
        """``word`` (a/an, a/az) in the form that fits before ``following``."""
        vowel = following[:1] in _VOWELS
        for before_consonant, before_vowel in self.alternations:
            if word.lower() in (before_consonant, before_vowel):
                chosen = before_vowel if vowel else before_consonant
                return chosen[:1].upper() + chosen[1:] if word[:1].isupper() else chosen
        return word


def decamel(name: str) -> str:
    """``PopulatedPlace`` -> ``populated place`` (an acronym stays: ``NCAATeamSeason`` -> ``NCAA team season``)."""
    return " ".join(part if part.isupper() else part.lower() for part in _CAMEL.split(name))


class Generalizer:
    """The class word of a name: its class, climbed for k-anonymity, in the text's language."""

    def __init__(self, ontology: Ontology, table: EntityTable | None, lang: str, min_members: int,
                 inflector: Inflector) -> None:
        self.ontology = ontology
        self.table = table
        self.lang = lang
        self.min_members = min_members
        self.inflector = inflector
        self.wording = Wording.load(lang)
        self.tops = top_classes()
        self.members: Counter = Counter()
        for cls, n in (table.class_members() if table else Counter()).items():
            for above in (cls, *ontology.ancestors(cls)):
                self.members[above] += n

    def class_for(self, base: Sequence[str], kind: str) -> str:
        """The class a name of type ``kind`` is generalized to (k-anonymous over the corpus)."""
        top = self.tops.get(kind, THING)
        known = self.table.class_of(base, kind) if self.table else None
        if known is None or known not in self.ontology:
            return top
        ancestors = self.ontology.ancestors(known)
        if top not in ancestors and known != top:
            return top  # a class outside the type's tree (a LOC typed Person): the type decides
        chain = sorted((c for c in ancestors if top in self.ontology.ancestors(c) or c == top),
                       key=lambda c: (-depth(self.ontology, c), c))
        for cls in (known, *chain):
            if self.members[cls] >= self.min_members:
                return cls
        return top

    def label(self, cls: str) -> str:
        """The word for ``cls`` in the text's language."""
        word = self._own_label(cls)
        if word is None and not self.wording.class_names_are_words:
            above = sorted(self.ontology.ancestors(cls), key=lambda c: (-depth(self.ontology, c), c))
            word = next((w for w in map(self._own_label, above) if w is not None), None)
        if word is None:
            word = decamel(cls)
        if self.wording.lowercase_labels and word[:1].isupper() and not word.split()[0].isupper():
            word = word[:1].lower() + word[1:]
        return word

    def _own_label(self, cls: str) -> str | None:
        return self.ontology.labels_by_lang.get(self.lang, {}).get(cls) or self.wording.labels.get(cls)

    def phrase(self, cls: str, case: str | None, previous: str | None) -> tuple[str, bool]:
        """The words that replace a name of class ``cls`` carrying ``case`` after the token
        ``previous``, and whether the case ending could be carried."""
        word = self.label(cls)
        series = "outer" if word.split()[-1] in self.wording.outer_series else self.inflector.common_noun_series
        inflected = self.inflector.inflect(word, case, series) if case is not None else word
        carried = inflected is not None
        word = inflected if carried else word
        if previous is None or previous.lower() not in self.wording.determiners:
            article = self.wording.article_before_vowel if word[:1] in _VOWELS else self.wording.article
            if article:
                word = f"{article} {word}"
        return word, carried
