"""End-to-end runs of the build and entities jobs with each entity source and dump layout."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path

import pytest

from conftest import ENWIKI_EXTRACT, TYPES_100K, shared_file
from build_support import check_accounting, read_corpus
from dump_support import write_multistream
from wikisilver.cli import main
from wikisilver.config.resolve import demo_inputs
from wikisilver.dump import iter_pages
from wikisilver.entities.infobox import infobox_class, load_infobox_mappings
from wikisilver.wikitext import template_names

DEMO_DUMP, DEMO_TYPES = demo_inputs()


@pytest.fixture(scope="module")
def demo_reference(demo_corpus) -> Path:
    """The demo corpus of the default build, which the other ways of reading must reproduce."""
    return demo_corpus


@pytest.mark.slow
def test_multistream_dump_read_in_ranges_gives_same_corpus(tmp_path, demo_reference):
    dump = tmp_path / "demowiki-20240101-pages-articles-multistream.xml.bz2"
    write_multistream(Path(DEMO_DUMP), dump)
    out = tmp_path / "out"
    # The index is found beside the dump by its Wikimedia name.
    assert main(["build", "--dump", str(dump), "--lang", "en", "--types", DEMO_TYPES, "--out", str(out)]) == 0
    assert read_corpus(out) == read_corpus(demo_reference)
    stats = json.loads((out / "stats.json").read_text())
    check_accounting(stats)
    assert stats["pages_read"] == 17


@pytest.mark.slow
def test_entities_table_round_trip_gives_same_corpus(tmp_path, demo_reference):
    table = tmp_path / "table"
    assert main(["entities", "--dump", DEMO_DUMP, "--lang", "en", "--types", DEMO_TYPES, "--out", str(table)]) == 0
    rows = [line.split("\t") for part in sorted((table / "entities").glob("*.tsv"))
            for line in part.read_text().splitlines()[1:]]
    by_title = {row[0]: row for row in rows}
    assert by_title["Budapest"][1:4] == ["City", "LOC", "GPE"]
    assert "Duna" in by_title["Danube"][5].split("|")  # the redirect is an alias
    out = tmp_path / "out"
    assert main(["build", "--dump", DEMO_DUMP, "--lang", "en", "--entities", str(table), "--out", str(out)]) == 0
    assert read_corpus(out) == read_corpus(demo_reference)
    parquet_table = tmp_path / "parquet-table"
    assert main(["entities", "--dump", DEMO_DUMP, "--lang", "en", "--types", DEMO_TYPES, "--format", "parquet",
                 "--out", str(parquet_table)]) == 0
    assert len(list((parquet_table / "entities").glob("part-*.parquet"))) == 4
    again = tmp_path / "again"
    assert main(["build", "--dump", DEMO_DUMP, "--lang", "en", "--entities", str(parquet_table), "--out", str(again)]) == 0
    assert read_corpus(again) == read_corpus(demo_reference)


@pytest.mark.slow
def test_entities_job_writes_its_rejects_and_accounts_for_every_page(tmp_path, capsys):
    # The real tinywiki dump cut inside its last page (Bodmin), as a download cut short is.
    whole = shared_file("wikidumps/tinywiki-latest-pages-articles.xml").read_bytes()
    dump = tmp_path / "tinywiki-latest-pages-articles.xml"
    dump.write_bytes(whole[:whole.index(b"<title>Bodmin</title>") + 200])
    table = tmp_path / "table"
    assert main(["entities", "--dump", str(dump), "--lang", "en", "--types", DEMO_TYPES, "--out", str(table)]) == 0
    assert "1 page(s) rejected, 1 stream error(s)" in capsys.readouterr().err
    [reject] = [json.loads(line) for part in sorted((table / "rejects").glob("part-*.jsonl"))
                for line in part.read_text().splitlines()]
    assert (reject["reason"], reject["title"], reject["source"]) == ("truncated", "Bodmin", str(dump))
    stats = json.loads((table / "stats.json").read_text())
    check_accounting(stats)
    assert (stats["pages_read"], stats["pages_used"]) == (8, 5)  # Hello, Toronto, Big Page, the duplicate title twice
    assert stats["pages_skipped"] == {"disambiguation": 1, "redirect": 1}
    assert stats["pages_rejected"] == {"truncated": 1} and stats["stream_errors"] == {"truncated": 1}
    manifest = json.loads((table / "manifest.json").read_text())
    assert "stats.json" in manifest["files"] and any(f.startswith("rejects/part-") for f in manifest["files"])


def sql_dump(table: str, columns: list[str], rows: list[tuple]) -> str:
    def value(v):
        return "NULL" if v is None else str(v) if isinstance(v, int) else "'" + str(v).replace("'", "\\'") + "'"

    create = f"CREATE TABLE `{table}` (\n" + ",\n".join(f"  `{c}` varchar(255)" for c in columns) + "\n);\n"
    values = ",".join("(" + ",".join(value(v) for v in row) + ")" for row in rows)
    return create + f"INSERT INTO `{table}` VALUES {values};\n"


@pytest.mark.slow
def test_redirects_and_disambiguation_from_sql_tables(tmp_path):
    # A dump without <redirect/> elements or redirect pages: redirect.sql says page 900 redirects.
    xml = bz2.decompress(Path(DEMO_DUMP).read_bytes()).decode()
    xml = xml.replace("[[Real Madrid CF|Real Madrid]] he won", "[[Los Blancos]] he won")
    xml = xml.replace("</mediawiki>", "  <page>\n    <title>Los Blancos</title>\n    <ns>0</ns>\n    <id>900</id>\n"
                      "    <revision><id>9000</id><text xml:space=\"preserve\">Nickname.</text></revision>\n  </page>\n</mediawiki>")
    dump = tmp_path / "sqlwiki-pages-articles.xml.bz2"
    dump.write_bytes(bz2.compress(xml.encode()))
    redirect_sql = tmp_path / "sqlwiki-redirect.sql.gz"
    redirect_sql.write_bytes(gzip.compress(sql_dump(
        "redirect", ["rd_from", "rd_namespace", "rd_title", "rd_interwiki", "rd_fragment"],
        [(900, 0, "Real_Madrid_CF", "", "")]).encode()))
    props_sql = tmp_path / "sqlwiki-page_props.sql"
    props_sql.write_text(sql_dump("page_props", ["pp_page", "pp_propname", "pp_value", "pp_sortkey"],
                                  [(106, "disambiguation", "", None)]))
    out = tmp_path / "out"
    assert main(["build", "--dump", str(dump), "--lang", "en", "--types", DEMO_TYPES, "--out", str(out),
                 "--redirect-sql", str(redirect_sql), "--page-props-sql", str(props_sql)]) == 0
    rows = read_corpus(out)
    cup = next(r for r in rows if r["tokens"][:2] == ["With", "Los"])
    assert cup["conll_tags"][1:3] == ["B-ORG", "I-ORG"] and cup["spans"][0]["target"] == "Real Madrid CF"
    # Page 106 (Vienna) is a disambiguation page per page_props: links to it are UNK, so the
    # sentences of other articles that link it are dropped.
    assert not any(s["target"] == "Vienna" for r in rows if r["title"] != "Vienna" for s in r["spans"])
    stats = json.loads((out / "stats.json").read_text())
    assert stats["rules_fired"]["link_disambiguation_unk"] >= 1


@pytest.mark.slow
def test_cross_language_typing_through_langlinks(tmp_path):
    pages = {
        1: ("Budapest", "'''Budapest''' [[Magyarország]] fővárosa. A [[Duna]] két partján fekszik."),
        2: ("Magyarország", "'''Magyarország''' közép-európai ország."),
        3: ("Duna", "A '''Duna''' folyó."),
    }
    body = "".join(
        f"  <page>\n    <title>{t}</title>\n    <ns>0</ns>\n    <id>{i}</id>\n    <revision><id>{i * 10}</id>"
        f"<text xml:space=\"preserve\">{text}</text></revision>\n  </page>\n"
        for i, (t, text) in pages.items()
    )
    dump = tmp_path / "huwiki-20240101-pages-articles.xml.bz2"
    dump.write_bytes(bz2.compress(f"<mediawiki>\n{body}</mediawiki>\n".encode()))
    langlinks = tmp_path / "huwiki-langlinks.sql"
    langlinks.write_text(sql_dump("langlinks", ["ll_from", "ll_lang", "ll_title"],
                                  [(1, "en", "Budapest"), (2, "en", "Hungary"), (3, "en", "Danube"), (3, "de", "Donau")]))
    types = tmp_path / "en-types.nt"
    rdf = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
    types.write_text("".join(f"<http://dbpedia.org/resource/{t}> {rdf} <http://dbpedia.org/ontology/{c}> .\n"
                             for t, c in [("Budapest", "City"), ("Hungary", "Country"), ("Danube", "River")]))
    out = tmp_path / "out"
    assert main(["build", "--dump", str(dump), "--lang", "hu", "--types", str(types), "--types-lang", "en",
                 "--langlinks-sql", str(langlinks), "--out", str(out)]) == 0
    rows = read_corpus(out)
    first = rows[0]
    assert first["tokens"][:2] == ["Budapest", "Magyarország"]
    assert first["conll_tags"][:2] == ["B-LOC", "B-LOC"]
    assert first["dbpedia_tags"][:2] == ["B-City", "B-Country"]
    stats = json.loads((out / "stats.json").read_text())
    assert stats["titles_typed_by_source"] == {"langlinks": 3}


MALTESE = {  # page id -> (title, English title): real pages of mtwiki-20160111-page.sql
    1571: ("Franza", "France"), 1572: ("Ġermanja", "Germany"), 1573: ("Spanja", "Spain"),
    1574: ("Renju Unit", "United Kingdom"), 13425: ("Ruma", "Rome"), 945: ("Italja", "Italy"),
}


def mysqldump_langlinks(links: list[tuple[int, str, str]]) -> str:
    """A langlinks table as Wikimedia's mysqldump writes it (the 2016 schema)."""
    values = ",".join(f"({page},'{lang}','{title}')" for page, lang, title in links)
    return (
        "-- MySQL dump 10.13  Distrib 5.5.46, for debian-linux-gnu (x86_64)\n--\n"
        "-- Host: 10.64.16.27    Database: mtwiki\n\n"
        "DROP TABLE IF EXISTS `langlinks`;\n"
        "/*!40101 SET @saved_cs_client     = @@character_set_client */;\n"
        "CREATE TABLE `langlinks` (\n"
        "  `ll_from` int(8) unsigned NOT NULL DEFAULT '0',\n"
        "  `ll_lang` varbinary(20) NOT NULL DEFAULT '',\n"
        "  `ll_title` varbinary(255) NOT NULL DEFAULT '',\n"
        "  UNIQUE KEY `ll_from` (`ll_from`,`ll_lang`),\n"
        "  KEY `ll_lang` (`ll_lang`,`ll_title`)\n"
        ") ENGINE=InnoDB DEFAULT CHARSET=binary;\n\n"
        "LOCK TABLES `langlinks` WRITE;\n/*!40000 ALTER TABLE `langlinks` DISABLE KEYS */;\n"
        f"INSERT INTO `langlinks` VALUES {values};\n"
        "/*!40000 ALTER TABLE `langlinks` ENABLE KEYS */;\nUNLOCK TABLES;\n"
    )


