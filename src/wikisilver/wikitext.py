"""Step 2 of the method: parse an article's wikitext, keep its running text and its links.

:func:`clean_wikitext` turns the wikitext of one article into plain paragraphs plus the
character spans of the wikilinks that survive in them (:class:`~wikisilver.records.Link`),
which is what the labeller projects entity types onto.

How: mwparserfromhell is exact but slow, and most of a big article's bytes are things that
are dropped anyway (templates and infoboxes, tables, references, comments). So cheap linear
scanners remove those first — templates by matching brace runs the way MediaWiki's
preprocessor does, tables by line-level ``{|``/``|}`` nesting, extension tags by tag name —
and only the remaining prose is given to mwparserfromhell, one paragraph at a time; a piece
whose only markup is plain ``[[Title|anchor]]`` links (most of them) is split by a regular
expression instead, with the same result (see :func:`_simple_pieces`). Parsing per paragraph
bounds the parser's backtracking on broken markup and gives natural points to check the time
budget; a page that is too big or too slow raises :class:`WikitextBudgetError`
and the pipeline sends it to rejects.

Language data (namespaces to drop, disambiguation templates, redirect magic words, link
trails) lives in ``mappings/wikitext.toml``.
"""

from __future__ import annotations

import bisect
import functools
import html
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

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

from wikisilver.records import Link
from wikisilver.resources import load_toml
from wikisilver.titles import normalize_title

__all__ = [
    "CleanText",
    "WikitextBudgetError",
    "clean_wikitext",
    "is_disambiguation",
    "redirect_target",
    "template_names",
]

# Siteinfo namespace keys whose links vanish with their text: Media, File, Category.
_DROP_NAMESPACE_KEYS = frozenset({-2, 6, 14})
# A page nesting templates deeper than this is generated markup, not an article.
_MAX_TEMPLATE_DEPTH = 100


class WikitextBudgetError(Exception):
    """A page over the size or time budget of the cleaner (the pipeline rejects it)."""


@dataclass(frozen=True)
class CleanText:
    """Plain text of an article and the links in it (anchor spans index into ``text``)."""

    text: str
    links: tuple[Link, ...]


# ---------------------------------------------------------------------------------------------
# Language data


@dataclass(frozen=True)
class _Lang:
    drop_prefixes: frozenset[str]  # lower-cased, "_" -> " "
    other_prefixes: frozenset[str]
    disambiguation_templates: frozenset[str]  # template keys (see _template_key), lower-cased
    disambiguation_categories: frozenset[str]  # lower-cased
    redirect: re.Pattern[str]
    link_trail: re.Pattern[str] | None
    interlanguage: re.Pattern[str]


def _key(name: str) -> str:
    return " ".join(name.replace("_", " ").split()).lower()


@functools.lru_cache(maxsize=64)
def _lang_data(lang: str, namespaces: tuple[tuple[int, str], ...] = ()) -> _Lang:
    table = load_toml("wikitext.toml")
    default = table["default"]
    own = table.get(lang, {})

    def merged(name: str) -> list:
        return list(default.get(name, [])) + list(own.get(name, []))

    drop = {_key(n) for n in merged("drop_namespaces")}
    other = {_key(n) for n in merged("other_namespaces")}
    for key, name in namespaces:
        if name:
            (drop if key in _DROP_NAMESPACE_KEYS else other).add(_key(name))
    other -= drop
    words = sorted({w for w in merged("redirect")}, key=len, reverse=True)
    redirect = re.compile(
        r"\s*(?:" + "|".join(re.escape(w) for w in words) + r")\s*:?\s*\[\[([^\]\|\n]*)",
        re.IGNORECASE,
    )
    trail_class = own.get("link_trail", default.get("link_trail", "a-z"))
    link_trail = re.compile(f"[{trail_class}]+") if trail_class else None
    return _Lang(
        drop_prefixes=frozenset(drop),
        other_prefixes=frozenset(other),
        disambiguation_templates=frozenset(_key(n) for n in merged("disambiguation_templates")),
        disambiguation_categories=frozenset(_key(n) for n in merged("disambiguation_categories")),
        redirect=redirect,
        link_trail=link_trail,
        interlanguage=re.compile(default["interlanguage"]),
    )


def _lang_for(lang: str, namespaces: Mapping[int, str] | None) -> _Lang:
    frozen = tuple(sorted((int(k), str(v)) for k, v in namespaces.items())) if namespaces else ()
    return _lang_data(lang, frozen)


