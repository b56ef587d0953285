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
from wikisilver import formats, wikitext
from wikisilver.calendar import is_calendar_title
from wikisilver.labels import LabelConfig, Labeller
from wikisilver.ontology import ClassTag, Ontology, most_specific, tag_for_class
from wikisilver.records import Article, EntityType, LabelledSentence, Page, PageReject, TargetInfo
from wikisilver.titles import normalize_title

NAMESPACE = "wikisilver"
REJECTS = "rejects"
SKIPPED = "skipped"
log = logging.getLogger(__name__)


def counter(name: str):
    return Metrics.counter(NAMESPACE, name)


@dataclass(frozen=True)
class PageFlags:
    """What the dump itself says about a title: it exists, it is a disambiguation page."""

    title: str
    is_disambiguation: bool = False
    is_redirect: bool = False


# -- Step 2a: read the dump --------------------------------------------------------------------


class _ReadDumpPart(beam.DoFn):
    """Pages of one byte range of one dump file; unreadable pieces go to the rejects output."""

    def __init__(self) -> None:
        self.read = counter("pages_read")
        self.rejected = counter("pages_rejected")

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
                yield record


class ReadPages(beam.PTransform):
    """Dump files -> pages, parallel over files (and over multistream ranges), then reshuffled."""

    def __init__(self, dumps: Iterable[str], index_files: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.dumps = sorted(dumps)
        self.index_files = dict(index_files or {})

    def expand(self, pbegin):
        parts = []
        for path in self.dumps:
            for start, end in dumplib.stream_ranges(path, self.index_files.get(path)):
                parts.append((path, start, end))
        result = (
            pbegin
            | "DumpParts" >> beam.Create(parts)
            | "ReshuffleParts" >> beam.Reshuffle()
            | "ReadPart" >> beam.ParDo(_ReadDumpPart()).with_outputs(REJECTS, main="pages")
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

    def __init__(self, lang: str, max_chars: int, max_seconds: float, infobox_dir: str | None) -> None:
        self.lang = lang
        self.max_chars = max_chars
        self.max_seconds = max_seconds
        self.infobox_dir = infobox_dir
        self.infoboxes = None

    def setup(self) -> None:
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
        yield Article(page.page_id, title, clean.text, clean.links)


def _reject(page: Page, reason: str, detail: str) -> PageReject:
    return PageReject(
        source=page.source, reason=reason, detail=detail[:500], page_id=page.page_id,
        title=page.title, offset=page.offset, snippet=page.text[:200],
    )


class ExtractArticles(beam.PTransform):
    """Pages -> (articles, redirects, page flags, infobox types, skipped reasons, rejects)."""

    def __init__(self, lang: str, max_chars: int, max_seconds: float, infobox_dir: str | None) -> None:
        super().__init__()
        self.lang = lang
        self.max_chars = max_chars
        self.max_seconds = max_seconds
        self.infobox_dir = infobox_dir

    def expand(self, pages):
        routed = pages | "Route" >> beam.ParDo(_RoutePage(self.lang)).with_outputs(
            SKIPPED, "redirects", "flags", main="articles"
        )
        cleaned = routed.articles | "Clean" >> beam.ParDo(
            _CleanArticle(self.lang, self.max_chars, self.max_seconds, self.infobox_dir)
        ).with_outputs(REJECTS, SKIPPED, "infobox_types", main="articles")
        skipped = (routed[SKIPPED], cleaned[SKIPPED]) | "AllSkipped" >> beam.Flatten()
        return {
            "articles": cleaned.articles,
            "redirects": routed.redirects,
            "flags": routed.flags,
            "infobox_types": cleaned.infobox_types,
            "skipped": skipped,
            "rejects": cleaned[REJECTS],
        }


# -- Step 1: type entities -----------------------------------------------------------------------


class _ChooseType(beam.DoFn):
    """All evidence on one title -> one TargetInfo, by the documented precedence of sources.

    Precedence: an --entities table (explicit user decision) > DBpedia instance types >
    infobox mappings. Several DBpedia classes of one title resolve to the most specific one;
    classes on different branches count as a conflict (the first in a stable order wins).
    """

    PRECEDENCE = ("entities", "types", "infobox")

    def __init__(self, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag]) -> None:
        self.lang = lang
        self.ontology = ontology
        self.class_table = dict(class_table)

    def _entity(self, cls: str, source: str) -> EntityType:
        tag = tag_for_class(cls, self.class_table)
        return EntityType(title="", dbpedia_class=cls, conll=tag.conll, fine=tag.fine, source=source)

    def process(self, element) -> Iterator[tuple[str, TargetInfo]]:
        title, groups = element
        flags = list(groups.get("flags", ()))
        aliases = set(groups.get("aliases", ()))
        candidates: dict[str, EntityType] = {}
        for kind, value in sorted(groups.get("entities", ()), key=lambda kv: (kv[0], str(kv[1]))):
            if kind == "alias":
                aliases.add(value)
            else:
                candidates.setdefault("entities", value)
        aliases = sorted(aliases)
        for source in ("types", "infobox"):
            classes = list(groups.get(source, ()))
            if classes:
                best, conflict = most_specific(classes, self.ontology)
                if conflict:
                    counter(f"typing_conflicts_within_{source}").inc()
                if best is not None:
                    candidates[source] = self._entity(best, source)
        entity = None
        for source in self.PRECEDENCE:
            if source in candidates:
                entity = candidates[source]
                break
        if len({c.conll for c in candidates.values()}) > 1:
            counter("typing_conflicts_between_sources").inc()
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
        yield title, info


class TypeEntities(beam.PTransform):
    """Entity evidence keyed by title -> (title, TargetInfo) for every title any source knows."""

    def __init__(
        self, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag],
        types_files: Iterable[str] = (), entity_tables: Iterable[str] = (),
    ) -> None:
        super().__init__()
        self.lang = lang
        self.ontology = ontology
        self.class_table = class_table
        self.types_files = sorted(types_files)
        self.entity_tables = sorted(entity_tables)

    def expand(self, inputs):
        pipeline = inputs["flags"].pipeline
        evidence = {
            "flags": inputs["flags"],
            "infobox": inputs["infobox_types"],
            "aliases": inputs["redirects"] | "AliasOfTarget" >> beam.Map(lambda st: (st[1], st[0])),
        }
        if self.types_files:
            evidence["types"] = (
                pipeline
                | "TypesFiles" >> beam.Create(self.types_files)
                | "ReadTypes" >> beam.FlatMap(_read_types)
                | "ReshuffleTypes" >> beam.Reshuffle()
            )
        if self.entity_tables:
            evidence["entities"] = (
                pipeline
                | "EntityTables" >> beam.Create(self.entity_tables)
                | "ReadEntityTable" >> beam.FlatMap(_read_entity_table)
            )
        choose = _ChooseType(self.lang, self.ontology, self.class_table)
        return evidence | "GroupEvidence" >> beam.CoGroupByKey() | "ChooseType" >> beam.ParDo(choose)


