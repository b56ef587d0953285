"""Shared by the tests of built corpora: read a corpus back and check its page accounting."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq


def read_corpus(out: Path) -> list[dict]:
    """All sentences of a corpus, sorted by (page id, sentence index)."""
    rows = []
    for part in sorted((out / "parquet").glob("part-*.parquet")):
        rows.extend(pq.read_table(part).to_pylist())
    return sorted(rows, key=lambda r: (r["page_id"], r["sentence_index"]))


def read_tsv_sentences(out: Path) -> list[list[list[str]]]:
    """Every sentence of the TSV parts: a list of columns per token (comment lines left out)."""
    sentences = []
    for part in sorted((out / "tsv").glob("part-*.tsv")):
        for block in part.read_text(encoding="utf-8").split("\n\n"):
            if block.strip():
                sentences.append([line.split("\t") for line in block.split("\n") if "\t" in line])
    return sentences


def read_stats(out: Path) -> dict:
    return json.loads((out / "stats.json").read_text(encoding="utf-8"))


def read_rejects(out: Path) -> list[dict]:
    """The dead letters of a corpus (rejects/part-*.jsonl)."""
    return [json.loads(line) for part in sorted((out / "rejects").glob("*.jsonl"))
            for line in part.read_text(encoding="utf-8").splitlines()]


def check_accounting(stats: dict, complete: bool = True) -> None:
    """Every page read is used, skipped or rejected; ``complete``: and every page of the dumps was
    read (no corrupt block skipped), and stats.json says so either way."""
    accounted = stats["pages_used"] + sum(stats["pages_skipped"].values()) + sum(stats["pages_rejected"].values())
    assert stats["pages_read"] == accounted, stats
    assert stats["pages_accounted"] is complete, stats
    assert (stats["bytes_skipped"] == 0) is complete, stats
    if complete:  # pages_read + pages_unread_estimate: the pages of the dumps
        assert stats["pages_unread_estimate"] == 0, stats