# ---------------------------------------------------------------------------------------------
# Page-level questions: redirect, disambiguation, templates

# "{{" neither preceded nor followed by another "{"; the lookbehind comes after the literal
# "{{", so the engine can jump from "{{" to "{{" instead of trying every character.
_TEMPLATE_NAME = re.compile(r"\{\{(?<!\{\{\{)(?!\{)\s*([^{}|\n<\[\]]*?)\s*(?=[|}\n<])")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_MAGIC_WORD = re.compile(r"^[A-Z0-9_]+$")


def redirect_target(wikitext: str, lang: str = "en") -> str | None:
    """Target title of a redirect page (``#REDIRECT [[X]]``, localized), or None."""
    match = _lang_data(lang).redirect.match(wikitext)
    if not match:
        return None
    target = normalize_title(html.unescape(match.group(1)))
    return target or None


def _template_key(name: str) -> str:
    """A template name as MediaWiki resolves it: no subst:, no Template: prefix, "_" = " "."""
    name = " ".join(name.replace("_", " ").split())
    lowered = name.lower()
    for prefix in ("subst:", "safesubst:", "msgnw:", "msg:", "raw:"):
        if lowered.startswith(prefix):
            name = name[len(prefix):].lstrip()
            lowered = name.lower()
    head, colon, rest = name.partition(":")
    if colon and _key(head) in _TEMPLATE_NAMESPACES:
        name = rest.strip()
    return name[:1].upper() + name[1:]


_TEMPLATE_NAMESPACES = frozenset({"template", "sablon", "vorlage", "шаблон", "πρότυπο", "bản mẫu", "šablons"})


def template_names(wikitext: str) -> list[str]:
    """Names of the templates a page uses, top-level and nested, in page order, each once.

    Parser functions (``{{#if:…}}``), magic words (``{{DEFAULTSORT:…}}``, ``{{PAGENAME}}``) and
    template parameters (``{{{1}}}``) are not templates and are left out.
    """
    if "<!--" in wikitext:
        wikitext = _COMMENT.sub("", wikitext)
    seen: dict[str, None] = {}
    for match in _TEMPLATE_NAME.finditer(wikitext):
        raw = match.group(1)
        if not raw or raw.startswith("#"):
            continue
        head, colon, _ = raw.partition(":")
        if colon and _key(head) not in _TEMPLATE_NAMESPACES and _key(head) not in {"subst", "safesubst"}:
            continue  # DEFAULTSORT:, lc:, padleft: … and interwiki transclusions
        if _MAGIC_WORD.match(raw.strip()):
            continue
        name = _template_key(raw)
        if name:
            seen.setdefault(name, None)
    return list(seen)


_CATEGORY_LINK = re.compile(r"\[\[\s*([^\]\|:\n]+?)\s*:\s*([^\]\|\n]+?)\s*(?:\|[^\]]*)?\]\]")


def is_disambiguation(wikitext: str, lang: str = "en") -> bool:
    """Whether a page is a disambiguation page: its templates, categories or ``__DISAMBIG__``."""
    if "__DISAMBIG__" in wikitext:
        return True
    data = _lang_data(lang)
    for name in template_names(wikitext):
        if _key(name) in data.disambiguation_templates:
            return True
    if data.disambiguation_categories:
        for match in _CATEGORY_LINK.finditer(wikitext):
            if _key(match.group(1)) in data.drop_prefixes and (
                _key(match.group(2)) in data.disambiguation_categories
            ):
                return True
    return False


# ---------------------------------------------------------------------------------------------
# Pre-passes: remove what is dropped anyway before the (slow) parser sees it


def _strip_comments(text: str) -> str:
    if "<!--" not in text:
        return text
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:start])
        end = text.find("-->", start + 4)
        if end < 0:  # MediaWiki: an unclosed comment runs to the end of the page
            break
        pos = end + 3
    return "".join(out)


# Characters that would be markup if nowiki content reached the parser: turned into numeric
# entities, which the parser hands back as plain characters.
_NOWIKI_ESCAPE = {ord(c): f"&#{ord(c)};" for c in "&<>[]{}|'=*#:;~_-!"}
_NOWIKI = re.compile(r"<nowiki\s*>(.*?)</nowiki\s*>|<nowiki\s*/>", re.IGNORECASE | re.DOTALL)


def _escape_nowiki(text: str) -> str:
    if "nowiki" not in text.lower():
        return text
    return _NOWIKI.sub(lambda m: (m.group(1) or "").translate(_NOWIKI_ESCAPE), text)


