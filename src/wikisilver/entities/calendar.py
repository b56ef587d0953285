"""Step 1: calendar pages, whose links the paper counts as non-entity links (typed O).

Years, decades, centuries, millennia, months, days of the year and weekdays have their own
Wikipedia articles ("1987", "1980s", "19th century", "March 15"; "1848. március 15.",
"19. század"; "XIX secolo", "anni 1970"); a link to one is a date, not a named entity. Each
language's ``calendar.toml`` (in ``mappings/<lang>/``) holds its words and its title grammar:
templates whose slots are filled in with those words (docs/languages.md). A language with words
but no grammar gets :data:`_GENERIC`; a language with neither gets only the language-independent
year and decade patterns.
"""

from __future__ import annotations

import functools
import re

from wikisilver.errors import InputError
from wikisilver.languages import wiki_conventions

# The grammar of a calendar.toml without its own: templates whose slots ({Y}, {M}, …) are filled in
# (spaces match one space: titles are normalized).
_GENERIC = ("{Y}", "{Y} {BC}", "{Y}{DEC}", "{M}", "{M} {YM}", "{M} {D}", "{D} {M}", r"{D}\.? {M} {Y}", "{W}")
# Without any words: a bare year, or digits ending in 0 followed by "s" (1980s), the forms
# that most wikis' titles share.
_DEFAULT = re.compile(r"\d{1,4}|\d{1,3}0s")

# The slots every language has: {Y} year, {YM} year after a month, {D} day of month, {N} number of a
# century/millennium. The word slots come from calendar.toml (:data:`_WORD_SLOTS`), and a
# calendar.toml may add its own as regular expressions (``[slots]``: English ordinals, Roman numerals).
_SLOTS = {
    "Y": r"\d{1,4}",
    # Month-year pages ("March 1987") exist for recent centuries only; "March 32" is no title.
    "YM": r"\d{3,4}",
    "D": r"(?:[1-9]|[12]\d|3[01])",
    "N": r"[1-9]\d?",
}
# calendar.toml key -> its slot: {M} month, {W} weekday, {BC}/{AD} era markers, {C} century,
# {K} millennium word, {DEC} decade suffix (after a year ending in 0).
_WORD_SLOTS = {"months": "M", "weekdays": "W", "before_era": "BC", "common_era": "AD", "century": "C",
               "millennium": "K", "decade_suffix": "DEC"}


def _alternation(words: list[str]) -> str:
    # Longest first, so "BCE" is tried before "BC"; an empty list makes the slot match nothing.
    if not words:
        return r"(?!)"
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


@functools.lru_cache(maxsize=None)
def _words(lang: str) -> dict:
    return wiki_conventions(lang, "calendar.toml")


@functools.lru_cache(maxsize=None)
def _pattern(lang: str) -> re.Pattern[str]:
    words = _words(lang)
    if not words:
        return _DEFAULT
    slots = dict(_SLOTS)
    slots.update((slot, _alternation(words.get(key, []))) for key, slot in _WORD_SLOTS.items())
    # A decade is a year ending in 0: the "0" belongs to the decade slot.
    slots["DEC"] = r"(?<=0)" + slots["DEC"]
    slots.update((name, f"(?:{regex})") for name, regex in words.get("slots", {}).items())
    templates = words.get("grammar", _GENERIC)
    where = f"mappings/{lang}/calendar.toml"

    def fill(slot: re.Match[str]) -> str:
        if slot.group(1) not in slots:
            raise InputError(where, f"unknown slot {{{slot.group(1)}}} in the grammar (known: {', '.join(sorted(slots))})")
        return slots[slot.group(1)]

    alternatives = [re.sub(r"\{(\w+)\}", fill, template) for template in templates]
    try:
        return re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)
    except re.error as exc:
        raise InputError(where, f"the grammar is no regular expression: {exc}") from None


@functools.lru_cache(maxsize=1 << 16)  # asked once per link: popular targets repeat (bounded)
def is_calendar_title(title: str, lang: str) -> bool:
    """Whether ``title`` names a calendar page (year, decade, century, millennium, month, day, weekday)."""
    title = " ".join(title.replace("_", " ").split())
    if not title:
        return False
    return _pattern(lang).fullmatch(title) is not None


def calendar_words(lang: str) -> frozenset[str]:
    """Month and weekday names of a language, lower-cased (empty for an unknown language)."""
    words = _words(lang)
    return frozenset(w.lower() for key in ("months", "weekdays") for w in words.get(key, []))
