"""The paper's labelling rules, one test per rule, on realistic Wikipedia sentences."""

from __future__ import annotations

import re

import pytest

from wikisilver.labels import RULES, LabelConfig, Labeller, rules_fired
from wikisilver.records import Article, EntityType, Link, TargetInfo
from wikisilver.text import get_processor

LINK = re.compile(r"\[\[([^|\]]+)(?:\|([^\]]+))?\]\]([a-záéíóöőúüű]*)")


def article(markup: str, title: str = "Test article", page_id: int = 1) -> Article:
    """Clean text + link spans from a tiny subset of wikitext ([[T]], [[T|a]], link trails)."""
    text, links, pos = [], [], 0
    out_len = 0
    for match in LINK.finditer(markup):
        before = markup[pos:match.start()]
        text.append(before)
        out_len += len(before)
        anchor = (match.group(2) or match.group(1)) + match.group(3)
        links.append(Link(out_len, out_len + len(anchor), match.group(1), anchor))
        text.append(anchor)
        out_len += len(anchor)
        pos = match.end()
    text.append(markup[pos:])
    return Article(page_id, title, "".join(text), tuple(links))


def entity(title: str, cls: str | None, conll: str, aliases: tuple[str, ...] = (), **kw) -> TargetInfo:
    typed = EntityType(title, cls, conll, "O", "types") if conll else None
    return TargetInfo(title=title, entity=typed, exists=True, aliases=aliases, **kw)


TARGETS = {
    "Abraham Lincoln": entity("Abraham Lincoln", "OfficeHolder", "PER", ("Lincoln", "Honest Abe")),
    "United States": entity("United States", "Country", "LOC", ("USA", "U.S.")),
    "Kentucky": entity("Kentucky", "AdministrativeRegion", "LOC"),
    "Turkey": entity("Turkey", "Country", "LOC"),
    "Republican Party (United States)": entity("Republican Party (United States)", "PoliticalParty", "ORG"),
    "Lawyer": entity("Lawyer", None, ""),
    "Mercury (planet)": entity("Mercury (planet)", "Planet", "O"),
    "Mercury": TargetInfo("Mercury", None, exists=True, is_disambiguation=True),
    "Illinois": entity("Illinois", "AdministrativeRegion", "LOC"),
}


@pytest.fixture(scope="module")
def en() -> Labeller:
    return Labeller("en", get_processor("en"))


def tags(result, index=0):
    sentence = result.sentences[index]
    return list(zip(sentence.tokens, sentence.conll_tags))


def test_link_entity_takes_target_tag(en):
    result = en.label_article(article("He was born in [[Kentucky]] and moved to [[Illinois]]."), TARGETS)
    assert tags(result) == [("He", "O"), ("was", "O"), ("born", "O"), ("in", "O"), ("Kentucky", "B-LOC"),
                            ("and", "O"), ("moved", "O"), ("to", "O"), ("Illinois", "B-LOC"), (".", "O")]
    assert result.sentences[0].dbpedia_tags[4] == "B-AdministrativeRegion"
    assert result.counts["link_entity"] == 2


def test_multiword_link_is_one_mention_in_iob2(en):
    result = en.label_article(article("The [[United States|United States of America]] grew."), TARGETS)
    assert [t for _, t in tags(result)] == ["O", "B-LOC", "I-LOC", "I-LOC", "I-LOC", "O", "O"]
    span = result.sentences[0].spans[0]
    assert (span.start, span.end, span.target) == (1, 5, "United States")


def test_link_unknown_target_is_unk_and_drops_sentence(en):
    result = en.label_article(article("He admired [[Henry Clay]] greatly."), TARGETS)
    assert result.sentences == []
    assert result.counts["link_unknown_unk"] == 1
    assert result.counts["sentences_dropped_unk"] == 1


def test_link_to_untyped_page_is_unk(en):
    result = en.label_article(article("He became a [[Lawyer|Lawyer]] in town."), TARGETS)
    assert result.sentences == []


