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


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aB _\u00a0\t\n#:\u2003x\x1f")), max_size=20))
def test_plain_titles_skip_the_substitution_with_the_same_result(title: str) -> None:
    """normalize_title substitutes space runs only when a title has one to change; the result is
    what substituting always gives."""
    spaces = re.compile(r"[\s_\u00a0]+")
    expected = title.split("#", 1)[0] if "#" in title else title
    expected = spaces.sub(" ", expected).strip()
    if expected.startswith(":"):
        expected = expected[1:].lstrip()
    if expected:
        expected = expected[0].upper() + expected[1:]
    assert normalize_title(title) == expected
