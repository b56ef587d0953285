"""The main job, ``wikisilver build``: a Wikipedia dump in, a silver NER corpus out.

The job reads like the method::

    pages    = dumps | ReadPages()
    parsed   = pages | ExtractArticles()                      # step 2: parse, keep text + links
    requests = (articles, redirects) | ResolveRedirects()       # link targets, redirects followed
    targets  = (evidence, requests) | TypeEntities()            # step 1, joined by key: no whole-dump dict
    labelled = (articles, targets) | LabelSentences()           # steps 3-4
    labelled | WriteCorpus()                                    # step 5

Outputs are written to a staging directory inside ``--out`` and moved into place when the
pipeline has finished; ``stats.json`` and then ``manifest.json`` are written last, so a run
killed half-way never leaves a corpus that looks complete.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import shutil
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from wikisilver import __version__
from wikisilver import dump as dumplib
from wikisilver.errors import InputError, WikisilverError
from wikisilver.formats import write_json_atomic
from wikisilver.labels import RULES, LabelConfig, rules_fired
from wikisilver.pipelines.transforms import (
    NAMESPACE,
    CollectStats,
    ExtractArticles,
    LabelSentences,
    ReadPages,
    ResolveRedirects,
    SparqlTypes,
    SqlTables,
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
    multistream_index: tuple[str, ...] = ()  # index file of each --dump, in the same order
    types: tuple[str, ...] = ()
    ontology: str | None = None
    entities: tuple[str, ...] = ()
    infobox_mappings: str | None = None
    sparql: str | None = None
    types_lang: str | None = None  # language of the --types titles; default: --lang
    page_sql: tuple[str, ...] = ()
    redirect_sql: tuple[str, ...] = ()
    page_props_sql: tuple[str, ...] = ()
    langlinks_sql: tuple[str, ...] = ()
    sparql_batch_size: int = 200
    sparql_timeout: float = 30.0
    sparql_retries: int = 4
    shards: int = 4
    redirect_hops: int = 3
    max_page_chars: int = 2_000_000
    page_timeout: float = 20.0
    text_backend: str = "builtin"
    disabled_rules: tuple[str, ...] = ()
    drop_low_quality: bool = False
    overwrite: bool = False
    strict: bool = False
    progress_interval: float = 30.0  # seconds between progress lines per worker and stage; 0: none
    beam_args: tuple[str, ...] = field(default=())


SHARD_INPUT_BYTES = 16 << 20  # compressed dump bytes per output part, by default


def compressed_bytes(dumps: tuple[str, ...]) -> int:
    """Size of the dump files as given (compressed), the measure the defaults below scale with."""
    return sum(os.path.getsize(path) for path in dumps if os.path.isfile(path))


def auto_shards(dumps: tuple[str, ...]) -> int:
    """Default number of parts: one per 16 MiB of compressed dump, at least 4.

    A part is written by one worker that sorts its sentences in memory, so the part count grows
    with the input: a full English dump (~22 GB of bz2) gives ~1,300 parts, each sorted from a few
    hundred MB of records in memory (safe on workers with 4 GB per core).
    """
    return max(4, -(-compressed_bytes(dumps) // SHARD_INPUT_BYTES))


FILTER_INPUT_BYTES = 1000  # compressed dump bytes per title the type filter is sized for


def title_filter_capacity(dumps: tuple[str, ...]) -> int:
    """Titles the Bloom filter of requested titles is sized for: one per kB of compressed dump.

    A full English dump (~22 GB of bz2, ~10 M distinct link targets) gives 22 M titles, a 26 MB
    filter with fewer than 1 % false positives; a small wiki gets the minimum of 100 000
    (120 kB). Over capacity the filter only lets more unrequested type lines through.
    """
    return max(100_000, compressed_bytes(dumps) // FILTER_INPUT_BYTES)


def check_inputs(config: BuildConfig) -> None:
    """Fail early with one clear line for a missing file or a bad option."""
    if config.multistream_index and len(config.multistream_index) != len(config.dumps):
        raise InputError(None, "give one --multistream-index per --dump, in the same order")
    sql = (*config.multistream_index, *config.page_sql, *config.redirect_sql, *config.page_props_sql, *config.langlinks_sql)
    for path in (*config.dumps, *config.types, *config.entities, *sql, *(p for p in [config.ontology] if p)):
        if not os.path.isfile(path):
            raise InputError(path, "no such file")
    if config.infobox_mappings and not os.path.isdir(config.infobox_mappings):
        raise InputError(config.infobox_mappings, "not a directory of DBpedia mapping files")
    if not (config.types or config.entities or config.infobox_mappings or config.sparql):
        raise InputError(None, "no entity source: give --types, --entities, --infobox-mappings or --sparql")
    if config.sparql:
        from wikisilver.sparql import check_endpoint

        check_endpoint(sparql_config(config))
    unknown = sorted(set(config.disabled_rules) - set(RULES))
    if unknown:
        raise InputError(None, f"unknown rule(s) {', '.join(unknown)}; known: {', '.join(RULES)}")
    if types_lang(config) != config.lang and not config.langlinks_sql:
        raise InputError(None, f"--types-lang {types_lang(config)} differs from --lang {config.lang}: "
                               "give --langlinks-sql to carry the types across languages")
    if config.shards < 1:
        raise InputError(None, "--shards must be at least 1")


def multistream_indexes(config: BuildConfig) -> dict[str, str]:
    """Each multistream dump's index (given with --multistream-index, or found beside the dump).

    With an index, one dump file is read as many independently decompressed byte ranges, so a
    huge dump part is spread over workers instead of being read by one.
    """
    indexes = dict(zip(config.dumps, config.multistream_index)) if config.multistream_index else {}
    for dump in config.dumps:
        name = os.path.basename(dump)
        if dump in indexes or "multistream" not in name or not name.endswith(".bz2"):
            continue
        guess = os.path.join(os.path.dirname(dump), name.replace(".xml.bz2", "-index.txt.bz2"))
        if guess != dump and os.path.isfile(guess):
            indexes[dump] = guess
    return indexes


def types_lang(config: BuildConfig) -> str:
    return config.types_lang or config.lang


def sparql_config(config: BuildConfig):
    from wikisilver.sparql import SparqlConfig

    return SparqlConfig(
        endpoint=config.sparql, batch_size=config.sparql_batch_size, timeout=config.sparql_timeout,
        retries=config.sparql_retries,
    )


def prepare_output(out: Path, overwrite: bool) -> None:
    """Refuse to overwrite a finished corpus unless told to; make sure the directory is writable."""
    if (out / "manifest.json").exists() and not overwrite:
        raise InputError(str(out), "holds a finished corpus of other inputs or options (manifest.json); "
                                   "pass --overwrite to replace it")
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


def build_pipeline(pipeline: beam.Pipeline, config: BuildConfig, staging: str, classes) -> None:
    """The build job; ``classes``: :func:`class_table` of ``config.ontology``, loaded by the caller."""
    ontology, table = classes
    progress = config.progress_interval
    pages, read_rejects = pipeline | "ReadPages" >> ReadPages(config.dumps, multistream_indexes(config), progress)
    parsed = pages | "ExtractArticles" >> ExtractArticles(
        config.lang, config.max_page_chars, config.page_timeout, config.infobox_mappings, progress
    )
    evidence = dict(parsed)
    redirects = parsed["redirects"]
    if config.redirect_sql or config.page_props_sql or config.langlinks_sql:
        sql = parsed["page_titles"] | "SqlTables" >> SqlTables(
            config.page_sql, config.redirect_sql, config.page_props_sql, config.langlinks_sql, types_lang(config)
        )
        if "redirect" in sql:
            evidence["extra_redirects"] = sql["redirect"]
            redirects = (
                (parsed["redirects"], sql["redirect"]) | "AllRedirects" >> beam.Flatten() | "UniqueRedirects" >> beam.Distinct()
            )
        if "page_props" in sql:
            evidence["extra_flags"] = sql["page_props"]
        if "langlinks" in sql:
            evidence["langlinks"] = sql["langlinks"]
    requests = {"articles": parsed["articles"], "redirects": redirects} | (
        "ResolveRedirects" >> ResolveRedirects(config.redirect_hops)
    )
    if config.sparql:
        evidence["sparql"] = requests | "SparqlTypes" >> SparqlTypes(sparql_config(config))
    evidence["request"] = requests
    targets, typing_counts = evidence | "TypeEntities" >> TypeEntities(
        config.lang, ontology, table, types_files=config.types, entity_tables=config.entities,
        types_direct=types_lang(config) == config.lang, filter_capacity=title_filter_capacity(config.dumps),
    )
    label_config = LabelConfig(
        disabled_rules=frozenset(config.disabled_rules), keep_low_quality=not config.drop_low_quality
    )
    sentences, counts, label_rejects = {"articles": parsed["articles"], "targets": targets} | (
        "LabelSentences" >> LabelSentences(config.lang, config.text_backend, label_config, progress)
    )
    sentences | "WriteCorpus" >> WriteCorpus(staging, config.shards, progress)
    rejects = (read_rejects, parsed["rejects"], label_rejects) | "AllRejects" >> beam.Flatten()
    rejects | "WriteRejects" >> WriteRejects(staging, config.shards)
    {
        "pages": pages, "read_rejects": read_rejects, "rejects": (parsed["rejects"], label_rejects)
        | "PageRejects" >> beam.Flatten(), "skipped": parsed["skipped"],
        "counts": (counts, typing_counts) | "AllCounts" >> beam.Flatten(),
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
        "typing_conflicts": group("typing_conflicts."),
        "rules_fired": rules_fired(counts),
    }
    accounted = stats["pages_used"] + sum(stats["pages_skipped"].values()) + sum(stats["pages_rejected"].values())
    stats["pages_accounted"] = accounted == stats["pages_read"]
    return stats


def sha256_of(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def input_record(path: str, sha256: str = "") -> dict:
    """Path, size and SHA-256 of an input file (``sha256``: already known, so not read again)."""
    return {"path": os.path.abspath(path), "bytes": os.path.getsize(path), "sha256": sha256 or sha256_of(path)}


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
    counts = json.loads((staging / "counts.json").read_text(encoding="utf-8"))
    stats = make_stats(counts)
    for name in OUTPUT_DIRS:
        target = out / name
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging / name, target)
    write_json_atomic(out / "stats.json", stats)
    return stats


class PipelineFailed(WikisilverError):
    """The Beam job failed: the one line that says why (the worker traceback is in the log)."""


FOLLOWED_COUNTERS = ("pages_read", "articles_cleaned", "sentences_kept", "sentences_written", "pages_rejected")


def log_job_progress(result, previous: Mapping[str, int], since: float) -> tuple[dict[str, int], float]:
    """One look at a running job's counters: log them with their rates since the last look."""
    from apache_beam.metrics.metric import MetricsFilter

    found = result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["counters"]
    now = time.monotonic()
    values = {c.key.metric.name: int(c.committed or c.attempted or 0) for c in found}
    parts = []
    for name in FOLLOWED_COUNTERS:
        if name in values:
            rate = (values[name] - previous.get(name, 0)) / max(now - since, 1e-9)
            parts.append(f"{name} {values[name]:,} ({rate:.1f}/s)")
    if parts:
        log.info("progress: %s", ", ".join(parts))
    return values, now


