"""Step 2 (linguistic layer), language-independent defaults: sentences, tokens, lemma and POS.

The labelling rules of steps 3–4 need, per sentence, character spans of tokens, a POS tag good
enough to tell a proper noun from a sentence-initial common word, and whether the sentence has a
finite verb (fragments are flagged low quality). :class:`TextProcessor` gives crude but
language-independent answers; the English and Hungarian subclasses refine them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

import regex  # the third-party engine: \p{M} (combining marks), which ``re`` cannot express

try:
    # The compiled scans of text (text/_scan.c; compiled at install where a C compiler is found),
    # imported here only: the cleaner and the evidence rules take them from this module.
    from wikisilver.text import _scan as scans
except ImportError:  # pragma: no cover - an install without a C compiler
    scans = None

# Sentence end: terminal punctuation, optional closing quotes/brackets, then whitespace and the
# first visible character of the next sentence (after optional opening quotes/brackets).
# Possessive, and only from the start of a run of marks: linear on a line of thousands of dots.
_BOUNDARY = re.compile(r"(?<![.!?…।॥։؟۔።፧])([.!?…।॥։؟۔።፧]++)[\"'”’»)\]]*+(?=\s++[\"'“„«‘(\[¿¡]*+(\w))")
# Chinese and Japanese end sentences with full-width marks and no space after them.
_CJK_BOUNDARY = re.compile(r"(?<![。！？])[。！？]++[」』）”’]*+(?=[^\s。！？」』）”’])")
# Han, kana and their compatibility forms: written without spaces between words. Without a word
# segmenter (none ships offline), each character is a token, the usual unit of Chinese and
# Japanese NER corpora; link anchors then always fall on token boundaries.
_CJK = "\u3005\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
# A word character is \w or a combining mark (\p{M}): Bengali, Devanagari and other Indic
# scripts write vowel signs as marks, which Python's own \w leaves out ("বাংলা" would fall apart).
_WORD = rf"(?:(?![{_CJK}])[\w\p{{M}}])"
_GENERIC_TOKEN = regex.compile(
    rf"[{_CJK}]|\d+(?:[.,:/]\d+)+|{_WORD}+(?:[-‐'’]{_WORD}+)*|\.{{2,}}|-{{2,}}|[^\w\s\p{{M}}]"
)
_LINE = re.compile(r"[^\n]+")


Scan = Callable[..., list[tuple[int, int]]]  # (text, start, end[, a list for the tokens]) -> spans


def compiled_scanner(pattern: "re.Pattern[str] | regex.Pattern[str]", specials: str | None,
                     abbreviations: frozenset[str] = frozenset()) -> Scan | None:
    """Speed, in one place: the token spans of ``pattern`` (a treebank pattern under
    :func:`skipping_spaces`; ``specials``: :func:`wikisilver.text.tokens.treebank_specials`;
    ``abbreviations``: every abbreviation of the pattern, with its period) from the C module
    ``_scan``, which scans plain words, words before a final period and marks itself and asks the
    expression for every other token; None where that module was not built or the pattern is
    another, and :meth:`TextProcessor.tokenize` runs the expression alone. The same tokens
    (``tests/test_text.py::test_compiled_tokens_are_the_expressions``), in a third of the time
    (docs/performance.md)."""
    if scans is None or specials is None or not isinstance(pattern, re.Pattern) or pattern.flags & re.ASCII:
        return None
    if not pattern.pattern.startswith(r"\s*+(?:(" + scans.plain_word() + "|"):
        return None
    return functools.partial(scans.spans, pattern.search, specials, frozenset(abbreviations))


def skipping_spaces(pattern: "re.Pattern[str] | regex.Pattern[str]") -> "re.Pattern[str] | regex.Pattern[str]":
    r"""Speed, in one place: a token pattern that steps over the white space before each token.

    ``pattern``'s alternatives match at every character but white space (the last one takes any
    character that is neither a word character nor a space) and none at a space. A search for it
    tries every alternative at every space before it gives up there, and between words that is
    most of a tokenizer's time; this one takes a run of spaces in one possessive step, with the
    token as group 1: the same tokens a third sooner (docs/performance.md). Spaces at the end of
    the text end in a match of them and an empty one at the end (``\Z``, group 1 unset), so that
    no run of them is scanned again from each of its positions. :meth:`TextProcessor.tokenize` reads it;
    ``tests/test_text.py::test_skipping_spaces_gives_the_same_tokens`` holds the two equal."""
    engine = re if isinstance(pattern, re.Pattern) else regex
    return engine.compile(r"\s*+(?:(" + pattern.pattern + r")|\Z)", pattern.flags)


_PUNCT = re.compile(r"^[^\w\s]+$")
# What the default tagger lets stand before a capitalized first word (which it does not call PROPN).
_OPENERS = frozenset("\"'“„«‘([¿¡")
# What may stand before a sentence's first word: quotes, brackets, dashes, bullets. The labeller's
# sentence-initial rules and the English tagger's first-word decision look at the same token.
OPENING = frozenset({'"', "'", "“", "‘", "„", "«", "(", "[", "-", "–", "—", "*", "•"})
# URLs and e-mail addresses, one token each, for every language's token pattern (the e-mail's local
# part is bounded: unbounded, "a.a.a…" made the pattern rescan the run at every position).
URL_OR_EMAIL = (r"(?:https?://|www\.)[^\s<>\"]*[^\s<>\".,;:!?)\]'}]"
                r"|[\w.+-]{1,64}@\w[\w-]*(?:\.\w[\w-]*)+")


def first_word(tokens: Sequence[str], opening: frozenset[str] = OPENING) -> int:
    """The index of a sentence's first word: the first token that is not in ``opening`` (0 if none)."""
    for k, token in enumerate(tokens):
        if token not in opening:
            return k
    return 0
