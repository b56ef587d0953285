"""Anonymization, its grammar: the case ending of a replaced name, found and put on the replacement.

In an agglutinative language a name carries its case ending in the same token (*Budapesten*,
*Kovácsnak*); a surrogate or a class word must carry the same ending, in the form its own vowels
ask for (*Debrecenben*, *Bergernek*, *városban*), or the text stops being grammatical and gives the
replacement away. The tables are the language's data (``mappings/<lang>/inflection.toml``: vowel
classes, the variants of each ending, lengthening, digraphs, acronym letter names, the two locative
series); this module only reads them, so another harmonic language is a new file, not new code.

A language with case endings listed in its labels (``inflection_suffixes``) but no inflection table
gets the named fallback :data:`BARE`: endings are found (and left off the replacement, counted),
never guessed onto it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from wikisilver.labels.language import LanguagePack, case_stems
from wikisilver.resources import has_mapping, load_toml

ANY = "any"  # the harmony key of an invariant ending
BARE = ""  # the case of an ending found by the language's suffix list, with no table to carry it


@dataclass(frozen=True)
class Case:
    """One case: its ending per harmony class, and how it attaches after vowels and consonants."""

    name: str
    forms: Mapping[str, str]
    after_vowel: str | None = None
    after_consonants: tuple[str, frozenset[str]] | None = None  # (ending, final consonants)
    assimilates: bool = False


@dataclass(frozen=True)
class Ending:
    """A token split into its stem and case ending (``case`` None: no ending)."""

    stem: str
    case: str | None = None
    text: str = ""  # the ending as written in the token ("en", "-nak", "csal")
    marked: bool = False  # the spelling itself shows an ending: a hyphen (NATO-nak), a doubled consonant (Berlinnel)


@dataclass(frozen=True)
class Inflector:
    """The case endings of one language, read from ``mappings/<lang>/inflection.toml``."""

    lang: str
    cases: Mapping[str, Case] = field(default_factory=dict)
    vowel_class: Mapping[str, str] = field(default_factory=dict)  # vowel -> harmony class or "neutral"
    default_class: str = "front"
    fallback: Mapping[str, str] = field(default_factory=dict)
    lengthen: Mapping[str, str] = field(default_factory=dict)
    digraphs: tuple[str, ...] = ()
    final_vowel_letters: frozenset[str] = frozenset()  # a last letter read as a vowel (Ady)
    acronym_hyphen: bool = False
    letter_names: Mapping[str, str] = field(default_factory=dict)
    series: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # locative series -> cases
    default_series: str | None = None
    common_noun_series: str | None = None
    bare_suffixes: tuple[str, ...] = ()  # the fallback's endings, longest first

    @property
    def carries(self) -> bool:
        """Whether a replacement can take endings at all (the language has a table)."""
        return bool(self.cases)

    # -- harmony ---------------------------------------------------------------------------------

    def harmony(self, word: str) -> str:
        """The harmony class of a word: of its last vowel that is not neutral (else the default)."""
        for char in reversed(word.lower()):
            kind = self.vowel_class.get(char)
            if kind is not None and kind != "neutral":
                return kind
        return self.default_class

    def _pick(self, case: Case, harmony: str) -> str:
        forms = case.forms
        return forms.get(harmony) or forms.get(self.fallback.get(harmony, "")) or forms.get(ANY) or next(iter(forms.values()))

    def _is_vowel(self, char: str) -> bool:
        return char.lower() in self.vowel_class

    def _final_consonant(self, stem: str) -> str:
        low = stem.lower()
        return next((d for d in self.digraphs if low.endswith(d)), low[-1:])

    # -- putting an ending on -------------------------------------------------------------------

    def _forms(self, stem: str, case: Case) -> list[str]:
        """The ways ``stem`` may carry ``case``, the preferred first."""
        if self.acronym_hyphen and _is_acronym(stem):
            return self._acronym_forms(stem, case)
        last = stem[-1]
        if not last.isalpha():  # Apollo 11, Kft.: how it is read is not in the spelling
            return []
        harmony = self.harmony(stem)
        ending = self._pick(case, harmony)
        consonant = self._final_consonant(stem)
        if self._is_vowel(last) or (consonant in self.final_vowel_letters):
            lengthened = stem[:-1] + self.lengthen.get(last, last)
            return [lengthened + (case.after_vowel or ending)]
        if case.after_consonants is not None:
            direct, finals = case.after_consonants
            linked = [stem + direct, stem + ending]
            return linked if consonant in finals else linked[::-1]
        if case.assimilates:
            tail = ending[1:]
            if len(stem) > 1 and stem[-1] == stem[-2]:  # Scott, Mariann: a hyphen, not a triple letter
                return [f"{stem}-{consonant}{tail}"]
            if len(consonant) > 1:  # Kovács -> Kováccsal
                return [stem[: -len(consonant)] + consonant[0] + consonant + tail]
            return [stem + consonant + tail]
        return [stem + ending]

    def _acronym_forms(self, stem: str, case: Case) -> list[str]:
        """NATO-nak (read as a word), IBM-mel (spelled: as the name of its last letter, "em")."""
        last = stem[-1]
        word_like = self._is_vowel(last) or (len(stem) > 1 and self._is_vowel(stem[-2]))
        spoken = stem.lower() if word_like else self.letter_names.get(last.upper())
        if not spoken or not spoken.isalpha():
            return []
        harmony = self.harmony(spoken)
        ending = self._pick(case, harmony)
        if self._is_vowel(spoken[-1]):
            return [f"{stem}-{case.after_vowel or ending}"]
        if case.after_consonants is not None:
            direct, finals = case.after_consonants
            return [f"{stem}-{direct if self._final_consonant(spoken) in finals else ending}"]
        if case.assimilates:
            return [f"{stem}-{self._final_consonant(spoken)}{ending[1:]}"]
        return [f"{stem}-{ending}"]

    def inflect_token(self, stem: str, case: str | None) -> str | None:
        """``stem`` with the ending of ``case`` (None: a case this language cannot put on it)."""
        if not case:
            return stem if case is None else None
        known = self.cases.get(case)
        if known is None or not stem:
            return None
        forms = self._forms(stem, known)
        return forms[0] if forms else None

    def inflect(self, phrase: str, case: str | None, series: str | None = None) -> str | None:
        """A replacement (one or more words) with the case ending on its last word; a locative case
        moves to the same slot of ``series`` (Budapesten -> Debrecenben). None: cannot carry it."""
        head, sep, last = phrase.rpartition(" ")
        if case and series:
            case = self.move(case, series)
        word = self.inflect_token(last, case)
        return None if word is None else head + sep + word

    # -- the locative series ---------------------------------------------------------------------

    def series_of(self, case: str | None) -> str | None:
        """The locative series a case belongs to (inner, outer), None for another case."""
        return next((name for name, cases in self.series.items() if case in cases), None)

    def move(self, case: str, series: str) -> str:
        """The case of the same slot in another series (superessive -> inessive for "inner")."""
        current = self.series_of(case)
        if current is None or current == series or series not in self.series:
            return case
        return self.series[series][self.series[current].index(case)]

    # -- taking an ending off --------------------------------------------------------------------

    def _candidates(self, token: str) -> list[Ending]:
        """Every (stem, case) whose inflection gives back ``token``, longest ending first."""
        found: dict[tuple[str, str], Ending] = {}
        stem, hyphen, after = token.rpartition("-")
        for case in self.cases.values():
            endings = set(case.forms.values()) | {case.after_vowel or "", case.after_consonants[0] if case.after_consonants else ""}
            if hyphen and stem and after and (after in endings or (case.assimilates and len(after) > 1 and after[1:] in {
                    form[1:] for form in case.forms.values()} and not self._is_vowel(after[0]))):
                # After a hyphen any form of the ending is the name's (Jolie-nak, NB I-ben, IBM-mel):
                # how a foreign name or an acronym sounds is not in its spelling.
                found[(stem, case.name)] = Ending(stem, case.name, f"-{after}", True)
                continue
            for ending in filter(None, endings):
                if token.endswith(ending) and len(token) - len(ending) >= 2:
                    self._try(found, token, token[: -len(ending)], case)
            if case.assimilates:
                for tail in {form[1:] for form in case.forms.values()}:
                    if token.endswith(tail) and len(token) - len(tail) >= 3:
                        self._try_assimilated(found, token, token[: -len(tail)], case)
        return sorted(found.values(), key=lambda e: (-len(e.text), e.stem))

    def _try(self, found: dict, token: str, stem: str, case: Case, marked: bool = False) -> None:
        stems = {stem}
        for short, long in self.lengthen.items():  # Pápá(n) -> Pápa
            if stem.endswith(long):
                stems.add(stem[: -len(long)] + short)
        for candidate in stems:
            if token in self._forms(candidate, case):
                shared = len(os.path.commonprefix([candidate, token]))
                found[(candidate, case.name)] = Ending(candidate, case.name, token[shared:], marked)

    def _try_assimilated(self, found: dict, token: str, rest: str, case: Case) -> None:
        rest = rest[:-1] if rest.endswith("-") else rest
        low = rest.lower()
        for digraph in self.digraphs:
            if low.endswith(digraph[0] + digraph):
                self._try(found, token, rest[: -len(digraph) - 1] + rest[-len(digraph):], case, True)
        if len(rest) > 2 and low[-1] == low[-2]:
            self._try(found, token, rest[:-1], case, True)


    def split(self, token: str, lemma: str | None = None, known: Callable[[str], bool] | None = None) -> Ending:
        """The stem and case ending of a name's token.

        Evidence decides, never the look of the word alone (*London* is not *Lond* + -on): the
        lemma, where it names a stem; a stem the corpus or the document knows as a name; an
        ending the spelling shows (*NATO-nak*, *Kováccsal*); else, where the lemmatizer says the
        token is inflected,
        the longest ending that fits its vowels.
        """
        candidates = self.endings(token)
        if not candidates:
            stem = self._lemma_prefix(token, lemma) if lemma and self.carries else None
            return Ending(stem, BARE, token[len(stem):]) if stem else Ending(token)
        if lemma:
            same = [c for c in candidates if c.stem.casefold() == lemma.casefold()]
            if same:
                return same[0]
            stem = self._lemma_prefix(token, lemma)
            if stem is not None:  # an ending the table has no case for (Európája: possessive)
                return Ending(stem, BARE, token[len(stem):])
        if known is not None:
            kept = [c for c in candidates if known(c.stem)]
            if kept:
                return kept[0]
        marked = [c for c in candidates if c.marked]  # NATO-nak, Kováccsal: the spelling says it
        if marked:
            return marked[0]
        if lemma and lemma.casefold() != token.casefold():
            return candidates[0]
        return Ending(token)

    def _lemma_prefix(self, token: str, lemma: str) -> str | None:
        """The lemma as it begins ``token`` (its last vowel lengthened: Európá-ja), if it does and
        something follows it."""
        if len(token) <= len(lemma) or len(lemma) < 2:
            return None
        head = token[: len(lemma)]
        lengthened = lemma[:-1] + self.lengthen.get(lemma[-1], lemma[-1])
        if head.casefold() in (lemma.casefold(), lengthened.casefold()):
            return head[:-1] + lemma[-1] if head[-1] != lemma[-1] else head
        return None

    def endings(self, token: str) -> list[Ending]:
        """Every way ``token`` may be a stem and a case ending, longest ending first."""
        if not token:
            return []
        return self._candidates(token) if self.cases else self._bare_candidates(token)

    def _bare_candidates(self, token: str) -> list[Ending]:
        return [Ending(stem, BARE, token[len(stem):]) for stem in case_stems(token, self.bare_suffixes)]


def _is_acronym(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


@functools.lru_cache(maxsize=None)
def load_inflector(lang: str) -> Inflector:
    """The language's endings: its ``inflection.toml``; else the suffix list of its labels
    (endings found, never carried); else none."""
    if not has_mapping(lang, "inflection.toml"):
        return Inflector(lang, bare_suffixes=LanguagePack.load(lang).inflection_suffixes)
    data = load_toml(lang, "inflection.toml")
    harmony = data.get("harmony", {})
    vowel_class = {}
    for kind in (*harmony.get("classes", ()), "neutral"):
        for char in harmony.get(kind, ""):
            vowel_class[char] = kind
    cases = {}
    for name, spec in data.get("cases", {}).items():
        after = spec.get("after_consonants")
        cases[name] = Case(
            name=name, forms=dict(spec["forms"]), after_vowel=spec.get("after_vowel"),
            after_consonants=(after["ending"], frozenset(after["consonants"])) if after else None,
            assimilates=bool(spec.get("assimilates", False)),
        )
    locative = data.get("locative", {})
    series = {name: tuple(locative[name]) for name in ("inner", "outer") if name in locative}
    acronyms = data.get("acronyms", {})
    stems = data.get("stems", {})
    return Inflector(
        lang=lang, cases=cases, vowel_class=vowel_class, default_class=harmony.get("default", "front"),
        fallback=dict(harmony.get("fallback", {})), lengthen=dict(stems.get("lengthen", {})),
        digraphs=tuple(sorted(stems.get("digraphs", ()), key=len, reverse=True)),
        final_vowel_letters=frozenset(stems.get("final_vowel_letters", ())),
        acronym_hyphen=bool(acronyms.get("hyphen", False)), letter_names=dict(acronyms.get("letter_names", {})),
        series=series, default_series=locative.get("default"), common_noun_series=locative.get("common_noun"),
    )