# Extension and HTML tags whose whole content is dropped.
_DROPPED_TAGS = (
    "ref", "references", "gallery", "math", "chem", "ce", "code", "pre", "source",
    "syntaxhighlight", "timeline", "score", "hiero", "imagemap", "templatedata", "graph",
    "mapframe", "maplink", "inputbox", "categorytree", "charinsert", "section",
    "templatestyles", "indicator", "table",
)
_OPEN_TAG = re.compile(
    r"<(" + "|".join(_DROPPED_TAGS) + r")(?=[\s/>])[^<>]*?(/?)>", re.IGNORECASE
)
_CLOSE_TAGS = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in _DROPPED_TAGS}
_STRAY_CLOSE = re.compile(r"</(?:" + "|".join(_DROPPED_TAGS) + r")\s*>", re.IGNORECASE)


def _strip_tags(text: str) -> str:
    if "<" not in text:
        return text
    out: list[str] = []
    pos = 0
    unclosed: set[str] = set()  # tag names with no closing tag after some point: never search again
    for match in _OPEN_TAG.finditer(text):
        if match.start() < pos:
            continue
        out.append(text[pos:match.start()])
        name = match.group(1).lower()
        if match.group(2) or name in unclosed:
            pos = match.end()
            continue
        close = _CLOSE_TAGS[name].search(text, match.end())
        if close is None:
            unclosed.add(name)
            pos = match.end()  # an unclosed tag: drop the tag, keep what follows
        else:
            pos = close.end()
    out.append(text[pos:])
    return _STRAY_CLOSE.sub("", "".join(out))


_BRACE_RUN = re.compile(r"\{\{+|\}\}+")


def _strip_templates(text: str) -> str:
    """Remove every ``{{…}}`` and ``{{{…}}}``, nested, matching brace runs like MediaWiki.

    An opening run of n braces is one element with n braces to spend; a closing run spends
    3 (a parameter) or 2 (a template) at a time from the innermost open element. An opener
    that is never closed is not markup: only its braces are removed.
    """
    if "{{" not in text:
        return text
    stack: list[list[int]] = []  # [start offset, braces left]
    spans: list[tuple[int, int]] = []  # removed [start, end) of closed elements
    unmatched: list[tuple[int, int]] = []
    for match in _BRACE_RUN.finditer(text):
        run = match.end() - match.start()
        if match.group()[0] == "{":
            stack.append([match.start(), run])
            if len(stack) > _MAX_TEMPLATE_DEPTH:
                raise WikitextBudgetError(f"templates nested more than {_MAX_TEMPLATE_DEPTH} deep")
            continue
        end = match.start()
        while run >= 2 and stack:
            top = stack[-1]
            spend = 3 if top[1] >= 3 and run >= 3 else 2
            top[1] -= spend
            run -= spend
            end += spend
            if top[1] < 2:
                stack.pop()
                spans.append((top[0], end))
        if run and not stack:
            unmatched.append((match.end() - run, match.end()))
    for start, braces in stack:
        unmatched.append((start, start + braces))
    if not spans and not unmatched:
        return text
    spans.extend(unmatched)
    spans.sort()
    out: list[str] = []
    pos = 0
    for start, end in spans:
        if end <= pos:
            continue
        if start > pos:
            out.append(text[pos:start])
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


_TABLE_LINE = re.compile(r"^[ \t:]*(\{\||\|\})", re.MULTILINE)


def _strip_tables(text: str) -> str:
    """Remove ``{| … |}`` tables (nested too) line by line; an unclosed table runs to the end."""
    if "{|" not in text and "|}" not in text:
        return text
    out: list[str] = []
    pos = 0
    depth = 0
    start = 0
    for match in _TABLE_LINE.finditer(text):
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end + 1  # the line's newline goes too
        if match.group(1) == "{|":
            if depth == 0:
                start = match.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                out.append(text[pos:start])
                pos = line_end
        else:  # a stray close (its opener came from a template): drop the line
            out.append(text[pos:match.start()])
            pos = line_end
    if depth:
        out.append(text[pos:start])
    else:
        out.append(text[pos:])
    return "".join(out)


