"""Step 2 (sentence splitting), the speed path: NLTK's Punkt with its patterns run by ``re``, and
its steps over lists instead of chains of generators.

NLTK 3.9 runs every pattern of Punkt through ``nltk.redos``: the third-party ``regex`` engine
under a wall-clock timeout, a guard against caller-supplied patterns. Punkt's patterns are fixed
and linear, and a page already has its own time budget (``--page-timeout``), so this splitter
compiles NLTK's very own patterns (taken from NLTK, not copied) with ``re``, as NLTK did up to
3.8. The behaviour is Punkt's (same parameters, same algorithm); only the regular-expression
engine differs, and ``tests/test_text.py`` holds it equal to NLTK's own splitter on every line of
the English extract and on random text. Kept because sentence splitting is a measurable part of a
whole build (docs/performance.md).

Punkt decides each candidate break (a ``.``, ``?`` or ``!`` before a space or a mark) by cutting
the words around it into tokens, making a ``PunktToken`` of each and running its two annotation
passes over them, all as a chain of generators; most of its time was that chain and those
objects. :class:`_Splitter` takes the same steps over lists, and decides a candidate as the
passes would (:func:`_ends_sentence`: NLTK's rules, for a word and the next, read from its
parameters) without making the tokens.
"""

from __future__ import annotations

import re

from nltk.tokenize.punkt import (
    _ORTHO_BEG_LC,
    _ORTHO_LC,
    _ORTHO_MID_UC,
    _ORTHO_UC,
    PunktLanguageVars,
    PunktParameters,
    PunktSentenceTokenizer,
    PunktToken,
    _re_non_punct,
)

__all__ = ["fast_punkt_splitter"]

_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE  # the same values in ``regex``


def _on_re(timed) -> re.Pattern:
    """One of NLTK's ``redos`` patterns, compiled by ``re`` with its flags."""
    return re.compile(timed.pattern, timed.flags & _FLAGS)


class _StdlibLangVars(PunktLanguageVars):
    """Punkt's language variables, with its patterns compiled by ``re`` up front (NLTK compiles
    them on first use, through ``redos``, into the same two slots)."""

    __slots__ = ()

    re_boundary_realignment = _on_re(PunktLanguageVars.re_boundary_realignment)

    def __init__(self) -> None:
        self._compile()

    def __setstate__(self, state):  # NLTK pickles the language variables as nothing at all
        self._compile()

    def _compile(self) -> None:
        word = _on_re(PunktLanguageVars._word_tokenizer_re(self))
        period = _on_re(PunktLanguageVars.period_context_re(self))
        self._re_word_tokenizer, self._re_period_context = word, period


_NON_PUNCT = _on_re(_re_non_punct)


class _StdlibToken(PunktToken):
    """Punkt's token, with its patterns compiled by ``re``."""

    __slots__ = ()

    _RE_ELLIPSIS = _on_re(PunktToken._RE_ELLIPSIS)
    _RE_NUMERIC = _on_re(PunktToken._RE_NUMERIC)
    _RE_INITIAL = _on_re(PunktToken._RE_INITIAL)
    _RE_ALPHA = _on_re(PunktToken._RE_ALPHA)

    @property
    def is_non_punct(self):
        return _NON_PUNCT.search(self.type)


_WHITESPACE = " \t\n\r\x0b\x0c"  # string.whitespace, what NLTK looks back for before a candidate
_NUMBER_START = frozenset("-.,")  # with a decimal digit, what a token NLTK types "##number##" starts with
_NUMBER = "##number##"
_SENT_END, _ELLIPSIS, _ABBREVIATION = 1, 2, 3  # the first pass's marks (at most one a token)


def _type(word: str) -> str:
    """``PunktToken.type``: the word in lower case, a number as ``##number##``."""
    first = word[:1]
    if first in _NUMBER_START or first.isdecimal():  # else the number pattern cannot match
        return _StdlibToken._RE_NUMERIC.sub(_NUMBER, word.lower())
    return word.lower()


def _without_period(kind: str) -> str:
    """``PunktToken.type_no_period``."""
    return kind[:-1] if len(kind) > 1 and kind[-1] == "." else kind