def _read_types(path: str) -> Iterator[tuple[str, str]]:
    from wikisilver.sources import iter_instance_types

    read = counter("type_triples_read")
    for title, cls in iter_instance_types(path):
        read.inc()
        yield title, cls


def _read_entity_table(path: str) -> Iterator[tuple[str, tuple[str, object]]]:
    """Rows of an earlier run's entity table: the entity and its aliases, keyed by title."""
    from wikisilver.sources import read_entity_table

    for row in read_entity_table(path):
        yield row.title, ("entity", EntityType(row.title, row.dbpedia_class or None, row.conll, row.fine, "entities"))
        for alias in row.aliases:
            yield row.title, ("alias", alias)


# -- Step 3 inputs: resolve each article's link targets ------------------------------------------


OWN = "\x00own"  # marks the request for an article's own title


def _requests(article: Article) -> Iterator[tuple[str, tuple[int, str]]]:
    yield article.title, (article.page_id, OWN)
    for target in sorted({link.target for link in article.links if link.target}):
        yield target, (article.page_id, target)


def _extend_chain(element) -> Iterator[tuple[str, tuple[str, str]]]:
    """One hop along redirect chains: (source -> t) and (t -> u) give (source -> u)."""
    key, groups = element
    following = sorted(set(groups["next"]))
    for source in groups["chain"]:
        target = following[0] if following and following[0] != source else key
        yield target, (source, target)


def _follow_redirect(element) -> Iterator[tuple[str, tuple[int, str]]]:
    key, groups = element
    targets = sorted(set(groups["redirect"]))
    resolved = targets[0] if targets else key
    for request in groups["request"]:
        yield resolved, request


def _attach_info(element) -> Iterator[tuple[int, tuple[str, TargetInfo | None]]]:
    key, groups = element
    infos = list(groups["info"])
    info = infos[0] if infos else None
    for page_id, original in groups["request"]:
        yield page_id, (original, info)


