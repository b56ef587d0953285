"""Step 1 of the method: every title's evidence, grouped by key, decides what is known of it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import apache_beam as beam

from wikisilver.entities.calendar import is_calendar_title
from wikisilver.ontology import ClassTag, Ontology, most_specific, tag_for_class
from wikisilver.pipelines.common import counter
from wikisilver.pipelines.evidence import TitleFilterFn, _carry_types, _read_entity_table, _read_types
from wikisilver.pipelines.redirects import OWN
from wikisilver.records import EntityType, TargetInfo

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