def test_link_disambiguation_is_unk(en):
    result = en.label_article(article("The [[Mercury]] is hot."), TARGETS)
    assert result.sentences == [] and result.counts["link_disambiguation_unk"] == 1


def test_link_lowercase_anchor_ignored(en):
    result = en.label_article(article("He worked as a [[Lawyer|lawyer]] in [[Illinois]]."), TARGETS)
    assert dict(tags(result))["lawyer"] == "O"
    assert result.counts["link_lowercase_ignored"] == 1


def test_link_calendar_is_o(en):
    result = en.label_article(article("He was born on [[February 12]], [[1809]] in [[Kentucky]]."), TARGETS)
    assert dict(tags(result))["February"] == "O"
    assert result.counts["link_calendar_o"] == 2


def test_link_non_entity_class_is_o(en):
    result = en.label_article(article("The planet [[Mercury (planet)|Mercury]] is small."), TARGETS)
    assert dict(tags(result))["Mercury"] == "O"
    assert result.counts["link_non_entity_o"] == 1


def test_derived_word_is_misc(en):
    result = en.label_article(article("He admired [[Turkey|Turkish]] poetry."), TARGETS)
    assert dict(tags(result))["Turkish"] == "B-MISC"
    assert result.counts["derived_word"] == 1


def test_alias_match_finds_later_mentions(en):
    text = "[[Abraham Lincoln]] was a lawyer. Lincoln was elected in [[Illinois]]. Honest Abe won."
    result = en.label_article(article(text), TARGETS)
    assert tags(result, 1)[0] == ("Lincoln", "B-PER")
    assert tags(result, 2)[:2] == [("Honest", "B-PER"), ("Abe", "I-PER")]
    assert result.counts["alias_match"] >= 1


def test_alias_person_name_part(en):
    targets = dict(TARGETS, **{"Mary Todd": entity("Mary Todd", "Person", "PER")})
    result = en.label_article(article("He met [[Mary Todd]] in 1839. Later Todd married him."), targets)
    assert dict(tags(result, 1))["Todd"] == "B-PER"
    assert result.counts["alias_person_name_part"] == 1


def test_own_title_is_alias(en):
    own = entity("Kentucky", "AdministrativeRegion", "LOC")
    result = en.label_article(article("It rains. Kentucky is a state.", title="Kentucky"), TARGETS, own)
    assert tags(result, 1)[0] == ("Kentucky", "B-LOC")


def test_personal_title_is_o(en):
    result = en.label_article(article("[[Abraham Lincoln|President Lincoln]] spoke."), TARGETS)
    assert tags(result)[:2] == [("President", "O"), ("Lincoln", "B-PER")]
    assert result.counts["personal_title_o"] == 1


def test_trailing_punctuation_is_o(en):
    result = en.label_article(article("He left [[Kentucky|Kentucky,]] then returned."), TARGETS)
    assert dict(tags(result))[","] == "O"
    assert result.counts["trailing_punctuation_o"] == 1


def test_incidental_capital_is_o(en):
    result = en.label_article(article("In March I went to [[Illinois]]."), TARGETS)
    assert dict(tags(result))["March"] == "O" and dict(tags(result))["I"] == "O"
    assert result.counts["incidental_capital_o"] == 2


def test_sentence_initial_common_word_is_o(en):
    result = en.label_article(article("However, he stayed in [[Illinois]]."), TARGETS)
    assert tags(result)[0] == ("However", "O")
    assert result.counts["sentence_initial_o"] == 1


def test_unlinked_capitalized_word_is_unk(en):
    result = en.label_article(article("He met Douglas in [[Illinois]]."), TARGETS)
    assert result.sentences == [] and result.counts["unlinked_capitalized_unk"] == 1


def test_low_quality_fragment_is_flagged_and_kept(en):
    result = en.label_article(article("Early life in [[Kentucky]]"), TARGETS)
    sentence = result.sentences[0]
    assert sentence.low_quality
    assert set(sentence.quality_reasons) == {"no_final_punctuation", "no_finite_verb"}


