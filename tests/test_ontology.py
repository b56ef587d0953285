"""Step 1: the DBpedia class hierarchy and the class -> tag table (wikisilver.ontology)."""

from __future__ import annotations

import bz2
import json

import pytest
from conftest import ONTOLOGY, shared_file

from wikisilver import cli
from wikisilver.errors import InputError
from wikisilver.ontology import (
    CONLL_TAGS,
    FINE_TAGS,
    THING,
    ClassTag,
    Ontology,
    depth,
    find_conflicts,
    format_class_parents,
    load_builtin_ontology,
    load_class_mapping,
    load_ontology,
    merge_ontologies,
    most_specific,
    resolve_classes,
    tag_for_class,
)
from wikisilver.resources import mapping_path

VERSIONS = {"snapshot": ONTOLOGY, "2014": "dbpedia/ontology/dbpedia_2014.owl", "3.7": "dbpedia/ontology/dbpedia_3.7.owl"}
EXPECTED_CLASSES = {"snapshot": 790, "2014": 683, "3.7": 319}


class _Lazy(dict):
    """Parses each shared ontology once per module, only when a test asks for it (rdflib is slow)."""

    def __missing__(self, version: str) -> Ontology:
        self[version] = load_ontology(str(shared_file(VERSIONS[version])))
        return self[version]


@pytest.fixture(scope="module")
def ontologies() -> _Lazy:
    return _Lazy()


@pytest.fixture(scope="module")
def builtin_table() -> dict[str, ClassTag]:
    return resolve_classes(load_builtin_ontology(), strict=True)


def _tags(table: dict[str, ClassTag], cls: str) -> tuple[str, str]:
    return table[cls].conll, table[cls].fine


# -- every class of every supported ontology is decided ------------------------------------------


@pytest.mark.parametrize("version", sorted(VERSIONS))
@pytest.mark.slow
def test_every_class_of_each_shared_ontology_resolves_without_conflict(ontologies, version):
    ontology = ontologies[version]
    assert len(ontology.parents) == EXPECTED_CLASSES[version]
    conflicts = find_conflicts(ontology)
    assert not conflicts, f"multi-parent classes without a row in classes.tsv: {sorted(conflicts)}"
    table = resolve_classes(ontology, strict=True)
    assert set(ontology.parents) <= set(table)
    for tag in table.values():
        assert tag.conll in CONLL_TAGS and tag.fine in FINE_TAGS
        assert (tag.conll == "O") == (tag.fine == "O") or tag.conll == "MISC", tag


@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_a_class_gets_the_same_tags_in_every_ontology_version(ontologies, builtin_table, version):
    table = resolve_classes(ontologies[version], strict=True)
    differ = {c: (_tags(table, c), _tags(builtin_table, c)) for c in table if _tags(table, c) != _tags(builtin_table, c)}
    assert not differ


def test_every_row_of_the_table_names_a_known_class(ontologies):
    known = set(load_builtin_ontology().parents) | {THING}
    for version in VERSIONS:
        known |= set(ontologies[version].parents)
    served_but_unpublished = {"Location"}  # typed by the live endpoint (db100k types), in no ontology file
    assert set(load_class_mapping()) - known == served_but_unpublished


# -- the paper's mapping and its exceptions ------------------------------------------------------


def test_city_is_loc_gpe_decided_by_populated_place(builtin_table):
    assert builtin_table["City"] == ClassTag("City", "LOC", "GPE", "PopulatedPlace")
    assert _tags(builtin_table, "Country") == ("LOC", "GPE")
    assert _tags(builtin_table, "River") == ("LOC", "LOC")
    assert _tags(builtin_table, "Continent") == ("LOC", "LOC")
    assert _tags(builtin_table, "Airport") == ("LOC", "FAC")


