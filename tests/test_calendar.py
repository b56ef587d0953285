"""Calendar pages (step 1): titles of years, decades, centuries, months, days and weekdays are O."""

from __future__ import annotations

import pytest

from wikisilver.entities.calendar import calendar_words, is_calendar_title
from wikisilver.resources import load_toml, mapping_path

CALENDAR = {
    "en": [
        "1987", "79", "1987 BC", "1987 BCE", "AD 79", "79 AD", "300s BC", "1980s", "1900s",
        "19th century", "21st century", "11th century", "5th century BC", "1st millennium BC",
        "2nd millennium", "March", "March 1987", "March 15", "15 March", "March 15, 1987",
        "Monday", "Sunday", "March_15",
    ],
    "hu": [
        "1987", "i. e. 300", "Kr. e. 44", "1980-as évek", "1990-es évek", "i. e. 300-as évek",
        "19. század", "i. e. 5. század", "2. évezred", "március", "Március", "március 15.",
        "Március 15.", "1848. március 15.", "hétfő", "Vasárnap",
    ],
    "de": [
        "1987", "300 v. Chr.", "1980er", "19. Jahrhundert", "5. Jahrhundert v. Chr.",
        "2. Jahrtausend", "März", "15. März", "März 1987", "Montag",
    ],
}

NOT_CALENDAR = {
    "en": [
        "Paris", "1987 in film", "1981s", "11st century", "March 32", "Marching", "Mayday",
        "12345", "March of the Penguins", "", "Monday Night Football",
    ],
    "hu": ["Budapest", "1980s", "Március 15", "19th century", "1848-as forradalom"],
    "de": ["1980s", "März 15", "Berlin", "19th century"],
}


@pytest.mark.parametrize("lang", sorted(CALENDAR))
def test_calendar_titles_are_recognized(lang: str) -> None:
    missed = [t for t in CALENDAR[lang] if not is_calendar_title(t, lang)]
    assert missed == []


@pytest.mark.parametrize("lang", sorted(NOT_CALENDAR))
def test_other_titles_are_not_calendar(lang: str) -> None:
    wrong = [t for t in NOT_CALENDAR[lang] if is_calendar_title(t, lang)]
    assert wrong == []


def test_unknown_language_gets_year_and_decade_digits_only() -> None:
    assert is_calendar_title("1987", "xx")
    assert is_calendar_title("1980s", "xx")
    assert not is_calendar_title("March", "xx")
    assert not is_calendar_title("19th century", "xx")
    assert not is_calendar_title("Paris", "xx")


def test_month_names_are_language_specific() -> None:
    assert is_calendar_title("March", "en")
    assert not is_calendar_title("March", "hu")
    assert is_calendar_title("március", "hu")
    assert not is_calendar_title("március", "en")


def test_calendar_words_are_lower_cased_months_and_weekdays() -> None:
    en = calendar_words("en")
    assert {"january", "december", "monday", "sunday"} <= en
    assert len(en) == 19
    hu = calendar_words("hu")
    assert {"március", "hétfő", "vasárnap"} <= hu
    assert calendar_words("xx") == frozenset()


def test_calendar_toml_has_twelve_months_and_seven_weekdays_per_language() -> None:
    languages = sorted(path.parent.name for path in mapping_path().glob("*/calendar.toml"))
    assert {"en", "hu", "de"} <= set(languages)
    for lang in languages:
        words = load_toml(lang, "calendar.toml")
        assert len(words["months"]) == 12, lang
        assert len(words["weekdays"]) == 7, lang
        assert words["grammar"], lang
