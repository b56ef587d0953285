"""``wikisilver build``: the main job (steps 1-5, see pipelines/build.py): its flags and its summary.

Options left out are absent from ``args`` (not defaulted here), so a ``--config`` file can supply
them; wikisilver.config resolves and checks them.
"""

from __future__ import annotations

import argparse
import json
import sys

NAME = "build"
HELP = "Build a silver NER corpus from Wikipedia dump(s) (Apache Beam job)."
ACCEPTS_BEAM_OPTIONS = True
ACCEPTS_CONFIG = True


def add_entity_source_options(parser: argparse.ArgumentParser) -> None:
    """The entity-source flags shared by ``build`` and ``entities``: one per declared source
    (wikisilver.entities.sources), then the sources' settings (defaults: wikisilver.config)."""
    from wikisilver.entities.sources import SOURCES, TYPING

    groups = {}
    for source in SOURCES:
        if source.group not in groups:
            groups[source.group] = parser.add_argument_group(source.group)
        group = groups[source.group]
        group.add_argument(source.flag, action="append" if source.repeatable else "store", metavar=source.metavar,
                           help=source.help)
    group = groups.get(TYPING) or parser.add_argument_group(TYPING)
    group.add_argument("--types-lang", metavar="CODE",
                       help="language of the titles in --types (default: --lang); with --langlinks-sql, pages "
                            "take the type of their equivalent in that language (the paper's Hungarian method)")
    group.add_argument("--sparql-batch-size", type=int, help="titles per SPARQL query (default 200)")
    group.add_argument("--sparql-timeout", type=float,
                       help="seconds a SPARQL request may take in all, answer included (default 30)")
    group.add_argument("--sparql-max-answer-mb", type=float, metavar="MB",
                       help="largest SPARQL answer read, in MiB; a larger one fails the run (default 64)")
    group.add_argument("--sparql-retries", type=int,
                       help="retries of a failing SPARQL query, with exponential backoff (default 4)")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dump", dest="dumps", action="append", metavar="FILE",
                        help="pages-articles XML dump: .xml, .bz2 (also multistream), .xz or .gz (repeatable)")
    parser.add_argument("--multistream-index", action="append", metavar="FILE",
                        help="index of a multistream .bz2 dump (one per --dump, same order); found beside "
                             "the dump when named as Wikimedia names it; lets one file be read in parallel")
    parser.add_argument("--lang", help="Wikipedia language code (en, hu, …; mappings/wikipedias.txt): selects "
                                       "mappings/<lang>/; default: read from the dump's <siteinfo>")
    parser.add_argument("--out", help="output directory, local or gs://…, s3://… "
                                      "(default: output/<lang>wiki/<dumpdate or latest>)")
    parser.add_argument("--demo", action="store_true",
                        help="build the corpus of the demo dump bundled with the package")
    add_entity_source_options(parser)
    tuning = parser.add_argument_group("output and rules")
    tuning.add_argument("--shards", type=int,
                        help="number of part files (default: one per 16 MiB of compressed dump, at least 4)")
    tuning.add_argument("--overwrite", action="store_true", help="replace a finished corpus in --out")
    tuning.add_argument("--progress-interval", type=float, metavar="SEC",
                        help="log each stage's count and rate every SEC seconds, per worker, and poll a "
                             "remote runner's counters as often (default 30; 0: no progress lines)")
    tuning.add_argument("--strict", action="store_true",
                        help="exit non-zero when any page was rejected or a dump was truncated/corrupt")
    tuning.add_argument("--max-reject-share", type=float, metavar="SHARE",
                        help="fail the build (exit 1, corpus not finished) when one reject reason takes more than "
                             "this share of the pages that could be used (default 0.5; 1: never)")
    tuning.add_argument("--drop-low-quality", action="store_true",
                        help="drop fragment sentences instead of keeping them flagged low_quality")
    tuning.add_argument("--disable-rule", dest="disabled_rules", action="append", metavar="RULE",
                        help="switch a labelling rule off (repeatable; names as in stats.json rules_fired)")
    tuning.add_argument("--second-pass", metavar="MODEL",
                        help="label what the rules leave UNK with MODEL (a `wikisilver train` model of a "
                             "first-pass corpus) and keep a dropped sentence when the model is sure, agrees "
                             "with the links and gives each UNK name the type the first-pass corpus knows it "
                             "by (MODEL.mentions.tsv); kept ones have source=second_pass (docs/labelling.md)")
    tuning.add_argument("--second-pass-threshold", type=float, metavar="P",
                        help="the model's marginal probability every UNK token must reach (default 0.9)")
    tuning.add_argument("--redirect-hops", type=int, help="redirect chain rounds to follow, 0 to 100 (default 3)")
    tuning.add_argument("--max-page-chars", type=int,
                        help="pages with more wikitext go to rejects (default 2,000,000)")
    tuning.add_argument("--max-pages", type=int, metavar="N",
                        help="a quick trial run: stop reading the dumps after their first N pages "
                             "(stats.json and the summary say so)")
    tuning.add_argument("--page-timeout", type=float,
                        help="seconds per page for its checks and for its parsing before it goes to rejects (default 20)")
    tuning.add_argument("--text-backend",
                        help="tokenizer/tagger backend: builtin, or spacy:<model> if spaCy is installed")
    parser.epilog = ("Any option Apache Beam's PipelineOptions knows is passed to Beam unchanged, e.g. --runner "
                     "DirectRunner --direct_running_mode multi_processing --direct_num_workers 2, or the "
                     "Dataflow, Flink and Spark runner options (--runner flink --flink_job_server_jar JAR "
                     "--parallelism N: the jar from scripts/fetch_job_server.sh flink; wikisilver downloads "
                     "nothing at run time); any other option fails. Every input and --out "
                     "may be a local path or a gs://, s3:// or hdfs:// URL (Beam's FileSystems); Beam's "
                     "--s3_endpoint_url, --s3_access_key_id, --s3_secret_access_key, --s3_region_name (or the "
                     "AWS_* environment) reach S3, Google's default credentials and --project reach GCS.")


