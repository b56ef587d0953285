"""Steps 3 and 4 of the method, their rules by name: the registry every labelling rule enters.

A rule is a small function registered under its name with :func:`rule`, for one stage of a
sentence's labelling (:class:`Stage`). The names that ``--disable-rule`` accepts and that
``stats.json`` ``rules_fired`` lists are the registered ones (:func:`rule_names`); there is no
other list. A renamed rule keeps its old name as an alias that ``--disable-rule`` accepts
(``formerly``). A rule that acts at two stages (a personal title is O inside a link's anchor and
outside one) registers one function per stage under the same name, and is switched off at both.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar


class Stage(enum.Enum):
    """Where in a sentence a rule acts, in the order the labeller runs them, and what it is given.

    Within a stage rules run in the order they are registered. In a *chain* the first rule that
    answers (returns something other than None) decides and the rest are not asked.
    """

    EVIDENCE = "evidence"
    """Per article, once: ``(article text, pack) -> {name: "O" or UNK}``: titles the article's own
    text shows are not the entities a type source says; a link to such a title, or its anchor
    among the names, takes that tag instead of its type's, and the title gives no alias."""
    LINK = "link"
    """Chain, per link: ``(link, target info or None, pack) -> Tag | LEAVE | None``."""
    ANCHOR_HEAD = "anchor_head"
    """Per entity link, repeated while the anchor keeps 2+ tokens: ``(first token, tag, pack) -> bool``
    (True: that token is O and leaves the anchor)."""
    ANCHOR_END = "anchor_end"
    """As ``ANCHOR_HEAD`` for the anchor's last token."""
    HYPHEN = "hyphen"
    """Chain, per entity link whose last token runs on past the anchor: ``(the rest of that token
    after the anchor, pack) -> Tag | LEAVE | None`` (LEAVE: the token keeps the link's tag)."""
    INSIDE = "inside"
    """Per token given a mention: ``(token, tag, pack) -> bool`` (True: O, and the mention splits there)."""
    ALIAS = "alias"
    """Per entity known in the article: ``(target info, its anchor's tokens, pack, tokenize) ->
    token sequences`` that mention it again; matched longest first by the alias index."""
    INFLECTED = "inflected"
    """Chain, per capitalized token no alias form matched: ``(token, alias index, pack) -> Mention | None``."""
    TOKEN = "token"
    """Chain, per capitalized token nothing labelled yet: ``(sentence state, token index, pack) ->
    Tag | None``; rules registered with ``needs_pos`` see the first word only, with its POS, and only
    in sentences with no UNK left."""
    QUALITY = "quality"
    """Per kept sentence: ``(sentence state, text processor, pack) -> bool`` (True: flagged low
    quality; the reason is the rule's name without ``low_quality_``)."""


@dataclass(frozen=True)
class Rule:
    """One registered rule: its name, the stage it acts at and the function that decides."""

    name: str
    stage: Stage
    decide: Callable[..., Any]
    needs_pos: bool = False


_REGISTRY: list[Rule] = []
_FORMERLY: dict[str, str] = {}  # an old rule name -> the rule's name now

F = TypeVar("F", bound=Callable[..., Any])


def rule(name: str, stage: Stage, *, needs_pos: bool = False, formerly: str = "") -> Callable[[F], F]:
    """Register the decorated function as rule ``name`` at ``stage``; ``formerly``: the rule's old
    name, still accepted where rule names are given."""

    def register(decide: F) -> F:
        if any(r.name == name and r.stage is stage for r in _REGISTRY):
            raise ValueError(f"rule {name!r} registered twice at stage {stage.value}")
        if stage is Stage.QUALITY and not name.startswith("low_quality_"):
            raise ValueError(f"quality rule {name!r}: its name must start with low_quality_")
        if not inspect.getdoc(decide):
            raise ValueError(f"rule {name!r} has no docstring")
        _REGISTRY.append(Rule(name, stage, decide, needs_pos))
        if formerly:
            _FORMERLY[formerly] = name
        return decide

    return register


def first_answer(rules: Sequence[Rule], *args: Any) -> tuple[Rule, Any] | tuple[None, None]:
    """Run a chain: the first of ``rules`` that answers (returns other than None), and its answer."""
    for candidate in rules:
        answer = candidate.decide(*args)
        if answer is not None:
            return candidate, answer
    return None, None


def rule_names() -> tuple[str, ...]:
    """Every registered rule name, once each, in the order the labeller first runs it."""
    stages = list(Stage)
    return tuple(dict.fromkeys(r.name for r in sorted(_REGISTRY, key=lambda r: stages.index(r.stage))))


@dataclass(frozen=True)
class LabelConfig:
    """Which rules are on (all by default) and the quality filter settings."""

    disabled_rules: frozenset[str] = frozenset()
    keep_low_quality: bool = True

    def __post_init__(self) -> None:
        # an old name switches the rule off by its name now
        object.__setattr__(self, "disabled_rules", frozenset(_FORMERLY.get(n, n) for n in self.disabled_rules))

    def on(self, rule: str) -> bool:
        return rule not in self.disabled_rules

    def rules(self, stage: Stage) -> tuple[Rule, ...]:
        """The rules of ``stage`` that are on, in their order."""
        return tuple(r for r in _REGISTRY if r.stage is stage and self.on(r.name))


def former_rule_names() -> dict[str, str]:
    """Old rule name -> the rule's name now (``hu_inflected_name`` -> ``inflected_name``)."""
    return dict(_FORMERLY)


def rules_fired(counts: Mapping[str, int]) -> dict[str, int]:
    """The ``rules_fired`` object of stats.json: every registered rule, fired or not."""
    return {name: int(counts.get(name, 0)) for name in rule_names()}
