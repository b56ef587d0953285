"""``wikisilver gazetteers``: export per-type entity lists ("wikilists") from our corpus (§6)."""

from __future__ import annotations

import argparse
import sys

from wikisilver.corpus.gazetteers import count_surfaces, write_gazetteer
from wikisilver.corpus.inputs import FORMATS, TAGSET_HELP, TAGSETS, check_tagset, read_corpora
from wikisilver.outputs import check_output

NAME = "gazetteers"
HELP = "Export per-type entity surface lists with counts (TSV) from corpora"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", action="append", required=True, metavar="PATH",
                        help="corpus file or directory (repeatable)")
    parser.add_argument("--format", choices=FORMATS, help="format of every corpus file")
    parser.add_argument("--out", required=True, metavar="FILE", help="gazetteer TSV to write (- : standard output)")
    parser.add_argument("--min-count", type=int, default=1, metavar="N",
                        help="keep surfaces seen at least N times with a type (default 1)")
    parser.add_argument("--tagset", choices=TAGSETS, default="conll", help=TAGSET_HELP)
    parser.add_argument("--encoding", default="utf-8", help="encoding of text corpora")


def run(args: argparse.Namespace) -> int:
    out = check_output(args.out, what="a gazetteer")
    check_tagset(args.corpus, args.format, args.tagset)
    counts = count_surfaces(read_corpora(args.corpus, args.format, tagset=args.tagset,
                                         encoding=args.encoding))
    written = write_gazetteer(out, counts, min_count=args.min_count)
    print(f"wrote {written} entries ({len(counts)} distinct type/surface pairs seen) to {out}",
          file=sys.stderr if out.is_stdout else sys.stdout)
    return 0
