"""Every exception class of wikisilver, in one place. Errors carry where they happened, so the
CLI can print one clear line; a ``WikisilverError`` is such an expected failure.

(Exceptions private to one function's control flow, such as the SPARQL reader's ``_Truncated``,
stay beside it.)"""

from __future__ import annotations


class WikisilverError(Exception):
    """Base class: an expected failure the CLI reports as one line, without a traceback."""


class InputError(WikisilverError):
    """A user input (file, option, language) is missing or unusable."""

    def __init__(self, path: str | None, reason: str, position: str | None = None) -> None:
        self.path = path
        self.reason = reason
        self.position = position
        where = path or ""
        if position:
            where = f"{where}:{position}"
        # An error about no file in particular (a bad option) is the reason alone.
        super().__init__(f"{where}: {reason}" if where else reason)


class OutputError(WikisilverError):
    """An output could not be written (a full disk, a lost mount): names the file."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class DumpError(WikisilverError):
    """A dump could not be read at some point: names the file, byte offset and page."""

    def __init__(
        self, path: str, offset: int | None, page_id: int | None, reason: str
    ) -> None:
        self.path = path
        self.offset = offset
        self.page_id = page_id
        self.reason = reason
        parts = [path]
        if offset is not None:
            parts.append(f"byte {offset}")
        if page_id is not None:
            parts.append(f"page {page_id}")
        super().__init__(f"{', '.join(parts)}: {reason}")


class OutputLocked(InputError):
    """Another run holds the output directory."""


class PipelineFailed(WikisilverError):
    """The Beam job failed: the one line that says why (the worker traceback is in the log)."""


class AlreadyBuilt(Exception):
    """--out holds a finished corpus of the same inputs and configuration: nothing to do."""

    def __init__(self, stats: dict) -> None:
        super().__init__("already built")
        self.stats = stats


class BuildProblems(WikisilverError):
    """``strict=True`` and the build rejected pages or hit stream errors (the corpus was written)."""

    def __init__(self, message: str, stats: dict) -> None:
        super().__init__(message)
        self.stats = stats


class CorpusRejected(WikisilverError):
    """A build in which one reject reason took more than ``--max-reject-share`` of the pages: the
    corpus is not finished (no ``manifest.json``, no dataset card); the CLI exits 1.

    ``found``: the reason, its pages and the candidate pages (``wikisilver.health.RejectShare``)."""

    def __init__(self, out: str, found, max_share: float, example: str | None) -> None:
        self.out, self.found, self.max_share = out, found, max_share
        detail = f" (e.g. {example})" if example else ""
        super().__init__(
            f"{found.pages:,} of {found.candidates:,} pages ({found.share:.0%}) were rejected for "
            f"{found.reason}{detail}, more than --max-reject-share {max_share:g} allows: the corpus in "
            f"{out} is not finished (no manifest.json or README.md; its parts, stats.json and rejects/ are "
            "left to inspect); fix the cause and run the build again")


class SparqlError(WikisilverError):
    """The endpoint could not answer a query: one line naming endpoint, batch and reason."""

    def __init__(self, endpoint: str, batch: str, reason: str) -> None:
        self.endpoint = endpoint
        self.batch = batch
        self.reason = reason
        super().__init__(f"SPARQL endpoint {endpoint}: {batch}: {reason}")


class WikitextBudgetError(Exception):
    """A page over the size or time budget of the cleaner or the labeller (the pipeline rejects
    it, ``over_budget``: wikisilver.rejects)."""


class AnswerTooLarge(Exception):
    """An HTTP answer is larger than the limit (no retry helps)."""


class Retryable(Exception):
    """A transient failure (connection reset, timeout, 5xx, short read): try again after a pause."""
