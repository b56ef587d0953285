"""Step 5 of the method, its statistics: every count of the run summed into one file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

import apache_beam as beam

from wikisilver import formats

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


class CollectStats(beam.PTransform):
    """Every count of the run -> one JSON file of raw counts in the staging directory."""

    def __init__(self, staging: str) -> None:
        super().__init__()
        self.staging = staging

    def expand(self, inputs):
        pages_read = inputs["pages"] | "CountRead" >> beam.Map(lambda _: {"pages_read": 1})
        read_rejects = inputs["read_rejects"] | "CountReadRejects" >> beam.Map(
            lambda r: {"pages_read": 1 if r.page_id is not None or r.title is not None else 0,
                       f"pages_rejected.{r.reason}": 1 if r.page_id is not None or r.title is not None else 0,
                       f"stream_errors.{r.reason}": 1}
        )
        other_rejects = inputs["rejects"] | "CountRejects" >> beam.Map(
            lambda r: {} if r.reason == "label_error" else {f"pages_rejected.{r.reason}": 1}
        )
        skipped = inputs["skipped"] | "CountSkipped" >> beam.Map(lambda reason: {f"pages_skipped.{reason}": 1})
        staging = self.staging
        return (
            (pages_read, read_rejects, other_rejects, skipped, inputs["counts"])
            | "FlattenCounts" >> beam.Flatten()
            | "SumCounts" >> beam.CombineGlobally(MergeCounts())
            | "WriteCounts" >> beam.Map(lambda counts: formats.write_json_atomic(Path(staging) / "counts.json", counts))
        )