class JobFollower(threading.Thread):
    """Logs a remote job's counters every ``interval`` seconds until stopped (Dataflow, Flink, Spark
    through the job service). It only reads ``result.metrics()``: waiting for the job stays with the
    caller's single ``wait_until_finish()``, so the runner's own streams are never read twice."""

    def __init__(self, result, interval: float) -> None:
        super().__init__(name="wikisilver-progress", daemon=True)
        self.result = result
        self.interval = interval
        self.stopped = threading.Event()

    def run(self) -> None:
        previous: dict[str, int] = {}
        since = time.monotonic()
        while not self.stopped.wait(self.interval):
            try:
                previous, since = log_job_progress(self.result, previous, since)
            except Exception as error:  # noqa: BLE001 - progress is best effort, never fails a run
                log.debug("cannot read the job's counters: %s", error)

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)


def run_pipeline(options: PipelineOptions, construct, progress_interval: float = 30.0) -> None:
    """Construct and run a pipeline; a failure becomes one line naming the cause.

    Runners wrap a worker's exception in their own (with its traceback as text); the message of the
    innermost error is what the user needs, so that is what is raised.
    """
    from apache_beam.runners.runner import PipelineState

    options = local_runner_without_downloads(options)
    try:
        pipeline = beam.Pipeline(options=options)
        construct(pipeline)
        result = pipeline.run()  # the local runner returns finished; a remote one, running
        follower = None
        # (not is_terminal(): Beam's job service reports a job STOPPED before it starts it)
        finished = (PipelineState.DONE, PipelineState.FAILED, PipelineState.CANCELLED, PipelineState.DRAINED)
        if progress_interval > 0 and result.state not in finished:
            follower = JobFollower(result, progress_interval)
            follower.start()
        try:
            state = result.wait_until_finish()
        finally:
            if follower is not None:
                follower.stop()
        if state is not None and state not in (PipelineState.DONE, PipelineState.UNKNOWN):
            raise PipelineFailed(f"the pipeline ended in state {state}")
    except WikisilverError:
        raise
    except Exception as error:  # noqa: BLE001 - every runner failure ends here, reported in one line
        log.debug("pipeline failed", exc_info=True)
        raise PipelineFailed(f"the pipeline failed: {_root_cause(error)}") from None


