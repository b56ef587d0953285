"""Issue 18's figures: what the second pass (``build --second-pass``) recovers, and whether a CRF
trained on the two-pass corpus beats one trained on the first-pass corpus at an equal token budget.

Steps (every model and corpus under ``--work``; nothing is downloaded):

1. build the first-pass corpus of the dumps (``wikisilver build``);
2. choose the threshold on silver data alone (``--choose``): a CRF trained on 80 % of the
   first-pass articles tags the other 20 %; for each threshold, the precision against the silver
   labels of the spans whose every token's marginal reaches it (the smallest threshold with
   precision >= 90 % is the one to ship; the gold is never looked at for this);
3. train the first-pass model on the first-pass corpus and build again with ``--second-pass``;
4. print kept sentences, entity mentions and NE density before and after;
5. train a CRF on each corpus with the same number of tokens (sentences shuffled with ``--seed``,
   up to the budget: by default all the first-pass training tokens) and score both on the gold.

The gold sentences come from the same dumps (and a third of them are sentences the first pass
drops), so the articles of the gold (its ``# title =`` lines) are left out of every training set:
of the first-pass model's, and of both compared models'.

    python benchmarks/second_pass.py --work /tmp/second-pass             # English, shared data
    python benchmarks/second_pass.py --lang hu --work /tmp/second-pass-hu  # Hungarian, NerKor devel
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from wikisilver.corpus.goldcheck import is_recovered, read_blind_gold, recovered_spans_right
from wikisilver.corpus.inputs import read_corpus
from wikisilver.corpus.read import read_sentences, tagged
from wikisilver.corpus.tags import TaggedSentence, iob_to_spans
from wikisilver.ner.crf import Tagger, load_model, train
from wikisilver.ner.scores import evaluate_tagger
from wikisilver.records import LabelledSentence

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
DUMPS = {
    "en": ["gensim_enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2", "enwiki-minidump.xml.bz2"],
    "hu": ["huwiki-minidump.xml.bz2"],
}
GOLD = {"en": ROOT / "tests" / "gold" / "en_wiki_blind.conll", "hu": DATA / "gold" / "nerkor" / "devel"}
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99)


def build(lang: str, out: Path, *extra: str) -> dict:
    """``wikisilver build`` of the shared dumps of ``lang`` into ``out``; its stats.json."""
    command = [sys.executable, "-m", "wikisilver.cli", "-q", "build", "--lang", lang, "--out", str(out), "--overwrite",
               "--ontology", str(DATA / "dbpedia/ontology/dbo-snapshots.owl"),
               "--types", str(DATA / "dbpedia/types/db100k-types.nt.bz2"),
               "--types", str(DATA / "dbpedia/types/db111k-types.nt.bz2"), *extra]
    for dump in DUMPS[lang]:
        command += ["--dump", str(DATA / "wikidumps" / dump)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads((out / "stats.json").read_text(encoding="utf-8"))


def outside(sentences: Iterable[LabelledSentence], leave_out: set[str]) -> list[TaggedSentence]:
    """The sentences of a corpus outside ``leave_out`` articles, in corpus order."""
    return [tagged(s) for s in sentences if s.title not in leave_out]


def shuffled(sentences: Sequence[TaggedSentence], seed: int) -> list[TaggedSentence]:
    """A training set: the sentences shuffled (a budget then takes a sample of the whole corpus,
    not its first articles)."""
    found = list(sentences)
    random.Random(seed).shuffle(found)
    return found


def read_gold(path: Path) -> list[TaggedSentence]:
    """The blind gold of tests/gold (``# title`` blocks: its sentences have the title of the
    article they come from), or a CoNLL file or folder of other texts (NerKor: no titles)."""
    if path.is_file() and path.suffix == ".conll":
        return [TaggedSentence(g.tokens, g.tags, title=g.title) for g in read_blind_gold(str(path))]
    return list(read_corpus(str(path)))


def figures(stats: dict) -> tuple[int, int, int, float]:
    """(kept sentences, tokens, entity mentions, NE density) of a stats.json."""
    return (stats["sentences_kept"], stats["tokens_kept"], sum(stats["entities_by_tag"].values()),
            stats["ne_density"])


def choose_threshold(sentences: list[TaggedSentence], work: Path) -> list[tuple[float, int, float, int, float]]:
    """(threshold, spans, precision vs silver, spans of a form the training articles know with
    that type, their precision) of a CRF trained on 80 % of the articles of ``sentences``, on
    the other 20 %."""
    def held_out(sentence: TaggedSentence) -> bool:
        return zlib.crc32((sentence.title or "").encode()) % 5 == 0

    model = str(work / "calibration.crfsuite")
    train((s for s in sentences if not held_out(s)), model)
    loaded = load_model(model, known=True)
    tagger = Tagger(loaded)
    known = loaded.known or {}
    scored: list[tuple[float, bool, bool]] = []  # (the span's lowest marginal, it is the silver's, known form)
    for sentence in filter(held_out, sentences):
        predicted, marginals = tagger.tag_marginals(sentence.tokens)
        silver = set(iob_to_spans(sentence.tags))
        for start, end, kind in iob_to_spans(predicted):
            scored.append((min(marginals[start:end]), (start, end, kind) in silver,
                           known.get(tuple(sentence.tokens[start:end])) == kind))
    rows = []
    for threshold in THRESHOLDS:
        sure = [right for low, right, _ in scored if low >= threshold]
        agreed = [right for low, right, agrees in scored if low >= threshold and agrees]
        rows.append((threshold, len(sure), 100 * sum(sure) / len(sure) if sure else 0.0,
                     len(agreed), 100 * sum(agreed) / len(agreed) if agreed else 0.0))
    return rows


def recovered_on_gold(corpus: Iterable[LabelledSentence], gold: Iterable[TaggedSentence]) -> str:
    """The recovered spans of the gold's sentences (a third of the English gold is sentences the
    first pass drops) scored against the gold: a blind check before the hand-check."""
    recovered = {(s.title, s.tokens): s for s in corpus if is_recovered(s)}
    right = total = sentences = 0
    for sentence in gold:
        found = recovered.get((sentence.title, sentence.tokens))
        if found is None:
            continue
        sentences += 1
        for _, is_right in recovered_spans_right(found, sentence.tags):
            total += 1
            right += is_right
    return (f"{sentences} gold sentences recovered, {total} recovered spans in them, "
            f"precision {100 * right / total if total else 0:.1f} %")


def equal_budget(sets: dict[str, list[TaggedSentence]], budget: int, work: Path, gold: Iterable[TaggedSentence]):
    """Train one CRF per corpus on ``budget`` tokens; (name, tokens, scores) of each on the gold."""
    gold = list(gold)
    results = []
    for name, sentences in sets.items():
        model = str(work / f"{name}.crfsuite")
        report = train(sentences, model, max_tokens=budget)
        results.append((name, report.tokens, evaluate_tagger(Tagger(model), gold)))
        print(f"# trained and scored {name}", file=sys.stderr, flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=sorted(DUMPS), default="en")
    parser.add_argument("--work", type=Path, default=Path("second-pass-work"))
    parser.add_argument("--threshold", type=float, action="append",
                        help="second-pass threshold(s) to build with (default: the build's default)")
    parser.add_argument("--budget", type=int, help="training tokens of each compared model "
                                                    "(default: all the first-pass training tokens)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--choose", action="store_true", help="also print the threshold table of step 2")
    args = parser.parse_args(argv)
    from wikisilver.labels.second_pass import DEFAULT_THRESHOLD

    args.work.mkdir(parents=True, exist_ok=True)
    gold_path = GOLD[args.lang]
    gold = read_gold(gold_path)  # each corpus and the gold are read once
    leave_out = {sentence.title for sentence in gold if sentence.title}
    first = args.work / "first"
    before = build(args.lang, first)
    first_kept = outside(read_sentences(first), leave_out)
    print(f"# {args.lang}: gold {gold_path.name}, {len(leave_out)} gold articles left out of every training set")
    if args.choose:
        print("\nthreshold choice (silver only): threshold, model spans that reach it, their precision vs silver;"
              " of them, the spans of a form the training articles know with the model's type, their precision")
        for threshold, spans, precision, agreed, agreed_precision in choose_threshold(first_kept, args.work):
            print(f"  {threshold:5.2f} {spans:7d} {precision:6.1f} {agreed:7d} {agreed_precision:6.1f}")
    model = args.work / "first-pass.crfsuite"
    first_set = shuffled(first_kept, args.seed)
    train(first_set, str(model))
    budget = args.budget or sum(len(s.tokens) for s in first_set)
    print(f"\n{'corpus':<24} {'sentences':>9} {'tokens':>8} {'mentions':>8} {'NE dens.':>8}")
    print(f"{'first pass':<24} {figures(before)[0]:9d} {figures(before)[1]:8d} {figures(before)[2]:8d} "
          f"{100 * figures(before)[3]:7.2f}%")
    sets = {"first-pass": first_set}
    for threshold in args.threshold or [DEFAULT_THRESHOLD]:
        out = args.work / f"two-pass-{threshold:g}"
        after = build(args.lang, out, "--second-pass", str(model), "--second-pass-threshold", str(threshold))
        kept, tokens, mentions, density = figures(after)
        print(f"{f'two pass, threshold {threshold:g}':<24} {kept:9d} {tokens:8d} {mentions:8d} {100 * density:7.2f}%"
              f"   second_pass {json.dumps(after['second_pass'])}")
        sentences = list(read_sentences(out))
        sets[f"two-pass-{threshold:g}"] = shuffled(outside(sentences, leave_out), args.seed)
        if leave_out:
            print(f"{'':<24} on the blind gold: {recovered_on_gold(sentences, gold)}")
    print(f"\nCRF at an equal budget of {budget:,} tokens, scored on {gold_path.name} (exact match)")
    print(f"{'training corpus':<24} {'tokens':>8} {'P':>6} {'R':>6} {'F1':>6}  per type F1")
    for name, tokens, scores in equal_budget(sets, budget, args.work, gold):
        types = " ".join(f"{kind} {s.f1:.1f}" for kind, s in sorted(scores.per_type.items()))
        print(f"{name:<24} {tokens:8d} {scores.precision:6.1f} {scores.recall:6.1f} {scores.f1:6.1f}  {types}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
