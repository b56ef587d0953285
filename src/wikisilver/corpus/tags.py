"""§6 of the method, its common currency: a sentence with one layer of NER tags, and tag schemes.

Training, scoring, splitting and the gazetteers read every corpus, ours or gold, as
:class:`TaggedSentence` with IOB2 tags, whatever scheme the file used (IOB1, IOB2, IOBES).
"""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from wikisilver.errors import InputError
from wikisilver.records import EntitySpan

log = logging.getLogger(__name__)

CONLL_TYPES = frozenset({"PER", "LOC", "ORG", "MISC"})

_MAX_TAG_WARNINGS = 20  # per file: a corpus full of bad tags should not flood the log


@dataclass(frozen=True)
class TaggedSentence:
    """One sentence with its NER tags (IOB2), as read from a gold file or from our corpus."""

    tokens: tuple[str, ...]
    tags: tuple[str, ...]  # IOB2, in the tagset asked for when reading
    doc_id: str | None = None  # the article (page id / title) or document the sentence belongs to
    low_quality: bool = False
    pos: tuple[str, ...] | None = None
    lemmas: tuple[str, ...] | None = None
    # Kept so that a split of our corpus can be written back in the same 5-column format.
    dbpedia_tags: tuple[str, ...] | None = None
    conll_tags: tuple[str, ...] | None = None
    title: str | None = None
    sentence_index: int | None = None
    text: str | None = None  # the sentence's own text, where the corpus keeps it
    offsets: tuple[tuple[int, int], ...] | None = None  # each token's [start, end) in ``text``
    spans: tuple[EntitySpan, ...] | None = None  # our corpus's entity spans (with their targets)
    source: str = "links"  # our corpus's: "second_pass" for a sentence the second pass kept


def iob_to_spans(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """Entity spans ``(start, end, type)``, end exclusive, of a tag sequence.

    Follows conlleval: a chunk starts at ``B-X``, at ``I-X`` after ``O`` or after another type, so
    IOB1 and IOB2 give the same spans and a stray ``I-`` is not lost.
    """
    spans: list[tuple[int, int, str]] = []
    start: int | None = None
    current = ""
    for i, tag in enumerate(tags):
        if tag == "O" or "-" not in tag:
            prefix, kind = "O", ""
        else:
            prefix, kind = tag.split("-", 1)
        begins = prefix in ("B", "S") or (prefix in ("I", "E") and kind != current)
        if start is not None and (prefix == "O" or begins):
            spans.append((start, i, current))
            start, current = None, ""
        if begins:
            start, current = i, kind
        if prefix in ("E", "S") and start is not None:
            spans.append((start, i + 1, current))
            start, current = None, ""
    if start is not None:
        spans.append((start, len(tags), current))
    return spans


def spans_to_iob(length: int, spans: Iterable[tuple[int, int, str]]) -> tuple[str, ...]:
    """IOB2 tags of ``length`` tokens carrying the given spans."""
    tags = ["O"] * length
    for start, end, kind in spans:
        tags[start] = f"B-{kind}"
        for i in range(start + 1, end):
            tags[i] = f"I-{kind}"
    return tuple(tags)


def to_iob2(tags: Sequence[str]) -> tuple[str, ...]:
    """IOB1 (or IOBES) tags rewritten as IOB2; IOB2 input comes back unchanged."""
    return spans_to_iob(len(tags), iob_to_spans(tags))


class TagCleaner:
    """Maps raw tag strings to ``O`` / ``B-X`` / ``I-X``; warns (file and line) about bad ones.

    ``known_types`` None accepts any type; otherwise a tag of another type is read as ``O``.
    """

    def __init__(self, path: str, known_types: frozenset[str] | None) -> None:
        self.path = path
        self.known_types = known_types
        self.warnings = 0

    def __call__(self, raw: str, line_no: int) -> str:
        tag = raw.strip()
        if tag in ("O", "0", "_", ""):
            return "O"
        prefix, sep, kind = tag.partition("-")
        if not sep:  # a bare type ("PER") is IOB1-style inside; a bare letter ("V") is junk
            prefix, kind = "I", tag
        if prefix not in ("B", "I", "E", "S") or not kind:
            return self._bad(tag, line_no)
        if self.known_types is not None and kind not in self.known_types:
            return self._bad(tag, line_no)
        return f"{prefix}-{kind}"

    def _bad(self, tag: str, line_no: int) -> str:
        self.warnings += 1
        if self.warnings <= _MAX_TAG_WARNINGS:
            log.warning("%s:%d: unknown NER tag %r read as O", self.path, line_no, tag)
        elif self.warnings == _MAX_TAG_WARNINGS + 1:
            log.warning("%s: more unknown NER tags; not reporting each", self.path)
        return "O"


# The name standard input goes by: ``wikisilver tag -`` reads it (an error names it so).
STDIN = "<stdin>"


def text_lines(path: str, encoding: str) -> Iterator[tuple[int, str]]:
    """Numbered lines of a text corpus without their line end (:data:`STDIN`: standard input); a
    decoding error names the file and line."""
    line_no = 0
    try:
        with (io.TextIOWrapper(sys.stdin.buffer, encoding=encoding, newline="") if path == STDIN
              else open(path, encoding=encoding, newline="")) as handle:
            for line_no, line in enumerate(handle, start=1):
                yield line_no, line.rstrip("\r\n")
    except UnicodeDecodeError as error:
        raise InputError(
            path, f"not valid {encoding} ({error.reason}); pass the right --encoding", f"line {line_no + 1}"
        ) from None
    except LookupError:
        raise InputError(path, f"unknown encoding {encoding!r}") from None
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}") from None
