"""Step 2 of the method: parse an article's wikitext, keep its running text and its links.

* :mod:`~wikisilver.wikitext.clean`: :func:`clean_wikitext`, an article as plain text and the
  spans of the links in it;
* :mod:`~wikisilver.wikitext.markup`: the pre-passes that remove templates, tables, tags and
  line markup before the parser sees the page;
* :mod:`~wikisilver.wikitext.builder`: the rendering of the remaining prose, links included;
* :mod:`~wikisilver.wikitext.page`: page-level questions (redirect target, template names,
  disambiguation);
* :mod:`~wikisilver.wikitext.language`: the language data from ``mappings/wikitext.toml`` and
  the dump's ``<siteinfo>``.
"""

from wikisilver.wikitext.clean import CleanText, clean_wikitext
from wikisilver.errors import WikitextBudgetError
from wikisilver.wikitext.language import template_key
from wikisilver.wikitext.page import is_disambiguation, page_kind, redirect_target, template_names

__all__ = [
    "CleanText",
    "WikitextBudgetError",
    "clean_wikitext",
    "is_disambiguation",
    "page_kind",
    "redirect_target",
    "template_key",
    "template_names",
]
