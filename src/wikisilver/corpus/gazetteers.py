"""§6 of the method, side product: "wikilists", per-type entity lists taken from our corpus.

Every entity mention of the corpus contributes its surface form (tokens joined by spaces) under its
type. The lists are written as TSV (``type<TAB>surface<TAB>count``, sorted by type, then by falling
count) and used by :mod:`wikisilver.ner.features` as gazetteer features.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from wikisilver.corpus.tags import TaggedSentence, iob_to_spans
from wikisilver.errors import InputError
from wikisilver.outputs import Output, open_output

HEADER = "# wikisilver gazetteer: type<TAB>surface<TAB>count (surface = tokens joined by one space)"
MAX_SURFACE_TOKENS = 8  # longer "names" are almost always titles of works; not useful for matching


@dataclass(frozen=True)
class Gazetteer:
    """Surface forms (as token tuples) -> the entity types they were seen with."""

    entries: dict[tuple[str, ...], frozenset[str]]
    max_length: int
    path: str | None = None

    def matches(self, tokens: Sequence[str]) -> list[tuple[int, int, str]]:
        """Every ``(start, end, type)`` where a listed surface occurs (overlaps included)."""
        found = []
        n = len(tokens)
        for start in range(n):
            for end in range(start + 1, min(n, start + self.max_length) + 1):
                kinds = self.entries.get(tuple(tokens[start:end]))
                if kinds:
                    found.extend((start, end, kind) for kind in sorted(kinds))
        return found


def count_surfaces(sentences: Iterable[TaggedSentence]) -> Counter[tuple[str, str]]:
    """``(type, surface)`` -> mentions, over the entity spans of the sentences."""
    counts: Counter[tuple[str, str]] = Counter()
    for sentence in sentences:
        for start, end, kind in iob_to_spans(sentence.tags):
            if end - start <= MAX_SURFACE_TOKENS:
                counts[(kind, " ".join(sentence.tokens[start:end]))] += 1
    return counts


def write_gazetteer(path: str | Output, counts: Counter[tuple[str, str]], min_count: int = 1) -> int:
    """Write the lists (as :mod:`wikisilver.outputs` writes); returns the number of entries written."""
    rows = sorted(
        ((kind, surface, n) for (kind, surface), n in counts.items() if n >= min_count),
        key=lambda row: (row[0], -row[2], row[1]),
    )
    with open_output(path) as handle:
        handle.write(HEADER + "\n")
        for kind, surface, n in rows:
            handle.write(f"{kind}\t{surface.replace(chr(9), ' ')}\t{n}\n")
    return len(rows)


def _rows(path: str, min_count: int = 1) -> Iterator[tuple[str, tuple[str, ...], int]]:
    """``(type, surface tokens, count)`` of each row of a gazetteer TSV (``#`` lines are comments)."""
    try:
        handle = open(path, encoding="utf-8")
    except OSError as error:
        raise InputError(path, f"cannot read gazetteer: {error.strerror or error}") from None
    with handle:
        for line_no, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != 3 or not cells[2].isdigit():
                raise InputError(path, "expected type<TAB>surface<TAB>count", f"line {line_no}")
            if int(cells[2]) >= min_count:
                yield cells[0], tuple(cells[1].split(" ")), int(cells[2])


def load_gazetteer(path: str, min_count: int = 1) -> Gazetteer:
    """Read a gazetteer TSV (``#`` lines are comments)."""
    entries: dict[tuple[str, ...], set[str]] = {}
    max_length = 0
    for kind, key, _count in _rows(path, min_count):
        entries.setdefault(key, set()).add(kind)
        max_length = max(max_length, len(key))
    return Gazetteer(
        entries={key: frozenset(kinds) for key, kinds in entries.items()},
        max_length=max_length,
        path=path,
    )


def majority_types(path: str) -> dict[tuple[str, ...], str]:
    """Surface form -> the type most of its mentions in a gazetteer TSV have (ties: none is the
    majority, the form is left out)."""
    counts: dict[tuple[str, ...], Counter[str]] = {}
    for kind, key, count in _rows(path):
        counts.setdefault(key, Counter())[kind] += count
    majority = {}
    for key, kinds in counts.items():
        (top, n), *rest = kinds.most_common(2)
        if not rest or rest[0][1] < n:
            majority[key] = top
    return majority
