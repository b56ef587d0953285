"""Step 1 of the method: every title's evidence, grouped by key, decides what is known of it.

The decision is :func:`wikisilver.entities.typing.type_title`; these composites only join the
evidence by title and route the result: the entities job keeps every title
(:class:`TypeEveryTitle`), the build answers its articles' requests (:class:`TypeRequestedTitles`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

import apache_beam as beam
from apache_beam.pvalue import PCollection

from wikisilver.entities.typing import TitleEvidence, Typing, evidence_fields, type_title
from wikisilver.ontology import ClassTag, Ontology
from wikisilver.pipelines.common import COUNTS, CountsPerBundle, counts
from wikisilver.packed import pack
from wikisilver.pipelines.redirects import requests_of

NOT_EVIDENCE = ("counts",)  # the inputs of the typing composites that are not grouped by title


def _group_evidence(evidence: dict[str, PCollection], requests: PCollection | None = None) -> PCollection:
    """(title, groups) with one group per source of ``evidence`` the run uses (:class:`Evidence`
    as ``inputs()``), and the requests if given. An input that is not a field of
    :class:`TitleEvidence` fails here, when the job is constructed, not when it runs."""
    fields = evidence_fields()
    unknown = sorted(set(evidence) - set(fields) - set(NOT_EVIDENCE))
    if unknown:
        raise ValueError(f"evidence {', '.join(unknown)} is not a field of TitleEvidence ({', '.join(fields)})")
    groups = {name: evidence[name] for name in fields if name in evidence}
    if requests is not None:
        groups["request"] = requests
    return groups | "GroupEvidence" >> beam.CoGroupByKey()


def _counts(typing: Typing) -> dict[str, int]:
    """The counts stats.json sums for one typed title."""
    found = {f"typing_conflicts.{conflict.kind}": 1 for conflict in typing.conflicts}
    if typing.decision is not None:
        found[f"typing_decisions.{typing.decision}"] = 1
    entity = typing.info.entity
    if entity is not None:
        found.update({f"titles_typed_by.{entity.source}": 1, f"titles_by_tag.{entity.conll}": 1})
    return found


class _TypeTitle(beam.DoFn):
    """(title, its evidence grouped by source) -> (title, TargetInfo)."""

    def __init__(self, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag]) -> None:
        self.lang = lang
        self.ontology = ontology
        self.class_table = dict(class_table)
        self.fields = evidence_fields()  # as grouped by _group_evidence

    def typing_of(self, title: str, groups) -> Typing:
        evidence = TitleEvidence(**{name: tuple(groups.get(name, ())) for name in self.fields})
        return type_title(title, evidence, self.lang, self.ontology, self.class_table)

    def process(self, element) -> Iterator[tuple[str, object]]:
        title, groups = element
        yield title, self.typing_of(title, groups).info


class _AnswerRequests(CountsPerBundle, _TypeTitle):
    """(title, its evidence and requests) -> (article key, ArticleTarget) for each requesting
    article, for the targets the labeller can use; and the counts of typed titles as "counts",
    summed over a bundle."""

    def outputs(self, element) -> Iterator:
        title, groups = element
        requests = tuple(groups["request"])
        if not requests:
            # A build types only the titles its articles link to (and the articles themselves).
            return
        typing = self.typing_of(title, groups)
        # link_targets: the denominator of the typing coverage the end-of-run check reads (counts.json only)
        yield counts({**_counts(typing), "link_targets": 1})
        info = typing.info
        if info.entity is None and not info.is_disambiguation:
            # What the labeller does with an untyped target is what it does with one it is not
            # sent (unknown: UNK): four in five (article, target) pairs need not travel at all.
            return
        packed = pack(info)  # once per title; each requesting article unpacks its own copy
        for written, batches in requests:
            for article, own in requests_of(batches):
                yield article, (written, packed, own)  # an ArticleTarget


class TypeEveryTitle(beam.PTransform):
    """:class:`Evidence` (as ``pcollections``) -> (title, TargetInfo) for every title any source
    knows (the entities job)."""

    def __init__(self, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag]) -> None:
        super().__init__()
        self.choose = _TypeTitle(lang, ontology, class_table)

    def expand(self, evidence: dict[str, PCollection]) -> PCollection:
        return _group_evidence(evidence) | "ChooseType" >> beam.ParDo(self.choose)


class TypedTargets(NamedTuple):
    """What the build's typing hands on: to the labeller, and to the statistics."""

    targets: PCollection  # (article key, ArticleTarget): what each article is sent about its targets
    counts: PCollection  # dicts of counts for stats.json (typed titles by source and tag, conflicts; what
    # reading the SQL tables and types files skipped)


class TypeRequestedTitles(beam.PTransform):
    """:class:`Evidence` (as ``pcollections``) and the build's requests -> :class:`TypedTargets`.

    ``requests``: resolved link targets keyed by title, valued (title as written, requests), see
    ``ResolveRedirects``. Only requested titles are typed, and an article is sent only the
    targets the labeller can use (typed, or disambiguation pages): a target an article is not
    sent is unknown to it, as an untyped one would be.
    """

    def __init__(
        self, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag], requests: PCollection
    ) -> None:
        super().__init__()
        self.answer = _AnswerRequests(lang, ontology, class_table)
        self.requests = requests

    def expand(self, evidence: dict[str, PCollection]) -> TypedTargets:
        answered = _group_evidence(evidence, self.requests) | "ChooseType" >> beam.ParDo(self.answer).with_outputs(
            COUNTS, main="targets"
        )
        found = answered[COUNTS]
        if "counts" in evidence:  # what reading the evidence skipped
            found = (found, evidence["counts"]) | "TypingAndReadCounts" >> beam.Flatten()
        return TypedTargets(answered.targets, found)
