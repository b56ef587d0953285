"""Readers of MediaWiki SQL table dumps (step 1 inputs): page, redirect, langlinks, page_props."""

from __future__ import annotations

import gzip
import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import shared_file
from wikisilver.errors import InputError
from wikisilver.entities.mysqldump import PIECE, SqlReadStats, iter_rows, table_columns
from wikisilver.entities.sql import (
    PageRow,
    RedirectRow,
    iter_langlinks,
    iter_page_props,
    iter_page_table,
    iter_redirect_table,
)

HEADER = """-- MySQL dump 10.19  Distrib 10.3.38-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: db1154    Database: huwiki
/*!40101 SET NAMES utf8mb4 */;

DROP TABLE IF EXISTS `{table}`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
"""

# The current page schema: no page_counter/page_restrictions, page_lang and friends added,
# and page_title no longer third-but-one: readers must go by column name.
CURRENT_PAGE = HEADER.format(table="page") + r"""CREATE TABLE `page` (
  `page_id` int(10) unsigned NOT NULL AUTO_INCREMENT,
  `page_namespace` int(11) NOT NULL DEFAULT 0,
  `page_title` varbinary(255) NOT NULL DEFAULT '',
  `page_is_redirect` tinyint(1) unsigned NOT NULL DEFAULT 0,
  `page_is_new` tinyint(1) unsigned NOT NULL DEFAULT 0,
  `page_random` double unsigned NOT NULL DEFAULT 0,
  `page_touched` binary(14) NOT NULL,
  `page_links_updated` varbinary(14) DEFAULT NULL,
  `page_latest` int(10) unsigned NOT NULL DEFAULT 0,
  `page_len` int(10) unsigned NOT NULL DEFAULT 0,
  `page_content_model` varbinary(32) DEFAULT NULL,
  `page_lang` varbinary(35) DEFAULT NULL,
  PRIMARY KEY (`page_id`),
  UNIQUE KEY `page_name_title` (`page_namespace`,`page_title`)
) ENGINE=InnoDB AUTO_INCREMENT=2030001 DEFAULT CHARSET=binary ROW_FORMAT=COMPRESSED;

/*!40000 ALTER TABLE `page` DISABLE KEYS */;
INSERT INTO `page` VALUES (1,0,'Kezdőlap',0,0,0.8,'20240101000000','20240101000000',100,5000,'wikitext',NULL),(4,0,'Budapest',0,0,0.1,'20240101000000',NULL,101,90000,'wikitext',NULL),(7,0,'Magyar_Köztársaság',1,0,0.2,'20240101000000',NULL,102,40,'wikitext',NULL),(9,0,'O\'Brien_(egyértelműsítő_lap)',0,0,0.3,'20240101000000',NULL,103,800,'wikitext','hu');
INSERT INTO `page` VALUES (12,10,'Infobox_település',0,0,0.4,'20240101000000',NULL,104,7000,'wikitext',NULL),(13,0,'Sor\\vég\nújsor',0,0,0.5,'20240101000000',NULL,105,10,'wikitext',NULL),(15,14,'Magyar_városok',0,0,0.6,'20240101000000',NULL,106,300,'wikitext',NULL);
/*!40000 ALTER TABLE `page` ENABLE KEYS */;
"""

REDIRECT = HEADER.format(table="redirect") + """CREATE TABLE `redirect` (
  `rd_from` int(8) unsigned NOT NULL DEFAULT 0,
  `rd_namespace` int(11) NOT NULL DEFAULT 0,
  `rd_title` varbinary(255) NOT NULL DEFAULT '',
  `rd_interwiki` varbinary(32) DEFAULT NULL,
  `rd_fragment` varbinary(255) DEFAULT NULL,
  PRIMARY KEY (`rd_from`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
INSERT INTO `redirect` VALUES (7,0,'Magyarország','',NULL),(12,10,'Település_infobox','',''),(15,0,'Magyarország','','Városok');
"""

LANGLINKS = HEADER.format(table="langlinks") + """CREATE TABLE `langlinks` (
  `ll_from` int(8) unsigned NOT NULL DEFAULT 0,
  `ll_lang` varbinary(35) NOT NULL DEFAULT '',
  `ll_title` varbinary(255) NOT NULL DEFAULT '',
  PRIMARY KEY (`ll_from`,`ll_lang`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
INSERT INTO `langlinks` VALUES (4,'de','Budapest'),(4,'en','Budapest'),(9,'en','O\\'Brien'),(9,'fr','');
"""

