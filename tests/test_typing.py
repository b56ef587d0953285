"""Step 1's decision (wikisilver.entities.typing.type_title): precedence of sources, conflicts, the
calendar rule and redirect titles, on the shipped class hierarchy and class table."""

from __future__ import annotations

from itertools import combinations

import pytest

from wikisilver.entities.typing import TitleEvidence, type_title
from wikisilver.ontology import load_builtin_ontology, resolve_classes
from wikisilver.records import EntityType, PageFlags

ONTOLOGY = load_builtin_ontology()
TABLE = resolve_classes(ONTOLOGY)
# The documented precedence, highest first (docs/classes.md).
ORDER = ("entities", "types", "sparql", "langlinks", "infobox")
CLASS_SOURCES = ORDER[1:]


def evidence_from(source: str, cls: str, conll: str = "ORG") -> dict:
    """The evidence one source gives for a title: a table row, or a DBpedia class."""
    if source == "entities":
        return {"entities": (EntityType("Queen", cls, conll, conll, "entities"),)}
    return {source: (cls,)}


def typed(title: str = "Queen", lang: str = "en", **evidence):
    return type_title(title, TitleEvidence(**evidence), lang, ONTOLOGY, TABLE)


@pytest.mark.parametrize(("higher", "lower"), list(combinations(ORDER, 2)))
def test_the_higher_source_types_the_title(higher, lower):
    # Band (ORG) from the higher source against Person (PER) from the lower: the higher wins, and
    # the sources disagree on the tag, which is a conflict between sources.
    result = typed(**evidence_from(higher, "Band", "ORG"), **evidence_from(lower, "Person", "PER"))
    entity = result.info.entity
    assert (entity.title, entity.dbpedia_class, entity.conll, entity.source) == ("Queen", "Band", "ORG", higher)
    assert [conflict.kind for conflict in result.conflicts] == ["between_sources"]
    assert [c.source for c in result.conflicts[0].candidates] == [higher, lower]


@pytest.mark.parametrize(("higher", "lower"), list(combinations(ORDER, 2)))
def test_sources_that_agree_on_the_tag_are_no_conflict(higher, lower):
    result = typed(**evidence_from(higher, "Band", "ORG"), **evidence_from(lower, "Company", "ORG"))
    assert result.info.entity.source == higher and result.info.entity.dbpedia_class == "Band"
    assert result.conflicts == ()


@pytest.mark.parametrize("source", CLASS_SOURCES)
def test_classes_on_one_chain_resolve_to_the_most_specific(source):
    result = typed(**{source: ("PopulatedPlace", "City", "Settlement", "Thing")})
    assert result.info.entity.dbpedia_class == "City"
    assert (result.info.entity.conll, result.info.entity.fine) == ("LOC", "GPE")
    assert result.conflicts == ()


@pytest.mark.parametrize("source", CLASS_SOURCES)
def test_branches_with_different_tags_are_a_conflict_within_the_source(source):
    # Delphi: a city and a programming language. The deepest class wins.
    result = typed("Delphi", **{source: ("ProgrammingLanguage", "City")})
    assert result.info.entity.dbpedia_class == "City" and result.info.entity.conll == "LOC"
    assert [conflict.kind for conflict in result.conflicts] == [f"within_{source}"]
    assert {c.dbpedia_class: c.conll for c in result.conflicts[0].candidates} == {
        "City": "LOC", "ProgrammingLanguage": "MISC",
    }


@pytest.mark.parametrize("source", CLASS_SOURCES)
def test_branches_with_the_same_tag_are_no_conflict(source):
    # A film and a television show: different branches of Work, both MISC.
    result = typed("Twin Peaks", **{source: ("TelevisionShow", "Film")})
    assert result.info.entity.conll == "MISC" and result.conflicts == ()


def test_a_tie_in_depth_goes_to_the_first_class_by_name():
    result = typed(types=("Person", "Band"))
    assert result.info.entity.dbpedia_class == "Band"
    assert [conflict.kind for conflict in result.conflicts] == ["within_types"]


def test_conflicts_within_and_between_sources_are_all_reported():
    result = typed("Delphi", types=("ProgrammingLanguage", "City"), infobox=("Software", "Album"))
    assert result.info.entity.source == "types" and result.info.entity.dbpedia_class == "City"
    # The infobox's classes are both MISC (no conflict within it) but disagree with the types' LOC.
    assert [conflict.kind for conflict in result.conflicts] == ["within_types", "between_sources"]


def test_two_entity_tables_that_disagree_resolve_the_same_way_in_any_order():
    rows = (EntityType("Queen", "Band", "ORG", "ORG", "entities"), EntityType("Queen", "Person", "PER", "PERSON", "entities"))
    first, second = typed(entities=rows), typed(entities=rows[::-1])
    assert first == second and first.info.entity.dbpedia_class == "Band"
    assert first.conflicts == ()  # a table is the user's decision: its rows are not compared


def test_a_class_outside_the_hierarchy_is_used_when_it_is_the_only_one():
    result = typed("Somewhere", types=("Location", "Thing"))
    assert (result.info.entity.dbpedia_class, result.info.entity.conll) == ("Location", "LOC")


def test_an_untyped_calendar_title_is_o_and_a_typed_one_keeps_its_type():
    year = typed("1987", flags=(PageFlags("1987"),))
    assert (year.info.entity.conll, year.info.entity.source, year.info.entity.dbpedia_class) == ("O", "calendar", None)
    hungarian = typed("1848. március 15.", lang="hu")
    assert hungarian.info.entity.source == "calendar"
    album = typed("1987", types=("Album",))
    assert (album.info.entity.conll, album.info.entity.source) == ("MISC", "types")
    assert typed("Queen").info.entity is None


def test_a_title_that_is_only_a_redirect_is_not_an_entity():
    result = typed("Loop A", flags=(PageFlags("Loop A", is_redirect=True),), types=("City",), aliases=("Loop B",))
    assert result.info.entity is None and not result.info.exists and result.info.aliases == ()


def test_a_title_with_a_page_exists_and_keeps_its_type():
    flags = (PageFlags("Queen", is_redirect=True), PageFlags("Queen"))
    result = typed(flags=flags, types=("Band",))
    assert result.info.exists and result.info.entity.dbpedia_class == "Band"


def test_disambiguation_pages_and_aliases():
    result = typed("Mercury", flags=(PageFlags("Mercury", is_disambiguation=True),),
                   aliases=("Merkur", "Hermes", "Merkur"))
    assert result.info.is_disambiguation and result.info.exists and result.info.entity is None
    assert result.info.aliases == ("Hermes", "Merkur")
