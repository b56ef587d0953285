"""The paper's §6 experiment grid: train a CRF on corpus X, test on corpus Y.

Rows are training configurations (corpus, token budget, with/without low-quality sentences),
columns are test corpora, cells are P/R/F (exact-match, conlleval), laid out like Tables 1 and 3 of
Nemeskey & Simon. Nothing is downloaded: every corpus is a path the user passes.

    python benchmarks/quality.py \\
        --train huwiki=output/huwiki/latest/parquet --train nerkor=../shared/data/gold/nerkor/train \\
        --test nerkor-devel=../shared/data/gold/nerkor/devel --test huwiki-test=split/test.tsv \\
        --budget 3500000 --low-quality both --work /tmp/quality
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from wikisilver.corpus.inputs import read_corpora, read_corpus
from wikisilver.errors import WikisilverError
from wikisilver.ner.crf import Tagger, train
from wikisilver.ner.scores import evaluate_tagger


def named_path(value: str) -> tuple[str, str]:
    name, sep, path = value.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got {value!r}")
    return name, path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=named_path, action="append", required=True, metavar="NAME=PATH",
                        help="training corpus (repeatable; PATH may be a comma-separated list)")
    parser.add_argument("--test", type=named_path, action="append", required=True, metavar="NAME=PATH",
                        help="test corpus (repeatable)")
    parser.add_argument("--budget", type=int, action="append", metavar="TOKENS",
                        help="token budget of the training data (repeatable; default: all)")
    parser.add_argument("--low-quality", choices=("with", "without", "both"), default="with",
                        help="train with, without, or both with and without low-quality sentences")
    parser.add_argument("--tagset", default="conll", choices=("conll", "fine", "dbpedia"))
    parser.add_argument("--max-iterations", type=int, default=100)
    parser.add_argument("--min-feature-freq", type=int, default=1)
    parser.add_argument("--gazetteer", help="gazetteer TSV used by every model")
    parser.add_argument("--work", default="quality-models", help="directory for the models")
    parser.add_argument("--json", help="write every cell as JSON too")
    args = parser.parse_args(argv)

    budgets: list[int | None] = list(args.budget) if args.budget else [None]
    variants = {"with": [False], "without": [True], "both": [False, True]}[args.low_quality]
    os.makedirs(args.work, exist_ok=True)
    results = []
    try:
        for train_name, train_paths in args.train:
            for budget in budgets:
                for exclude in variants:
                    label = train_name
                    if budget is not None:
                        label += f" {budget / 1e6:g}M"
                    if len(variants) > 1:
                        label += " -lq" if exclude else " +lq"
                    model = os.path.join(args.work, label.replace(" ", "_") + ".crfsuite")
                    started = time.perf_counter()
                    report = train(
                        read_corpora(train_paths.split(","), tagset=args.tagset), model,
                        max_tokens=budget, exclude_low_quality=exclude,
                        max_iterations=args.max_iterations, gazetteer=args.gazetteer,
                        min_feature_freq=args.min_feature_freq, tagset=args.tagset,
                    )
                    print(f"# trained {label}: {report.tokens} tokens in "
                          f"{time.perf_counter() - started:.0f}s", file=sys.stderr)
                    tagger = Tagger(model)
                    cells = {}
                    for test_name, test_path in args.test:
                        scores = evaluate_tagger(tagger, read_corpus(test_path, tagset=args.tagset))
                        cells[test_name] = scores
                    results.append((label, report.tokens, cells))
    except WikisilverError as error:
        print(f"quality: error: {error}", file=sys.stderr)
        return 2

    tests = [name for name, _ in args.test]
    corner = "train \\ test"
    width = max(len(corner), *(len(label) for label, _, _ in results))
    cell = 20
    print(f"{corner:<{width}} {'tokens':>10} " + " ".join(f"{t:>{cell}}" for t in tests))
    print(f"{'':<{width}} {'':>10} " + " ".join(f"{'P / R / F':>{cell}}" for _ in tests))
    for label, tokens, cells in results:
        row = " ".join(
            f"{f'{s.precision:.1f} / {s.recall:.1f} / {s.f1:.1f}':>{cell}}"
            for s in (cells[t] for t in tests)
        )
        print(f"{label:<{width}} {tokens:>10} {row}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(
                [{"train": label, "tokens": tokens, "test": {t: s.to_json() for t, s in cells.items()}}
                 for label, tokens, cells in results],
                handle, indent=2,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
