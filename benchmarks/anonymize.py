"""Anonymization against gold NER: how much of each gold class stays in clear, and how much else is replaced.

For each detector (the model, the corpus's entity surfaces, both) and each method it prints, per
class, the **leak rate** (gold entity tokens left in clear: outside every replacement, or inside one
that repeats the token) and the **over-replacement rate** (gold O tokens replaced, by the type that
replaced them, over all gold O tokens), and the consistency errors per document: a gold name (its
uninflected form) replaced as two entities (*split*), a gold person whose shorter mention (*Merkel*
after *Angela Merkel*) did not follow the longer one (*partial*), two entities given the same
replacement (*collide*; tag, substitute, and generalize's persons).

Hungarian (NerKor): the model is trained on NerKor train (``--budget`` tokens, every k-th sentence so
every genre is in), the entity table is all of NerKor train; scored on NerKor devel::

    python benchmarks/anonymize.py nerkor --budget 400000 --model /tmp/nerkor.crf

English: an English silver corpus (``wikisilver build``; see benchmarks/silver_gold.py), less the
articles the blind gold was sampled from, trains the model and gives the entity table; scored on the
blind gold ``tests/gold/en_*_blind.conll``::

    python benchmarks/anonymize.py english --corpus /tmp/en --model /tmp/en.crf

``--model PATH``: an existing model is used as it is; a missing one is trained and written there.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence

from wikisilver.anonymize.detect import GazetteerDetector, detector, document_names
from wikisilver.anonymize.documents import documents
from wikisilver.anonymize.generalize import Generalizer, Wording
from wikisilver.anonymize.inflect import load_inflector
from wikisilver.anonymize.replace import METHODS, Anonymizer, AnonymizedDocument, Options
from wikisilver.anonymize.surrogates import EntityTable
from wikisilver.corpus.goldcheck import read_blind_gold
from wikisilver.corpus.inputs import read_corpus
from wikisilver.corpus.tags import TaggedSentence, iob_to_spans
from wikisilver.ner.crf import Tagger, train
from wikisilver.ontology import load_builtin_ontology, load_ontology

TYPES = ("PER", "LOC", "ORG", "MISC")
DETECTORS = ("model", "gazetteer", "both")


def budgeted(sentences: Sequence[TaggedSentence], budget: int | None) -> tuple[list[TaggedSentence], int]:
    """Every k-th sentence, k chosen so that about ``budget`` tokens are kept (all with no budget)."""
    total = sum(len(s.tokens) for s in sentences)
    step = max(1, math.ceil(total / budget)) if budget else 1
    return list(sentences[::step]), step


def model_for(path: str, sentences: Sequence[TaggedSentence], iterations: int) -> tuple[Tagger, str]:
    if os.path.isfile(path):
        return Tagger(path), f"model {path} (existing)"
    start = time.monotonic()
    report = train(sentences, path, max_iterations=iterations)
    return Tagger(path), (f"model {path}: CRF trained on {report.sentences:,} sentences, {report.tokens:,} tokens, "
                          f"{report.iterations} iterations, {time.monotonic() - start:.0f}s")


def base_key(sentence: TaggedSentence, start: int, end: int) -> tuple[str, ...]:
    """A gold name's uninflected form: the lemma of its last token where the gold has lemmas."""
    last = sentence.lemmas[end - 1] if sentence.lemmas and sentence.lemmas[end - 1] != "_" else sentence.tokens[end - 1]
    return sentence.tokens[start:end - 1] + (last,)


class Score:
    """Leaks, over-replacement and consistency over the documents of one detector and method."""

    def __init__(self, method: str) -> None:
        self.method = method
        self.gold = Counter()
        self.leaked = Counter()
        self.outside = 0
        self.over = Counter()
        self.split = self.partial = self.collide = 0
        self.documents = 0

    def add(self, gold_doc: Sequence[TaggedSentence], done: AnonymizedDocument) -> None:
        self.documents += 1
        labels: dict[tuple, set[str]] = defaultdict(set)
        persons: list[tuple[tuple[str, ...], str]] = []
        texts: dict[str, set[str]] = defaultdict(set)
        for sentence, replaced in zip(gold_doc, done.replaced):
            cover: dict[int, object] = {}
            for r in replaced:
                for i in range(r.start, r.end):
                    cover[i] = r
                if self.method == "tag" or self.method == "substitute" or (self.method == "generalize" and r.kind == "PER"):
                    texts[r.text].add(r.entity)
            spans = iob_to_spans(sentence.tags)
            kinds = ["O"] * len(sentence.tokens)
            for start, end, kind in spans:
                kinds[start:end] = [kind] * (end - start)
            for i, kind in enumerate(kinds):
                r = cover.get(i)
                if kind == "O":
                    self.outside += 1
                    if r is not None:
                        self.over[r.kind] += 1
                    continue
                self.gold[kind] += 1
                if r is None or sentence.tokens[i].casefold() in {w.casefold() for w in r.text.split()}:
                    self.leaked[kind] += 1
            exact = {(r.start, r.end): r for r in replaced}
            for start, end, kind in spans:
                r = exact.get((start, end))
                if r is not None:
                    key = base_key(sentence, start, end)
                    labels[(kind, key)].add(r.entity)
                    if kind == "PER":
                        persons.append((key, r.entity))
        self.split += sum(len(found) - 1 for found in labels.values())
        for short, entity in persons:
            for long, other in persons:
                if len(long) > len(short) and (long[:len(short)] == short or long[-len(short):] == short) and entity != other:
                    self.partial += 1
                    break
        self.collide += sum(len(found) - 1 for found in texts.values())

    def row(self, detector_name: str) -> str:
        def pct(n: int, d: int) -> str:
            return f"{100 * n / d:5.1f}%" if d else "     –"

        leak = [pct(self.leaked[k], self.gold[k]) for k in TYPES] + [pct(sum(self.leaked.values()), sum(self.gold.values()))]
        over = [pct(self.over[k], self.outside) for k in TYPES] + [pct(sum(self.over.values()), self.outside)]
        per_doc = (self.split + self.partial + self.collide) / max(1, self.documents)
        return (f"{detector_name:<9} {self.method:<10} | {' '.join(leak)} | {' '.join(over)} | "
                f"{self.split:5d} {self.partial:7d} {self.collide:7d} {per_doc:7.2f}")


