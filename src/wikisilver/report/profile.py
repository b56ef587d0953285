"""After step 5: what the report computes from a built corpus, apart from stats.json.

Sentence lengths, the most frequent link targets per type and a seeded sample of sentences with
mentions, in one streaming pass over the Parquet parts (:mod:`wikisilver.corpus.read`), so a full
Wikipedia's corpus never has to fit in memory; and the rejected pages by reason, from ``rejects/``.
"""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from wikisilver import paths
from wikisilver.corpus.read import parquet_batches
from wikisilver.errors import InputError

# Distinct targets kept per type before the rare ones are pruned: a full English corpus links
# millions of titles, and the report only needs the heavy hitters (which survive pruning).
_MAX_TRACKED_TARGETS = 200_000
_BATCH_ROWS = 8_192


@dataclass(frozen=True)
class SampleSentence:
    """A sentence shown in the report: tokens and mentions as ``(start, end, conll, target)``."""

    title: str
    page_id: int
    index: int
    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int, str, str | None], ...]
    low_quality: bool


@dataclass(frozen=True)
class CorpusProfile:
    """What the report computes from the Parquet parts (everything else comes from stats.json)."""

    sentences: int
    sentence_lengths: Mapping[int, int]
    top_entities: Mapping[str, tuple[tuple[str, int], ...]]
    samples: tuple[SampleSentence, ...]
    top_exact: bool


@dataclass(frozen=True)
class RejectSummary:
    """Rejected pages of one reason: count in stats.json, records in rejects/, one example."""

    reason: str
    pages: int
    records: int
    example_title: str | None
    example_detail: str | None


class _TopCounter:
    """Counts targets; above a size cap the rarest half is dropped (heavy hitters survive)."""

    def __init__(self, cap: int) -> None:
        self.counts: Counter[str] = Counter()
        self.cap = cap
        self.exact = True

    def add(self, key: str) -> None:
        self.counts[key] += 1
        if len(self.counts) > self.cap:
            self.counts = Counter(dict(self.counts.most_common(self.cap // 2)))
            self.exact = False


def profile_corpus(
    corpus: str | Path, *, samples: int = 10, top: int = 10, seed: int = 0,
    max_tracked: int = _MAX_TRACKED_TARGETS,
) -> CorpusProfile:
    """Stream the Parquet parts of ``corpus`` once: lengths, top targets per type, sample sentences.

    Samples are a seeded reservoir sample of the sentences with at least one mention, so the same
    corpus always gives the same report.
    """
    rng = random.Random(seed)
    lengths: Counter[int] = Counter()
    counters: dict[str, _TopCounter] = {}
    reservoir: list[SampleSentence] = []
    candidates = 0
    sentences = 0
    columns = ["title", "page_id", "sentence_index", "tokens", "spans", "low_quality"]
    for _, batch in parquet_batches(corpus, columns, _BATCH_ROWS):
        sentences += batch.num_rows
        lengths.update(pc.list_value_length(batch.column("tokens")).to_pylist())
        spans = batch.column("spans")
        flat = pc.list_flatten(spans)
        for conll, target in zip(flat.field("conll").to_pylist(), flat.field("target").to_pylist()):
            if target:  # derived words (Turkish → MISC) have no target title
                counters.setdefault(conll, _TopCounter(max_tracked)).add(target)
        for row, count in enumerate(pc.list_value_length(spans).to_pylist()):
            if not count:
                continue
            slot = candidates if candidates < samples else rng.randrange(candidates + 1)
            candidates += 1
            if slot < samples:
                sample = _sample(batch, row)
                if slot < len(reservoir):
                    reservoir[slot] = sample
                else:
                    reservoir.append(sample)
    top_entities = {
        tag: tuple(counter.counts.most_common(top)) for tag, counter in sorted(counters.items())
    }
    reservoir.sort(key=lambda s: (s.page_id, s.index))
    return CorpusProfile(
        sentences=sentences,
        sentence_lengths=dict(sorted(lengths.items())),
        top_entities=top_entities,
        samples=tuple(reservoir),
        top_exact=all(counter.exact for counter in counters.values()),
    )


def _sample(batch: pa.RecordBatch, row: int) -> SampleSentence:
    spans = batch.column("spans")[row].as_py()
    return SampleSentence(
        title=batch.column("title")[row].as_py(),
        page_id=batch.column("page_id")[row].as_py(),
        index=batch.column("sentence_index")[row].as_py(),
        tokens=tuple(batch.column("tokens")[row].as_py()),
        spans=tuple((s["start"], s["end"], s["conll"], s["target"]) for s in spans),
        low_quality=bool(batch.column("low_quality")[row].as_py()),
    )


def _reject_records(corpus: str | Path) -> Iterator[tuple[str, int, dict]]:
    folder = paths.join(corpus, "rejects")
    for path in (p for p in paths.listdir(folder) if p.endswith(".jsonl")):
        with io.TextIOWrapper(paths.open_read(path), encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise InputError(str(path), f"invalid JSON ({error.msg})", f"line {number}") from None
                if not isinstance(record, dict):
                    raise InputError(str(path), "expected a JSON object", f"line {number}")
                yield path, number, record


def summarize_rejects(corpus: str | Path, stats: Mapping) -> list[RejectSummary]:
    """Rejected pages by reason: stats.json's counts joined with the records of ``rejects/``."""
    records: Counter[str] = Counter()
    examples: dict[str, dict] = {}
    for _path, _number, record in _reject_records(corpus):
        reason = str(record.get("reason") or "unknown")
        records[reason] += 1
        examples.setdefault(reason, record)
    pages = stats.get("pages_rejected") or {}
    summaries = []
    for reason in sorted(set(pages) | set(records), key=lambda r: (-pages.get(r, records[r]), r)):
        example = examples.get(reason, {})
        summaries.append(RejectSummary(
            reason=reason, pages=int(pages.get(reason, 0)), records=records[reason],
            example_title=example.get("title"), example_detail=example.get("detail"),
        ))
    return summaries
