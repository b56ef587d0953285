"""Anonymization, step one: find the names to replace.

Two detectors: the model trained by ``wikisilver train`` (its IOB2 tags), and the corpus's own entity
surfaces (:class:`~wikisilver.anonymize.surrogates.EntityTable`), matched exactly, longest first,
left to right; in a language with case endings a name's last token also matches by its stem
(*Kovácsnak* by *Kovács*). Together, every span either finds is replaced: overlapping spans are one
span of the model's type, so a name the model found in part is replaced whole. Then, within a
document, a name found once is found wherever else it stands (:func:`propagate`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wikisilver.anonymize.inflect import Inflector
from wikisilver.anonymize.surrogates import MAX_SURFACE_TOKENS, EntityTable
from wikisilver.corpus.tags import iob_to_spans

DETECTORS = ("model", "gazetteer", "both")
_STEM_CACHE = 100_000  # tokens whose stems are remembered; the cache starts over beyond it


@dataclass(frozen=True)
class Span:
    """A name found in a sentence: tokens ``[start, end)`` of type ``kind``, by ``source``."""

    start: int
    end: int
    kind: str
    source: str = "model"


def model_spans(tags: Sequence[str]) -> list[Span]:
    """The spans of a model's IOB2 tags."""
    return [Span(start, end, kind) for start, end, kind in iob_to_spans(tags)]


class SurfaceMatcher:
    """Known surfaces (``kind_of``: a surface -> its type, or None), matched longest first, left to
    right, from a capitalized token; a last token also matches by its stem (*Kovácsnak*)."""

    def __init__(self, kind_of: Callable[[tuple[str, ...]], str | None], max_length: int,
                 inflector: Inflector, source: str) -> None:
        self.kind_of = kind_of
        self.max_length = max_length
        self.inflector = inflector
        self.source = source
        self._endings: dict[str, tuple[str, ...]] = {}  # token -> its possible stems

    def _stems(self, token: str) -> tuple[str, ...]:
        stems = self._endings.get(token)
        if stems is None:
            if len(self._endings) > _STEM_CACHE:
                self._endings.clear()
            stems = tuple(e.stem for e in self.inflector.endings(token)) if token[:1].isupper() else ()
            self._endings[token] = stems
        return stems

    def _kind(self, window: tuple[str, ...]) -> str | None:
        kind = self.kind_of(window)
        if kind is not None:
            return kind
        for stem in self._stems(window[-1]):
            kind = self.kind_of(window[:-1] + (stem,))
            if kind is not None:
                return kind
        return None

    def spans(self, tokens: Sequence[str], skip: Sequence[bool] = ()) -> list[Span]:
        """The non-overlapping matches of a sentence, each the longest starting where it starts
        (none over a token ``skip`` marks)."""
        found: list[Span] = []
        n = len(tokens)
        i = 0
        while i < n:
            if not tokens[i][:1].isupper() or (skip and skip[i]):
                i += 1
                continue
            limit = min(n, i + self.max_length)
            if skip:
                limit = next((j for j in range(i, limit) if skip[j]), limit)
            for end in range(limit, i, -1):
                kind = self._kind(tuple(tokens[i:end]))
                if kind is not None:
                    found.append(Span(i, end, kind, self.source))
                    i = end
                    break
            else:
                i += 1
        return found


class GazetteerDetector(SurfaceMatcher):
    """Exact surfaces of the corpus's entities; one-word surfaces only where the corpus has them as
    names at least as often as as capitalized words outside names."""

    def __init__(self, table: EntityTable, inflector: Inflector) -> None:
        def kind_of(window: tuple[str, ...]) -> str | None:
            return table.type_of(window) if window in table.types and table.is_name(window) else None

        super().__init__(kind_of, table.max_length, inflector, "gazetteer")
        self.table = table


def propagate(sentences: Sequence[Sequence[str]], spans: Sequence[Sequence[Span]], inflector: Inflector,
              table: EntityTable | None = None) -> list[list[Span]]:
    """A document's names found everywhere in it: where one detector found a name once, its other
    mentions are names too -- its whole surface, and each word of a person's name of several words
    (*Fang Licsi* … *Fang*, *Fangot*), unless the corpus shows that word more often as a common
    capitalized word (*Nagy*)."""
    known: dict[tuple[str, ...], str] = {}
    for tokens, found in zip(sentences, spans):
        for span in found:
            surface = tuple(tokens[span.start:span.end])
            if len(surface) <= MAX_SURFACE_TOKENS:
                known.setdefault(surface, span.kind)
            if span.kind == "PER" and len(surface) > 1:
                for word in surface:
                    if len(word) > 1 and word[:1].isupper() and (table is None or not table.common_word(word)):
                        known.setdefault((word,), "PER")
    if not known:
        return [list(found) for found in spans]
    matcher = SurfaceMatcher(known.get, max(map(len, known)), inflector, "document")
    out = []
    for tokens, found in zip(sentences, spans):
        covered = [False] * len(tokens)
        for span in found:
            covered[span.start:span.end] = [True] * (span.end - span.start)
        out.append(sorted((*found, *matcher.spans(tokens, covered)), key=lambda span: span.start))
    return out


def combine(model: Sequence[Span], gazetteer: Sequence[Span]) -> list[Span]:
    """Both detectors' spans; overlapping ones become one span covering them, of the type of its
    first model span (the gazetteer's where the model found nothing there)."""
    merged: list[Span] = []
    for span in sorted((*model, *gazetteer), key=lambda s: (s.start, s.source != "model", -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            keep = last if last.source == "model" or span.source != "model" else span
            merged[-1] = Span(last.start, max(last.end, span.end), keep.kind, keep.source)
        else:
            merged.append(span)
    return merged


def detector(
    which: str, tag: Callable[[Sequence[str]], Sequence[str]] | None, gazetteer: GazetteerDetector | None,
) -> Callable[[Sequence[str]], list[Span]]:
    """The function that finds the names of a tokenized sentence: model, gazetteer or both."""
    if which == "model":
        assert tag is not None
        return lambda tokens: model_spans(tag(tokens))
    if which == "gazetteer":
        assert gazetteer is not None
        return gazetteer.spans
    assert tag is not None and gazetteer is not None
    return lambda tokens: combine(model_spans(tag(tokens)), gazetteer.spans(tokens))


def document_names(sentences: Sequence[Sequence[str]], find: Callable[[Sequence[str]], list[Span]],
                   inflector: Inflector, table: EntityTable | None = None) -> list[list[Span]]:
    """The names of a document's tokenized sentences: the detector's, then :func:`propagate`."""
    return propagate(sentences, [find(tokens) for tokens in sentences], inflector, table)
