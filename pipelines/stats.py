"""Step 5 of the method, its statistics: every count of the run summed into one file.

Stages emit their counts as data with :func:`wikisilver.pipelines.common.count`; this stage sums
them into ``counts.json`` in the staging directory, from which :func:`wikisilver.stats.make_stats`
makes stats.json.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

import apache_beam as beam

from wikisilver.corpus import write as formats

COUNTS_FILE = "counts.json"
# Rejects whose stage counts them itself with common.reject() (pipelines/label.py).
COUNTED_REJECT_REASONS = frozenset({"label_error", "duplicate_page_id"})


class MergeCounts(beam.CombineFn):
    """Sums dicts of counts (the statistics travel as data, so every runner gets them)."""

    def create_accumulator(self) -> Counter:
        return Counter()

    def add_input(self, accumulator: Counter, element: Mapping[str, int]) -> Counter:
        accumulator.update(element)
        return accumulator

    def merge_accumulators(self, accumulators: Iterable[Counter]) -> Counter:
        merged = Counter()
        for accumulator in accumulators:
            merged.update(accumulator)
        return merged

    def extract_output(self, accumulator: Counter) -> dict:
        return dict(accumulator)


class WriteCounts(beam.PTransform):
    """Dicts of counts -> their sum in ``<staging>/counts.json`` (read back by :func:`read_counts`)."""

    def __init__(self, staging: str) -> None:
        super().__init__()
        self.staging = staging

    def expand(self, counts):
        path = Path(self.staging) / COUNTS_FILE
        return (
            counts
            | "SumCounts" >> beam.CombineGlobally(MergeCounts())
            | "WriteCounts" >> beam.Map(lambda total: formats.write_json_atomic(path, total))
        )


def read_counts(staging: Path) -> dict[str, int]:
    """The summed counts a job's :class:`WriteCounts` left in its staging directory."""
    return json.loads((staging / COUNTS_FILE).read_text(encoding="utf-8"))


def read_reject_counts(reject) -> dict[str, int]:
    """A reject of the reader: a stream error, and a page read and rejected when it names a page."""
    page = 1 if reject.page_id is not None or reject.title is not None else 0
    return {"pages_read": page, f"pages_rejected.{reject.reason}": page, f"stream_errors.{reject.reason}": 1}


class CollectStats(beam.PTransform):
    """Every count of the run -> one JSON file of raw counts in the staging directory.

    ``counts`` holds what the stages count themselves; the reading and extraction stages are
    counted here from their outputs: ``pages`` (read), ``read_rejects``, ``skipped`` (reasons) and
    ``rejects`` (all but those of :data:`COUNTED_REJECT_REASONS`).
    """

    def __init__(self, staging: str) -> None:
        super().__init__()
        self.staging = staging

    def expand(self, inputs):
        pages_read = inputs["pages"] | "CountRead" >> beam.Map(lambda _: {"pages_read": 1})
        read_rejects = inputs["read_rejects"] | "CountReadRejects" >> beam.Map(read_reject_counts)
        other_rejects = inputs["rejects"] | "CountRejects" >> beam.Map(
            lambda r: {} if r.reason in COUNTED_REJECT_REASONS else {f"pages_rejected.{r.reason}": 1}
        )
        skipped = inputs["skipped"] | "CountSkipped" >> beam.Map(lambda reason: {f"pages_skipped.{reason}": 1})
        return (
            (pages_read, read_rejects, other_rejects, skipped, inputs["counts"])
            | "FlattenCounts" >> beam.Flatten()
            | "Sum" >> WriteCounts(self.staging)
        )