def test_disabled_rule_does_not_fire():
    labeller = Labeller("en", get_processor("en"), LabelConfig(disabled_rules=frozenset({"derived_word"})))
    result = labeller.label_article(article("He admired [[Turkey|Turkish]] poetry."), TARGETS)
    assert dict(tags(result))["Turkish"] == "B-LOC"
    assert result.counts["derived_word"] == 0


def test_rules_fired_lists_every_rule(en):
    result = en.label_article(article("He met Douglas in [[Illinois]]."), TARGETS)
    fired = rules_fired(result.counts)
    assert list(fired) == list(RULES) and fired["unlinked_capitalized_unk"] == 1


# -- Hungarian (§4 of the paper) -------------------------------------------------------------

HU_TARGETS = {
    "Berlin": entity("Berlin", "City", "LOC"),
    "Németország": entity("Németország", "Country", "LOC"),
    "WorldCom": entity("WorldCom", "Company", "ORG"),
    "Nobel-díj": entity("Nobel-díj", "Award", "MISC"),
    "Német nyelv": entity("Német nyelv", "Language", "MISC"),
    "NASA": entity("NASA", "GovernmentAgency", "ORG"),
}


@pytest.fixture(scope="module")
def hu() -> Labeller:
    return Labeller("hu", get_processor("hu"))


def test_hu_inflected_name_keeps_tag(hu):
    text = "[[Berlin]] [[Németország]] fővárosa. Sokan élnek Berlinben."
    result = hu.label_article(article(text), HU_TARGETS)
    assert dict(tags(result, 1))["Berlinben"] == "B-LOC"
    assert result.counts["hu_inflected_name"] == 1


def test_hu_hyphen_suffix_keeps_tag(hu):
    result = hu.label_article(article("A [[NASA]]-nak új igazgatója van."), HU_TARGETS)
    assert dict(tags(result))["NASA-nak"] == "B-ORG"


def test_hu_hyphen_compound_is_o(hu):
    result = hu.label_article(article("A [[WorldCom]]-botrány nagy port kavart."), HU_TARGETS)
    assert dict(tags(result))["WorldCom-botrány"] == "O"
    assert result.counts["hu_hyphen_compound_o"] == 1


def test_hu_linked_compound_takes_link_tag(hu):
    result = hu.label_article(article("Megkapta a [[Nobel-díj]]at."), HU_TARGETS)
    assert dict(tags(result))["Nobel-díjat"] == "B-MISC"


def test_hu_language_is_not_ne(hu):
    result = hu.label_article(article("A [[Német nyelv|Német]] nyelvet beszélik [[Berlin]]ben."), HU_TARGETS)
    assert dict(tags(result))["Német"] == "O"
    assert dict(tags(result))["Berlinben"] == "B-LOC"


def test_hu_derived_adjective_is_o(hu):
    result = hu.label_article(article("A [[Berlin|Berlini]] Fal leomlott."), HU_TARGETS)
    # "Berlini" is derived from Berlin: not an NE in Szeged conventions; "Fal" stays UNK -> dropped
    assert result.counts["derived_word"] == 1


# -- scripts without letter case, and without spaces (the language-independent defaults) --------

# From the Bengali Wikipedia article "বাংলাদেশ" (shared bnwiki extract), links as in the dump.
BN_TEXT = ("[[বাংলাদেশ]] [[দক্ষিণ এশিয়া|দক্ষিণ এশিয়ার]] একটি [[সার্বভৌম রাষ্ট্র]]। "
           "বাংলাদেশের পশ্চিমে [[ভারত|ভারতের]] [[পশ্চিমবঙ্গ]] অবস্থিত।")
BN_LINK = re.compile(r"\[\[([^|\]]+)(?:\|([^\]]+))?\]\]")


def bn_article() -> Article:
    text, links, pos, length = [], [], 0, 0
    for match in BN_LINK.finditer(BN_TEXT):
        before = BN_TEXT[pos:match.start()]
        anchor = match.group(2) or match.group(1)
        links.append(Link(length + len(before), length + len(before) + len(anchor), match.group(1), anchor))
        text += [before, anchor]
        length += len(before) + len(anchor)
        pos = match.end()
    text.append(BN_TEXT[pos:])
    return Article(1, "বাংলাদেশ", "".join(text), tuple(links))


