"""Steps 3 and 4 of the method: labelling the tokens of an article with the paper's rules.

``registry`` (rule names, :class:`LabelConfig`), ``stages`` (the stages and each one's
signature), ``order`` (the rules' order at each stage), ``rules`` (links, anchors, capitalized
words), ``aliases`` (the per-article alias index and its rules), ``quality`` (low-quality flags),
``state`` (one sentence while it is labelled), ``language`` (the per-language resources),
``labeller`` (the article loop that runs the rules that are on). See docs/labelling.md.
"""

from __future__ import annotations

# The rule modules register their rules on import; their order is checked and RULES read after all of them.
from wikisilver.labels import aliases, lead, quality, rules, text_evidence  # noqa: F401
from wikisilver.labels.labeller import ArticleResult, Labeller
from wikisilver.labels.language import LanguagePack
from wikisilver.labels.registry import LabelConfig, Rule, Stage, former_rule_names, rule_names, rules_fired, seal
from wikisilver.labels.rules import is_lowercase_anchor

seal()
RULES: tuple[str, ...] = rule_names()
#: old rule names --disable-rule still accepts, and the rule each names now
FORMER_RULE_NAMES: dict[str, str] = former_rule_names()

__all__ = [
    "FORMER_RULE_NAMES", "RULES", "ArticleResult", "LabelConfig", "Labeller", "LanguagePack", "Rule", "Stage",
    "is_lowercase_anchor", "rule_names", "rules_fired",
]
