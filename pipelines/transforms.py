"""The composite transforms of the build job, one per step of the method.

Each DoFn is thin: it calls the Beam-free functions of ``wikisilver`` and owns only Beam
concerns — one-time loads in ``setup()``, a ``Metrics`` counter for every count, and a dead-letter
``rejects`` output instead of try/except-and-drop. Every table that grows with the dump (titles,
types, redirects) is joined by key; only the DBpedia class table (~800 classes) travels with
the code.
"""

from __future__ import annotations

import json
import logging
import time
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import apache_beam as beam
from apache_beam.metrics import Metrics

from wikisilver import dump as dumplib
from wikisilver.bloom import BloomFilter, filter_size, title_hash
from wikisilver import formats, wikitext
from wikisilver.calendar import is_calendar_title
from wikisilver.labels import LabelConfig, Labeller
from wikisilver.ontology import ClassTag, Ontology, most_specific, tag_for_class
from wikisilver.records import Article, EntityType, LabelledSentence, Page, PageReject, TargetInfo, compact_pickle
from wikisilver.titles import normalize_title

NAMESPACE = "wikisilver"
REJECTS = "rejects"
SKIPPED = "skipped"
log = logging.getLogger(__name__)


def counter(name: str):
    return Metrics.counter(NAMESPACE, name)


progress_log = logging.getLogger("wikisilver.progress")


class Progress:
    """One stage's count and rate on one worker, logged every ``interval`` seconds.

    Beam counters hold the totals (and a Dataflow or Flink UI shows them live); these lines show a
    long local run moving, and land in the workers' logs on a cluster. ``interval`` 0: silent.
    """

    def __init__(self, stage: str, unit: str, interval: float) -> None:
        self.stage, self.unit, self.interval = stage, unit, interval
        self.count = self.logged_count = 0
        self.logged_at: float | None = None  # the last line, or the first element

    def add(self, n: int = 1) -> None:
        if self.interval <= 0:
            return
        now = time.monotonic()
        if self.logged_at is None:
            self.logged_at = now
        self.count += n
        if now - self.logged_at >= self.interval:
            rate = (self.count - self.logged_count) / (now - self.logged_at)
            progress_log.info("%s: %s %s on this worker so far, %.1f %s/s", self.stage, f"{self.count:,}",
                              self.unit, rate, self.unit)
            self.logged_at, self.logged_count = now, self.count


@compact_pickle
@dataclass(frozen=True)
class PageFlags:
    """What the dump itself says about a title: it exists, it is a disambiguation page."""

    title: str
    is_disambiguation: bool = False
    is_redirect: bool = False


# -- Step 2a: read the dump --------------------------------------------------------------------


class _ReadDumpPart(beam.DoFn):
    """Pages of one byte range of one dump file; unreadable pieces go to the rejects output."""

    def __init__(self, progress_interval: float = 30.0) -> None:
        self.read = counter("pages_read")
        self.rejected = counter("pages_rejected")
        self.progress_interval = progress_interval
        self.progress = None

    def setup(self) -> None:
        self.progress = Progress("read", "pages", self.progress_interval)

    def process(self, part: tuple[str, int, int | None]) -> Iterator:
        path, start, end = part
        if start == 0 and end is None:
            records = dumplib.iter_pages(path)
        else:
            records = dumplib.iter_pages_in_range(path, start, end)
        for record in records:
            if isinstance(record, PageReject):
                self.rejected.inc()
                yield beam.pvalue.TaggedOutput(REJECTS, record)
            else:
                self.read.inc()
                self.progress.add()
                yield record


