"""§6 of the method: prove a corpus by training a NER tagger on it.

A linear-chain CRF (CRFsuite through ``python-crfsuite``) on the features of
:mod:`wikisilver.ner.features`. A ``MODEL.meta.json`` beside each model records the feature version,
the gazetteer and the tagset, so tagging computes the features the model was trained on.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from wikisilver.corpus.gazetteers import Gazetteer, count_surfaces, load_gazetteer, majority_types, write_gazetteer
from wikisilver.corpus.schema import LINKS
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.errors import InputError
from wikisilver.ner.features import FEATURES_VERSION, sentence_features
from wikisilver.outputs import Output, check_output, output_path, write_text


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
    skipped_second_pass: int = 0


def _meta_path(model_path: str) -> str:
    return model_path + ".meta.json"


def check_model_outputs(model_path: str) -> tuple[Output, Output, Output]:
    """The model file and the two written beside it (meta, mentions), checked before any work: a
    model is a regular file (CRFsuite writes it by name), never a stream."""
    return (check_output(model_path, stream=False, what="a model", option="--model"),
            check_output(_meta_path(model_path), stream=False, what="a model's meta file", option="--model"),
            check_output(mentions_path(model_path), stream=False, what="a model's mentions table",
                         option="--model"))


def mentions_path(model_path: str) -> str:
    """The table of the training corpus's mentions beside a model (``type<TAB>surface<TAB>count``):
    what the corpus the model learned from knows of each surface form (the second pass's check)."""
    return model_path + ".mentions.tsv"


# The most frequent surface forms of the training corpus that the mentions table keeps: a bound on
# what a worker of the second pass holds (about 40 MB for 200,000 forms), whatever the corpus size.
MAX_MENTIONS = 200_000


def train(
    sentences: Iterable[TaggedSentence],
    model_path: str,
    *,
    max_tokens: int | None = None,
    exclude_low_quality: bool = False,
    exclude_second_pass: bool = False,
    c1: float = 0.1,
    c2: float = 0.01,
    max_iterations: int = 100,
    gazetteer: Gazetteer | str | None = None,
    min_feature_freq: int = 1,
    tagset: str = "conll",
    progress: Callable[[str], None] | None = None,
    progress_every: int = 1,
) -> TrainReport:
    """Train a CRF on the sentences (whole sentences, up to ``max_tokens``) and save it.

    A ``model_path.meta.json`` beside the model records the feature version and the gazetteer, so
    :class:`Tagger` computes the same features at tagging time. ``progress`` receives a line when
    the features are ready and every ``progress_every`` L-BFGS iterations (training can take minutes).
    """
    import pycrfsuite

    model, meta, mentions_out = check_model_outputs(model_path)
    gazetteer_path = None
    if isinstance(gazetteer, str):
        gazetteer_path = os.path.abspath(gazetteer)
        gazetteer = load_gazetteer(gazetteer)
    elif gazetteer is not None:
        gazetteer_path = gazetteer.path
    trainer = _trainer(pycrfsuite, progress, progress_every, max_iterations)
    n_sentences = n_tokens = skipped = skipped_second = 0
    mentions: Counter[tuple[str, str]] = Counter()
    started = time.perf_counter()
    for sentence in sentences:
        if exclude_low_quality and sentence.low_quality:
            skipped += 1
            continue
        if exclude_second_pass and sentence.source != LINKS:
            skipped_second += 1
            continue
        if not sentence.tokens:
            continue
        if max_tokens is not None and n_tokens + len(sentence.tokens) > max_tokens:
            break
        trainer.append(sentence_features(sentence.tokens, gazetteer), list(sentence.tags))
        n_sentences += 1
        n_tokens += len(sentence.tokens)
        mentions.update(count_surfaces((sentence,)))
    if n_sentences == 0:
        raise InputError(None, "no training sentences (empty corpus, or all low-quality / over budget)")
    feature_seconds = time.perf_counter() - started
    if progress is not None:
        progress(f"features of {n_sentences:,} sentences ({n_tokens:,} tokens) in {feature_seconds:.1f} s; "
                 f"training, at most {max_iterations} iterations")
    trainer.set_params(
        {
            "c1": c1,
            "c2": c2,
            "max_iterations": max_iterations,
            "feature.possible_transitions": True,
            "feature.minfreq": min_feature_freq,
        }
    )
    started = time.perf_counter()
    with output_path(model) as written:
        trainer.train(written)
        train_seconds = time.perf_counter() - started
        reader = pycrfsuite.Tagger()
        reader.open(written)
        labels = tuple(sorted(reader.labels()))
        reader.close()
    last = trainer.logparser.last_iteration or {}
    write_gazetteer(mentions_out, Counter(dict(mentions.most_common(MAX_MENTIONS))))
    record = {
        "features_version": FEATURES_VERSION,
        "gazetteer": gazetteer_path,
        "mentions": os.path.basename(mentions_path(model_path)),
        "tagset": tagset,
        "sentences": n_sentences,
        "tokens": n_tokens,
        "params": {"c1": c1, "c2": c2, "max_iterations": max_iterations, "min_feature_freq": min_feature_freq},
    }
    write_text(meta, json.dumps(record, indent=2))
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
        skipped_second_pass=skipped_second,
    )


