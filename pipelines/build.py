"""The main job, ``wikisilver build``: a Wikipedia dump in, a silver NER corpus out.

The job reads like the method::

    pages    = dumps | ReadPages()
    parsed   = pages | ExtractArticles()                      # step 2: parse, keep text + links
    infos    = evidence | TypeEntities()                       # step 1: titles -> classes -> tags
    targets  = (articles, redirects, infos) | ResolveTargets()  # join by key, no whole-dump dict
    labelled = (articles, targets) | LabelSentences()           # steps 3-4
    labelled | WriteCorpus()                                    # step 5

Outputs are written to a staging directory inside ``--out`` and moved into place when the
pipeline has finished; ``stats.json`` and then ``manifest.json`` are written last, so a run
killed half-way never leaves a corpus that looks complete.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import shutil
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from wikisilver import __version__
from wikisilver import dump as dumplib
from wikisilver.errors import InputError
from wikisilver.formats import write_json_atomic
from wikisilver.labels import RULES, LabelConfig, rules_fired
from wikisilver.pipelines.transforms import (
    CollectStats,
    ExtractArticles,
    LabelSentences,
    ReadPages,
    ResolveTargets,
    TypeEntities,
    WriteCorpus,
    WriteRejects,
    part_name,
)

log = logging.getLogger(__name__)
OUTPUT_DIRS = ("tsv", "parquet", "rejects")


@dataclass(frozen=True)
class BuildConfig:
    """Everything that decides the corpus (recorded in manifest.json)."""

    dumps: tuple[str, ...]
    lang: str
    out: str
    types: tuple[str, ...] = ()
    ontology: str | None = None
    entities: tuple[str, ...] = ()
    infobox_mappings: str | None = None
    shards: int = 4
    redirect_hops: int = 3
    max_page_chars: int = 2_000_000
    page_timeout: float = 20.0
    text_backend: str = "builtin"
    disabled_rules: tuple[str, ...] = ()
    drop_low_quality: bool = False
    overwrite: bool = False
    strict: bool = False
    beam_args: tuple[str, ...] = field(default=())


def check_inputs(config: BuildConfig) -> None:
    """Fail early with one clear line for a missing file or a bad option."""
    for path in (*config.dumps, *config.types, *config.entities, *(p for p in [config.ontology] if p)):
        if not os.path.isfile(path):
            raise InputError(path, "no such file")
    if config.infobox_mappings and not os.path.isdir(config.infobox_mappings):
        raise InputError(config.infobox_mappings, "not a directory of DBpedia mapping files")
    if not (config.types or config.entities or config.infobox_mappings):
        raise InputError(None, "no entity source: give --types, --entities or --infobox-mappings")
    unknown = sorted(set(config.disabled_rules) - set(RULES))
    if unknown:
        raise InputError(None, f"unknown rule(s) {', '.join(unknown)}; known: {', '.join(RULES)}")
    if config.shards < 1:
        raise InputError(None, "--shards must be at least 1")


def prepare_output(out: Path, overwrite: bool) -> None:
    """Refuse to overwrite a finished corpus unless told to; make sure the directory is writable."""
    if (out / "manifest.json").exists() and not overwrite:
        raise InputError(str(out), "holds a finished corpus (manifest.json); pass --overwrite to replace it")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{uuid.uuid4().hex}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise InputError(str(out), f"output directory is not writable ({error.strerror or error})") from None


def class_table(ontology_path: str | None):
    """The class hierarchy and its resolved class -> tag table (small: they travel with the code)."""
    from wikisilver import ontology as onto

    ontology = onto.load_ontology(ontology_path) if ontology_path else onto.load_builtin_ontology()
    return ontology, onto.resolve_classes(ontology)


def build_pipeline(pipeline: beam.Pipeline, config: BuildConfig, staging: str) -> None:
    ontology, table = class_table(config.ontology)
    pages, read_rejects = pipeline | "ReadPages" >> ReadPages(config.dumps)
    parsed = pages | "ExtractArticles" >> ExtractArticles(
        config.lang, config.max_page_chars, config.page_timeout, config.infobox_mappings
    )
    infos = parsed | "TypeEntities" >> TypeEntities(
        config.lang, ontology, table, types_files=config.types, entity_tables=config.entities
    )
    targets = {"articles": parsed["articles"], "redirects": parsed["redirects"], "infos": infos} | (
        "ResolveTargets" >> ResolveTargets(config.redirect_hops)
    )
    label_config = LabelConfig(
        disabled_rules=frozenset(config.disabled_rules), keep_low_quality=not config.drop_low_quality
    )
    sentences, counts, label_rejects = {"articles": parsed["articles"], "targets": targets} | (
        "LabelSentences" >> LabelSentences(config.lang, config.text_backend, label_config)
    )
    sentences | "WriteCorpus" >> WriteCorpus(staging, config.shards)
    rejects = (read_rejects, parsed["rejects"], label_rejects) | "AllRejects" >> beam.Flatten()
    rejects | "WriteRejects" >> WriteRejects(staging, config.shards)
    {
        "pages": pages, "read_rejects": read_rejects, "rejects": (parsed["rejects"], label_rejects)
        | "PageRejects" >> beam.Flatten(), "skipped": parsed["skipped"], "infos": infos, "counts": counts,
    } | "CollectStats" >> CollectStats(staging)


def make_stats(counts: Mapping[str, int]) -> dict:
    """The stats.json object from the raw counts of the run (see docs/output.md)."""

    def group(prefix: str) -> dict[str, int]:
        return {k[len(prefix):]: int(v) for k, v in sorted(counts.items()) if k.startswith(prefix) and v}

    tokens = int(counts.get("tokens_kept", 0))
    entity_tokens = int(counts.get("entity_tokens", 0))
    stats = {
        "pages_read": int(counts.get("pages_read", 0)),
        "pages_used": int(counts.get("pages_used", 0)),
        "pages_skipped": group("pages_skipped."),
        "pages_rejected": group("pages_rejected."),
        "stream_errors": group("stream_errors."),
        "sentences_total": int(counts.get("sentences_total", 0)),
        "sentences_kept": int(counts.get("sentences_kept", 0)),
        "sentences_dropped_unk": int(counts.get("sentences_dropped_unk", 0)),
        "sentences_low_quality": int(counts.get("sentences_low_quality", 0)),
        "sentences_dropped_low_quality": int(counts.get("sentences_dropped_low_quality", 0)),
        "tokens_kept": tokens,
        "entity_tokens": entity_tokens,
        "entities_by_tag": group("entities_by_tag."),
        "ne_density": round(entity_tokens / tokens, 6) if tokens else 0.0,
        "titles_typed_by_source": group("titles_typed_by."),
        "titles_by_tag": group("titles_by_tag."),
        "rules_fired": rules_fired(counts),
    }
    accounted = stats["pages_used"] + sum(stats["pages_skipped"].values()) + sum(stats["pages_rejected"].values())
    stats["pages_accounted"] = accounted == stats["pages_read"]
    return stats


def sha256_of(path: str, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def input_record(path: str) -> dict:
    return {"path": os.path.abspath(path), "bytes": os.path.getsize(path), "sha256": sha256_of(path)}


def dump_record(path: str) -> dict:
    record = input_record(path)
    try:
        site = dumplib.read_siteinfo(path)
        record.update(dbname=site.dbname, language=dumplib.dump_language(site), generator=site.generator)
    except Exception as error:  # the manifest reports what it could not read
        record["siteinfo_error"] = str(error)
    record["dump_date"] = dumplib.wiki_date_from_name(path)
    return record


def finalize(staging: Path, out: Path, config: BuildConfig) -> dict:
    """Move the staged outputs into place, fill missing empty parts, write stats then manifest."""
    from wikisilver.formats import write_part

    for shard in range(config.shards):
        name = part_name(shard, config.shards)
        tsv, parquet = staging / "tsv" / f"{name}.tsv", staging / "parquet" / f"{name}.parquet"
        if not tsv.exists():
            write_part([], tsv, parquet)
    import json

    counts = json.loads((staging / "counts.json").read_text(encoding="utf-8"))
    stats = make_stats(counts)
    for name in OUTPUT_DIRS:
        target = out / name
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging / name, target)
    write_json_atomic(out / "stats.json", stats)
    return stats


def run_build(config: BuildConfig) -> dict:
    """Run the build job; returns stats. Raises InputError for bad input before any work."""
    check_inputs(config)
    out = Path(config.out).resolve()
    prepare_output(out, config.overwrite)
    stale = out / "manifest.json"
    if stale.exists():
        stale.unlink()  # --overwrite: the old corpus stops looking complete right away
    started = dt.datetime.now(dt.timezone.utc)
    staging = out / f".staging-{uuid.uuid4().hex[:12]}"
    for name in OUTPUT_DIRS:
        (staging / name).mkdir(parents=True)
    options = PipelineOptions(list(config.beam_args))
    try:
        with beam.Pipeline(options=options) as pipeline:
            build_pipeline(pipeline, config, str(staging))
        stats = finalize(staging, out, config)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    manifest = {
        "tool": "wikisilver",
        "version": __version__,
        "language": config.lang,
        "dumps": [dump_record(p) for p in config.dumps],
        "inputs": {
            "types": [input_record(p) for p in config.types],
            "entities": [input_record(p) for p in config.entities],
            "ontology": input_record(config.ontology) if config.ontology else None,
            "infobox_mappings": os.path.abspath(config.infobox_mappings) if config.infobox_mappings else None,
        },
        "config": {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()},
        "outputs": {
            "tsv": sorted(p.name for p in (out / "tsv").iterdir()),
            "parquet": sorted(p.name for p in (out / "parquet").iterdir()),
        },
        "started": started.isoformat(),
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(),
    }
    write_json_atomic(out / "manifest.json", manifest)
    return stats
