"""Step 1 of the method, its inputs: what the SQL tables, the DBpedia types files, earlier entity
tables and a SPARQL endpoint say about titles, each keyed by title for the typing join."""

from __future__ import annotations

from collections.abc import Iterator

import apache_beam as beam

from wikisilver.entities.bloom import BloomFilter, filter_size, title_hash
from wikisilver.pipelines.common import counter
from wikisilver.records import EntityType, PageFlags

def _sql_rows(kind: str):
    """A FlatMap over SQL dump files of one table, keyed by page id."""

    def read(path: str) -> Iterator[tuple[int, object]]:
        from wikisilver.entities import sql as sqldump

        reader = {
            "page": sqldump.iter_page_table, "redirect": sqldump.iter_redirect_table,
            "langlinks": sqldump.iter_langlinks, "page_props": sqldump.iter_page_props,
        }[kind]
        rows = counter(f"sql_{kind}_rows")
        for row in reader(path):
            rows.inc()
            key = row.page_id if kind in ("page", "page_props") else row.from_page_id
            yield key, row

    return read


def _join_by_page(element, kind: str, types_lang: str) -> Iterator:
    """Rows of one page id -> what they say about titles (redirects, disambiguation, langlinks)."""
    page_id, groups = element
    titles = sorted(set(groups["dump"]) | {r.title for r in groups["page"] if r.namespace == 0})
    if not titles:
        return
    title = titles[0]
    if kind == "redirect":
        for row in groups["rows"]:
            if row.namespace == 0 and not row.interwiki and row.target_title:
                yield title, row.target_title
    elif kind == "page_props":
        if any(row.name == "disambiguation" for row in groups["rows"]):
            yield title, PageFlags(title, is_disambiguation=True)
    elif kind == "langlinks":
        for row in groups["rows"]:
            if row.lang == types_lang and row.title:
                yield row.title, title


class SqlTables(beam.PTransform):
    """redirect.sql, page_props.sql and langlinks.sql joined with page ids -> title-keyed evidence.

    Page ids are mapped to titles by the dump itself and, where given, by page.sql (both
    schemas), so redirect.sql works without page.sql when the dump is complete.
    """

    def __init__(self, page_sql=(), redirect_sql=(), page_props_sql=(), langlinks_sql=(), types_lang="en") -> None:
        super().__init__()
        self.files = {"page": sorted(page_sql), "redirect": sorted(redirect_sql),
                      "page_props": sorted(page_props_sql), "langlinks": sorted(langlinks_sql)}
        self.types_lang = types_lang

    def _read(self, pipeline, kind: str):
        return (
            pipeline
            | f"{kind}Files" >> beam.Create(self.files[kind])
            | f"Read{kind}" >> beam.FlatMap(_sql_rows(kind))
        )

    def expand(self, page_titles):
        pipeline = page_titles.pipeline
        pages = self._read(pipeline, "page")
        result = {}
        for kind in ("redirect", "page_props", "langlinks"):
            if not self.files[kind]:
                continue
            rows = self._read(pipeline, kind)
            result[kind] = (
                {"dump": page_titles, "page": pages, "rows": rows}
                | f"Join{kind}" >> beam.CoGroupByKey()
                | f"Titles{kind}" >> beam.FlatMap(_join_by_page, kind, self.types_lang)
            )
        return result


def _carry_types(element) -> Iterator[tuple[str, object]]:
    """Cross-language typing: a page takes the classes of its equivalent in the types' language."""
    other_title, groups = element
    classes = sorted(set(groups["types"]))
    for local_title in sorted(set(groups["local"])):
        yield local_title, ("alias", other_title)
        for cls in classes:
            yield local_title, ("class", cls)


