"""The main job, ``wikisilver build``: a Wikipedia dump in, a silver NER corpus out.

The job reads like the method::

    pages    = dumps | ReadPages()
    parsed   = pages | ExtractArticles()                      # step 2: parse, keep text + links
    wiki     = parsed | ReadWikiEvidence()                    # the dump's and SQL tables' redirects, flags
    requests = (articles, redirects) | ResolveRedirects()       # link targets, redirects followed
    evidence = wiki | GatherEvidence(requests)                # + types, SPARQL, entity tables
    targets  = evidence | TypeRequestedTitles(requests)        # step 1, joined by key: no whole-dump dict
    labelled = (articles, targets) | LabelSentences()           # steps 3-4
    labelled | WriteCorpus()                                    # step 5

Outputs are written to a staging directory inside ``--out`` and moved into place when the
pipeline has finished; ``stats.json``, the dataset card ``README.md`` and then ``manifest.json``
are written last, so a run killed half-way never leaves a corpus that looks complete.
"""

from __future__ import annotations

import datetime as dt

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from wikisilver import paths
from wikisilver.config import BuildConfig
from wikisilver.config.derived import multistream_indexes, siteinfo_language, types_lang
from wikisilver.corpus.card import dataset_card
from wikisilver.corpus.write import write_json_atomic, write_text_atomic
from wikisilver.dump import wiki_namespaces
from wikisilver.engines import one_local_worker
from wikisilver.errors import AlreadyBuilt, CorpusRejected, WikisilverError
from wikisilver.health import coverage_warnings, dominant_reject, reject_example
from wikisilver.labels import LabelConfig
from wikisilver.lock import output_lock
from wikisilver.manifest import build_manifest
from wikisilver.ontology import class_table
from wikisilver.ownership import CORPUS, Output, commit, place, prepare_output, staged
from wikisilver.pipelines.common import pcollections
from wikisilver.pipelines.evidence import GatherEvidence
from wikisilver.pipelines.extract import ExtractArticles
from wikisilver.pipelines.label import LabelSentences, SecondPassModel
from wikisilver.pipelines.read import ReadPages
from wikisilver.pipelines.redirects import ResolveRedirects
from wikisilver.pipelines.run import run_pipeline
from wikisilver.pipelines.stats import WriteCounts, read_counts
from wikisilver.pipelines.typing import TypeRequestedTitles
from wikisilver.pipelines.wiki_evidence import ReadWikiEvidence
from wikisilver.pipelines.write import WriteCorpus, WriteRejects, part_name
from wikisilver.languages import language_pack
from wikisilver.rerun import finished_same_build, input_fingerprints, recorded_fingerprints
from wikisilver.stats import make_stats

OUTPUT_DIRS = CORPUS.dirs


def build_pipeline(pipeline: beam.Pipeline, config: BuildConfig, staging: str, classes) -> None:
    """The build job; ``classes``: :func:`class_table` of ``config.ontology``, loaded by the caller."""
    ontology, table = classes
    progress = config.progress_interval
    read = pipeline | "ReadPages" >> ReadPages(config.dumps, multistream_indexes(config), progress, config.max_pages,
                                               spread=not one_local_worker(config.beam_args))
    parsed = read.pages | "ExtractArticles" >> ExtractArticles(
        config.lang, config.max_page_chars, config.page_timeout, config.infobox_mappings, progress,
        namespaces=wiki_namespaces(config.dumps),
    )
    wiki = pcollections(parsed) | "WikiEvidence" >> ReadWikiEvidence(config)
    requests = (parsed.articles, wiki.redirects) | "ResolveRedirects" >> ResolveRedirects(config.redirect_hops)
    evidence = pcollections(wiki) | "GatherEvidence" >> GatherEvidence(config, requests)
    typed = evidence.inputs() | "TypeEntities" >> TypeRequestedTitles(config.lang, ontology, table, requests)
    label_config = LabelConfig(
        disabled_rules=frozenset(config.disabled_rules), keep_low_quality=not config.drop_low_quality
    )
    second_pass = SecondPassModel(config.second_pass, config.second_pass_threshold) if config.second_pass else None
    labelled = (parsed.articles, typed.targets) | "LabelSentences" >> LabelSentences(
        config.lang, config.text_backend, label_config, progress, second_pass, config.page_timeout
    )
    labelled.sentences | "WriteCorpus" >> WriteCorpus(staging, config.shards, progress, bool(second_pass))
    rejects = (read.rejects, parsed.rejects, labelled.rejects) | "AllRejects" >> beam.Flatten()
    rejects | "WriteRejects" >> WriteRejects(staging, config.shards)
    counts = (read.counts, parsed.counts, typed.counts, labelled.counts) | "AllCounts" >> beam.Flatten()
    counts | "WriteCounts" >> WriteCounts(staging)