class ReadPages(beam.PTransform):
    """Dump files -> pages, parallel over files (and over multistream ranges), then reshuffled."""

    def __init__(
        self, dumps: Iterable[str], index_files: Mapping[str, str] | None = None, progress_interval: float = 30.0
    ) -> None:
        super().__init__()
        self.dumps = sorted(dumps)
        self.index_files = dict(index_files or {})
        self.progress_interval = progress_interval

    def expand(self, pbegin):
        parts = []
        for path in self.dumps:
            for start, end in dumplib.stream_ranges(path, self.index_files.get(path)):
                parts.append((path, start, end))
        result = (
            pbegin
            | "DumpParts" >> beam.Create(parts)
            | "ReshuffleParts" >> beam.Reshuffle()
            | "ReadPart" >> beam.ParDo(_ReadDumpPart(self.progress_interval)).with_outputs(REJECTS, main="pages")
        )
        pages = result.pages | "SpreadPages" >> beam.Reshuffle()
        return pages, result[REJECTS]


# -- Step 2b: route pages, clean articles ----------------------------------------------------


class _RoutePage(beam.DoFn):
    """Split pages into articles, redirects, disambiguation pages and skipped namespaces."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def process(self, page: Page) -> Iterator:
        title = normalize_title(page.title)
        if page.ns != 0:
            counter("pages_skipped_namespace").inc()
            yield beam.pvalue.TaggedOutput(SKIPPED, "namespace")
            return
        yield beam.pvalue.TaggedOutput("page_titles", (page.page_id, title))
        target = page.redirect or wikitext.redirect_target(page.text, self.lang)
        if target:
            counter("pages_skipped_redirect").inc()
            yield beam.pvalue.TaggedOutput(SKIPPED, "redirect")
            yield beam.pvalue.TaggedOutput("redirects", (title, normalize_title(target)))
            yield beam.pvalue.TaggedOutput("flags", (title, PageFlags(title, is_redirect=True)))
            return
        if wikitext.is_disambiguation(page.text, self.lang):
            counter("pages_skipped_disambiguation").inc()
            yield beam.pvalue.TaggedOutput(SKIPPED, "disambiguation")
            yield beam.pvalue.TaggedOutput("flags", (title, PageFlags(title, is_disambiguation=True)))
            return
        yield beam.pvalue.TaggedOutput("flags", (title, PageFlags(title)))
        yield page


class _CleanArticle(beam.DoFn):
    """Wikitext -> clean text with link spans (mwparserfromhell), within a size and time budget."""

    def __init__(
        self, lang: str, max_chars: int, max_seconds: float, infobox_dir: str | None, progress_interval: float = 30.0
    ) -> None:
        self.lang = lang
        self.max_chars = max_chars
        self.max_seconds = max_seconds
        self.infobox_dir = infobox_dir
        self.infoboxes = None
        self.progress_interval = progress_interval
        self.progress = None

    def setup(self) -> None:
        self.progress = Progress("clean", "articles", self.progress_interval)
        if self.infobox_dir:
            from wikisilver.sources import load_infobox_mappings

            self.infoboxes = load_infobox_mappings(self.infobox_dir)

    def process(self, page: Page) -> Iterator:
        title = normalize_title(page.title)
        try:
            clean = wikitext.clean_wikitext(
                page.text, lang=self.lang, max_chars=self.max_chars, max_seconds=self.max_seconds
            )
        except wikitext.WikitextBudgetError as error:
            counter("pages_rejected").inc()
            yield beam.pvalue.TaggedOutput(REJECTS, _reject(page, "over_budget", str(error)))
            return
        except Exception as error:  # a corrupt page never kills a run: dead-letter it
            counter("pages_rejected").inc()
            yield beam.pvalue.TaggedOutput(REJECTS, _reject(page, "parse_error", f"{type(error).__name__}: {error}"))
            return
        if self.infoboxes:
            from wikisilver.sources import infobox_class

            cls = infobox_class(wikitext.template_names(page.text), self.infoboxes)
            if cls:
                counter("typed_by_infobox").inc()
                yield beam.pvalue.TaggedOutput("infobox_types", (title, cls))
        if not clean.text.strip():
            counter("pages_skipped_empty").inc()
            yield beam.pvalue.TaggedOutput(SKIPPED, "empty_text")
            return
        counter("articles_cleaned").inc()
        self.progress.add()
        yield Article(page.page_id, title, clean.text, clean.links)


def _reject(page: Page, reason: str, detail: str) -> PageReject:
    return PageReject(
        source=page.source, reason=reason, detail=detail[:500], page_id=page.page_id,
        title=page.title, offset=page.offset, snippet=page.text[:200],
    )


class ExtractArticles(beam.PTransform):
    """Pages -> (articles, redirects, page flags, infobox types, skipped reasons, rejects)."""

    def __init__(
        self, lang: str, max_chars: int, max_seconds: float, infobox_dir: str | None, progress_interval: float = 30.0
    ) -> None:
        super().__init__()
        self.lang = lang
        self.max_chars = max_chars
        self.max_seconds = max_seconds
        self.infobox_dir = infobox_dir
        self.progress_interval = progress_interval

    def expand(self, pages):
        routed = pages | "Route" >> beam.ParDo(_RoutePage(self.lang)).with_outputs(
            SKIPPED, "redirects", "flags", "page_titles", main="articles"
        )
        cleaned = routed.articles | "Clean" >> beam.ParDo(
            _CleanArticle(self.lang, self.max_chars, self.max_seconds, self.infobox_dir, self.progress_interval)
        ).with_outputs(REJECTS, SKIPPED, "infobox_types", main="articles")
        skipped = (routed[SKIPPED], cleaned[SKIPPED]) | "AllSkipped" >> beam.Flatten()
        return {
            "articles": cleaned.articles,
            "redirects": routed.redirects,
            "flags": routed.flags,
            "page_titles": routed.page_titles,
            "infobox_types": cleaned.infobox_types,
            "skipped": skipped,
            "rejects": cleaned[REJECTS],
        }


# -- Step 1 inputs from the SQL table dumps ------------------------------------------------------


def _sql_rows(kind: str):
    """A FlatMap over SQL dump files of one table, keyed by page id."""

    def read(path: str) -> Iterator[tuple[int, object]]:
        from wikisilver import sqldump

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


# -- Step 1: type entities -----------------------------------------------------------------------


class _ChooseType(beam.DoFn):
    """All evidence on one title -> one TargetInfo, by the documented precedence of sources.

    Precedence: an --entities table (explicit user decision) > DBpedia instance types >
    SPARQL endpoint > the type of the page's equivalent in another language (langlinks) >
    infobox mappings. Several DBpedia classes of one title resolve to the most specific one;
    classes on different branches count as a conflict (the first in a stable order wins).
    """

    PRECEDENCE = ("entities", "types", "sparql", "langlinks", "infobox")

    def __init__(self, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag]) -> None:
        self.lang = lang
        self.ontology = ontology
        self.class_table = dict(class_table)

    def _entity(self, cls: str, source: str) -> EntityType:
        tag = tag_for_class(cls, self.class_table)
        return EntityType(title="", dbpedia_class=cls, conll=tag.conll, fine=tag.fine, source=source)

    def process(self, element) -> Iterator:
        title, groups = element
        requests = groups.get("request")
        if requests is not None and next(iter(requests), None) is None:
            # A build types only the titles its articles link to (and the articles themselves).
            # (Not as a trailing comment: Beam warns of "yield and return" on a line "return  # …".)
            return
        flags = list(groups.get("flags", ()))
        aliases = set(groups.get("aliases", ()))
        candidates: dict[str, EntityType] = {}
        for kind, value in sorted(groups.get("entities", ()), key=lambda kv: (kv[0], str(kv[1]))):
            if kind == "alias":
                aliases.add(value)
            else:
                candidates.setdefault("entities", value)
        aliases = sorted(aliases)
        for source in ("types", "sparql", "langlinks", "infobox"):
            classes = list(groups.get(source, ()))
            if classes:
                best, off_one_chain = most_specific(classes, self.ontology)
                # A conflict that matters: classes on different branches with different CoNLL tags
                # (Delphi: a city and a programming language), not OfficeHolder vs Politician.
                conflict = off_one_chain and len(
                    {tag_for_class(c, self.class_table).conll for c in classes if c in self.class_table}
                ) > 1
                if conflict:
                    counter(f"typing_conflicts_within_{source}").inc()
                    yield beam.pvalue.TaggedOutput("counts", {f"typing_conflicts.within_{source}": 1})
                if best is not None:
                    candidates[source] = self._entity(best, source)
        entity = None
        for source in self.PRECEDENCE:
            if source in candidates:
                entity = candidates[source]
                break
        if len({c.conll for c in candidates.values()}) > 1:
            counter("typing_conflicts_between_sources").inc()
            yield beam.pvalue.TaggedOutput("counts", {"typing_conflicts.between_sources": 1})
        is_calendar = False
        if entity is None and is_calendar_title(title, self.lang):
            entity = EntityType(title, None, "O", "O", "calendar")
            is_calendar = True
        if entity is not None:
            entity = EntityType(title, entity.dbpedia_class, entity.conll, entity.fine, entity.source)
            if not is_calendar:
                counter(f"typed_by_source_{entity.source}").inc()
        info = TargetInfo(
            title=title,
            entity=entity,
            exists=any(not f.is_redirect for f in flags),
            is_disambiguation=any(f.is_disambiguation for f in flags),
            aliases=tuple(aliases),
        )
        if flags and all(f.is_redirect for f in flags):
            # A title that is itself a redirect (a loop or an over-long chain): not an entity.
            info = TargetInfo(title=title, entity=None, exists=False)
        if requests is None:
            yield title, info
            return
        if info.entity is not None:
            yield beam.pvalue.TaggedOutput(
                "counts", {f"titles_typed_by.{info.entity.source}": 1, f"titles_by_tag.{info.entity.conll}": 1}
            )
        if info.entity is None and not info.is_disambiguation:
            # What the labeller does with an untyped target is what it does with one it is not
            # sent (unknown: UNK): four in five (article, target) pairs need not travel at all.
            return
        for written, batch in requests:
            for article, own in batch:
                yield article, (OWN if own else written, info)


class TypeEntities(beam.PTransform):
    """Entity evidence keyed by title -> what is known of each title, by one CoGroupByKey.

    Without ``request`` among the inputs (the entities job) it returns (title, TargetInfo) for
    every title any source knows. With ``request`` (the build: resolved link targets keyed by
    title, valued (title as written, requests), see ResolveRedirects) only requested titles are
    typed, and it returns (article key, (target as written, TargetInfo)) ready to join with the
    articles, for the targets the labeller can use (typed, or disambiguation pages): a target an
    article is not sent is unknown to it, as an untyped one would be.
    Either way also a PCollection of counts (typed titles, typing conflicts) for stats.json.
    """

    def __init__(
        self, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag],
        types_files: Iterable[str] = (), entity_tables: Iterable[str] = (), types_direct: bool = True,
        filter_capacity: int = 1_000_000,
    ) -> None:
        super().__init__()
        self.filter_capacity = filter_capacity
        self.lang = lang
        self.types_direct = types_direct
        self.ontology = ontology
        self.class_table = class_table
        self.types_files = sorted(types_files)
        self.entity_tables = sorted(entity_tables)

    def _wanted_titles(self, inputs):
        """Titles the types will be joined with, when that set is known (the build), else None.

        Direct typing joins the types with the requested titles; cross-language typing with the
        other-language titles of the dump's langlinks. The entities job (no requests) types
        every title any source knows, so it reads the types unfiltered.
        """
        if "request" not in inputs or self.filter_capacity <= 0:
            return None
        keys = []
        if self.types_direct:
            keys.append(inputs["request"] | "RequestedTitles" >> beam.Keys())
        if "langlinks" in inputs:
            keys.append(inputs["langlinks"] | "LanglinkTitles" >> beam.Keys())
        if not keys:
            return None
        return tuple(keys) | "WantedTitles" >> beam.Flatten()

    def expand(self, inputs):
        pipeline = inputs["flags"].pipeline
        evidence = {
            "flags": inputs["flags"],
            "infobox": inputs["infobox_types"],
            "aliases": inputs["redirects"] | "AliasOfTarget" >> beam.Map(lambda st: (st[1], st[0])),
        }
        if "sparql" in inputs:
            evidence["sparql"] = inputs["sparql"]
        if "request" in inputs:
            evidence["request"] = inputs["request"]
        if "extra_flags" in inputs:
            evidence["flags"] = (inputs["flags"], inputs["extra_flags"]) | "AllFlags" >> beam.Flatten()
        if "extra_redirects" in inputs:
            evidence["aliases"] = (
                evidence["aliases"],
                inputs["extra_redirects"] | "SqlAliasOfTarget" >> beam.Map(lambda st: (st[1], st[0])),
            ) | "AllAliases" >> beam.Flatten()
        types = None
        if self.types_files:
            files = (
                pipeline
                | "TypesFiles" >> beam.Create(self.types_files)
                | "SpreadTypesFiles" >> beam.Reshuffle()  # several files are read by several workers
            )
            wanted = self._wanted_titles(inputs)
            if wanted is None:
                lines = files | "ReadTypes" >> beam.FlatMap(_read_types)
            else:
                title_filter = wanted | "TitleFilter" >> beam.CombineGlobally(
                    TitleFilterFn(self.filter_capacity)
                )
                lines = files | "ReadTypes" >> beam.FlatMap(
                    _read_types, title_filter=beam.pvalue.AsSingleton(title_filter)
                )
            types = lines | "ReshuffleTypes" >> beam.Reshuffle()
            if self.types_direct:
                evidence["types"] = types
        if types is not None and "langlinks" in inputs:
            carried = (
                {"types": types, "local": inputs["langlinks"]}
                | "JoinLanglinks" >> beam.CoGroupByKey()
                | "CarryTypes" >> beam.FlatMap(_carry_types)
            )
            evidence["langlinks"] = carried | "LanglinkClasses" >> beam.FlatMap(
                lambda kv: [(kv[0], kv[1][1])] if kv[1][0] == "class" else []
            )
            evidence["aliases"] = (
                evidence["aliases"],
                carried | "LanglinkAliases" >> beam.FlatMap(lambda kv: [(kv[0], kv[1][1])] if kv[1][0] == "alias" else []),
            ) | "WithLanglinkAliases" >> beam.Flatten()
        if self.entity_tables:
            evidence["entities"] = (
                pipeline
                | "EntityTables" >> beam.Create(self.entity_tables)
                | "ReadEntityTable" >> beam.FlatMap(_read_entity_table)
            )
        choose = _ChooseType(self.lang, self.ontology, self.class_table)
        chosen = (
            evidence
            | "GroupEvidence" >> beam.CoGroupByKey()
            | "ChooseType" >> beam.ParDo(choose).with_outputs("counts", main="infos")
        )
        return chosen.infos, chosen.counts


class TitleFilterFn(beam.CombineFn):
    """Titles -> (bits, hashes, bytes) of a Bloom filter holding them (``wikisilver.bloom``).

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
    from wikisilver.sources import iter_instance_types

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
    from wikisilver.sources import read_entity_table

    for row in read_entity_table(path):
        yield row.title, ("entity", EntityType(row.title, row.dbpedia_class or None, row.conll, row.fine, "entities"))
        for alias in row.aliases:
            yield row.title, ("alias", alias)