class _Splitter(PunktSentenceTokenizer):
    """Punkt's sentence splitter: NLTK's steps, each over a list instead of a chain of generators."""

    def span_tokenize(self, text: str, realign_boundaries: bool = True) -> list[tuple[int, int]]:
        """NLTK's sentence spans of ``text``: its candidate breaks, each tested on its context,
        then (``realign_boundaries``) closing marks moved to the sentence before them."""
        spans = self._break_spans(text)
        return self._realigned(text, spans) if realign_boundaries else spans

    def _break_spans(self, text: str) -> list[tuple[int, int]]:
        """``_slices_from_text``: a candidate's context runs from the word before it (where that
        word does not overlap the one before the next candidate) to the token after it."""
        spans: list[tuple[int, int]] = []
        last_break = 0
        previous, word_start, word_end = None, 0, 0
        for match in self._lang_vars.period_context_re().finditer(text):
            start = match.start()
            before = text[word_end:start]
            space = before.rfind(" ")  # the last white space: a blank, unless another follows it
            if not before[space + 1:].isprintable():  # (the others are not printable)
                space = max(map(before.rfind, _WHITESPACE))
            next_start = space + word_end + 1 if space > 0 else word_start  # 0 counts as none, as in NLTK
            if previous is not None and word_end <= next_start:
                last_break = self._tested(text, previous, word_start, word_end, last_break, spans)
            previous, word_start, word_end = match, next_start, start
        if previous is not None:
            last_break = self._tested(text, previous, word_start, word_end, last_break, spans)
        spans.append((last_break, len(text.rstrip())))
        return spans

    def _tested(self, text: str, match, word_start: int, word_end: int, last_break: int,
                spans: list[tuple[int, int]]) -> int:
        """Add the sentence that ends at ``match`` if its context holds a break; the next start.
        The commonest context, a word of letters, a period, white space and another word of
        letters, is two tokens, the first with its period: decided without cutting it."""
        word, following = text[word_start:word_end], match.group("next_tok")
        if match.group() == "." and word.isalpha() and following and following.isalpha():
            breaks = self._ends_sentence(word + ".", following)
        else:
            breaks = self.text_contains_sentbreak(word + match.group() + match.group("after_tok"))
        if not breaks:
            return last_break
        spans.append((last_break, match.end()))
        return match.start("next_tok") if match.group("next_tok") else match.end()

    def _realigned(self, text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """``_realign_boundaries``: closing marks at the start of a sentence end the one before."""
        realigned: list[tuple[int, int]] = []
        realign = 0
        last = len(spans) - 1
        boundary = self._lang_vars.re_boundary_realignment
        for index, (start, end) in enumerate(spans):
            start += realign
            if index == last:
                if text[start:end]:
                    realigned.append((start, end))
                continue
            following, following_end = spans[index + 1]
            match = boundary.match(text[following:following_end])
            if match:
                realigned.append((start, following + len(match.group(0).rstrip())))
                realign = match.end()
            else:
                realign = 0
                if text[start:end]:
                    realigned.append((start, end))
        return realigned

    def text_contains_sentbreak(self, text: str) -> bool:
        """NLTK's answer: whether a word other than the last of ``text`` ends a sentence once both
        passes have annotated it (the second pass reads a word and the next, changing the first).
        A word that neither ends in a period nor is a sentence's end mark is never a break; blank
        lines and the words' line starts change no decision."""
        split = self._lang_vars.word_tokenize
        words = [word for line in text.split("\n") if line.strip() for word in split(line)] if "\n" in text \
            else split(text)
        ends = self._lang_vars.sent_end_chars
        for index in range(len(words) - 1):
            word = words[index]
            if word[-1] == ".":
                if self._ends_sentence(word, words[index + 1]):
                    return True
            elif word in ends:
                return True
        return False

    def _first_mark(self, word: str) -> int:
        """``_first_pass_annotation``: a sentence's end mark, a run of periods, a known
        abbreviation and its period, or another word and its period (a break); else 0."""
        if word in self._lang_vars.sent_end_chars:
            return _SENT_END
        if word[-1:] != ".":
            return 0  # neither a run of periods nor a word before a period
        if _StdlibToken._RE_ELLIPSIS.match(word):
            return _ELLIPSIS
        if word.endswith(".."):
            return 0
        head = word[:-1].lower()
        abbreviations = self._params.abbrev_types
        return _ABBREVIATION if head in abbreviations or head.split("-")[-1] in abbreviations else _SENT_END

    def _ends_sentence(self, word: str, following: str) -> bool:
        """Whether ``word``, which ends in a period, ends a sentence before ``following``: the
        first pass's mark, then ``_second_pass_annotation``."""
        mark = self._first_mark(word)
        params = self._params
        kind = _without_period(_type(word))
        following_kind = _type(following)
        if self._first_mark(following) == _SENT_END:
            following_kind = _without_period(following_kind)
        if (kind, following_kind) in params.collocations:
            return False
        initial = _StdlibToken._RE_INITIAL.match(word)
        if mark != _SENT_END and mark and not initial:  # an abbreviation or a run of periods
            if self._starts_sentence(following, following_kind) is True:
                return True
            if following[0].isupper() and following_kind in params.sent_starters:
                return True
        if initial or kind == _NUMBER:
            starts = self._starts_sentence(following, following_kind)
            if starts is False:
                return False
            if (starts == "unknown" and initial and following[0].isupper()
                    and not (params.ortho_context.get(following_kind, 0) & _ORTHO_LC)):
                return False
        return mark == _SENT_END

    def _starts_sentence(self, word: str, kind: str) -> bool | str:
        """``_ortho_heuristic``: whether ``word`` (of type ``kind``, less a break's period) starts
        a sentence by how Punkt saw it written, or "unknown" (read without adding to the table)."""
        if word in self.PUNCTUATION:
            return False
        context = self._params.ortho_context.get(kind, 0)
        if word[0].isupper() and context & _ORTHO_LC and not context & _ORTHO_MID_UC:
            return True
        if word[0].islower() and (context & _ORTHO_UC or not context & _ORTHO_BEG_LC):
            return False
        return "unknown"


def fast_punkt_splitter(params: PunktParameters) -> PunktSentenceTokenizer:
    """NLTK's Punkt sentence splitter over ``params``, its patterns run by ``re``."""
    return _Splitter(params, lang_vars=_StdlibLangVars(), token_cls=_StdlibToken)
