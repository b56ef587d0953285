"""Step 2 for Hungarian: sentences, tokens, lemma/POS and finite verbs (paper §4).

Hungarian orthography puts periods where English does not: ordinal numbers ("15.", "2012." in
"2012. március 15-én"), Roman-numeral ordinals ("a XX. században", "II. Rákóczi Ferenc") and many
abbreviations ("stb.", "pl.", "Kr. e."). Such a period stays with its token and does not end the
sentence; the next word being lower case ("március") is the main cue, since Hungarian sentences
start with a capital. Case endings attach with a hyphen after numbers and names ("15-én",
"NASA-nak") and compounds are hyphenated ("Nobel-díj"): each stays one token.

POS and lemma come from a perceptron tagger and suffix-rule lemmatizer trained on NerKor
(``mappings/hu/pos_model.json.gz``, see the README there for accuracy). Capitalization, not the
tagger, is the proper-noun test: Hungarian capitalizes only proper nouns (paper §4).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from wikisilver.resources import mapping_path
from wikisilver.text.base import URL_OR_EMAIL, TextProcessor
from wikisilver.text.tagger import PerceptronTagger, SuffixLemmatizer, load_model

_LOWER = "a-záéíóöőúüűäëïöüçàèìòùâêîôûãõñ"
_UPPER = "A-ZÁÉÍÓÖŐÚÜŰÄËÏÇÀÈÌÒÙÂÊÎÔÛÃÕÑ"
_ROMAN = re.compile(r"[IVXLCDM]+\.")
_ORDINAL = re.compile(r"\d+(?:[.,]\d+)*\.")
# Endings of non-finite verb forms: infinitive (-ni, personal -nom/-nia/...) and converb (-va/-ve).
_NON_FINITE_ENDINGS = (
    "ni", "nia", "nie", "niuk", "niük", "nom", "nod", "nunk", "nünk", "notok", "netek",
    "va", "ve", "ván", "vén",
)
# Finite forms that merely look non-finite ("volna" is a conditional auxiliary).
_FINITE_EXCEPTIONS = frozenset({"volna", "lenne", "nincs", "sincs"})


@functools.lru_cache(maxsize=1)
def _abbreviations() -> tuple[frozenset[str], frozenset[str]]:
    """(all abbreviation tokens, those that may end a sentence) from mappings/hu/abbreviations.txt."""
    tokens: set[str] = set()
    final: set[str] = set()
    for line in mapping_path("hu", "abbreviations.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        parts = [p for p in cells[0].split() if p.endswith(".")]
        tokens.update(parts)
        if len(cells) > 1 and cells[1].strip() == "final":
            final.update(parts)
    return frozenset(tokens), frozenset(final)


def _token_pattern(abbreviations: frozenset[str]) -> re.Pattern:
    alternation = "|".join(re.escape(a) for a in sorted(abbreviations, key=len, reverse=True))
    return re.compile(
        rf"{URL_OR_EMAIL}"
        rf"|(?<!\w)(?:{alternation})(?!\w)"  # stb. pl. Kr. e.
        r"|(?<!\w)[IVXLCDM]+\.(?=\s+\S)"  # Roman ordinal: "XX. század", "II. Rákóczi"
        rf"|\d+(?:[.,]\d+)*\.(?=\s+[{_LOWER}\d(–-])"  # ordinal: "2012. március", "15. század"
        r"|\d+(?:[.,:/]\d+)*(?:%?-\w+)?"  # numbers, with a case ending: "15-én", "50%-os"
        rf"|(?<!\w)[{_UPPER}]\.(?=\s+[{_UPPER}])"  # initials: "J. K. Rowling"
        r"|\w+(?:[-‐]\w+)*"  # words and hyphenated compounds: "Nobel-díjas", "NASA-nak"
        r"|\.{2,}|-{2,}|[^\w\s]"
    )


@functools.lru_cache(maxsize=1)
def _model() -> tuple[PerceptronTagger, SuffixLemmatizer, dict]:
    return load_model(mapping_path("hu", "pos_model.json.gz"))


class HungarianProcessor(TextProcessor):
    """Hungarian: rule-based sentences and tokens, NerKor-trained tagger and lemmatizer."""

    def __init__(self) -> None:
        super().__init__("hu")
        self.abbreviations, self._final_abbreviations = _abbreviations()
        self._token_pattern = _token_pattern(self.abbreviations)
        self._tagger, self._lemmatizer, _ = _model()

    def _period_is_not_final(self, text: str, line_start: int, dot: int, following: str) -> bool:
        word_start = max(text.rfind(" ", line_start, dot), text.rfind("\t", line_start, dot), line_start - 1) + 1
        word = text[word_start : dot + 1].lstrip("\"'„“«(")
        if word in self._final_abbreviations:
            return False
        if word in self.abbreviations or _ROMAN.fullmatch(word):
            return True
        if _ORDINAL.fullmatch(word) and following.isdigit():
            return True  # dates written with periods: "2012. 03. 15."
        return len(word) == 2 and word[0].isupper()

    def annotate(self, tokens: Sequence[str]) -> list[tuple[str, str]]:
        tags = self._tagger.tag(tokens)
        lemmatize = self._lemmatizer.lemmatize
        return [(lemmatize(token, tag), tag) for token, tag in zip(tokens, tags)]

    def is_finite_verb(self, token: str, pos: str, lemma: str) -> bool:
        """A VERB/AUX that is not an infinitive (-ni, -nia, ...) or converb (-va/-ve)."""
        if pos not in ("VERB", "AUX"):
            return False
        low = token.lower()
        return low in _FINITE_EXCEPTIONS or not low.endswith(_NON_FINITE_ENDINGS)

    def is_proper_noun_candidate(self, token: str, pos: str, sentence_initial: bool) -> bool:
        """Capitalization is the test (paper §4); sentence-initially the tagger must say PROPN."""
        if not token[:1].isupper():
            return False
        return not sentence_initial or pos == "PROPN"
