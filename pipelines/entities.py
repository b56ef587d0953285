"""The ``wikisilver entities`` job: step 1 alone, the resolved entity table of a dump.

Writes ``entities/part-*.tsv`` or ``.parquet`` (title, dbpedia_class, conll, fine, source, aliases) so that
later builds can reuse it with ``--entities DIR``, skipping the DBpedia inputs.
"""

from __future__ import annotations

import shutil
import uuid
import zlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from wikisilver.config import BuildConfig, check_inputs
from wikisilver.entities.table import entity_row, write_entity_table
from wikisilver.corpus.write import write_json_atomic
from wikisilver.pipelines.evidence import GatherEvidence, ReadWikiEvidence
from wikisilver.pipelines.extract import ExtractArticles
from wikisilver.pipelines.read import ReadPages
from wikisilver.pipelines.runner import class_table, prepare_output, run_pipeline
from wikisilver.pipelines.typing import TypeEveryTitle


class _WriteEntityPart(beam.DoFn):
    """(shard, typed titles) -> one part of the table, sorted by title; counts by source and tag."""

    def __init__(self, staging: str, shards: int, suffix: str) -> None:
        self.staging = staging
        self.shards = shards
        self.suffix = suffix

    def process(self, element) -> Iterator[dict]:
        shard, infos = element
        rows = sorted((entity_row(info) for info in infos), key=lambda row: row.title)
        write_entity_table(rows, str(Path(self.staging) / f"part-{shard:05d}-of-{self.shards:05d}{self.suffix}"))
        yield dict(Counter([f"source.{row.source}" for row in rows] + [f"tag.{row.conll}" for row in rows]))


def run_entities(config: BuildConfig, table_format: str = "tsv") -> dict:
    """Run the typing stage over the dump(s) and entity sources; returns counts by source and tag."""
    check_inputs(config)
    out = Path(config.out).resolve()
    prepare_output(out, config.overwrite)
    staging = out / f".staging-{uuid.uuid4().hex[:12]}"
    staging.mkdir(parents=True)
    ontology, table = class_table(config.ontology)
    shards = config.shards
    suffix = f".{table_format}"
    try:
        def construct(pipeline: beam.Pipeline) -> None:
            pages, _ = pipeline | "ReadPages" >> ReadPages(config.dumps)
            parsed = pages | "ExtractArticles" >> ExtractArticles(
                config.lang, config.max_page_chars, config.page_timeout, config.infobox_mappings
            )
            wiki = parsed | "WikiEvidence" >> ReadWikiEvidence(config)
            evidence = wiki | "GatherEvidence" >> GatherEvidence(config)
            infos = evidence | "TypeEntities" >> TypeEveryTitle(config.lang, ontology, table)
            (
                infos
                | "Typed" >> beam.Filter(lambda kv: kv[1].entity is not None)
                | "KeyByShard" >> beam.Map(lambda kv: (zlib.crc32(kv[0].encode()) % shards, kv[1]))
                | "Group" >> beam.GroupByKey()
                | "Write" >> beam.ParDo(_WriteEntityPart(str(staging), shards, suffix))
                | "Sum" >> beam.CombineGlobally(_sum_counts)
                | "WriteCounts" >> beam.Map(lambda c: write_json_atomic(staging / "counts.json", c))
            )

        run_pipeline(PipelineOptions(list(config.beam_args)), construct)
        import json

        counts = json.loads((staging / "counts.json").read_text()) if (staging / "counts.json").exists() else {}
        target = out / "entities"
        if target.exists():
            shutil.rmtree(target)
        (staging / "counts.json").unlink(missing_ok=True)
        for shard in range(shards):
            part = staging / f"part-{shard:05d}-of-{shards:05d}{suffix}"
            if not part.exists():
                write_entity_table([], str(part))
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    summary = {
        "titles_by_source": {k[7:]: v for k, v in sorted(counts.items()) if k.startswith("source.")},
        "titles_by_tag": {k[4:]: v for k, v in sorted(counts.items()) if k.startswith("tag.")},
    }
    write_json_atomic(out / "manifest.json", {"tool": "wikisilver entities", "config": {
        k: list(v) if isinstance(v, tuple) else v for k, v in config.__dict__.items()}, **summary})
    return summary


def _sum_counts(dicts) -> dict:
    total: dict[str, int] = {}
    for counts in dicts:
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    return total
