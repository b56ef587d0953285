"""``wikisilver split``: a reproducible by-article train/dev/test split of a corpus (§6), in our TSV or
any export format."""

from __future__ import annotations

import argparse

from wikisilver.corpus.inputs import FORMATS, read_corpus
from wikisilver.corpus.splits import SPLIT_FORMATS, split_corpus

NAME = "split"
HELP = ("Split a corpus into train/(dev/)test by article (hash-based, reproducible), to a token budget, "
        "in TSV, CoNLL-2003, CoNLL-U Plus, JSONL, spaCy or Parquet")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", required=True, metavar="PATH", help="corpus file or directory")
    parser.add_argument("--format", choices=FORMATS, help="format of every corpus file")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="writes DIR/train.EXT, DIR/test.EXT (and DIR/dev.EXT with --dev-fraction)")
    parser.add_argument("--out-format", choices=tuple(SPLIT_FORMATS), default="tsv",
                        help="format of the files written: tsv (our multitag TSV, default), conll2003, "
                             "conllup, jsonl, spacy (DocBin for `spacy train`) or parquet (our schema)")
    parser.add_argument("--test-fraction", type=float, default=0.1, help="share of articles for test")
    parser.add_argument("--dev-fraction", type=float, default=0.0,
                        help="share of articles for a dev side (default 0: no dev file)")
    parser.add_argument("--seed", type=int, default=0, help="hash seed (default 0)")
    parser.add_argument("--max-tokens", type=int, metavar="N",
                        help="total token budget, shared between the sides as the split")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text corpora")


def run(args: argparse.Namespace) -> int:
    report = split_corpus(
        lambda: read_corpus(args.corpus, args.format, encoding=args.encoding),
        args.out, test_fraction=args.test_fraction, dev_fraction=args.dev_fraction, seed=args.seed,
        max_tokens=args.max_tokens, fmt=args.out_format,
    )
    for name, side in report.sides.items():
        print(f"{name + ':':<6} {side.articles} articles, {side.sentences} sentences, {side.tokens} tokens "
              f"-> {side.path}")
    return 0
