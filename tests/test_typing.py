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


@pytest.mark.parametrize("lower", CLASS_SOURCES)
def test_an_entity_table_types_the_title_whatever_the_others_say(lower):
    # Band (ORG) from the user's table against Person (PER) from a class source: the table wins,
    # and the sources disagree on the tag, which is a conflict between sources.
    result = typed(**evidence_from("entities", "Band", "ORG"), **evidence_from(lower, "Person", "PER"))
    entity = result.info.entity
    assert (entity.title, entity.dbpedia_class, entity.conll, entity.source) == ("Queen", "Band", "ORG", "entities")
    assert result.decision == "entities"
    assert [conflict.kind for conflict in result.conflicts] == ["between_sources"]
    assert [c.source for c in result.conflicts[0].candidates] == ["entities", lower]


@pytest.mark.parametrize(("higher", "lower"), list(combinations(CLASS_SOURCES, 2)))
def test_two_sources_that_disagree_leave_the_title_unknown(higher, lower):
    # One voter for ORG, one for PER: no evidence decides (the infobox breaks the tie only when it
    # is one of them), so the title is unknown -- precision first.
    result = typed(**evidence_from(higher, "Band", "ORG"), **evidence_from(lower, "Person", "PER"))
    if lower == "infobox":
        assert result.decision == "infobox" and result.info.entity.dbpedia_class == "Person"
        assert result.info.entity.source == "infobox"
    else:
        assert result.decision == "unknown" and result.info.entity is None
    assert [conflict.kind for conflict in result.conflicts] == ["between_sources"]
    assert [c.source for c in result.conflicts[0].candidates] == [higher, lower]


@pytest.mark.parametrize(("higher", "lower"), list(combinations(ORDER, 2)))
def test_sources_that_agree_on_the_tag_are_no_conflict(higher, lower):
    result = typed(**evidence_from(higher, "Band", "ORG"), **evidence_from(lower, "Company", "ORG"))
    # The class comes from the first source by precedence.
    assert result.info.entity.source == higher and result.info.entity.dbpedia_class == "Band"
    assert result.conflicts == ()
    assert result.decision == ("entities" if higher == "entities" else "agreed")


@pytest.mark.parametrize("source", CLASS_SOURCES)
def test_classes_on_one_chain_resolve_to_the_most_specific(source):
    result = typed(**{source: ("PopulatedPlace", "City", "Settlement", "Thing")})
    assert result.info.entity.dbpedia_class == "City"
    assert (result.info.entity.conll, result.info.entity.fine) == ("LOC", "GPE")
    assert result.conflicts == ()


@pytest.mark.parametrize("source", CLASS_SOURCES)
def test_branches_with_different_tags_are_a_conflict_within_the_source(source):
    # Delphi: a city and a programming language. One voter for two tags decides nothing, except the
    # page's own infobox, which breaks a tie.
    result = typed("Delphi", **{source: ("ProgrammingLanguage", "City")})
    assert result.info.entity is None and result.decision == "unknown"
    assert [conflict.kind for conflict in result.conflicts] == [f"within_{source}"]
    assert {c.dbpedia_class: c.conll for c in result.conflicts[0].candidates} == {
        "City": "LOC", "ProgrammingLanguage": "MISC",
    }


@pytest.mark.parametrize("source", CLASS_SOURCES)
def test_branches_with_the_same_tag_are_no_conflict(source):
    # A film and a television show: different branches of Work, both MISC.
    result = typed("Twin Peaks", **{source: ("TelevisionShow", "Film")})
    assert result.info.entity.conll == "MISC" and result.conflicts == ()


def test_conflicts_within_and_between_sources_are_all_reported():
    result = typed("Delphi", types=("ProgrammingLanguage", "City"), infobox=("Software", "Album"))
    # The types support LOC and MISC, the infobox MISC (both its classes are MISC): MISC has both
    # voters, a majority; the class comes from the first source that supports it.
    assert result.decision == "majority"
    assert (result.info.entity.source, result.info.entity.dbpedia_class) == ("types", "ProgrammingLanguage")
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


# -- deciding by evidence: each decision kind (docs/classes.md "Typing a title") ----------------


def test_files_that_agree_on_the_tag_decide_it():
    # Kentucky in the shared samples: AdministrativeRegion, Location and Settlement in one file,
    # AdministrativeRegion in the other; all LOC.
    result = typed("Kentucky", types=(("AdministrativeRegion", 0), ("Location", 0), ("Settlement", 0),
                                      ("AdministrativeRegion", 1)))
    assert result.decision == "agreed"
    assert (result.info.entity.dbpedia_class, result.info.entity.conll) == ("AdministrativeRegion", "LOC")


def test_a_class_and_its_ancestors_are_one_vote():
    result = typed("Springfield", types=("Settlement", "PopulatedPlace", "Place", "Thing"))
    assert result.decision == "agreed" and result.info.entity.dbpedia_class == "Settlement"


