"""Steps 3 and 4 of the method: each article joined with what is known of its link targets, labelled."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

import apache_beam as beam
from apache_beam.pvalue import PCollection
from apache_beam.utils.shared import Shared

from wikisilver.garbage import collect_garbage_less_often
from wikisilver.labels import LabelConfig, Labeller
from wikisilver.labels.labeller import ArticleResult
from wikisilver.labels.second_pass import DEFAULT_THRESHOLD, SecondPass
from wikisilver.ner import seam
from wikisilver.packed import pack_article, unpack, unpack_article
from wikisilver.text import get_processor
from wikisilver.pipelines.common import COUNTS, REJECTS, CountsPerBundle, counts, guarded, reject
from wikisilver.progress import Progress
from wikisilver.pipelines.redirects import ArticleTarget, article_key
from wikisilver.records import Article, PageReject, TargetInfo
from wikisilver.rejects import LABELLING, RejectReason


def split_targets(joined: Iterable[ArticleTarget]) -> tuple[dict[str, TargetInfo], TargetInfo | None]:
    """An article's joined targets -> (what its links point to, by link target; the article's own title)."""
    targets: dict[str, TargetInfo] = {}
    own = None
    for written, packed, is_own in joined:
        info = unpack(packed)
        if is_own:
            own = info
        elif info is not None:
            targets[written] = info
    return targets, own


def duplicate_rejects(page_id: int, duplicates: Iterable[Article]) -> Iterator[PageReject]:
    """Articles read under a page id already taken (the first by text is kept)."""
    for duplicate in duplicates:
        yield PageReject(source="", reason=RejectReason.DUPLICATE_PAGE_ID, page_id=page_id, title=duplicate.title,
                         detail=f"page id {page_id} with this title read twice (duplicate page in the dump)")


def ids_taken(element: tuple[int, Iterable[str]]) -> Iterator[tuple[tuple[int, str], str]]:
    """(article key, the title that keeps the page id) of each other title read under one page id:
    page ids are unique in the corpus, so the first title (in sort order) keeps it."""
    page_id, titles = element
    keeper, *others = sorted(set(titles))
    for title in others:
        yield (page_id, title), keeper


def id_taken_rejects(page_id: int, articles: Iterable[Article], keeper: str) -> Iterator[PageReject]:
    for article in articles:
        yield PageReject(source="", reason=RejectReason.DUPLICATE_PAGE_ID, page_id=page_id, title=article.title,
                         detail=f"page id {page_id} is also the id of the page {keeper!r}, which keeps it "
                                "(page ids are unique in the corpus)")


class SecondPassModel(NamedTuple):
    """The model of the second pass (a :func:`wikisilver.ner.seam.load_model` spec) and its threshold."""

    spec: str
    threshold: float = DEFAULT_THRESHOLD


def article_labeller(lang: str, text_backend: str, config: LabelConfig, second_pass: SecondPassModel | None,
                     shared_model: Shared) -> Labeller:
    """The labeller of one DoFn instance. With a second pass, the model is read once per worker
    process (``Shared``: its threads share the bytes) and each instance opens its own tagger on them."""
    relabel = None
    if second_pass is not None:
        spec, threshold = second_pass
        model = shared_model.acquire(lambda: seam.load_model(spec), tag=spec)
        relabel = SecondPass(seam.open_tagger(spec, model), threshold, seam.known_forms(model))
    return Labeller(lang, get_processor(lang, text_backend), config, relabel)


class _LabelArticle(CountsPerBundle):
    """(article key, the article and its targets) -> its kept sentences, its counts, rejects."""

    def __init__(
        self, lang: str, text_backend: str, config: LabelConfig, progress_interval: float = 30.0,
        second_pass: SecondPassModel | None = None, max_seconds: float | None = None,
    ) -> None:
        self.labeller_args = (lang, text_backend, config, second_pass)
        self.progress_interval = progress_interval
        self.max_seconds = max_seconds
        self.shared_model = Shared()

    def setup(self) -> None:
        collect_garbage_less_often()  # a distributed runner's worker process
        self.labeller = article_labeller(*self.labeller_args, self.shared_model)
        self.progress = Progress("label", "articles", self.progress_interval)

    def outputs(self, element) -> Iterator:
        (page_id, _title), groups = element
        articles = sorted(map(unpack_article, groups["article"]), key=lambda a: (len(a.text), a.text))
        keeper = next(iter(groups["id_taken"]), None)
        if articles and keeper is not None:  # another title has this page id
            for duplicate in id_taken_rejects(page_id, articles, keeper):
                yield from reject(duplicate)
        elif articles:  # else the key is only a link target
            yield from label_group(self.labeller, page_id, articles, groups["targets"], self.max_seconds)
            self.progress.add()


def label_group(
    labeller: Labeller, page_id: int, articles: list[Article], targets: Iterable, max_seconds: float | None = None
) -> Iterator:
    """The outputs of the articles of one page id (the first labelled, the others duplicates) and
    their link targets: the kept sentences (one tuple: an article's sentences stay together in one
    part anyway), the counts, rejects of duplicate page ids and of a failed article (one labelled
    for longer than ``max_seconds``, the page's time budget, among them)."""
    for duplicate in duplicate_rejects(page_id, articles[1:]):
        yield from reject(duplicate)
    yield from guarded(articles[0], LABELLING, max_seconds, lambda deadline: labelled(
        labeller.label_article(articles[0], *split_targets(targets), deadline=deadline)))


def labelled(result: ArticleResult) -> list:
    """The outputs of a labelled article: its counts, and its kept sentences (one tuple)."""
    found: list = [counts({**result.counts, "pages_used": result.counts.get("pages_used", 0) + 1})]
    if result.sentences:
        found.append(tuple(result.sentences))
    return found


class Labelled(NamedTuple):
    sentences: PCollection  # a tuple of the kept LabelledSentence records of each article, in order
    rejects: PCollection  # PageReject: duplicate page ids, articles over the time budget or the labeller failed on
    counts: PCollection  # dicts of counts for stats.json (sentences, tokens, entities, rules fired)


class LabelSentences(beam.PTransform):
    """(articles, each article's targets keyed by article) -> :class:`Labelled`; an article labelled
    for longer than ``max_seconds`` (``--page-timeout``) is a reject, ``over_budget``."""

    def __init__(
        self, lang: str, text_backend: str = "builtin", config: LabelConfig | None = None, progress_interval: float = 30.0,
        second_pass: SecondPassModel | None = None, max_seconds: float | None = None,
    ) -> None:
        super().__init__()
        self.max_seconds = max_seconds
        self.second_pass = second_pass
        self.lang = lang
        self.text_backend = text_backend
        self.config = config or LabelConfig()
        self.progress_interval = progress_interval

    def expand(self, inputs: tuple[PCollection, PCollection]) -> Labelled:
        articles, targets = inputs
        # packed across the join (wikisilver.packed): the text of every article crosses it
        keyed = articles | "KeyArticles" >> beam.Map(lambda a: (article_key(a), pack_article(a)))
        taken = (
            articles
            | "IdAndTitle" >> beam.Map(lambda a: (a.page_id, a.title))
            | "TitlesOfId" >> beam.GroupByKey()
            | "IdsTaken" >> beam.FlatMap(ids_taken)
        )
        result = (
            {"article": keyed, "targets": targets, "id_taken": taken}
            | "JoinTargets" >> beam.CoGroupByKey()
            | "Label" >> beam.ParDo(
                _LabelArticle(self.lang, self.text_backend, self.config, self.progress_interval, self.second_pass,
                              self.max_seconds)
            ).with_outputs(REJECTS, COUNTS, main="sentences")
        )
        return Labelled(result.sentences, result[REJECTS], result[COUNTS])
