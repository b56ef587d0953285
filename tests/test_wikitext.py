"""Step 2: wikitext -> clean text + link spans (wikisilver.wikitext)."""

from __future__ import annotations

import bz2
import collections
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import ENWIKI_EXTRACT, shared_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wikisilver.wikitext.templates import GAP

from wikisilver import dump
from wikisilver.records import Page
from wikisilver.wikitext import (
    CleanText,
    WikitextBudgetError,
    clean_wikitext,
    is_disambiguation,
    redirect_target,
    template_names,
)

LEAD = """{{Short description|Political philosophy}}
{{Infobox political ideology
| name = Anarchism
| image = {{Flag|black}}
| founders = [[William Godwin]]
}}
'''Anarchism''' is a [[political philosophy]] that advocates [[Self-governance|self-governed]] \
societies<ref name="a">{{cite web |url=http://example.org |title=Anarchism}}</ref> based on \
[[voluntary association|voluntary]] institutions.<ref>Kropotkin, p. 3.</ref><!-- keep short -->
It opposes [[State (polity)|the state]].<ref name="a"/>

[[File:Paris Commune barricade.jpg|thumb|left|A barricade of the [[Paris Commune]], 1871]]
== History ==
=== Origins ===
The term comes from [[Ancient Greek]].
{| class="wikitable"
|-
! Year !! Event
|-
| 1840 || [[Pierre-Joseph Proudhon|Proudhon]]
|}
__NOTOC__
[[Category:Anarchism| ]]
[[Category:Political ideologies]]
[[de:Anarchismus]]
[[hu:Anarchizmus]]
"""


def clean(wikitext: str, **kwargs) -> CleanText:
    result = clean_wikitext(wikitext, **kwargs)
    assert_invariants(result)
    return result


def assert_invariants(result: CleanText) -> None:
    previous_end = 0
    for link in result.links:
        assert result.text[link.start:link.end] == link.anchor
        assert link.anchor and link.anchor == link.anchor.strip()
        assert previous_end <= link.start < link.end
        previous_end = link.end
    assert "  " not in result.text
    assert "\n\n\n" not in result.text
    assert result.text == result.text.strip()


def spans(result: CleanText) -> list[tuple[str, str]]:
    return [(link.anchor, link.target) for link in result.links]


# --- the article lead ----------------------------------------------------------------------


def test_article_lead_keeps_prose_and_links_only() -> None:
    result = clean(LEAD)
    assert result.text == (
        "Anarchism is a political philosophy that advocates self-governed societies based on "
        "voluntary institutions.\nIt opposes the state.\n\n"
        "The term comes from Ancient Greek."
    )
    assert spans(result) == [
        ("political philosophy", "Political philosophy"),
        ("self-governed", "Self-governance"),
        ("voluntary", "Voluntary association"),
        ("the state", "State (polity)"),
        ("Ancient Greek", "Ancient Greek"),
    ]


def test_file_with_nested_link_is_dropped_entirely() -> None:
    result = clean("Before.\n[[File:A.jpg|thumb|The [[Paris Commune]] in 1871]] After [[Image:B.png]].")
    assert "Paris Commune" not in result.text
    assert result.text == "Before.\nAfter ."
    assert result.links == ()


def test_templates_nested_and_parameters_are_dropped() -> None:
    text = "A {{a|{{b|{{{1|x}}}}}}}B {{c\n|d={{e}}\n}}C{{f}}}} D"
    # unknown templates inside a line of prose leave a gap mark (the labeller flags the sentence)
    assert clean(text).text == f"A {GAP} B {GAP} C {GAP} D"


def test_unclosed_template_braces_are_removed_not_the_page() -> None:
    assert clean("Start {{broken| text [[Link]] end.").text == "Start broken| text Link end."


def test_tables_nested_are_dropped_and_text_around_kept() -> None:
    text = "Before.\n{|\n|-\n| a\n{|\n| inner\n|}\n| b\n|}\nAfter."
    assert clean(text).text == "Before.\nAfter."


def test_refs_comments_and_dropped_tags() -> None:
    text = (
        'Text<ref group="n">note {{cite}}</ref> more<ref name=x /> <!-- hidden --> '
        "<math>x^2</math>end <gallery>\nA.jpg|cap\n</gallery> <code>ls</code><pre>raw</pre>ok."
    )
    assert clean(text).text == f"Text more {GAP} end ok."  # a formula in prose leaves a gap mark


