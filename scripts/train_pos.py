"""Train the Hungarian UPOS tagger and lemmatizer on NerKor; write mappings/hu/pos_model.json.gz.

Usage: python scripts/train_pos.py NERKOR_DIR OUT.json.gz [--iterations N]

NERKOR_DIR holds train/ and devel/ with */*.conllup files (NYTK-NerKor, CC BY-SA 4.0). Prints the
UPOS accuracy and lemma accuracy on devel (gold tokenization), which go in mappings/hu/README.md.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from wikisilver.text.tagger import PerceptronTagger, SuffixLemmatizer, read_conllup, save_model


def load(directory: Path) -> list[list[tuple[str, str, str, str]]]:
    sentences = []
    for path in sorted(directory.glob("**/*.conllup")):
        sentences.extend(read_conllup(path))
    return sentences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nerkor", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--iterations", type=int, default=5)
    args = parser.parse_args()
    train = load(args.nerkor / "train")
    devel = load(args.nerkor / "devel")
    print(f"train: {len(train)} sentences, {sum(map(len, train))} tokens; devel: {sum(map(len, devel))} tokens")
    started = time.perf_counter()
    tagger = PerceptronTagger.train([[(t[0], t[2]) for t in s] for s in train], iterations=args.iterations)
    lemmatizer = SuffixLemmatizer.train((t[0], t[2], t[1]) for s in train for t in s)
    print(f"trained in {time.perf_counter() - started:.0f}s")
    correct = lemma_ok = total = 0
    started = time.perf_counter()
    for sent in devel:
        tags = tagger.tag([t[0] for t in sent])
        for (form, lemma, upos, _), tag in zip(sent, tags):
            correct += tag == upos
            lemma_ok += lemmatizer.lemmatize(form, tag).lower() == lemma.lower()
            total += 1
    elapsed = time.perf_counter() - started
    meta = {
        "source": "NYTK-NerKor train split (CC BY-SA 4.0), UPOS and LEMMA columns",
        "devel_upos_accuracy": round(correct / total, 4),
        "devel_lemma_accuracy": round(lemma_ok / total, 4),
        "iterations": args.iterations,
    }
    print(f"devel UPOS accuracy {correct / total:.4f}, lemma accuracy {lemma_ok / total:.4f} "
          f"({total} tokens, {total / elapsed:.0f} tokens/s tag+lemma)")
    save_model(args.out, tagger, lemmatizer, meta)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
