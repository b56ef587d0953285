"""Step 2a of the method: read the dump files into pages, in parallel over files and multistream ranges."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import apache_beam as beam

from wikisilver import dump as dumplib
from wikisilver.pipelines.common import REJECTS, Progress, counter
from wikisilver.records import PageReject

class _ReadDumpPart(beam.DoFn):
    """Pages of one byte range of one dump file; unreadable pieces go to the rejects output."""

    def __init__(self, progress_interval: float = 30.0) -> None:
        self.read = counter("pages_read")
        self.rejected = counter("pages_rejected")
        self.progress_interval = progress_interval
        self.progress = None

    def setup(self) -> None:
        self.progress = Progress("read", "pages", self.progress_interval)

    def process(self, part: tuple[str, int, int | None]) -> Iterator:
        path, start, end = part
        if start == 0 and end is None:
            records = dumplib.iter_pages(path)
        else:
            records = dumplib.iter_pages_in_range(path, start, end)
        for record in records:
            if isinstance(record, PageReject):
                self.rejected.inc()
                yield beam.pvalue.TaggedOutput(REJECTS, record)
            else:
                self.read.inc()
                self.progress.add()
                yield record


class ReadPages(beam.PTransform):
    """Dump files -> pages, parallel over files (and over multistream ranges), then reshuffled."""

    def __init__(
        self, dumps: Iterable[str], index_files: Mapping[str, str] | None = None, progress_interval: float = 30.0
    ) -> None:
        super().__init__()
        self.dumps = sorted(dumps)
        self.index_files = dict(index_files or {})
        self.progress_interval = progress_interval

    def expand(self, pbegin):
        parts = []
        for path in self.dumps:
            for start, end in dumplib.stream_ranges(path, self.index_files.get(path)):
                parts.append((path, start, end))
        result = (
            pbegin
            | "DumpParts" >> beam.Create(parts)
            | "ReshuffleParts" >> beam.Reshuffle()
            | "ReadPart" >> beam.ParDo(_ReadDumpPart(self.progress_interval)).with_outputs(REJECTS, main="pages")
        )
        pages = result.pages | "SpreadPages" >> beam.Reshuffle()
        return pages, result[REJECTS]
