"""``wikisilver evaluate``: score a trained tagger on a gold corpus, conlleval-style (§6)."""

from __future__ import annotations

import argparse

from wikisilver.corpus.inputs import FORMATS, TAGSETS, read_corpus
from wikisilver.corpus.write import write_json_atomic
from wikisilver.ner.crf import Tagger
from wikisilver.ner.scores import evaluate_tagger, format_scores

NAME = "evaluate"
HELP = "Score a trained tagger on gold data (exact-match P/R/F1, overall and per type)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, metavar="PATH", help="model written by `train`")
    parser.add_argument("--gold", required=True, metavar="PATH", help="gold corpus file or directory")
    parser.add_argument("--format", choices=FORMATS, help="format of the gold files")
    parser.add_argument("--tagset", choices=TAGSETS,
                        help="tag layer when the gold is our corpus (default: the model's)")
    parser.add_argument("--gazetteer", metavar="FILE",
                        help="gazetteer to use instead of the one recorded with the model")
    parser.add_argument("--json", metavar="FILE", help="also write the scores as JSON")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text gold files")


def run(args: argparse.Namespace) -> int:
    tagger = Tagger(args.model, gazetteer=args.gazetteer)
    gold = read_corpus(args.gold, args.format, tagset=args.tagset or tagger.tagset,
                       encoding=args.encoding)
    scores = evaluate_tagger(tagger, gold)
    print(format_scores(scores))
    if args.json:
        write_json_atomic(args.json, scores.to_json())
    return 0
