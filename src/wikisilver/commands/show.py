"""``wikisilver show``: one article of a corpus in the terminal, entity mentions in brackets."""

from __future__ import annotations

import argparse
import os
import random
import sys

from wikisilver import paths
from wikisilver.errors import InputError
from wikisilver.corpus.export import bracketed
from wikisilver.corpus.read import OUR_TAGSETS, article_titles, close_titles, read_article
from wikisilver.titles import normalize_title

NAME = "show"
HELP = "Print the kept sentences of one article with their entity tags, or list the articles"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus", metavar="OUT_DIR", help="output directory of `wikisilver build`")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--title", help="article title, e.g. \"Budapest\"")
    which.add_argument("--list", action="store_true",
                       help="list the articles of the corpus (title and kept sentences), by title")
    which.add_argument("--random", action="store_true", help="show an article picked at random")
    parser.add_argument("--seed", type=int, help="seed of --random (default: a different article each time)")
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
    paths.check_remote(args.corpus)
    if args.list:
        titles = article_titles(args.corpus)
        for name, count in (titles.items() if args.limit is None else list(titles.items())[: args.limit]):
            print(f"{count:>6}  {name}")
        print(f"{len(titles)} article(s)", file=sys.stderr)
        return 0
    if args.random:
        titles = sorted(article_titles(args.corpus))
        if not titles:
            raise InputError(args.corpus, "the corpus has no sentences")
        args.title = random.Random(args.seed).choice(titles)
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