def test_formulas_that_read_as_text_are_written_out() -> None:
    """Arithmetic mean's "<math>~\\omega~</math>", "<math>{\\alpha}</math>", "<math>2\\pi</math>":
    single symbols read as text; sub- and superscripts and fractions (Analysis of variance's
    "<math>y_{i,j}</math>") do not, and leave a gap mark."""
    text = r"W <math>~\omega~</math>, A <math>{\alpha}</math>, C <math>2\pi r</math>, N <math>a \times b</math>."
    assert clean(text).text == "W ω, A α, C 2π r, N a × b."
    for tex in (r"y_{i,j}", r"\frac{1}{2}", r"k^{th}", r"\bar{x}"):
        assert clean(f"The value <math>{tex}</math> is small.").text == f"The value {GAP} is small."


def test_unclosed_comment_runs_to_the_end() -> None:
    assert clean("Kept. <!-- never closed [[Foo]]").text == "Kept."


def test_nowiki_content_is_plain_text() -> None:
    result = clean("Write <nowiki>[[Foo]] and {{bar}}</nowiki> literally.")
    assert result.text == "Write [[Foo]] and {{bar}} literally."
    assert result.links == ()


def test_html_tags_stripped_keeping_inner_text() -> None:
    result = clean('A <span style="x">red <b>[[Rose]]</b></span> and<br/>more &amp; &ndash; x<sup>2</sup>.')
    assert result.text == "A red Rose and\nmore & – x2."
    assert spans(result) == [("Rose", "Rose")]


def test_headings_lists_and_paragraphs() -> None:
    text = "Intro line.\n\n== Section ==\n* first [[item]]\n** second\n# third\n: indented\n; term\n\n\n\nLast."
    result = clean(text)
    assert result.text == "Intro line.\n\nfirst item\nsecond\nthird\nindented\nterm\n\nLast."
    assert spans(result) == [("item", "Item")]


def test_bold_italic_quotes_removed_apostrophes_kept() -> None:
    assert clean("'''Bold''' ''it'' '''''both''''' L''''Amour''' and O'Brien").text == (
        "Bold it both L'Amour and O'Brien"
    )


@given(st.text(alphabet="'a ", max_size=40))
def test_quotes_stripped_as_the_expression_strips_them(text: str) -> None:
    """Without a run of four quotes, str.replace takes out what the expression does; with one, the
    expression and its callback do the work (bold italic, an apostrophe before bold)."""
    from wikisilver.wikitext.markup import _QUOTES, _quotes, _strip_quotes

    assert _strip_quotes(text) == _QUOTES.sub(_quotes if "''''" in text else "", text)


def test_external_links_keep_label_bare_urls_dropped() -> None:
    result = clean("See [http://example.org the site] or http://example.org/x or [https://y.org].")
    assert result.text == "See the site or or ."
    assert result.links == ()


def test_behaviour_switches_dropped() -> None:
    assert clean("__NOTOC__Text.__NOEDITSECTION__").text == "Text."


# --- links -----------------------------------------------------------------------------------


def test_link_trail_joins_the_anchor() -> None:
    result = clean("Two [[bus]]es and [[Foo|bar]]s, [[car]]'s.")
    assert spans(result) == [("buses", "Bus"), ("bars", "Foo"), ("car", "Car")]


def test_link_trail_uses_the_language_letters() -> None:
    assert spans(clean("A [[Város]]ában él.", lang="hu")) == [("Városában", "Város")]
    assert spans(clean("A [[Város]]ában él.", lang="en")) == [("Város", "Város")]


def test_pipe_trick() -> None:
    result = clean("[[Foo (bar)|]] and [[Paris, Texas|]] and [[Wikipedia:Manual of Style|]]")
    assert result.text == "Foo and Paris and Manual of Style"
    assert spans(result) == [("Foo", "Foo (bar)"), ("Paris", "Paris, Texas")]


def test_fragments_sections_and_underscores() -> None:
    result = clean("[[New_York_City#History|NYC]] [[#Origins|origins]] [[#Later]] [[foo bar]]")
    assert result.text == "NYC origins Later foo bar"
    assert spans(result) == [("NYC", "New York City"), ("foo bar", "Foo bar")]


