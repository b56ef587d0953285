"""Step 5 of the method: the labelled sentences and the dead letters written as part files."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
import apache_beam as beam

from wikisilver import paths
from wikisilver.corpus.write import write_part
from wikisilver.packed import articles_in_order, pack_sentences
from wikisilver.pipelines.common import counter
from wikisilver.progress import progress_log
from wikisilver.records import PageReject

def shard_of(page_id: int, shards: int) -> int:
    """Stable shard of a page (crc32, not hash(): the same on every worker and every run)."""
    return zlib.crc32(str(page_id).encode()) % shards


def part_name(shard: int, shards: int) -> str:
    return f"part-{shard:05d}-of-{shards:05d}"


class _WritePart(beam.DoFn):
    def __init__(self, staging: str, shards: int, progress_interval: float = 30.0, with_source: bool = False) -> None:
        self.with_source = with_source
        self.staging = staging
        self.shards = shards
        self.progress_interval = progress_interval

    def process(self, element) -> Iterator[int]:
        shard, articles = element
        name = part_name(shard, self.shards)
        root = self.staging  # a local path or gs://…, s3://… (wikisilver.paths)
        written = write_part(articles_in_order(articles), paths.join(root, "tsv", f"{name}.tsv"),
                             paths.join(root, "parquet", f"{name}.parquet"), with_source=self.with_source)
        counter("sentences_written").inc(written)
        if self.progress_interval > 0:
            progress_log.info("write: %s (%s sentences)", name, f"{written:,}")
        yield written


class WriteCorpus(beam.PTransform):
    """Sentences (a tuple per article) -> tsv/part-*.tsv and parquet/part-*.parquet in staging.

    Sentences are sharded by page id, so a part holds whole articles and the split is the same on
    every runner; within a part they are sorted by (page id, sentence index). An article's
    sentences cross the shuffle packed (:mod:`wikisilver.packed`: a few bytes a token), and the writer holds only the packed articles of its part, unpacking one at a time as
    it writes: its memory is a fraction of its part's sentences, not all of them as objects.
    ``with_source``: the Parquet ``source`` column of a build with a second pass.
    """

    def __init__(self, staging: str, shards: int, progress_interval: float = 30.0, with_source: bool = False) -> None:
        super().__init__()
        self.with_source = with_source
        self.staging = staging
        self.shards = shards
        self.progress_interval = progress_interval

    def expand(self, articles):
        shards = self.shards
        return (
            articles
            | "KeyByShard" >> beam.Map(lambda sentences: (shard_of(sentences[0].page_id, shards), pack_sentences(sentences)))
            | "GroupShard" >> beam.GroupByKey()
            | "WritePart" >> beam.ParDo(_WritePart(self.staging, shards, self.progress_interval, self.with_source))
        )


class _WriteRejects(beam.DoFn):
    def __init__(self, staging: str) -> None:
        self.staging = staging

    def process(self, element) -> Iterator[int]:
        shard, rejects = element
        rows = sorted(
            (_reject_row(r) for r in rejects),
            key=lambda row: (row["source"], row["offset"] or -1, row["page_id"] or -1, row["reason"]),
        )
        path = paths.join(self.staging, "rejects", f"part-{shard:05d}.jsonl")
        with paths.open_text_write(path) as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        yield len(rows)


def _reject_row(reject: PageReject) -> dict:
    row = {
        "source": reject.source, "reason": reject.reason, "detail": reject.detail,
        "page_id": reject.page_id, "title": reject.title, "offset": reject.offset,
        "snippet": reject.snippet,
    }
    if reject.bytes_skipped:  # a gap in a dump read on after
        row.update(bytes_skipped=reject.bytes_skipped, pages_unread_estimate=reject.pages_unread_estimate)
    if reject.unread_pages:  # the pages the multistream index lists in the gap
        row["unread_pages"] = [{"page_id": page_id, "title": title} for page_id, title in reject.unread_pages]
    return row


class WriteRejects(beam.PTransform):
    """Dead letters -> rejects/part-*.jsonl with page id, title, reason, detail and a snippet."""

    def __init__(self, staging: str, shards: int) -> None:
        super().__init__()
        self.staging = staging
        self.shards = shards

    def expand(self, rejects):
        shards = self.shards
        return (
            rejects
            | "KeyRejects" >> beam.Map(lambda r: (zlib.crc32(f"{r.source}:{r.page_id}:{r.offset}".encode()) % shards, r))
            | "GroupRejects" >> beam.GroupByKey()
            | "WriteRejectPart" >> beam.ParDo(_WriteRejects(self.staging))
        )
