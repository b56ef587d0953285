"""Step 1 of the method, the wiki's own evidence: what its dump and SQL tables say about its titles
(redirects, disambiguation pages, other-language titles, infobox classes), keyed by title for the
typing join (``pipelines/evidence.py`` adds the entity sources).

SQL rows name pages by id; ids are mapped to titles by the dump itself and, where given, by
page.sql (both schemas), so redirect.sql works without page.sql when the dump is complete.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import apache_beam as beam
from apache_beam.pvalue import PCollection

from wikisilver.config import BuildConfig
from wikisilver.config.derived import types_lang
from wikisilver.entities import sql
from wikisilver.entities.mysqldump import SqlReadStats
from wikisilver.pipelines.common import COUNTS, counter, counts, named
from wikisilver.pipelines.extract import Extracted
from wikisilver.records import PageFlags
from wikisilver.stats import input_problems


class WikiEvidence(NamedTuple):
    """What the wiki says about its titles, each keyed by title (None: a source the run lacks)."""

    flags: PCollection  # (title, PageFlags): its pages in the dump, disambiguation per page_props.sql
    redirects: PCollection  # (redirect title, target title): the dump's and redirect.sql's
    infobox: PCollection | None  # (title, DBpedia class of its first mapped infobox); --infobox-mappings
    langlinks: PCollection | None  # (title in the types' language, local title), from langlinks.sql
    counts: PCollection | None = None  # what reading the SQL tables skipped, for stats.json; None without them


_SQL_READERS = {
    "page": (sql.iter_page_table, "page_id"), "redirect": (sql.iter_redirect_table, "from_page_id"),
    "page_props": (sql.iter_page_props, "page_id"), "langlinks": (sql.iter_langlinks, "from_page_id"),
}


def _read_sql(path: str, kind: str) -> Iterator[tuple[int, object]]:
    """Rows of one SQL table dump, keyed by page id; then what it skipped, on the counts output."""
    reader, key = _SQL_READERS[kind]
    rows = counter(f"sql_{kind}_rows")
    stats = SqlReadStats()
    for row in reader(path, stats):
        rows.inc()
        yield getattr(row, key), row
    yield counts(input_problems(f"{kind}_sql", stats.problems()))


def _page_title(groups) -> str | None:
    titles = sorted(set(groups["dump"]) | {row.title for row in groups["page"] if row.namespace == 0})
    return titles[0] if titles else None


def _redirects_of_page(element) -> Iterator[tuple[str, str]]:
    title = _page_title(element[1])
    for row in element[1]["rows"] if title else ():
        if row.namespace == 0 and not row.interwiki and row.target_title:
            yield title, row.target_title


def _disambiguation_of_page(element) -> Iterator[tuple[str, PageFlags]]:
    title = _page_title(element[1])
    if title and any(row.name == "disambiguation" for row in element[1]["rows"]):
        yield title, PageFlags(title, is_disambiguation=True)


def _langlinks_of_page(element, lang: str) -> Iterator[tuple[str, str]]:
    title = _page_title(element[1])
    for row in element[1]["rows"] if title else ():
        if row.lang == lang and row.title:
            yield row.title, title


class ReadWikiEvidence(beam.PTransform):
    """The dump's routed pages (:class:`Extracted`, as ``pcollections``) and the wiki's SQL tables
    -> :class:`WikiEvidence`.

    SQL rows name pages by id; ids are mapped to titles by the dump itself and, where given, by
    page.sql (both schemas), so redirect.sql works without page.sql when the dump is complete.
    """

    def __init__(self, config: BuildConfig) -> None:
        super().__init__()
        self.files = {"page": sorted(config.page_sql), "redirect": sorted(config.redirect_sql),
                      "page_props": sorted(config.page_props_sql), "langlinks": sorted(config.langlinks_sql)}
        self.types_lang = types_lang(config)

    def _read(self, pipeline, kind: str, read_counts: list):
        """The rows of one table's files; what reading them skipped is added to ``read_counts``."""
        read = (
            pipeline
            | f"{kind}Files" >> beam.Create(self.files[kind])
            | f"Read{kind}" >> beam.FlatMap(_read_sql, kind).with_outputs(COUNTS, main="rows")
        )
        read_counts.append(read[COUNTS])
        return read.rows

    def _by_page(self, page_titles, pages, kind: str, read_counts: list, titles_of, *args):
        """Rows of one table joined with the titles of their page ids; None without the table."""
        if not self.files[kind]:
            return None
        return (
            {"dump": page_titles, "page": pages, "rows": self._read(page_titles.pipeline, kind, read_counts)}
            | f"Join{kind}" >> beam.CoGroupByKey()
            | f"Titles{kind}" >> beam.FlatMap(titles_of, *args)
        )

    def expand(self, inputs: dict[str, PCollection]) -> WikiEvidence:
        parsed = named(Extracted, inputs)
        page_titles = parsed.page_titles
        flags, redirects, langlinks = parsed.flags, parsed.redirects, None
        read_counts: list = []
        if self.files["redirect"] or self.files["page_props"] or self.files["langlinks"]:
            pages = self._read(page_titles.pipeline, "page", read_counts)
            sql_redirects = self._by_page(page_titles, pages, "redirect", read_counts, _redirects_of_page)
            if sql_redirects is not None:
                redirects = (
                    (redirects, sql_redirects) | "AllRedirects" >> beam.Flatten() | "UniqueRedirects" >> beam.Distinct()
                )
            disambiguation = self._by_page(page_titles, pages, "page_props", read_counts, _disambiguation_of_page)
            if disambiguation is not None:
                flags = (flags, disambiguation) | "AllFlags" >> beam.Flatten()
            langlinks = self._by_page(page_titles, pages, "langlinks", read_counts, _langlinks_of_page,
                                      self.types_lang)
        sql_counts = tuple(read_counts) | "SqlReadCounts" >> beam.Flatten() if read_counts else None
        return WikiEvidence(flags, redirects, parsed.infobox_types, langlinks, sql_counts)