def test_is_lowercase_anchor_only_in_cased_scripts():
    from wikisilver.labels import is_capitalized, is_lowercase_anchor

    assert is_lowercase_anchor("lawyer") and is_lowercase_anchor("1848") and is_lowercase_anchor("ügyvéd")
    assert not is_lowercase_anchor("Kentucky") and not is_lowercase_anchor("iPhone")
    assert not is_lowercase_anchor("দক্ষিণ এশিয়ার") and not is_lowercase_anchor("東京")
    assert is_capitalized("Lincoln") and is_capitalized("ঢাকা") and not is_capitalized("lawyer")
    assert not is_capitalized("1990") and not is_capitalized("।")


def test_caseless_links_are_labelled_not_ignored_and_danda_ends_sentences():
    labeller = Labeller("bn", get_processor("bn"))
    targets = {
        "দক্ষিণ এশিয়া": entity("দক্ষিণ এশিয়া", "Continent", "LOC"),
        "সার্বভৌম রাষ্ট্র": entity("সার্বভৌম রাষ্ট্র", None, ""),  # a common noun, untyped
        "ভারত": entity("ভারত", "Country", "LOC"),
        "পশ্চিমবঙ্গ": entity("পশ্চিমবঙ্গ", "AdministrativeRegion", "LOC"),
    }
    own = entity("বাংলাদেশ", "Country", "LOC")
    result = labeller.label_article(bn_article(), targets, own)
    # Sentence 1 links an untyped page ("sovereign state"): without case to tell a common noun,
    # that is UNK and the sentence is dropped (precision first). Sentence 2 is kept whole.
    assert result.counts["sentences_total"] == 2 and result.counts["sentences_kept"] == 1
    assert result.counts["link_lowercase_ignored"] == 0
    sentence = result.sentences[0]
    assert list(zip(sentence.tokens, sentence.conll_tags)) == [
        ("বাংলাদেশের", "O"), ("পশ্চিমে", "O"), ("ভারতের", "B-LOC"), ("পশ্চিমবঙ্গ", "B-LOC"), ("অবস্থিত", "O"), ("।", "O"),
    ]
    assert not sentence.low_quality  # the danda is final punctuation


def test_caseless_own_title_is_matched_as_alias():
    labeller = Labeller("bn", get_processor("bn"))
    text = "বাংলাদেশ একটি রাষ্ট্র। ঢাকা বাংলাদেশ এর রাজধানী।"
    own = entity("বাংলাদেশ", "Country", "LOC")
    result = labeller.label_article(Article(1, "বাংলাদেশ", text, ()), {}, own)
    assert [list(zip(s.tokens, s.conll_tags)) for s in result.sentences] == [
        [("বাংলাদেশ", "B-LOC"), ("একটি", "O"), ("রাষ্ট্র", "O"), ("।", "O")],
        [("ঢাকা", "O"), ("বাংলাদেশ", "B-LOC"), ("এর", "O"), ("রাজধানী", "O"), ("।", "O")],
    ]


def test_japanese_links_align_with_character_tokens():
    labeller = Labeller("ja", get_processor("ja"))
    text = "東京都は日本の首都。人口は約1400万人である。"
    article_ = Article(1, "東京都", text, (Link(4, 6, "日本", "日本"),))
    result = labeller.label_article(article_, {"日本": entity("日本", "Country", "LOC")})
    first, second = ([(t, c) for t, c in zip(s.tokens, s.conll_tags)] for s in result.sentences)
    assert first == [("東", "O"), ("京", "O"), ("都", "O"), ("は", "O"), ("日", "B-LOC"), ("本", "I-LOC"),
                     ("の", "O"), ("首", "O"), ("都", "O"), ("。", "O")]
    assert second[-1] == ("。", "O") and ("1400", "O") in second
    assert not any(s.low_quality for s in result.sentences)
