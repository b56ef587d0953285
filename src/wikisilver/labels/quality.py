"""Step 4 of the method, its second filter: the low-quality flags of a sentence that has no UNK.

A flagged sentence is kept with its reasons (``quality_reasons``), or dropped with
``--drop-low-quality``. Each reason is a registered rule named ``low_quality_<reason>``.
"""

from __future__ import annotations

from collections.abc import Sequence

from wikisilver.labels.language import LanguagePack
from wikisilver.labels.registry import Rule, Stage, rule
from wikisilver.labels.state import SentenceState
from wikisilver.text.base import TextProcessor

_FINAL_PUNCTUATION = frozenset({".", "!", "?", "…", "?!", "!?", "...", ".\"", ".'"})
# Sentence-final marks of other scripts: danda (Bengali, Hindi, Marathi), ideographic full stop
# and full-width !/? (Chinese, Japanese), Armenian full stop, Arabic question mark, Urdu full
# stop, Ethiopic full stop and question mark.
_FINAL_MARKS = (".", "!", "?", "।", "॥", "。", "！", "？", "։", "؟", "۔", "።", "፧")
_CLOSING_QUOTES = frozenset({'"', "'", "”", "’", "»", ")", "]"})


def ends_like_a_sentence(tokens: Sequence[str]) -> bool:
    """Whether the last token (before closing quotes) is ``.``, ``!``, ``?`` or another script's
    sentence mark."""
    end = tokens[-2] if tokens[-1] in _CLOSING_QUOTES and len(tokens) > 1 else tokens[-1]
    return end in _FINAL_PUNCTUATION or end.endswith(_FINAL_MARKS)


@rule("low_quality_no_final_punctuation", Stage.QUALITY)
def low_quality_no_final_punctuation(state: SentenceState, processor: TextProcessor, pack: LanguagePack) -> bool:
    """``Early life in Kentucky`` (a heading, a list item, a caption): a sentence that does not end
    in ``.``, ``!``, ``?`` or another script's sentence mark, before closing quotes, is flagged."""
    return not ends_like_a_sentence(state.tokens)


@rule("low_quality_no_finite_verb", Stage.QUALITY)
def low_quality_no_finite_verb(state: SentenceState, processor: TextProcessor, pack: LanguagePack) -> bool:
    """``Early life in Kentucky.``: a sentence without a finite verb, by the language's tagger, is
    flagged; not in languages that drop the copula (Hungarian: ``require_finite_verb = false``)."""
    return pack.require_finite_verb and not processor.has_finite_verb(state.tokens, state.annotations)


def quality_reasons(
    state: SentenceState, processor: TextProcessor, pack: LanguagePack, rules: tuple[Rule, ...]
) -> tuple[str, ...]:
    """The reasons the sentence is low quality (none: it is not), each counted under its rule."""
    reasons = []
    for quality_rule in rules:
        if quality_rule.decide(state, processor, pack):
            state.fire(quality_rule.name)
            reasons.append(quality_rule.name.removeprefix("low_quality_"))
    return tuple(reasons)
