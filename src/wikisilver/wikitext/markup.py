"""Step 2's pre-passes: remove from an article's wikitext what is dropped anyway, before the
(slow) parser sees it.

Cheap linear scanners remove comments, extension tags with their content (references,
galleries, math, …), templates (matching brace runs the way MediaWiki's preprocessor does),
tables (by line-level ``{|``/``|}`` nesting), headings, list markers and bold/italic quotes;
``<nowiki>`` content is escaped so that it stays text. What is left is prose with links and
inline HTML, which :mod:`~wikisilver.wikitext.clean` parses paragraph by paragraph.
"""

from __future__ import annotations

import re
import unicodedata
import time

from wikisilver.errors import WikitextBudgetError
from wikisilver.text.base import scans as _scan  # the compiled scans, None where none were built
from wikisilver.wikitext.templates import GAP, TemplateTable, is_silent, render_inline

# A page nesting templates deeper than this is generated markup, not an article.
_MAX_TEMPLATE_DEPTH = 100


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
_NOWIKI_OPEN = re.compile(r"<nowiki\s*+(/?)>", re.IGNORECASE)
_NOWIKI_CLOSE = re.compile(r"</nowiki\s*+>", re.IGNORECASE)


def _escape_nowiki(text: str) -> str:
    """``<nowiki>…</nowiki>`` replaced by its content escaped, ``<nowiki/>`` removed; an opener
    with no closer after it is left as it is (and the closer is never searched for again, so a
    page of unclosed openers costs one pass)."""
    if "<n" not in text and "<N" not in text:  # no opener (nor a text to copy): most pages
        return text
    out: list[str] = []
    pos = 0
    closed = True  # whether a closer may still follow
    for match in _NOWIKI_OPEN.finditer(text):
        if match.start() < pos:
            continue
        if match.group(1):
            out.append(text[pos:match.start()])
            pos = match.end()
            continue
        close = _NOWIKI_CLOSE.search(text, match.end()) if closed else None
        if close is None:
            closed = False
            continue
        out.append(text[pos:match.start()])
        out.append(text[match.end():close.start()].translate(_NOWIKI_ESCAPE))
        pos = close.end()
    out.append(text[pos:])
    return "".join(out)


# Extension and HTML tags whose whole content is dropped.
DROPPED_TAGS = (
    "ref", "references", "gallery", "math", "chem", "ce", "code", "pre", "source",
    "syntaxhighlight", "timeline", "score", "hiero", "imagemap", "templatedata", "graph",
    "mapframe", "maplink", "inputbox", "categorytree", "charinsert", "section",
    "templatestyles", "indicator", "table",
)
_OPEN_TAG = re.compile(
    r"<(" + "|".join(DROPPED_TAGS) + r")(?=[\s/>])[^<>]*?(/?)>", re.IGNORECASE
)
# Formulas: inside a sentence they leave a gap mark (see templates.GAP).
_GAP_TAGS = frozenset({"math", "chem", "ce"})
# A formula with no TeX structure reads as text: <math>n + 1</math> -> "n + 1". Spacing commands,
# grouping braces around plain text and the commands of single symbols (Greek letters, operators)
# are written out: <math>~\omega~</math> -> "ω", <math>2\pi</math> -> "2π". Sub- and superscripts
# (x^2, v_k), fractions and other commands do not read as text: they leave a gap.
_PLAIN_FORMULA = re.compile(r"[\w\s+\-=*/(),.<>|'×·±∓≤≥≠≈…⋯°′→∞]+")
_TEX_SPACE = re.compile(r"~|\\[,;:! ]|\\q?quad\b")
_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
          "sigma tau upsilon phi chi psi omega").split()


def _unicode_name(letter: str) -> str:
    return letter.upper().replace("LAMBDA", "LAMDA")  # Unicode spells it so


_TEX_SYMBOLS = {
    **{name: unicodedata.lookup(f"GREEK SMALL LETTER {_unicode_name(name)}") for name in _GREEK},
    **{name.capitalize(): unicodedata.lookup(f"GREEK CAPITAL LETTER {_unicode_name(name)}") for name in _GREEK},
    "varepsilon": "ε", "vartheta": "ϑ", "varphi": "φ", "varpi": "ϖ", "varrho": "ϱ", "varsigma": "ς",
    "infty": "∞", "times": "×", "cdot": "·", "pm": "±", "mp": "∓", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "ldots": "…", "dots": "…", "cdots": "⋯",
    "degree": "°", "prime": "′", "to": "→", "rightarrow": "→",
}
_TEX_COMMAND = re.compile(r"\\([A-Za-z]+)(?![A-Za-z])")
_TEX_GROUP = re.compile(r"\{([^{}\\^_]*)\}")


