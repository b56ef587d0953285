"""Steps 3 and 4 of the method, the order of their rules: which rule a stage asks first.

In a chain (``link``, ``hyphen``, ``inflected``, ``token``) the first rule that answers decides,
so this order is part of what a rule means: ``derived_word`` before ``link_entity`` makes
``[[Turkey|Turkish]]`` MISC, not LOC. Every registered rule is named here at each stage it is
registered at, and nothing else is (the registry checks both when the package is imported).

The constants are the names other code uses to refer to a rule (to read its switch, to tell its
mentions): the constant, never the string, so that a renamed rule is renamed in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from wikisilver.labels.stages import Stage

NATIONALITY_WORD: Final = "nationality_word"
DERIVED_WORD: Final = "derived_word"
PERSON_TITLE_UNK: Final = "person_title_unk"
MODIFIER_ANCHOR_IGNORED: Final = "modifier_anchor_ignored"
UNRELATED_ANCHOR_IGNORED: Final = "unrelated_anchor_ignored"
ROYAL_OF_PLACE: Final = "royal_of_place"
ALIAS_MATCH: Final = "alias_match"
ALIAS_PERSON_NAME_PART: Final = "alias_person_name_part"
OWN_TITLE_UNK: Final = "own_title_unk"
ALIAS_AMBIGUOUS_UNK: Final = "alias_ambiguous_unk"
LEADING_ARTICLE_O: Final = "leading_article_o"
PARTY_MEMBER_MISC: Final = "party_member_misc"
OWN_TITLE_LEAD: Final = "own_title_lead"

ORDER: Final[Mapping[Stage, tuple[str, ...]]] = {
    Stage.EVIDENCE: ("taxon_o", "common_noun_unk"),
    Stage.LINK: (
        "link_calendar_o",
        "link_lowercase_ignored",
        NATIONALITY_WORD,
        "descriptive_anchor_ignored",
        "link_disambiguation_unk",
        "link_unknown_unk",
        "link_non_entity_o",
        PERSON_TITLE_UNK,
        DERIVED_WORD,
        PARTY_MEMBER_MISC,
        MODIFIER_ANCHOR_IGNORED,
        UNRELATED_ANCHOR_IGNORED,
        "link_entity",
    ),
    Stage.ANCHOR_HEAD: (NATIONALITY_WORD, "personal_title_o", LEADING_ARTICLE_O),
    Stage.ANCHOR_END: ("trailing_punctuation_o", "lowercase_tail_o", "possessive_o"),
    Stage.HYPHEN: ("inflected_name", "hyphen_compound_o"),
    Stage.INSIDE: ("bracket_split", ROYAL_OF_PLACE, "location_comma_split"),
    Stage.ALIAS: (ALIAS_MATCH, ALIAS_PERSON_NAME_PART, OWN_TITLE_UNK, ALIAS_AMBIGUOUS_UNK, OWN_TITLE_LEAD),
    Stage.INFLECTED: ("inflected_name",),
    Stage.TOKEN: (
        "personal_title_o",
        LEADING_ARTICLE_O,
        "incidental_capital_o",
        NATIONALITY_WORD,
        "capitalized_noun_o",
        "sentence_initial_unk",
        "sentence_initial_o",
        "unlinked_capitalized_unk",
    ),
    Stage.QUALITY: ("low_quality_no_final_punctuation", "low_quality_no_finite_verb"),
}