def test_colon_and_interwiki_links_keep_text_without_link() -> None:
    result = clean("[[:Category:Anarchism|category]] [[w:Foo|wiki]] [[wikt:bus|bus]] [[:de:Berlin|German]] [[:Foo]]")
    assert result.text == "category wiki bus German Foo"
    assert spans(result) == [("Foo", "Foo")]


def test_interlanguage_and_category_links_are_dropped() -> None:
    assert clean("Text.[[de:Anarchismus]][[zh-yue:X]][[Category:A|B]][[Kategória:B]]", lang="hu").text == "Text."


def test_empty_anchor_is_not_a_link() -> None:
    result = clean("a [[Foo|<span> </span>]] [[|x]] [[ ]] [[#]] b")
    assert result.links == ()
    assert result.text.startswith("a ") and result.text.endswith(" b")


def test_siteinfo_namespaces_are_merged() -> None:
    namespaces = {6: "Fichier", 14: "Catégorie", 4: "Wikipédia"}
    result = clean("[[Fichier:X.jpg|cap]]A [[Wikipédia:Aide|aide]] [[Catégorie:Y]]B", namespaces=namespaces)
    assert result.text == "A aide B"
    assert result.links == ()


MRWIKI = "wikidumps/mrwiki-truncated-100k.xml.xz"  # Marathi: no table in mappings/wikitext.toml


def test_local_file_and_category_links_vanish_in_a_wiki_without_a_table() -> None:
    path = str(shared_file(MRWIKI))
    page = next(p for p in dump.iter_pages(path) if isinstance(p, Page) and p.title == "वसंत पंचमी")
    assert "[[चित्र:Palas Red.JPG|thumb|200px|right|वसंत ऋतूत [[पळस|पळसाला]] आलेला बहर.]]" in page.text
    assert "[[वर्ग:शेती]]" in page.text
    result = clean(page.text, lang="mr", namespaces=dump.wiki_namespaces([path]))
    assert result.text.startswith("वसंत पंचमी ही शिशिर ऋतूमध्ये येणारी माघ शुद्ध पंचमी होय.")
    assert "thumb" not in result.text and "पळसाला" not in result.text and "वर्ग:" not in result.text
    assert not any(link.target.startswith(("चित्र:", "वर्ग:")) or link.anchor == "पळसाला" for link in result.links)
    assert len(result.links) > 20


def test_link_anchor_with_markup() -> None:
    result = clean("The [[Foo|''Big'' <small>one</small>]] and [[AT&amp;T]].")
    assert spans(result) == [("Big one", "Foo"), ("AT&T", "AT&T")]


def test_hungarian_localized_namespaces() -> None:
    text = "[[Fájl:Berlin.jpg|bélyegkép|A [[Reichstag]] épülete]]'''Berlin''' [[Németország]] fővárosa.[[Kategória:Németország városai]]"
    result = clean(text, lang="hu")
    assert result.text == "Berlin Németország fővárosa."
    assert spans(result) == [("Németország", "Németország")]


def test_long_paragraph_is_parsed_in_pieces_without_splitting_links() -> None:
    sentence = "Some text [[Foo bar|baz qux]] and [[File:X.jpg|thumb|a [[Nested]] caption]] more. "
    result = clean(sentence * 600)  # ~50,000 characters in one paragraph
    assert len(result.links) == 600
    assert {link.anchor for link in result.links} == {"baz qux"}
    assert "Nested" not in result.text and "\n" not in result.text


# --- budget ----------------------------------------------------------------------------------


def test_page_over_the_size_budget_raises() -> None:
    with pytest.raises(WikitextBudgetError, match="over the budget"):
        clean_wikitext("x" * 101, max_chars=100)


def test_time_budget_is_checked() -> None:
    with pytest.raises(WikitextBudgetError, match="time budget"):
        clean_wikitext(LEAD, max_seconds=0.0)
    assert clean_wikitext(LEAD, max_seconds=None).text.startswith("Anarchism")


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(["{", "}", "{{", "}}", "{{{", "}}}", "{{{{{", "}}}}}", "a", " ", "|"]), max_size=30)
       .map("".join))
