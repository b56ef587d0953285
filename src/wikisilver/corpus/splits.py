"""§6 of the method: reproducible train/dev/test splits of a corpus, by article, to a token budget,
in our TSV or any export format (CoNLL-2003, CoNLL-U Plus, JSONL, spaCy, Parquet).

No article has sentences on both sides (sentences of one article share names, which would flatter
the scores). The side of an article is a hash of its id and the seed, so it does not depend on the
order of the input or on the runner that wrote it. With a token budget (the paper's 3.5 M-token
experiments) whole articles are taken in hash order until the budget is reached, which needs one
counting pass over the corpus: the memory is one integer pair per article, never the sentences.
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from wikisilver.corpus.export import TAGGED_FORMATS, check_destination, write_tagged
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.errors import InputError
from wikisilver.outputs import check_folder

_SCALE = float(2**64)


def article_hash(doc_id: str, seed: int = 0) -> int:
    """A stable 64-bit hash of an article id (Python's hash() is salted per process)."""
    digest = hashlib.blake2b(f"{seed}\x00{doc_id}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _key(sentence: TaggedSentence) -> str:
    if sentence.doc_id is None:
        raise InputError(None, "a sentence has no article id (page_id or title); cannot split by article")
    return sentence.doc_id


SIDES = ("train", "dev", "test")
# The file each output format of a split writes per side ("tsv": our multitag TSV).
SPLIT_FORMATS = TAGGED_FORMATS


def side_of(article: int, test_fraction: float, dev_fraction: float = 0.0) -> str:
    """The side of an article (by its hash): test is the first ``test_fraction`` of the hash space,
    dev the next ``dev_fraction``, train the rest (without dev, a test set stays the same one)."""
    position = article / _SCALE
    if position < test_fraction:
        return "test"
    return "dev" if position < test_fraction + dev_fraction else "train"


@dataclass(frozen=True)
class SideReport:
    """What one side of a split got."""

    path: str
    sentences: int = 0
    tokens: int = 0
    articles: int = 0


@dataclass(frozen=True)
class SplitReport:
    """What a split wrote: one :class:`SideReport` per side written (dev only when asked for)."""

    sides: dict[str, SideReport]

    def __getattr__(self, name: str):  # train_path, test_tokens, dev_articles, …
        side, _, what = name.partition("_")
        if side in SIDES and side in self.__dict__.get("sides", {}):
            return getattr(self.sides[side], what)
        raise AttributeError(name)


def select_articles(
    sentences: Iterable[TaggedSentence], fractions: dict[str, float], seed: int, max_tokens: int | None
) -> dict[str, set[int]] | None:
    """Hashes of the articles kept on each side under a token budget, or None without a budget.

    The budget is shared as the split: ``fractions[side] * max_tokens`` for each side. Articles
    are taken in hash order, so a smaller budget gives a subset of a larger one.
    """
    if max_tokens is None:
        return None
    sizes: dict[int, int] = {}
    for sentence in sentences:
        h = article_hash(_key(sentence), seed)
        sizes[h] = sizes.get(h, 0) + len(sentence.tokens)
    used = dict.fromkeys(fractions, 0)
    kept: dict[str, set[int]] = {side: set() for side in fractions}
    # A second hash of the article orders the sampling, independent of the side assignment.
    for h in sorted(sizes, key=lambda h: article_hash(str(h), seed + 1)):
        side = side_of(h, fractions["test"], fractions.get("dev", 0.0))
        if used[side] + sizes[h] <= fractions[side] * max_tokens:
            kept[side].add(h)
            used[side] += sizes[h]
    return kept


def split_corpus(
    read: Callable[[], Iterator[TaggedSentence]],
    out_dir: str,
    *,
    test_fraction: float = 0.1,
    dev_fraction: float = 0.0,
    seed: int = 0,
    max_tokens: int | None = None,
    fmt: str = "tsv",
) -> SplitReport:
    """Write ``out_dir/train.EXT``, ``dev.EXT`` (with a ``dev_fraction``) and ``test.EXT`` in one of
    :data:`SPLIT_FORMATS`; ``read`` opens the corpus (once, and once more before for a budget)."""
    if not 0.0 <= test_fraction < 1.0:
        raise InputError(None, f"--test-fraction must be in [0, 1), got {test_fraction}")
    if not 0.0 <= dev_fraction < 1.0 - test_fraction:
        raise InputError(None, f"--dev-fraction must be in [0, 1 - test fraction), got {dev_fraction}")
    if max_tokens is not None and max_tokens <= 0:
        raise InputError(None, f"--max-tokens must be positive, got {max_tokens}")
    if fmt not in SPLIT_FORMATS:
        raise InputError(None, f"unknown split format {fmt!r} (expected one of {', '.join(SPLIT_FORMATS)})")
    fractions = {"train": 1.0 - test_fraction - dev_fraction, "test": test_fraction}
    if dev_fraction:
        fractions["dev"] = dev_fraction
    check_folder(out_dir)  # and each side's file: before reading the corpus
    paths = {side: os.path.join(out_dir, side + SPLIT_FORMATS[fmt]) for side in SIDES if side in fractions}
    outputs = {side: check_destination(path, fmt) for side, path in paths.items()}
    selection = select_articles(read(), fractions, seed, max_tokens) if max_tokens is not None else None
    counts = {side: [0, 0, set()] for side in paths}

    def side_for(sentence: TaggedSentence) -> str | None:
        h = article_hash(_key(sentence), seed)
        side = side_of(h, test_fraction, dev_fraction)
        if selection and h not in selection[side]:
            return None
        counts[side][0] += 1
        counts[side][1] += len(sentence.tokens)
        counts[side][2].add(h)
        return side

    _deal(read(), side_for, {side: partial(write_tagged, out, fmt) for side, out in outputs.items()})
    return SplitReport({side: SideReport(path, counts[side][0], counts[side][1], len(counts[side][2]))
                        for side, path in paths.items()})


_END, _ABORT = object(), object()


class _Aborted(Exception):
    """The reading or another side failed: a writer stops without completing its file."""


class _Feed(queue.Queue):
    """The sentences of one side, from the reading thread to the side's writer."""

    def __init__(self) -> None:
        super().__init__(maxsize=256)
        self.ended = False

    def __iter__(self) -> Iterator[TaggedSentence]:
        while (item := self.get()) is not _END:
            if item is _ABORT:
                self.ended = True
                raise _Aborted
            yield item
        self.ended = True


def _deal(
    sentences: Iterable[TaggedSentence], side_for: Callable[[TaggedSentence], str | None],
    writers: dict[str, Callable[[Iterable[TaggedSentence]], object]],
) -> None:
    """Deal one pass over the corpus to the writers of the sides (a sentence whose side is None is
    dropped). The writers pull their sentences, so each runs in a thread behind a bounded queue:
    the corpus is read once, with a few hundred sentences per side in memory. If the reading or
    a writer fails, no side's file is completed and the first error is raised."""
    feeds = {side: _Feed() for side in writers}
    errors: list[BaseException] = []

    def work(side: str) -> None:
        feed = feeds[side]
        try:
            writers[side](feed)
        except _Aborted:
            pass
        except BaseException as error:  # noqa: BLE001 - raised again in the reading thread
            errors.append(error)
            while not feed.ended and feed.get() not in (_END, _ABORT):  # never block the reader
                pass

    threads = [threading.Thread(target=work, args=(side,), daemon=True) for side in writers]
    for thread in threads:
        thread.start()
    end = _ABORT
    try:
        for sentence in sentences:
            side = side_for(sentence)
            if errors:
                break
            if side is not None:
                feeds[side].put(sentence)
        else:
            end = _END
    finally:
        for feed in feeds.values():
            feed.put(end)
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
