"""Steps 3 and 4 of the method: each article joined with what is known of its link targets, labelled."""

from __future__ import annotations

from collections.abc import Iterator

import apache_beam as beam

from wikisilver.labels import LabelConfig, Labeller
from wikisilver.pipelines.common import REJECTS, Progress, counter
from wikisilver.pipelines.redirects import article_key
from wikisilver.records import PageReject, TargetInfo

class _LabelArticle(beam.DoFn):
    def __init__(self, lang: str, text_backend: str, config: LabelConfig, progress_interval: float = 30.0) -> None:
        self.lang = lang
        self.text_backend = text_backend
        self.config = config
        self.labeller = None
        self.progress_interval = progress_interval
        self.progress = None

    def setup(self) -> None:
        from wikisilver.text import get_processor

        self.labeller = Labeller(self.lang, get_processor(self.lang, self.text_backend), self.config)
        self.progress = Progress("label", "articles", self.progress_interval)

    def process(self, element) -> Iterator:
        (page_id, _title), groups = element
        articles = sorted(groups["article"], key=lambda a: (len(a.text), a.text))
        if not articles:
            return
        targets: dict[str, TargetInfo] = {}
        own = None
        for target in groups["targets"]:
            if target.own:
                own = target.info
            else:
                targets[target.written] = target.info
        for duplicate in articles[1:]:
            counter("pages_rejected").inc()
            yield beam.pvalue.TaggedOutput(
                REJECTS,
                PageReject(source="", reason="duplicate_page_id", page_id=page_id, title=duplicate.title,
                           detail=f"page id {page_id} with this title read twice (duplicate page in the dump)"),
            )
        article = articles[0]
        try:
            result = self.labeller.label_article(article, targets, own)
            result.counts["pages_used"] += 1
        except Exception as error:  # dead-letter, never kill the run
            counter("articles_label_error").inc()
            yield beam.pvalue.TaggedOutput(
                REJECTS,
                PageReject(source="", reason="label_error", detail=f"{type(error).__name__}: {error}"[:500],
                           page_id=page_id, title=article.title, snippet=article.text[:200]),
            )
            yield beam.pvalue.TaggedOutput("counts", {"pages_rejected.label_error": 1})
            return
        for name in ("sentences_total", "sentences_kept", "sentences_dropped_unk", "tokens_kept"):
            counter(name).inc(result.counts.get(name, 0))
        self.progress.add()
        yield beam.pvalue.TaggedOutput("counts", dict(result.counts))
        if result.sentences:
            # One element per article, not per sentence: a tenth of Beam's per-element cost on the
            # way to the writer, and an article's sentences stay together in one part anyway.
            yield tuple(result.sentences)


class LabelSentences(beam.PTransform):
    """(articles, resolved targets) -> kept labelled sentences (a tuple per article, in order),
    per-article counts, rejects."""

    def __init__(
        self, lang: str, text_backend: str = "builtin", config: LabelConfig | None = None, progress_interval: float = 30.0
    ) -> None:
        super().__init__()
        self.lang = lang
        self.text_backend = text_backend
        self.config = config or LabelConfig()
        self.progress_interval = progress_interval

    def expand(self, inputs):
        keyed = inputs["articles"] | "KeyArticles" >> beam.Map(lambda a: (article_key(a), a))
        result = (
            {"article": keyed, "targets": inputs["targets"]}
            | "JoinTargets" >> beam.CoGroupByKey()
            | "Label" >> beam.ParDo(
                _LabelArticle(self.lang, self.text_backend, self.config, self.progress_interval)
            ).with_outputs(
                REJECTS, "counts", main="sentences"
            )
        )
        return result.sentences, result.counts, result[REJECTS]