def test_brace_spans_in_c_are_the_loops(text: str) -> None:
    """The C matching of template braces gives the Python loop's spans, and the same budget error."""
    from wikisilver.wikitext import markup

    if markup._scan is None:
        pytest.skip("wikisilver.text._scan was not built (no C compiler at install): the loop alone")
    compiled = markup._scan
    try:
        markup._scan = None
        expected = markup._brace_spans(text)
    finally:
        markup._scan = compiled
    assert markup._brace_spans(text) == expected
    assert compiled.brace_spans("{{ " * 3, 2) is None and compiled.brace_spans("{{ " * 2, 2) == ([], [(0, 2), (3, 5)])


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(["=", "==", " ", "\t", "|", "!", "-", "----", "*", "#", ":", ";", "a", "\n", "\r",
                                 "\u2028", "é"]), max_size=30).map("".join))
def test_line_markup_in_c_is_the_expressions(text: str) -> None:
    from wikisilver.wikitext import markup

    if markup._scan is None:
        pytest.skip("wikisilver.text._scan was not built (no C compiler at install): the expression alone")
    assert markup._scan.line_markup(text) == [m.span() for m in markup._LINE_MARKUP.finditer(text)]
    assert markup._strip_line_markup(text) == markup._LINE_MARKUP.sub("", text)


def test_absurd_template_nesting_raises_budget_error() -> None:
    with pytest.raises(WikitextBudgetError, match="nested"):
        clean_wikitext("{{a|" * 200 + "x" + "}}" * 200)


# --- page-level questions --------------------------------------------------------------------


@pytest.mark.parametrize(
    "wikitext, lang, expected",
    [
        ("#REDIRECT [[Foo bar#History]]", "en", "Foo bar"),
        ("#redirect:[[foo_bar]]\n{{R from move}}", "en", "Foo bar"),
        ("  #REDIRECT [[AT&amp;T]]", "en", "AT&T"),
        ("#ÁTIRÁNYÍTÁS [[Budapest]]", "hu", "Budapest"),
        ("#átirányítás [[Budapest]]", "hu", "Budapest"),
        ("#WEITERLEITUNG [[Berlin]]", "de", "Berlin"),
        ("'''Foo''' is #REDIRECT [[X]]", "en", None),
        ("#REDIRECT [[]]", "en", None),
        ("#ÁTIRÁNYÍTÁS [[Budapest]]", "en", None),
    ],
)
def test_redirect_target(wikitext: str, lang: str, expected: str | None) -> None:
    assert redirect_target(wikitext, lang) == expected


@pytest.mark.parametrize(
    "wikitext, lang, expected",
    [
        ("'''Mercury''' may refer to:\n* [[Mercury (planet)]]\n{{disambiguation}}", "en", True),
        ("{{Disambig|geo}}", "en", True),
        ("{{dab}}", "en", True),
        ("{{hndis|Smith, John}}", "en", True),
        ("{{geodis}}", "en", True),
        ("{{Set index article|ship}}", "en", True),
        ("{{Template:Disambiguation}}", "en", True),
        ("text __DISAMBIG__", "en", True),
        ("x\n[[Category:Disambiguation pages]]", "en", True),
        ("'''Mercury''' is a planet.{{Infobox planet}}[[Category:Planets]]", "en", False),
        ("See [[Disambiguation]] and {{Disambiguation needed}}", "en", False),
        ("{{egyért}}", "hu", True),
        ("{{Egyért2|x}}", "hu", True),
        ("x [[Kategória:Egyértelműsítő lapok]]", "hu", True),
        ("{{egyért}}", "en", False),
        ("{{Begriffsklärung}}", "de", True),
        # a category as a page may write it: any case, "_" or several blanks for a space, a sort key
        ("x [[category :  disambiguation_PAGES|Mercury]]", "en", True),
        ("x [[Category:All  article\tdisambiguation pages]]", "en", True),
        ("x [[Κατηγορία:ΑΠΟΣΑΦΉΝΙΣΗ]]", "el", True),
        ("x [[Category:Disambiguation]] pages", "en", False),
        ("Disambiguation pages [[Category:Planets]]", "en", False),
    ],
)
def test_is_disambiguation(wikitext: str, lang: str, expected: bool) -> None:
    assert is_disambiguation(wikitext, lang) is expected


def test_template_names_top_level_and_nested_in_page_order() -> None:
    assert template_names(LEAD) == ["Short description", "Infobox political ideology", "Flag", "Cite web"]