# -- Step 3 inputs: resolve each article's link targets ------------------------------------------


OWN = "\x00own"  # marks the request for an article's own title


def article_key(article: Article) -> tuple[int, str]:
    """Join key of an article: page id and title (some dumps reuse page ids, e.g. test exports)."""
    return (article.page_id, article.title)


def _requests(article: Article) -> Iterator[tuple[str, tuple[tuple[int, str], bool]]]:
    """(title, (article key, is the article's own title)) for its own title and each link target."""
    key = article_key(article)
    yield article.title, (key, True)
    for target in sorted({link.target for link in article.links if link.target}):
        yield target, (key, False)


class _CollectRequests(beam.CombineFn):
    """The requests for one title -> one tuple. As a combine, not a plain join input, so runners
    lift it before the shuffle: a bundle sends each popular title once with all its requesters,
    not once per link (about 150 distinct targets per article, most of them shared).

    Beam's own ``ToListCombineFn`` would do, but it merges with ``sum(accumulators, [])``, which
    copies the list once per accumulator: quadratic for a title linked from every bundle."""

    def create_accumulator(self) -> list:
        return []

    def add_input(self, accumulator: list, request) -> list:
        accumulator.append(request)
        return accumulator

    def merge_accumulators(self, accumulators) -> list:
        merged = []
        for accumulator in accumulators:
            merged.extend(accumulator)
        return merged

    def extract_output(self, accumulator: list) -> tuple:
        return tuple(accumulator)


