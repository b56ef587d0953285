"""Step 2 (sentence splitting), the speed path: NLTK's Punkt with its patterns run by ``re``.

NLTK 3.9 runs every pattern of Punkt through ``nltk.redos``: the third-party ``regex`` engine
under a wall-clock timeout, a guard against caller-supplied patterns. Punkt's patterns are fixed
and linear, and a page already has its own time budget (``--page-timeout``), so this splitter
compiles NLTK's very own patterns (taken from NLTK, not copied) with ``re``, as NLTK did up to
3.8. The behaviour is Punkt's (same parameters, same algorithm); only the regular-expression
engine differs, and ``tests/test_text.py`` holds it equal to NLTK's own splitter on every line of
the English extract. Kept because sentence splitting is a measurable part of a whole build
(docs/performance.md).
"""

from __future__ import annotations

import re

from nltk.tokenize.punkt import (
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


def fast_punkt_splitter(params: PunktParameters) -> PunktSentenceTokenizer:
    """NLTK's Punkt sentence splitter over ``params``, its patterns run by ``re``."""
    return PunktSentenceTokenizer(params, lang_vars=_StdlibLangVars(), token_cls=_StdlibToken)