PAGE_PROPS = HEADER.format(table="page_props") + """CREATE TABLE `page_props` (
  `pp_page` int(11) NOT NULL,
  `pp_propname` varbinary(60) NOT NULL,
  `pp_value` blob NOT NULL,
  `pp_sortkey` float DEFAULT NULL,
  PRIMARY KEY (`pp_page`,`pp_propname`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
INSERT INTO `page_props` VALUES (4,'wikibase_item','Q1781',NULL),(9,'disambiguation','',NULL),(4,'page_image_free','Budapest.jpg',NULL);
"""


def write(tmp_path: Path, name: str, text: str | bytes, gz: bool = False) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    path = tmp_path / name
    if gz:
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return str(path)


def test_values_tokenizer_handles_escapes_null_and_numbers(tmp_path: Path) -> None:
    sql = (
        "CREATE TABLE `t` (\n  `a` int,\n  `b` varbinary(9),\n  `c` double\n) ENGINE=InnoDB;\n"
        r"INSERT INTO `t` VALUES (1,'it\'s',0.5),(-2,NULL,1e3),(3,'a\\b\nc\0d\"q','2'),(4,'(x),(y)',-0.25);"
        "\n"
    )
    rows = list(iter_rows(write(tmp_path, "t.sql", sql)))
    assert rows == [
        (1, "it's", 0.5),
        (-2, None, 1000.0),
        (3, 'a\\b\nc\x00d"q', "2"),
        (4, "(x),(y)", -0.25),
    ]


def test_current_schema_gz_page_table_by_column_name(tmp_path: Path) -> None:
    path = write(tmp_path, "huwiki-20240101-page.sql.gz", CURRENT_PAGE, gz=True)
    assert table_columns(path)[:4] == ["page_id", "page_namespace", "page_title", "page_is_redirect"]
    assert "page_lang" in table_columns(path)
    stats = SqlReadStats()
    rows = list(iter_page_table(path, stats))
    assert rows[:3] == [
        PageRow(1, 0, "Kezdőlap", False),
        PageRow(4, 0, "Budapest", False),
        PageRow(7, 0, "Magyar Köztársaság", True),
    ]
    assert rows[3].title == "O'Brien (egyértelműsítő lap)"
    assert rows[5] == PageRow(13, 0, "Sor\\vég újsor", False)
    assert len(rows) == 7
    assert stats.rows == 7 and stats.insert_lines == 2 and stats.malformed_tuples == 0