def test_every_person_subclass_is_per(ontologies):
    for version in VERSIONS:
        ontology = ontologies[version]
        table = resolve_classes(ontology)
        # Employer sits under Person in 2014 only; its instances are firms (a row decides it ORG).
        # Mythological figures (under FictionalCharacter, under Person in 3.7/2014) are MISC by the
        # CoNLL guidelines, as deities are.
        persons = [c for c in ontology.parents if "Person" in ontology.ancestors(c) and c != "Employer"]
        assert len(persons) > 50
        assert {_tags(table, c) for c in persons if c != "MythologicalFigure"} == {("PER", "PERSON")}
        if "MythologicalFigure" in persons:
            assert _tags(table, "MythologicalFigure") == ("MISC", "PERSON")


def test_person_stays_per_although_the_snapshot_puts_it_under_species(ontologies):
    snapshot = ontologies["snapshot"]
    assert "Species" in snapshot.ancestors("Person")
    table = resolve_classes(snapshot)
    assert _tags(table, "Mammal") == ("O", "O")
    assert table["Person"].decided_by == "Person" and table["Person"].conll == "PER"


def test_paper_exceptions(builtin_table):
    assert _tags(builtin_table, "SportsLeague") == ("MISC", "ORG")
    assert _tags(builtin_table, "SoccerLeague") == ("MISC", "ORG")
    assert _tags(builtin_table, "SportsTeamSeason") == ("O", "O")
    assert _tags(builtin_table, "SoccerClubSeason") == ("O", "O")
    assert _tags(builtin_table, "Library") == ("LOC", "FAC")
    assert _tags(builtin_table, "PeriodicalLiterature") == ("ORG", "ORG")
    assert _tags(builtin_table, "Newspaper") == ("ORG", "ORG")


def test_organisations_works_and_other_misc(builtin_table):
    assert builtin_table["Band"] == ClassTag("Band", "ORG", "ORG", "Organisation")
    assert _tags(builtin_table, "University") == ("ORG", "ORG")
    assert builtin_table["Album"] == ClassTag("Album", "MISC", "WORK_OF_ART", "Work")
    assert _tags(builtin_table, "Treaty") == ("MISC", "LAW")
    assert _tags(builtin_table, "Language") == ("MISC", "LANGUAGE")
    assert _tags(builtin_table, "EthnicGroup") == ("MISC", "NORP")
    assert _tags(builtin_table, "Automobile") == ("MISC", "PRODUCT")
    assert _tags(builtin_table, "MilitaryConflict") == ("MISC", "EVENT")


def test_non_entities_are_o(builtin_table):
    for cls in ("Thing", "Disease", "Species", "ChemicalCompound", "Colour", "Currency", "Activity",
                "TopicalConcept", "Sales", "Gene", "Year", "Sport", "MusicGenre"):
        assert _tags(builtin_table, cls) == ("O", "O"), cls


def test_a_table_class_absent_from_the_ontology_resolves_to_itself(builtin_table):
    assert "Location" not in load_builtin_ontology().parents
    assert builtin_table["Location"] == ClassTag("Location", "LOC", "LOC", "Location")


def test_unknown_class_is_tagged_as_thing(builtin_table):
    assert tag_for_class("NoSuchClass", builtin_table) == ClassTag("NoSuchClass", "O", "O", THING)
    assert tag_for_class("City", builtin_table) is builtin_table["City"]


# -- multi-parent classes must be decided by a row ------------------------------------------------


def test_missing_row_for_a_disagreeing_multi_parent_class_is_reported(ontologies):
    without_library = {c: t for c, t in load_class_mapping().items() if c != "Library"}
    conflicts = find_conflicts(ontologies["3.7"], without_library)
    assert set(conflicts) == {"Library"}
    options = {(o.dbpedia_class, o.conll) for o in conflicts["Library"]}
    assert options == {("Building", "LOC"), ("EducationalInstitution", "ORG")}
    with pytest.raises(InputError, match="Library"):
        resolve_classes(ontologies["3.7"], without_library, strict=True)


