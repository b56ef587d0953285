"""The tagger seam of the second pass (WikiNEuRal's): any model that labels tokens and says how
sure it is of each label.

The second pass (:mod:`wikisilver.labels.second_pass`) only needs :class:`MarginalTagger`. The CRF
of :mod:`wikisilver.ner.crf` is the default and runs everywhere; a transformer token classifier
plugs in by implementing ``tag_marginals`` (the softmax probability of each token's label is its
marginal) and a ``load`` branch in :func:`load_tagger` for its spec (``NAME:PATH``). What its
loader returns may carry ``known`` (surface form tokens -> the type its training corpus knows the
form by, as the CRF's ``LoadedModel`` does from ``MODEL.mentions.tsv``): the second pass then keeps
only the spans on UNK tokens that agree with it (:func:`known_forms`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from wikisilver.errors import InputError


@runtime_checkable
class MarginalTagger(Protocol):
    """Tokens -> IOB2 labels (CoNLL types) and each token's probability of its label (0..1)."""

    def tag_marginals(self, tokens: Sequence[str]) -> tuple[list[str], list[float]]: ...


TAGGER_KINDS = ("crf",)


def split_spec(spec: str) -> tuple[str, str]:
    """``crf:PATH`` (or a bare path: the CRF) -> (kind, path); an unknown kind is an InputError."""
    kind, sep, path = spec.partition(":")
    if not sep or len(kind) < 2:  # a bare path (a Windows drive letter is not a kind)
        return "crf", spec
    if kind not in TAGGER_KINDS:
        raise InputError(spec, f"unknown tagger kind {kind!r}; known: {', '.join(TAGGER_KINDS)}")
    return kind, path


def load_model(spec: str):
    """What one worker process loads once for ``spec`` (shared by the taggers of its threads)."""
    kind, path = split_spec(spec)
    assert kind == "crf", kind  # split_spec knows only TAGGER_KINDS; a new kind adds its branch here
    from wikisilver.ner.crf import load_model as load_crf

    return load_crf(path, known=True)


def model_files(spec: str) -> list[str]:
    """The files the model of ``spec`` is read from (fingerprinted with the build's inputs)."""
    kind, path = split_spec(spec)
    assert kind == "crf", kind
    from wikisilver.ner.crf import model_files as crf_files

    return crf_files(path)


def known_forms(loaded) -> dict[tuple[str, ...], str] | None:
    """What the corpus a loaded model learned from knows of each surface form (its majority type),
    for the second pass's check; None when the model came without that table."""
    return getattr(loaded, "known", None)


def open_tagger(spec: str, loaded=None) -> MarginalTagger:
    """A tagger for ``spec``, on the model ``loaded`` by :func:`load_model` (loaded here if None)."""
    from wikisilver.ner.crf import Tagger

    return Tagger(loaded if loaded is not None else load_model(spec))