def test_template_names_skip_parser_functions_magic_words_and_parameters() -> None:
    text = (
        "{{#if:x|{{Foo}}}}{{DEFAULTSORT:Bar}}{{PAGENAME}}{{{1|{{infobox_settlement\n|a=b}}}}}"
        "{{ Template:Baz }}{{subst:qux|y}}{{Vorlage:Zed}}{{foo}}{{lc:X}}<!-- {{Hidden}} -->"
    )
    assert template_names(text) == ["Foo", "Infobox settlement", "Baz", "Qux", "Zed"]


# --- never raises: random and mutated wikitext ------------------------------------------------

FRAGMENTS = [
    "[[", "]]", "|", "{{", "}}", "{{{", "}}}", "{|", "|}", "\n", "\n\n", "'''", "''", "<ref>", "</ref>",
    "<ref name=a/>", "<!--", "-->", "File:", "Category:", "de:", ":", "#", "*", ";", "=", "==",
    "foo", "Bar (baz)", " ", "es", "http://x.org/y", "[", "]", "<nowiki>", "</nowiki>", "&amp;",
    "&#x110000;", "&nbsp;", "<br/>", "<b>", "</b>", "__NOTOC__", "é", "ő", "\t", "(", ")", ";",
    "<math>", "</math>", "<", ">", "&", "\u00a0", "\r\n",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=5)), max_size=60))
def test_random_markup_never_raises_and_keeps_invariants(parts: list[str]) -> None:
    result = clean("".join(parts), max_seconds=None)
    assert "{{" not in result.text or "<nowiki>" in "".join(parts)


@pytest.mark.parametrize("markup", ["{[[{", "a{[[b{]]}", "[{[[{[[{}]", "}}[[{{"])
def test_broken_brackets_do_not_meet_as_new_marks(markup: str) -> None:
    """Removing a stray ``[[`` must not leave two braces that read as a template's ``{{``."""
    text = clean(markup, max_seconds=None).text
    assert "{{" not in text and "[[" not in text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(LEAD)), st.integers(0, 12), st.sampled_from(FRAGMENTS)), max_size=8))
def test_mutated_article_never_raises_and_keeps_invariants(edits: list[tuple[int, int, str]]) -> None:
    text = LEAD
    for position, cut, insert in edits:
        text = text[:position] + insert + text[position + cut:]
    result = clean(text, lang="hu", max_seconds=None)
    previous_end = 0
    for link in result.links:  # spans index the text, in order, never overlapping, never empty
        assert previous_end <= link.start < link.end <= len(result.text), (link, len(result.text))
        assert result.text[link.start:link.end] == link.anchor
        previous_end = link.end
    # markup never survives as text, except what <nowiki> shows literally ("<nowiki>[[</nowiki>" is "[[")
    assert ("[[" not in result.text and "{{" not in result.text) or "<nowiki>" in text
    template_names(text)
    is_disambiguation(text, "hu")
    redirect_target(text, "hu")


# --- real pages ------------------------------------------------------------------------------


def _pages(path: Path) -> Iterator[tuple[str, int, str]]:
    with bz2.open(path) as handle:
        for _, element in ET.iterparse(handle):
            if element.tag.endswith("}page"):
                yield (
                    element.findtext("{*}title") or "",
                    int(element.findtext("{*}ns") or 0),
                    element.findtext("{*}revision/{*}text") or "",
                )
                element.clear()


@lru_cache(maxsize=None)
def _articles(relative: str, lang: str) -> dict[str, tuple[str, CleanText]]:
    out = {}
    for title, ns, text in _pages(shared_file(relative)):
        if ns == 0 and not redirect_target(text, lang):
            out[title] = (text, clean_wikitext(text, lang=lang))
    return out


def _assert_clean(title: str, result: CleanText) -> None:
    assert_invariants(result)
    for leftover in ("{{", "}}", "[[", "]]", "|}", "{|", "<ref", "</ref", "<!--", "__NOTOC__"):
        assert leftover not in result.text, f"{title}: {leftover!r} left in the text"


@pytest.mark.slow
def test_enwiki_extract_every_article_is_clean() -> None:
    articles = _articles(ENWIKI_EXTRACT, "en")
    assert len(articles) == 106
    for title, (_, result) in articles.items():
        _assert_clean(title, result)
    assert sum(len(result.links) for _, result in articles.values()) > 20_000


