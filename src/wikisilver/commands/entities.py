"""``wikisilver entities``: write the resolved entity table (step 1) for reuse with ``--entities``."""

from __future__ import annotations

import argparse
import json
import sys

from wikisilver.commands.build import add_entity_source_options

NAME = "entities"
HELP = "Resolve the entity table (title, class, tags, source, aliases) of dump(s) and entity sources."
ACCEPTS_BEAM_OPTIONS = True
ACCEPTS_CONFIG = True


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dump", dest="dumps", action="append", metavar="FILE",
                        help="pages-articles XML dump (repeatable): redirects, disambiguation pages, infoboxes")
    parser.add_argument("--lang", help="wiki language code (en, hu, …); default: read from the dump's <siteinfo>")
    parser.add_argument("--out", help="output directory (required): writes OUT/entities/part-*.tsv")
    parser.add_argument("--shards", type=int, help="number of part files (default 4)")
    parser.add_argument("--format", dest="table_format", choices=("tsv", "parquet"),
                        help="table format of the part files (default tsv); --entities reads both")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing table in --out")
    add_entity_source_options(parser)


def run(args: argparse.Namespace) -> int:
    from wikisilver.commands import job_options
    from wikisilver.config import resolve_entities
    from wikisilver.pipelines.entities import run_entities

    from wikisilver.stats import describe_problems, page_problems

    config = resolve_entities(job_options(args))
    stats = run_entities(config)
    print(f"wikisilver entities: table written to {config.out}/entities/")
    print(json.dumps(stats, indent=2, ensure_ascii=False))
    rejected, stream_errors = page_problems(stats)
    if rejected or stream_errors:
        print(f"wikisilver entities: warning: {describe_problems(stats)}; see {config.out}/rejects/", file=sys.stderr)
    return 0
