"""Step 1 of the method, its inputs: what the wiki itself (its dump and SQL tables), the DBpedia types,
earlier entity tables and a SPARQL endpoint say about titles, each keyed by title for the typing join.

Both jobs gather evidence with the same two composites::

    wiki     = pcollections(parsed) | ReadWikiEvidence(config)          # the dump and its SQL tables
    evidence = pcollections(wiki)   | GatherEvidence(config, requests)  # + types, SPARQL, entity tables

(``pcollections``: a record's PCollections, without the sources the run does not use.) This module
holds the second, with the readers of the entity sources' files; the first is in
``pipelines/wiki_evidence.py``, the SPARQL source in ``pipelines/sparql.py``, the Bloom filter of
the requested titles in ``pipelines/title_filter.py``.

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
from wikisilver.entities import sources
from wikisilver.entities.bloom import BloomFilter
from wikisilver.entities.sources import Source
from wikisilver.entities.table import read_entity_table
from wikisilver.pipelines.common import COUNTS, counter, counts, named
from wikisilver.pipelines.sparql import SparqlTypes
from wikisilver.pipelines.title_filter import TitleFilterFn
from wikisilver.pipelines.wiki_evidence import WikiEvidence
from wikisilver.records import EntityType
from wikisilver.stats import input_problems


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