@pytest.mark.slow
def test_entities_job_types_by_the_langlinks_language_as_the_build_does(tmp_path):
    """``entities --types-lang en --langlinks-sql``: Maltese titles take their English page's class and
    title (as an alias); English titles never become rows. The build types the same links alike."""
    page_sql, redirect_sql = shared_file("sql/mtwiki-20160111-page.sql"), shared_file("sql/mtwiki-20160111-redirect.sql")
    links = [(page, "en", english) for page, (_, english) in MALTESE.items()]
    links += [(1571, "de", "Frankreich"), (1573, "it", "Spagna")]  # other languages are not --types-lang
    langlinks = tmp_path / "mtwiki-20160111-langlinks.sql"
    langlinks.write_text(mysqldump_langlinks(links), encoding="utf-8")
    text = "[[Franza]], [[Ġermanja]], [[España]] u [[Ruma]] huma fl-Ewropa."  # España: a redirect in redirect.sql
    pages = [(2389, "Ewropa", text)] + [
        (page, title, f"'''{title}''' hija pajjiż.") for page, (title, _) in MALTESE.items() if page != 945
    ]  # Italja (945) is known from page.sql only
    body = "".join(
        f"  <page>\n    <title>{title}</title>\n    <ns>0</ns>\n    <id>{page}</id>\n    <revision><id>{page}0</id>"
        f"<text xml:space=\"preserve\">{wikitext}</text></revision>\n  </page>\n"
        for page, title, wikitext in pages
    )
    dump = tmp_path / "mtwiki-20160111-pages-articles.xml.bz2"
    dump.write_bytes(bz2.compress(f"<mediawiki>\n{body}</mediawiki>\n".encode()))
    sources = ["--dump", str(dump), "--lang", "mt", "--types", str(shared_file(TYPES_100K)), "--types-lang", "en",
               "--langlinks-sql", str(langlinks), "--page-sql", str(page_sql), "--redirect-sql", str(redirect_sql)]
    table = tmp_path / "table"
    assert main(["entities", *sources, "--out", str(table)]) == 0
    rows = {row[0]: row for part in sorted((table / "entities").glob("*.tsv"))
            for row in (line.split("\t") for line in part.read_text(encoding="utf-8").splitlines()[1:])}
    typed = {title: row[1:5] for title, row in rows.items() if row[4] == "langlinks"}
    assert typed == {
        "Franza": ["Country", "LOC", "GPE", "langlinks"], "Ġermanja": ["Country", "LOC", "GPE", "langlinks"],
        "Spanja": ["Country", "LOC", "GPE", "langlinks"], "Renju Unit": ["Country", "LOC", "GPE", "langlinks"],
        "Ruma": ["City", "LOC", "GPE", "langlinks"], "Italja": ["Country", "LOC", "GPE", "langlinks"],
    }
    for title, english in MALTESE.values():
        assert english in rows[title][5].split("|")
    assert {"España", "Spain"} <= set(rows["Spanja"][5].split("|"))  # from redirect.sql and langlinks.sql
    assert not {english for _, english in MALTESE.values()} & set(rows), "English titles are no local rows"
    assert {row[4] for row in rows.values()} <= {"langlinks", "calendar"}
    out = tmp_path / "corpus"
    assert main(["build", *sources, "--out", str(out)]) == 0
    spans = [span for row in read_corpus(out) if row["title"] == "Ewropa" for span in row["spans"]]
    assert [(span["target"], span["dbpedia_class"]) for span in spans] == [
        (title, rows[title][1]) for title in ("Franza", "Ġermanja", "Spanja", "Ruma")
    ]