def _extend_chain(element) -> Iterator[tuple[str, tuple[str, str]]]:
    """One hop along redirect chains: (source -> t) and (t -> u) give (source -> u)."""
    key, groups = element
    following = sorted(set(groups["next"]))
    for source in groups["chain"]:
        target = following[0] if following and following[0] != source else key
        yield target, (source, target)


def _follow_redirect(element) -> Iterator[tuple[str, tuple[str, tuple]]]:
    """The requests for one title as written -> (resolved title, (title as written, requests)).

    One element per title, not per request: the typing join then handles a popular target
    once rather than once per link."""
    key, groups = element
    requests = tuple(request for batch in groups["request"] for request in batch)
    if not requests:
        return
    targets = sorted(set(groups["redirect"]))
    yield (targets[0] if targets else key), (key, requests)


class ResolveRedirects(beam.PTransform):
    """Articles + redirects -> (resolved title, (title as written, ((article key, own title?), …))).

    The redirect table is resolved first (``hops`` rounds of a self-join, so chains of up to
    ``hops + 1`` redirects end on their final target; loops and longer chains end on a redirect
    title, which is not an entity, so such links are UNK); then each article's distinct targets
    (and its own title) are joined once with it.
    """

    def __init__(self, hops: int = 3) -> None:
        super().__init__()
        self.hops = hops

    def expand(self, inputs):
        redirects = inputs["redirects"]
        chains = redirects | "ChainStart" >> beam.Map(lambda st: (st[1], (st[0], st[1])))
        for hop in range(self.hops):
            chains = (
                {"chain": chains | f"ChainSource{hop}" >> beam.Map(lambda kv: (kv[1][1], kv[1][0])), "next": redirects}
                | f"ExtendChains{hop}" >> beam.CoGroupByKey()
                | f"Extend{hop}" >> beam.FlatMap(_extend_chain)
            )
        resolved = chains | "ResolvedRedirects" >> beam.Map(lambda kv: (kv[1][0], kv[1][1]))
        requests = (
            inputs["articles"]
            | "Requests" >> beam.FlatMap(_requests)
            | "CollectRequests" >> beam.CombinePerKey(_CollectRequests())
        )
        return (
            {"request": requests, "redirect": resolved}
            | "JoinRedirects" >> beam.CoGroupByKey()
            | "FollowRedirects" >> beam.FlatMap(_follow_redirect)
        )


