"""Title normalization (wikisilver.titles)."""

from __future__ import annotations

from wikisilver.titles import normalize_title, title_from_uri


def test_titles_are_normalized_as_mediawiki_does() -> None:
    assert normalize_title("abraham_Lincoln") == "Abraham Lincoln"
    assert normalize_title("  New\u00a0York__City ") == "New York City"
    assert normalize_title("Budapest#History") == "Budapest"
    assert normalize_title(":Category:Cities") == "Category:Cities"
    assert normalize_title("a\tb\n c") == "A b c"
    assert normalize_title("") == ""
    assert title_from_uri("<http://dbpedia.org/resource/Foo_(bar)>") == "Foo (bar)"