def test_a_tag_most_files_support_is_a_majority():
    # Greek_language: Language and Organisation in one file, Language in the other.
    result = typed("Greek language", types=(("Language", 0), ("Organisation", 0), ("Language", 1)))
    assert result.decision == "majority"
    assert (result.info.entity.dbpedia_class, result.info.entity.conll, result.info.entity.fine) == (
        "Language", "MISC", "LANGUAGE")
    assert [conflict.kind for conflict in result.conflicts] == ["within_types"]


def test_a_plurality_that_is_not_a_majority_decides_nothing():
    # Four voters: LOC twice, ORG and PER once each. LOC has half the votes, not more.
    result = typed("Somewhere", types=(("City", 0), ("City", 1), ("Company", 2)), sparql=("Person",))
    assert result.decision == "unknown" and result.info.entity is None


def test_two_files_that_disagree_leave_the_title_unknown():
    result = typed("Union of South Africa", types=(("Country", 0), ("Organisation", 1)))
    assert result.decision == "unknown" and result.info.entity is None
    assert [conflict.kind for conflict in result.conflicts] == ["within_types"]


def test_the_page_s_own_infobox_breaks_a_tie():
    # Lissamphibia: Band in one types file (an error of the sample); its page's taxobox says Species.
    result = typed("Lissamphibia", flags=(PageFlags("Lissamphibia"),), types=("Band",), infobox=("Species",))
    assert result.decision == "infobox"
    assert (result.info.entity.dbpedia_class, result.info.entity.conll, result.info.entity.source) == (
        "Species", "O", "infobox")
    # A majority is not overruled by the infobox.
    outvoted = typed("Lissamphibia", types=(("Band", 0), ("Band", 1)), infobox=("Species",))
    assert outvoted.decision == "majority" and outvoted.info.entity.conll == "ORG"


def test_an_undecided_title_is_unknown_not_a_calendar_title():
    result = typed("1987", types=("Album", "City"))
    assert result.decision == "unknown" and result.info.entity is None


def test_the_curated_table_types_a_title_unless_the_users_table_does():
    """mappings/en/entities.tsv: the European Union is an international organisation whatever the
    type files vote; a user's --entities row still decides first; another language has its own."""
    votes = dict(types=(("Country", 0), ("Organisation", 0), ("Country", 1)))
    curated = typed("European Union", **votes)
    assert (curated.decision, curated.info.entity.conll, curated.info.entity.source) == ("curated", "ORG", "curated")
    users = typed("European Union", entities=(EntityType("European Union", "Country", "LOC", "LOC", "entities"),), **votes)
    assert (users.decision, users.info.entity.conll) == ("entities", "LOC")
    assert typed("Soviet Union", **votes).decision == "majority"  # not in the table: LOC by the vote
    assert typed("Európai Unió", "hu", **votes).info.entity.conll == "ORG"
    assert typed("European Union", "de", **votes).decision == "majority"  # no German table


def test_the_curated_table_makes_alliances_organisations_and_degrees_no_entities():
    """Recurring type errors of the shared samples: the Allies typed Country (a LOC), academic
    degrees typed University (an ORG in a biography's every "earned a Bachelor of Arts")."""
    allies = typed("Allies of World War II", types=(("Country", 0), ("Location", 0), ("Country", 1)))
    assert (allies.decision, allies.info.entity.conll) == ("curated", "ORG")
    degree = typed("Bachelor of Arts", types=(("University", 0), ("University", 1)))
    assert (degree.decision, degree.info.entity.conll) == ("curated", "O")
    assert typed("University of Delaware", types=(("University", 0),)).info.entity.conll == "ORG"


def test_no_evidence_is_no_decision():
    assert typed("Queen").decision is None
    assert typed("1987").decision is None  # the calendar rule is not a decision on evidence


# -- the real type samples of ../shared/data: what the voting makes of them ----------------------

REAL_TITLES = {
    # title: (decision, class, CoNLL tag); class and tag None when the title is unknown
    "Greek language": ("majority", "Language", "MISC"),  # Language vs Organisation in db100k
    "French people": ("majority", "EthnicGroup", "MISC"),  # Country vs EthnicGroup in db100k
    "Greeks": ("majority", "EthnicGroup", "MISC"),
    "Islam": ("agreed", "EthnicGroup", "MISC"),  # religions come typed EthnicGroup
    "Hinduism": ("unknown", None, None),  # Country vs EthnicGroup, one file only
    "Computer animation": ("unknown", None, None),  # Election vs MusicGenre
    "French Revolution": ("unknown", None, None),  # Country vs MilitaryConflict: no longer LOC
    "Doctor of Philosophy": ("curated", "AcademicSubject", "O"),  # OfficeHolder vs University: a degree
    "Agriculture": ("unknown", None, None),  # Company vs PersonFunction
    "Kentucky": ("agreed", "AdministrativeRegion", "LOC"),
    "American Civil War": ("agreed", "MilitaryConflict", "MISC"),
    "Battle of Gettysburg": ("agreed", "MilitaryConflict", "MISC"),
    "X86": ("agreed", "InformationAppliance", "MISC"),
    "Java (programming language)": ("agreed", "ProgrammingLanguage", "MISC"),
    "Linux": ("agreed", "Software", "MISC"),
    # Country (+ Location + Organisation in db100k) in both files: the curated table makes it ORG
    "European Union": ("curated", "InternationalOrganisation", "ORG"),
    "United Nations": ("curated", "InternationalOrganisation", "ORG"),
    "Soviet Union": ("agreed", "Country", "LOC"),
}


