"""The rule registry: a rule's signature fits its stage, each stage's order is written down and
matches what registered, and a rule that depends on another rule's switch declares it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from wikisilver.labels import RULES, LabelConfig, LanguagePack, Stage
from wikisilver.labels.aliases import AliasIndex, Form, Tokenize
from wikisilver.labels.order import ALIAS_MATCH, DERIVED_WORD, ORDER, ROYAL_OF_PLACE
from wikisilver.labels.registry import Rule, order_rules, rule
from wikisilver.labels.state import O, Leave, Mention, SentenceState, Tag
from wikisilver.records import Link, TargetInfo

SRC = Path(__file__).parents[1] / "src" / "wikisilver"


def _all_rules() -> list[Rule]:
    return [r for stage in Stage for r in LabelConfig().rules(stage)]


# -- a rule's signature fits its stage ---------------------------------------------------------


def token_shaped(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """A token rule: answers for the k-th token of a sentence."""
    return O


def test_a_token_rule_registered_as_a_link_rule_fails_on_import():
    with pytest.raises(TypeError, match=r"'misplaced' \(.*token_shaped\) does not fit stage link: parameter 'state' "
                                        r"is SentenceState, but stage link passes link: Link"):
        rule("misplaced", Stage.LINK)(token_shaped)
    assert "misplaced" not in RULES and "misplaced" not in {r.name for r in _all_rules()}


def test_a_rule_with_the_wrong_number_of_arguments_fails():
    def hyphen_with_token(rest: str, tag: Tag, pack: LanguagePack) -> Tag | None:
        """A hyphen rule that wants the link's tag too, which its stage does not pass."""
        return None

    with pytest.raises(TypeError, match=r"takes 3 positional argument\(s\); stage hyphen passes \(rest: str, pack: "
                                        r"LanguagePack -> .*Tag.*Leave"):
        rule("hyphen_with_token", Stage.HYPHEN)(hyphen_with_token)


def test_a_rule_returning_what_its_stage_cannot_use_fails():
    def flags_by_name(state: SentenceState, processor: object, pack: LanguagePack) -> str:
        """A quality flag that answers with a reason instead of True or False."""
        return ""

    with pytest.raises(TypeError, match=r"returns str; stage quality expects .* -> bool"):
        rule("low_quality_by_name", Stage.QUALITY)(flags_by_name)


def test_a_rule_without_types_fails():
    def untyped(token, mention, pack) -> bool:
        """An inside rule without parameter types."""
        return False

    with pytest.raises(TypeError, match=r"parameter 'token' has no type"):
        rule("untyped", Stage.INSIDE)(untyped)


def test_a_rule_may_accept_more_than_its_stage_passes():
    """A parameter may be wider than what the stage passes (``object`` takes a Mention) and the
    answer narrower than what it accepts (a link rule that only ever leaves): that still fits, so
    the check goes on to the order, which refuses a rule registered after the rules were sealed."""

    def wide(link: Link, info: TargetInfo | None | object, pack: LanguagePack) -> Leave | None:
        """Leaves every link."""
        return None

    with pytest.raises(ValueError, match="registered after the rules were sealed"):
        rule("wide", Stage.LINK)(wide)


def test_the_alias_stages_resolve_the_alias_index_types():
    def forms(info: TargetInfo, anchor: Form, pack: LanguagePack, tokenize: Tokenize) -> Iterator[Form]:
        """No forms."""
        return iter(())

    def by_index(token: str, index: AliasIndex, pack: LanguagePack) -> Mention | None:
        """No mention."""
        return None

    for name, stage, decide in (("forms", Stage.ALIAS, forms), ("by_index", Stage.INFLECTED, by_index)):
        with pytest.raises(ValueError, match="registered after the rules were sealed"):
            rule(name, stage)(decide)
    with pytest.raises(TypeError, match=r"stage inflected passes token: str \(token: str, index: AliasIndex, "
                                        r"pack: LanguagePack -> Mention \| None\)"):
        rule("by_state", Stage.INFLECTED)(token_shaped)


# -- the order is written down, and matches what registered --------------------------------------