def _trainer(pycrfsuite, progress: Callable[[str], None] | None, every: int, max_iterations: int):
    """A CRFsuite trainer that hands a line to ``progress`` every ``every`` iterations."""
    if progress is None or every < 1:
        return pycrfsuite.Trainer(verbose=False)

    class ReportingTrainer(pycrfsuite.Trainer):
        # verbose=True makes CRFsuite call the on_* hooks, which print its log; only iterations are kept.
        def message(self, message: str) -> None:
            if self.logparser.feed(message) == "iteration":
                info = self.logparser.last_iteration
                if info["num"] % every == 0:
                    loss = info.get("loss")
                    progress(f"iteration {info['num']}/{max_iterations}: loss "
                             f"{loss if loss is None else f'{loss:,.2f}'}, {info.get('time', 0):.2f} s")

    return ReportingTrainer(verbose=True)


class LoadedModel:
    """A model file read into memory, with its gazetteer and tagset: what one worker process keeps
    once and lends to every :class:`Tagger` it opens (a plain class, so that Beam's
    ``shared.Shared`` can hold a weak reference to it). ``known``: surface form -> the majority type
    of its mentions in the training corpus (:func:`mentions_path`; None for a model trained without
    the table, or loaded without ``known``)."""

    def __init__(self, path: str, data: bytes, gazetteer: Gazetteer | None, tagset: str,
                 known: dict[tuple[str, ...], str] | None = None) -> None:
        self.path, self.data, self.gazetteer, self.tagset = path, data, gazetteer, tagset
        self.known = known


def model_files(model_path: str) -> list[str]:
    """The files a model is read from: the model itself, and its meta file and mentions table where
    present (a rebuild notices a change of any)."""
    beside = (_meta_path(model_path), mentions_path(model_path))
    return [model_path, *(path for path in beside if os.path.isfile(path))]


def load_model(model_path: str, gazetteer: Gazetteer | str | None = None, *, known: bool = False) -> LoadedModel:
    """A model of :func:`train` and its ``.meta.json`` (features version checked), read into memory;
    ``known``: with its mentions table's majority types too (what the second pass checks)."""
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
    if gazetteer is None and meta.get("gazetteer"):
        gazetteer = meta["gazetteer"]
    if isinstance(gazetteer, str):
        gazetteer = load_gazetteer(gazetteer)
    forms = None
    if known and meta.get("mentions"):
        forms = majority_types(os.path.join(os.path.dirname(os.path.abspath(model_path)), meta["mentions"]))
    with open(model_path, "rb") as handle:
        data = handle.read()
    return LoadedModel(model_path, data, gazetteer, meta.get("tagset", "conll"), forms)


class Tagger:
    """A trained model, with the gazetteer it was trained with.

    Built from a path, or from a :class:`LoadedModel` that several taggers share: CRFsuite reads a
    model in place from the bytes it is given, so taggers of one worker (one per thread: a
    CRFsuite tagger keeps the sentence it tags) cost one copy of the model between them.
    Implements :class:`wikisilver.ner.seam.MarginalTagger`.
    """

    def __init__(self, model_path: str | LoadedModel, gazetteer: Gazetteer | str | None = None) -> None:
        import pycrfsuite

        model = model_path if isinstance(model_path, LoadedModel) else load_model(model_path, gazetteer)
        self._model = model  # CRFsuite reads model.data in place: it must outlive the tagger
        self.tagset: str = model.tagset
        self.gazetteer: Gazetteer | None = model.gazetteer
        self._tagger = pycrfsuite.Tagger()
        try:
            self._tagger.open_inmemory(model.data)
        except (OSError, ValueError) as error:
            raise InputError(model.path, f"not a CRFsuite model ({error})") from None

    @property
    def labels(self) -> list[str]:
        return list(self._tagger.labels())

    def tag(self, tokens: Sequence[str]) -> list[str]:
        """IOB2 tags of a tokenized sentence."""
        if not tokens:
            return []
        return list(self._tagger.tag(sentence_features(tokens, self.gazetteer)))

    def tag_marginals(self, tokens: Sequence[str]) -> tuple[list[str], list[float]]:
        """IOB2 tags of the best sequence and, for each token, the marginal probability of its tag
        (over all label sequences, by forward-backward: how sure the model is of that token)."""
        tags = self.tag(tokens)
        return tags, [self._tagger.marginal(tag, k) for k, tag in enumerate(tags)]
