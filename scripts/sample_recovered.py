"""The blind hand-check of the second pass (issue 18): sample recovered sentences for annotators,
then score their annotation against the spans the second pass gave.

Sample: sentences of a corpus built with ``--second-pass`` whose ``source`` is ``second_pass`` and
that hold at least one span the model recovered (rule ``second_pass``: the spans whose precision is
checked), drawn with a seed; written as the blind gold of tests/gold is given to annotators: one
block per sentence, ``# title = …``, ``# sentence = N``, ``# text = …``, then one token per line and
no tag (annotators add ``<TAB>tag``, IOB2, from tests/gold/GUIDELINES_EN.md)::

    python scripts/sample_recovered.py sample --corpus OUT --n 100 --seed 1 --out recovered-todo.txt \
        --key recovered-key.jsonl

``--key`` also writes the sampled sentences with their labels (JSON lines), for scoring without the
corpus; it is for the scorer, never for the annotators.

Score: the annotated file (same blocks, ``token<TAB>tag`` lines) against the corpus: the precision
of the recovered spans (exact match: same tokens, same type) and, for the whole sentences, the
conlleval P/R/F of all their spans (links' and recovered)::

    python scripts/sample_recovered.py score --corpus OUT --annotation recovered-annotated.conll
    python scripts/sample_recovered.py score --key recovered-key.jsonl --annotation recovered-annotated.conll
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter

from wikisilver.corpus.goldcheck import read_blind_gold, recovered_sentences, recovered_spans_right
from wikisilver.labels.second_pass import RULE, SOURCE
from wikisilver.ner.scores import ChunkCounter
from wikisilver.records import EntitySpan, LabelledSentence


def sample(corpus: str, n: int, seed: int, out: str, key: str | None = None) -> int:
    found = recovered_sentences(corpus)
    if not found:
        print(f"sample_recovered: {corpus} holds no sentence recovered by the second pass", file=sys.stderr)
        return 2
    chosen = sorted(random.Random(seed).sample(found, min(n, len(found))), key=lambda s: (s.title, s.index))
    with open(out, "w", encoding="utf-8") as handle:
        for s in chosen:
            text = (s.text or " ".join(s.tokens)).replace("\n", " ")
            handle.write(f"# title = {s.title}\n# sentence = {s.index}\n# text = {text}\n")
            handle.write("".join(f"{token}\n" for token in s.tokens) + "\n")
    if key:
        with open(key, "w", encoding="utf-8") as handle:
            for s in chosen:
                record = {"title": s.title, "sentence": s.index, "tokens": s.tokens, "conll_tags": s.conll_tags,
                          "spans": [[span.start, span.end, span.conll, span.rule] for span in s.spans]}
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    spans = sum(1 for s in chosen for span in s.spans if span.rule == RULE)
    print(f"wrote {len(chosen)} of {len(found)} recovered sentences ({spans} recovered spans) to {out}")
    return 0


def from_key(key: str) -> list[LabelledSentence]:
    """The sentences a ``sample --key`` file holds (only what scoring reads)."""
    out = []
    with open(key, encoding="utf-8") as handle:
        for line in handle:
            r = json.loads(line)
            spans = tuple(EntitySpan(a, b, kind, kind, "", rule) for a, b, kind, rule in r["spans"])
            out.append(LabelledSentence(0, r["title"], r["sentence"], tuple(r["tokens"]), (), (), (),
                                        tuple(r["conll_tags"]), spans, source=SOURCE))
    return out


def score(corpus: str | None, annotation: str, key: str | None = None) -> int:
    by_key = {(s.title, s.index): s for s in (from_key(key) if key else recovered_sentences(corpus))}
    whole = ChunkCounter()
    right = Counter()
    total = Counter()
    missing = 0
    for gold in read_blind_gold(annotation):
        silver = by_key.get((gold.title, gold.index))
        if silver is None or silver.tokens != gold.tokens:
            missing += 1
            continue
        whole.add(gold.tags, silver.conll_tags)
        for kind, is_right in recovered_spans_right(silver, gold.tags):
            total[kind] += 1
            right[kind] += is_right
    if missing:
        print(f"sample_recovered: {missing} annotated sentence(s) not among the corpus's recovered ones "
              "(another corpus?); left out", file=sys.stderr)
    n, ok = sum(total.values()), sum(right.values())
    print(f"recovered spans: {ok} / {n} right, precision {100 * ok / n if n else 0:.1f} %")
    for kind in sorted(total):
        print(f"  {kind:<5} {right[kind]} / {total[kind]}")
    s = whole.scores()
    print(f"whole sentences (links' and recovered spans): P {s.precision:.1f} R {s.recall:.1f} F {s.f1:.1f} "
          f"({s.gold} annotated spans)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sampler = commands.add_parser("sample", help="write recovered sentences, tokens only, for annotators")
    sampler.add_argument("--corpus", required=True, help="a corpus built with --second-pass")
    sampler.add_argument("--n", type=int, default=100)
    sampler.add_argument("--seed", type=int, default=1)
    sampler.add_argument("--out", required=True)
    sampler.add_argument("--key", help="also write the sampled sentences with their labels here (for scoring)")
    scorer = commands.add_parser("score", help="precision of the recovered spans against an annotation")
    where = scorer.add_mutually_exclusive_group(required=True)
    where.add_argument("--corpus", help="the corpus the sample was drawn from")
    where.add_argument("--key", help="the --key file of the sample")
    scorer.add_argument("--annotation", required=True)
    args = parser.parse_args(argv)
    if args.command == "sample":
        return sample(args.corpus, args.n, args.seed, args.out, args.key)
    return score(args.corpus, args.annotation, args.key)


if __name__ == "__main__":
    sys.exit(main())
