"""Step 1: calendar pages, whose links the paper counts as non-entity links (typed O).

Years, decades, centuries, millennia, months, days of the year and weekdays have their own
Wikipedia articles ("1987", "1980s", "19th century", "March 15"; "1848. március 15.",
"19. század"); a link to one is a date, not a named entity. The words of each language live in
``mappings/calendar.toml``; the title shapes are grammar, so they live here as templates filled
in with those words. Languages with words but no grammar here get :data:`_GENERIC`; languages
with neither get only the language-independent year and decade patterns.
"""

from __future__ import annotations

import functools
import re

from wikisilver.resources import load_toml

# Template slots: {Y} year, {YM} year after a month, {D} day of month, {N} number of a
# century/millennium, {ORD} English ordinal, {M} month, {W} weekday, {BC}/{AD} era markers,
# {C} century, {K} millennium word, {DEC} decade suffix. Spaces in templates match one space (titles are normalized).
_GRAMMARS: dict[str, tuple[str, ...]] = {
    "en": (
        "{Y}", "{Y} {BC}", "{Y} {AD}", "{AD} {Y}",
        "{Y}{DEC}", "{Y}{DEC} {BC}", "{Y}{DEC} {AD}",
        "{ORD} {C}", "{ORD} {C} {BC}", "{ORD} {C} {AD}",
        "{ORD} {K}", "{ORD} {K} {BC}", "{ORD} {K} {AD}",
        "{M}", "{M} {YM}", "{M} {D}", "{D} {M}", "{M} {D}, {Y}", "{D} {M} {Y}",
        "{W}",
    ),
    "hu": (
        "{Y}", "{BC} {Y}", "{AD} {Y}",
        "{Y}{DEC}", "{BC} {Y}{DEC}",
        r"{N}\. {C}", r"{BC} {N}\. {C}", r"{N}\. {K}", r"{BC} {N}\. {K}",
        "{M}", r"{M} {D}\.", r"{Y}\. {M}", r"{Y}\. {M} {D}\.",
        "{W}",
    ),
    "de": (
        "{Y}", "{Y} {BC}", "{Y} {AD}",
        "{Y}{DEC}", "{Y}{DEC} {BC}",
        r"{N}\. {C}", r"{N}\. {C} {BC}", r"{N}\. {K}", r"{N}\. {K} {BC}",
        "{M}", r"{D}\. {M}", "{M} {YM}", r"{D}\. {M} {Y}",
        "{W}",
    ),
}
_GENERIC = ("{Y}", "{Y} {BC}", "{Y}{DEC}", "{M}", "{M} {YM}", "{M} {D}", "{D} {M}", r"{D}\.? {M} {Y}", "{W}")
# Without any words: a bare year, or digits ending in 0 followed by "s" (1980s), the forms
# that most wikis' titles share.
_DEFAULT = re.compile(r"\d{1,4}|\d{1,3}0s")

_SLOTS = {
    "Y": r"\d{1,4}",
    # Month-year pages ("March 1987") exist for recent centuries only; "March 32" is no title.
    "YM": r"\d{3,4}",
    "D": r"(?:[1-9]|[12]\d|3[01])",
    "N": r"[1-9]\d?",
    # 1st 2nd 3rd 4th … 11th 12th 13th … 21st: "11st"-style forms are refused.
    "ORD": r"(?!1[1-3](?:st|nd|rd))(?:[1-9]?(?:1st|2nd|3rd)|[1-9]?[04-9]th|1\dth)",
}


def _alternation(words: list[str]) -> str:
    # Longest first, so "BCE" is tried before "BC"; an empty list makes the slot match nothing.
    if not words:
        return r"(?!)"
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


@functools.lru_cache(maxsize=None)
def _words(lang: str) -> dict[str, list[str]]:
    table = load_toml("calendar.toml")
    entry = table.get(lang)
    return dict(entry) if isinstance(entry, dict) else {}


@functools.lru_cache(maxsize=None)
def _pattern(lang: str) -> re.Pattern[str]:
    words = _words(lang)
    if not words:
        return _DEFAULT
    decades = words.get("decade_suffix", [])
    slots = dict(_SLOTS)
    slots.update(
        M=_alternation(words.get("months", [])),
        W=_alternation(words.get("weekdays", [])),
        BC=_alternation(words.get("before_era", [])),
        AD=_alternation(words.get("common_era", [])),
        C=_alternation(words.get("century", [])),
        K=_alternation(words.get("millennium", [])),
        # A decade is a year ending in 0: the "0" belongs to the decade slot.
        DEC=r"(?<=0)" + _alternation(decades),
    )
    templates = _GRAMMARS.get(lang, _GENERIC)
    alternatives = []
    for template in templates:
        alternatives.append(re.sub(r"\{(\w+)\}", lambda m: slots[m.group(1)], template))
    return re.compile("|".join(f"(?:{a})" for a in alternatives), re.IGNORECASE)


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
