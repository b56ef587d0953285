"""Step 3 inputs: each article's link targets, with redirect chains followed, keyed by target title."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.transforms.window import GlobalWindows

from wikisilver.packed import pack, unpack
from wikisilver.records import Article


# What one article is sent about one title it asked for, a link target or its own title: (the title
# as the article wrote it (its own title: the article's title), what is known of the title (a
# TargetInfo, redirects followed) packed once per title, whether it is the article's own title). A
# plain tuple: Beam's coder writes a tuple of str, bytes and bool itself, and pickles a record (five
# times as long, for every requesting article of every typed title).
ArticleTarget = tuple[str, bytes, bool]


def article_key(article: Article) -> tuple[int, str]:
    """Join key of an article: page id and title (some dumps reuse page ids, e.g. test exports)."""
    return (article.page_id, article.title)


def _requests(article: Article) -> Iterator[tuple[str, tuple[tuple[int, str], bool]]]:
    """(title, (article key, is the article's own title)) for its own title and each link target."""
    key = article_key(article)
    yield article.title, (key, True)
    for target in sorted({link.target for link in article.links if link.target}):
        yield target, (key, False)


class _RequestsPerBundle(beam.DoFn):
    """Articles -> (title, the requests for it of the bundle's articles), one element a title.

    An article asks about some 150 titles, most of them asked by other articles too: gathered in a
    dict as they come, a request costs an append, where an element of its own costs Beam's runner
    its handling and the combine's (150,000 of them for the English extract x8, against 17,000
    titles). At most ``held`` requests wait (then they are sent): a runner may put a whole input
    in one bundle."""

    def __init__(self, held: int = 1 << 16) -> None:
        self.held = held

    def start_bundle(self) -> None:
        self.titles: dict[str, list] = {}
        self.count = 0

    def process(self, article: Article) -> Iterator[tuple[str, list]]:
        titles = self.titles
        for title, request in _requests(article):
            asked = titles.get(title)
            if asked is None:
                titles[title] = [request]
            else:
                asked.append(request)
            self.count += 1
        if self.count >= self.held:
            yield from self._sent()

    def finish_bundle(self) -> Iterator:
        for element in self._sent():
            yield GlobalWindows.windowed_value(element)

    def _sent(self) -> Iterator[tuple[str, list]]:
        titles, self.titles, self.count = self.titles, {}, 0
        yield from titles.items()


class _CollectRequests(beam.CombineFn):
    """The requests for one title, in lists (:class:`_RequestsPerBundle`) -> one packed list
    (:mod:`wikisilver.packed`). As a combine, not a plain join input, so runners lift it before the
    shuffle: a bundle sends each popular title once with all its requesters, not once per link.
    Packed, because a runner holds what crosses a shuffle, Beam's local runner as objects: a dump's
    requests (one per article and distinct target) stay a few bytes each through the two joins by
    title that carry them, until the typing step reads them.

    Beam's own ``ToListCombineFn`` would do, but it merges with ``sum(accumulators, [])``, which
    copies the list once per accumulator: quadratic for a title linked from every bundle."""

    def create_accumulator(self) -> list:
        return []

    # An accumulator is a list, or packed where it crossed the shuffle: a title's one packed
    # accumulator (all its requests came from one bundle, as most do) is its output as it is.
    def add_input(self, accumulator: list | bytes, requests: list) -> list:
        accumulator = list(unpack(accumulator)) if isinstance(accumulator, bytes) else accumulator
        accumulator.extend(requests)
        return accumulator

    def merge_accumulators(self, accumulators) -> list | bytes:
        accumulators = list(accumulators)
        if len(accumulators) == 1:
            return accumulators[0]
        merged: list = []
        for accumulator in accumulators:
            merged.extend(unpack(accumulator) if isinstance(accumulator, bytes) else accumulator)
        return merged

    def compact(self, accumulator: list | bytes) -> bytes:
        return accumulator if isinstance(accumulator, bytes) else pack(accumulator)

    def extract_output(self, accumulator: list | bytes) -> bytes:
        return accumulator if isinstance(accumulator, bytes) else pack(accumulator)


def _extend_chain(element) -> Iterator[tuple[str, tuple[str, str]]]:
    """One hop along redirect chains: (source -> t) and (t -> u) give (source -> u)."""
    key, groups = element
    following = sorted(set(groups["next"]))
    for source in groups["chain"]:
        target = following[0] if following and following[0] != source else key
        yield target, (source, target)


def _follow_redirect(element) -> Iterator[tuple[str, tuple[str, tuple[bytes, ...]]]]:
    """The requests for one title as written -> (resolved title, (title as written, its packed
    requests: :func:`requests_of` reads them)).

    One element per title, not per request: the typing join then handles a popular target
    once rather than once per link."""
    key, groups = element
    batches = tuple(groups["request"])
    if not batches:
        return
    targets = sorted(set(groups["redirect"]))
    yield (targets[0] if targets else key), (key, batches)


def requests_of(batches: Iterable[bytes]) -> Iterator[tuple[tuple[int, str], bool]]:
    """(article key, is it the article's own title) of each request in packed batches."""
    for batch in batches:
        yield from unpack(batch)


class ResolveRedirects(beam.PTransform):
    """(articles, redirects) -> (resolved title, (title as written, packed batches of (article key,
    own title?): :func:`requests_of`)).

    The redirect table is resolved first (``hops`` rounds of a self-join, so chains of up to
    ``hops + 1`` redirects end on their final target; loops and longer chains end on a redirect
    title, which is not an entity, so such links are UNK); then each article's distinct targets
    (and its own title) are joined once with it.
    """

    def __init__(self, hops: int = 3) -> None:
        super().__init__()
        self.hops = hops

    def expand(self, inputs):
        articles, redirects = inputs
        chains = redirects | "ChainStart" >> beam.Map(lambda st: (st[1], (st[0], st[1])))
        for hop in range(self.hops):
            chains = (
                {"chain": chains | f"ChainSource{hop}" >> beam.Map(lambda kv: (kv[1][1], kv[1][0])), "next": redirects}
                | f"ExtendChains{hop}" >> beam.CoGroupByKey()
                | f"Extend{hop}" >> beam.FlatMap(_extend_chain)
            )
        resolved = chains | "ResolvedRedirects" >> beam.Map(lambda kv: (kv[1][0], kv[1][1]))
        requests = (
            articles
            | "Requests" >> beam.ParDo(_RequestsPerBundle())
            | "CollectRequests" >> beam.CombinePerKey(_CollectRequests())
        )
        return (
            {"request": requests, "redirect": resolved}
            | "JoinRedirects" >> beam.CoGroupByKey()
            | "FollowRedirects" >> beam.FlatMap(_follow_redirect)
        )
