"""Step 5 of the method, its statistics: every count of the run summed into one file.

Stages emit their counts as data with :func:`wikisilver.pipelines.common.count`; this stage sums
them into ``counts.json`` in the staging directory, from which :func:`wikisilver.stats.make_stats`
makes stats.json.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
import apache_beam as beam

from wikisilver import paths
from wikisilver.corpus.write import write_json_atomic

COUNTS_FILE = "counts.json"


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
        path = paths.join(self.staging, COUNTS_FILE)
        return (
            counts
            | "SumCounts" >> beam.CombineGlobally(MergeCounts())
            | "WriteCounts" >> beam.Map(lambda total: write_json_atomic(path, total))
        )


def read_counts(staging: str) -> dict[str, int]:
    """The summed counts a job's :class:`WriteCounts` left in its staging directory."""
    return json.loads(paths.read_text(paths.join(staging, COUNTS_FILE)))
