"""Anonymization, step one: find the names to replace.

Two detectors: the model trained by ``wikisilver train`` (its IOB2 tags), and the corpus's own entity
surfaces (:class:`~wikisilver.anonymize.surrogates.EntityTable`), matched exactly, longest first,
left to right; in a language with case endings a name's last token also matches by its stem
(*Kovácsnak* by *Kovács*). Together, every span either finds is replaced: overlapping spans are one
span of the model's type, so a name the model found in part is replaced whole.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wikisilver.anonymize.inflect import Inflector
from wikisilver.anonymize.surrogates import EntityTable
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


class GazetteerDetector:
    """Exact surfaces of the corpus's entities, longest match first; one-word surfaces only where the
    corpus has them as names at least as often as as capitalized words outside names."""

    def __init__(self, table: EntityTable, inflector: Inflector) -> None:
        self.table = table
        self.inflector = inflector
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
        table = self.table
        if window in table.types:
            return table.type_of(window) if table.is_name(window) else None
        for stem in self._stems(window[-1]):
            base = window[:-1] + (stem,)
            if base in table.types:
                return table.type_of(base) if table.is_name(base) else None
        return None

    def spans(self, tokens: Sequence[str]) -> list[Span]:
        """The non-overlapping matches of a sentence, each the longest starting where it starts."""
        found: list[Span] = []
        n, longest = len(tokens), self.table.max_length
        i = 0
        while i < n:
            if not tokens[i][:1].isupper():
                i += 1
                continue
            for end in range(min(n, i + longest), i, -1):
                kind = self._kind(tuple(tokens[i:end]))
                if kind is not None:
                    found.append(Span(i, end, kind, "gazetteer"))
                    i = end
                    break
            else:
                i += 1
        return found


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