def local_runner_without_downloads(options: PipelineOptions) -> PipelineOptions:
    """Run the DirectRunner as its FnApiRunner engine.

    Beam's DirectRunner first tries the Prism runner, which downloads a binary from GitHub at run
    time (and, offline, fails and falls back to the FnApiRunner after a delay). wikisilver never
    downloads at run time, so the default and ``--runner DirectRunner`` go straight to the
    FnApiRunner, which honours ``--direct_running_mode`` and ``--direct_num_workers``. Every other
    runner (Dataflow, Flink, Spark, Portable, Prism if asked for by name) is used as given.
    """
    from apache_beam.options.pipeline_options import StandardOptions

    standard = options.view_as(StandardOptions)
    if standard.runner in (None, "DirectRunner", "SwitchingDirectRunner"):
        standard.runner = "FnApiRunner"
    return options


def _root_cause(error: BaseException) -> str:
    text = str(error).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error:" in line or "Exception:" in line:
            return line[:500]
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__
    return f"{type(error).__name__}: {str(error).strip().splitlines()[-1] if str(error).strip() else ''}"[:500]


class AlreadyBuilt(Exception):
    """--out holds a finished corpus of the same inputs and configuration: nothing to do."""

    def __init__(self, stats: dict) -> None:
        super().__init__("already built")
        self.stats = stats