def test_conflict_choice_does_not_depend_on_parent_order():
    mapping = {THING: ("O", "O"), "Place": ("LOC", "LOC"), "Organisation": ("ORG", "ORG")}
    a = Ontology({"Place": (THING,), "Organisation": (THING,), "Club": ("Place", "Organisation")})
    b = Ontology({"Place": (THING,), "Organisation": (THING,), "Club": ("Organisation", "Place")})
    assert set(find_conflicts(a, mapping)) == {"Club"}
    assert resolve_classes(a, mapping)["Club"] == resolve_classes(b, mapping)["Club"]
    assert resolve_classes(a, mapping | {"Club": ("ORG", "ORG")}, strict=True)["Club"].decided_by == "Club"


def test_parents_that_agree_are_not_a_conflict(ontologies):
    mountain = ontologies["2014"].parents["Mountain"]
    assert set(mountain) == {"NaturalPlace", "Place"}
    assert "Mountain" not in find_conflicts(ontologies["2014"])


def test_a_cycle_in_a_broken_ontology_terminates():
    ontology = Ontology({"A": ("B",), "B": ("A",), "C": ("A",)})
    table = resolve_classes(ontology, {THING: ("O", "O"), "B": ("ORG", "ORG")})
    assert _tags(table, "C") == ("ORG", "ORG")
    assert depth(ontology, "C") >= 1


# -- depth and most_specific ------------------------------------------------------------------------


def test_depth_counts_the_longest_path_to_thing():
    ontology = load_builtin_ontology()
    assert depth(ontology, THING) == 0
    assert depth(ontology, "Place") == 1
    assert depth(ontology, "City") == depth(ontology, "Settlement") + 1
    assert depth(ontology, "NoSuchClass") == 0


def test_most_specific_picks_the_deepest_class_on_one_chain():
    ontology = load_builtin_ontology()
    assert most_specific(["Place", "Settlement", "City", "PopulatedPlace", THING], ontology) == ("City", False)
    assert most_specific(["Person", "SoccerPlayer", "Athlete"], ontology) == ("SoccerPlayer", False)
    # The snapshot puts Person under Animal, not Agent: the two are on different branches there.
    assert most_specific(["Agent", "Person"], ontology) == ("Person", True)


def test_most_specific_flags_classes_on_different_branches():
    ontology = load_builtin_ontology()
    # Delphi: a programming language in one types file, an administrative region in the other.
    best, conflict = most_specific(["ProgrammingLanguage", "AdministrativeRegion"], ontology)
    assert conflict
    assert best == max(["ProgrammingLanguage", "AdministrativeRegion"], key=lambda c: depth(ontology, c))
    assert most_specific(["AdministrativeRegion", "ProgrammingLanguage"], ontology) == (best, True)
    # Same depth, different branches: the tie goes to the first name, whatever the input order.
    assert depth(ontology, "Film") == depth(ontology, "TelevisionShow")
    assert most_specific(["TelevisionShow", "Film"], ontology) == ("Film", True)


def test_most_specific_ignores_thing_and_unknown_classes_unless_nothing_else():
    ontology = load_builtin_ontology()
    assert most_specific(["Location", "Settlement"], ontology) == ("Settlement", False)
    assert most_specific(["Location", THING], ontology) == ("Location", False)
    assert most_specific([THING], ontology) == (THING, False)
    assert most_specific([], ontology) == (None, False)


# -- reading ontology files ------------------------------------------------------------------------

SMALL_TTL = """\
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix dbo: <http://dbpedia.org/ontology/> .
dbo:Place a owl:Class ; rdfs:label "place"@en ; rdfs:subClassOf owl:Thing .
dbo:City a owl:Class ; rdfs:label "city"@en ; rdfs:subClassOf dbo:Place , <http://schema.org/City> .
dbo:Hospital a owl:Class ; rdfs:subClassOf dbo:building .
"""


def test_small_turtle_ontology_keeps_only_dbpedia_parents(tmp_path):
    path = tmp_path / "tiny.ttl.bz2"
    path.write_bytes(bz2.compress(SMALL_TTL.encode()))
    ontology = load_ontology(str(path))
    # schema.org is another vocabulary and dbo:building is a dangling reference: both dropped.
    assert dict(ontology.parents) == {"Place": (THING,), "City": ("Place",), "Hospital": (THING,)}
    assert ontology.labels["City"] == "city"


