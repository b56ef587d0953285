"""Steps 3 and 4 of the method, their rules by name: the registry every labelling rule enters.

A rule is a small function registered under its name with :func:`rule`, for one stage of a
sentence's labelling (:class:`~wikisilver.labels.stages.Stage`), whose signature must fit that
stage's protocol (checked as it registers). The order of the rules at each stage is written down
in :mod:`wikisilver.labels.order`, and checked against what registered once every rule module is
imported (:func:`seal`). The names that ``--disable-rule`` accepts and that ``stats.json``
``rules_fired`` lists are the registered ones (:func:`rule_names`). A renamed rule keeps its old
name as an alias that ``--disable-rule`` accepts (``formerly``). A rule that acts at two stages (a
personal title is O inside a link's anchor and outside one) registers one function per stage under
the same name, and is switched off at both. A rule whose behaviour depends on whether another rule
is on declares it (``requires``), and reads that switch with ``LabelConfig.on(other, reader=it)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from wikisilver.labels.order import ORDER
from wikisilver.labels.stages import Stage, signature_problem

@dataclass(frozen=True)
class Rule:
    """One registered rule: its name, the stage it acts at, the function that decides (of the
    stage's protocol), and the rules whose switches change what it does (``requires``)."""

    name: str
    stage: Stage
    decide: Callable[..., Any]
    needs_pos: bool = False
    requires: tuple[str, ...] = ()


_REGISTRY: list[Rule] = []
_FORMERLY: dict[str, str] = {}  # an old rule name -> the rule's name now
_ORDERED: dict[Stage, tuple[Rule, ...]] = {}  # filled by seal(): each stage's rules in their order
_REQUIRES: dict[str, frozenset[str]] = {}  # filled by seal(): every rule name -> the rules it requires

F = TypeVar("F", bound=Callable[..., Any])


def rule(
    name: str, stage: Stage, *, needs_pos: bool = False, formerly: str = "", requires: Sequence[str] = ()
) -> Callable[[F], F]:
    """Register the decorated function as rule ``name`` at ``stage``; ``formerly``: the rule's old
    name, still accepted where rule names are given; ``requires``: the rules whose switches this
    rule's behaviour depends on (their names, as constants of :mod:`~wikisilver.labels.order`).
    A function whose signature does not fit the stage's protocol is refused here, on import."""

    def register(decide: F) -> F:
        where = f"rule {name!r} ({decide.__module__}.{decide.__qualname__})"
        if any(r.name == name and r.stage is stage for r in _REGISTRY):
            raise ValueError(f"rule {name!r} registered twice at stage {stage.value}")
        if stage is Stage.QUALITY and not name.startswith("low_quality_"):
            raise ValueError(f"quality rule {name!r}: its name must start with low_quality_")
        if not inspect.getdoc(decide):
            raise ValueError(f"rule {name!r} has no docstring")
        problem = signature_problem(decide, stage)
        if problem is not None:
            raise TypeError(f"{where} does not fit stage {stage.value}: {problem}")
        if _ORDERED:  # its place in the order would never be checked
            raise ValueError(f"{where} registered after the rules were sealed")
        _REGISTRY.append(Rule(name, stage, decide, needs_pos, tuple(requires)))
        if formerly:
            _FORMERLY[formerly] = name
        return decide

    return register


def order_rules(rules: Iterable[Rule], order: Mapping[Stage, Sequence[str]]) -> dict[Stage, tuple[Rule, ...]]:
    """The ``rules`` of each stage in the ``order`` written down for it. ValueError, naming them
    all: a rule the order lacks at its stage, a name the order has that is no rule of that stage,
    a name twice in a stage's order, a rule that requires a rule that is not registered."""
    by_stage: dict[Stage, dict[str, Rule]] = {stage: {} for stage in Stage}
    for r in rules:
        by_stage[r.stage][r.name] = r
    known = {name for stage_rules in by_stage.values() for name in stage_rules}
    problems = []
    for stage in Stage:
        names = tuple(order.get(stage, ()))
        problems += [f"{n!r} is registered at stage {stage.value} but not in its order"
                     for n in by_stage[stage] if n not in names]
        problems += [f"{n!r} is in the order of stage {stage.value} but no rule of it" for n in names
                     if n not in by_stage[stage]]
        problems += [f"{n!r} is twice in the order of stage {stage.value}" for n in dict.fromkeys(names)
                     if names.count(n) > 1]
    problems += [f"{r.name!r} requires {n!r}, which is no rule" for r in rules for n in r.requires if n not in known]
    if problems:
        raise ValueError("labelling rules (src/wikisilver/labels/order.py): " + "; ".join(problems))
    return {stage: tuple(by_stage[stage][n] for n in order.get(stage, ())) for stage in Stage}


def seal() -> None:
    """Check the registered rules against :data:`~wikisilver.labels.order.ORDER` and fix each
    stage's order; called once every rule module is imported (by ``wikisilver.labels``)."""
    if not _ORDERED:
        _ORDERED.update(order_rules(_REGISTRY, ORDER))
        for r in _REGISTRY:
            _REQUIRES[r.name] = _REQUIRES.get(r.name, frozenset()) | frozenset(r.requires)


def _ordered(stage: Stage) -> tuple[Rule, ...]:
    if not _ORDERED:
        raise RuntimeError("the labelling rules are read before wikisilver.labels has sealed them")
    return _ORDERED[stage]


def first_answer(rules: Sequence[Rule], *args: Any) -> tuple[Rule, Any] | tuple[None, None]:
    """Run a chain: the first of ``rules`` that answers (returns other than None), and its answer."""
    for candidate in rules:
        answer = candidate.decide(*args)
        if answer is not None:
            return candidate, answer
    return None, None


def rule_names() -> tuple[str, ...]:
    """Every registered rule name, once each, in the order the labeller first runs it."""
    return tuple(dict.fromkeys(r.name for stage in Stage for r in _ordered(stage)))


@dataclass(frozen=True)
class LabelConfig:
    """Which rules are on (all by default) and the quality filter settings."""

    disabled_rules: frozenset[str] = frozenset()
    keep_low_quality: bool = True

    def __post_init__(self) -> None:
        # an old name switches the rule off by its name now
        object.__setattr__(self, "disabled_rules", frozenset(_FORMERLY.get(n, n) for n in self.disabled_rules))

    def on(self, rule: str, *, reader: str = "") -> bool:
        """Whether rule ``rule`` is on. ``reader``: the rule whose behaviour depends on it, which
        must declare so (``requires``). A name that is no rule is an error, not a rule that is on."""
        rule = _FORMERLY.get(rule, rule)
        for name in (rule, reader) if reader else (rule,):
            if name not in _REQUIRES:
                raise KeyError(f"no labelling rule is named {name!r}")
        if reader and rule != reader and rule not in _REQUIRES[reader]:
            raise KeyError(f"rule {reader!r} reads the switch of {rule!r} without declaring it (requires=)")
        return rule not in self.disabled_rules

    def rules(self, stage: Stage) -> tuple[Rule, ...]:
        """The rules of ``stage`` that are on, in their order."""
        return tuple(r for r in _ordered(stage) if r.name not in self.disabled_rules)


def former_rule_names() -> dict[str, str]:
    """Old rule name -> the rule's name now (``hu_inflected_name`` -> ``inflected_name``)."""
    return dict(_FORMERLY)


def rules_fired(counts: Mapping[str, int]) -> dict[str, int]:
    """The ``rules_fired`` object of stats.json: every registered rule, fired or not."""
    return {name: int(counts.get(name, 0)) for name in rule_names()}
