"""``wikisilver train``: train a CRF NER tagger on one or more corpora (§6 of the method)."""

from __future__ import annotations

import argparse
import sys

from wikisilver.corpus.inputs import FORMATS, TAGSET_HELP, TAGSETS, check_tagset, read_corpora
from wikisilver.ner.crf import check_model_outputs, train

NAME = "train"
HELP = "Train a CRF NER tagger on corpora (ours or gold CoNLL files)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", action="append", required=True, metavar="PATH",
                        help="corpus file or directory (repeatable); format from the extensions")
    parser.add_argument("--format", choices=FORMATS, help="format of every corpus file")
    parser.add_argument("--model", required=True, metavar="PATH",
                        help="model file to write (and PATH.meta.json, PATH.mentions.tsv: the training "
                             "mentions, for build --second-pass)")
    parser.add_argument("--max-tokens", type=int, metavar="N", help="train on the first N tokens")
    parser.add_argument("--exclude-low-quality", action="store_true",
                        help="leave out sentences our pipeline flagged low_quality")
    parser.add_argument("--exclude-second-pass", action="store_true",
                        help="leave out sentences of our corpus kept by build --second-pass")
    parser.add_argument("--tagset", choices=TAGSETS, default="conll", help=TAGSET_HELP)
    parser.add_argument("--gazetteer", metavar="FILE", help="gazetteer TSV for membership features")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text corpora")
    parser.add_argument("--max-iterations", type=int, default=100, help="L-BFGS iterations (default 100)")
    parser.add_argument("--c1", type=float, default=0.1, help="L1 regularisation (default 0.1)")
    parser.add_argument("--c2", type=float, default=0.01, help="L2 regularisation (default 0.01)")
    parser.add_argument("--min-feature-freq", type=int, default=1,
                        help="drop features seen fewer times (CRFsuite feature.minfreq)")
    parser.add_argument("--progress-every", type=int, default=1, metavar="N",
                        help="print a progress line (loss, seconds) every N iterations on stderr "
                             "(default 1; 0: none; -q: none)")


def run(args: argparse.Namespace) -> int:
    check_model_outputs(args.model)  # before reading anything, and not after training
    check_tagset(args.corpus, args.format, args.tagset)
    sentences = read_corpora(args.corpus, args.format, tagset=args.tagset, encoding=args.encoding)
    report = train(
        sentences, args.model, max_tokens=args.max_tokens,
        exclude_low_quality=args.exclude_low_quality, exclude_second_pass=args.exclude_second_pass, c1=args.c1, c2=args.c2,
        max_iterations=args.max_iterations, gazetteer=args.gazetteer,
        min_feature_freq=args.min_feature_freq, tagset=args.tagset,
        progress=None if args.quiet else _print_progress, progress_every=args.progress_every,
    )
    print(
        f"trained {report.model_path} on {report.sentences} sentences, {report.tokens} tokens "
        f"({report.skipped_low_quality} low-quality, {report.skipped_second_pass} second-pass skipped); labels {' '.join(report.labels)}; "
        f"{report.iterations} iterations; features {report.feature_seconds:.1f}s, "
        f"training {report.train_seconds:.1f}s"
        + (f"; final loss {report.final_loss:,.2f}" if report.final_loss is not None else "")
    )
    return 0


def _print_progress(line: str) -> None:
    print(f"wikisilver train: {line}", file=sys.stderr, flush=True)