class ResolveTargets(beam.PTransform):
    """Articles -> (page_id, (link target as written, TargetInfo after redirects)) by key joins.

    The redirect table is resolved first (``hops`` rounds of a self-join, so chains of up to
    ``hops + 1`` redirects end on their final target; loops and longer chains end on a redirect
    title, which is not an entity, so such links are UNK); then each article's distinct targets
    are joined once with it and once with the entity table.
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
        requests = inputs["articles"] | "Requests" >> beam.FlatMap(_requests)
        requests = (
            {"request": requests, "redirect": resolved}
            | "JoinRedirects" >> beam.CoGroupByKey()
            | "FollowRedirects" >> beam.FlatMap(_follow_redirect)
        )
        return (
            {"request": requests, "info": inputs["infos"]}
            | "JoinInfo" >> beam.CoGroupByKey()
            | "AttachInfo" >> beam.FlatMap(_attach_info)
        )


# -- Steps 3 and 4: label ------------------------------------------------------------------------


class _LabelArticle(beam.DoFn):
    def __init__(self, lang: str, text_backend: str, config: LabelConfig) -> None:
        self.lang = lang
        self.text_backend = text_backend
        self.config = config
        self.labeller = None

    def setup(self) -> None:
        from wikisilver.text import get_processor

        self.labeller = Labeller(self.lang, get_processor(self.lang, self.text_backend), self.config)

    def process(self, element) -> Iterator:
        page_id, groups = element
        articles = sorted(groups["article"], key=lambda a: (a.title, len(a.text)))
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
                           detail=f"page id {page_id} also used by {articles[0].title!r}"),
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
        yield beam.pvalue.TaggedOutput("counts", dict(result.counts))
        yield from result.sentences


class LabelSentences(beam.PTransform):
    """(articles, resolved targets) -> kept labelled sentences, per-article counts, rejects."""

    def __init__(self, lang: str, text_backend: str = "builtin", config: LabelConfig | None = None) -> None:
        super().__init__()
        self.lang = lang
        self.text_backend = text_backend
        self.config = config or LabelConfig()

    def expand(self, inputs):
        keyed = inputs["articles"] | "KeyArticles" >> beam.Map(lambda a: (a.page_id, a))
        result = (
            {"article": keyed, "targets": inputs["targets"]}
            | "JoinTargets" >> beam.CoGroupByKey()
            | "Label" >> beam.ParDo(_LabelArticle(self.lang, self.text_backend, self.config)).with_outputs(
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
    def __init__(self, staging: str, shards: int) -> None:
        self.staging = staging
        self.shards = shards

    def process(self, element) -> Iterator[int]:
        shard, sentences = element
        ordered = sorted(sentences, key=formats.sentence_sort_key)
        name = part_name(shard, self.shards)
        root = Path(self.staging)
        written = formats.write_part(ordered, root / "tsv" / f"{name}.tsv", root / "parquet" / f"{name}.parquet")
        counter("sentences_written").inc(written)
        yield written


class WriteCorpus(beam.PTransform):
    """Sentences -> tsv/part-*.tsv and parquet/part-*.parquet in the staging directory.

    Sentences are sharded by page id, so a part holds whole articles and the split is the same on
    every runner; within a part they are sorted by (page id, sentence index).
    """

    def __init__(self, staging: str, shards: int) -> None:
        super().__init__()
        self.staging = staging
        self.shards = shards

    def expand(self, sentences):
        shards = self.shards
        return (
            sentences
            | "KeyByShard" >> beam.Map(lambda s: (shard_of(s.page_id, shards), s))
            | "GroupShard" >> beam.GroupByKey()
            | "WritePart" >> beam.ParDo(_WritePart(self.staging, shards))
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
        typed = inputs["infos"] | "CountTyped" >> beam.Map(_typing_counts)
        staging = self.staging
        return (
            (pages_read, read_rejects, other_rejects, skipped, typed, inputs["counts"])
            | "FlattenCounts" >> beam.Flatten()
            | "SumCounts" >> beam.CombineGlobally(MergeCounts())
            | "WriteCounts" >> beam.Map(lambda counts: formats.write_json_atomic(Path(staging) / "counts.json", counts))
        )


def _typing_counts(element) -> dict:
    _, info = element
    if info.entity is None:
        return {}
    return {f"titles_typed_by.{info.entity.source}": 1, f"titles_by_tag.{info.entity.conll}": 1}


def now() -> float:
    return time.time()