_COLUMNS = " ".join(f"{k:>6}" for k in (*TYPES, "all"))
HEADER = (f"{'':<20} | {'leak: gold tokens in clear':<34} | {'over-replacement: O replaced':<34} | consistency errors\n"
          f"{'detector  method':<20} | {_COLUMNS} | {_COLUMNS} | split partial collide per-doc")


def run_benchmark(name: str, train_side: list[TaggedSentence], gold_docs: list[list[TaggedSentence]],
                  args: argparse.Namespace, lang: str) -> None:
    sample, step = budgeted(train_side, args.budget)
    tagger, described = model_for(args.model, sample, args.max_iterations)
    inflector = load_inflector(lang)
    table = EntityTable.from_sentences(train_side, inflector)
    ontology = load_ontology(args.ontology) if args.ontology else load_builtin_ontology()
    generalizer = Generalizer(ontology, table, lang, args.min_members, inflector)
    gazetteer = GazetteerDetector(table, inflector)
    gold_tokens = sum(len(s.tokens) for doc in gold_docs for s in doc)
    print(f"{name}: {gold_tokens:,} gold tokens in {len(gold_docs)} documents")
    print(f"{described}" + (f" (budget {args.budget:,} tokens: one sentence in {step})" if args.budget else ""))
    print(f"entity table: {len(table.types):,} surfaces of {sum(len(s.tokens) for s in train_side):,} tokens "
          f"(the gazetteer detector, surrogates, classes); --min-members {args.min_members}, --seed {args.seed}")
    print(HEADER)
    for detector_name in args.detectors:
        found = detector(detector_name, tagger.tag, gazetteer)
        spans = [document_names([s.tokens for s in doc], found, inflector, table) for doc in gold_docs]
        for method in args.methods:
            anonymizer = Anonymizer(Options(method, seed=args.seed), inflector, table=table, generalizer=generalizer,
                                    wording=Wording.load(lang))
            score = Score(method)
            for doc, doc_spans in zip(gold_docs, spans):
                score.add(doc, anonymizer.document(doc[0].doc_id or "", doc, doc_spans))
            counts = anonymizer.counts
            print(score.row(detector_name) + (f"   endings carried {counts.endings_carried}, left off {counts.endings_left_off}"
                                               if counts.endings_carried or counts.endings_left_off else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="gold", required=True)
    nerkor = sub.add_parser("nerkor", help="Hungarian: NerKor train -> devel")
    nerkor.add_argument("--train", default="../shared/data/gold/nerkor/train")
    nerkor.add_argument("--devel", default="../shared/data/gold/nerkor/devel")
    english = sub.add_parser("english", help="English: a silver corpus -> the blind gold")
    english.add_argument("--corpus", required=True, help="an English `wikisilver build` output")
    english.add_argument("--gold-file", action="append", help="blind gold (default tests/gold/en_*_blind.conll)")
    for p in (nerkor, english):
        p.add_argument("--model", required=True, help="model to use, or to train and write when missing")
        p.add_argument("--budget", type=int, help="train on about N tokens (default: all)")
        p.add_argument("--max-iterations", type=int, default=100)
        p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
        p.add_argument("--detectors", nargs="+", default=list(DETECTORS), choices=DETECTORS)
        p.add_argument("--min-members", type=int, default=10)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--ontology", help="DBpedia ontology (default: the built-in hierarchy)")
    args = parser.parse_args(argv)
    if args.gold == "nerkor":
        train_side = list(read_corpus(args.train))
        gold_docs = list(documents(read_corpus(args.devel)))
        run_benchmark("NerKor devel", train_side, gold_docs, args, "hu")
        return 0
    gold_files = args.gold_file or ["tests/gold/en_wiki_blind.conll", "tests/gold/en_org_blind.conll"]
    gold = [g for path in gold_files for g in read_blind_gold(path)]
    titles = {g.title for g in gold}
    train_side = [s for s in read_corpus(args.corpus) if s.title not in titles]
    by_title: dict[str, list[TaggedSentence]] = defaultdict(list)
    for g in gold:
        by_title[g.title].append(TaggedSentence(tokens=g.tokens, tags=g.tags, doc_id=g.title))
    print(f"silver corpus {args.corpus}: the {len(titles)} gold articles left out of training and of the entity table")
    run_benchmark("English blind gold (" + ", ".join(os.path.basename(f) for f in gold_files) + ")",
                  train_side, list(by_title.values()), args, "en")
    return 0


if __name__ == "__main__":
    sys.exit(main())