class _QuerySparql(beam.DoFn):
    """Batches of titles -> (title, class) from a SPARQL endpoint; a failed batch fails the run."""

    def __init__(self, config) -> None:
        self.config = config

    def process(self, titles: list[str]) -> Iterator[tuple[str, str]]:
        from wikisilver.sparql import query_types

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


# -- Steps 3 and 4: label ------------------------------------------------------------------------


class _LabelArticle(beam.DoFn):
    def __init__(self, lang: str, text_backend: str, config: LabelConfig, progress_interval: float = 30.0) -> None:
        self.lang = lang
        self.text_backend = text_backend
        self.config = config
        self.labeller = None
        self.progress_interval = progress_interval
        self.progress = None

    def setup(self) -> None:
        from wikisilver.text import get_processor

        self.labeller = Labeller(self.lang, get_processor(self.lang, self.text_backend), self.config)
        self.progress = Progress("label", "articles", self.progress_interval)

    def process(self, element) -> Iterator:
        (page_id, _title), groups = element
        articles = sorted(groups["article"], key=lambda a: (len(a.text), a.text))
        if not articles:
            return
        targets: dict[str, TargetInfo] = {}
        own = None
        for original, info in groups["targets"]:
            if original == OWN:
                own = info
            elif info is not None:
                targets[original] = info
        for duplicate in articles[1:]:
            counter("pages_rejected").inc()
            yield beam.pvalue.TaggedOutput(
                REJECTS,
                PageReject(source="", reason="duplicate_page_id", page_id=page_id, title=duplicate.title,
                           detail=f"page id {page_id} with this title read twice (duplicate page in the dump)"),
            )
        article = articles[0]
        try:
            result = self.labeller.label_article(article, targets, own)
            result.counts["pages_used"] += 1
        except Exception as error:  # dead-letter, never kill the run
            counter("articles_label_error").inc()
            yield beam.pvalue.TaggedOutput(
                REJECTS,
                PageReject(source="", reason="label_error", detail=f"{type(error).__name__}: {error}"[:500],
                           page_id=page_id, title=article.title, snippet=article.text[:200]),
            )
            yield beam.pvalue.TaggedOutput("counts", {"pages_rejected.label_error": 1})
            return
        for name in ("sentences_total", "sentences_kept", "sentences_dropped_unk", "tokens_kept"):
            counter(name).inc(result.counts.get(name, 0))
        self.progress.add()
        yield beam.pvalue.TaggedOutput("counts", dict(result.counts))
        if result.sentences:
            # One element per article, not per sentence: a tenth of Beam's per-element cost on the
            # way to the writer, and an article's sentences stay together in one part anyway.
            yield tuple(result.sentences)