def test_enwiki_anarchism_lead_and_links() -> None:
    _, result = _articles(ENWIKI_EXTRACT, "en")["Anarchism"]
    assert result.text.startswith(
        "Anarchism is a political philosophy that advocates self-governed societies based on "
        "voluntary institutions."
    )
    assert spans(result)[:3] == [
        ("political philosophy", "Political philosophy"),
        ("self-governed", "Self-governance"),
        ("stateless societies", "Stateless society"),
    ]


def test_enwiki_abraham_lincoln_lead_and_links() -> None:
    wikitext, result = _articles(ENWIKI_EXTRACT, "en")["Abraham Lincoln"]
    # {{IPAc-en|…}} renders (mappings/templates.toml), as on the page
    assert result.text.startswith("Abraham Lincoln (ˈeɪbrəhæm ˈlIŋkən; February 12, 1809 – April 15, 1865) was the 16th President")
    targets = {link.target for link in result.links}
    assert {"American Civil War", "Hodgenville, Kentucky", "Whig Party (United States)"} <= targets
    assert not any(target.startswith(("File:", "Category:")) for target in targets)
    assert "Infobox officeholder" in template_names(wikitext)


def test_enwiki_disambiguation_pages() -> None:
    found = {
        title
        for title, ns, text in _pages(shared_file(ENWIKI_EXTRACT))
        if ns == 0 and is_disambiguation(text)
    }
    assert {"Austin (disambiguation)", "Asia Minor (disambiguation)"} <= found
    assert "Anarchism" not in found and "Abraham Lincoln" not in found


def test_huwiki_berlin() -> None:
    articles = _articles("wikidumps/huwiki-minidump.xml.bz2", "hu")
    wikitext, result = articles["Berlin"]
    _assert_clean("Berlin", result)
    assert result.text.startswith("Berlin Németország fővárosa, egyben tartományi rangú városállama")
    assert spans(result)[:2] == [("Németország", "Németország"), ("fővárosa", "Főváros")]
    assert len(result.links) > 600
    assert not any(link.target.startswith(("Fájl:", "Kategória:")) for link in result.links)
    assert "Német település infobox" in template_names(wikitext)
    assert not is_disambiguation(wikitext, "hu")


# --- the one speed path: plain-link prose split without the parser, rendered the same ---------

LINK_FRAGMENTS = [
    "[[Foo]]", "[[Foo|bar]]", "[[Foo (bar)|]]", "[[Foo|  ]]", "[[:Category:X|y]]", "[[Category:X]]",
    "[[de:Anarchismus]]", "[[#History|history]]", "[[wikt:word]]", "[[ Foo  bar |baz  qux]]",
    "[[File:x.jpg|thumb|a [[Paris]] caption]]", "mailto:", "Tel:", "hotel:", "s", "ing", "-ban",
    "Note: ", "12:30", " / ", "//", "\n* ", "\n: ", "\n;", "\n----", "\n== H ==", "\u00a0", "&amp;",
    "&nbsp;", "&NBSP;", "&nbsp", "[[Image:y.png|left|upright=1.2|A [[b|c]] d [[e]]]]", "[[Category:Z|k [[x]]]]",
    "[[File:", "[[Kategória:Z]]", "[[Fájl:a.svg|b [[c]]|d]]", "[[Foo|a|b]]", "[[Foo|a [[b]] c]]",
    "[[de:X|y [[z]]]]", "[[:File:x.png|a [[b]]]]", "|thumb|", "[[ ]]", "[[b| ]]", "[[x.ogg|y [[z]]]]",
    "<sub>2</sub>", "<sup>n</sup>", "<sub>", "</sup>", "<sup>a b</sup>", "<SUB>2</SUB>", "<sub>x</sup>", "<sub></sub>",
]