def run(args: argparse.Namespace) -> int:
    from wikisilver.commands import job_options
    from wikisilver.config import resolve_build
    from wikisilver.pipelines.build import run_build
    from wikisilver.errors import AlreadyBuilt, CorpusRejected
    from wikisilver.stats import describe_problems, page_problems

    config = resolve_build(job_options(args))
    try:
        stats = run_build(config)
    except CorpusRejected as failed:
        print(f"wikisilver build: error: {failed}", file=sys.stderr)
        return 1
    except AlreadyBuilt as done:
        rejected, stream_errors = page_problems(done.stats)
        if config.strict and (rejected or stream_errors):  # what --strict failed on then still holds
            print(f"wikisilver build: {config.out} holds the corpus of these inputs and options, with "
                  f"{describe_problems(done.stats)} (--strict); see {config.out}/rejects/",
                  file=sys.stderr)
            return 1
        print(f"wikisilver build: {config.out} already holds the finished corpus of these inputs and options; "
              "nothing to do (pass --overwrite to rebuild)", file=sys.stderr)
        return 0
    print_summary(config.out, stats)
    for warning in stats.get("warnings", ()):
        print(f"wikisilver build: warning: {warning}", file=sys.stderr)
    rejected, stream_errors = page_problems(stats)
    if rejected or stream_errors:
        print(f"wikisilver build: warning: {describe_problems(stats)}; see {config.out}/rejects/", file=sys.stderr)
        if config.strict:
            return 1
    return 0


def print_summary(out: str, stats: dict) -> None:
    from wikisilver.stats import unread_words

    rows = [
        ("pages read", stats["pages_read"]),
        ("pages used", stats["pages_used"]),
        ("pages skipped", json.dumps(stats["pages_skipped"])),
        ("pages rejected", json.dumps(stats["pages_rejected"])),
        ("sentences kept / total", f"{stats['sentences_kept']} / {stats['sentences_total']}"),
        ("sentences dropped (UNK)", stats["sentences_dropped_unk"]),
        ("sentences low quality", stats["sentences_low_quality"]),
        ("tokens kept", stats["tokens_kept"]),
        ("entities by tag", json.dumps(stats["entities_by_tag"])),
        ("NE density", stats["ne_density"]),
    ]
    if stats.get("bytes_skipped"):
        rows.insert(1, ("pages unread (estimate)", f"{unread_words(stats)}, in {stats['bytes_skipped']:,} compressed "
                        "bytes skipped over corrupt blocks (see rejects/)"))
    if stats.get("max_pages"):
        rows.insert(1, ("stopped early", f"after the first {stats['max_pages']:,} pages (--max-pages): a trial run"))
    width = max(len(name) for name, _ in rows)
    print(f"wikisilver build: corpus written to {out}")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
