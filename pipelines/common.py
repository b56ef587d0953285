"""What every stage of the jobs shares: the names of the side outputs, the one way to count a
thing, and the per-worker progress lines.

A DoFn counts what stats.json reports with ``yield count(name)``: one call increments the live
Beam counter ``name`` (what a Dataflow or Flink UI and the progress lines show) and emits
``{name: n}`` on the ``counts`` output, which is summed into stats.json as data (a runner may
lose or repeat counter updates on retries; data it cannot). Both carry the same name.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import NamedTuple, TypeVar

import apache_beam as beam
from apache_beam.metrics import Metrics
from apache_beam.pvalue import PCollection

from wikisilver.records import PageReject

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


def reject(record: PageReject) -> Iterator[beam.pvalue.TaggedOutput]:
    """A dead letter and its count, ``pages_rejected.<reason>``: ``yield from reject(...)``."""
    yield count(f"pages_rejected.{record.reason}")
    yield beam.pvalue.TaggedOutput(REJECTS, record)


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
