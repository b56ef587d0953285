"""Sentences column by column: what the corpus writers take, and what the build packs for them.

A run of sentences (:class:`Sentences`) keeps each sentence's fields as lists, and each column a
token has (token, lemma, POS, the two tags) as one string: the cells of all its sentences joined
by a character no cell holds, with each sentence's number of cells (:class:`Joined`). The offsets
are one run of integers, a start and an end a token. So an article's sentences pickle as a few
strings, not a string object a cell, and the writers read them without making one: the TSV's
token lines come from the joined cells in C (``corpus/_tsv.c``), the Parquet columns from Arrow's
split of them. Speed, in one place: the writers' and the shuffle's cost per token
(docs/performance.md); ``tests/test_write_parts.py`` holds the parts equal to those of the
records one by one.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import fields
from itertools import chain
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from wikisilver.records import EntitySpan, LabelledSentence

SEPARATOR = "\x1f"  # the unit separator: no character of prose (XML 1.0 does not even allow it)
TOKEN_COLUMNS = ("tokens", "lemmas", "pos", "dbpedia_tags", "conll_tags")
SPAN_FIELDS = tuple(f.name for f in fields(EntitySpan))


class Joined(NamedTuple):
    """One column a token has, of a run of sentences: every cell in order, joined by
    ``separator``, and each sentence's number of cells."""

    cells: str
    separator: str
    lengths: list[int]

    def split(self) -> list[str]:
        """The cells, one string each."""
        return self.cells.split(self.separator) if any(self.lengths) else []


def joined(rows: Sequence[Sequence[str]]) -> Joined:
    """Each sentence's cells (``rows``) as one :class:`Joined` column: joined by
    :data:`SEPARATOR`, or, where a cell holds it, by the first private-use character none holds."""
    lengths = [len(row) for row in rows]
    cells = SEPARATOR.join(chain.from_iterable(rows))
    if cells.count(SEPARATOR) == max(sum(lengths) - 1, 0):
        return Joined(cells, SEPARATOR, lengths)
    used = set(cells)
    separator = next(chr(code) for code in range(0xE000, 0x110000) if chr(code) not in used)
    return Joined(separator.join(chain.from_iterable(rows)), separator, lengths)


class Sentences(NamedTuple):
    """Sentences column by column, in :class:`LabelledSentence`'s order of fields."""

    page_id: list[int]
    title: list[str]
    index: list[int]
    columns: tuple[Joined, ...]  # TOKEN_COLUMNS
    offsets: Sequence[int]  # start and end of each token of the sentences with offsets, in order
    offset_lengths: list[int]  # each sentence's (start, end) pairs; 0: unknown
    spans: list[tuple[tuple, ...]]  # each sentence's entity spans, each the values of SPAN_FIELDS
    low_quality: list[bool]
    quality_reasons: list[tuple[str, ...]]
    text: list[str]
    source: list[str]


def columns_of(sentences: Iterable[LabelledSentence]) -> Sentences:
    """Records as :class:`Sentences`."""
    rows = list(sentences)
    pairs = [s.offsets for s in rows]
    return Sentences(
        [s.page_id for s in rows], [s.title for s in rows], [s.index for s in rows],
        tuple(joined([getattr(s, name) for s in rows]) for name in TOKEN_COLUMNS),
        _integers(chain.from_iterable(chain.from_iterable(pairs))), [len(p) for p in pairs],
        [tuple((span.start, span.end, span.conll, span.dbpedia_class, span.target, span.rule) for span in s.spans)
         for s in rows],
        [s.low_quality for s in rows], [s.quality_reasons for s in rows], [s.text for s in rows],
        [s.source for s in rows],
    )


def records_of(s: Sentences) -> Iterator[LabelledSentence]:
    """The records of :class:`Sentences`, in order."""
    cells = [iter(column.split()) for column in s.columns]
    offsets = iter(s.offsets)
    for k in range(len(s.index)):
        tokens, lemmas, pos, dbpedia, conll = (
            tuple(next(values) for _ in range(column.lengths[k])) for values, column in zip(cells, s.columns))
        pairs = tuple((next(offsets), next(offsets)) for _ in range(s.offset_lengths[k]))
        yield LabelledSentence(
            s.page_id[k], s.title[k], s.index[k], tokens, lemmas, pos, dbpedia, conll,
            tuple(EntitySpan(*span) for span in s.spans[k]), s.low_quality[k], s.quality_reasons[k], s.text[k],
            pairs, s.source[k])


def concatenated(blocks: Sequence[Sentences]) -> Sentences:
    """Several :class:`Sentences` one after the other, as one (the cells joined again)."""
    if len(blocks) == 1:
        return blocks[0]
    columns = []
    for k in range(len(TOKEN_COLUMNS)):
        parts = [block.columns[k] for block in blocks]
        separators = {part.separator for part in parts if any(part.lengths)}
        lengths = list(chain.from_iterable(part.lengths for part in parts))
        if len(separators) <= 1:
            separator = separators.pop() if separators else SEPARATOR
            cells = separator.join(part.cells for part in parts if any(part.lengths))
            columns.append(Joined(cells, separator, lengths))
        else:  # a column of several separators (a cell held the usual one): joined anew
            values = list(chain.from_iterable(part.split() for part in parts))
            bounds = np.cumsum([0, *lengths])
            columns.append(joined([values[a:b] for a, b in zip(bounds[:-1], bounds[1:])]))
    lists = {name: list(chain.from_iterable(getattr(block, name) for block in blocks))
             for name in Sentences._fields if name not in ("columns", "offsets")}
    offsets = _integers(chain.from_iterable(block.offsets for block in blocks))
    return Sentences(columns=tuple(columns), offsets=offsets, **lists)


def _integers(values: Iterable[int]) -> Sequence[int]:
    """Offsets as one array of 64-bit integers, a few bytes each, where they fit (as they do);
    else a list."""
    values = list(values)
    try:
        return array("q", values)
    except OverflowError:
        return values


def string_lists(column: Joined) -> pa.ListArray:
    """A column as Arrow's list of strings a sentence, split by Arrow (no string a cell here)."""
    if any(column.lengths):
        values = pc.split_pattern(pa.array([column.cells], pa.string()), column.separator).flatten()
    else:
        values = pa.array([], pa.string())
    return pa.ListArray.from_arrays(_bounds(column.lengths), values)


def offset_lists(s: Sentences) -> tuple[pa.ListArray, pa.ListArray]:
    """``token_starts`` and ``token_ends``."""
    if isinstance(s.offsets, array) and s.offsets.typecode == "q":
        flat = np.frombuffer(s.offsets, dtype=np.int64) if len(s.offsets) else np.zeros(0, dtype=np.int64)
    else:
        flat = np.array(s.offsets, dtype=np.int64)
    bounds = _bounds(s.offset_lengths)
    starts, ends = (pa.array(flat[k::2]).cast(pa.int32()) for k in (0, 1))
    return pa.ListArray.from_arrays(bounds, starts), pa.ListArray.from_arrays(bounds, ends)


def _bounds(lengths: list[int]) -> pa.Array:
    bounds = np.zeros(len(lengths) + 1, dtype=np.int32)
    np.cumsum(lengths, out=bounds[1:])
    return pa.array(bounds)
