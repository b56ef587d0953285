"""Step 2a of the method: read the dump files into pages, in parallel over files and multistream ranges."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

import apache_beam as beam
from apache_beam.pvalue import PCollection

from wikisilver import dump as dumplib
from wikisilver.packed import pack, unpack
from wikisilver.pipelines.common import COUNTS, REJECTS, CountsPerBundle, count, reject
from wikisilver.progress import Progress
from wikisilver.records import PageReject
from wikisilver.rejects import RejectReason


class ReadResult(NamedTuple):
    pages: PCollection  # Page records, spread over workers
    rejects: PCollection  # PageReject: pages and stream pieces that could not be read
    counts: PCollection  # dicts of counts for stats.json (pages read, read rejects, stream errors)


# Reasons that say the dump itself broke (where a page may be lost with it), not one page.
STREAM_REASONS = frozenset({RejectReason.TRUNCATED, RejectReason.CORRUPT_STREAM})


def read_reject_counts(reject: PageReject) -> dict[str, int]:
    """A reject of the reader: a page read and rejected when it names a page; a stream error when
    the dump broke there, or when it names no page (bytes outside any page), not for one bad page."""
    page = int(dumplib.names_a_page(reject))
    stream = 1 if reject.reason in STREAM_REASONS or not page else 0
    return {"pages_read": page, f"pages_rejected.{reject.reason}": page, f"stream_errors.{reject.reason}": stream,
            "bytes_skipped": reject.bytes_skipped, "pages_unread_estimate": reject.pages_unread_estimate,
            "pages_unread_listed": reject.pages_unread_estimate if reject.unread_pages else 0}


def part_records(path: str, start: int, end: int | None, index: str | None = None) -> Iterator:
    """The pages and rejects of one byte range of a dump (``0, None``: the whole file); ``index``:
    the dump's multistream index, which names the pages lost in a corrupt stream."""
    return dumplib.iter_pages_in_range(path, start, end, index)


class _ReadDumpPart(CountsPerBundle):
    """Pages of one byte range of one dump file; unreadable pieces go to the rejects output."""

    def __init__(self, progress_interval: float = 30.0) -> None:
        self.progress_interval = progress_interval

    def setup(self) -> None:
        self.progress = Progress("read", "pages", self.progress_interval)

    def outputs(self, part: tuple[str, int, int | None, str | None]) -> Iterator:
        return self.process_records(part_records(*part))

    def process_records(self, records: Iterable) -> Iterator:
        for record in records:
            if isinstance(record, PageReject):  # the reader dead-letters what it cannot read
                yield from reject(record, read_reject_counts(record))
            else:
                yield count("pages_read")
                self.progress.add()
                yield record


class _ReadFirstPages(_ReadDumpPart):
    """The first ``max_pages`` pages of the dumps, in order, in one worker (a trial run)."""

    def __init__(self, max_pages: int, progress_interval: float = 30.0, index_files: Mapping[str, str] | None = None
                 ) -> None:
        super().__init__(progress_interval)
        self.max_pages = max_pages
        self.index_files = dict(index_files or {})

    def outputs(self, dumps: tuple[str, ...]) -> Iterator:
        return self.process_records(dumplib.first_pages(dumps, self.max_pages, self.index_files))


@beam.ptransform_fn
def spread_pages(pages):
    """Pages spread over the workers (one dump part is read by one worker), packed while they
    cross the shuffle (:mod:`wikisilver.packed`: their wikitext compressed)."""
    return pages | "Pack" >> beam.Map(pack) | "Spread" >> beam.Reshuffle() | "Unpack" >> beam.Map(unpack)


class ReadPages(beam.PTransform):
    """Dump files -> pages, parallel over files (and over multistream ranges), then reshuffled to
    spread them over the workers (``spread``; not on one local worker, where the shuffle would only
    hold every page in memory: :func:`wikisilver.engines.one_local_worker`); with ``max_pages``,
    only the first pages of the dumps, read in order."""

    def __init__(
        self, dumps: Iterable[str], index_files: Mapping[str, str] | None = None, progress_interval: float = 30.0,
        max_pages: int | None = None, spread: bool = True,
    ) -> None:
        super().__init__()
        self.dumps = sorted(dumps)
        self.index_files = dict(index_files or {})
        self.progress_interval = progress_interval
        self.max_pages = max_pages
        self.spread = spread

    def expand(self, pbegin) -> ReadResult:
        if self.max_pages is not None:
            result = (
                pbegin
                | "Dumps" >> beam.Create([tuple(self.dumps)])
                | "ReadFirstPages" >> beam.ParDo(
                    _ReadFirstPages(self.max_pages, self.progress_interval, self.index_files)).with_outputs(
                    REJECTS, COUNTS, main="pages"
                )
            )
            return ReadResult(self._spread(result.pages), result[REJECTS], result[COUNTS])
        parts = []
        for path in self.dumps:
            index = self.index_files.get(path)
            for start, end in dumplib.stream_ranges(path, index):
                parts.append((path, start, end, index))
        result = (
            pbegin
            | "DumpParts" >> beam.Create(parts)
            | "ReshuffleParts" >> beam.Reshuffle()
            | "ReadPart" >> beam.ParDo(_ReadDumpPart(self.progress_interval)).with_outputs(
                REJECTS, COUNTS, main="pages"
            )
        )
        return ReadResult(self._spread(result.pages), result[REJECTS], result[COUNTS])

    def _spread(self, pages: PCollection) -> PCollection:
        return pages | "SpreadPages" >> spread_pages() if self.spread else pages
