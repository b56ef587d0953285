"""Step 3 of the method, its working memory: what the rules have decided so far about one sentence.

Rules answer with a :class:`Tag` (or :data:`LEAVE`); the labeller stamps it with the rule's name
into a :class:`Mention` and places it on tokens of the :class:`SentenceState`, which turns the
placed mentions into IOB2 tags and entity spans at the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from wikisilver.records import EntitySpan
from wikisilver.text.base import first_word

UNK = "UNK"


class Tag(NamedTuple):
    """What a rule says tokens are: an entity (CoNLL tag, DBpedia class, target title), O or UNK."""

    conll: str
    dbpedia_class: str
    target: str = ""


O = Tag("O", "O")
UNKNOWN = Tag(UNK, UNK)


@dataclass(frozen=True)
class Leave:
    """A rule's answer that labels nothing: the tokens are left as they are, to the other rules."""


LEAVE = Leave()


class Mention(NamedTuple):
    """A tag placed on tokens, with the name of the rule that decided it (kept on entity spans)."""

    conll: str
    dbpedia_class: str
    target: str
    rule: str

    @classmethod
    def of(cls, tag: Tag, rule: str) -> "Mention":
        return cls(tag.conll, tag.dbpedia_class, tag.target, rule)


@dataclass
class SentenceState:
    """One sentence while the rules label it.

    ``mentions[k]`` is what token k has been decided to be (None: nothing yet); ``groups[k]`` the id
    of the mention it belongs to, so that two adjacent mentions of the same tag stay two entities.
    ``has_unk`` says whether a token is UNK (the sentence will be dropped). ``counts`` are the
    article's counts, shared by its sentences. ``annotations`` (lemma, POS) are filled in only once
    the sentence has survived the UNK filter, except in a language that capitalizes every noun,
    where they come first and ``common_nouns`` holds the tokens its processor calls common nouns.
    """

    tokens: list[str]
    spans: list[tuple[int, int]]  # each token's [start, end) in the sentence
    counts: Counter
    start: int = 0  # the sentence's start in the article text (where its links' offsets count from)
    mentions: list[Mention | None] = field(init=False)
    groups: list[int] = field(init=False)
    first_word: int = field(init=False)
    next_group: int = 0
    has_unk: bool = False
    annotations: list[tuple[str, str]] | None = None
    common_nouns: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        self.mentions = [None] * len(self.tokens)
        self.groups = [-1] * len(self.tokens)
        self.first_word = first_word(self.tokens)

    def fire(self, rule: str) -> None:
        self.counts[rule] += 1

    def decide(self, k: int, mention: Mention) -> None:
        """Token k is ``mention`` on its own (an O or UNK token, not part of an entity)."""
        self.mentions[k] = mention
        self.has_unk = self.has_unk or mention.conll == UNK

    def join(self, k: int, mention: Mention) -> None:
        """Token k belongs to the mention being placed; :meth:`close` ends it."""
        self.mentions[k] = mention
        self.groups[k] = self.next_group
        self.has_unk = self.has_unk or mention.conll == UNK

    def extend(self, k: int, indices: Iterable[int]) -> None:
        """The tokens at ``indices`` join the mention of token k (its tag, class and target)."""
        for j in indices:
            self.mentions[j] = self.mentions[k]
            self.groups[j] = self.groups[k]

    def close(self) -> None:
        """End the mention being placed: the next token joined starts another one."""
        self.next_group += 1

    def pos(self, k: int) -> str:
        assert self.annotations is not None, "POS is read only after the UNK filter"
        return self.annotations[k][1]

    def iob(self) -> tuple[list[str], list[str], list[EntitySpan]]:
        """CoNLL and DBpedia IOB2 tags per token, and the entity spans."""
        conll_tags: list[str] = []
        dbpedia_tags: list[str] = []
        entity_spans: list[EntitySpan] = []
        previous_group = -2
        for k, mention in enumerate(self.mentions):
            if mention is None or mention.conll == "O":
                conll_tags.append("O")
                dbpedia_tags.append("O")
                previous_group = -2
                continue
            if self.groups[k] == previous_group and conll_tags and conll_tags[-1] != "O":
                conll_tags.append(f"I-{mention.conll}")
                dbpedia_tags.append(f"I-{mention.dbpedia_class}")
                last = entity_spans[-1]
                entity_spans[-1] = EntitySpan(last.start, k + 1, last.conll, last.dbpedia_class, last.target, last.rule)
            else:
                conll_tags.append(f"B-{mention.conll}")
                dbpedia_tags.append(f"B-{mention.dbpedia_class}")
                entity_spans.append(EntitySpan(k, k + 1, mention.conll, mention.dbpedia_class, mention.target, mention.rule))
            previous_group = self.groups[k]
        return conll_tags, dbpedia_tags, entity_spans