class LabelSentences(beam.PTransform):
    """(articles, resolved targets) -> kept labelled sentences (a tuple per article, in order),
    per-article counts, rejects."""

    def __init__(
        self, lang: str, text_backend: str = "builtin", config: LabelConfig | None = None, progress_interval: float = 30.0
    ) -> None:
        super().__init__()
        self.lang = lang
        self.text_backend = text_backend
        self.config = config or LabelConfig()
        self.progress_interval = progress_interval

    def expand(self, inputs):
        keyed = inputs["articles"] | "KeyArticles" >> beam.Map(lambda a: (article_key(a), a))
        result = (
            {"article": keyed, "targets": inputs["targets"]}
            | "JoinTargets" >> beam.CoGroupByKey()
            | "Label" >> beam.ParDo(
                _LabelArticle(self.lang, self.text_backend, self.config, self.progress_interval)
            ).with_outputs(
                REJECTS, "counts", main="sentences"
            )
        )
        return result.sentences, result.counts, result[REJECTS]


# -- Step 5: write ------------------------------------------------------------------------------


def shard_of(page_id: int, shards: int) -> int:
    """Stable shard of a page (crc32, not hash(): the same on every worker and every run)."""
    return zlib.crc32(str(page_id).encode()) % shards


def part_name(shard: int, shards: int) -> str:
    return f"part-{shard:05d}-of-{shards:05d}"


