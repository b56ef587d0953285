"""The dead letters of the method: why a page was rejected, and the one error policy of the steps
that work on one page at a time (step 2's routing, infobox and cleaning, step 4's labelling).

Every reason a page or a piece of a dump can be rejected for is a member of :class:`RejectReason`;
its value is the word written in ``rejects/*.jsonl`` and under ``pages_rejected`` in ``stats.json``
(docs/output.md lists them all; a test holds the two together).

The policy (:func:`run_page`): a step's work on a page runs to its end within the page's time
budget (``--page-timeout``), or the page is rejected, for ``over_budget`` (the work said it ran out
of its budget, or it ended after its deadline) or for the step's own error reason (it raised
anything else). It is all or nothing: a page that fails leaves no output but its reject, so a
corrupt page never kills the run and never half passes. The Beam side of it, the reject output
and its count, is ``wikisilver.pipelines.common.guarded``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from wikisilver.errors import WikitextBudgetError
from wikisilver.records import Article, Page, PageReject

# How much of an exception's message, and of the page's text, a reject keeps.
DETAIL_CHARS = 500
SNIPPET_CHARS = 200


class RejectReason(StrEnum):
    """Why a page (or a piece of a dump) went to the rejects: the one list of reasons."""

    # Reading the dump (wikisilver.dump); the first two are stream errors too, not only one page's.
    TRUNCATED = "truncated"  # the dump ends inside this page
    CORRUPT_STREAM = "corrupt_stream"  # a compressed block or stream that does not decompress
    XML_ERROR = "xml_error"
    BAD_PAGE_ID = "bad_page_id"  # a page id that does not fit 64 bits
    EMPTY_TITLE = "empty_title"
    LONG_TITLE = "long_title"  # over MediaWiki's 255 bytes
    # Any step on one page: over --max-page-chars or --page-timeout.
    OVER_BUDGET = "over_budget"
    # A step on one page raised: step 2 (routing, infobox, cleaning), step 4 (labelling).
    PARSE_ERROR = "parse_error"
    LABEL_ERROR = "label_error"
    # Labelling: a page id read twice, or under two titles.
    DUPLICATE_PAGE_ID = "duplicate_page_id"


@dataclass(frozen=True)
class PageStep:
    """A step that works on one page at a time: its name in an over-budget reject's detail
    (``parsing took longer than the time budget``), and the reason of a page it fails on."""

    name: str
    error: RejectReason


PARSING = PageStep("parsing", RejectReason.PARSE_ERROR)  # step 2: routing, infobox, cleaning
LABELLING = PageStep("labelling", RejectReason.LABEL_ERROR)  # step 4

T = TypeVar("T")


@dataclass(frozen=True)
class PageOutcome(Generic[T]):
    """What a step's work on one page came to: its value, or why the page is rejected."""

    value: T | None = None
    reason: RejectReason | None = None  # None: the work succeeded within its budget
    detail: str = ""


def run_page(step: PageStep, max_seconds: float | None, work: Callable[[float | None], T]) -> PageOutcome[T]:
    """``work(deadline)`` under the one error policy (module docstring). ``deadline`` is a
    ``time.perf_counter()`` value (None: no budget) that the work may check on its way (the
    parser and the labeller do, between pieces of the page); whether it does or not, a result
    that comes after the deadline is not taken. ``work`` should return its outputs whole (a
    list, not a generator), so that nothing of a failed page escapes."""
    deadline = time.perf_counter() + max_seconds if max_seconds is not None else None
    try:
        value = work(deadline)
    except WikitextBudgetError as error:
        return PageOutcome(reason=RejectReason.OVER_BUDGET, detail=str(error))
    except Exception as error:  # a page never kills the run: whatever it raised, it is a reject
        return PageOutcome(reason=step.error, detail=f"{type(error).__name__}: {error}")
    if deadline is not None and time.perf_counter() > deadline:
        return PageOutcome(reason=RejectReason.OVER_BUDGET, detail=f"{step.name} took longer than the time budget")
    return PageOutcome(value)


def page_reject(page: Page | Article, reason: RejectReason, detail: str) -> PageReject:
    """The reject of a page (as read: with its dump file and offset) or an article (cleaned: the
    dump is no longer known) for ``reason``."""
    source, offset = (page.source, page.offset) if isinstance(page, Page) else ("", None)
    return PageReject(source=source, reason=reason, detail=detail[:DETAIL_CHARS], page_id=page.page_id,
                      title=page.title, offset=offset, snippet=page.text[:SNIPPET_CHARS])
