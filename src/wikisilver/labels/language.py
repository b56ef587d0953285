"""Steps 3 and 4 of the method, per language: the resources the labelling rules read.

Loaded once per language from its pack (:func:`wikisilver.languages.language_pack`): the pack's
``labels.toml`` and word lists (``mappings/default/`` for a language without a pack), plus the
calendar words of its ``calendar.toml``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from wikisilver.entities.calendar import calendar_words
from wikisilver.labels.state import Tag
from wikisilver.languages import Pack, language_pack
from wikisilver.records import EntityType, TargetInfo
from wikisilver.resources import load_tsv


def case_stems(token: str, suffixes: Sequence[str]) -> Iterator[str]:
    """The names a token may be with one of the case endings ``suffixes`` (longest first) cut off,
    a hyphen before it too: ``Berlinben`` -> ``Berlin``, ``NASA-nak`` -> ``NASA`` (a stem keeps at
    least two characters)."""
    for suffix in suffixes:
        if len(token) > len(suffix) + 1 and token.endswith(suffix):
            stem = token[: -len(suffix)]
            yield stem[:-1] if stem.endswith("-") else stem


def _lead_nouns(pack: Pack) -> dict[str, str]:
    """The pack's ``lead_nouns.tsv``: head noun -> DBpedia class ({} without one)."""
    if not pack.has("lead_nouns.tsv"):
        return {}
    header, *rows = load_tsv(pack.folder, "lead_nouns.tsv")
    return {row[0]: row[1] for row in rows}


@dataclass(frozen=True)
class LanguagePack:
    """The language resources the rules read, from the pack's labels.toml and word lists
    (docs/languages.md: every key)."""

    lang: str
    derived_tag: str
    capitalization_is_proper_noun: bool
    personal_titles: frozenset[str]
    incidental_capitals: frozenset[str]
    inflection_suffixes: tuple[str, ...]
    class_overrides: Mapping[str, str]
    calendar_words: frozenset[str]
    require_finite_verb: bool = True
    derived_suffixes: tuple[str, ...] = ()
    taxon_ranks: frozenset[str] = frozenset()  # rank words that name a taxon after them
    latin_ranks: frozenset[str] = frozenset()  # ranks that are also common words: Latin names only
    taxon_endings: tuple[str, ...] = ()
    possessive_clitics: frozenset[str] = frozenset()  # tokens that close a possessive: 's
    # royal_of_place: "Juliana of the Netherlands" is a person and a place, for these classes
    place_after_of_words: frozenset[str] = frozenset()
    place_after_of_classes: frozenset[str] = frozenset()
    possessive_endings: tuple[str, ...] = ()  # what a possessive adds to a name: Lincoln's, Merkels
    name_particles: frozenset[str] = frozenset()  # von, van, bin: parts of a person's name, never one alone
    person_of_words: tuple[str, ...] = ()  # "of" of "Umberto I of Italy": the person is the part before
    # the language capitalizes every noun (German): a capitalized word the tagger calls a common noun is O
    nouns_capitalized: bool = False
    # own_title_lead: the lead sentence's head noun after a copula and determiners -> DBpedia class
    lead_nouns: Mapping[str, str] = field(default_factory=dict)
    lead_copulas: frozenset[str] = frozenset()
    lead_determiners: frozenset[str] = frozenset()
    # party_member_misc: organisations whose members are named after them (a party: Democrats)
    member_word_classes: frozenset[str] = frozenset()
    leading_articles: frozenset[str] = frozenset()  # "The" of The New York Times: no part of the name

    @classmethod
    def load(cls, lang: str) -> "LanguagePack":
        pack = language_pack(lang)
        data = pack.table("labels.toml")
        return cls(
            lang=lang,
            derived_tag=data.get("derived_tag", "MISC"),
            capitalization_is_proper_noun=bool(data.get("capitalization_is_proper_noun", False)),
            personal_titles=frozenset(data.get("personal_titles", ())),
            incidental_capitals=frozenset(data.get("incidental_capitals", ())),
            # Longest first, so "ban" is tried before "n".
            inflection_suffixes=tuple(sorted(set(data.get("inflection_suffixes", ())), key=len, reverse=True)),
            class_overrides=dict(data.get("class_overrides", {})),
            calendar_words=calendar_words(lang),
            require_finite_verb=bool(data.get("require_finite_verb", True)),
            derived_suffixes=tuple(data.get("derived_suffixes", ())),
            taxon_ranks=frozenset(data.get("taxon_ranks", ())),
            latin_ranks=frozenset(data.get("latin_ranks", ())),
            taxon_endings=tuple(data.get("taxon_endings", ())),
            possessive_clitics=frozenset(data.get("possessive_clitics", ())),
            place_after_of_words=frozenset(data.get("place_after_of_words", ())),
            place_after_of_classes=frozenset(data.get("place_after_of_classes", ())),
            possessive_endings=tuple(data.get("possessive_endings", ())),
            name_particles=pack.words("name_particles.txt"),
            person_of_words=tuple(data.get("person_of_words", ())),
            nouns_capitalized=bool(data.get("nouns_capitalized", False)),
            lead_nouns=_lead_nouns(pack),
            lead_copulas=frozenset(data.get("lead_copulas", ())),
            lead_determiners=frozenset(data.get("lead_determiners", ())),
            member_word_classes=frozenset(data.get("member_word_classes", ())),
            leading_articles=frozenset(data.get("leading_articles", ())),
        )

    def conll_of(self, entity: EntityType) -> str:
        """The CoNLL tag of an entity in this language (``class_overrides`` over the class table)."""
        if entity.dbpedia_class and entity.dbpedia_class in self.class_overrides:
            return self.class_overrides[entity.dbpedia_class]
        return entity.conll

    def tag_of(self, info: TargetInfo) -> Tag:
        """The tag of a typed target's mentions."""
        entity = info.entity
        assert entity is not None
        conll = self.conll_of(entity)
        return Tag(conll, entity.dbpedia_class or conll, info.title)

    def derived(self, target: str = "") -> Tag:
        """What a word derived from a name is (``Turkish``, ``Chinese``): ``derived_tag`` (en MISC,
        hu O), its class MISC where it is an entity."""
        return Tag(self.derived_tag, self.derived_tag if self.derived_tag == "O" else "MISC", target)
