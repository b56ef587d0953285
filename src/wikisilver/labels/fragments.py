"""Step 4 of the method, before labelling: pieces of text that are not sentences at all.

Reference-list entries (``McCullough , David .``), HTML left over from broken markup
(``< / div >``), one-word pieces (``.``, ``ELSE``) and pieces over the size bounds of
:mod:`~wikisilver.labels.limits` are never written: the labeller drops them
before it labels anything and counts each under its reason (``stats.json`` →
``sentences_dropped_fragment``). Low-quality flags (:mod:`~wikisilver.labels.quality`) are for
real sentences that are fragments of prose; these are not prose. One kind needs the labels and the
tagger first, and is dropped after them: a bare phrase that no link explains
(:func:`is_unlinked_phrase`).
"""

from __future__ import annotations

from collections.abc import Sequence

from wikisilver.labels.limits import MAX_SENTENCE_TOKENS, MAX_TOKEN_CHARS
from wikisilver.labels.quality import ends_like_a_sentence
from wikisilver.text.base import TextProcessor

# HTML and extension tag names whose markup may survive broken wikitext as text.
_HTML_TAGS = frozenset({
    "div", "span", "p", "br", "hr", "center", "font", "small", "big", "sup", "sub", "table", "tr",
    "td", "th", "ul", "ol", "li", "dl", "dt", "dd", "blockquote", "ref", "references", "gallery",
    "poem", "tt", "code", "pre", "b", "i", "u", "s", "abbr", "cite", "math", "nowiki", "noinclude",
    "includeonly", "onlyinclude", "section", "timeline", "imagemap", "syntaxhighlight", "source",
})


def _is_word(token: str) -> bool:
    return token[:1].isalnum() or any(ch.isalnum() for ch in token)  # most words: the first letter


def _is_name_word(token: str) -> bool:
    """A capitalized word or an initial (``David``, ``E``, ``E.``)."""
    return token[:1].isupper() and token.rstrip(".").replace("-", "").replace("'", "").isalpha()


def is_html_leftover(tokens: Sequence[str]) -> bool:
    """``< div style = " float : right ; " >``, ``< / div >``: a tag written out as text."""
    for k, token in enumerate(tokens[:-1]):
        if token != "<":
            continue
        name = tokens[k + 2] if tokens[k + 1] == "/" and k + 2 < len(tokens) else tokens[k + 1]
        if name.lower() in _HTML_TAGS and ">" in tokens[k + 1:]:
            return True
    return False


def is_reference_entry(tokens: Sequence[str]) -> bool:
    """``McCullough , David .``, ``Knuth , Donald E . ( 2000 ) .``: "Surname, Given names" and
    then the end or a year in brackets, nothing else: the head of a reference-list entry (list
    entries of the same shape, ``Warsaw , Poland ( 1991 )``, are not sentences either)."""
    if len(tokens) < 3 or tokens[1] != "," or not (_is_name_word(tokens[0]) and _is_name_word(tokens[2])):
        return False
    k = 3
    while k < len(tokens) and (_is_name_word(tokens[k]) or tokens[k] == "."):
        k += 1
    if k == len(tokens):
        return tokens[-1] == "."
    return tokens[k] == "(" and k + 1 < len(tokens) and tokens[k + 1][:4].isdigit()


def size_reason(tokens: Sequence[str], chars: int | None = None) -> str | None:
    """``long_sentence`` (more than :data:`~wikisilver.labels.limits.MAX_SENTENCE_TOKENS` tokens)
    or ``long_token`` (one longer than :data:`~wikisilver.labels.limits.MAX_TOKEN_CHARS`):
    broken markup, never prose, and over what labelling one sentence may cost; else None.
    ``chars``: the length of the text the tokens were cut from, which no token's exceeds."""
    if len(tokens) > MAX_SENTENCE_TOKENS:
        return "long_sentence"
    if (chars is None or chars > MAX_TOKEN_CHARS) and max(map(len, tokens), default=0) > MAX_TOKEN_CHARS:
        return "long_token"
    return None


def fragment_reason(tokens: Sequence[str]) -> str | None:
    """Why these tokens are not a sentence (``one_word``, ``html``, ``reference_entry``), or None."""
    words = (t for t in tokens if _is_word(t))
    if next(words, None) is None or next(words, None) is None:  # fewer than two words
        return "one_word"
    if "<" in tokens and is_html_leftover(tokens):
        return "html"
    if is_reference_entry(tokens):
        return "reference_entry"
    return None


def is_unlinked_phrase(
    tokens: Sequence[str], annotations: Sequence[tuple[str, ...]], processor: TextProcessor
) -> bool:
    """``bbw-hochschule (bbw)``, ``94'3 rs2``, ``Office of the President``: a line with neither a
    sentence mark at its end nor a finite verb (a heading, a list entry, a caption). Asked only of a
    sentence where no link stood and no entity was found: such lines are most often entries of
    lists of names (universities, radio stations), and a name in one escapes the capitalization test
    when it is written in lower case or digits, so its O labels cannot be trusted. A language
    without a tagger never has one (:meth:`TextProcessor.has_finite_verb` says True)."""
    return not ends_like_a_sentence(tokens) and not processor.has_finite_verb(tokens, annotations)
