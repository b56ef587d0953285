"""Train a UPOS tagger and lemmatizer on CoNLL-U treebanks; write a pack's pos_model.json.gz.

Usage:
  python scripts/train_pos.py --lang LANG --train TRAIN [--train MORE] --dev DEV [--out FILE]

``--lang`` reads the training recipe from the pack (``mappings/<lang>/pack.toml`` ``[tagger]``:
``features``, ``verb_forms``, ``words``, ``iterations``, ``lemma_candidates``, ``choose_on_dev``) and
writes ``mappings/<lang>/pos_model.json.gz`` unless ``--out`` says where; an option given here
overrides the recipe. For example (each pack's README.md has its command and figures):

  python scripts/train_pos.py --lang en --train ../shared/data/gold/ud_english_ewt/en_ewt-ud-train.conllu \\
      --dev ../shared/data/gold/ud_english_ewt/en_ewt-ud-dev.conllu

TRAIN and DEV are CoNLL-U files or directories of them (``*.conllu``, ``*.conllup``; NerKor's
CoNLL-U Plus or Universal Dependencies' plain CoNLL-U). The model is fitted on TRAIN; DEV chooses
the iteration (``choose_on_dev``) and is reported. ``verb_forms`` tags VERB and AUX with their
``VerbForm`` (``VERB:Fin``, ``AUX:Part``, …), which a pack's ``[finite_verb] test = "verb_form"``
reads. ``words`` says how multiword tokens are read (:func:`wikisilver.text.treebank.read_conllup`:
``surface`` as the text writes them, "della", which is what the pipeline's tokens are;
``syntactic``, "di" "la"; ``both``). Test-set figures: ``benchmarks/pos_accuracy.py``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from wikisilver.languages import has_language_pack, language_pack
from wikisilver.text.lemmatizer import SuffixLemmatizer
from wikisilver.text.tagger import FEATURE_SETS, PerceptronTagger, save_model
from wikisilver.text.treebank import WORDS, read_conllup

# What a recipe says when neither the pack nor the command line does.
DEFAULTS = {"features": "suffix", "verb_forms": False, "words": "syntactic", "iterations": 5,
            "lemma_candidates": 1, "choose_on_dev": False, "dict_min_count": 20, "dict_purity": 0.97}


def load(paths: list[Path], words: str) -> list[list[tuple[str, str, str, str]]]:
    files = [f for path in paths for f in ([path] if path.is_file() else
             sorted(p for p in path.glob("**/*") if p.suffix in (".conllu", ".conllup")))]
    return [sent for file in files for sent in read_conllup(file, words)]


def tagged(sentences: list[list[tuple[str, str, str, str]]], verb_forms: bool) -> list[list[tuple[str, str]]]:
    """(form, tag) per token: the UPOS, with ``:VerbForm`` on VERB and AUX under ``verb_forms``."""
    def tag(upos: str, feats: str) -> str:
        if verb_forms and upos in ("VERB", "AUX"):
            form = next((f[9:] for f in feats.split("|") if f.startswith("VerbForm=")), "")
            return f"{upos}:{form}" if form else upos
        return upos

    return [[(form, tag(upos, feats)) for form, _, upos, feats in sent] for sent in sentences]


def recipe(args: argparse.Namespace) -> dict:
    """The training settings: the command line's over the pack's ``[tagger]`` over :data:`DEFAULTS`."""
    pack = language_pack(args.lang).section("tagger") if args.lang else {}
    return {key: getattr(args, key) if getattr(args, key) is not None else pack.get(key, default)
            for key, default in DEFAULTS.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", help="the language pack whose [tagger] recipe to follow and model to write")
    parser.add_argument("--train", type=Path, action="append", required=True, help="repeatable")
    parser.add_argument("--dev", type=Path, required=True)
    parser.add_argument("--out", type=Path, help="default: mappings/<lang>/ of the pack, its [tagger] model")
    parser.add_argument("--features", choices=FEATURE_SETS)
    parser.add_argument("--words", choices=WORDS)
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--verb-forms", action=argparse.BooleanOptionalAction, help="tag VERB/AUX with their VerbForm")
    parser.add_argument("--dict-min-count", type=int,
                        help="words seen this often with one tag (--dict-purity of the time) skip the perceptron")
    parser.add_argument("--dict-purity", type=float)
    parser.add_argument("--lemma-candidates", type=int, help="rules kept per suffix, chosen between by the training lemmas")
    parser.add_argument("--choose-on-dev", action=argparse.BooleanOptionalAction,
                        help="keep the iteration that tags DEV best")
    parser.add_argument("--source", default="", help="where the training data comes from, for the model's meta")
    args = parser.parse_args()
    if args.lang and not has_language_pack(args.lang):
        parser.error(f"no language pack mappings/{args.lang}/pack.toml")
    if args.out is None:
        if not args.lang:
            parser.error("give --out, or --lang to write the pack's model")
        # the checkout's mappings/ (an editable install reads it through links)
        model = language_pack(args.lang).section("tagger").get("model", "pos_model.json.gz")
        args.out = Path(__file__).resolve().parents[1] / "mappings" / args.lang / model
    settings = recipe(args)
    train = load(args.train, settings["words"])
    dev = load([args.dev], settings["words"])
    print(f"train: {len(train)} sentences, {sum(map(len, train))} tokens; dev: {sum(map(len, dev))} tokens; {settings}")
    started = time.perf_counter()
    dev_tagged = tagged(dev, settings["verb_forms"])
    tagger = PerceptronTagger.train(tagged(train, settings["verb_forms"]), iterations=settings["iterations"],
                                    features=settings["features"], dev=dev_tagged if settings["choose_on_dev"] else None,
                                    min_dict_count=settings["dict_min_count"], dict_purity=settings["dict_purity"])
    lemmatizer = SuffixLemmatizer.train(((t[0], t[2], t[1]) for s in train for t in s),
                                        candidates=settings["lemma_candidates"])
    print(f"trained in {time.perf_counter() - started:.0f}s")
    correct = lemma_ok = total = 0
    for sent in dev:
        for (form, lemma, upos, _), tag in zip(sent, tagger.tag([t[0] for t in sent])):
            upos_guess = tag.partition(":")[0]
            correct += upos_guess == upos
            lemma_ok += lemmatizer.lemmatize(form, upos_guess).lower() == lemma.lower()
            total += 1
    meta = {
        "source": args.source or f"{', '.join(map(str, args.train))} (fitted), {args.dev} (dev)",
        **settings,
        "dev_upos_accuracy": round(correct / total, 4),
        "dev_lemma_accuracy": round(lemma_ok / total, 4),
    }
    print(f"dev UPOS accuracy {correct / total:.4f}, lemma accuracy {lemma_ok / total:.4f} ({total} tokens)")
    save_model(args.out, tagger, lemmatizer, meta)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
