"""Property-based tests: random and mutated wikitext through the cleaner and the labeller.

No exception escapes; every token of every kept sentence appears in the labeller's input text (the
clean text), in order. (Stray markup inside a word is dropped by the cleaner, so words are not
checked against the raw wikitext.)
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from wikisilver.labels import Labeller
from wikisilver.records import Article, EntityType, TargetInfo
from wikisilver.text import get_processor
from wikisilver.wikitext import clean_wikitext

LEAD = (
    "{{Infobox person|name=Ada}}\n'''Ada Lovelace''' (10 December 1815 – 27 November 1852) was an "
    "[[England|English]] mathematician.<ref>{{cite book|title=X}}</ref> She worked with "
    "[[Charles Babbage]] on the [[Analytical Engine]] in [[London]].\n\n"
    "[[File:Ada.jpg|thumb|Ada in [[1840]]]]\n== Life ==\nLovelace met Babbage in June 1833. "
    "Her father was [[Lord Byron]].\n{| class=wikitable\n| a || b\n|}\n[[Category:Mathematicians]]"
)
PIECES = ["[[", "]]", "{{", "}}", "|", "'''", "''", "<ref>", "</ref>", "<!--", "-->", "\n", "\n\n", "==",
          "{|", "|}", "[[File:", "[[Category:", "#", "*", ":", " ", ".", "Ada", "London", "ő", "—"]

TARGETS = {
    "England": TargetInfo("England", EntityType("England", "Country", "LOC", "GPE", "types"), True),
    "Charles Babbage": TargetInfo("Charles Babbage", EntityType("Charles Babbage", "Scientist", "PER", "PERSON", "types"), True),
    "London": TargetInfo("London", EntityType("London", "City", "LOC", "GPE", "types"), True),
    "Lord Byron": TargetInfo("Lord Byron", EntityType("Lord Byron", "Writer", "PER", "PERSON", "types"), True),
}


def mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    for position, delete, insert in edits:
        at = position % (len(text) + 1)
        text = text[:at] + insert + text[at + delete:]
    return text


def check_tokens_in_order(text: str, tokens) -> None:
    position = 0
    for token in tokens:
        found = text.find(token, position)
        assert found >= 0, f"token {token!r} not in the input after position {position}"
        position = found + len(token)


def label(wikitext: str, lang: str):
    clean = clean_wikitext(wikitext, lang=lang, max_seconds=None)
    labeller = Labeller(lang, get_processor(lang))
    article = Article(1, "Ada Lovelace", clean.text, clean.links)
    return clean, labeller.label_article(article, TARGETS)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 8), st.sampled_from(PIECES)), max_size=12),
       st.sampled_from(["en", "hu"]))
def test_mutated_wikitext_never_raises_and_tokens_come_from_the_input(edits, lang):
    wikitext = mutate(LEAD, edits)
    clean, result = label(wikitext, lang)
    for sentence in result.sentences:
        check_tokens_in_order(clean.text, sentence.tokens)
        assert len(sentence.tokens) == len(sentence.conll_tags) == len(sentence.pos) == len(sentence.lemmas)
        assert "UNK" not in "".join(sentence.conll_tags)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES + list("abc XYZ,.!?()0123456789")), max_size=120).map("".join))
def test_random_wikitext_never_raises(wikitext):
    clean, result = label(wikitext, "en")
    for sentence in result.sentences:
        check_tokens_in_order(clean.text, sentence.tokens)
