"""Step 3 of the method, the rules of its ``EVIDENCE`` stage: what an article's whole text shows
about the titles its links name, read once per article before any sentence is labelled (a taxon's
name, a word the article writes in lower case), whatever a type source says of them; and
:func:`evidence_overrides`, which runs the rules that are on over an article.
"""

from __future__ import annotations

import functools
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import replace

from wikisilver.labels.language import LanguagePack
from wikisilver.labels.registry import Rule, Stage, rule
from wikisilver.labels.state import UNK
from wikisilver.records import Article, EntityType, TargetInfo
from wikisilver.text.base import scans as _scan  # the compiled scans, None where none were built
from wikisilver.titles import drop_parenthetical


def evidence_overrides(
    article: Article, targets: Mapping[str, TargetInfo], evidence_rules: Sequence[Rule], pack: LanguagePack,
    counts: Counter,
) -> tuple[Mapping[str, TargetInfo], dict[str, str]]:
    """``targets`` with the ones the article's own text shows are not what their type says
    (``evidence_rules``, the ``EVIDENCE`` rules that are on: a link's target title or anchor among
    the names) typed O, or unknown (UNK), for this article; and the names shown to be O, with the
    rule that says so. ``counts``: the article's, where each override is counted by its rule."""
    overrides: dict[str, TargetInfo] = {}
    not_entities: dict[str, str] = {}
    # the links to an entity, with the names they go by: its title, their anchor (a title typed
    # O, a planet, an element, is no entity either way: nothing to refute)
    typed = []
    for link in article.links:
        info = targets.get(link.target)
        if info is not None and info.entity is not None and pack.conll_of(info.entity) != "O":
            typed.append((link, info, drop_parenthetical(info.title), link.anchor.strip()))
    asked = frozenset(name for *_, title, anchor in typed for name in (title, anchor))
    for evidence_rule in evidence_rules:
        names = evidence_rule.decide(article.text, pack, asked)
        if not names:
            continue
        not_entities.update((name, evidence_rule.name) for name, tag in names.items() if tag == "O")
        for link, info, title, anchor in typed:
            if link.target in overrides:
                continue
            tag = names.get(title) or names.get(anchor)
            if tag is not None:
                entity = EntityType(info.title, None, "O", source=evidence_rule.name) if tag == "O" else None
                overrides[link.target] = replace(info, entity=entity)
                counts[evidence_rule.name] += 1
    # one dict, not a ChainMap: the labeller reads it once per link and alias (a ChainMap's get
    # is Python code); the same keys, in the same order, the overrides' values over the targets'
    return ({**targets, **overrides} if overrides else targets), not_entities


