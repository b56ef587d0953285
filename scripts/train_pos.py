"""Train a UPOS tagger and lemmatizer on a CoNLL-U treebank; write mappings/<lang>/pos_model.json.gz.

Usage:
  python scripts/train_pos.py --features hu ../shared/data/gold/nerkor/train ../shared/data/gold/nerkor/devel \\
      mappings/hu/pos_model.json.gz
  python scripts/train_pos.py --features en --verb-forms --iterations 12 --lemma-candidates 3 \\
      ../shared/data/gold/ud_english_ewt/en_ewt-ud-train.conllu ../shared/data/gold/ud_english_ewt/en_ewt-ud-dev.conllu \\
      mappings/en/pos_model.json.gz

TRAIN and DEV are CoNLL-U files or directories of them (``*.conllu``, ``*.conllup``; NerKor's
CoNLL-U Plus or Universal Dependencies' plain CoNLL-U). The model is fitted on TRAIN; DEV chooses
the iteration (``--choose-on-dev``, the default for ``en``) and is reported. ``--verb-forms`` tags
VERB and AUX with their ``VerbForm`` (``VERB:Fin``, ``AUX:Part``, …), which the English processor
reads for its finite-verb test. Test-set figures: ``benchmarks/pos_accuracy.py``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from wikisilver.text.lemmatizer import SuffixLemmatizer
from wikisilver.text.tagger import PerceptronTagger, save_model
from wikisilver.text.treebank import read_conllup


def load(path: Path) -> list[list[tuple[str, str, str, str]]]:
    files = [path] if path.is_file() else sorted(p for p in path.glob("**/*") if p.suffix in (".conllu", ".conllup"))
    return [sent for file in files for sent in read_conllup(file)]


def tagged(sentences: list[list[tuple[str, str, str, str]]], verb_forms: bool) -> list[list[tuple[str, str]]]:
    """(form, tag) per token: the UPOS, with ``:VerbForm`` on VERB and AUX under ``verb_forms``."""
    def tag(upos: str, feats: str) -> str:
        if verb_forms and upos in ("VERB", "AUX"):
            form = next((f[9:] for f in feats.split("|") if f.startswith("VerbForm=")), "")
            return f"{upos}:{form}" if form else upos
        return upos

    return [[(form, tag(upos, feats)) for form, _, upos, feats in sent] for sent in sentences]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("train", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--features", choices=("hu", "en"), default="hu")
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--verb-forms", action="store_true", help="tag VERB/AUX with their VerbForm")
    parser.add_argument("--dict-min-count", type=int, default=20,
                        help="words seen this often with one tag (--dict-purity of the time) skip the perceptron")
    parser.add_argument("--dict-purity", type=float, default=0.97)
    parser.add_argument("--lemma-candidates", type=int, default=1,
                        help="rules kept per suffix, chosen between by the training lemmas (en: 3)")
    parser.add_argument("--choose-on-dev", action=argparse.BooleanOptionalAction, default=None,
                        help="keep the iteration that tags DEV best (default: on for --features en)")
    parser.add_argument("--source", default="", help="where the training data comes from, for the model's meta")
    args = parser.parse_args()
    choose = args.features == "en" if args.choose_on_dev is None else args.choose_on_dev
    train = load(args.train)
    dev = load(args.dev)
    print(f"train: {len(train)} sentences, {sum(map(len, train))} tokens; dev: {sum(map(len, dev))} tokens")
    started = time.perf_counter()
    dev_tagged = tagged(dev, args.verb_forms)
    tagger = PerceptronTagger.train(tagged(train, args.verb_forms), iterations=args.iterations,
                                    features=args.features, dev=dev_tagged if choose else None,
                                    min_dict_count=args.dict_min_count, dict_purity=args.dict_purity)
    lemmatizer = SuffixLemmatizer.train(((t[0], t[2], t[1]) for s in train for t in s), candidates=args.lemma_candidates)
    print(f"trained in {time.perf_counter() - started:.0f}s")
    correct = lemma_ok = total = 0
    for sent in dev:
        for (form, lemma, upos, _), tag in zip(sent, tagger.tag([t[0] for t in sent])):
            upos_guess = tag.partition(":")[0]
            correct += upos_guess == upos
            lemma_ok += lemmatizer.lemmatize(form, upos_guess).lower() == lemma.lower()
            total += 1
    meta = {
        "source": args.source or f"{args.train} (fitted), {args.dev} (dev)",
        "features": args.features,
        "verb_forms": args.verb_forms,
        "dev_upos_accuracy": round(correct / total, 4),
        "dev_lemma_accuracy": round(lemma_ok / total, 4),
        "iterations": args.iterations,
        "dict_min_count": args.dict_min_count,
        "dict_purity": args.dict_purity,
        "lemma_candidates": args.lemma_candidates,
    }
    print(f"dev UPOS accuracy {correct / total:.4f}, lemma accuracy {lemma_ok / total:.4f} ({total} tokens)")
    save_model(args.out, tagger, lemmatizer, meta)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