class _WritePart(beam.DoFn):
    def __init__(self, staging: str, shards: int, progress_interval: float = 30.0) -> None:
        self.staging = staging
        self.shards = shards
        self.progress_interval = progress_interval

    def process(self, element) -> Iterator[int]:
        shard, articles = element
        ordered = sorted((s for sentences in articles for s in sentences), key=formats.sentence_sort_key)
        name = part_name(shard, self.shards)
        root = Path(self.staging)
        written = formats.write_part(ordered, root / "tsv" / f"{name}.tsv", root / "parquet" / f"{name}.parquet")
        counter("sentences_written").inc(written)
        if self.progress_interval > 0:
            progress_log.info("write: %s (%s sentences)", name, f"{written:,}")
        yield written


class WriteCorpus(beam.PTransform):
    """Sentences (a tuple per article) -> tsv/part-*.tsv and parquet/part-*.parquet in staging.

    Sentences are sharded by page id, so a part holds whole articles and the split is the same on
    every runner; within a part they are sorted by (page id, sentence index).
    """

    def __init__(self, staging: str, shards: int, progress_interval: float = 30.0) -> None:
        super().__init__()
        self.staging = staging
        self.shards = shards
        self.progress_interval = progress_interval

    def expand(self, articles):
        shards = self.shards
        return (
            articles
            | "KeyByShard" >> beam.Map(lambda sentences: (shard_of(sentences[0].page_id, shards), sentences))
            | "GroupShard" >> beam.GroupByKey()
            | "WritePart" >> beam.ParDo(_WritePart(self.staging, shards, self.progress_interval))
        )


