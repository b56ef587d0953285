"""What every stage of the jobs shares: the names of the side outputs, the one way to count a
thing, and the one error policy of a step on one page (:func:`guarded`).

A DoFn counts what stats.json reports with ``yield count(name)``: one call increments the live
Beam counter ``name`` (what a Dataflow or Flink UI and the progress lines show) and emits
``{name: n}`` on the ``counts`` output, which is summed into stats.json as data (a runner may
lose or repeat counter updates on retries; data it cannot). Both carry the same name. A DoFn that
counts something of each of many elements (every page, every requested title) sums its counts
over a bundle and sends them once at its end (:class:`CountsPerBundle`).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import NamedTuple, TypeVar

import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.pvalue import PCollection, TaggedOutput
from apache_beam.transforms.window import GlobalWindows

from wikisilver.records import Article, Page, PageReject
from wikisilver.rejects import PageStep, page_reject, run_page

NAMESPACE = "wikisilver"
REJECTS = "rejects"
COUNTS = "counts"


@functools.cache
def counter(name: str):
    """The live Beam counter ``name``; alone, for what is watched while a job runs but is not in
    stats.json (e.g. ``sentences_written``)."""
    return Metrics.counter(NAMESPACE, name)


def count(name: str, n: int = 1) -> beam.pvalue.TaggedOutput:
    """Count ``n`` of ``name``, for stats.json and for the live counter of that name."""
    return counts({name: n})


def counts(values: Mapping[str, int]) -> beam.pvalue.TaggedOutput:
    """:func:`count` of several names at once (one element on the ``counts`` output)."""
    for name, n in values.items():
        if n:
            counter(name).inc(n)
    return beam.pvalue.TaggedOutput(COUNTS, dict(values))


class CountsPerBundle(beam.DoFn):
    """A DoFn whose ``counts`` outputs are summed over its bundle and sent once, at its end: one
    element a bundle crosses to the statistics instead of one a page or a title. A subclass gives
    an element's outputs in :meth:`outputs`. Summed from ``start_bundle`` on, so a retried bundle
    counts once, as its other outputs do; ``finish_bundle`` emits a windowed value (the jobs run in
    the global window). The live counters are still incremented as each count is made."""

    def start_bundle(self) -> None:
        self.counted: Counter = Counter()

    def finish_bundle(self) -> Iterator:
        if self.counted:
            yield TaggedOutput(COUNTS, GlobalWindows.windowed_value(dict(self.counted)))

    def process(self, element) -> Iterator:
        """The outputs of ``element`` but its counts, which are added to the bundle's."""
        for output in self.outputs(element):
            if isinstance(output, TaggedOutput) and output.tag == COUNTS:
                self.counted.update(output.value)
            else:
                yield output

    def outputs(self, element) -> Iterable:
        raise NotImplementedError


def reject(record: PageReject, counted: Mapping[str, int] | None = None) -> Iterator[beam.pvalue.TaggedOutput]:
    """A dead letter and its count, ``pages_rejected.<reason>`` (the reader's: ``counted``, which
    tells a rejected page from a stream error): ``yield from reject(...)``."""
    yield counts({f"pages_rejected.{record.reason}": 1} if counted is None else counted)
    yield beam.pvalue.TaggedOutput(REJECTS, record)


def guarded(
    page: Page | Article, step: PageStep, max_seconds: float | None, work: Callable[[float | None], Iterable]
) -> Iterator:
    """The one dead-letter wrapper of every DoFn that works on one page: ``work(deadline)``'s
    outputs when it ends within the page's time budget (``max_seconds``, ``--page-timeout``), else
    only the page's :func:`reject`, ``over_budget`` or ``step``'s error reason
    (:func:`wikisilver.rejects.run_page`): a page never kills the run, and never passes half.
    ``work`` may check ``deadline`` (a ``time.perf_counter()`` value) on its way. Its outputs
    (``count()`` among them: stats.json's counts) are held until it has ended and dropped if the
    page fails; a live counter or progress line it moves on the way is not taken back."""
    outcome = run_page(step, max_seconds, lambda deadline: list(work(deadline)))
    if outcome.reason is not None:
        yield from reject(page_reject(page, outcome.reason, outcome.detail))
        return
    yield from outcome.value


Inputs = TypeVar("Inputs", bound=tuple)


def pcollections(inputs: NamedTuple) -> dict[str, PCollection]:
    """A NamedTuple of PCollections that holds None for a source the run does not use, as the
    input of a composite: its PCollections by field name (a dict, as Beam takes several inputs),
    so an unused source is no input and costs no stage at all. ``expand`` reads it back with
    :func:`named`."""
    return {name: value for name, value in inputs._asdict().items() if value is not None}


def named(kind: type[Inputs], inputs: Mapping[str, PCollection]) -> Inputs:
    """The NamedTuple ``kind`` of a composite's input made by :func:`pcollections`: None for each
    source the run does not use."""
    return kind(**{name: inputs.get(name) for name in kind._fields})