_LINE_MARKUP = re.compile(
    r"^[ \t]*=.*=[ \t]*$"  # a heading: not a sentence
    r"|^[ \t]*[|!].*\n?"  # table rows left by templates that open tables
    r"|^-{4,}"  # horizontal rule
    r"|^[ \t]*[*#:;]+[ \t]*",  # list and indent markers: keep the item's text
    re.MULTILINE,
)
# Behaviour switches, in a pass of their own: an unanchored alternative beside the line-start
# ones above would make the engine try every alternative at every character (4x slower). The
# two never overlap (a switch holds no newline and starts with "_"), so the passes give what one
# pattern would.
_BEHAVIOUR_SWITCH = re.compile(r"__[A-Z]+__")
_QUOTES = re.compile(r"'{2,}")
_EMPTY_PARENS = re.compile(r"\((?:[\s,;]|&nbsp;)*\)")
# "Lincoln ({{IPA|…}}; February 12, 1809 …)" loses its template: no "(;" left behind
_PAREN_LEAD = re.compile(r"\((?:\s|&nbsp;)*[,;][\s,;]*")


def _strip_line_markup(text: str) -> str:
    text = _LINE_MARKUP.sub("", text)
    return _BEHAVIOUR_SWITCH.sub("", text) if "__" in text else text


def _quotes(match: re.Match[str]) -> str:
    # MediaWiki reads 4 quotes as an apostrophe + bold and more than 5 as apostrophes + 5.
    run = len(match.group())
    if run == 4:
        return "'"
    if run > 5:
        return "'" * (run - 5)
    return ""


def _prepass(text: str, deadline: float | None) -> str:
    text = _strip_comments(text)
    text = _escape_nowiki(text)
    text = _strip_tags(text)
    _check_time(deadline)
    text = _strip_templates(text)
    text = _strip_tables(text)
    _check_time(deadline)
    text = _strip_line_markup(text)
    text = _QUOTES.sub(_quotes, text)
    if "(" in text:
        text = _EMPTY_PARENS.sub("", text)
        text = _PAREN_LEAD.sub("(", text)
    return text


