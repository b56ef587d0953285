"""Step 2 of the method, linguistic layer: split sentences, tokenize, add lemma and POS.

``get_processor(lang, backend)`` returns the :class:`TextProcessor` the labeller uses: built-in
English (Punkt + EWT-trained tagger) and Hungarian (rule tokenizer + NerKor-trained tagger) processors,
a language-independent default for every other language, or an installed spaCy pipeline
(``backend="spacy:en_core_web_sm"``). Everything built-in runs offline from ``mappings/``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from collections.abc import Sequence

from wikisilver.errors import InputError
from wikisilver.text.base import TextProcessor
from wikisilver.text.punkt import train_punkt

__all__ = ["TextProcessor", "SpacyProcessor", "check_backend", "get_processor", "train_punkt"]


def check_backend(backend: str) -> None:
    """Fail in one line, before any work, for a backend that :func:`get_processor` could not load:
    an unknown name, spaCy missing, or a spaCy pipeline that is neither installed nor a saved
    pipeline directory. (Nothing is loaded here: the workers load the pipeline.)"""
    model = _spacy_pipeline(backend)
    if model is None:
        return
    if importlib.util.find_spec("spacy") is None:
        raise InputError(None, f"text backend {backend} needs spaCy: pip install 'wikisilver[spacy]'")
    if os.path.isdir(model):
        if not os.path.isfile(os.path.join(model, "config.cfg")):
            raise InputError(model, "not a spaCy pipeline saved with nlp.to_disk (no config.cfg)")
        return
    if os.sep in model or not model.isidentifier() or importlib.util.find_spec(model) is None:
        raise InputError(None, f"spaCy pipeline {model!r} is not installed: python -m spacy download {model}"
                               " (or give the path of a pipeline saved with nlp.to_disk)")


def _spacy_pipeline(backend: str) -> str | None:
    """The spaCy pipeline a backend names (``spacy:<name or path>``), None for ``builtin``; an
    InputError for anything else."""
    if backend == "builtin":
        return None
    if not backend.startswith("spacy:") or len(backend) == len("spacy:"):
        raise InputError(None, f"unknown text backend {backend!r} (use 'builtin' or 'spacy:<pipeline name>')")
    return backend.split(":", 1)[1]


@functools.lru_cache(maxsize=None)
def get_processor(lang: str, backend: str = "builtin") -> TextProcessor:
    """The processor for ``lang`` (cached per (lang, backend))."""
    model = _spacy_pipeline(backend)
    if model is not None:
        return SpacyProcessor(lang, model)
    if lang == "en":
        from wikisilver.text.english import EnglishProcessor

        return EnglishProcessor()
    if lang == "hu":
        from wikisilver.text.hungarian import HungarianProcessor

        return HungarianProcessor()
    return TextProcessor(lang)


class SpacyProcessor(TextProcessor):
    """Sentences, tokens, lemma and POS from an installed spaCy pipeline (imported lazily)."""

    def __init__(self, lang: str, model: str) -> None:
        super().__init__(lang)
        try:
            spacy = importlib.import_module("spacy")
        except ImportError:
            raise InputError(None, f"text backend spacy:{model} needs spaCy: pip install 'wikisilver[spacy]'") from None
        try:
            self._nlp = spacy.load(model)
        except OSError:
            raise InputError(
                None, f"spaCy pipeline {model!r} is not installed: python -m spacy download {model}"
            ) from None

    def split_sentences(self, text: str) -> list[tuple[int, int]]:
        spans = []
        for start, end in super().split_sentences(text):  # lines first: never cross a line break
            doc = self._nlp(text[start:end])
            for sent in doc.sents:
                s, e = start + sent.start_char, start + sent.end_char
                while e > s and text[e - 1].isspace():
                    e -= 1
                if s < e:
                    spans.append((s, e))
        return spans

    def tokenize(self, text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
        if end is None:
            end = len(text)
        doc = self._nlp.make_doc(text[start:end])
        return [(start + t.idx, start + t.idx + len(t.text)) for t in doc if not t.is_space]

    def annotate(self, tokens: Sequence[str]) -> list[tuple[str, str]]:
        from spacy.tokens import Doc

        doc = Doc(self._nlp.vocab, words=list(tokens))
        for _, component in self._nlp.pipeline:
            doc = component(doc)
        return [(t.lemma_ or t.text.lower(), t.pos_ or "X") for t in doc]

    def has_finite_verb(self, tokens: Sequence[str], annotations: Sequence[tuple[str, str]]) -> bool:
        return any(pos in ("VERB", "AUX") for _, pos in annotations)