class _WriteRejects(beam.DoFn):
    def __init__(self, staging: str) -> None:
        self.staging = staging

    def process(self, element) -> Iterator[int]:
        shard, rejects = element
        rows = sorted(
            (_reject_row(r) for r in rejects),
            key=lambda row: (row["source"], row["offset"] or -1, row["page_id"] or -1, row["reason"]),
        )
        path = Path(self.staging) / "rejects" / f"part-{shard:05d}.jsonl"
        with open(path, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        yield len(rows)


def _reject_row(reject: PageReject) -> dict:
    return {
        "source": reject.source, "reason": reject.reason, "detail": reject.detail,
        "page_id": reject.page_id, "title": reject.title, "offset": reject.offset,
        "snippet": reject.snippet,
    }


class WriteRejects(beam.PTransform):
    """Dead letters -> rejects/part-*.jsonl with page id, title, reason, detail and a snippet."""

    def __init__(self, staging: str, shards: int) -> None:
        super().__init__()
        self.staging = staging
        self.shards = shards

    def expand(self, rejects):
        shards = self.shards
        return (
            rejects
            | "KeyRejects" >> beam.Map(lambda r: (zlib.crc32(f"{r.source}:{r.page_id}:{r.offset}".encode()) % shards, r))
            | "GroupRejects" >> beam.GroupByKey()
            | "WriteRejectPart" >> beam.ParDo(_WriteRejects(self.staging))
        )


# -- Statistics ----------------------------------------------------------------------------------


class MergeCounts(beam.CombineFn):
    """Sums dicts of counts (the statistics travel as data, so every runner gets them)."""

    def create_accumulator(self) -> Counter:
        return Counter()

    def add_input(self, accumulator: Counter, element: Mapping[str, int]) -> Counter:
        accumulator.update(element)
        return accumulator

    def merge_accumulators(self, accumulators: Iterable[Counter]) -> Counter:
        merged = Counter()
        for accumulator in accumulators:
            merged.update(accumulator)
        return merged

    def extract_output(self, accumulator: Counter) -> dict:
        return dict(accumulator)


class CollectStats(beam.PTransform):
    """Every count of the run -> one JSON file of raw counts in the staging directory."""

    def __init__(self, staging: str) -> None:
        super().__init__()
        self.staging = staging

    def expand(self, inputs):
        pages_read = inputs["pages"] | "CountRead" >> beam.Map(lambda _: {"pages_read": 1})
        read_rejects = inputs["read_rejects"] | "CountReadRejects" >> beam.Map(
            lambda r: {"pages_read": 1 if r.page_id is not None or r.title is not None else 0,
                       f"pages_rejected.{r.reason}": 1 if r.page_id is not None or r.title is not None else 0,
                       f"stream_errors.{r.reason}": 1}
        )
        other_rejects = inputs["rejects"] | "CountRejects" >> beam.Map(
            lambda r: {} if r.reason == "label_error" else {f"pages_rejected.{r.reason}": 1}
        )
        skipped = inputs["skipped"] | "CountSkipped" >> beam.Map(lambda reason: {f"pages_skipped.{reason}": 1})
        staging = self.staging
        return (
            (pages_read, read_rejects, other_rejects, skipped, inputs["counts"])
            | "FlattenCounts" >> beam.Flatten()
            | "SumCounts" >> beam.CombineGlobally(MergeCounts())
            | "WriteCounts" >> beam.Map(lambda counts: formats.write_json_atomic(Path(staging) / "counts.json", counts))
        )


def now() -> float:
    return time.time()
