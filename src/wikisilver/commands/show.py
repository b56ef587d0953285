"""``wikisilver show``: one article of a corpus in the terminal, entity mentions in brackets."""

from __future__ import annotations

import argparse
import os
import sys

from wikisilver.errors import InputError
from wikisilver.corpus.export import bracketed
from wikisilver.corpus.read import OUR_TAGSETS, close_titles, read_article
from wikisilver.titles import normalize_title

NAME = "show"
HELP = "Print the kept sentences of one article with their entity tags"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus", metavar="OUT_DIR", help="output directory of `wikisilver build`")
    parser.add_argument("--title", required=True, help="article title, e.g. \"Budapest\"")
    parser.add_argument("--limit", type=int, metavar="N", help="show the first N sentences only")
    parser.add_argument("--tagset", choices=OUR_TAGSETS, default="conll",
                        help="label mentions with CoNLL types (default) or DBpedia classes")
    parser.add_argument("--color", "--colour", dest="color", choices=("auto", "always", "never"),
                        default="auto", help="ANSI colours per type (auto: on a terminal, unless NO_COLOR)")


def _use_colour(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def run(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        raise InputError(None, "--limit must be at least 1")
    title = args.title
    sentences = read_article(args.corpus, title, limit=args.limit)
    if not sentences and normalize_title(title) != title:
        title = normalize_title(title)  # "budapest" or "New_York" as typed in a URL
        sentences = read_article(args.corpus, title, limit=args.limit)
    if not sentences:
        close = close_titles(args.corpus, args.title)
        hint = f"; did you mean: {', '.join(repr(t) for t in close)}?" if close else ""
        raise InputError(args.corpus, f"no article titled {args.title!r} in the corpus{hint}")
    colour = _use_colour(args.color)
    first = sentences[0]
    print(f"{first.title} (page {first.page_id}): {len(sentences)} sentence(s)")
    for sentence in sentences:
        flag = "~" if sentence.low_quality else " "
        print(f"{sentence.index:>5}{flag} {bracketed(sentence, tagset=args.tagset, colour=colour)}")
    return 0