def _rendered_both_ways(chunk: str, lang: str):
    """(the parser's rendering, the plain-link rendering) of a chunk, or None when the chunk has
    markup other than plain links (then the parser alone renders it)."""
    import mwparserfromhell

    from wikisilver.wikitext.builder import Builder
    from wikisilver.wikitext.language import language_data
    from wikisilver.wikitext.plain_links import plain_link_pieces

    parsed, plain = Builder(language_data(lang)), Builder(language_data(lang))
    pieces = plain_link_pieces(chunk, plain.drops)
    if pieces is None:
        return None
    parsed.nodes(mwparserfromhell.parse(chunk, skip_style_tags=True).nodes)
    plain.pieces(pieces)
    return ("".join(parsed.parts), parsed.links), ("".join(plain.parts), plain.links)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from([" ", "\n", "\t", "\r", "\x0b", "\x0c", "\xa0", "\u2009", "\u3000", "\x1c",
                                          "\x85", "a", "é", "_", "."]), max_size=30))
def test_changed_space_finds_what_the_two_alternatives_find(text: str) -> None:
    import re

    from wikisilver.wikitext.clean import _CHANGED_SPACE

    plain = re.compile(r"\s{2,}|[^\S \n]")
    assert [m.span() for m in _CHANGED_SPACE.finditer(text)] == [m.span() for m in plain.finditer(text)]
    assert [m.span() for m in _CHANGED_SPACE.finditer(text, 1, len(text) - 1)] == [
        m.span() for m in plain.finditer(text, 1, len(text) - 1)]


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=st.sampled_from([" ", "\n", "\t", "\r", "\x0b", "\x0c", "\xa0", "\u2009", "\u3000", "\x1c",
                                          "\x85", "a", "é", "_", "."]), max_size=30))
def test_changed_space_scanned_in_c_as_the_expression_finds_it(text: str) -> None:
    from wikisilver.wikitext import clean

    if clean._scan is None:
        pytest.skip("wikisilver.text._scan was not built (no C compiler at install): the expression alone")
    for start, end in ((0, len(text)), (1, len(text) - 1), (2, 7)):
        assert clean._scan.space_runs(text, start, end) == [
            m.span() for m in clean._CHANGED_SPACE.finditer(text, start, end)]


# What the plain-link path took for markup before it looked for schemes only before colons.
_MARKUP_AS_ONE_EXPRESSION = r"[\[\]{}<>&\x00]|//|(?i:bitcoin|geo|magnet|mailto|news|sips?|sms|tel|urn|xmpp)(?=:)"


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(["mailto", "MailTo", "ſms", "SIPS", "sip", "tel", "hotel", "geo", "bitcoin", "xmpp",
                                 "news", "urn", "magnet", ":", "::", "/", "//", " ", "a", "K", "İ", "ı", "{", "&", "\x00",
                                 "\n"]) | st.text(max_size=3), max_size=12))
def test_markup_is_found_as_one_expression_finds_it(parts: list[str]) -> None:
    import re

    from wikisilver.wikitext.plain_links import _has_markup

    text = "".join(parts)
    assert _has_markup(text) == (re.search(_MARKUP_AS_ONE_EXPRESSION, text) is not None), text


@pytest.mark.slow
def test_plain_link_pieces_render_as_the_parser() -> None:
    """Every prose chunk of the English extract, and random mixtures of link-like fragments: where
    the plain-link path takes a chunk, it renders the text and links the parser would."""
    import random

    from wikisilver.wikitext.markup import prepass

    rng = random.Random(7)
    alphabet = FRAGMENTS + LINK_FRAGMENTS + ["a", "B", " ", "é", "\n", ":", "|", "]", "["]
    chunks = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(3000)]
    for _, ns, text in _pages(shared_file(ENWIKI_EXTRACT)):
        if ns == 0 and not text.lstrip().lower().startswith("#redirect"):
            chunks.extend(prepass(text, None).split("\n\n"))
    taken, shapes = 0, collections.Counter()
    for chunk in chunks:
        for lang in ("en", "hu"):
            both = _rendered_both_ways(chunk, lang)
            if both is not None:
                taken += 1
                shapes.update(shape for shape in ("[[File:", "[[Image:", "&nbsp;", "<sub>", "<sup>") if shape in chunk)
                assert both[0] == both[1], chunk
    assert taken > len(chunks) / 2  # the path is taken for most real prose
    assert min(shapes.values()) > 50 and len(shapes) == 5, shapes  # with captions of links, spaces, formulas


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(list("*#:;=- \t\n\ra[]") + ["----", "\n "]), max_size=20).map("".join))
def test_line_markup_is_found_at_line_starts_as_the_expression_finds_it(chunk: str) -> None:
    from wikisilver.wikitext.plain_links import _has_line_markup

    assert _has_line_markup(chunk) == bool(re.search(r"(?:\A|\n)[ \t]*(?:[*#:;=]|-{4})", chunk))


