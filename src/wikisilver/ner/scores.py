"""§6 of the method: score a tagger on gold data, as CoNLL's ``conlleval`` does.

Exact-match chunk evaluation: an entity counts only with the same start, end and type; precision,
recall and F1 are micro-averaged over all chunks, and given per type.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wikisilver.corpus.tags import TaggedSentence, iob_to_spans

if TYPE_CHECKING:
    from wikisilver.ner.crf import Tagger


@dataclass(frozen=True)
class TypeScores:
    """Chunk scores of one entity type (percentages)."""

    precision: float
    recall: float
    f1: float
    support: int  # gold entities of this type
    predicted: int
    correct: int


@dataclass(frozen=True)
class Scores:
    """conlleval's numbers: micro P/R/F1 over exact-match chunks, overall and per type."""

    precision: float
    recall: float
    f1: float
    gold: int
    predicted: int
    correct: int
    tokens: int
    token_accuracy: float
    per_type: dict[str, TypeScores] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "gold": self.gold,
            "predicted": self.predicted,
            "correct": self.correct,
            "tokens": self.tokens,
            "token_accuracy": self.token_accuracy,
            "per_type": {
                kind: {
                    "precision": s.precision, "recall": s.recall, "f1": s.f1,
                    "support": s.support, "predicted": s.predicted, "correct": s.correct,
                }
                for kind, s in self.per_type.items()
            },
        }


def _prf(correct: int, predicted: int, gold: int) -> tuple[float, float, float]:
    # As conlleval: 0 when undefined, F from the (unrounded) percentages.
    precision = 100.0 * correct / predicted if predicted else 0.0
    recall = 100.0 * correct / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


class ChunkCounter:
    """Running conlleval counts; :meth:`scores` turns them into percentages."""

    def __init__(self) -> None:
        self.gold: dict[str, int] = {}
        self.predicted: dict[str, int] = {}
        self.correct: dict[str, int] = {}
        self.tokens = 0
        self.same_tokens = 0

    def add(self, gold: Sequence[str], guess: Sequence[str]) -> None:
        if len(guess) != len(gold):
            raise ValueError(f"{len(guess)} predicted tags for {len(gold)} tokens")
        self.tokens += len(gold)
        self.same_tokens += sum(g == p for g, p in zip(gold, guess))
        gold_spans = set(iob_to_spans(gold))
        pred_spans = set(iob_to_spans(guess))
        for spans, counts in ((gold_spans, self.gold), (pred_spans, self.predicted),
                              (gold_spans & pred_spans, self.correct)):
            for _, _, kind in spans:
                counts[kind] = counts.get(kind, 0) + 1

    def scores(self) -> Scores:
        per_type = {}
        for kind in sorted(set(self.gold) | set(self.predicted)):
            g, p, c = self.gold.get(kind, 0), self.predicted.get(kind, 0), self.correct.get(kind, 0)
            per_type[kind] = TypeScores(*_prf(c, p, g), support=g, predicted=p, correct=c)
        g, p, c = sum(self.gold.values()), sum(self.predicted.values()), sum(self.correct.values())
        precision, recall, f1 = _prf(c, p, g)
        return Scores(
            precision=precision, recall=recall, f1=f1, gold=g, predicted=p, correct=c,
            tokens=self.tokens,
            token_accuracy=100.0 * self.same_tokens / self.tokens if self.tokens else 0.0,
            per_type=per_type,
        )


def evaluate_tagger(tagger: Tagger, sentences: Iterable[TaggedSentence]) -> Scores:
    """Tag and score gold sentences in one streaming pass."""
    counter = ChunkCounter()
    for sentence in sentences:
        counter.add(sentence.tags, tagger.tag(sentence.tokens))
    return counter.scores()


def format_scores(scores: Scores) -> str:
    """A readable table in conlleval's spirit."""
    lines = [
        f"processed {scores.tokens} tokens with {scores.gold} phrases; found: {scores.predicted} "
        f"phrases; correct: {scores.correct}.",
        f"{'type':<12} {'precision':>9} {'recall':>9} {'F1':>9} {'support':>8} {'found':>8}",
    ]
    for kind, s in scores.per_type.items():
        lines.append(
            f"{kind:<12} {s.precision:9.2f} {s.recall:9.2f} {s.f1:9.2f} {s.support:8d} {s.predicted:8d}"
        )
    lines.append(
        f"{'overall':<12} {scores.precision:9.2f} {scores.recall:9.2f} {scores.f1:9.2f} "
        f"{scores.gold:8d} {scores.predicted:8d}"
    )
    lines.append(f"token accuracy: {scores.token_accuracy:.2f}%")
    return "\n".join(lines)
