"""Speed, in one place: prose whose only markup is plain wikilinks is split without the parser.

Step 2 parses the prose left by the pre-passes with mwparserfromhell. Most chunks of an article
hold nothing but text and ``[[Title]]`` / ``[[Title|anchor]]`` links, and for them a regular
expression gives the same pieces as the parser at a fraction of the cost (measured by an
interleaved A/B of the English reference build in docs/performance.md). Two more shapes are
common enough to take here: a file or category link whose caption holds plain links of its own
(``[[File:x.jpg|thumb|A [[Paris]] street]]``), which renders nothing, caption and all (the
caller's ``drops`` says which titles do), the entity ``&nbsp;``, which renders as a space, and a
subscript or superscript of plain text, which renders as its text.
Anything else the parser would read as markup sends the chunk to it: brackets or braces outside
such links, tags, other entities, free external links (``//``, ``mailto:``), a newline or nested
markup in a link that renders, list or heading markup at the start of a line.
``tests/test_wikitext.py::test_plain_link_pieces_render_as_the_parser`` holds the two ways equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_SIMPLE_LINK = re.compile(r"\[\[([^\[\]{}<>|\n]+)(?:\|([^\[\]{}<>|\n]*))?\]\]")
# Free external links: a scheme with "//" ("https://"), or one of the schemes MediaWiki links
# without slashes ("mailto:", "tel:"; mwparserfromhell's URI_SCHEMES), anywhere in a word.
_MARKUP_CHAR = re.compile(r"[\[\]{}<>&\x00]")
_SCHEME = re.compile(r"(?i:bitcoin|geo|magnet|mailto|news|sips?|sms|tel|urn|xmpp)(?=:)")
_LONGEST_SCHEME = 7  # "bitcoin"
_LINE_MARKERS = ("*", "#", ":", ";", "=", "----")  # list, indent, heading and rule markup at a line's start
# A link whose anchor may hold pipes and plain links (a file's options and caption): taken only
# where its title renders nothing.
_LINK = re.compile(r"\[\[([^\[\]{}<>|\n]+)(?:\|((?:[^\[\]{}<>\n]|\[\[[^\[\]{}<>|\n]+(?:\|[^\[\]{}<>|\n]*)?\]\])*))?\]\]")
_NBSP = "&nbsp;"
# A subscript or superscript of plain text (H<sub>2</sub>O, 10<sup>3</sup>), which the parser reads as
# a tag that renders its text in place: taken as that text, where no link's trail can reach it
# (a white space before it, or no link before it: "[[Foo]]a<sup>b</sup>" trails "a" alone).
_SUB_SUP = re.compile(r"<(sub|sup)>([^<>\[\]{}&|\n]*)</\1>")

Piece = str | tuple[str, str | None]


def _has_markup(text: str) -> bool:
    """A markup character, "//", or a scheme right before a colon (looked for only before colons)."""
    if "//" in text or _MARKUP_CHAR.search(text) is not None:
        return True
    colon = text.find(":")
    while colon >= 0:
        if _SCHEME.search(text, max(0, colon - _LONGEST_SCHEME), colon + 1) is not None:
            return True
        colon = text.find(":", colon + 1)
    return False


def _has_line_markup(chunk: str) -> bool:
    r"""A line of the chunk starts (after spaces and tabs) with list, indent, heading or rule
    markup: what ``(?:\A|\n)[ \t]*(?:[*#:;=]|-{4})`` finds, looked for at the starts of lines
    only (the expression tried every character of a paragraph)."""
    return any(line.lstrip(" \t").startswith(_LINE_MARKERS) for line in chunk.split("\n"))


def _plain_between(text: str, after_link: bool) -> str:
    """Text between links as the parser renders it where the shapes above say so: ``&nbsp;`` as a
    space, a plain subscript or superscript as its text (not where the link before could trail
    into it); any other markup stays, and sends the chunk to the parser."""
    if _NBSP in text:
        text = text.replace(_NBSP, " ")
    if "<" in text:
        tag = text.find("<")
        if not after_link or any(c.isspace() for c in text[:tag]):
            text = text[:tag] + _SUB_SUP.sub(r"\2", text[tag:])
    return text


def plain_link_pieces(chunk: str, drops: Callable[[str], bool] = lambda title: False) -> list[Piece] | None:
    """Text and ``(title, anchor or None)`` links of a chunk, or None when it has other markup;
    ``drops(title)``: a link to it renders nothing (a file, a category), whatever its anchor holds."""
    if _has_line_markup(chunk):
        return None
    pieces: list[Piece] = []
    checked: list[str] = []  # the texts, titles and anchors, none of which may hold markup
    pos = 0
    for match in _LINK.finditer(chunk):
        between = chunk[pos:match.start()]
        title, anchor = match.groups()
        if not title.strip():
            return None
        if anchor is not None and ("|" in anchor or "[" in anchor):
            if not (drops(title) and all(inner.strip() for inner, _ in _SIMPLE_LINK.findall(anchor))):
                return None
            anchor = ""  # rendered as nothing
        elif anchor is not None:
            checked.append(anchor)
            if not anchor.strip():
                anchor = ""
        if between:
            between = _plain_between(between, bool(pieces))
            pieces.append(between)
            checked.append(between)
        pieces.append((title, anchor))
        checked.append(title)
        pos = match.end()
    rest = chunk[pos:]
    if rest:
        rest = _plain_between(rest, bool(pieces))
        pieces.append(rest)
        checked.append(rest)
    # one scan for all of them: markup never spans the newlines between them
    return None if _has_markup("\n".join(checked)) else pieces
