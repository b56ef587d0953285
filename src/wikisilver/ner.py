"""§6 of the method: prove a corpus by training a NER tagger on it and scoring it on gold data.

A linear-chain CRF (CRFsuite through ``python-crfsuite``) with the usual orthographic, affix and
context-window features and, optionally, gazetteer membership from lists exported from our corpus
(:mod:`wikisilver.gazetteers`). Scoring is exact-match chunk evaluation as in CoNLL's ``conlleval``:
an entity counts only with the same start, end and type.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from wikisilver.conll import TaggedSentence, iob_to_spans
from wikisilver.errors import InputError
from wikisilver.gazetteers import Gazetteer, load_gazetteer

log = logging.getLogger(__name__)

FEATURES_VERSION = 1  # bump when features change: a model only works with the features it saw


# --------------------------------------------------------------------------- features


def word_shape(token: str) -> str:
    """Collapsed shape: ``Budapest`` -> ``Xx``, ``MTA-SZTAKI`` -> ``X-X``, ``1956-ban`` -> ``d-x``."""
    shape = re.sub(r"[^\W\d_]", lambda m: "X" if m.group().isupper() else "x", token)
    shape = re.sub(r"\d", "d", shape)
    return re.sub(r"(.)\1+", r"\1", shape)


def _word_features(token: str, prefix: str) -> list[str]:
    """The features of one token, as seen from a position ``prefix`` (``""``, ``-1:``, ``+2:``…)."""
    lower = token.lower()
    features = [f"{prefix}w={lower}", f"{prefix}shape={word_shape(token)}"]
    if token[:1].isupper():
        features.append(f"{prefix}cap")
    if token.isupper() and any(c.isalpha() for c in token):
        features.append(f"{prefix}upper")
    return features


def _gazetteer_tags(sentence: Sequence[str], gazetteer: Gazetteer | None) -> list[set[str]]:
    tags: list[set[str]] = [set() for _ in sentence]
    if gazetteer is None:
        return tags
    for start, end, kind in gazetteer.matches(sentence):
        tags[start].add(f"gaz=B-{kind}")
        for i in range(start + 1, end):
            tags[i].add(f"gaz=I-{kind}")
    return tags


def _token_features(sentence: Sequence[str], i: int, gaz: list[set[str]]) -> list[str]:
    token = sentence[i]
    lower = token.lower()
    features = ["bias"] + _word_features(token, "")
    features.append(f"len={min(len(token), 8)}")
    if token.istitle():
        features.append("title")
    if token.isdigit():
        features.append("digit")
    elif any(c.isdigit() for c in token):
        features.append("hasdigit")
    if "-" in token:
        features.append("hyphen")
    if not any(c.isalnum() for c in token):
        features.append("punct")
    for n in range(1, 5):
        if len(lower) > n:
            features.append(f"p{n}={lower[:n]}")
            features.append(f"s{n}={lower[-n:]}")
    if i == 0:
        features.append("BOS")
    elif sentence[i - 1] in ('"', "„", "(", ":", "–", "-", "«", "»"):
        # After an opening quote or a colon a capital says as little as sentence-initially.
        features.append("quasi_BOS")
    if i == len(sentence) - 1:
        features.append("EOS")
    for offset in (-2, -1, 1, 2):
        j = i + offset
        if 0 <= j < len(sentence):
            features.extend(_word_features(sentence[j], f"{offset:+d}:"))
        else:
            features.append(f"{offset:+d}:pad")
    if i > 0:
        features.append(f"-1|0={sentence[i - 1].lower()}|{lower}")
    if i + 1 < len(sentence):
        features.append(f"0|+1={lower}|{sentence[i + 1].lower()}")
    for tag in gaz[i]:
        features.append(tag)
    for offset in (-1, 1):
        j = i + offset
        if 0 <= j < len(sentence):
            features.extend(f"{offset:+d}:{tag}" for tag in gaz[j])
    return features


def token_features(
    sentence: Sequence[str], i: int, gazetteer: Gazetteer | None = None
) -> list[str]:
    """CRFsuite attributes (``name=value`` strings) of token ``i`` of a tokenized sentence."""
    return _token_features(sentence, i, _gazetteer_tags(sentence, gazetteer))


def sentence_features(
    sentence: Sequence[str], gazetteer: Gazetteer | None = None
) -> list[list[str]]:
    """Attributes of every token; gazetteer matches are found once per sentence."""
    gaz = _gazetteer_tags(sentence, gazetteer)
    return [_token_features(sentence, i, gaz) for i in range(len(sentence))]


# --------------------------------------------------------------------------- training


@dataclass(frozen=True)
class TrainReport:
    """What a training run saw and how long it took."""

    model_path: str
    sentences: int
    tokens: int
    skipped_low_quality: int
    labels: tuple[str, ...]
    iterations: int
    feature_seconds: float
    train_seconds: float
    final_loss: float | None = None


def _meta_path(model_path: str) -> str:
    return model_path + ".meta.json"


def train(
    sentences: Iterable[TaggedSentence],
    model_path: str,
    *,
    max_tokens: int | None = None,
    exclude_low_quality: bool = False,
    c1: float = 0.1,
    c2: float = 0.01,
    max_iterations: int = 100,
    gazetteer: Gazetteer | str | None = None,
    min_feature_freq: int = 1,
    tagset: str = "conll",
) -> TrainReport:
    """Train a CRF on the sentences (whole sentences, up to ``max_tokens``) and save it.

    A ``model_path.meta.json`` beside the model records the feature version and the gazetteer, so
    :class:`Tagger` computes the same features at tagging time.
    """
    import pycrfsuite

    gazetteer_path = None
    if isinstance(gazetteer, str):
        gazetteer_path = os.path.abspath(gazetteer)
        gazetteer = load_gazetteer(gazetteer)
    elif gazetteer is not None:
        gazetteer_path = gazetteer.path
    trainer = pycrfsuite.Trainer(verbose=False)
    n_sentences = n_tokens = skipped = 0
    started = time.perf_counter()
    for sentence in sentences:
        if exclude_low_quality and sentence.low_quality:
            skipped += 1
            continue
        if not sentence.tokens:
            continue
        if max_tokens is not None and n_tokens + len(sentence.tokens) > max_tokens:
            break
        trainer.append(sentence_features(sentence.tokens, gazetteer), list(sentence.tags))
        n_sentences += 1
        n_tokens += len(sentence.tokens)
    if n_sentences == 0:
        raise InputError(None, "no training sentences (empty corpus, or all low-quality / over budget)")
    feature_seconds = time.perf_counter() - started
    trainer.set_params(
        {
            "c1": c1,
            "c2": c2,
            "max_iterations": max_iterations,
            "feature.possible_transitions": True,
            "feature.minfreq": min_feature_freq,
        }
    )
    directory = os.path.dirname(os.path.abspath(model_path))
    os.makedirs(directory, exist_ok=True)
    started = time.perf_counter()
    trainer.train(model_path)
    train_seconds = time.perf_counter() - started
    last = trainer.logparser.last_iteration or {}
    reader = pycrfsuite.Tagger()
    reader.open(model_path)
    labels = tuple(sorted(reader.labels()))
    reader.close()
    with open(_meta_path(model_path), "w", encoding="utf-8") as handle:
        json.dump(
            {
                "features_version": FEATURES_VERSION,
                "gazetteer": gazetteer_path,
                "tagset": tagset,
                "sentences": n_sentences,
                "tokens": n_tokens,
                "params": {"c1": c1, "c2": c2, "max_iterations": max_iterations,
                           "min_feature_freq": min_feature_freq},
            },
            handle,
            indent=2,
        )
    return TrainReport(
        model_path=model_path,
        sentences=n_sentences,
        tokens=n_tokens,
        skipped_low_quality=skipped,
        labels=labels,
        iterations=int(last.get("num", 0)),
        feature_seconds=feature_seconds,
        train_seconds=train_seconds,
        final_loss=last.get("loss"),
    )


class Tagger:
    """A trained model, with the gazetteer it was trained with."""

    def __init__(self, model_path: str, gazetteer: Gazetteer | str | None = None) -> None:
        import pycrfsuite

        if not os.path.isfile(model_path):
            raise InputError(model_path, "no such model file")
        meta: dict = {}
        if os.path.isfile(_meta_path(model_path)):
            with open(_meta_path(model_path), encoding="utf-8") as handle:
                meta = json.load(handle)
        if meta.get("features_version", FEATURES_VERSION) != FEATURES_VERSION:
            raise InputError(
                model_path, f"trained with features v{meta['features_version']}, this version "
                f"computes v{FEATURES_VERSION}; retrain the model"
            )
        self.tagset: str = meta.get("tagset", "conll")
        if gazetteer is None and meta.get("gazetteer"):
            gazetteer = meta["gazetteer"]
        if isinstance(gazetteer, str):
            gazetteer = load_gazetteer(gazetteer)
        self.gazetteer: Gazetteer | None = gazetteer
        self._tagger = pycrfsuite.Tagger()
        try:
            self._tagger.open(model_path)
        except (OSError, ValueError) as error:
            raise InputError(model_path, f"not a CRFsuite model ({error})") from None

    @property
    def labels(self) -> list[str]:
        return list(self._tagger.labels())

    def tag(self, tokens: Sequence[str]) -> list[str]:
        """IOB2 tags of a tokenized sentence."""
        if not tokens:
            return []
        return list(self._tagger.tag(sentence_features(tokens, self.gazetteer)))


# --------------------------------------------------------------------------- evaluation


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


def evaluate(gold: Iterable[TaggedSentence], predicted: Iterable[Sequence[str]]) -> Scores:
    """Score predicted tag sequences against gold sentences (same order, same lengths)."""
    counter = ChunkCounter()
    predicted_iter = iter(predicted)
    for index, sentence in enumerate(gold):
        guess = next(predicted_iter, None)
        if guess is None:
            raise ValueError(f"fewer predictions than gold sentences (gold sentence {index + 1})")
        try:
            counter.add(sentence.tags, list(guess))
        except ValueError as error:
            raise ValueError(f"sentence {index + 1}: {error}") from None
    if next(predicted_iter, None) is not None:
        raise ValueError("more predictions than gold sentences")
    return counter.scores()


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


def predict(tagger: Tagger, sentences: Iterable[TaggedSentence]) -> Iterable[list[str]]:
    """Tags of each sentence, lazily."""
    for sentence in sentences:
        yield tagger.tag(sentence.tokens)

