"""``wikisilver evaluate``: score a trained tagger on a gold corpus, conlleval-style (§6)."""

from __future__ import annotations

import argparse
import sys

from wikisilver.corpus.inputs import FORMATS, TAGSET_HELP, TAGSETS, check_tagset, read_corpus
from wikisilver.corpus.write import write_json_atomic
from wikisilver.ner.crf import Tagger
from wikisilver.ner.scores import evaluate_tagger, format_scores
from wikisilver.outputs import check_output

NAME = "evaluate"
HELP = "Score a trained tagger on gold data (exact-match P/R/F1, overall and per type)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, metavar="PATH", help="model written by `train`")
    parser.add_argument("--gold", required=True, metavar="PATH", help="gold corpus file or directory")
    parser.add_argument("--format", choices=FORMATS, help="format of the gold files")
    parser.add_argument("--tagset", choices=TAGSETS, help=TAGSET_HELP.replace("default conll", "default: the model's"))
    parser.add_argument("--gazetteer", metavar="FILE",
                        help="gazetteer to use instead of the one recorded with the model")
    parser.add_argument("--json", metavar="FILE", help="also write the scores as JSON (- : standard output)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text gold files")


def run(args: argparse.Namespace) -> int:
    out = check_output(args.json, what="the scores", option="--json") if args.json else None
    tagger = Tagger(args.model, gazetteer=args.gazetteer)
    tagset = args.tagset or tagger.tagset
    check_tagset([args.gold], args.format, tagset)
    gold = read_corpus(args.gold, args.format, tagset=tagset, encoding=args.encoding)
    scores = evaluate_tagger(tagger, gold)
    print(format_scores(scores), file=sys.stderr if out is not None and out.is_stdout else sys.stdout)
    if out is not None:
        write_json_atomic(out, scores.to_json())
    return 0