def finalize(staging: str, output: Output, config: BuildConfig) -> dict:
    """Fill missing empty parts, move the staged outputs into place, write stats.json; the stats."""
    from wikisilver.corpus.write import write_part

    written = {paths.basename(path) for path in paths.listdir(paths.join(staging, "tsv"))}  # one listing, not a lookup a part
    for shard in range(config.shards):
        name = part_name(shard, config.shards)
        tsv = paths.join(staging, "tsv", f"{name}.tsv")
        if f"{name}.tsv" not in written:
            write_part([], tsv, paths.join(staging, "parquet", f"{name}.parquet"), with_source=bool(config.second_pass))
    counts = read_counts(staging)
    stats = make_stats(counts, max_pages=config.max_pages)
    warnings = run_warnings(counts, stats, config)
    if warnings:  # only then: the stats.json of a sound corpus stays as it was
        stats["warnings"] = warnings
    stats["language_pack"] = language_pack(config.lang).describe()  # a full pack, or the fallback
    place(output, staging, OUTPUT_DIRS)
    write_json_atomic(paths.join(output.path, "stats.json"), stats)
    return stats


def run_warnings(counts: dict, stats: dict, config: BuildConfig) -> list[str]:
    """What the finished run's counts say against its inputs (wikisilver.health)."""
    try:
        header = siteinfo_language(config.dumps[0])
    except WikisilverError:
        header = None
    return coverage_warnings(counts, stats, class_sources=bool(config.types or config.sparql), lang=config.lang,
                             types_lang=types_lang(config), header_lang=header)


def run_build(config: BuildConfig) -> dict:
    """Run the build job of a config from :func:`wikisilver.config.resolve_build`; returns stats.

    A scheduled rerun over a finished corpus of the same inputs and options raises
    :class:`AlreadyBuilt` (nothing to do); a finished corpus of other inputs is never overwritten
    without ``--overwrite``.
    """
    out = paths.absolute(config.out)  # a local directory, or gs://…, s3://… (docs/cloud.md)
    # Loaded before the output is touched (a bad ontology file fails here), and once: the job
    # gets it, and the manifest reuses the file's hash.
    classes = class_table(config.ontology)
    with output_lock(out):
        # The inputs by content, before the run: what the corpus is built from.
        prints = input_fingerprints(config, recorded_fingerprints(out))
        previous, changed = finished_same_build(out, config, prints)
        if previous is not None and not config.overwrite:
            raise AlreadyBuilt(previous)
        output = prepare_output(out, config.overwrite, changed, CORPUS)
        started = dt.datetime.now(dt.timezone.utc)
        with staged(out, OUTPUT_DIRS) as staging:
            run_pipeline(
                PipelineOptions(list(config.beam_args)),
                lambda pipeline: build_pipeline(pipeline, config, staging, classes),
                config.progress_interval,
            )
            stats = finalize(staging, output, config)
        rejected = dominant_reject(stats, config.max_reject_share)
        if rejected is not None:  # not a finished corpus: no dataset card, no manifest (the commit marker)
            raise CorpusRejected(out, rejected, config.max_reject_share, reject_example(out, rejected.reason))
        manifest = build_manifest(config, out, started, prints)
        write_text_atomic(paths.join(out, "README.md"), dataset_card(manifest, stats))
        commit(output, manifest)  # manifest.json last: the commit marker
    return stats
