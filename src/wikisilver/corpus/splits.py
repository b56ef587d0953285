"""§6 of the method: reproducible train/test splits of our corpus, by article, to a token budget.

No article has sentences on both sides (sentences of one article share names, which would flatter
the scores). The side of an article is a hash of its id and the seed, so it does not depend on the
order of the input or on the runner that wrote it. With a token budget (the paper's 3.5 M-token
experiments) whole articles are taken in hash order until the budget is reached, which needs one
counting pass over the corpus: the memory is one integer pair per article, never the sentences.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from wikisilver.corpus.tags import TaggedSentence
from wikisilver.corpus.write import write_tagged_tsv
from wikisilver.errors import InputError

_SCALE = float(2**64)


def article_hash(doc_id: str, seed: int = 0) -> int:
    """A stable 64-bit hash of an article id (Python's hash() is salted per process)."""
    digest = hashlib.blake2b(f"{seed}\x00{doc_id}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _key(sentence: TaggedSentence) -> str:
    if sentence.doc_id is None:
        raise InputError(None, "a sentence has no article id (page_id or title); cannot split by article")
    return sentence.doc_id


def _is_test(article: int, test_fraction: float) -> bool:
    """Whether an article (by its hash) goes to the test side: a fixed fraction of the hash space."""
    return article / _SCALE < test_fraction


@dataclass(frozen=True)
class SplitReport:
    """What a split wrote."""

    train_path: str
    test_path: str
    train_sentences: int
    train_tokens: int
    train_articles: int
    test_sentences: int
    test_tokens: int
    test_articles: int


def select_articles(
    sentences: Iterable[TaggedSentence], test_fraction: float, seed: int, max_tokens: int | None
) -> tuple[set[int], set[int]] | None:
    """Hashes of the articles kept on each side under a token budget, or None without a budget.

    The budget is shared as the split: ``(1 - f) * max_tokens`` for train, ``f * max_tokens`` for
    test. Articles are taken in hash order, so a smaller budget gives a subset of a larger one.
    """
    if max_tokens is None:
        return None
    sizes: dict[int, int] = {}
    for sentence in sentences:
        h = article_hash(_key(sentence), seed)
        sizes[h] = sizes.get(h, 0) + len(sentence.tokens)
    budgets = {True: test_fraction * max_tokens, False: (1 - test_fraction) * max_tokens}
    used = {True: 0, False: 0}
    kept: dict[bool, set[int]] = {True: set(), False: set()}
    # A second hash of the article orders the sampling, independent of the side assignment.
    for h in sorted(sizes, key=lambda h: article_hash(str(h), seed + 1)):
        side = _is_test(h, test_fraction)
        if used[side] + sizes[h] <= budgets[side]:
            kept[side].add(h)
            used[side] += sizes[h]
    return kept[False], kept[True]


def split_corpus(
    read: Callable[[], Iterator[TaggedSentence]],
    out_dir: str,
    *,
    test_fraction: float = 0.1,
    seed: int = 0,
    max_tokens: int | None = None,
) -> SplitReport:
    """Write ``out_dir/train.tsv`` and ``out_dir/test.tsv``; ``read`` opens the corpus (maybe twice)."""
    if not 0.0 <= test_fraction < 1.0:
        raise InputError(None, f"--test-fraction must be in [0, 1), got {test_fraction}")
    if max_tokens is not None and max_tokens <= 0:
        raise InputError(None, f"--max-tokens must be positive, got {max_tokens}")
    selection = select_articles(read(), test_fraction, seed, max_tokens)
    os.makedirs(out_dir, exist_ok=True)
    train_path = os.path.join(out_dir, "train.tsv")
    test_path = os.path.join(out_dir, "test.tsv")
    counts = {True: [0, 0, set()], False: [0, 0, set()]}
    with open(train_path, "w", encoding="utf-8") as train_out, open(test_path, "w", encoding="utf-8") as test_out:
        for sentence in read():
            h = article_hash(_key(sentence), seed)
            side = _is_test(h, test_fraction)
            if selection is not None and h not in selection[side]:
                continue
            write_tagged_tsv(test_out if side else train_out, [sentence])
            counts[side][0] += 1
            counts[side][1] += len(sentence.tokens)
            counts[side][2].add(h)
    return SplitReport(
        train_path=train_path,
        test_path=test_path,
        train_sentences=counts[False][0],
        train_tokens=counts[False][1],
        train_articles=len(counts[False][2]),
        test_sentences=counts[True][0],
        test_tokens=counts[True][1],
        test_articles=len(counts[True][2]),
    )