def _formula(tex: str) -> str:
    """A formula that reads as text (no sub- or superscripts, no structure: ``n + 1``, ``2π``), or a
    gap mark."""
    text = _TEX_SPACE.sub(" ", tex)
    text = _TEX_COMMAND.sub(lambda m: _TEX_SYMBOLS.get(m.group(1), m.group(0)), text)
    text = _TEX_GROUP.sub(r"\1", text)
    if len(text) <= 40 and text.strip() and "_" not in text and _PLAIN_FORMULA.fullmatch(text):
        return " ".join(text.split())
    return f" {GAP} "


_CLOSE_TAGS = {name: re.compile(rf"</{name}\s*>", re.IGNORECASE) for name in DROPPED_TAGS}
_STRAY_CLOSE = re.compile(r"</(?:" + "|".join(DROPPED_TAGS) + r")\s*>", re.IGNORECASE)


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
            if name in _GAP_TAGS:
                out.append(_formula(text[match.end():close.start()]))
    out.append(text[pos:])
    return _STRAY_CLOSE.sub("", "".join(out))


_BRACE_RUN = re.compile(r"\{\{+|\}\}+")


def _strip_templates(text: str, table: TemplateTable | None = None) -> str:
    """Remove every ``{{…}}`` and ``{{{…}}}``, nested, matching brace runs like MediaWiki.

    An opening run of n braces is one element with n braces to spend; a closing run spends
    3 (a parameter) or 2 (a template) at a time from the innermost open element. An opener
    that is never closed is not markup: only its braces are removed. With a ``table``, a
    template that stands inside a line of prose and is not silent leaves a gap mark.
    """
    if "{{" not in text:
        return text
    spans, unmatched = _brace_spans(text)
    if not spans and not unmatched:
        return text
    closed = set(spans)
    spans.extend(unmatched)
    spans.sort()
    out: list[str] = []
    line = _OutputLine()
    pos = 0
    for start, end in spans:
        if end <= pos:
            continue
        if start > pos:
            out.append(text[pos:start])
            line.add(out[-1])
        pos = max(pos, end)
        if table is not None and (start, end) in closed and _leaves_gap(text, start, end, line, table):
            out.append(f" {GAP} ")
            line.add(out[-1])
    out.append(text[pos:])
    return "".join(out)