def _check_time(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() >= deadline:
        raise WikitextBudgetError("parsing took longer than the time budget")


# ---------------------------------------------------------------------------------------------
# The parse: paragraphs -> pieces of text, some of them link anchors


_MAX_CHUNK = 16_384
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_LEFTOVER = re.compile(r"\[\[|\]\]|\{\{|\}\}|\{\||\|\}|\[(?=https?:|//)")
_SPACE_RUN = re.compile(r"\s+")
# Whitespace runs that normalization changes: at the ends, longer than one character, or one
# character other than " " and "\n" (a lone space or newline inside the text stays as it is, and
# skipping those keeps the loop below to a few hundred runs per article instead of one per word).
_ABNORMAL_SPACE = re.compile(r"\s{2,}|[^\S \n]")  # inside the text; the ends are cut apart
_URL = re.compile(r"(?:https?:|ftp:)?//\S+")
_PIPE_TRICK = re.compile(r"\s*\([^()]*\)\s*$")
# HTML tags whose content is not running text.
_DROP_CONTENT_TAGS = frozenset(_DROPPED_TAGS) | {"s", "del", "strike"}
_BREAK_TAGS = frozenset({"br", "hr", "p", "li", "dd", "dt", "div", "tr", "blockquote"})


class _Builder:
    """Collects the text of one page and the [start, end) spans of link anchors in it."""

    def __init__(self, lang: _Lang) -> None:
        self.lang = lang
        self.parts: list[str] = []
        self.length = 0
        self.links: list[tuple[int, int, str]] = []

    def add(self, text: str) -> None:
        if text:
            self.parts.append(text)
            self.length += len(text)

    def add_link(self, anchor: str, target: str) -> None:
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

    def nodes(self, nodes: list, in_link: bool = False) -> None:
        index = 0
        count = len(nodes)
        while index < count:
            node = nodes[index]
            index += 1
            if isinstance(node, Text):
                self.add(_text(node.value))
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
        text = node.text
        if text is not None:
            text = text.nodes if text.nodes and str(text).strip() else ""
        self.link(_plain(node.title), text, trail, in_link)

    def link(self, raw_title: str, text: str | list | None, trail: str, in_link: bool) -> None:
        """One wikilink: ``text`` is None without a pipe, "" for an empty anchor (the pipe trick),
        a plain anchor as a string, or the nodes of an anchor with markup of its own."""
        title = raw_title.strip()
        colon = title.startswith(":")
        if colon:
            title = title[1:].lstrip()
        prefix, has_prefix, rest = title.partition(":")
        linkable = True
        if has_prefix:
            key = _key(prefix)
            if key in self.lang.drop_prefixes:
                if not colon:
                    return  # a file or category: its caption is not running text
                linkable = False
            elif key in self.lang.other_prefixes:
                linkable = False
            elif self.lang.interlanguage.fullmatch(prefix.strip()):
                if not colon:
                    return  # an interlanguage link renders nothing in the text
                linkable = False
        if title.startswith("#"):
            linkable = False
        if in_link:
            linkable = False
        target = normalize_title(title) if linkable else ""
        if text is None:
            anchor = title[1:] if title.startswith("#") else title
        elif not text:
            anchor = _pipe_trick(title)  # [[Foo (bar)|]] renders "Foo"
        elif isinstance(text, str):
            anchor = _text(text)
        else:  # the anchor has markup of its own (entities, tags): render it, then link the result
            inner = _Builder(self.lang)
            inner.nodes(text, True)
            anchor = "".join(inner.parts)
        self.add_link(anchor + trail, target)

    def pieces(self, pieces: list[str | tuple[str, str | None]]) -> None:
        """A chunk split by :func:`_simple_pieces`: plain text and (title, anchor) links, handled
        exactly as :meth:`nodes` handles the Text and Wikilink nodes mwparserfromhell gives."""
        pending = None  # a link waits for the text after it, which may begin with its trail
        for piece in pieces:
            if isinstance(piece, str):
                if pending is not None:
                    trail, piece = self._trail(piece)
                    self.link(*pending, trail, False)
                    pending = None
                self.add(_text(piece))
            else:
                if pending is not None:
                    self.link(*pending, "", False)
                pending = piece
        if pending is not None:
            self.link(*pending, "", False)


# A chunk whose only markup is plain links, [[Title]] and [[Title|anchor]], is split by a regular
# expression instead of mwparserfromhell (a third of the cleaning time). Anything else that
# mwparserfromhell would read as markup sends the chunk to it: brackets or braces left outside
# such links, tags, entities, free external links ("//", "mailto:"), a newline or nested markup
# in a link, list or heading markup at the start of a line. tests/test_wikitext.py checks that
# both ways give the same text and links.
_SIMPLE_LINK = re.compile(r"\[\[([^\[\]{}<>|\n]+)(?:\|([^\[\]{}<>|\n]*))?\]\]")
# Free external links: a scheme with "//" ("https://"), or one of the schemes MediaWiki links
# without slashes ("mailto:", "tel:"; mwparserfromhell's URI_SCHEMES), anywhere in a word.
_NOT_SIMPLE = re.compile(r"[\[\]{}<>&\x00]|//|(?i:bitcoin|geo|magnet|mailto|news|sips?|sms|tel|urn|xmpp)(?=:)")
_SUSPECT = re.compile(r"[\[\]{}<>&:/\x00]")  # a quick first look: most text has none of these
_LINE_START_MARKUP = re.compile(r"[ \t]*(?:[*#:;=]|-{4})")  # matched at 0 and after each "\n"
_LATER_LINE_MARKUP = re.compile(r"\n[ \t]*(?:[*#:;=]|-{4})")


def _has_markup(text: str) -> bool:
    return _SUSPECT.search(text) is not None and _NOT_SIMPLE.search(text) is not None


def _simple_pieces(chunk: str) -> list[str | tuple[str, str | None]] | None:
    """Plain text and (title, anchor or None) links of a chunk, or None when it has other markup."""
    if _LINE_START_MARKUP.match(chunk) or ("\n" in chunk and _LATER_LINE_MARKUP.search(chunk)):
        return None
    pieces: list[str | tuple[str, str | None]] = []
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


def _text(value: str) -> str:
    if "[" in value or "{" in value or "}" in value or "]" in value or "/" in value:
        value = _LEFTOVER.sub("", value)
        if "//" in value:
            value = _URL.sub("", value)
    return value


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
    title = _PIPE_TRICK.sub("", title)
    return title.split(",", 1)[0]


def _paragraphs(text: str) -> Iterator[str]:
    pos = 0
    for match in _PARAGRAPH.finditer(text):
        yield text[pos:match.start()]
        pos = match.end()
    yield text[pos:]


def _chunks(paragraph: str) -> Iterator[str]:
    """A paragraph in pieces of at most _MAX_CHUNK characters, cut where no link is open.

    mwparserfromhell backtracks quadratically on some broken markup (thousands of unclosed
    tags or brackets in one paragraph); bounded pieces keep that cost bounded and let the time
    budget be checked between them. Real paragraphs are almost always shorter than one piece.
    """
    while len(paragraph) > _MAX_CHUNK:
        cut = paragraph.rfind("\n", 0, _MAX_CHUNK)
        if cut <= 0:
            cut = paragraph.rfind(" ", 0, _MAX_CHUNK)
            for _ in range(64):  # step back before "[[" until no link (or file caption) is open
                if cut <= 0 or paragraph.count("[[", 0, cut) <= paragraph.count("]]", 0, cut):
                    break
                cut = paragraph.rfind(" ", 0, paragraph.rfind("[[", 0, cut))
            else:
                cut = 0
        if cut <= 0:
            cut = _MAX_CHUNK
        yield paragraph[:cut]
        paragraph = paragraph[cut:]
    yield paragraph


# ---------------------------------------------------------------------------------------------
# Whitespace: one space between words, one newline between lines, a blank line between paragraphs


def _space_runs(text: str) -> Iterator[tuple[int, int]]:
    """The whitespace runs normalization changes, in order: the leading and the trailing run
    whole, and inside the text the runs matched by _ABNORMAL_SPACE. (One pattern with ``\\A\\s+``
    and ``\\s+\\Z`` among its alternatives is tried at every character, not only at blanks.)"""
    length = len(text)
    content_end = len(text.rstrip())
    lead = length - len(text.lstrip()) if content_end else length
    if lead:
        yield 0, lead
    for match in _ABNORMAL_SPACE.finditer(text, lead, content_end):
        yield match.span()
    if lead < content_end < length:
        yield content_end, length


def _normalize(text: str, spans: list[tuple[int, int, str]]) -> CleanText:
    out: list[str] = []
    ends: list[int] = []  # end offset (in `text`) of each whitespace run
    shifts: list[int] = []  # characters removed up to and including that run
    removed = 0
    pos = 0
    length = len(text)
    for start, end in _space_runs(text):
        out.append(text[pos:start])
        if start == 0 or end == length:
            replacement = ""
        else:
            newlines = text.count("\n", start, end)
            replacement = " " if newlines == 0 else "\n" if newlines == 1 else "\n\n"
        out.append(replacement)
        removed += (end - start) - len(replacement)
        ends.append(end)
        shifts.append(removed)
        pos = end
    out.append(text[pos:])
    clean = "".join(out)

    def moved(offset: int) -> int:  # offset of a non-space character
        index = bisect.bisect_right(ends, offset) - 1
        return offset - (shifts[index] if index >= 0 else 0)

    links = []
    for start, end, target in spans:
        new_start = moved(start)
        new_end = moved(end - 1) + 1
        links.append(Link(new_start, new_end, target, clean[new_start:new_end]))
    return CleanText(clean, tuple(links))


# ---------------------------------------------------------------------------------------------


def clean_wikitext(
    wikitext: str,
    *,
    lang: str = "en",
    namespaces: Mapping[int, str] | None = None,
    max_chars: int = 2_000_000,
    max_seconds: float | None = 10.0,
) -> CleanText:
    """Plain text of an article and its links: step 2's parse of one page.

    Templates, tables, references, files, categories, interlanguage links, headings and
    formatting are dropped; ``[[Target|anchor]]`` becomes ``anchor`` with a :class:`Link`
    to ``normalize_title(Target)``. Paragraphs are separated by a blank line, list items keep
    a line each. Raises :class:`WikitextBudgetError` for a page longer than ``max_chars`` or
    one whose cleaning takes longer than ``max_seconds``; never raises otherwise.
    """
    if len(wikitext) > max_chars:
        raise WikitextBudgetError(f"page has {len(wikitext):,} characters, over the budget of {max_chars:,}")
    deadline = time.perf_counter() + max_seconds if max_seconds is not None else None
    data = _lang_for(lang, namespaces)
    text = _prepass(wikitext.replace("\r\n", "\n").replace("\r", "\n"), deadline)
    builder = _Builder(data)
    for paragraph in _paragraphs(text):
        if not paragraph.strip():
            continue
        for chunk in _chunks(paragraph):
            if "[" in chunk or "<" in chunk or "&" in chunk:
                pieces = _simple_pieces(chunk)
                if pieces is not None:
                    builder.pieces(pieces)
                else:
                    builder.nodes(mwparserfromhell.parse(chunk, skip_style_tags=True).nodes)
            else:
                builder.add(_text(chunk))
            _check_time(deadline)
        builder.add("\n\n")
    return _normalize("".join(builder.parts), builder.links)