class TitleFilterFn(beam.CombineFn):
    """Titles -> (bits, hashes, bytes) of a Bloom filter holding them (``wikisilver.entities.bloom``).

    A bundle's accumulator is a set of title hashes until it would outgrow the bit array, then
    the bit array itself, so a small bundle ships a few kB, never the whole filter.
    """

    def __init__(self, capacity: int, error_rate: float = 0.01) -> None:
        self.bits, self.hashes = filter_size(capacity, error_rate)
        self.switch = self.bits // 64  # a set of 64-bit hashes as large as the bit array

    def _as_filter(self, accumulator) -> BloomFilter:
        if isinstance(accumulator, BloomFilter):
            return accumulator
        bloom = BloomFilter(self.bits, self.hashes)
        for hashed in accumulator:
            bloom.add_hash(hashed)
        return bloom

    def create_accumulator(self):
        return set()

    def add_input(self, accumulator, title: str):
        if isinstance(accumulator, BloomFilter):
            accumulator.add(title)
            return accumulator
        accumulator.add(title_hash(title))
        return self._as_filter(accumulator) if len(accumulator) > self.switch else accumulator

    def merge_accumulators(self, accumulators):
        hashes: set[int] = set()
        bloom = None
        for accumulator in accumulators:
            if isinstance(accumulator, BloomFilter):
                bloom = accumulator if bloom is None else bloom.union(accumulator)
            else:
                hashes |= accumulator
        if bloom is None:
            return hashes if len(hashes) <= self.switch else self._as_filter(hashes)
        for hashed in hashes:
            bloom.add_hash(hashed)
        return bloom

    def extract_output(self, accumulator) -> tuple[int, int, bytes]:
        bloom = self._as_filter(accumulator)
        return bloom.bits, bloom.hashes, bytes(bloom.array)


def _read_types(path: str, title_filter: tuple[int, int, bytes] | None = None) -> Iterator[tuple[str, str]]:
    """(title, class) of a types file; with a filter, only the titles that may be requested."""
    from wikisilver.entities.rdf import iter_instance_types

    bloom = BloomFilter(*title_filter) if title_filter is not None else None
    read = dropped = 0
    last_title, wanted = None, True  # a title's classes come on consecutive lines: test it once
    try:
        for title, cls in iter_instance_types(path):
            read += 1
            if bloom is not None:
                if title != last_title:
                    last_title, wanted = title, title in bloom
                if not wanted:
                    dropped += 1
                    continue
            yield title, cls
    finally:  # counted once per file, not per line (a Beam counter update is not free)
        counter("type_triples_read").inc(read)
        counter("type_triples_unrequested").inc(dropped)


def _read_entity_table(path: str) -> Iterator[tuple[str, tuple[str, object]]]:
    """Rows of an earlier run's entity table: the entity and its aliases, keyed by title."""
    from wikisilver.entities.table import read_entity_table

    for row in read_entity_table(path):
        yield row.title, ("entity", EntityType(row.title, row.dbpedia_class or None, row.conll, row.fine, "entities"))
        for alias in row.aliases:
            yield row.title, ("alias", alias)


class _QuerySparql(beam.DoFn):
    """Batches of titles -> (title, class) from a SPARQL endpoint; a failed batch fails the run."""

    def __init__(self, config) -> None:
        self.config = config

    def process(self, titles: list[str]) -> Iterator[tuple[str, str]]:
        from wikisilver.entities.sparql import query_types

        queried = counter("sparql_titles_queried")
        queried.inc(len(titles))
        # SparqlError propagates on purpose: partial typing must never pass for a complete corpus.
        yield from query_types(self.config, titles)


class SparqlTypes(beam.PTransform):
    """The distinct titles a run needs -> their DBpedia classes, asked of a SPARQL endpoint."""

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config

    def expand(self, requests):
        return (
            requests
            | "Titles" >> beam.Keys()
            | "DistinctTitles" >> beam.Distinct()
            | "Batch" >> beam.BatchElements(
                min_batch_size=self.config.batch_size, max_batch_size=self.config.batch_size
            )
            | "Query" >> beam.ParDo(_QuerySparql(self.config))
        )
