"""Step 2 of the method: an article's wikitext as plain paragraphs and the links in them.

:func:`clean_wikitext` turns the wikitext of one article into plain text plus the character
spans of the wikilinks that survive in it (:class:`~wikisilver.records.Link`), which is what
the labeller projects entity types onto.

How: mwparserfromhell is exact but slow, and most of a big article's bytes are things that are
dropped anyway, so the pre-passes (:mod:`~wikisilver.wikitext.markup`) remove templates,
tables, references and comments first, and only the remaining prose is parsed
(:mod:`~wikisilver.wikitext.builder`), one paragraph at a time. Parsing per paragraph bounds
the parser's backtracking on broken markup and gives natural points to check the time budget;
a page that is too big or too slow raises :class:`WikitextBudgetError` and the pipeline sends
it to rejects.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from wikisilver.records import Link
from wikisilver.text.base import scans as _scan  # the compiled scans, None where none were built
from wikisilver.wikitext.builder import Builder
from wikisilver.wikitext.language import language_data
from wikisilver.errors import WikitextBudgetError
from wikisilver.wikitext.markup import check_time, prepass
from wikisilver.wikitext.templates import template_table

_MAX_CHUNK = 16_384
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
# Whitespace that normalization changes inside the text: runs of two or more, and any whitespace
# character other than a plain space or newline. A lone space or newline stays as it is. Written
# to start with \s, which lets the engine skip to the next white space at C speed: the matches of
# r"\s{2,}|[^\S \n]" (tests/test_wikitext.py), found in less than half the time.
_CHANGED_SPACE = re.compile(r"\s(?:\s+|(?<=[^ \n]))")


@dataclass(frozen=True)
class CleanText:
    """Plain text of an article and the links in it (anchor spans index into ``text``)."""

    text: str
    links: tuple[Link, ...]


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
    to ``normalize_title(Target)``. ``namespaces`` are the wiki's own namespace names from the
    dump's ``<siteinfo>`` (key -> name): links to its files and categories vanish with their
    captions, also in a language without a table in ``mappings/wikitext.toml``. Paragraphs are
    separated by a blank line, list items keep a line each. Raises
    :class:`WikitextBudgetError` for a page longer than ``max_chars`` or one whose cleaning
    takes longer than ``max_seconds``; never raises otherwise.
    """
    if len(wikitext) > max_chars:
        raise WikitextBudgetError(f"page has {len(wikitext):,} characters, over the budget of {max_chars:,}")
    deadline = time.perf_counter() + max_seconds if max_seconds is not None else None
    text = prepass(wikitext.replace("\r\n", "\n").replace("\r", "\n"), deadline, template_table(lang))
    builder = Builder(language_data(lang, namespaces))
    for paragraph in _paragraphs(text):
        if not paragraph.strip():
            continue
        for chunk in _chunks(paragraph):
            builder.prose(chunk)
            check_time(deadline)
        builder.add("\n\n")
    return _normalize("".join(builder.parts), builder.links)


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


def _space_runs(text: str) -> Iterator[tuple[int, int]]:
    """The whitespace runs normalization changes, in order: the leading and the trailing run whole,
    and inside the text the runs :data:`_CHANGED_SPACE` finds."""
    length = len(text)
    content_end = len(text.rstrip())
    lead = length - len(text.lstrip()) if content_end else length
    if lead:
        yield 0, lead
    if _scan is not None:  # the same runs, scanned in C (wikisilver/text/_scan.c)
        yield from _scan.space_runs(text, lead, content_end)
    else:
        for match in _CHANGED_SPACE.finditer(text, lead, content_end):
            yield match.span()
    if lead < content_end < length:
        yield content_end, length


def _normalize(text: str, spans: list[tuple[int, int, str]]) -> CleanText:
    """One space between words, one newline between lines, a blank line between paragraphs,
    nothing at the ends; the link spans moved with the text."""
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