@functools.cache
def _taxon_pattern(ranks: frozenset[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(" + "|".join(_rank_order(ranks)) + r")\s+([A-Z][a-z]+)(?![\w-])")


@functools.cache
def _rank_order(ranks: frozenset[str]) -> tuple[str, ...]:
    """The ranks as the pattern's alternatives, escaped and sorted (the first that fits is taken)."""
    return tuple(sorted(map(re.escape, ranks)))


def rank_names(text: str, ranks: frozenset[str]) -> list[tuple[str, str]]:
    """(rank, name) of each match of :func:`_taxon_pattern` in ``text``. Speed, in one place: the
    C scan ``wikisilver.text._scan.rank_names`` where it was built (the expression tries every
    character), else the expression; ``tests/test_labels.py`` holds the two equal."""
    if _scan is not None and _plain_ranks(ranks):
        return _scan.rank_names(text, _rank_order(ranks))
    return [match.groups() for match in _taxon_pattern(ranks).finditer(text)]


@functools.cache
def _plain_ranks(ranks: frozenset[str]) -> bool:
    """Ranks the C scan reads as the expression does: words whose escape is themselves."""
    return all(rank and rank == re.escape(rank) for rank in ranks)


@rule("taxon_o", Stage.EVIDENCE)
def taxon_o(text: str, pack: LanguagePack, asked: Set[str]) -> dict[str, str]:
    """``the modern subclass [[Lissamphibia]]``, ``the order Anura``: a capitalized word right
    after a taxonomic rank word (``taxon_ranks``) is the name of a taxon, which CoNLL does not
    annotate; where the article says so, every link to it and every alias of it is O, whatever a
    type source says (a sample typed Lissamphibia ``Band``). After a rank word that is also a
    common word (``latin_ranks``: "the order Grant gave") only a Latin name (``taxon_endings``)
    counts. Every taxon named is answered, asked or not: the alias index reads them all."""
    if not pack.taxon_ranks:
        return {}
    names = {}
    for rank, name in rank_names(text, pack.taxon_ranks):
        if rank not in pack.latin_ranks or name.endswith(pack.taxon_endings):
            names[name] = "O"
    return names


_WORD = re.compile(r"(?<![\w'’-])([^\W\d_][\w'’-]*)")


def word_counts(text: str, wanted: Set[str] | None = None) -> Mapping[str, int]:
    """How often each word (:data:`_WORD`) stands in ``text``; with ``wanted``, each of those
    words alone. Speed, in one place: counted by the C scan ``wikisilver.text._scan.word_counts``
    where it was built (in half the time; with ``wanted``, making no string of a word whose length
    and first letter no wanted word has), else by the expression; ``tests/test_labels.py`` holds
    the two equal."""
    if _scan is not None:
        return _scan.word_counts(text, _as_set(wanted))
    return _counted(_WORD.findall(text), wanted)


def _as_set(wanted: Set[str] | None) -> set[str] | frozenset[str] | None:
    return wanted if wanted is None or isinstance(wanted, (set, frozenset)) else set(wanted)


def _counted(words: list[str], wanted: Set[str] | None) -> Mapping[str, int]:
    return Counter(words if wanted is None else (word for word in words if word in wanted))
# a word right after another word (and a comma): the lookahead leaves it to be the next match's first.
# Tried only where a run of word characters starts (from its first letter on): tried at every letter,
# a run of a million letters with no space after it was rescanned a million times.
_AFTER_WORD = re.compile(r"(?<![\w'’-])[\d_'’-]*+[^\W\d_][\w'’-]*+,? (?=([^\W\d_][\w'’-]*))")


def after_word_counts(text: str, wanted: Set[str] | None = None) -> Mapping[str, int]:
    """How often each word stands right after another word (:data:`_AFTER_WORD`): inside a
    sentence (``wanted``: as for :func:`word_counts`). Speed, in one place: the C scan
    ``_scan.after_word_counts`` where it was built (a third of the expression's time), else the
    expression; ``tests/test_labels.py`` holds the two equal."""
    if _scan is not None:
        return _scan.after_word_counts(text, _as_set(wanted))
    return _counted(_AFTER_WORD.findall(text), wanted)


@functools.cache
def _lower_case_letters() -> dict[str, tuple[str, ...]]:
    """Each upper case a lower-case letter has (one to three characters: "SS" of "ß") -> those
    letters ("S": "s" and "ſ")."""
    letters: dict[str, list[str]] = {}
    for c in map(chr, range(sys.maxunicode + 1)):
        if c.islower():
            letters.setdefault(c.upper(), []).append(c)
    return {upper: tuple(lower) for upper, lower in letters.items()}


@rule("common_noun_unk", Stage.EVIDENCE)
def common_noun_unk(text: str, pack: LanguagePack, asked: Set[str]) -> dict[str, str]:
    """``… including consumers, agribusiness, trade lobbies … [[Agribusiness]] interests hold …``: a
    one-word title that the article writes in lower case more often than capitalized inside a
    sentence is a common noun to this article (the capitalization evidence of Nothman et al.),
    whatever a type source says (a sample typed Agribusiness ``University``): the link is unknown,
    UNK, and no alias (precision first: the sentence is dropped, not labelled O). Where
    capitalization is the proper-noun test (Hungarian) a type and a lower-case word never meet
    this way, and the rule asks nothing. Only the names ``asked`` are answered (the labeller looks
    up no other)."""
    if pack.capitalization_is_proper_noun or not asked:
        return {}
    # Counted by distinct word (word_counts), not word by word, and only the spellings the names
    # asked may take: an article repeats its words, and this runs over every article's whole text.
    lower_case = _lower_case_letters()
    spellings = {name: [letter + name[size:] for size in (1, 2, 3) if size <= len(name)
                        for letter in lower_case.get(name[:size], ())] for name in asked}
    words = word_counts(text, {word for name, lower in spellings.items() for word in (name, name.lower(), *lower)})
    inside: Mapping[str, int] | None = None  # the capitalized words inside a sentence, counted where needed
    names = {}
    for name in asked:
        # the most frequent of the name's spellings with a lower-case first letter ("agribusiness")
        lower = max((words.get(spelling, 0) for spelling in spellings[name]), default=0)
        if not lower:
            continue
        all_lower = name.lower()
        if not (all_lower[:1].islower() and all_lower in words):  # no rival written capitalized
            names[name] = UNK
        elif lower > words.get(name, 0):  # more often in lower case than capitalized anywhere
            names[name] = UNK
        else:
            if inside is None:
                inside = after_word_counts(text, set(asked))
            if lower > inside.get(name, 0):
                names[name] = UNK
    return names
