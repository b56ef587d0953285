"""Step 2's parse: the prose left by the pre-passes, as text and the spans of its link anchors.

mwparserfromhell's nodes of one piece of prose are rendered as MediaWiki renders them, keeping
only running text: ``[[Target|anchor]]`` becomes ``anchor`` (with its link trail, ``[[bus]]es``)
and a link to ``normalize_title(Target)``; files, categories and interlanguage links vanish
with their captions; links to other namespaces and interwiki links keep their text, unlinked.
"""

from __future__ import annotations

import re

import mwparserfromhell
from mwparserfromhell.nodes import (
    Argument,
    Comment,
    ExternalLink,
    Heading,
    HTMLEntity,
    Tag,
    Template,
    Text,
    Wikilink,
)

from wikisilver.titles import drop_parenthetical, normalize_title
from wikisilver.wikitext.language import Language, name_key
from wikisilver.wikitext.markup import DROPPED_TAGS
from wikisilver.wikitext.plain_links import Piece, plain_link_pieces

# Two-character marks of broken markup, and the bracket before a bare URL.
_LEFTOVER_PAIRS = frozenset({"[[", "]]", "{{", "}}", "{|", "|}"})
_URL_BRACKET = re.compile(r"\[(?=https?:|//)")
_SPACE_RUN = re.compile(r"\s+")
_URL = re.compile(r"(?:https?:|ftp:)?//\S+")
# A link to a media file by its name, in whatever namespace the wiki calls files ([[Immagine:x.png|
# border|left|150px]] where the table of the language does not know "Immagine"): an image or a
# sound, not running text, so dropped as a file link is, with its options and caption.
_MEDIA_FILE = tuple(f".{ext}" for ext in "png jpg jpeg gif svg tif tiff webp xcf bmp ogg oga ogv webm mp3 wav flac mid midi pdf djvu".split())
# HTML tags whose content is not running text.
_DROP_CONTENT_TAGS = frozenset(DROPPED_TAGS) | {"s", "del", "strike"}
_BREAK_TAGS = frozenset({"br", "hr", "p", "li", "dd", "dt", "div", "tr", "blockquote"})
_DROPPED, _TEXT, _LINKED = "dropped", "text", "linked"  # what a link is by its title's prefix


