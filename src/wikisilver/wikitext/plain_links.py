"""Speed, in one place: prose whose only markup is plain wikilinks is split without the parser.

Step 2 parses the prose left by the pre-passes with mwparserfromhell. Most chunks of an article
hold nothing but text and ``[[Title]]`` / ``[[Title|anchor]]`` links, and for them a regular
expression gives the same pieces as the parser at a fraction of the cost (measured by an
interleaved A/B of the English reference build in docs/performance.md). Anything else the parser
would read as markup sends the chunk to it: brackets or braces outside such links, tags, entities,
free external links (``//``, ``mailto:``), a newline or nested markup in a link, list or heading
markup at the start of a line. ``tests/test_wikitext.py::test_plain_link_pieces_render_as_the_parser``
holds the two ways equal.
"""

from __future__ import annotations

import re

_SIMPLE_LINK = re.compile(r"\[\[([^\[\]{}<>|\n]+)(?:\|([^\[\]{}<>|\n]*))?\]\]")
# Free external links: a scheme with "//" ("https://"), or one of the schemes MediaWiki links
# without slashes ("mailto:", "tel:"; mwparserfromhell's URI_SCHEMES), anywhere in a word.
_MARKUP = re.compile(r"[\[\]{}<>&\x00]|//|(?i:bitcoin|geo|magnet|mailto|news|sips?|sms|tel|urn|xmpp)(?=:)")
_MAYBE_MARKUP = re.compile(r"[\[\]{}<>&:/\x00]")  # every match of _MARKUP starts or ends with one of these
_LINE_MARKUP = re.compile(r"(?:\A|\n)[ \t]*(?:[*#:;=]|-{4})")

Piece = str | tuple[str, str | None]


def _has_markup(text: str) -> bool:
    return _MAYBE_MARKUP.search(text) is not None and _MARKUP.search(text) is not None


def plain_link_pieces(chunk: str) -> list[Piece] | None:
    """Text and ``(title, anchor or None)`` links of a chunk, or None when it has other markup."""
    if _LINE_MARKUP.search(chunk):
        return None
    pieces: list[Piece] = []
    pos = 0
    for match in _SIMPLE_LINK.finditer(chunk):
        between = chunk[pos:match.start()]
        title, anchor = match.groups()
        if _has_markup(between) or _has_markup(title) or not title.strip():
            return None
        if anchor is not None:
            if _has_markup(anchor):
                return None
            if not anchor.strip():
                anchor = ""
        if between:
            pieces.append(between)
        pieces.append((title, anchor))
        pos = match.end()
    rest = chunk[pos:]
    if _has_markup(rest):
        return None
    if rest:
        pieces.append(rest)
    return pieces
