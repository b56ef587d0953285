"""Step 2b of the method: route pages (articles, redirects, disambiguation pages, other
namespaces) and clean each article's wikitext into text with link spans."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import apache_beam as beam

from wikisilver import wikitext
from wikisilver.pipelines.common import REJECTS, SKIPPED, Progress, counter
from wikisilver.records import Article, Page, PageFlags, PageReject
from wikisilver.entities.infobox import infobox_class, load_infobox_mappings
from wikisilver.titles import normalize_title

class _RoutePage(beam.DoFn):
    """Split pages into articles, redirects, disambiguation pages and skipped namespaces."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def process(self, page: Page) -> Iterator:
        title = normalize_title(page.title)
        if page.ns != 0:
            counter("pages_skipped_namespace").inc()
            yield beam.pvalue.TaggedOutput(SKIPPED, "namespace")
            return
        yield beam.pvalue.TaggedOutput("page_titles", (page.page_id, title))
        target = page.redirect or wikitext.redirect_target(page.text, self.lang)
        if target:
            counter("pages_skipped_redirect").inc()
            yield beam.pvalue.TaggedOutput(SKIPPED, "redirect")
            yield beam.pvalue.TaggedOutput("redirects", (title, normalize_title(target)))
            yield beam.pvalue.TaggedOutput("flags", (title, PageFlags(title, is_redirect=True)))
            return
        if wikitext.is_disambiguation(page.text, self.lang):
            counter("pages_skipped_disambiguation").inc()
            yield beam.pvalue.TaggedOutput(SKIPPED, "disambiguation")
            yield beam.pvalue.TaggedOutput("flags", (title, PageFlags(title, is_disambiguation=True)))
            return
        yield beam.pvalue.TaggedOutput("flags", (title, PageFlags(title)))
        yield page


class _CleanArticle(beam.DoFn):
    """Wikitext -> clean text with link spans, within a size and time budget; failures to rejects."""

    def __init__(self, lang: str, namespaces: Mapping[int, str], max_chars: int, max_seconds: float,
                 infobox_dir: str | None, progress_interval: float = 30.0) -> None:
        self.options = {"lang": lang, "namespaces": dict(namespaces), "max_chars": max_chars, "max_seconds": max_seconds}
        self.infobox_dir = infobox_dir
        self.infoboxes = None
        self.progress_interval = progress_interval
        self.progress = None

    def setup(self) -> None:
        self.progress = Progress("clean", "articles", self.progress_interval)
        if self.infobox_dir:
            self.infoboxes = load_infobox_mappings(self.infobox_dir)

    def process(self, page: Page) -> Iterator:
        try:
            clean = wikitext.clean_wikitext(page.text, **self.options)
        except Exception as error:  # a corrupt page never kills a run: dead-letter it
            counter("pages_rejected").inc()
            yield beam.pvalue.TaggedOutput(REJECTS, _reject(page, error))
            return
        title = normalize_title(page.title)
        cls = infobox_class(wikitext.template_names(page.text), self.infoboxes) if self.infoboxes else None
        if cls:
            counter("typed_by_infobox").inc()
            yield beam.pvalue.TaggedOutput("infobox_types", (title, cls))
        if not clean.text.strip():
            counter("pages_skipped_empty").inc()
            yield beam.pvalue.TaggedOutput(SKIPPED, "empty_text")
            return
        counter("articles_cleaned").inc()
        self.progress.add()
        yield Article(page.page_id, title, clean.text, clean.links)


def _reject(page: Page, error: Exception) -> PageReject:
    if isinstance(error, wikitext.WikitextBudgetError):
        reason, detail = "over_budget", str(error)
    else:
        reason, detail = "parse_error", f"{type(error).__name__}: {error}"
    return PageReject(
        source=page.source, reason=reason, detail=detail[:500], page_id=page.page_id,
        title=page.title, offset=page.offset, snippet=page.text[:200],
    )


class ExtractArticles(beam.PTransform):
    """Pages -> (articles, redirects, page flags, infobox types, skipped reasons, rejects).

    ``namespaces``: the wiki's namespace names from its dumps' ``<siteinfo>``
    (:func:`wikisilver.dump.wiki_namespaces`, read once when the graph is built), so that the
    cleaner drops the local File: and Category: links of any wiki.
    """

    def __init__(
        self, lang: str, max_chars: int, max_seconds: float, infobox_dir: str | None, progress_interval: float = 30.0,
        namespaces: Mapping[int, str] | None = None,
    ) -> None:
        super().__init__()
        self.lang = lang
        self.max_chars = max_chars
        self.max_seconds = max_seconds
        self.infobox_dir = infobox_dir
        self.progress_interval = progress_interval
        self.namespaces = dict(namespaces or {})

    def expand(self, pages):
        routed = pages | "Route" >> beam.ParDo(_RoutePage(self.lang)).with_outputs(
            SKIPPED, "redirects", "flags", "page_titles", main="articles"
        )
        cleaned = routed.articles | "Clean" >> beam.ParDo(
            _CleanArticle(
                self.lang, self.namespaces, self.max_chars, self.max_seconds, self.infobox_dir, self.progress_interval
            )
        ).with_outputs(REJECTS, SKIPPED, "infobox_types", main="articles")
        skipped = (routed[SKIPPED], cleaned[SKIPPED]) | "AllSkipped" >> beam.Flatten()
        return {
            "articles": cleaned.articles,
            "redirects": routed.redirects,
            "flags": routed.flags,
            "page_titles": routed.page_titles,
            "infobox_types": cleaned.infobox_types,
            "skipped": skipped,
            "rejects": cleaned[REJECTS],
        }