def test_types_in_another_language_need_langlinks(tmp_path, capsys):
    assert main(["build", "--demo", "--types-lang", "de", "--out", str(tmp_path / "o")]) == 2
    assert "--langlinks-sql" in capsys.readouterr().err


@pytest.mark.slow
def test_infobox_mappings_alone_type_the_articles_with_mapped_infoboxes(tmp_path):
    dump = shared_file(ENWIKI_EXTRACT)
    mappings_dir = shared_file("dbpedia/mappings/en")
    mappings = load_infobox_mappings(str(mappings_dir))
    expected = sum(
        1 for page in iter_pages(str(dump))
        if getattr(page, "ns", None) == 0 and not page.redirect and infobox_class(template_names(page.text), mappings)
    )
    out = tmp_path / "out"
    assert main(["build", "--dump", str(dump), "--lang", "en", "--infobox-mappings", str(mappings_dir),
                 "--out", str(out)]) == 0
    stats = json.loads((out / "stats.json").read_text())
    check_accounting(stats)
    assert expected > 30
    # the infoboxes type what they map; the curated table (mappings/en/entities.tsv) its few titles
    assert stats["titles_typed_by_source"] == {"infobox": expected, "curated": stats["typing_decisions"]["curated"]}
    assert stats["sentences_kept"] > 0


