"""``wikisilver build``: the main job (see pipelines/build.py)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from importlib import resources
from pathlib import Path

NAME = "build"
HELP = "Build a silver NER corpus from Wikipedia dump(s) (Apache Beam job)."
ACCEPTS_BEAM_OPTIONS = True
ACCEPTS_CONFIG = True

log = logging.getLogger(__name__)


def add_entity_source_options(parser: argparse.ArgumentParser) -> None:
    """The entity-source flags shared by ``build`` and ``entities``."""
    group = parser.add_argument_group("entity sources (at least one)")
    group.add_argument("--types", action="append", default=[], metavar="FILE",
                       help="DBpedia instance types, N-Triples or Turtle, optionally .bz2/.gz (repeatable)")
    group.add_argument("--ontology", metavar="FILE",
                       help="DBpedia ontology (OWL or Turtle) for the class hierarchy; default: the built-in "
                            "class hierarchy in mappings/class_parents.tsv")
    group.add_argument("--entities", action="append", default=[], metavar="FILE",
                       help="a title->class table written by `wikisilver entities` (TSV or Parquet; repeatable)")
    group.add_argument("--infobox-mappings", metavar="DIR",
                       help="DBpedia infobox mapping files (Mapping_<lang>:*.ttl) to type articles by infobox")
    group.add_argument("--types-lang", metavar="CODE",
                       help="language of the titles in --types (default: --lang); with --langlinks-sql, pages "
                            "take the type of their equivalent in that language (the paper's Hungarian method)")
    group.add_argument("--langlinks-sql", action="append", default=[], metavar="FILE",
                       help="langlinks SQL dump (.sql or .sql.gz): links pages to their --types-lang equivalents")
    sql = parser.add_argument_group("redirects and disambiguation pages from SQL dumps (optional)")
    sql.add_argument("--redirect-sql", action="append", default=[], metavar="FILE",
                     help="redirect table dump; page ids are mapped to titles by the dump and --page-sql")
    sql.add_argument("--page-sql", action="append", default=[], metavar="FILE",
                     help="page table dump (2016 and current schemas)")
    sql.add_argument("--page-props-sql", action="append", default=[], metavar="FILE",
                     help="page_props table dump: pages with the 'disambiguation' property are disambiguation pages")
    group.add_argument("--sparql", metavar="URL",
                       help="SPARQL endpoint of a DBpedia mirror, asked for the types of the linked titles")
    group.add_argument("--sparql-batch-size", type=int, default=200, help="titles per SPARQL query (default 200)")
    group.add_argument("--sparql-timeout", type=float, default=30.0, help="seconds per SPARQL query (default 30)")
    group.add_argument("--sparql-retries", type=int, default=4,
                       help="retries of a failing SPARQL query, with exponential backoff (default 4)")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dump", action="append", default=[], metavar="FILE",
                        help="pages-articles XML dump: .xml, .bz2 (also multistream), .xz or .gz (repeatable)")
    parser.add_argument("--multistream-index", action="append", default=[], metavar="FILE",
                        help="index of a multistream .bz2 dump (one per --dump, same order); found beside "
                             "the dump when named as Wikimedia names it; lets one file be read in parallel")
    parser.add_argument("--lang", help="wiki language code (en, hu, …): selects mappings/<lang>/; "
                                       "default: read from the dump's <siteinfo>")
    parser.add_argument("--out", help="output directory (default: output/<lang>wiki/<dumpdate or latest>)")
    parser.add_argument("--demo", action="store_true",
                        help="build the corpus of the demo dump bundled with the package")
    add_entity_source_options(parser)
    tuning = parser.add_argument_group("output and rules")
    tuning.add_argument("--shards", type=int, default=None,
                        help="number of part files (default: one per 16 MiB of compressed dump, at least 4)")
    tuning.add_argument("--overwrite", action="store_true", help="replace a finished corpus in --out")
    tuning.add_argument("--progress-interval", type=float, default=30.0, metavar="SEC",
                        help="log each stage's count and rate every SEC seconds, per worker, and poll a "
                             "remote runner's counters as often (default 30; 0: no progress lines)")
    tuning.add_argument("--strict", action="store_true",
                        help="exit non-zero when any page was rejected or a dump was truncated/corrupt")
    tuning.add_argument("--drop-low-quality", action="store_true",
                        help="drop fragment sentences instead of keeping them flagged low_quality")
    tuning.add_argument("--disable-rule", action="append", default=[], metavar="RULE",
                        help="switch a labelling rule off (repeatable; names as in stats.json rules_fired)")
    tuning.add_argument("--redirect-hops", type=int, default=3, help="redirect chain rounds to follow (default 3)")
    tuning.add_argument("--max-page-chars", type=int, default=2_000_000,
                        help="pages with more wikitext go to rejects (default 2,000,000)")
    tuning.add_argument("--page-timeout", type=float, default=20.0,
                        help="seconds of parsing per page before it goes to rejects (default 20)")
    tuning.add_argument("--text-backend", default="builtin",
                        help="tokenizer/tagger backend: builtin, or spacy:<model> if spaCy is installed")
    parser.epilog = ("Any other option is passed to Apache Beam unchanged, e.g. --runner DirectRunner "
                     "--direct_running_mode multi_processing --direct_num_workers 2, or the Dataflow, "
                     "Flink and Spark runner options.")


def expand_entity_tables(paths: list[str]) -> tuple[str, ...]:
    """--entities takes files or directories written by `wikisilver entities` (their part files)."""
    files: list[str] = []
    for path in paths:
        folder = Path(path)
        if folder.is_dir():
            inner = folder / "entities" if (folder / "entities").is_dir() else folder
            files.extend(str(p) for p in sorted(inner.iterdir()) if p.suffix in (".tsv", ".parquet"))
        else:
            files.append(path)
    return tuple(files)


def demo_inputs() -> tuple[str, str]:
    root = resources.files("wikisilver.demo")
    return str(root.joinpath("demowiki-pages-articles.xml.bz2")), str(root.joinpath("demowiki-types.nt"))


def run(args: argparse.Namespace) -> int:
    from wikisilver import dump as dumplib
    from wikisilver.errors import InputError
    from wikisilver.config import BuildConfig
    from wikisilver.pipelines.build import run_build
    from wikisilver.pipelines.runner import AlreadyBuilt

    dumps, types = list(args.dump), list(args.types)
    lang = args.lang
    if args.demo:
        demo_dump, demo_types = demo_inputs()
        dumps, types, lang = dumps or [demo_dump], types or [demo_types], lang or "en"
    if not dumps:
        raise InputError(None, "no dump given: pass --dump FILE (or --demo, or a --config file with dump = [...])")
    for path in dumps:
        if not Path(path).is_file():
            raise InputError(path, "no such file")
    if not lang:
        site = dumplib.read_siteinfo(dumps[0])
        lang = dumplib.dump_language(site)
        if not lang:
            raise InputError(dumps[0], "cannot tell the language from <siteinfo>; pass --lang")
    check_language(lang)
    out = args.out
    if not out:
        date = dumplib.wiki_date_from_name(dumps[0]) or "latest"
        out = str(Path("output") / ("demo" if args.demo else f"{lang}wiki") / date)
    from wikisilver.config import auto_shards

    shards = args.shards if args.shards is not None else auto_shards(tuple(dumps))
    config = BuildConfig(
        dumps=tuple(dumps), lang=lang, out=out, multistream_index=tuple(args.multistream_index), types=tuple(types), ontology=args.ontology,
        entities=expand_entity_tables(args.entities), infobox_mappings=args.infobox_mappings, shards=shards,
        sparql=args.sparql, sparql_batch_size=args.sparql_batch_size, sparql_timeout=args.sparql_timeout,
        sparql_retries=args.sparql_retries, types_lang=args.types_lang, page_sql=tuple(args.page_sql),
        redirect_sql=tuple(args.redirect_sql), page_props_sql=tuple(args.page_props_sql),
        langlinks_sql=tuple(args.langlinks_sql),
        redirect_hops=args.redirect_hops, max_page_chars=args.max_page_chars, page_timeout=args.page_timeout,
        text_backend=args.text_backend, disabled_rules=tuple(args.disable_rule),
        drop_low_quality=args.drop_low_quality, overwrite=args.overwrite, strict=args.strict,
        progress_interval=args.progress_interval, beam_args=tuple(args.beam_args),
    )
    try:
        stats = run_build(config)
    except AlreadyBuilt as done:
        print(f"wikisilver build: {out} already holds the finished corpus of these inputs and options; "
              "nothing to do (pass --overwrite to rebuild)", file=sys.stderr)
        stats = done.stats
        print_summary(out, stats)
        return 0
    print_summary(out, stats)
    problems = sum(stats["pages_rejected"].values()) + sum(stats["stream_errors"].values())
    if problems:
        print(f"wikisilver build: warning: {sum(stats['pages_rejected'].values())} page(s) rejected, "
              f"{sum(stats['stream_errors'].values())} stream error(s); see {out}/rejects/", file=sys.stderr)
        if args.strict:
            return 1
    return 0


def check_language(lang: str) -> None:
    """A wiki language code: lower-case letters, optionally with '-' parts (en, hu, zh-yue, be-tarask)."""
    import re

    from wikisilver.errors import InputError

    if not re.fullmatch(r"[a-z]{2,3}(-[a-z]{2,8})*", lang):
        raise InputError(None, f"--lang {lang!r} is not a Wikipedia language code (e.g. en, hu, zh-yue)")


def print_summary(out: str, stats: dict) -> None:
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
    width = max(len(name) for name, _ in rows)
    print(f"wikisilver build: corpus written to {out}")
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