class Builder:
    """Collects the text of one page and the [start, end) spans of link anchors in it."""

    def __init__(self, lang: Language) -> None:
        self.lang = lang
        self.parts: list[str] = []
        self.length = 0
        self.links: list[tuple[int, int, str]] = []

    def add(self, text: str) -> None:
        """Add plain text."""
        if text:
            self.parts.append(text)
            self.length += len(text)

    def add_link(self, anchor: str, target: str) -> None:
        """Add a link's anchor; its span (without the spaces around it) links to ``target``."""
        anchor = _SPACE_RUN.sub(" ", anchor)
        stripped = anchor.strip()
        if not stripped:
            self.add(anchor)
            return
        lead = anchor[: len(anchor) - len(anchor.lstrip())]
        self.add(lead)
        start = self.length
        self.add(stripped)
        if target:
            self.links.append((start, self.length, target))
        self.add(anchor[len(lead) + len(stripped):])

    def _trail(self, following: str) -> tuple[str, str]:
        """The link trail that starts the text after a link ("[[dog]]s": "s"), and the rest."""
        match = self.lang.link_trail.match(following) if self.lang.link_trail else None
        return (match.group(), following[match.end():]) if match else ("", following)

    def prose(self, chunk: str) -> None:
        """Add one piece of prose (wikitext after the pre-passes) as it renders."""
        pieces = plain_link_pieces(chunk, self.drops)
        if pieces is None:
            self.nodes(mwparserfromhell.parse(chunk, skip_style_tags=True).nodes)
        else:
            self.pieces(pieces)

    def pieces(self, pieces: list[Piece]) -> None:
        """Text and ``(title, anchor)`` links from :func:`plain_link_pieces`, rendered exactly as
        :meth:`nodes` renders the Text and Wikilink nodes the parser gives for them."""
        pending = None  # a link waits for the text after it, which may begin with its trail
        for piece in pieces:
            if isinstance(piece, str):
                if pending is not None:
                    trail, piece = self._trail(piece)
                    self.link(*pending, trail, False)
                    pending = None
                self.add(_plain_text(piece))
            else:
                if pending is not None:
                    self.link(*pending, "", False)
                pending = piece
        if pending is not None:
            self.link(*pending, "", False)

    def nodes(self, nodes: list, in_link: bool = False) -> None:
        """Add mwparserfromhell's nodes as they render (``in_link``: inside a link's anchor)."""
        index = 0
        count = len(nodes)
        while index < count:
            node = nodes[index]
            index += 1
            if isinstance(node, Text):
                self.add(_plain_text(node.value))
            elif isinstance(node, Wikilink):
                trail = ""
                if index < count and isinstance(nodes[index], Text):
                    trail, rest = self._trail(nodes[index].value)
                    if trail:
                        nodes[index] = Text(rest)
                self.wikilink(node, trail, in_link)
            elif isinstance(node, HTMLEntity):
                self.add(_entity(node))
            elif isinstance(node, Tag):
                self.tag(node, in_link)
            elif isinstance(node, ExternalLink):
                if node.brackets and node.title is not None:
                    self.nodes(node.title.nodes, True)
            elif isinstance(node, (Template, Argument, Comment, Heading)):
                continue

    def tag(self, node: Tag, in_link: bool) -> None:
        name = str(node.tag).strip().lower()
        if name in _DROP_CONTENT_TAGS:
            return
        if name in _BREAK_TAGS:
            self.add("\n")
        if node.contents is not None and not node.self_closing:
            self.nodes(node.contents.nodes, in_link)
            if name in _BREAK_TAGS:
                self.add("\n")

    def wikilink(self, node: Wikilink, trail: str, in_link: bool) -> None:
        """One wikilink node and the link trail after it (``in_link``: inside another link's anchor)."""
        text = node.text
        if text is not None:
            text = text.nodes if text.nodes and str(text).strip() else ""
        self.link(_plain(node.title), text, trail, in_link)

    def drops(self, raw_title: str) -> bool:
        """Whether a link to this title (as written) renders nothing, its anchor and trail included."""
        title = raw_title.strip()
        return not title.startswith(":") and self._kind(title) == _DROPPED

    def _kind(self, title: str) -> str:
        """What a link to ``title`` (without a leading colon) is by its prefix: dropped (a file, a
        category, an interlanguage link), text (another namespace, an interwiki link) or linked."""
        prefix, has_prefix, rest = title.partition(":")
        if not has_prefix:
            return _LINKED
        key = name_key(prefix)
        if key in self.lang.drop_prefixes or rest.rstrip().lower().endswith(_MEDIA_FILE):
            return _DROPPED
        if key in self.lang.other_prefixes:
            return _TEXT
        return _DROPPED if self.lang.interlanguage.fullmatch(prefix.strip()) else _LINKED

    def link(self, raw_title: str, text: str | list | None, trail: str, in_link: bool) -> None:
        """One wikilink: ``text`` is None without a pipe, "" for an empty anchor (the pipe trick),
        a plain anchor as a string, or the nodes of an anchor with markup of its own."""
        title = raw_title.strip()
        colon = title.startswith(":")
        if colon:
            title = title[1:].lstrip()
        kind = self._kind(title)
        if kind == _DROPPED and not colon:
            return  # a file or category (its caption is not running text), an interlanguage link
        linkable = kind == _LINKED and not title.startswith("#") and not in_link
        target = normalize_title(title) if linkable else ""
        if text is None:
            anchor = title[1:] if title.startswith("#") else title
        elif not text:
            anchor = _pipe_trick(title)  # [[Foo (bar)|]] renders "Foo"
        elif isinstance(text, str):
            anchor = _plain_text(text)
        else:  # the anchor has markup of its own (entities, tags): render it, then link the result
            inner = Builder(self.lang)
            inner.nodes(text, True)
            anchor = "".join(inner.parts)
        self.add_link(anchor + trail, target)


def _plain_text(value: str) -> str:
    """Text as it renders: brackets and braces of broken markup and bare URLs removed."""
    if "[" in value or "]" in value or "{" in value or "}" in value:
        value = _URL_BRACKET.sub("", _drop_pairs(value))
    return _URL.sub("", value) if "//" in value else value


def _drop_pairs(value: str) -> str:
    """``[[``, ``]]``, ``{{``, ``}}``, ``{|``, ``|}`` removed, left to right, and so are the pairs
    a removal brings together (``{[[{`` leaves nothing, not ``{{``): one pass, like a stack."""
    out: list[str] = []
    for ch in value:
        if out and out[-1] + ch in _LEFTOVER_PAIRS:
            out.pop()
        else:
            out.append(ch)
    return "".join(out)


def _entity(node: HTMLEntity) -> str:
    try:
        value = node.normalize()
    except (ValueError, OverflowError):
        return ""
    return " " if value == "\u00a0" else value


def _plain(code: mwparserfromhell.wikicode.Wikicode) -> str:
    """Text of a link title: entities decoded, nested markup removed."""
    out = []
    for node in code.nodes:
        if isinstance(node, Text):
            out.append(node.value)
        elif isinstance(node, HTMLEntity):
            out.append(_entity(node))
        elif isinstance(node, Tag) and node.contents is not None:
            out.append(_plain(node.contents))
    return "".join(out)


def _pipe_trick(title: str) -> str:
    _, has_prefix, rest = title.partition(":")
    if has_prefix:
        title = rest
    title = drop_parenthetical(title, inner_parens=False)
    return title.split(",", 1)[0]
