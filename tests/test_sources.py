"""Readers of the entity-typing sources (step 1 inputs): DBpedia types, infobox mappings, sameAs, entity tables."""

from __future__ import annotations

import bz2
import gzip
import logging
from pathlib import Path

import pytest

from conftest import TYPES_100K, TYPES_111K, shared_file
from wikisilver.entities.infobox import infobox_class, load_infobox_mappings
from wikisilver.wikitext import template_key
from hypothesis import example, given, settings, strategies as st

from wikisilver.entities import rdf
from wikisilver.entities.rdf import TripleReadStats, iter_instance_types, iter_triples, nt_terms, resource_title
from wikisilver.entities.table import EntityRow, read_entity_table, write_entity_table
from wikisilver.errors import InputError

RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"

NTRIPLES = f"""# instance types, DBpedia layout
<http://dbpedia.org/resource/Abraham_Lincoln> {RDF_TYPE} <http://dbpedia.org/ontology/OfficeHolder> .
<http://dbpedia.org/resource/Abraham_Lincoln> {RDF_TYPE} <http://www.w3.org/2002/07/owl#Thing> .
<http://dbpedia.org/resource/%22Heroes%22_(David_Bowie_album)> {RDF_TYPE} <http://dbpedia.org/ontology/Album> .
<http://dbpedia.org/resource/Budapest> {RDF_TYPE} <http://dbpedia.org/ontology/City
<http://hu.dbpedia.org/resource/K%C3%B6ln> {RDF_TYPE} <http://dbpedia.org/ontology/City> .
<http://dbpedia.org/resource/Berlin> <http://www.w3.org/2000/01/rdf-schema#label> "Berlin"@en .
<http://dbpedia.org/resource/Paris> {RDF_TYPE} <http://schema.org/City> .
<http://dbpedia.org/resource/Paris> {RDF_TYPE} <http://dbpedia.org/ontology/Wikidata:Q515> .

<http://dbpedia.org/resource/Paris> {RDF_TYPE} <http://dbpedia.org/ontology/City> .
"""

TURTLE = """@prefix dbr: <http://dbpedia.org/resource/> .
@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>

dbr:Aristotle a dbo:Philosopher .
dbr:Alabama rdf:type dbo:AdministrativeRegion.
dbr:Delphi a dbo:ProgrammingLanguage , owl:Thing ;
    a dbo:Software .
dbr:Foo_\\(bar\\) a dbo:Band . # escaped parentheses
dbr:Broken a .
xyz:Unknown a dbo:City .
<http://dbpedia.org/resource/Angela_Merkel> a dbo:Politician .
"""


def test_ntriples_types_with_malformed_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "types.nt"
    path.write_text(NTRIPLES, encoding="utf-8")
    stats = TripleReadStats()
    with caplog.at_level(logging.WARNING, logger="wikisilver.entities.rdf"):
        pairs = list(iter_instance_types(str(path), stats))
    assert pairs == [
        ("Abraham Lincoln", "OfficeHolder"),
        ('"Heroes" (David Bowie album)', "Album"),
        ("Köln", "City"),
        ("Paris", "City"),
    ]
    assert stats.malformed == 1 and stats.malformed_lines == [5]
    assert "types.nt:5:" in caplog.text
    assert stats.other_objects == 3  # owl:Thing, schema.org, dbo:Wikidata:Q515
    assert stats.other_predicates == 1


