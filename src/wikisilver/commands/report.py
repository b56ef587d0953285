"""``wikisilver report``: one self-contained HTML page of plots and tables about a built corpus."""

from __future__ import annotations

import argparse
import sys

from wikisilver.errors import InputError
from wikisilver.outputs import check_output
from wikisilver.report.html import write_report

NAME = "report"
HELP = "Write an HTML report (stats, plots, top entities, sample sentences) of a corpus"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus", metavar="OUT_DIR", help="output directory of `wikisilver build`")
    parser.add_argument("--out", metavar="FILE.html",
                        help="where to write the report (default: OUT_DIR.report.html, beside the corpus "
                             "folder, never inside it; replaced there only if it is a wikisilver report)")
    parser.add_argument("--samples", type=int, default=10, metavar="N",
                        help="sample sentences to show (default 10)")
    parser.add_argument("--top", type=int, default=10, metavar="N",
                        help="most frequent entities to list per type (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sentence sample (default 0)")


def run(args: argparse.Namespace) -> int:
    if args.samples < 0 or args.top < 1:
        raise InputError(None, "--samples must be at least 0 and --top at least 1")
    out = check_output(args.out, what="the report") if args.out is not None else None  # before any work
    path = write_report(args.corpus, out, samples=args.samples, top=args.top, seed=args.seed)
    print(f"wikisilver report: written to {path}", file=sys.stderr if path.is_stdout else sys.stdout)
    return 0