def test_a_parsed_ontology_is_cached_by_content(tmp_path, monkeypatch):
    from wikisilver.ontology import owl as ontology_module

    monkeypatch.setenv("WIKISILVER_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "tiny.ttl"
    path.write_text(SMALL_TTL, encoding="utf-8")
    first = load_ontology(str(path))
    assert len(list((tmp_path / "cache").glob("ontology-v*.json"))) == 1

    def no_parsing(*args):
        raise AssertionError("parsed again although the file is unchanged")

    monkeypatch.setattr(ontology_module, "_parse_ontology", no_parsing)
    second = load_ontology(str(path))
    assert dict(second.parents) == dict(first.parents) and dict(second.labels) == dict(first.labels)
    # An edited file has another hash: parsed again, never served stale.
    path.write_text(SMALL_TTL.replace('"city"@en', '"town"@en'), encoding="utf-8")
    with pytest.raises(AssertionError, match="parsed again"):
        load_ontology(str(path))


def test_a_damaged_cache_entry_is_parsed_again_and_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("WIKISILVER_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "tiny.ttl"
    path.write_text(SMALL_TTL, encoding="utf-8")
    load_ontology(str(path))
    (entry,) = (tmp_path / "cache").glob("ontology-v*.json")
    entry.write_text('{"parents": {"City": ', encoding="utf-8")
    assert dict(load_ontology(str(path)).parents)["City"] == ("Place",)
    assert json.loads(entry.read_text(encoding="utf-8"))["parents"]["City"] == ["Place"]

    monkeypatch.setenv("WIKISILVER_CACHE_DIR", "off")
    other = tmp_path / "other.ttl"
    other.write_text(SMALL_TTL + "dbo:Town a owl:Class ; rdfs:subClassOf dbo:City .\n", encoding="utf-8")
    assert dict(load_ontology(str(other)).parents)["Town"] == ("City",)
    assert len(list((tmp_path / "cache").glob("ontology-v*.json"))) == 1


def test_turtle_snapshot_gives_the_same_parents_as_the_owl(ontologies):
    turtle = load_ontology(str(shared_file("dbpedia/ontology/dbo-snapshots.ttl")))
    assert dict(turtle.parents) == dict(ontologies["snapshot"].parents)
    assert turtle.labels["City"] == ontologies["snapshot"].labels["City"] == "city"


def test_corrupt_owl_names_the_file_and_line(tmp_path):
    path = tmp_path / "broken.owl"
    path.write_text('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
                    "<owl:Class>\n\x00garbage &&& <<\n")
    with pytest.raises(InputError) as error:
        load_ontology(str(path))
    assert str(path) in str(error.value)
    assert error.value.position and error.value.position.startswith("line ")
    assert "\n" not in str(error.value)


def test_bad_turtle_names_the_line(tmp_path):
    path = tmp_path / "broken.ttl"
    path.write_text("@prefix dbo: <http://dbpedia.org/ontology/> .\ndbo:A dbo:b dbo:c .\ndbo:A dbo:b garbage garbage .\n")
    with pytest.raises(InputError) as error:
        load_ontology(str(path))
    assert error.value.path == str(path) and error.value.position == "line 3"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("missing.owl", None, "no such ontology file"),
        ("classes.csv", "a,b\n", "unknown ontology format"),
        ("types.nt", "<http://dbpedia.org/resource/X> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
                     "<http://dbpedia.org/ontology/City> .\n", "no DBpedia ontology classes"),
        ("truncated.owl.bz2", b"BZh91AY&SY not really bzip2", "unreadable or truncated bz2 data"),
    ],
)
def test_unusable_ontology_files_are_one_line_errors(tmp_path, name, content, reason):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=reason) as error:
        load_ontology(str(path))
    assert error.value.path == str(path)


