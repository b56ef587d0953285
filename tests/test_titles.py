"""Title normalization (wikisilver.titles)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from wikisilver.titles import normalize_title, title_from_uri


def test_titles_are_normalized_as_mediawiki_does() -> None:
    assert normalize_title("abraham_Lincoln") == "Abraham Lincoln"
    assert normalize_title("  New\u00a0York__City ") == "New York City"
    assert normalize_title("Budapest#History") == "Budapest"
    assert normalize_title(":Category:Cities") == "Category:Cities"
    assert normalize_title("a\tb\n c") == "A b c"
    assert normalize_title("") == ""
    assert title_from_uri("<http://dbpedia.org/resource/Foo_(bar)>") == "Foo (bar)"


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ_ :#(),.'é\u00a0\t\n\r\x0b\x0c\x1c\x1f\x7f\x00\u2009\u3000日")), max_size=16))
def test_the_plain_title_path_spaces_as_the_expression_does(title: str) -> None:
    """An ASCII title without control characters skips the white-space expression: the same title."""
    def expected(text: str) -> str:
        text = text.split("#", 1)[0]
        text = re.sub(r"[\s_\u00a0]+", " ", text).strip()
        text = text[1:].lstrip() if text.startswith(":") else text
        return text[:1].upper() + text[1:]

    assert normalize_title(title) == expected(title)