FINITE_POS = frozenset({"VERB", "AUX"})


class TextProcessor:
    """Language-independent processor; subclasses override the hooks marked below."""

    lang: str = "xx"
    #: abbreviations (exact, with their period) after which a sentence never ends
    abbreviations: frozenset[str] = frozenset()
    #: whether a sentence may start with a digit (a period before a number then ends a sentence)
    digit_starts_sentence: bool = True

    def __init__(self, lang: str = "xx") -> None:
        self.lang = lang

    # -- sentences --------------------------------------------------------------------------

    def split_sentences(self, text: str) -> list[tuple[int, int]]:
        """[start, end) spans of the sentences of ``text``, stripped of surrounding whitespace.

        Every line is split on its own: paragraphs ("\\n\\n") and list items (one per line)
        always end a sentence, and no sentence crosses a line break.
        """
        spans: list[tuple[int, int]] = []
        for line in _LINE.finditer(text):
            start, end = line.span()
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
            if start < end:
                spans.extend(self._split_block(text, start, end))
        return spans

    def _split_block(self, text: str, start: int, end: int) -> list[tuple[int, int]]:
        """Sentences of one line (hook: the English processor uses Punkt here)."""
        spans = []
        current = start
        for match in _BOUNDARY.finditer(text, start, end):
            following = match.group(2)
            if not (is_capitalized(following) or (following.isdigit() and self.digit_starts_sentence)):
                continue
            if match.group(1) == "." and self._period_is_not_final(text, current, match.start(1), following):
                continue
            spans.append((current, match.end()))
            current = match.end()
            while current < end and text[current].isspace():
                current += 1
        if current < end:
            spans.append((current, end))
        return [piece for span in spans for piece in _split_cjk(text, *span)]

    def _period_is_not_final(self, text: str, line_start: int, dot: int, following: str) -> bool:
        """Whether the period at ``dot`` belongs to the word before it (abbreviation, initial)."""
        word_start = max(text.rfind(" ", line_start, dot), text.rfind("\t", line_start, dot), line_start - 1) + 1
        word = text[word_start : dot + 1]
        while word and word[0] in _OPENERS:
            word = word[1:]
        if word in self.abbreviations:
            return True
        # a single capital letter and a period is an initial ("J. Smith")
        return len(word) == 2 and word[0].isupper()

    # -- tokens -----------------------------------------------------------------------------

    _token_pattern: "re.Pattern | regex.Pattern" = skipping_spaces(_GENERIC_TOKEN)
    _scan: Scan | None = None  # the pattern's compiled scanner, where it has one (compiled_scanner)

    def tokenize(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
        """Absolute [start, end) spans of the tokens in ``text[start:end]``."""
        if end is None:
            end = len(text)
        if self._scan is not None:
            return self._scan(text, start, end)
        spans = [m.span(1) for m in self._token_pattern.finditer(text, start, end)]
        while spans and spans[-1][0] < 0:  # the end after the last token: spaces, then the end itself
            spans.pop()
        return spans

    def spans_and_tokens(
        self, text: str, start: int = 0, end: int | None = None, relative: bool = False
    ) -> tuple[list[tuple[int, int]], list[str]]:
        """:meth:`tokenize`'s spans and the tokens they cut out of ``text`` (the compiled scanner
        cuts them as it goes); ``relative``: the spans less ``start`` (a sentence's own offsets,
        small integers that Python shares rather than makes two a token)."""
        if end is None:
            end = len(text)
        if self._scan is not None:
            tokens: list[str] = []
            return self._scan(text, start, end, tokens, start if relative else 0), tokens
        spans = self.tokenize(text, start, end)
        tokens = [text[s:e] for s, e in spans]
        return ([(s - start, e - start) for s, e in spans] if relative else spans), tokens

    # -- lemma and POS ----------------------------------------------------------------------

    def annotate(self, tokens: Sequence[str]) -> list[tuple[str, str]]:
        """(lemma, UPOS) per token: digits NUM, punctuation PUNCT, capitalized non-initial PROPN.
        A subclass may add fields after these two for its own :meth:`has_finite_verb` (English
        adds the VerbForm); the labeller reads only the first two."""
        out = []
        first = first_word(tokens, _OPENERS)
        for i, token in enumerate(tokens):
            if token[0].isdigit():
                out.append((token, "NUM"))
            elif is_punct_token(token):
                out.append((token, "PUNCT"))
            elif token[0].isupper() and i != first:
                out.append((token, "PROPN"))
            else:
                out.append((token.lower(), "X"))
        return out

    def annotate_many(self, sentences: Sequence[Sequence[str]]) -> list[list[tuple[str, ...]]]:
        """:meth:`annotate` of each sentence; a processor whose tagger gains from seeing several
        sentences at once (the labeller gives it an article's) does them together."""
        return [self.annotate(tokens) for tokens in sentences]

    def is_finite_verb(self, token: str, pos: str, lemma: str) -> bool:
        """Whether a token, out of context, is a finite verb (default: any VERB/AUX)."""
        return pos in FINITE_POS

    def has_finite_verb(self, tokens: Sequence[str], annotations: Sequence[tuple[str, str]]) -> bool:
        """Whether the sentence has a finite verb. Without a tagger (all POS "X") nothing is known,
        so the default says True rather than flag every sentence of an unsupported language."""
        if all(pos in ("X", "PROPN", "NUM", "PUNCT") for _, pos in annotations):
            return True
        return any(self.is_finite_verb(t, pos, lemma) for t, (lemma, pos) in zip(tokens, annotations))

    def common_nouns(self, tokens: Sequence[str], annotations: Sequence[tuple[str, ...]]) -> frozenset[int]:
        """The indices of the tokens that are common nouns (UPOS NOUN), for a language that
        capitalizes every noun (the labeller's ``capitalized_noun_o``)."""
        return frozenset(k for k, annotation in enumerate(annotations) if annotation[1] == "NOUN")

    def is_proper_noun_candidate(self, token: str, pos: str, sentence_initial: bool) -> bool:
        """Capitalized and either tagged PROPN or not sentence-initial."""
        if not token[:1].isupper():
            return False
        return pos == "PROPN" or not sentence_initial


def is_punct_token(token: str) -> bool:
    """Only punctuation and symbols (no word character): POS PUNCT. A token that starts with a word
    character (``\\w``: alphanumeric or "_") is not, without running the pattern."""
    first = token[:1]
    return not (first.isalnum() or first == "_") and _PUNCT.match(token) is not None


def is_capitalized(token: str) -> bool:
    """Starts with an upper-case letter (the orthographic proper-noun signal), or with a letter of
    a script without letter case (Bengali, Japanese, Georgian…), where the script cannot tell a
    name from a common word and every word may be one. The labeller lets such words match the
    alias set but never makes them UNK for their "capital"; the sentence splitter lets them start
    a sentence."""
    first = token[:1]
    return first.isalpha() and not first.islower()


def _split_cjk(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A span cut after every full-width sentence mark that has text after it (no space needed)."""
    pieces = []
    for match in _CJK_BOUNDARY.finditer(text, start, end):
        pieces.append((start, match.end()))
        start = match.end()
    pieces.append((start, end))
    return pieces

