"""The ``wikisilver entities`` job: step 1 alone, the resolved entity table of a dump.

Writes ``entities/part-*.tsv`` or ``.parquet`` (title, dbpedia_class, conll, fine, source, aliases) so that
later builds can reuse it with ``--entities DIR``, skipping the DBpedia inputs; and, as a build
does, the pages it could not read or parse in ``rejects/`` and what became of every page in
``stats.json`` (``wikisilver.stats.page_stats``: read = used + skipped + rejected).
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterator
import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from wikisilver import paths
from wikisilver.config import EntitiesConfig
from wikisilver.entities.table import entity_row, write_entity_table
from wikisilver.pipelines.common import pcollections
from wikisilver.pipelines.evidence import GatherEvidence
from wikisilver.pipelines.extract import ExtractArticles
from wikisilver.pipelines.read import ReadPages
from wikisilver.pipelines.run import run_pipeline
from wikisilver.lock import output_lock
from wikisilver.manifest import config_record
from wikisilver.ontology import class_table
from wikisilver.ownership import ENTITY_TABLE, commit, place, prepare_output, staged
from wikisilver.pipelines.stats import WriteCounts, read_counts
from wikisilver.pipelines.write import WriteRejects
from wikisilver.corpus.write import write_json_atomic
from wikisilver.engines import one_local_worker
from wikisilver.stats import page_stats
from wikisilver.pipelines.typing import TypeEveryTitle
from wikisilver.pipelines.wiki_evidence import ReadWikiEvidence


class _WriteEntityPart(beam.DoFn):
    """(shard, typed titles) -> one part of the table, sorted by title; counts by source and tag."""

    def __init__(self, staging: str, shards: int, suffix: str) -> None:
        self.staging = staging
        self.shards = shards
        self.suffix = suffix

    def process(self, element) -> Iterator[dict]:
        shard, infos = element
        rows = sorted((entity_row(info) for info in infos), key=lambda row: row.title)
        write_entity_table(rows, paths.join(self.staging, f"part-{shard:05d}-of-{self.shards:05d}{self.suffix}"))
        yield dict(Counter([f"source.{row.source}" for row in rows] + [f"tag.{row.conll}" for row in rows]))


def run_entities(config: EntitiesConfig) -> dict:
    """Run the typing stage over the dump(s) and entity sources; returns its stats.json: what became
    of the pages (``wikisilver.stats.page_stats``), the titles by source and tag."""
    out = paths.absolute(config.out)
    classes = class_table(config.ontology)  # before the output is touched: a bad ontology fails here
    with output_lock(out):
        return _run_entities(config, out, classes)


def _run_entities(config: EntitiesConfig, out: str, classes) -> dict:
    ontology, table = classes
    output = prepare_output(out, config.overwrite, layout=ENTITY_TABLE)
    shards, suffix = config.shards, f".{config.table_format}"
    with staged(out, ENTITY_TABLE.dirs) as staging:
        parts = paths.join(staging, "entities")

        def construct(pipeline: beam.Pipeline) -> None:
            read = pipeline | "ReadPages" >> ReadPages(config.dumps, spread=not one_local_worker(config.beam_args))
            parsed = read.pages | "ExtractArticles" >> ExtractArticles(
                config.lang, config.max_page_chars, config.page_timeout, config.infobox_mappings
            )
            wiki = pcollections(parsed) | "WikiEvidence" >> ReadWikiEvidence(config)
            evidence = pcollections(wiki) | "GatherEvidence" >> GatherEvidence(config)
            table_counts = (
                evidence.inputs()
                | "TypeEntities" >> TypeEveryTitle(config.lang, ontology, table)
                | "Typed" >> beam.Filter(lambda kv: kv[1].entity is not None)
                | "KeyByShard" >> beam.Map(lambda kv: (zlib.crc32(kv[0].encode()) % shards, kv[1]))
                | "Group" >> beam.GroupByKey()
                | "Write" >> beam.ParDo(_WriteEntityPart(parts, shards, suffix))
            )
            # The articles are what this job uses its pages for (their flags and infoboxes).
            used = parsed.articles | "PagesUsed" >> beam.Map(lambda _article: {"pages_used": 1})
            rejects = (read.rejects, parsed.rejects) | "AllRejects" >> beam.Flatten()
            rejects | "WriteRejects" >> WriteRejects(staging, shards)
            counted = [read.counts, parsed.counts, used, table_counts]
            if evidence.counts is not None:  # what reading the SQL tables and types files skipped
                counted.append(evidence.counts)
            tuple(counted) | "AllCounts" >> beam.Flatten() | "WriteCounts" >> WriteCounts(staging)

        run_pipeline(PipelineOptions(list(config.beam_args)), construct, config.progress_interval)
        written = {paths.basename(path) for path in paths.listdir(parts)}  # one listing, not a lookup a part
        for shard in range(shards):
            part = paths.join(parts, f"part-{shard:05d}-of-{shards:05d}{suffix}")
            if paths.basename(part) not in written:
                write_entity_table([], part)
        counts = read_counts(staging)
        place(output, staging, ENTITY_TABLE.dirs)
    summary = {
        "titles_by_source": {k[7:]: v for k, v in sorted(counts.items()) if k.startswith("source.")},
        "titles_by_tag": {k[4:]: v for k, v in sorted(counts.items()) if k.startswith("tag.")},
    }
    stats = {**page_stats(counts), **summary,
             "input_problems": {k[15:]: v for k, v in sorted(counts.items()) if k.startswith("input_problems.") and v}}
    write_json_atomic(paths.join(out, "stats.json"), stats)
    commit(output, {"tool": "wikisilver entities", "config": config_record(config), **summary})
    return stats
