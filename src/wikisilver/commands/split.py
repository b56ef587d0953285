"""``wikisilver split``: a reproducible by-article train/test split of a corpus (§6)."""

from __future__ import annotations

import argparse

from wikisilver.corpus.inputs import FORMATS, read_corpus
from wikisilver.corpus.splits import split_corpus

NAME = "split"
HELP = "Split a corpus into train/test TSV by article (hash-based, reproducible), to a token budget"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", required=True, metavar="PATH", help="corpus file or directory")
    parser.add_argument("--format", choices=FORMATS, help="format of every corpus file")
    parser.add_argument("--out", required=True, metavar="DIR", help="writes DIR/train.tsv and DIR/test.tsv")
    parser.add_argument("--test-fraction", type=float, default=0.1, help="share of articles for test")
    parser.add_argument("--seed", type=int, default=0, help="hash seed (default 0)")
    parser.add_argument("--max-tokens", type=int, metavar="N",
                        help="total token budget, shared between train and test as the split")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text corpora")


def run(args: argparse.Namespace) -> int:
    report = split_corpus(
        lambda: read_corpus(args.corpus, args.format, encoding=args.encoding),
        args.out, test_fraction=args.test_fraction, seed=args.seed, max_tokens=args.max_tokens,
    )
    print(
        f"train: {report.train_articles} articles, {report.train_sentences} sentences, "
        f"{report.train_tokens} tokens -> {report.train_path}\n"
        f"test:  {report.test_articles} articles, {report.test_sentences} sentences, "
        f"{report.test_tokens} tokens -> {report.test_path}"
    )
    return 0
