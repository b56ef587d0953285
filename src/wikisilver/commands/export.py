"""``wikisilver export``: our corpus as CoNLL-2003, CoNLL-U Plus, spaCy DocBin or JSONL."""

from __future__ import annotations

import argparse
import sys

from wikisilver import paths
from wikisilver.corpus.export import EXPORT_FORMATS, SCHEMES, export_corpus
from wikisilver.corpus.read import OUR_TAGSETS

NAME = "export"
HELP = "Write a corpus (Parquet output of build) as CoNLL-2003, CoNLL-U Plus, spaCy or JSONL"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus", metavar="CORPUS_DIR",
                        help="output directory of `wikisilver build` (or its parquet/ folder or a part)")
    parser.add_argument("--format", required=True, choices=EXPORT_FORMATS, help="format to write")
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="file to write; - writes standard output (a named pipe or a device is written "
                             "as a stream, a symbolic link through to its file)")
    parser.add_argument("--scheme", choices=SCHEMES, default="iob2",
                        help="tag scheme of the CoNLL formats (default iob2; CoNLL-2003 itself used iob1)")
    parser.add_argument("--tagset", choices=OUR_TAGSETS, default="conll",
                        help="conll: PER/LOC/ORG/MISC (default); dbpedia: the most specific DBpedia class")
    parser.add_argument("--exclude-low-quality", action="store_true",
                        help="leave out sentences flagged as fragments")
    parser.add_argument("--exclude-second-pass", action="store_true",
                        help="leave out sentences kept by build --second-pass (source second_pass)")


def run(args: argparse.Namespace) -> int:
    paths.check_remote(args.corpus)
    paths.check_remote(args.out, output=True)
    report = export_corpus(
        args.corpus, args.out, args.format, scheme=args.scheme, tagset=args.tagset,
        exclude_low_quality=args.exclude_low_quality, exclude_second_pass=args.exclude_second_pass,
    )
    print(
        f"wrote {report.sentences} sentences ({report.articles} articles, {report.tokens} tokens, "
        f"{report.mentions} entity mentions) to {report.path}",
        file=sys.stderr if args.out == "-" else sys.stdout,  # standard output holds the corpus
    )
    return 0