@pytest.fixture(scope="module")
def real_typing(real_types):
    from conftest import ONTOLOGY as ONTOLOGY_FILE, TYPES_100K, TYPES_111K, shared_file
    from wikisilver.ontology import load_ontology

    ontology = load_ontology(str(shared_file(ONTOLOGY_FILE)))
    table = resolve_classes(ontology)
    claims = {title: [(cls, origin) for origin, name in enumerate((TYPES_100K, TYPES_111K))
                      for cls in real_types[name][1].get(title, ())] for title in REAL_TITLES}
    return {title: type_title(title, TitleEvidence(types=tuple(found)), "en", ontology, table)
            for title, found in claims.items()}


@pytest.mark.parametrize("title", sorted(REAL_TITLES))
@pytest.mark.slow
def test_real_type_samples_are_decided_by_evidence(title, real_typing):
    result = real_typing[title]
    entity = result.info.entity
    assert (result.decision, entity and entity.dbpedia_class, entity and entity.conll) == REAL_TITLES[title]


@pytest.mark.parametrize(("page", "cls"), [("Apollo 8", "ArtificialSatellite"), ("American Revolutionary War", "MilitaryConflict")])
def test_missions_and_wars_are_misc_through_their_own_infobox(page, cls):
    # Apollo 8 has no DBpedia type in the samples; its page's {{Infobox spaceflight}} types it.
    from conftest import ENWIKI_EXTRACT, shared_file
    from wikisilver.dump import iter_pages
    from wikisilver.entities.infobox import infobox_class, load_infobox_mappings
    from wikisilver.wikitext import template_names

    mappings = load_infobox_mappings(str(shared_file("dbpedia/mappings/en")))
    text = next(p.text for p in iter_pages(str(shared_file(ENWIKI_EXTRACT))) if getattr(p, "title", None) == page)
    found = infobox_class(template_names(text), mappings)
    result = typed(page, flags=(PageFlags(page),), infobox=(found,))
    assert (found, result.info.entity.conll, result.decision) == (cls, "MISC", "agreed")


@pytest.mark.parametrize(("cls", "conll"), [
    ("Deity", "MISC"), ("MythologicalFigure", "MISC"), ("MilitaryConflict", "MISC"), ("SpaceMission", "MISC"),
    ("Spacecraft", "MISC"), ("InformationAppliance", "MISC"), ("Software", "MISC"), ("Film", "MISC"),
    ("Language", "MISC"), ("EthnicGroup", "MISC"), ("FictionalCharacter", "PER"), ("Automobile", "MISC"),
    ("Rocket", "MISC"), ("Ship", "MISC"), ("Aircraft", "MISC"), ("ArtificialSatellite", "MISC"),
])
def test_the_class_table_makes_events_products_works_and_deities_misc(cls, conll):
    # CoNLL guidelines (tests/gold/GUIDELINES_EN.md): deities and mythological figures are MISC.
    assert typed("X", types=(cls,)).info.entity.conll == conll


@pytest.mark.slow
def test_the_build_counts_its_typing_decisions(tmp_path):
    # The demo's types and a second file that disagrees: Budapest a band (one file each way: unknown),
    # the Danube a river and a company (a river in both files: majority).
    from build_support import read_corpus, read_stats
    from wikisilver.cli import main
    from wikisilver.config.resolve import demo_inputs

    dump, demo_types = demo_inputs()
    resource, is_a, dbo = "<http://dbpedia.org/resource/", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", "<http://dbpedia.org/ontology/"
    second = tmp_path / "second.nt"
    second.write_text("".join(f"{resource}{title}> {is_a} {dbo}{cls}> .\n" for title, cls in
                              [("Budapest", "Band"), ("Danube", "River"), ("Danube", "Company"), ("Hungary", "Country")]))
    out = tmp_path / "out"
    assert main(["-q", "build", "--dump", dump, "--lang", "en", "--types", demo_types, "--types", str(second),
                 "--out", str(out)]) == 0
    stats = read_stats(out)
    decisions = stats["typing_decisions"]
    assert (decisions["unknown"], decisions["majority"]) == (1, 1)
    assert decisions["agreed"] >= 20 and set(decisions) == {"agreed", "curated", "majority", "unknown"}
    assert decisions["curated"] >= 1  # the demo's European Union (mappings/en/entities.tsv)
    assert stats["typing_conflicts"]["within_types"] >= 2
    rows = read_corpus(out)
    # Unknown: no span is Budapest (its mentions are UNK, their sentences dropped).
    assert rows and not any(span["target"] == "Budapest" for row in rows for span in row["spans"])
    assert any(span["target"] == "Danube" and span["conll"] == "LOC" for row in rows for span in row["spans"])
