"""Step 2's page-level questions, asked of the raw wikitext before any cleaning: is the page a
redirect (and to where), a disambiguation page, and which templates does it use (the infobox
that types its title in step 1)."""

from __future__ import annotations

import html
import re

from wikisilver.titles import normalize_title
from wikisilver.wikitext.language import language_data, name_key, template_namespaces

# "{{" neither preceded nor followed by another "{" (three braces open a parameter).
_TEMPLATE_NAME = re.compile(r"(?<!\{)\{\{(?!\{)\s*([^{}|\n<\[\]]*?)\s*(?=[|}\n<])")
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


def template_key(name: str) -> str:
    """A template name as MediaWiki resolves it: no subst:, no Template: prefix, "_" = " "."""
    name = " ".join(name.replace("_", " ").split())
    lowered = name.lower()
    for prefix in ("subst:", "safesubst:", "msgnw:", "msg:", "raw:"):
        if lowered.startswith(prefix):
            name = name[len(prefix):].lstrip()
            lowered = name.lower()
    head, colon, rest = name.partition(":")
    if colon and name_key(head) in template_namespaces():
        name = rest.strip()
    return name[:1].upper() + name[1:]


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
        if colon and name_key(head) not in template_namespaces() and name_key(head) not in {"subst", "safesubst"}:
            continue  # DEFAULTSORT:, lc:, padleft: … and interwiki transclusions
        if _MAGIC_WORD.match(raw.strip()):
            continue
        name = template_key(raw)
        if name:
            seen.setdefault(name, None)
    return list(seen)


_CATEGORY_LINK = re.compile(r"\[\[\s*([^\]\|:\n]+?)\s*:\s*([^\]\|\n]+?)\s*(?:\|[^\]]*)?\]\]")


def is_disambiguation(wikitext: str, lang: str = "en") -> bool:
    """Whether a page is a disambiguation page: its templates, categories or ``__DISAMBIG__``."""
    if "__DISAMBIG__" in wikitext:
        return True
    data = language_data(lang)
    for name in template_names(wikitext):
        if name_key(name) in data.disambiguation_templates:
            return True
    if data.disambiguation_categories:
        for match in _CATEGORY_LINK.finditer(wikitext):
            if name_key(match.group(1)) in data.drop_prefixes and (
                name_key(match.group(2)) in data.disambiguation_categories
            ):
                return True
    return False