def _brace_spans(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(the [start, end) of each closed element, in closing order; the braces of no element: a
    closing run's leftover where nothing is open, then each element never closed). Speed, in one
    place: matched in C where ``wikisilver.text._scan`` was built, else by this loop over the
    brace runs; ``tests/test_wikitext.py`` holds the two equal."""
    if _scan is not None:
        found = _scan.brace_spans(text, _MAX_TEMPLATE_DEPTH)
        if found is None:
            raise WikitextBudgetError(f"templates nested more than {_MAX_TEMPLATE_DEPTH} deep")
        return found
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
    return spans, unmatched


# What may stand before a template on its line without making it inline: list and indent
# markers, quotes, spaces.
_LINE_LEAD = " \t*#:;'"


class _OutputLine:
    """What :func:`_leaves_gap` asks of the output line a dropped template stands on, kept as the
    output grows, so that each piece is looked at once (linear in the page, however many templates
    share one long line): its first character, its first two after leading white space, and
    whether it holds anything but list markers, quotes and spaces."""

    def __init__(self) -> None:
        self.first, self.head, self.words = "", "", False

    def add(self, piece: str) -> None:
        cut = piece.rfind("\n")
        if cut >= 0:
            self.first, self.head, self.words = "", "", False
            piece = piece[cut + 1:]
        if not piece:
            return
        if not self.first:
            self.first = piece[0]
        if not self.head:
            self.head = piece.lstrip()[:2]
        elif len(self.head) == 1:
            self.head += piece[0]
        if not self.words:
            self.words = bool(piece.strip(_LINE_LEAD))


_SPACES = re.compile(r"[^\S\n]*")


def _leaves_gap(text: str, start: int, end: int, line: _OutputLine, table: TemplateTable) -> bool:
    """A dropped template inside a line of prose that renders something: the text around it on
    its line (what is left of it) has words. Lines of tables ("|", "!") are never prose."""
    if text.startswith("{{{", start) or is_silent(text[start + 2:end - 2], table):
        return False
    if line.first in ("|", "!") or line.head == "{|":
        return False
    if line.words:
        return True
    after = _SPACES.match(text, end).end()
    return text[after:after + 1].isalnum()


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


# Two passes, not one alternation: a pattern that may match anywhere is tried at every character;
# these two are tried at line starts and at "__" only (4x faster over a page, the same text: the
# switches are never part of a line's markup, and removing the markup joins no two lines).
_LINE_MARKUP = re.compile(
    r"^(?:[ \t]*=.*=[ \t]*$"  # a heading: not a sentence
    r"|[ \t]*[|!].*\n?"  # table rows left by templates that open tables
    r"|-{4,}"  # horizontal rule
    r"|[ \t]*[*#:;]+[ \t]*)",  # list and indent markers: keep the item's text
    re.MULTILINE,
)
_SWITCH = re.compile(r"__[A-Z]+__")  # behaviour switches (__NOTOC__)
_QUOTES = re.compile(r"'{2,}")
_EMPTY_PARENS = re.compile(r"\((?:[\s,;]|&nbsp;)*\)")
# "Lincoln ({{IPA|…}}; February 12, 1809 …)" loses its template: no "(;" left behind
_PAREN_LEAD = re.compile(r"\((?:\s|&nbsp;)*[,;][\s,;]*")


def _quotes(match: re.Match[str]) -> str:
    # MediaWiki reads 4 quotes as an apostrophe + bold and more than 5 as apostrophes + 5.
    run = len(match.group())
    if run == 4:
        return "'"
    if run > 5:
        return "'" * (run - 5)
    return ""


# Block layout tags: their content is running text, but a <div> opened in one paragraph and closed in
# another is not a tag to the per-paragraph parser, and would be written as text ("< div style = …").
_LAYOUT_TAG = re.compile(r"</?(?:div|center|blockquote)\b[^<>]*>", re.IGNORECASE)


def _strip_line_markup(text: str) -> str:
    """:data:`_LINE_MARKUP` out. Speed, in one place: found by a C scan of the line starts where
    ``wikisilver.text._scan`` was built, else by the expression; ``tests/test_wikitext.py`` holds
    the two equal."""
    if _scan is None:
        return _LINE_MARKUP.sub("", text)
    spans = _scan.line_markup(text)
    if not spans:
        return text
    out, pos = [], 0
    for start, end in spans:
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _strip_quotes(text: str) -> str:
    """Bold and italic markup out. Without a run of four quotes every run (of two or three) is
    markup and goes whole: the runs of three, then the pairs, by ``str.replace`` (a tenth of the
    expression's time; no run grows into another, as a run's neighbours are no quotes)."""
    if "''''" in text:
        return _QUOTES.sub(_quotes, text)
    return text.replace("'''", "").replace("''", "") if "''" in text else text


def prepass(text: str, deadline: float | None, table: TemplateTable | None = None) -> str:
    """The wikitext of a page without what the text never keeps (see the module docstring).
    With a ``table`` its inline templates are rendered first (:mod:`~wikisilver.wikitext.templates`)."""
    text = _strip_comments(text)
    text = _escape_nowiki(text)
    text = _strip_tags(text)
    if "<" in text:
        text = _LAYOUT_TAG.sub("\n", text)
    check_time(deadline)
    if table is not None:
        text = render_inline(text, table)
    text = _strip_templates(text, table)
    text = _strip_tables(text)
    check_time(deadline)
    text = _strip_line_markup(text)
    if "__" in text:
        text = _SWITCH.sub("", text)
    text = _strip_quotes(text)
    if "(" in text:
        text = _EMPTY_PARENS.sub("", text)
        text = _PAREN_LEAD.sub("(", text)
    return text


def check_time(deadline: float | None, step: str = "parsing") -> None:
    """Raise WikitextBudgetError once ``deadline`` (a ``time.perf_counter()`` value) has passed;
    ``step`` says which step of the page took too long (parsing, labelling)."""
    if deadline is not None and time.perf_counter() >= deadline:
        raise WikitextBudgetError(f"{step} took longer than the time budget")
