"""``wikisilver entities``: write the resolved entity table (step 1) for reuse with ``--entities``."""

from __future__ import annotations

import argparse
import json

from wikisilver.commands.build import add_entity_source_options, check_language, expand_entity_tables

NAME = "entities"
HELP = "Resolve the entity table (title, class, tags, source, aliases) of dump(s) and entity sources."
ACCEPTS_BEAM_OPTIONS = True
ACCEPTS_CONFIG = True


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dump", action="append", default=[], required=True, metavar="FILE",
                        help="pages-articles XML dump (repeatable): redirects, disambiguation pages, infoboxes")
    parser.add_argument("--lang", required=True, help="wiki language code (en, hu, …)")
    parser.add_argument("--out", required=True, help="output directory: writes OUT/entities/part-*.tsv")
    parser.add_argument("--shards", type=int, default=4, help="number of part files (default 4)")
    parser.add_argument("--format", choices=("tsv", "parquet"), default="tsv",
                        help="table format of the part files (default tsv); --entities reads both")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing table in --out")
    add_entity_source_options(parser)


def run(args: argparse.Namespace) -> int:
    from wikisilver.config import BuildConfig
    from wikisilver.pipelines.entities import run_entities

    check_language(args.lang)
    config = BuildConfig(
        dumps=tuple(args.dump), lang=args.lang, out=args.out, types=tuple(args.types), ontology=args.ontology,
        entities=expand_entity_tables(args.entities), infobox_mappings=args.infobox_mappings, shards=args.shards,
        sparql=args.sparql, sparql_batch_size=args.sparql_batch_size, sparql_timeout=args.sparql_timeout,
        sparql_retries=args.sparql_retries, types_lang=args.types_lang, page_sql=tuple(args.page_sql),
        redirect_sql=tuple(args.redirect_sql), page_props_sql=tuple(args.page_props_sql),
        langlinks_sql=tuple(args.langlinks_sql),
        overwrite=args.overwrite, beam_args=tuple(args.beam_args),
    )
    summary = run_entities(config, args.format)
    print(f"wikisilver entities: table written to {args.out}/entities/")
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 0