def test_counts_of_a_mixed_file_and_of_a_read_stopped_early(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """N-Triples lines (counted in bulk) and Turtle lines (one by one) add up the same either way,
    also where the reader stops after the first triple (as the header check does)."""
    path = tmp_path / "types.ttl"
    path.write_text(NTRIPLES + "\n" + TURTLE + "dbr:Unfinished a dbo:City ,\n", encoding="utf-8")
    stats = TripleReadStats()
    with caplog.at_level(logging.WARNING, logger="wikisilver.entities.rdf"):
        assert len(list(iter_instance_types(str(path), stats))) == 11
    assert (stats.lines, stats.triples, stats.kept, stats.other_objects, stats.other_predicates) == (26, 16, 11, 4, 1)
    assert stats.malformed_lines == [5, 23, 24, 26] and "types.ttl:26: file ends inside a statement" in caplog.text
    early = TripleReadStats()
    triples = iter_triples(str(path), early)
    next(triples)
    triples.close()
    assert (early.lines, early.triples) == (2, 1)


def test_gz_turtle_with_prefixes_and_continuations(tmp_path: Path) -> None:
    path = tmp_path / "types.ttl.gz"
    path.write_bytes(gzip.compress(TURTLE.encode("utf-8")))
    stats = TripleReadStats()
    pairs = list(iter_instance_types(str(path), stats))
    assert pairs == [
        ("Aristotle", "Philosopher"),
        ("Alabama", "AdministrativeRegion"),
        ("Delphi", "ProgrammingLanguage"),
        ("Delphi", "Software"),
        ("Foo (bar)", "Band"),
        ("Angela Merkel", "Politician"),
    ]
    assert stats.other_objects == 1  # owl:Thing
    assert stats.malformed == 2  # "dbr:Broken a ." and the undeclared prefix xyz:


def test_bz2_and_literals_in_generic_triples(tmp_path: Path) -> None:
    path = tmp_path / "x.nt.bz2"
    line = '<http://dbpedia.org/resource/Berlin> <http://www.w3.org/2000/01/rdf-schema#label> "Berlin, \\"Stadt\\""@de .'
    path.write_bytes(bz2.compress(line.encode("utf-8") + b"\n"))
    assert list(iter_triples(str(path))) == [
        ("http://dbpedia.org/resource/Berlin", "http://www.w3.org/2000/01/rdf-schema#label", '"Berlin, \\"Stadt\\""@de')
    ]


def test_binary_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "types.nt"
    path.write_bytes(b"\x00\x01\x02garbage\xff\xfe\n")
    with pytest.raises(InputError, match=r"types\.nt:line 1: not an N-Triples"):
        list(iter_instance_types(str(path)))
    with pytest.raises(InputError, match="nope.nt"):
        list(iter_instance_types(str(tmp_path / "nope.nt")))


def test_resource_title_languages() -> None:
    assert resource_title("http://dbpedia.org/resource/Foo_(bar)") == ("en", "Foo (bar)")
    assert resource_title("http://hu.dbpedia.org/resource/K%C3%B6ln") == ("hu", "Köln")
    assert resource_title("http://wikidata.dbpedia.org/resource/Q64") is None
    assert resource_title("http://yago-knowledge.org/resource/Berlin") is None


# Lines near DBpedia's layout: IRIs with and without brackets and with inner brackets, white
# space of every kind (\x1c and \u2028 are white space to both \s and str.split), dots, comments.
_NT_PIECES = st.lists(st.sampled_from([
    "<", ">", "<http://dbpedia.org/resource/A_(b)>", "<p>", "<>", "a", " ", "  ", "\t", "\x1c", "\u2028", "\u00a0",
    ".", "#", " # note", "\n", "\r", '"lit"', "<a>b", "<a<b>", "<a>>",
]), max_size=12)


@settings(max_examples=3000, deadline=None)
@given(_NT_PIECES)
@example(["<s>", " ", "<p>", " ", "<o>", " ", ".", "\n"])
@example([" ", "<s>", " ", "<p>", " ", "<o>", " ", "."])
@example(["<s>", " ", "<p>", " ", "<o>", "."])
@example(["<s>", "\t", "<p>", "\u2028", "<o>", " ", ".", " ", "\n"])
@example(["<s>", " ", "<p>", " ", "<a>>", " ", "."])
def test_nt_terms_read_what_the_expression_reads(pieces: list[str]) -> None:
    # rdf.nt_terms, the speed path: the same IRIs as the N-Triples expression, or the same None
    line = "".join(pieces)
    if not line:
        return
    expected = rdf._NT_LINE.match(line)
    assert nt_terms(line) == (expected.groups() if expected else None)


_IRI_PIECES = st.lists(st.sampled_from([
    "http://dbpedia.org/resource/", "https://", "http://", "hu.", "wikidata.", "dbpedia.org/resource/", "Foo_(bar)",
    "%C3%B6", "_", " ", "\n", "#x", ":", "a", "",
]), max_size=6)


@settings(max_examples=2000, deadline=None)
@given(_IRI_PIECES)
@example(["http://dbpedia.org/resource/"])
@example(["http://dbpedia.org/resource/", "Foo", "\n"])
@example(["http://dbpedia.org/resource/", "\n"])
@example(["http://dbpedia.org/resource/", "F", "\n", "o"])
def test_resource_title_reads_english_iris_as_the_expression_does(pieces: list[str]) -> None:
    # resource_title's speed path for http://dbpedia.org/resource/: the title the expression gives
    iri = "".join(pieces)
    m = rdf._RESOURCE.match(iri)
    if m is None or (m.group(1) or "en") in rdf._NOT_LANGUAGES:
        expected = None
    else:
        title = rdf.normalize_title(rdf.unquote(m.group(2)))
        expected = (m.group(1) or "en", title) if title else None
    assert resource_title(iri) == expected


@pytest.mark.slow
def test_real_types_counts(real_types) -> None:
    stats100, types100 = real_types[TYPES_100K]
    stats111, types111 = real_types[TYPES_111K]
    assert (stats100.lines, stats100.kept, stats100.malformed) == (143423, 143423, 0)
    assert (stats111.lines, stats111.kept, stats111.malformed) == (99106, 99106, 0)
    assert len(types100) == 96649
    assert len(types111) == 99102


def test_real_types_titles(real_types) -> None:
    _, types100 = real_types[TYPES_100K]
    _, types111 = real_types[TYPES_111K]
    assert types111["Abraham Lincoln"] == ["OfficeHolder"]
    assert types100["Abraham Lincoln"] == ["OfficeHolder", "Politician"]
    assert types100['"Heroes" (David Bowie song)'] == ["Single", "Song"]
    assert types100["!!!"] == ["Band"]
    assert types111["American Association for the Advancement of Science"] == ["Non-ProfitOrganisation"]
    # the same title, conflicting classes across the two samples
    assert types100["Delphi"] == ["ProgrammingLanguage"]
    assert types111["Delphi"] == ["AdministrativeRegion"]


@pytest.fixture(scope="module")
def en_mappings() -> dict[str, tuple[str, ...]]:
    return load_infobox_mappings(str(shared_file("dbpedia/mappings/en")))


def test_template_key_normalizes_names() -> None:
    assert template_key("infobox_settlement") == "Infobox settlement"
    assert template_key("Template:Infobox person ") == "Infobox person"
    assert template_key("Sablon:Település infobox") == "Település infobox"


def test_real_en_infobox_mappings(en_mappings: dict[str, tuple[str, ...]]) -> None:
    assert len(en_mappings) == 706  # 722 files less empty ones and class-less templates
    assert en_mappings["Infobox person"] == ("Person",)
    assert en_mappings["Infobox officeholder"] == ("OfficeHolder",)
    assert en_mappings["Infobox animanga/Print"] == ("Manga",)  # %2F in the file name
    # conditional mapping: the unconditional fallback first, then the conditional classes
    assert en_mappings["Infobox settlement"] == ("Settlement", "City", "Town", "Village", "AdministrativeRegion")
    assert "Authority control" not in en_mappings
    assert all(classes and "Unknown" not in classes for classes in en_mappings.values())


def test_real_hu_infobox_mappings() -> None:
    hu = load_infobox_mappings(str(shared_file("dbpedia/mappings/hu")))
    assert len(hu) == 110  # 111 files, one of them empty
    assert hu["Album infobox"] == ("Album", "Song", "Single")  # fallback Album, then conditions
    assert hu["Amerikai település infobox"] == ("Settlement",)
    assert infobox_class(["Egyházi személy infobox"], hu) == "Cleric"


def test_first_mapped_infobox_in_page_order_wins(en_mappings: dict[str, tuple[str, ...]]) -> None:
    assert infobox_class(["Citation needed", "infobox_officeholder", "Infobox person"], en_mappings) == "OfficeHolder"
    assert infobox_class(["Infobox Settlement"], en_mappings) == "Settlement"  # case of later letters
    assert infobox_class(["Citation needed", "Reflist"], en_mappings) is None
    assert infobox_class([], en_mappings) is None


def test_missing_mapping_directory_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="mapping directory not found"):
        load_infobox_mappings(str(tmp_path / "xx"))