def test_malformed_tuple_is_skipped_counted_and_warned(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bad = CURRENT_PAGE.replace("(4,0,'Budapest',", "(4,0,'Budapest' oops,")
    path = write(tmp_path, "page.sql", bad)
    stats = SqlReadStats()
    with caplog.at_level(logging.WARNING, logger="wikisilver.entities.sql"):
        titles = [row.title for row in iter_page_table(path, stats)]
    assert "Budapest" not in titles
    assert titles[:2] == ["Kezdőlap", "Magyar Köztársaság"]  # the scan resumed after the bad tuple
    assert len(titles) == 6
    assert stats.malformed_tuples == 1
    lines = CURRENT_PAGE.splitlines()
    line = 1 + next(i for i, text in enumerate(lines) if "'Budapest'" in text)
    assert f"page.sql:{line}:" in caplog.text and "malformed" in caplog.text


def test_wrong_arity_rows_and_invalid_utf8_are_counted(tmp_path: Path) -> None:
    data = CURRENT_PAGE.encode("utf-8").replace(b"(15,14,'Magyar_v", b"(14,0,'X'),(15,14,'Magyar_v")
    data = data.replace("Kezdőlap".encode(), b"Kezd\xff")
    stats = SqlReadStats()
    rows = list(iter_page_table(write(tmp_path, "page.sql", data), stats))
    assert len(rows) == 7 and stats.skipped_rows == 1
    assert stats.decode_errors == 1 and rows[0].title == "Kezd\ufffd"


def _page_tuples_up_to(offset: int) -> tuple[bytes, int]:
    """The start of a long ``page`` INSERT line whose next tuple starts at byte ``offset``,
    and how many tuples it holds."""
    insert = "INSERT INTO `page` VALUES "
    row = "({},0,'{}',0,0,0.5,'20240101000000',NULL,1,10,'wikitext',NULL)"
    tuples: list[str] = []
    while len(insert) + sum(len(t) + 1 for t in tuples) < offset - 200:
        tuples.append(row.format(100 + len(tuples), f"Lap_{len(tuples)}"))
    pad = offset - len(insert) - sum(len(t) + 1 for t in tuples) - len(row.format(1, "")) - 1
    tuples.append(row.format(1, "x" * pad))
    head = (insert + ",".join(tuples) + ",").encode()
    assert len(head) == offset
    return head, len(tuples)


@pytest.mark.slow
def test_bad_utf8_in_a_tuple_cut_by_a_piece_end_is_counted_once(tmp_path: Path) -> None:
    """A long INSERT line is read in PIECE-byte pieces; a tuple cut by a piece's end is parsed
    again with the next piece, and its invalid UTF-8 must still count (and warn) once."""
    head, count = _page_tuples_up_to(PIECE - 30)
    bad = b"(2,0,'Kezd\xff',0,0,0.5,'20240101000000',NULL,1,10,'wikitext',NULL)"
    # the bad value is whole in the first piece, the tuple it belongs to is not
    assert len(head) + bad.index(b"',0,0") < PIECE < len(head) + len(bad)
    data = CURRENT_PAGE.encode("utf-8") + head + bad + b",(3,0,'Utolso',0,0,0.5,'2024',NULL,1,10,'wikitext',NULL);\n"
    stats = SqlReadStats()
    rows = list(iter_page_table(write(tmp_path, "page.sql", data), stats))
    assert [row.title for row in rows[-2:]] == ["Kezd\ufffd", "Utolso"]
    assert len(rows) == 7 + count + 2
    assert stats.decode_errors == 1 and stats.warnings == 1 and stats.malformed_tuples == 0


@pytest.mark.slow
def test_a_tuple_ending_at_a_piece_end_keeps_the_rest_of_the_line(tmp_path: Path) -> None:
    """When a tuple's ')' is the last byte of a piece, the ',' before the next tuple opens the next
    piece: the rest of the line is read on, not dropped as unexpected text."""
    last = b"(2,0,'Utolso_elotti',0,0,0.5,'20240101000000',NULL,1,10,'wikitext',NULL)"
    head, count = _page_tuples_up_to(PIECE - len(last))
    data = CURRENT_PAGE.encode("utf-8") + head + last + b",(3,0,'Utolso',0,0,0.5,'2024',NULL,1,10,'wikitext',NULL);\n"
    stats = SqlReadStats()
    rows = list(iter_page_table(write(tmp_path, "page.sql", data), stats))
    assert [row.title for row in rows[-2:]] == ["Utolso elotti", "Utolso"]
    assert len(rows) == 7 + count + 2
    assert stats.malformed_lines == stats.warnings == 0


def test_not_a_sql_dump_is_an_input_error(tmp_path: Path) -> None:
    path = write(tmp_path, "page.sql", "<mediawiki>\n<page><title>X</title></page>\n")
    with pytest.raises(InputError, match=r"page\.sql:line 1: not a MySQL table dump"):
        list(iter_page_table(path))
    with pytest.raises(InputError, match=r"empty\.sql: not a MySQL table dump"):
        list(iter_rows(write(tmp_path, "empty.sql", "")))
    with pytest.raises(InputError, match="missing.sql"):
        list(iter_rows(str(tmp_path / "missing.sql")))


def test_dump_of_another_table_is_an_input_error(tmp_path: Path) -> None:
    path = write(tmp_path, "redirect.sql", REDIRECT)
    with pytest.raises(InputError, match=r"redirect\.sql: a dump of table `redirect`, not `page`"):
        list(iter_page_table(path))
    renamed = REDIRECT.replace("`redirect`", "`page`")
    with pytest.raises(InputError, match="lacks column.*page_id"):
        list(iter_page_table(write(tmp_path, "page.sql", renamed)))


def join_redirects(page_rows, redirect_rows):
    """(redirect title, target title) of article redirects, joined in memory as the job joins them by key."""
    titles = {row.page_id: row.title for row in page_rows if row.namespace == 0}
    for row in redirect_rows:
        source = titles.get(row.from_page_id)
        if row.namespace == 0 and not row.interwiki and source is not None and row.target_title and source != row.target_title:
            yield source, row.target_title


def test_redirect_table_and_in_memory_join(tmp_path: Path) -> None:
    pages = list(iter_page_table(write(tmp_path, "page.sql.gz", CURRENT_PAGE, gz=True)))
    redirects = list(iter_redirect_table(write(tmp_path, "redirect.sql", REDIRECT)))
    assert redirects[0] == RedirectRow(7, 0, "Magyarország", "", "")
    assert redirects[2].fragment == "Városok"
    # page 12 (template ns) and page 15 (category ns) are not article redirects
    assert list(join_redirects(pages, redirects)) == [("Magyar Köztársaság", "Magyarország")]


def test_langlinks_and_page_props(tmp_path: Path) -> None:
    stats = SqlReadStats()
    links = list(iter_langlinks(write(tmp_path, "langlinks.sql", LANGLINKS), stats))
    assert [(link.from_page_id, link.lang, link.title) for link in links] == [
        (4, "de", "Budapest"), (4, "en", "Budapest"), (9, "en", "O'Brien"),
    ]
    assert stats.skipped_rows == 1  # the empty fr title
    props_path = write(tmp_path, "page_props.sql", PAGE_PROPS)
    props = list(iter_page_props(props_path))
    assert props[0].name == "wikibase_item" and props[0].value == "Q1781"
    assert [row.page_id for row in props if row.name == "disambiguation"] == [9]


@pytest.mark.parametrize(
    ("wiki", "pages", "redirect_flags", "redirect_rows", "article_redirects"),
    [("hzwiki", 175, 10, 10, 0), ("mtwiki", 14661, 2667, 2667, 1808), ("zuwiki", 3156, 371, 371, 232)],
)
def test_real_2016_schema_dumps(
    wiki: str, pages: int, redirect_flags: int, redirect_rows: int, article_redirects: int
) -> None:
    page_path = str(shared_file(f"sql/{wiki}-20160111-page.sql"))
    redirect_path = str(shared_file(f"sql/{wiki}-20160111-redirect.sql"))
    assert "page_counter" in table_columns(page_path)
    stats = SqlReadStats()
    page_rows = list(iter_page_table(page_path, stats))
    assert len(page_rows) == pages and stats.malformed_tuples == stats.decode_errors == 0
    assert sum(row.is_redirect for row in page_rows) == redirect_flags
    redirect_rows_read = list(iter_redirect_table(redirect_path))
    assert len(redirect_rows_read) == redirect_rows
    joined = dict(join_redirects(page_rows, redirect_rows_read))
    assert len(joined) == article_redirects
    if wiki == "mtwiki":
        assert page_rows[0] == PageRow(1, 0, "Il-Paġna prinċipali", False)
        assert joined["PN"] == "Partit Nazzjonalista (Malta)"
        assert joined["Żurrieq"] == "Iż-Żurrieq"


def test_truncated_gz_dump_is_an_input_error(tmp_path: Path) -> None:
    data = gzip.compress(CURRENT_PAGE.encode("utf-8"))
    path = write(tmp_path, "page.sql.gz", data[: len(data) // 2])
    with pytest.raises(InputError, match=r"page\.sql\.gz:line \d+: unreadable or truncated"):
        list(iter_page_table(path))


def _sql_literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    escaped = (
        str(value).replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
        .replace("\r", "\\r").replace("\x00", "\\0").replace("\x1a", "\\Z")
    )
    return f"'{escaped}'"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(
            st.integers(-(2**40), 2**40),
            st.one_of(st.none(), st.text(max_size=30)),
            st.text(alphabet="(),;'\\ \n\"xé", max_size=12),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_values_round_trip_through_mysqldump_escaping(tmp_path: Path, rows: list[tuple]) -> None:
    values = ",".join("(" + ",".join(_sql_literal(v) for v in row) + ")" for row in rows)
    sql = "CREATE TABLE `t` (\n  `a` int,\n  `b` blob,\n  `c` blob\n);\nINSERT INTO `t` VALUES " + values + ";\n"
    stats = SqlReadStats()
    assert list(iter_rows(write(tmp_path, "t.sql", sql), stats)) == rows
    assert stats.malformed_tuples == 0