def _comparable(config: BuildConfig) -> dict:
    data = asdict(config)
    for volatile in ("overwrite", "beam_args", "strict", "progress_interval"):
        data.pop(volatile, None)
    data["dumps"] = [[os.path.abspath(p), os.path.getsize(p)] for p in config.dumps]
    for key in ("types", "entities", "page_sql", "redirect_sql", "page_props_sql", "langlinks_sql", "multistream_index"):
        data[key] = [os.path.abspath(p) for p in data[key]]
    data["out"] = os.path.abspath(config.out)
    return json.loads(json.dumps(data))


def finished_same_build(out: Path, config: BuildConfig) -> dict | None:
    """The stats of a finished corpus in ``out`` built from the same inputs and options, if any."""
    manifest_path, stats_path = out / "manifest.json", out / "stats.json"
    if not (manifest_path.exists() and stats_path.exists()):
        return None
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        same = manifest.get("comparable") == _comparable(config)
        return json.loads(stats_path.read_text(encoding="utf-8")) if same else None
    except (OSError, ValueError):
        return None


def run_build(config: BuildConfig) -> dict:
    """Run the build job; returns stats. Raises InputError for bad input before any work.

    A scheduled rerun over a finished corpus of the same inputs and options raises
    :class:`AlreadyBuilt` (nothing to do); a finished corpus of other inputs is never overwritten
    without ``--overwrite``.
    """
    check_inputs(config)
    out = Path(config.out).resolve()
    if not config.overwrite:
        previous = finished_same_build(out, config)
        if previous is not None:
            raise AlreadyBuilt(previous)
    # Loaded before the output is touched (a bad ontology file fails here), and once: the job
    # gets it, and the manifest reuses the file's hash.
    classes = class_table(config.ontology)
    prepare_output(out, config.overwrite)
    stale = out / "manifest.json"
    if stale.exists():
        stale.unlink()  # --overwrite: the old corpus stops looking complete right away
    for stale_staging in out.glob(".staging-*"):
        # Left by a killed run (one run per output directory at a time is the contract).
        shutil.rmtree(stale_staging, ignore_errors=True)
    started = dt.datetime.now(dt.timezone.utc)
    staging = out / f".staging-{uuid.uuid4().hex[:12]}"
    for name in OUTPUT_DIRS:
        (staging / name).mkdir(parents=True)
    options = PipelineOptions(list(config.beam_args))
    try:
        run_pipeline(
            options, lambda pipeline: build_pipeline(pipeline, config, str(staging), classes), config.progress_interval
        )
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
            "ontology": input_record(config.ontology, classes[0].sha256) if config.ontology else None,
            "infobox_mappings": os.path.abspath(config.infobox_mappings) if config.infobox_mappings else None,
        },
        "config": {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()},
        "comparable": _comparable(config),
        "outputs": {
            "tsv": sorted(p.name for p in (out / "tsv").iterdir()),
            "parquet": sorted(p.name for p in (out / "parquet").iterdir()),
        },
        "started": started.isoformat(),
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(),
    }
    write_json_atomic(out / "manifest.json", manifest)
    return stats
