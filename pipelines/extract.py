"""Step 2b of the method: route pages (articles, redirects, disambiguation pages, other
namespaces) and clean each article's wikitext into text with link spans."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

import apache_beam as beam
from apache_beam.pvalue import PCollection

from wikisilver import wikitext
from wikisilver.garbage import collect_garbage_less_often
from wikisilver.pipelines.common import COUNTS, REJECTS, CountsPerBundle, count, counter, guarded
from wikisilver.progress import Progress
from wikisilver.records import Article, Page, PageFlags
from wikisilver.rejects import PARSING
from wikisilver.entities.infobox import infobox_class, load_infobox_mappings
from wikisilver.titles import normalize_title


class _RoutePage(CountsPerBundle):
    """Split pages into articles, redirects, disambiguation pages and skipped namespaces.

    The text checks run inside the page budget: a page over ``max_chars`` goes on unread (the
    cleaning step rejects it), one whose checks outlast ``max_seconds`` or fail is rejected here
    (the one policy: ``guarded``)."""

    def __init__(self, lang: str, max_chars: int, max_seconds: float | None) -> None:
        self.lang, self.max_chars, self.max_seconds = lang, max_chars, max_seconds

    def outputs(self, page: Page) -> Iterator:
        title = normalize_title(page.title)
        if page.ns != 0:
            yield count("pages_skipped.namespace")
            return
        yield beam.pvalue.TaggedOutput("page_titles", (page.page_id, title))
        yield from guarded(page, PARSING, self.max_seconds, lambda _deadline: route(page, title, *wikitext.page_kind(
            page.text, self.lang, self.max_chars, self.max_seconds, redirect=page.redirect)))


def route(page: Page, title: str, kind: str, target: str | None) -> Iterator:
    """The outputs of a main-namespace page of a kind (``wikitext.page_kind``): its flags, and the
    article itself, or the redirect pair, or a skip count."""
    if kind == "redirect":
        yield count("pages_skipped.redirect")
        yield beam.pvalue.TaggedOutput("redirects", (title, normalize_title(target)))
    elif kind == "disambiguation":
        yield count("pages_skipped.disambiguation")
    yield beam.pvalue.TaggedOutput("flags", (title, PageFlags(
        title, is_redirect=kind == "redirect", is_disambiguation=kind == "disambiguation")))
    if kind == "article":
        yield page


class _InfoboxClass(beam.DoFn):
    """An article -> the article, passed on to be cleaned, and, with --infobox-mappings,
    (title, DBpedia class of its first mapped infobox) as "infobox". An article whose templates
    outlast the page budget or fail to read is rejected here (``guarded``), and not cleaned: a
    page is rejected once, or used."""

    def __init__(self, directory: str, max_chars: int, max_seconds: float | None) -> None:
        self.directory, self.max_chars, self.max_seconds = directory, max_chars, max_seconds

    def setup(self) -> None:
        self.mappings = load_infobox_mappings(self.directory)

    def process(self, page: Page) -> Iterator:
        if len(page.text) > self.max_chars:  # over the page budget: a reject of the cleaning step
            yield page
            return
        yield from guarded(page, PARSING, self.max_seconds, lambda deadline: self.typed(page, deadline))

    def typed(self, page: Page, deadline: float | None) -> list:
        cls = infobox_class(wikitext.template_names(page.text, deadline), self.mappings)
        if not cls:
            return [page]
        counter("typed_by_infobox").inc()
        return [beam.pvalue.TaggedOutput("infobox", (normalize_title(page.title), cls)), page]


class _CleanArticle(CountsPerBundle):
    """Wikitext -> clean text with link spans, within a size and time budget; failures to rejects
    (``guarded``)."""

    def __init__(self, options: Mapping[str, object], progress_interval: float) -> None:
        self.options = dict(options)  # the keyword arguments of clean_wikitext
        self.progress_interval = progress_interval

    def setup(self) -> None:
        collect_garbage_less_often()  # a distributed runner's worker process
        self.progress = Progress("clean", "articles", self.progress_interval)

    def outputs(self, page: Page) -> Iterator:
        return guarded(page, PARSING, self.options["max_seconds"], lambda _deadline: self.cleaned(page))

    def cleaned(self, page: Page) -> list:
        clean = wikitext.clean_wikitext(page.text, **self.options)
        if not clean.text.strip():
            return [count("pages_skipped.empty_text")]
        counter("articles_cleaned").inc()
        self.progress.add()
        return [Article(page.page_id, normalize_title(page.title), clean.text, clean.links)]


class Extracted(NamedTuple):
    articles: PCollection  # Article: clean text and links of each article
    redirects: PCollection  # (redirect title, target title)
    flags: PCollection  # (title, PageFlags) of every article, redirect and disambiguation page
    page_titles: PCollection  # (page id, title), to map the SQL tables' page ids
    infobox_types: PCollection | None  # (title, DBpedia class of its first mapped infobox); None without mappings
    rejects: PCollection  # PageReject: pages over budget or that could not be parsed
    counts: PCollection  # dicts of counts for stats.json (skipped by reason, rejected by reason)


class ExtractArticles(beam.PTransform):
    """Pages -> :class:`Extracted`: articles, what the dump says of each title, rejects, counts.

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

    def expand(self, pages) -> Extracted:
        routed = pages | "Route" >> beam.ParDo(
            _RoutePage(self.lang, self.max_chars, self.max_seconds)
        ).with_outputs(REJECTS, COUNTS, "redirects", "flags", "page_titles", main="articles")
        options = {"lang": self.lang, "namespaces": self.namespaces, "max_chars": self.max_chars,
                   "max_seconds": self.max_seconds}
        articles, infobox, steps = routed.articles, None, [routed]
        if self.infobox_dir:
            typed = articles | "Infobox" >> beam.ParDo(
                _InfoboxClass(self.infobox_dir, self.max_chars, self.max_seconds)
            ).with_outputs(REJECTS, COUNTS, "infobox", main="articles")
            articles, infobox = typed.articles, typed.infobox
            steps.append(typed)
        cleaned = articles | "Clean" >> beam.ParDo(
            _CleanArticle(options, self.progress_interval)
        ).with_outputs(REJECTS, COUNTS, main="articles")
        steps.append(cleaned)
        counted = tuple(step[COUNTS] for step in steps) | "ExtractCounts" >> beam.Flatten()
        rejects = tuple(step[REJECTS] for step in steps) | "ExtractRejects" >> beam.Flatten()
        return Extracted(cleaned.articles, routed.redirects, routed.flags, routed.page_titles,
                         infobox, rejects, counted)
