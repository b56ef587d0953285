"""Title normalization shared by every source: dump titles, link targets, DBpedia URIs, SQL rows.

MediaWiki treats ``Foo_bar``, ``foo bar`` and ``Foo bar`` as the same page (on first-letter
case wikis), so every key that joins two sources goes through :func:`normalize_title`.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_SPACES = re.compile(r"[\s_\u00a0]+")
DBPEDIA_RESOURCE = re.compile(r"^https?://(?:[a-z\-]+\.)?dbpedia\.org/resource/")


def normalize_title(title: str, first_letter_case: bool = True) -> str:
    """Canonical form of a page title: spaces not underscores, no fragment, first letter upper."""
    if not title:
        return ""
    if "#" in title:
        title = title.split("#", 1)[0]
    spaced = title.replace("_", " ")
    # an ASCII title without control characters holds no white space but single spaces: nothing
    # for the expression to change (the titles of a dump's links and its types file, by millions)
    title = (spaced if spaced.isascii() and spaced.isprintable() and "  " not in spaced
             else _SPACES.sub(" ", title)).strip()
    if title.startswith(":"):
        title = title[1:].lstrip()
    if first_letter_case and title:
        title = title[0].upper() + title[1:]
    return title


def title_from_uri(uri: str) -> str:
    """Title of a DBpedia resource URI (``http://dbpedia.org/resource/Foo_(bar)`` -> ``Foo (bar)``)."""
    local = DBPEDIA_RESOURCE.sub("", uri.strip("<>"))
    return normalize_title(unquote(local))


def drop_parenthetical(title: str, inner_parens: bool = True) -> str:
    """``title`` without a final parenthetical and the spaces around it ("Paris (Texas)" ->
    "Paris"), as ``re.sub(r"\\s*\\([^)]*\\)\\s*$", "", title)`` gives it (``inner_parens=False``:
    ``[^()]*``, no "(" inside), in one pass: the expression itself is quadratic on a title of
    many "(" or spaces, which a page can write into a link."""
    body = title.rstrip()
    if not body.endswith(")"):
        return title
    close = len(body) - 1
    after = body.rfind(")", 0, close) + 1  # the parenthetical opens after the one before it
    opening = body.find("(", after, close) if inner_parens else body.rfind("(", after, close)
    if opening < 0:
        return title
    return title[:len(title[:opening].rstrip())]
