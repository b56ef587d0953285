"""Step 5 of the method, its statistics: the stats.json object from the raw counts of a run."""

from __future__ import annotations

from collections.abc import Mapping

from wikisilver.labels import rules_fired
from wikisilver.rejects import RejectReason


def _group(counts: Mapping[str, int], prefix: str) -> dict[str, int]:
    return {k[len(prefix):]: int(v) for k, v in sorted(counts.items()) if k.startswith(prefix) and v}


def page_stats(counts: Mapping[str, int]) -> dict:
    """What became of the pages of the dumps, from the raw counts of a run (the ``pages_*`` keys
    of stats.json, docs/output.md): what a build and the entities job both write. ``pages_used``
    is what the job used a page for (the build: labelled; the entities job: read as an article)."""
    stats = {
        "pages_read": int(counts.get("pages_read", 0)),
        "pages_unread_estimate": int(counts.get("pages_unread_estimate", 0)),
        "pages_unread_listed": int(counts.get("pages_unread_listed", 0)),
        "bytes_skipped": int(counts.get("bytes_skipped", 0)),
        "pages_used": int(counts.get("pages_used", 0)),
        "pages_skipped": _group(counts, "pages_skipped."),
        "pages_rejected": _group(counts, "pages_rejected."),
        "stream_errors": _group(counts, "stream_errors."),
    }
    accounted = stats["pages_used"] + sum(stats["pages_skipped"].values()) + sum(stats["pages_rejected"].values())
    # Accounted: every page of the dumps was read (nothing skipped, no stream that failed its check),
    # and every page read is used, skipped or rejected.
    stats["pages_accounted"] = (accounted == stats["pages_read"] and not stats["bytes_skipped"]
                                and not stats["stream_errors"].get(RejectReason.CORRUPT_STREAM))
    return stats


def make_stats(counts: Mapping[str, int], max_pages: int | None = None) -> dict:
    """The stats.json object from the raw counts of the run (see docs/output.md); ``max_pages``:
    the ``--max-pages`` of a trial run that stopped reading there (recorded when it did)."""

    def group(prefix: str) -> dict[str, int]:
        return _group(counts, prefix)

    tokens = int(counts.get("tokens_kept", 0))
    entity_tokens = int(counts.get("entity_tokens", 0))
    stats = {
        **page_stats(counts),
        "sentences_total": int(counts.get("sentences_total", 0)),
        "sentences_kept": int(counts.get("sentences_kept", 0)),
        "sentences_dropped_unk": int(counts.get("sentences_dropped_unk", 0)),
        "sentences_dropped_fragment": group("sentences_dropped_fragment."),
        "sentences_low_quality": int(counts.get("sentences_low_quality", 0)),
        "sentences_dropped_low_quality": int(counts.get("sentences_dropped_low_quality", 0)),
        "tokens_kept": tokens,
        "entity_tokens": entity_tokens,
        "entities_by_tag": group("entities_by_tag."),
        "ne_density": round(entity_tokens / tokens, 6) if tokens else 0.0,
        "titles_typed_by_source": group("titles_typed_by."),
        "titles_by_tag": group("titles_by_tag."),
        "typing_conflicts": group("typing_conflicts."),
        "typing_decisions": group("typing_decisions."),
        "input_problems": group("input_problems."),
        "rules_fired": rules_fired(counts),
    }
    second_pass = group("second_pass.")
    if second_pass:  # a build with --second-pass (see docs/output.md)
        stats["second_pass"] = second_pass
    if max_pages is not None and stats["pages_read"] >= max_pages:
        stats["max_pages"] = max_pages  # the dumps were not read to their end
    return stats


def page_problems(stats: Mapping) -> tuple[int, int]:
    """(pages rejected, stream errors) of a stats.json object: what ``--strict`` fails a build on."""
    return sum(stats["pages_rejected"].values()), sum(stats["stream_errors"].values())


def describe_problems(stats: Mapping) -> str:
    """The page problems of a stats.json object in words, for the one warning or error line."""
    rejected, stream_errors = page_problems(stats)
    words = f"{rejected} page(s) rejected, {stream_errors} stream error(s)"
    if stats.get("bytes_skipped"):
        words += (f", {unread_words(stats)} page(s) unread in {stats['bytes_skipped']:,} compressed bytes skipped "
                  "over corrupt blocks")
    return words


def unread_words(stats: Mapping) -> str:
    """The estimate of the pages lost in corrupt blocks, in words: exact when the multistream
    index named them all, unknown when no page was read to measure the dump by."""
    unread = stats["pages_unread_estimate"]
    if unread and stats.get("pages_unread_listed") == unread:
        return f"{unread:,}"
    return f"about {unread:,}" if unread else "an unknown number of"


def input_problems(source: str, problems: dict[str, int]) -> dict[str, int]:
    """The counts of stats.json ``input_problems`` (``<source>.<kind>``) of what reading one file skipped."""
    return {f"input_problems.{source}.{kind}": n for kind, n in problems.items()}
