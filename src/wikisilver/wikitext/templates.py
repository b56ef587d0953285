"""Step 2's inline templates: the common templates of running text rendered to their text.

MediaWiki renders ``{{convert|663268|sqmi}}`` or ``{{lang|la|…}}`` to words inside a sentence;
dropped with the other templates they would leave a gap ("in land area at , over twice the size
of Texas"). The tables of ``mappings/templates.toml`` (documented at its top; ``[default]``) and
of ``mappings/<lang>/templates.toml`` (the language's own) say which templates render nothing
(``silent``) and what the others render to. :func:`render_inline`
replaces every template it knows, innermost first, before the pre-pass drops the rest;
:func:`is_silent` tells that pre-pass which dropped templates leave no gap.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from wikisilver.languages import wiki_conventions
from wikisilver.resources import load_toml
from wikisilver.wikitext.language import name_key, template_key

# What a dropped inline template or formula leaves in the text: one symbol token, removed again
# by the labeller, which drops its sentence (``sentences_dropped_fragment.template_gap``).
GAP = "\ufffc"

# An innermost template: no braces inside. Parser functions ({{formatnum:…}}, {{#if:…}}) included.
_INNERMOST = re.compile(r"\{\{(?!\{)([^{}]*)\}\}(?!\}(?!\}))")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_NUMBER = re.compile(r"^[\d.,\-−–+]+(?:e\d+)?$")
_RANGE_WORDS = frozenset({"to", "-", "–", "and", "or", "by", "x", "×", "+", "to(-)", "and(-)"})


@dataclass(frozen=True)
class TemplateTable:
    """The inline-template table of one language (``mappings/templates.toml`` and ``mappings/<lang>/``)."""

    silent: frozenset[str]
    render: Mapping[str, str]
    prefixes: Mapping[str, str]
    units: Mapping[str, str]
    months: tuple[str, ...]
    date_format: str


@functools.lru_cache(maxsize=16)
def template_table(lang: str) -> TemplateTable:
    """The table of ``lang``: its own entries over the ``[default]`` ones."""
    default, own = load_toml("templates.toml")["default"], wiki_conventions(lang, "templates.toml")

    def merged(key: str) -> dict[str, str]:
        return {name_key(k): v for part in (default, own) for k, v in part.get(key, {}).items()}

    return TemplateTable(
        silent=frozenset(name_key(n) for part in (default, own) for n in part.get("silent", ())),
        render=merged("render"),
        prefixes=merged("prefixes"),
        units={**default.get("units", {}), **own.get("units", {})},
        months=tuple(own.get("months", default.get("months", ()))),
        date_format=own.get("date_format", default.get("date_format", "{year}-{month}-{day}")),
    )


def template_name(body: str) -> str:
    """The name key of a template from the text inside its braces, resolved as MediaWiki does
    (:func:`~wikisilver.wikitext.language.template_key`: ``convert|25|ft``, ``Template:Convert|25|ft``
    and ``subst:convert|25|ft`` -> ``convert``); a parser function ``formatnum:1234`` -> ``formatnum``."""
    return _name_and_argument(body.split("|", 1)[0])[0]


def _name_and_argument(head: str) -> tuple[str, str | None]:
    """The name key of a template from the text before its first ``|``, and the argument of a
    parser function as written (``formatnum:1_234`` -> ``formatnum``, ``1_234``; None for a
    template). The name is resolved by ``template_key``; the argument is not a name, and keeps its
    underscores and spaces."""
    key = template_key(head)
    if ":" not in key or key.startswith("#"):
        return name_key(key), None
    prefixes = head.count(":") - key.count(":")  # colons of a subst: or Template: before the name
    return name_key(key.split(":", 1)[0]), head.split(":", prefixes + 1)[prefixes + 1]


def is_silent(body: str, table: TemplateTable) -> bool:
    return template_name(body) in table.silent


def render_inline(text: str, table: TemplateTable) -> str:
    """``text`` with every template of the table replaced by its rendering, innermost first."""
    if "{{" not in text:
        return text

    rendered: dict[str, str | None] = {}  # each body rendered once: a pass re-reads those it left

    def replace(match: re.Match[str]) -> str:
        body = match.group(1)
        if body not in rendered:
            rendered[body] = _render(body, table)
        found = rendered[body]
        return match.group(0) if found is None else found

    for _ in range(8):  # nesting depth of templates inside rendered parameters
        new = _INNERMOST.sub(replace, text)
        if new == text:
            break
        text = new
    return text


def _split(body: str) -> list[str]:
    """A template body split at ``|`` outside links: its head, then its parameters."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == "|" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return parts


def _head(body: str) -> str:
    """``_split(body)[0]``, without splitting the rest: most templates are never rendered."""
    head = body.split("|", 1)[0]
    return _split(body)[0] if "[" in head else head  # a link opened before the first "|"


def _params(parts: list[str], argument: str | None) -> tuple[list[str], dict[str, str]]:
    """Positional and named parameters of a template from its parts after the head; a parser
    function's ``argument`` (``{{formatnum:1234}}``) is the first positional one."""
    positional: list[str] = [] if argument is None else [argument]
    named: dict[str, str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if eq and "[" not in key and key.strip():
            named[key.strip()] = value.strip()
        else:
            positional.append(part.strip())
    return positional, named


def _render(body: str, table: TemplateTable) -> str | None:
    """The text of one template without nested templates, or None when the table does not know it."""
    name, argument = _name_and_argument(_head(body))
    if name in table.silent:
        return ""
    pattern = table.render.get(name)
    if pattern is None:
        pattern = next((p for prefix, p in table.prefixes.items() if name.startswith(prefix)), None)
    if pattern is None:
        return None  # most templates (citations, infoboxes): their parameters are never split
    positional, named = _params(_split(body)[1:], argument)
    if pattern == "@convert":
        return _convert(positional, table)
    if pattern == "@date":
        return _date(positional, table)
    if pattern == "@frac":
        return " ".join(positional[:-2] + ["/".join(positional[-2:])]) if len(positional) > 1 else f"1/{''.join(positional)}"
    if pattern == "@join":
        return "".join(p for p in positional if p not in {"-", "lang", "pron", "US", "UK", "local"}).replace("_", " ")

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key.isdigit():
            index = int(key) - 1
            return positional[index] if index < len(positional) else ""
        return named.get(key, match.group(0))

    return _PLACEHOLDER.sub(value, pattern)


def _convert(positional: list[str], table: TemplateTable) -> str | None:
    """``{{convert|25|ft|m}}`` -> ``25 ft``; ``{{convert|10|to|20|km}}`` -> ``10 to 20 km``."""
    words = []
    for part in positional:
        if _NUMBER.match(part) or (words and part in _RANGE_WORDS):
            words.append(part)
            continue
        if not words:
            return None
        words.append(table.units.get(part, part))
        return " ".join(words)
    return " ".join(words) if words else None


def _date(positional: list[str], table: TemplateTable) -> str | None:
    """``{{Start date|2003|6|26}}`` -> ``June 26, 2003`` (the language's ``date_format``)."""
    numbers = [p for p in positional if p.isdigit()]
    if not numbers:
        return None
    year = numbers[0]
    if len(numbers) < 3 or not table.months or not 1 <= int(numbers[1]) <= 12:
        return year
    month = table.months[int(numbers[1]) - 1]
    return table.date_format.format(year=year, month=month, day=int(numbers[2]))
