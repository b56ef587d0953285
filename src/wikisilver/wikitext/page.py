"""Step 2's page-level questions, asked of the raw wikitext before any cleaning: is the page a
redirect (and to where), a disambiguation page, and which templates does it use (the infobox
that types its title in step 1)."""

from __future__ import annotations

import functools
import html
import re
import time

from wikisilver.titles import normalize_title
from wikisilver.wikitext.language import language_data, name_key, template_key, template_namespaces
from wikisilver.wikitext.markup import check_time

# How many matches a long pass handles between two looks at the page's deadline.
_CHECK_EVERY = 1024

# "{{" neither preceded nor followed by another "{" (three braces open a parameter). The name
# (stripped by the caller) is matched possessively: no backtracking, so linear on any text. The
# look back comes after the "{{": a pattern that starts with a literal lets ``re`` skip to each
# "{{" (8x faster over a whole page than trying the look back at every character).
_TEMPLATE_NAME = re.compile(r"\{\{(?<!\{\{\{)(?!\{)(\s*+[^{}|\n<\[\]]*+)(?=[|}\n<])")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_MAGIC_WORD = re.compile(r"^[A-Z0-9_]+$")
# The Template namespace in the languages with a table (lower case): "{{Sablon:X}}" is "{{X}}".


def redirect_target(wikitext: str, lang: str = "en") -> str | None:
    """Target title of a redirect page (``#REDIRECT [[X]]``, localized), or None."""
    match = language_data(lang).redirect.match(wikitext)
    if not match:
        return None
    target = normalize_title(html.unescape(match.group(1)))
    return target or None


def template_names(wikitext: str, deadline: float | None = None) -> list[str]:
    """Names of the templates a page uses, top-level and nested, in page order, each once.

    Parser functions (``{{#if:…}}``), magic words (``{{DEFAULTSORT:…}}``, ``{{PAGENAME}}``) and
    template parameters (``{{{1}}}``) are not templates and are left out. ``deadline`` (a
    ``time.perf_counter()`` value): :class:`WikitextBudgetError` once it has passed.
    """
    if "<!--" in wikitext:
        wikitext = _COMMENT.sub("", wikitext)
        check_time(deadline)
    seen: dict[str, None] = {}
    for number, match in enumerate(_TEMPLATE_NAME.finditer(wikitext)):
        if number % _CHECK_EVERY == 0:
            check_time(deadline)
        name = _name_of(match.group(1))
        if name:
            seen.setdefault(name, None)
    return list(seen)


@functools.lru_cache(maxsize=1 << 16)  # a wiki's pages write the same few thousand names
def _name_of(written: str) -> str:
    """The template a name as written calls (:func:`template_key`), "" where it calls none."""
    raw = written.strip()
    if not raw or raw.startswith("#"):
        return ""
    head, colon, _ = raw.partition(":")
    if colon and name_key(head) not in template_namespaces() and name_key(head) not in {"subst", "safesubst"}:
        return ""  # DEFAULTSORT:, lc:, padleft: … and interwiki transclusions
    if _MAGIC_WORD.match(raw):
        return ""
    return template_key(raw)


# [[Prefix:Name|sort key]], prefix and name stripped by the caller. Possessive, and no part runs
# past the next "[[" (where the next link would start), so the scan is linear on any text.
_CATEGORY_LINK = re.compile(
    r"\[\[\s*+((?:[^\[\]\|:\n]|\[(?!\[))++)\s*+:\s*+((?:[^\[\]\|\n]|\[(?!\[))++)\s*+(?:\|(?:[^\[\]]|\[(?!\[))*+)?\]\]"
)


def is_disambiguation(wikitext: str, lang: str = "en", deadline: float | None = None) -> bool:
    """Whether a page is a disambiguation page: its templates, categories or ``__DISAMBIG__``.

    ``deadline``: as for :func:`template_names`, checked inside each pass over the page too."""
    if "__DISAMBIG__" in wikitext:
        return True
    data = language_data(lang)
    for name in template_names(wikitext, deadline):
        if name_key(name) in data.disambiguation_templates:
            return True
    if data.disambiguation_categories:
        for number, match in enumerate(_CATEGORY_LINK.finditer(wikitext)):
            if number % _CHECK_EVERY == 0:
                check_time(deadline)
            if name_key(match.group(1)) in data.drop_prefixes and (
                name_key(match.group(2)) in data.disambiguation_categories
            ):
                return True
    return False


def page_kind(
    wikitext: str, lang: str, max_chars: int, max_seconds: float | None, redirect: str | None = None,
) -> tuple[str, str | None]:
    """``("redirect", target)``, ``("disambiguation", None)`` or ``("article", None)``: step 2's
    routing of a main-namespace page, inside the page budget.

    ``redirect`` is the dump's own ``<redirect title=…>``. A page longer than ``max_chars`` is
    not read (an article, which the cleaner then rejects as over budget); the checks of the
    text raise :class:`WikitextBudgetError` once ``max_seconds`` have passed.
    """
    if redirect:
        return "redirect", redirect
    if len(wikitext) > max_chars:
        return "article", None
    deadline = time.perf_counter() + max_seconds if max_seconds is not None else None
    target = redirect_target(wikitext, lang)
    if target:
        return "redirect", target
    if is_disambiguation(wikitext, lang, deadline):
        return "disambiguation", None
    return "article", None