# -- the shipped tables ------------------------------------------------------------------------------


def test_builtin_parent_table_is_generated_from_the_shared_ontologies(ontologies):
    expected = format_class_parents([ontologies["snapshot"], ontologies["2014"], ontologies["3.7"]])
    shipped = mapping_path("class_parents.tsv").read_text(encoding="utf-8")
    body = "".join(line for line in shipped.splitlines(keepends=True) if not line.startswith("#"))
    assert body == expected, "mappings/class_parents.tsv is stale: run scripts/generate_class_parents.py"
    merged = merge_ontologies([ontologies["snapshot"], ontologies["2014"], ontologies["3.7"]])
    assert dict(load_builtin_ontology().parents) == dict(merged.parents)
    # A class dropped after 2014 keeps its old parent; a class in several keeps the newest one.
    assert merged.parents["Celebrity"] == ("Person",)
    assert merged.parents["Library"] == ("EducationalInstitution",)


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        ("class\tconll\tfine\tnote\nCity\tLOC\tCITY\t\n", "fine tag 'CITY'"),
        ("class\tconll\tfine\tnote\nCity\tPLACE\tGPE\t\n", "CoNLL tag 'PLACE'"),
        ("class\tconll\tfine\tnote\nCity\tLOC\tGPE\t\nCity\tLOC\tLOC\t\n", "mapped twice"),
        ("klass\ttag\n", "header"),
        ("class\tconll\tfine\tnote\nCity LOC GPE\n", "tab-separated"),
    ],
)
def test_bad_class_table_is_a_one_line_error_with_the_line(tmp_path, rows, reason):
    path = tmp_path / "classes.tsv"
    path.write_text("# a comment\n" + rows)
    with pytest.raises(InputError, match=reason) as error:
        load_class_mapping(str(path))
    assert error.value.path == str(path) and error.value.position.startswith("line ")


# -- `wikisilver classes` --------------------------------------------------------------------------------


def test_classes_command_prints_the_builtin_table(capsys):
    assert cli.main(["classes"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "class\tconll\tfine\tdecided_by"
    assert "City\tLOC\tGPE\tPopulatedPlace" in lines
    assert "SportsTeamSeason\tO\tO\tSportsTeamSeason" in lines
    assert len(lines) == len(load_builtin_ontology().parents) + 3  # + header, Thing, Location


def test_classes_command_table_format_on_an_ontology_file(tmp_path, capsys):
    path = tmp_path / "tiny.ttl"
    path.write_text(SMALL_TTL)
    assert cli.main(["classes", "--ontology", str(path), "--format", "table"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["class", "conll", "fine", "decided_by"]
    # Table rows for classes the file lacks are listed too (they resolve to themselves).
    assert ["City", "LOC", "LOC", "Place"] in [line.split() for line in lines]
    assert ["Hospital", "LOC", "FAC", "Hospital"] in [line.split() for line in lines]


def test_classes_check_fails_on_an_undecided_multi_parent_class(tmp_path, capsys):
    ontology = tmp_path / "tiny.ttl"
    ontology.write_text(SMALL_TTL + "dbo:Organisation a owl:Class .\ndbo:Library a owl:Class ; "
                                    "rdfs:subClassOf dbo:Place , dbo:Organisation .\n")
    mapping = tmp_path / "classes.tsv"
    mapping.write_text("class\tconll\tfine\tnote\nThing\tO\tO\t\nPlace\tLOC\tLOC\t\nOrganisation\tORG\tORG\t\n")
    assert cli.main(["classes", "--ontology", str(ontology), "--mapping", str(mapping), "--check"]) == 1
    assert "Library has parents that resolve differently" in capsys.readouterr().err


def test_classes_command_reports_a_corrupt_ontology_in_one_line(tmp_path, capsys):
    path = tmp_path / "garbage.owl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n not an ontology")
    assert cli.main(["classes", "--ontology", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("wikisilver classes: error: ") and str(path) in err and "\n" not in err
