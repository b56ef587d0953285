"""Proving the corpus: its silver labels scored against blind hand-annotated gold sentences.

Gold files hold blocks of ``# title = T``, ``# sentence = N``, ``# text = …`` and ``token<TAB>tag``
lines (IOB2). A gold sentence counts when the corpus kept a sentence of the same article with the
same tokens; the scores are conlleval's exact-match chunk P/R/F over those sentences.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from wikisilver.corpus.read import parquet_batches, read_sentences
from wikisilver.corpus.tags import iob_to_spans
from wikisilver.errors import InputError
from wikisilver.labels.second_pass import RULE, SOURCE
from wikisilver.ner.scores import ChunkCounter, Scores
from wikisilver.records import LabelledSentence


@dataclass(frozen=True)
class GoldSentence:
    title: str
    index: int
    tokens: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class GoldReport:
    scores: Scores
    gold_sentences: int
    kept_sentences: int
    gold_entities: int

    def format(self) -> str:
        s = self.scores
        lines = [f"gold sentences kept by the corpus: {self.kept_sentences} / {self.gold_sentences} "
                 f"({self.gold_entities} gold entities in all; {s.gold} in kept sentences)",
                 f"{'type':<8} {'P':>6} {'R':>6} {'F':>6} {'gold':>6} {'silver':>6}"]
        for kind, t in s.per_type.items():
            lines.append(f"{kind:<8} {t.precision:6.1f} {t.recall:6.1f} {t.f1:6.1f} {t.support:6d} {t.predicted:6d}")
        lines.append(f"{'overall':<8} {s.precision:6.1f} {s.recall:6.1f} {s.f1:6.1f} {s.gold:6d} {s.predicted:6d}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"gold_sentences": self.gold_sentences, "kept_sentences": self.kept_sentences,
                "gold_entities": self.gold_entities, **self.scores.to_json()}


def read_blind_gold(path: str) -> Iterator[GoldSentence]:
    """The sentences of one gold file, in order."""
    header: dict[str, str] = {}
    rows: list[tuple[str, str]] = []

    def finish() -> Iterator[GoldSentence]:
        if rows:
            if "title" not in header or "sentence" not in header:
                raise InputError(path, "a gold sentence without '# title' and '# sentence' lines")
            yield GoldSentence(header["title"], int(header["sentence"]), tuple(t for t, _ in rows),
                               tuple(tag for _, tag in rows))

    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            line = line.rstrip("\n")
            if not line.strip():
                yield from finish()
                header, rows = {}, []
            elif line.startswith("# ") and " = " in line:
                key, _, value = line[2:].partition(" = ")
                header[key] = value
            elif line.startswith("#"):
                continue
            else:
                token, sep, tag = line.rpartition("\t")
                if not sep:
                    raise InputError(path, f"expected token<TAB>tag, got {line!r}", f"line {line_no}")
                rows.append((token, tag))
    yield from finish()


def _kept(corpus: str, titles: set[str]) -> dict[tuple[str, tuple[str, ...]], tuple[str, ...]]:
    kept = {}
    for _, batch in parquet_batches(corpus, ["title", "tokens", "conll_tags"]):
        for row in batch.to_pylist():
            if row["title"] in titles:
                kept[(row["title"], tuple(row["tokens"]))] = tuple(row["conll_tags"])
    return kept


def score_corpus(corpus: str | Sequence[str], gold: Iterable[GoldSentence]) -> GoldReport:
    """Exact-match chunk scores of the corpus's tags on the gold sentences it kept (``corpus``: one
    corpus directory, or several whose kept sentences are read together)."""
    gold = list(gold)
    titles = {g.title for g in gold}
    kept = {}
    for one in [corpus] if isinstance(corpus, str) else corpus:
        kept.update(_kept(one, titles))
    counter = ChunkCounter()
    everything = ChunkCounter()
    matched = 0
    for sentence in gold:
        everything.add(sentence.tags, sentence.tags)
        silver = kept.get((sentence.title, sentence.tokens))
        if silver is not None:
            matched += 1
            counter.add(sentence.tags, silver)
    return GoldReport(counter.scores(), len(gold), matched, everything.scores().gold)


def recovered_sentences(corpus: str) -> list[LabelledSentence]:
    """The corpus's sentences kept by the second pass with at least one span from its model."""
    return [s for s in read_sentences(corpus) if is_recovered(s)]


def is_recovered(sentence: LabelledSentence) -> bool:
    """Whether the second pass kept ``sentence`` with at least one span from its model."""
    return sentence.source == SOURCE and any(span.rule == RULE for span in sentence.spans)


def recovered_spans_right(sentence: LabelledSentence, gold_tags: Sequence[str]) -> list[tuple[str, bool]]:
    """Each span the second pass's model gave ``sentence``: its type, and whether the gold has
    exactly that span (same tokens, same type)."""
    gold = set(iob_to_spans(gold_tags))
    return [(span.conll, (span.start, span.end, span.conll) in gold) for span in sentence.spans if span.rule == RULE]
