"""Step 2 input: what a gap in a dump cost, the pages lost in it, named or estimated.

A gap is where the reader could not read on (a :class:`~wikisilver.dump.streams.Break` with
compressed bytes skipped): a corrupt bz2 block skipped to the next block that decompresses, or an
xz or gzip stream that stops at corrupt data, the rest of it unread. Its reject says how many
compressed bytes were skipped; this module says how many pages they held
(``pages_unread_estimate``):

* with the dump's multistream index, exactly: the index lists every page of every stream, so the
  pages of the streams the gap covers that were not read are named in the reject
  (``unread_pages``);
* otherwise from the pages read around the gap, in the nearest blocks on each side (at least one,
  more while they lie within as many compressed bytes as the gap skipped). Dumps are written in
  page-id order: when the ids go up across the gap, the ids missing between the last page before
  it and the first after it times the share of ids that are pages near it; otherwise the bytes
  skipped times the pages per compressed byte near it. Both sides weigh alike (the mean of their
  densities): the gap lies between them, and dump text is far from even (a block of templates
  holds several times the pages of a block of articles).

Where a page lay is read from the :class:`~wikisilver.dump.bz2blocks.Meter` of the reader (the
compressed bytes decompressed when the page came): exact to the block it ended in.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from wikisilver.dump.bz2blocks import Meter
from wikisilver.dump.streams import Break, read_multistream_index
from wikisilver.records import Page, PageReject

# Compressed bytes of neighbouring pages remembered and looked at on each side of a gap, at most.
WINDOW_CAP = 8 << 20
# Pages named in one reject; more are counted, not named.
MAX_NAMED = 10_000


@dataclass(frozen=True)
class Unread:
    """The reject of a gap in the dump, before what it cost is known."""

    reject: PageReject
    gap: Break


def names_a_page(record: Page | PageReject) -> bool:
    """Whether a record stands for a page read: a page, or a reject that names one (by id or title);
    a reject that names none is a stream error."""
    return isinstance(record, Page) or record.page_id is not None or record.title is not None


@dataclass
class _Side:
    """The pages read in the blocks nearest a gap on one side: ids in reading order (None: a
    reject named by title only), and the compressed bytes those blocks span."""

    ids: list[int | None] = field(default_factory=list)
    span: int = 0

    def id_density(self) -> float | None:
        """Pages per page id, when the ids go up (two at least)."""
        ids = self.ids
        if len(ids) < 2 or None in ids or any(b <= a for a, b in zip(ids, ids[1:])):
            return None
        return len(ids) / (ids[-1] - ids[0] + 1)

    def byte_density(self) -> float | None:
        return len(self.ids) / self.span if self.ids and self.span > 0 else None


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def estimate(skipped: int, before: _Side, after: _Side) -> int:
    """Pages lost in a gap of ``skipped`` compressed bytes between the pages ``before`` and ``after`` it
    (0: nothing was read to measure by)."""
    last, first = (before.ids[-1] if before.ids else None), (after.ids[0] if after.ids else None)
    if last is not None and first is not None and first > last:
        per_id = _mean([before.id_density(), after.id_density()])
        if per_id is not None:
            return round((first - last - 1) * per_id)
    per_byte = _mean([before.byte_density(), after.byte_density()])
    return round(skipped * per_byte) if per_byte is not None else 0


def listed_pages(index_path: str, start: int, stop: int) -> list[tuple[int, int, str]]:
    """(stream offset, page id, title) of the index's pages in the streams a gap from compressed byte
    ``start`` to ``stop`` touches: the stream ``start`` lies in, and those that begin before ``stop``."""
    stream: list[tuple[int, int, str]] = []
    later: list[tuple[int, int, str]] = []
    for entry in read_multistream_index(index_path):
        offset = entry[0]
        if offset >= stop:
            break
        if offset <= start:
            if stream and stream[0][0] != offset:
                stream = []
            stream.append(entry)
        else:
            later.append(entry)
    return stream + later


def _between(entries: list[tuple[int, int, str]], last: tuple[int | None, str | None],
             first: int | None) -> list[tuple[int, int, str]]:
    """The entries after the page ``last`` (id, title) read before the gap and before the page
    ``first`` read after it (all of them where those are not listed)."""
    low = 0
    for i, (_, page_id, title) in enumerate(entries):
        if (last[0] is not None and page_id == last[0]) or (last[0] is None and last[1] is not None and title == last[1]):
            low = i + 1
    high = len(entries)
    for i in range(low, len(entries)):
        if entries[i][1] == first:
            high = i
            break
    return entries[low:high]


class _Pending:
    """A gap whose reject waits for the pages read after it."""

    def __init__(self, unread: Unread, before: _Side, last: tuple[int | None, str | None]) -> None:
        self.unread, self.before, self.last = unread, before, last
        self.after = _Side()
        self.window = _window(unread.gap)
        self.feed: int | None = None  # meter reading of the block after the gap being taken

    def take(self, position: int, page_id: int | None) -> bool:
        """Add a page read after the gap; False when it lies beyond the window (which is then full)."""
        if self.feed is not None and position != self.feed and position - self.unread.gap.read > self.window:
            return False
        self.feed = position
        self.after.ids.append(page_id)
        self.after.span = position - self.unread.gap.read
        return True

    def reject(self, index_path: str | None) -> PageReject:
        gap, reject = self.unread.gap, self.unread.reject
        if index_path is not None:
            stop = gap.offset + gap.skipped  # the next byte read, or the end of the input
            first = self.after.ids[0] if self.after.ids else None
            lost = _between(listed_pages(index_path, gap.offset, stop), self.last, first)
            if lost:
                named = tuple((page_id, title) for _, page_id, title in lost[:MAX_NAMED])
                more = f" (the first {MAX_NAMED:,} named)" if len(lost) > MAX_NAMED else ""
                return replace(reject, pages_unread_estimate=len(lost), unread_pages=named,
                               detail=f"{reject.detail}; the multistream index lists the {len(lost):,} page(s) "
                                      f"lost in it{more} (unread_pages)")
        return replace(reject, pages_unread_estimate=estimate(gap.skipped, self.before, self.after))


def _window(gap: Break) -> int:
    """Compressed bytes of neighbours looked at on each side of a gap (beyond the nearest block)."""
    return min(max(gap.skipped, 1), WINDOW_CAP)


def _side_before(recent: deque, floor: int, at: int, window: int) -> _Side:
    """The pages of ``recent`` ((meter reading, id), oldest first) in the blocks nearest ``at``: the
    last one, and those before it while they lie within ``window`` compressed bytes of ``at``."""
    side = _Side()
    pages = list(recent)
    index = len(pages)
    while index:
        start = index
        while start and pages[start - 1][0] == pages[index - 1][0]:
            start -= 1
        begins = pages[start - 1][0] if start else floor
        if index < len(pages) and at - begins > window:
            break
        side.span = at - begins
        index = start
    side.ids = [page_id for _, page_id in pages[index:]]
    return side


def account_gaps(records: Iterator, meter: Meter, index_path: str | None = None,
                 limit: int | None = None) -> Iterator[Page | PageReject]:
    """The records of :func:`~wikisilver.dump.pages._split_pages`, each gap's reject with what it cost
    (yielded once the pages after it are read); ``limit``: stop after that many pages read (a
    reject that names one counts), with the gaps met so far."""
    recent: deque[tuple[int, int | None]] = deque()  # (meter reading, page id) of the pages read lately
    floor = 0  # meter reading where the oldest of them begins
    pending: list[_Pending] = []
    read = 0
    index = os.fspath(index_path) if index_path is not None else None

    def close(done: list[_Pending]) -> Iterator[PageReject]:
        for gap in done:
            pending.remove(gap)
            yield gap.reject(index)

    for record in records:
        if isinstance(record, Unread):
            yield from close(list(pending))
            named = record.reject
            last = (named.page_id, named.title) if names_a_page(named) else (
                (recent[-1][1], None) if recent else (None, None))
            before = _side_before(recent, floor, record.gap.read, _window(record.gap))
            if named.page_id is not None:  # the page the gap cut into: the last id before it
                before.ids.append(named.page_id)
            read += names_a_page(named)
            pending.append(_Pending(record, before, last))
        else:
            if names_a_page(record):
                position = meter.good_bytes
                page_id = record.page_id
                yield from close([gap for gap in pending if not gap.take(position, page_id)])
                recent.append((position, page_id))
                while recent[0][0] < position - WINDOW_CAP:
                    floor = recent.popleft()[0]
                read += 1
            yield record
        if limit is not None and read >= limit:
            break
    yield from close(list(pending))
