"""Step 2's language data: which link prefixes are files, categories, other namespaces or
other languages, which templates and categories mark a disambiguation page, the redirect magic
words and the letters of a link trail.

It comes from ``mappings/wikitext.toml`` (the ``[default]`` table every language gets), from
``mappings/<lang>/wikitext.toml`` (the language's own) and from the namespaces of the dump's
``<siteinfo>``, which give every wiki its local names for files and categories, with or without a
table of its own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from wikisilver.languages import wiki_conventions
from wikisilver.resources import load_toml

# Siteinfo namespace keys whose links vanish with their text: Media, File, Category.
_DROP_NAMESPACE_KEYS = frozenset({-2, 6, 14})


@dataclass(frozen=True)
class Language:
    """What the cleaner and the page checks know of one wiki's language."""

    drop_prefixes: frozenset[str]  # lower-cased, "_" -> " "
    other_prefixes: frozenset[str]
    disambiguation_templates: frozenset[str]  # template keys (see template_key), lower-cased
    disambiguation_categories: frozenset[str]  # lower-cased
    redirect: re.Pattern[str]
    link_trail: re.Pattern[str] | None
    interlanguage: re.Pattern[str]


@functools.cache
def template_namespaces() -> frozenset[str]:
    """Names of the Template namespace (as :func:`name_key` gives them) that a template name may carry."""
    return frozenset(name_key(name) for name in load_toml("wikitext.toml")["default"]["template_namespaces"])


def name_key(name: str) -> str:
    """A namespace, template or category name as compared: "_" = " ", one space, lower case."""
    return " ".join(name.replace("_", " ").split()).lower()


@functools.lru_cache(maxsize=1 << 16)  # a wiki's pages use the same few thousand templates
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


# Cached: every page of a wiki asks for the same data.
@functools.lru_cache(maxsize=64)
def _lang_data(lang: str, namespaces: tuple[tuple[int, str], ...] = ()) -> Language:
    default = load_toml("wikitext.toml")["default"]
    own = wiki_conventions(lang, "wikitext.toml")

    def merged(name: str) -> list:
        return list(default.get(name, [])) + list(own.get(name, []))

    drop = {name_key(n) for n in merged("drop_namespaces")}
    other = {name_key(n) for n in merged("other_namespaces")}
    for key, name in namespaces:
        if name:
            (drop if key in _DROP_NAMESPACE_KEYS else other).add(name_key(name))
    other -= drop
    words = sorted({w for w in merged("redirect")}, key=len, reverse=True)
    redirect = re.compile(
        r"\s*+(?:" + "|".join(re.escape(w) for w in words) + r")\s*+:?\s*+\[\[([^\]\|\n]*+)",
        re.IGNORECASE,
    )
    trail_class = own.get("link_trail", default.get("link_trail", "a-z"))
    link_trail = re.compile(f"[{trail_class}]+") if trail_class else None
    return Language(
        drop_prefixes=frozenset(drop),
        other_prefixes=frozenset(other),
        disambiguation_templates=frozenset(name_key(n) for n in merged("disambiguation_templates")),
        disambiguation_categories=frozenset(name_key(n) for n in merged("disambiguation_categories")),
        redirect=redirect,
        link_trail=link_trail,
        interlanguage=re.compile(default["interlanguage"]),
    )


def language_data(lang: str, namespaces: Mapping[int, str] | None = None) -> Language:
    """The language data of ``lang``, with the local namespace names of the wiki's siteinfo."""
    frozen = tuple(sorted((int(k), str(v)) for k, v in namespaces.items())) if namespaces else ()
    return _lang_data(lang, frozen)