ROWS = [
    EntityRow("Budapest", "City", "LOC", "GPE", "types", ("Buda-Pest", "Pest-Buda")),
    EntityRow("Abraham Lincoln", "OfficeHolder", "PER", "PERSON", "infobox", ()),
    EntityRow("1848", "", "O", "O", "calendar", ()),
]


@pytest.mark.parametrize("name", ["entities.tsv", "entities.parquet"])
def test_entity_table_round_trip(tmp_path: Path, name: str) -> None:
    path = str(tmp_path / name)
    assert write_entity_table(iter(ROWS), path) == 3
    assert list(read_entity_table(path)) == ROWS


def test_entity_table_tsv_layout(tmp_path: Path) -> None:
    path = tmp_path / "entities.tsv"
    write_entity_table(ROWS[:1], str(path))
    assert path.read_text(encoding="utf-8").splitlines() == [
        "title\tdbpedia_class\tconll\tfine\tsource\taliases",
        "Budapest\tCity\tLOC\tGPE\ttypes\tBuda-Pest|Pest-Buda",
    ]


def test_entity_table_with_wrong_header_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "entities.tsv"
    path.write_text("page\tclass\nBudapest\tCity\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"entities\.tsv:line 1: not an entity table"):
        list(read_entity_table(str(path)))
    path.write_text("title\tdbpedia_class\tconll\tfine\tsource\taliases\nBudapest\tCity\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"entities\.tsv:line 2"):
        list(read_entity_table(str(path)))
