"""What typing hands the labeller, as the corpus shows it: one DBpedia class per entity in an
article (issue 17, item 8), and group names (nationalities, languages, religions) per language."""

from __future__ import annotations

import pytest

from collections import defaultdict

from conftest import ENWIKI_EXTRACT, TYPES_100K, TYPES_111K, shared_file
from gold_support import label_linked_article
from wikisilver.labels import Labeller, LanguagePack
from wikisilver.records import Article, EntityType, Link, TargetInfo
from wikisilver.text import get_processor


def typed(title: str, cls: str, conll: str) -> TargetInfo:
    return TargetInfo(title, EntityType(title, cls, conll, "O", "types"), exists=True)


def label(text: str, links: list[tuple[str, str]], targets: dict[str, TargetInfo], lang: str = "en"):
    """Label ``text`` whose links are (anchor, target) pairs, in text order."""
    spans: list[Link] = []
    for anchor, target in links:
        start = text.index(anchor, spans[-1].end if spans else 0)
        spans.append(Link(start, start + len(anchor), target, anchor))
    article = Article(1, "Abraham Lincoln", text, tuple(spans))
    return Labeller(lang, get_processor(lang)).label_article(article, targets).sentences


LINCOLN = {
    "Hodgenville, Kentucky": typed("Hodgenville, Kentucky", "City", "LOC"),
    "Kentucky": typed("Kentucky", "AdministrativeRegion", "LOC"),
    "Hardin County, Kentucky": typed("Hardin County, Kentucky", "AdministrativeRegion", "LOC"),
}


def test_a_place_after_the_comma_of_a_split_location_is_that_place():
    # From the Abraham Lincoln article: the state after "Hodgenville," is Kentucky, the state the
    # article links, not a second mention of the town.
    text = "He was born in a log cabin near Hodgenville, Kentucky. His family moved to Kentucky in 1811."
    sentences = label(text, [("Hodgenville, Kentucky", "Hodgenville, Kentucky"), ("Kentucky", "Kentucky")], LINCOLN)
    spans = [(" ".join(s.tokens[x.start:x.end]), x.dbpedia_class, x.target) for s in sentences for x in s.spans]
    assert ("Hodgenville", "City", "Hodgenville, Kentucky") in spans
    assert [span for span in spans if span[0] == "Kentucky"] == [
        ("Kentucky", "AdministrativeRegion", "Kentucky"), ("Kentucky", "AdministrativeRegion", "Kentucky")]
    assert sentences[0].dbpedia_tags[-4:] == ("B-City", "O", "B-AdministrativeRegion", "O")


def test_an_unknown_place_after_the_comma_gets_only_the_generic_class():
    text = "He was born near Hodgenville, Kentucky."
    sentence, = label(text, [("Hodgenville, Kentucky", "Hodgenville, Kentucky")], LINCOLN)
    spans = [(" ".join(sentence.tokens[x.start:x.end]), x.conll, x.dbpedia_class, x.target) for x in sentence.spans]
    assert spans == [("Hodgenville", "LOC", "City", "Hodgenville, Kentucky"), ("Kentucky", "LOC", "Place", "")]


@pytest.mark.slow
def test_one_class_per_entity_in_a_real_article():
    types = [shared_file(TYPES_100K), shared_file(TYPES_111K)]
    result, _ = label_linked_article(shared_file(ENWIKI_EXTRACT), "Abraham Lincoln", types)
    classes: dict[str, set[str]] = defaultdict(set)
    names: dict[str, set[str]] = defaultdict(set)
    for sentence in result.sentences:
        for span in sentence.spans:
            names[" ".join(sentence.tokens[span.start:span.end])].add(span.dbpedia_class)
            # a derived word ("Lincolnian") or a party's member word ("Whig" of the Whig Party) is not its entity
            if span.target and span.rule not in ("derived_word", "party_member_misc"):
                classes[span.target].add(span.dbpedia_class)
    assert {target: found for target, found in classes.items() if len(found) > 1} == {}
    # Kentucky is mentioned alone and after "Hodgenville," and "Hardin County,": one class.
    assert names["Kentucky"] == {"AdministrativeRegion"}


def test_group_names_are_misc_in_english_and_not_entities_in_hungarian():
    # Targets typed EthnicGroup (peoples, and religions as DBpedia types them: Islam) or Language.
    english, hungarian = LanguagePack.load("en"), LanguagePack.load("hu")
    for cls in ("EthnicGroup", "Language"):
        entity = EntityType("X", cls, "MISC", "NORP", "types")
        assert (english.conll_of(entity), hungarian.conll_of(entity)) == ("MISC", "O")
    targets = {"Greek language": typed("Greek language", "Language", "MISC"),
               "Islam": typed("Islam", "EthnicGroup", "MISC")}
    sentence, = label("The Greek text was read by Islam scholars.", [("Greek", "Greek language"), ("Islam", "Islam")],
                      targets)
    assert [(sentence.tokens[x.start], x.conll) for x in sentence.spans] == [("Greek", "MISC"), ("Islam", "MISC")]
    hu_targets = {"Görög nyelv": typed("Görög nyelv", "Language", "MISC"), "Iszlám": typed("Iszlám", "EthnicGroup", "MISC")}
    sentence, = label("A Görög nyelv és az Iszlám tanai.", [("Görög nyelv", "Görög nyelv"), ("Iszlám", "Iszlám")],
                      hu_targets, lang="hu")
    assert sentence.spans == () and set(sentence.conll_tags) == {"O"}
