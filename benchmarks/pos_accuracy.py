"""Accuracy of the built-in tagger and lemmatizer on gold CoNLL-U files, with the gold tokens.

The tokens are the treebank's syntactic words (multiword-token ranges skipped), tagged and
lemmatized by the same processor the pipeline uses (``get_processor(LANG).annotate``)::

    python benchmarks/pos_accuracy.py --lang en ../shared/data/gold/ud_english_ewt/en_ewt-ud-test.conllu
    python benchmarks/pos_accuracy.py --lang hu ../shared/data/gold/ud_hungarian_szeged/hu_szeged-ud-test.conllu

Prints UPOS accuracy, lemma accuracy (compared in lower case, as the models are chosen; the exact
figure beside it) and, for a processor that tags verb forms (English), how often a gold VERB/AUX
is called finite exactly when its gold ``VerbForm`` is ``Fin``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wikisilver.text import get_processor
from wikisilver.text.treebank import read_conllup


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", required=True, help="a language with a pack (mappings/<lang>/pack.toml): its processor tags the tokens")
    parser.add_argument("conllu", nargs="+", type=Path, help="gold CoNLL-U file(s)")
    args = parser.parse_args(argv)
    processor = get_processor(args.lang)
    total = upos_ok = lemma_ok = lemma_exact = verbs = finite_ok = 0
    for path in args.conllu:
        for sent in read_conllup(path):
            for (_, lemma, upos, feats), guess in zip(sent, processor.annotate([t[0] for t in sent])):
                total += 1
                upos_ok += guess[1] == upos
                lemma_ok += guess[0].lower() == lemma.lower()
                lemma_exact += guess[0] == lemma
                if len(guess) > 2 and upos in ("VERB", "AUX"):
                    verbs += 1
                    finite_ok += (guess[2] == "Fin") == ("VerbForm=Fin" in feats.split("|"))
    if not total:
        print("no tokens read", file=sys.stderr)
        return 1
    print(f"{args.lang}: {total} tokens of {', '.join(p.name for p in args.conllu)} (gold tokens)")
    print(f"UPOS accuracy   {100 * upos_ok / total:.2f} %")
    print(f"lemma accuracy  {100 * lemma_ok / total:.2f} % (lower-cased; exact {100 * lemma_exact / total:.2f} %)")
    if verbs:
        print(f"finite verb     {100 * finite_ok / verbs:.2f} % of {verbs} gold VERB/AUX tokens (VerbForm=Fin or not)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
