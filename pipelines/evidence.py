"""Step 1 of the method, its inputs: what the wiki itself (its dump and SQL tables), the DBpedia types,
earlier entity tables and a SPARQL endpoint say about titles, each keyed by title for the typing join.

Both jobs gather evidence with the same two composites::

    wiki     = pcollections(parsed) | ReadWikiEvidence(config)          # the dump and its SQL tables
    evidence = pcollections(wiki)   | GatherEvidence(config, requests)  # + types, SPARQL, entity tables

(``pcollections``: a record's PCollections, without the sources the run does not use.)

The build passes its requests (its articles' link targets, redirects followed, see
``pipelines/redirects.py``): the SPARQL endpoint is asked about those titles and the types are
filtered to them by a Bloom filter. The entities job passes none: it types every title any source
knows. Either way, with ``--types-lang`` other than ``--lang`` the types reach the local titles
through ``langlinks.sql`` only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import NamedTuple

import apache_beam as beam
from apache_beam.pvalue import PCollection

from wikisilver.config import BuildConfig
from wikisilver.config.derived import sparql_config, title_filter_capacity, types_lang
from wikisilver.entities import sources, sql
from wikisilver.entities.bloom import BloomFilter, filter_size, title_hash
from wikisilver.entities.mysqldump import SqlReadStats
from wikisilver.entities.sources import Source
from wikisilver.entities.table import read_entity_table
from wikisilver.pipelines.common import COUNTS, counter, counts, named
from wikisilver.pipelines.extract import Extracted
from wikisilver.records import EntityType, PageFlags


class WikiEvidence(NamedTuple):
    """What the wiki says about its titles, each keyed by title (None: a source the run lacks)."""

    flags: PCollection  # (title, PageFlags): its pages in the dump, disambiguation per page_props.sql
    redirects: PCollection  # (redirect title, target title): the dump's and redirect.sql's
    infobox: PCollection | None  # (title, DBpedia class of its first mapped infobox); --infobox-mappings
    langlinks: PCollection | None  # (title in the types' language, local title), from langlinks.sql
    counts: PCollection | None = None  # what reading the SQL tables skipped, for stats.json; None without them


class Evidence(NamedTuple):
    """All evidence for the typing join, keyed by title. ``sources``: the evidence of each entity
    source the run uses, by its evidence name (wikisilver.entities.sources; the entity tables'
    EntityType rows, the others' classes or (class, file index) pairs); a source the run does not
    use is absent: it is left out of the join and costs the runner nothing."""

    flags: PCollection  # PageFlags
    aliases: PCollection  # alias titles: redirects, other-language titles, entity-table aliases
    sources: Mapping[str, PCollection]
    # Not evidence: what reading the SQL tables and types files skipped, for stats.json (None: no such file).
    counts: PCollection | None = None

    def inputs(self) -> dict[str, PCollection]:
        """The input of the typing composites: the fields of ``TitleEvidence``, and the counts."""
        found = {"flags": self.flags, "aliases": self.aliases, **self.sources}
        return found if self.counts is None else {**found, "counts": self.counts}


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


def input_problems(source: str, problems: dict[str, int]) -> dict[str, int]:
    """The counts of stats.json ``input_problems`` (``<source>.<kind>``) of what reading one file skipped."""
    return {f"input_problems.{source}.{kind}": n for kind, n in problems.items()}


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


def _read_classes(
    file: tuple[int, str], source: Source, title_filter: tuple[int, int, bytes] | None = None
) -> Iterator[tuple[str, tuple[str, int]]]:
    """(title, (class, file index)) of the file ``(index, path)`` of a source with a reader (the
    types, wikisilver.entities.sources): each file votes on a title's type on its own
    (``wikisilver.entities.typing``); with a filter, only the titles that may be requested."""
    origin, path = file
    bloom = BloomFilter(*title_filter) if title_filter is not None else None
    read = dropped = 0
    last_title, wanted = None, True  # a title's classes come on consecutive lines: test it once
    problems: Counter = Counter()
    try:
        for title, cls in source.reader(path, problems):
            read += 1
            if bloom is not None:
                if title != last_title:
                    last_title, wanted = title, title in bloom
                if not wanted:
                    dropped += 1
                    continue
            yield title, (cls, origin)
    finally:  # counted once per file, not per line (a Beam counter update is not free)
        counter(f"{source.option}_lines_read").inc(read)
        counter(f"{source.option}_lines_unrequested").inc(dropped)
    yield counts(input_problems(source.option, dict(problems)))


def _read_entity_table(path: str) -> Iterator:
    """Rows of an earlier run's entity table: (title, EntityType), and (title, alias) as "aliases"."""
    for row in read_entity_table(path):
        yield row.title, EntityType(row.title, row.dbpedia_class or None, row.conll, row.fine, "entities")
        for alias in row.aliases:
            yield beam.pvalue.TaggedOutput("aliases", (row.title, alias))


def _carried_classes(element) -> Iterator[tuple[str, tuple[str, int]]]:
    """Cross-language typing: a page takes the classes of its equivalent in the types' language."""
    _other_title, groups = element
    classes = sorted(set(groups["types"]))
    for local_title in sorted(set(groups["local"])):
        for cls in classes:
            yield local_title, cls


def _swap(pair: tuple[str, str]) -> tuple[str, str]:
    return pair[1], pair[0]


class _QuerySparql(beam.DoFn):
    """Batches of titles -> (title, class) from a SPARQL endpoint; a failed batch fails the run."""

    def __init__(self, config) -> None:
        self.config = config

    def process(self, titles: list[str]) -> Iterator[tuple[str, str]]:
        from wikisilver.entities.sparql import query_types

        counter("sparql_titles_queried").inc(len(titles))
        # SparqlError propagates on purpose: partial typing must never pass for a complete corpus.
        yield from query_types(self.config, titles)


class SparqlTypes(beam.PTransform):
    """Titles keyed by title -> their DBpedia classes, asked of a SPARQL endpoint once per title."""

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config

    def expand(self, keyed):
        return (
            keyed
            | "Titles" >> beam.Keys()
            | "DistinctTitles" >> beam.Distinct()
            | "Batch" >> beam.BatchElements(
                min_batch_size=self.config.batch_size, max_batch_size=self.config.batch_size
            )
            | "Query" >> beam.ParDo(_QuerySparql(self.config))
        )


class GatherEvidence(beam.PTransform):
    """:class:`WikiEvidence` (as ``pcollections``) -> :class:`Evidence`: the wiki's own evidence and
    the run's entity sources.

    The files of every declared source with a reader (the types, and any new source of (title,
    class) files: wikisilver.entities.sources) are read the same way, each file one voter.
    ``requests`` chooses what is wanted. The build's (resolved link targets keyed by title, see
    ``ResolveRedirects``): the endpoint is asked about the requested titles, and the files are
    read through a Bloom filter of the titles they will be joined with (the requested ones, or
    for the types with ``--types-lang`` the other-language titles of langlinks.sql). None (the
    entities job): every title any source knows, so the endpoint is asked about the dump's titles
    and the files are read whole.
    """

    def __init__(self, config: BuildConfig, requests: PCollection | None = None) -> None:
        super().__init__()
        self.class_files = {source: sorted(source.values(config)) for source in sources.readable()}
        self.entity_tables = sorted(config.entities)
        self.sparql = sparql_config(config) if config.sparql else None
        self.types_direct = types_lang(config) == config.lang
        self.langlinks = bool(config.langlinks_sql)
        self.filter_capacity = title_filter_capacity(config.dumps)
        self.requests = requests

    def expand(self, inputs: dict[str, PCollection]) -> Evidence:
        wiki = named(WikiEvidence, inputs)
        pipeline = wiki.flags.pipeline
        aliases = [wiki.redirects | "AliasOfTarget" >> beam.Map(_swap)]
        read_counts = [wiki.counts] if wiki.counts is not None else []
        found: dict[str, PCollection] = {}
        filters: dict[tuple[bool, bool], PCollection | None] = {}
        for source, files in self.class_files.items():
            if files:
                # The types may be in another language (--types-lang), reaching the local
                # titles through langlinks only; every other source is in the dump's.
                direct, carried = (self.types_direct, self.langlinks) if source.option == "types" else (True, False)
                if (direct, carried) not in filters:
                    filters[direct, carried] = self._title_filter(wiki, direct, carried)
                found[source.evidence] = self._classes(pipeline, source, files, filters[direct, carried], read_counts)
        types = found.pop("types", None)
        if types is not None and self.types_direct:
            found["types"] = types
        if types is not None and self.langlinks:
            found["langlinks"] = (
                {"types": types, "local": wiki.langlinks}
                | "JoinLanglinks" >> beam.CoGroupByKey()
                | "CarryTypes" >> beam.FlatMap(_carried_classes)
            )
            aliases.append(wiki.langlinks | "LanglinkAliases" >> beam.Map(_swap))
        if self.entity_tables:
            rows = (
                pipeline
                | "EntityTables" >> beam.Create(self.entity_tables)
                | "ReadEntityTable" >> beam.FlatMap(_read_entity_table).with_outputs("aliases", main="entities")
            )
            found["entities"] = rows.entities
            aliases.append(rows.aliases)
        if self.sparql is not None:
            asked = wiki.flags if self.requests is None else self.requests
            found["sparql"] = asked | "SparqlTypes" >> SparqlTypes(self.sparql)
        if wiki.infobox is not None:
            found["infobox"] = wiki.infobox
        return Evidence(
            flags=wiki.flags, aliases=tuple(aliases) | "AllAliases" >> beam.Flatten(), sources=found,
            counts=tuple(read_counts) | "ReadCounts" >> beam.Flatten() if read_counts else None,
        )

    def _title_filter(self, wiki: WikiEvidence, direct: bool, carried: bool) -> PCollection | None:
        """A Bloom filter of the titles a source's classes will be joined with, when that set is
        known (the build): the requested ones if it is in the dump's language, the other-language
        titles of langlinks.sql if it is carried over them. None: every title is wanted."""
        if self.requests is None:
            return None
        keys = []
        suffix = ("" if direct else "Other") + ("Carried" if carried else "")
        if direct:
            keys.append(self.requests | f"RequestedTitles{suffix}" >> beam.Keys())
        if carried:
            keys.append(wiki.langlinks | f"LanglinkTitles{suffix}" >> beam.Keys())
        wanted = tuple(keys) | f"WantedTitles{suffix}" >> beam.Flatten()
        return wanted | f"TitleFilter{suffix}" >> beam.CombineGlobally(TitleFilterFn(self.filter_capacity))

    def _classes(self, pipeline, source: Source, files: list[str], title_filter, read_counts: list) -> PCollection:
        """(title, (class, file index)) of a source's files, read by its reader; what reading them
        skipped is added to ``read_counts``."""
        name = source.option.title().replace("_", "")
        spread = (
            pipeline
            | f"{name}Files" >> beam.Create(list(enumerate(files)))
            | f"Spread{name}Files" >> beam.Reshuffle()  # several files are read by several workers
        )
        if title_filter is None:
            read = spread | f"Read{name}" >> beam.FlatMap(_read_classes, source).with_outputs(COUNTS, main="lines")
        else:
            read = spread | f"Read{name}" >> beam.FlatMap(
                _read_classes, source, title_filter=beam.pvalue.AsSingleton(title_filter)
            ).with_outputs(COUNTS, main="lines")
        read_counts.append(read[COUNTS])
        return read.lines | f"Reshuffle{name}" >> beam.Reshuffle()
