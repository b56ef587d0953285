"""Step 2 of the method, linguistic layer: split sentences, tokenize, add lemma and POS.

``get_processor(lang, backend)`` returns the :class:`TextProcessor` the labeller uses: the one the
language's pack chooses (``mappings/<lang>/pack.toml``: splitter, tokenizer, tagger model;
:class:`~wikisilver.text.processor.PackProcessor`), the language-independent default for a language
without a pack, or an installed spaCy pipeline (``backend="spacy:en_core_web_sm"``). Everything
built-in runs offline from ``mappings/``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from collections.abc import Sequence

from wikisilver.errors import InputError
from wikisilver.languages import language_pack
from wikisilver.text.base import TextProcessor
from wikisilver.text.punkt import train_punkt

__all__ = ["TextProcessor", "SpacyProcessor", "check_backend", "get_processor", "probe_processor", "train_punkt"]


def check_backend(backend: str, lang: str = "en") -> None:
    """Fail in one line, before any work, for a backend that :func:`get_processor` could not load
    or that fails on a sample text: an unknown name, spaCy missing, a spaCy pipeline that is
    neither installed nor a saved pipeline directory, or one that cannot do what the labeller
    asks of it (a pipeline without sentence boundaries would reject every page, E030).

    A spaCy pipeline is loaded here once and run on :data:`PROBE_TEXT` (in-process runners reuse
    it: :func:`get_processor` is cached); the built-in processors are the project's own, tested
    with it, and are not loaded twice."""
    model = _spacy_pipeline(backend)
    if model is None:
        return
    if importlib.util.find_spec("spacy") is None:
        raise InputError(None, f"text backend {backend} needs spaCy: pip install 'wikisilver[spacy]'")
    if os.path.isdir(model):
        if not os.path.isfile(os.path.join(model, "config.cfg")):
            raise InputError(model, "not a spaCy pipeline saved with nlp.to_disk (no config.cfg)")
    elif os.sep in model or not model.isidentifier() or importlib.util.find_spec(model) is None:
        raise InputError(None, f"spaCy pipeline {model!r} is not installed: python -m spacy download {model}"
                               " (or give the path of a pipeline saved with nlp.to_disk)")
    probe_processor(get_processor(lang, backend), backend)


# What a backend is tried on before a build: two sentences, a name, the words the labeller looks at.
PROBE_TEXT = "Berlin is the capital of Germany. It lies on the Spree."


def probe_processor(processor: TextProcessor, backend: str) -> None:
    """Run ``processor`` as the labeller does (sentences, their tokens, lemma and POS) on
    :data:`PROBE_TEXT`: an error, no sentence, no token or annotations that do not match the
    tokens is one InputError line naming the backend."""
    def fail(reason: str) -> InputError:
        return InputError(None, f"text backend {backend} fails on a sample text ({PROBE_TEXT!r}): {reason}")

    try:
        spans = processor.split_sentences(PROBE_TEXT)
        if not spans:
            raise fail("it splits no sentence")
        for start, end in spans:
            tokens = [PROBE_TEXT[s:e] for s, e in processor.tokenize(PROBE_TEXT, start, end)]
            if not tokens:
                raise fail(f"no token in the sentence {PROBE_TEXT[start:end]!r}")
            annotations = processor.annotate(tokens)
            if len(annotations) != len(tokens):
                raise fail(f"{len(annotations)} lemma/POS pairs for {len(tokens)} tokens")
            processor.has_finite_verb(tokens, annotations)
    except InputError:
        raise
    except Exception as error:  # noqa: BLE001 - any failure here would reject every page of the build
        message = " ".join(str(error).split())
        if "[E030]" in message:
            raise fail("the spaCy pipeline sets no sentence boundaries (spaCy E030): add a sentencizer, "
                       "senter or parser to it (nlp.add_pipe(\"sentencizer\"), then nlp.to_disk)") from None
        raise fail(f"{type(error).__name__}: {message[:200]}") from None


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
    """The processor for ``lang`` (cached per (lang, backend)): its pack's, else the default."""
    model = _spacy_pipeline(backend)
    if model is not None:
        return SpacyProcessor(lang, model)
    pack = language_pack(lang)
    if pack.full:
        from wikisilver.text.processor import PackProcessor

        return PackProcessor(pack)
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