def test_each_stage_runs_its_rules_in_the_order_written_down():
    assert {stage: tuple(r.name for r in LabelConfig().rules(stage)) for stage in Stage} == dict(ORDER)
    # one name per rule, in the order the labeller first runs it
    assert RULES == tuple(dict.fromkeys(name for stage in Stage for name in ORDER[stage]))


def test_a_rule_missing_from_the_order_fails():
    order = {**ORDER, Stage.INSIDE: tuple(n for n in ORDER[Stage.INSIDE] if n != ROYAL_OF_PLACE)}
    with pytest.raises(ValueError, match="'royal_of_place' is registered at stage inside but not in its order"):
        order_rules(_all_rules(), order)


def test_a_name_in_the_order_that_is_no_rule_of_its_stage_fails():
    order = {**ORDER, Stage.TOKEN: ("title_case_o", *ORDER[Stage.TOKEN]),
             Stage.HYPHEN: (*ORDER[Stage.HYPHEN], DERIVED_WORD)}
    with pytest.raises(ValueError) as failure:
        order_rules(_all_rules(), order)
    assert "'title_case_o' is in the order of stage token but no rule of it" in str(failure.value)
    assert "'derived_word' is in the order of stage hyphen but no rule of it" in str(failure.value)


def test_a_name_twice_in_a_stage_order_fails():
    order = {**ORDER, Stage.EVIDENCE: (*ORDER[Stage.EVIDENCE], "taxon_o")}
    with pytest.raises(ValueError, match="'taxon_o' is twice in the order of stage evidence"):
        order_rules(_all_rules(), order)


def test_reordering_a_chain_reorders_its_rules():
    link = ORDER[Stage.LINK]
    swapped = (*link[:-1][::-1], link[-1])
    ordered = order_rules(_all_rules(), {**ORDER, Stage.LINK: swapped})
    assert tuple(r.name for r in ordered[Stage.LINK]) == swapped


# -- dependencies between rules are declared -----------------------------------------------------


def test_a_dependency_on_an_unknown_rule_fails():
    rules = [replace(r, requires=(*r.requires, "derived_words")) if r.name == ALIAS_MATCH else r for r in _all_rules()]
    with pytest.raises(ValueError, match="'alias_match' requires 'derived_words', which is no rule"):
        order_rules(rules, ORDER)


def test_every_declared_dependency_names_a_rule():
    assert [(r.name, n) for r in _all_rules() for n in r.requires if n not in RULES] == []
    alias_match = next(r for r in LabelConfig().rules(Stage.ALIAS) if r.name == ALIAS_MATCH)
    assert DERIVED_WORD in alias_match.requires


def test_reading_another_rules_switch_needs_the_declaration():
    config = LabelConfig(frozenset({DERIVED_WORD}))
    assert config.on(DERIVED_WORD, reader=ALIAS_MATCH) is False  # declared: alias_match requires derived_word
    assert config.on(ALIAS_MATCH, reader=ALIAS_MATCH) is True  # a rule's own switch
    with pytest.raises(KeyError, match="'link_entity' reads the switch of 'derived_word' without declaring it"):
        config.on(DERIVED_WORD, reader="link_entity")
    with pytest.raises(KeyError, match="no labelling rule is named 'derived_words'"):
        config.on("derived_words")


def test_former_names_still_switch_a_rule_off():
    config = LabelConfig(frozenset({"hu_inflected_name"}))
    assert not config.on("inflected_name") and not config.on("hu_inflected_name") and config.on("hyphen_compound_o")
    assert "inflected_name" not in {r.name for stage in Stage for r in config.rules(stage)}


def test_no_rule_name_is_written_as_a_string_outside_its_registration_and_the_order():
    """Code refers to another rule by the constants of ``labels/order.py``: a literal rule name
    elsewhere is a switch read or a mention told by a string that a renaming would miss."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "labels" / "order.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        registrations = {id(call.args[0]) for call in ast.walk(tree) if isinstance(call, ast.Call)
                         and isinstance(call.func, ast.Name) and call.func.id == "rule" and call.args}
        found += [f"{path.relative_to(SRC)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value in RULES and id(node) not in registrations]
    assert found == []