def test_dead_sparql_endpoint_is_a_clear_failure(tmp_path, capsys):
    code = main(["build", "--demo", "--types", DEMO_TYPES, "--sparql", "http://127.0.0.1:9/sparql",
                 "--sparql-retries", "0", "--sparql-timeout", "1", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "127.0.0.1:9" in err and "Traceback" not in err
    assert not (tmp_path / "o" / "manifest.json").exists()


@pytest.mark.slow
def test_redirect_chains_are_followed_and_loops_are_unk(tmp_path):
    """[[Donau]] -> Duna -> Danube (a double redirect) is the river; a loop is unknown (UNK)."""
    xml = bz2.decompress(Path(DEMO_DUMP).read_bytes()).decode()
    extra = {
        901: ("Donau", "Duna"),          # Duna -> Danube in the demo: a chain of two
        902: ("Loop A", "Loop B"),
        903: ("Loop B", "Loop A"),
    }
    pages = "".join(
        f"  <page>\n    <title>{title}</title>\n    <ns>0</ns>\n    <id>{page_id}</id>\n"
        f"    <redirect title=\"{target}\" />\n    <revision><id>{page_id}0</id>"
        f"<text xml:space=\"preserve\">#REDIRECT [[{target}]]</text></revision>\n  </page>\n"
        for page_id, (title, target) in extra.items()
    )
    xml = xml.replace("The largest city on the river is [[Budapest]].",
                      "The largest city on the [[Donau]] is [[Budapest]]. Ships pass [[Loop A]] daily.")
    dump = tmp_path / "chainwiki-pages-articles.xml.bz2"
    dump.write_bytes(bz2.compress(xml.replace("</mediawiki>", pages + "</mediawiki>").encode()))
    out = tmp_path / "out"
    assert main(["build", "--dump", str(dump), "--lang", "en", "--types", DEMO_TYPES, "--out", str(out)]) == 0
    rows = read_corpus(out)
    largest = next(r for r in rows if r["tokens"][:4] == ["The", "largest", "city", "on"])
    assert largest["conll_tags"][5] == "B-LOC" and largest["spans"][0]["target"] == "Danube"
    assert not any("Loop" in r["tokens"] for r in rows), "a link into a redirect loop is UNK: sentence dropped"
    stats = json.loads((out / "stats.json").read_text())
    check_accounting(stats)
    assert stats["pages_skipped"]["redirect"] == 8