def test_inline_templates_render_from_the_table() -> None:
    """Real lines of the shared English extract (Alaska, Alberta, Alchemy, Algeria)."""
    assert clean("Alaska is the largest state in land area at {{convert|663,268|sqmi|km2|0}}, over twice the size of [[Texas]].").text == (
        "Alaska is the largest state in land area at 663,268 sq mi, over twice the size of Texas."
    )
    result = clean("Its motto is ''{{Lang|la|[[A Mari Usque Ad Mare]]}}'' (From sea to sea).")
    assert result.text == "Its motto is A Mari Usque Ad Mare (From sea to sea)." and result.links[0].target == "A Mari Usque Ad Mare"
    assert clean("After {{sc|ad}}&nbsp;400, Greek alchemical writers wrote.{{Citation needed|date=September 2015}}").text == (
        "After ad 400, Greek alchemical writers wrote."
    )
    assert clean("It opened on {{Start date|2003|6|26}} in the {{nowrap|Arab-Berber{{ref label|Amazigh|a|}}}} town.").text == (
        "It opened on June 26, 2003 in the Arab-Berber town."
    )
    assert clean("Berlin {{Start date|1237|10|28}} óta város.", lang="hu").text == "Berlin 1237. október 28. óta város."


def test_inline_templates_are_named_as_mediawiki_resolves_them() -> None:
    """``{{Template:Convert|…}}``, ``{{subst:convert|…}}`` and ``{{Sablon:…}}`` are the templates
    without the prefix (as infobox typing resolves them): rendered, or silent, the same."""
    plain = clean("The lake is {{convert|25|ft|m}} deep.{{Citation needed|date=May 2020}}").text
    assert plain == "The lake is 25 ft deep."
    assert clean("The lake is {{Template:Convert|25|ft|m}} deep.{{Template:Citation needed|date=May 2020}}").text == plain
    assert clean("The lake is {{subst:convert|25|ft|m}} deep.{{safesubst:Citation_needed|date=May 2020}}").text == plain
    assert clean("Berlin {{Sablon:Start date|1237|10|28}} óta város.", lang="hu").text == "Berlin 1237. október 28. óta város."


def test_block_layout_tags_never_reach_the_text() -> None:
    """Alkali metal: a <div> opened before a table and closed in a later paragraph."""
    text = 'is limited.\n\n<div style="float: right; margin: 1px; font-size:85%;">\n{| class="wikitable"\n|x\n|}\n\nMore.\n</div>\n\nEnd.'
    assert clean(text).text == "is limited.\n\nMore.\n\nEnd."


def test_templates_on_a_line_of_their_own_leave_no_gap() -> None:
    assert clean("{{Use dmy dates}}{{Infobox country|name=X}}\n{{main|Foo}}\nText here.").text == "Text here."


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["<nowiki>", "</nowiki>", "<NoWiki/>", "<nowiki >", "</NOWIKI>", "<n", "<N", "nowiki",
                                 "< nowiki>", "<", "/", ">", "[[a]]", "{{b}}", "x", " ", "\n", "<noinclude>"]),
                max_size=20))
def test_nowiki_prefilter_changes_nothing(parts: list[str]) -> None:
    # _escape_nowiki returns a page with no "<n"/"<N" as it is: such a page has no opener, the only
    # thing the escaping changes a page at
    from wikisilver.wikitext import markup

    text = "".join(parts)
    opener = markup._NOWIKI_OPEN.search(text)
    if opener is None:
        assert markup._escape_nowiki(text) == text
    else:
        assert "<n" in text or "<N" in text
        if opener.group(1):  # the first opener is a <nowiki/>: it goes
            assert not markup._escape_nowiki(text).startswith(text[:opener.end()])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["|", "[", "]", "[[a|b]]", "convert", "x", " ", "=", "{", "}"]), max_size=15))
def test_a_templates_head_is_the_splits_first_part(parts: list[str]) -> None:
    from wikisilver.wikitext import templates

    body = "".join(parts)
    assert templates._head(body) == templates._split(body)[0]
