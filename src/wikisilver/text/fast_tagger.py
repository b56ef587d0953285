"""Step 2 (POS), the English tagger's speed path: a sentence's scores gathered by word id with numpy.

The plain perceptron (:meth:`wikisilver.text.tagger.PerceptronTagger._score`) builds some twenty
feature strings per token and adds their float weights one tag at a time in Python. Training
rounds the weights to thousandths, so here they are integers (thousandths) in a dense table, one
row per feature, and the features are looked up once per word instead of once per token:

* a word seen for the first time is *interned*: the table rows of every feature it brings on its
  own (its letters, case, ambiguity class), as the word before or after another, or two before or
  after, are stored under an integer id (:class:`_Words`, bounded: it starts afresh when full);
* a sentence is then a row of word ids: the rows of the features of all its tokens that do not
  read the tags chosen before are gathered and summed in one numpy call, plus its word-pair
  features (found by sorted integer keys, as they are too many to intern);
* the features that read the tags chosen before are prepared from the model once, as integer
  blocks by the tag before: ``t=`` and ``tt=`` summed for every pair of tags before, and the
  weights of the tag before with the word (``tw=``), the next word (``tnw=``) or the word's
  ambiguity class (``tac=``), one block per word or class that has any;
* the sentences of a batch (the labeller gives an article's) go left to right together: the
  greedy choice at a position, for every sentence long enough, is one array sum of the fixed
  scores and four blocks and one ``argmax``. A batch costs a few array operations per position;
  a single sentence pays them alone (some 60 µs a token against 3–4 in a batch of a hundred).

The result is the plain perceptron's: integer sums are exact, and the plain float sums of a
token's few dozen weights are within far less than a thousandth of them, so the two agree on the
best tag wherever one tag is best. A tie, or a best tag that no feature of the token weighs (only
tags of the bias row are sure to be among the plain perceptron's candidates), is left to the plain
perceptron, whose float sums decide.

Where the package's C module was built (``_greedy.c``, compiled at install where a C compiler is
found), each token's fixed scores are summed there and the left-to-right choice runs there,
sentence by sentence, with the same integers; without it, the numpy twins here do
(:meth:`DenseScorer._fixed_scores`, :meth:`DenseScorer._choose`: the tags are the same either way).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain
from typing import NamedTuple

import numpy as np

try:
    from wikisilver.text import _greedy  # compiled at install where a C compiler is found
except ImportError:  # pragma: no cover - the numpy loop does the same
    _greedy = None


def compiled() -> bool:
    """Whether the scoring loops run in C (``_greedy`` was built), not in numpy."""
    return _greedy is not None

_SCALE = 1000  # training rounds every weight to thousandths (tagger._average)
START, START2 = "-START-", "-START2-"  # the tags "before" a sentence
END = "-END-"  # the word after a sentence


class Templates(NamedTuple):
    """The English feature templates of :mod:`wikisilver.text.tagger`, by what they read."""

    own: Callable[[str, bool, dict[str, str]], list[str]]  # (word, first, classes): the word alone
    as_previous: Callable[[str], list[str]]  # (lower case) as the word before
    as_second_previous: Callable[[str], list[str]]  # as the word two before
    as_next: Callable[[str, str, str], list[str]]  # (word, lower case, its class) as the word after
    as_second_next: Callable[[str], list[str]]  # as the word two after
    # (pw, low, nlow, c, nc, nnc): the word before, the word, the next word in lower case; the
    # ambiguity classes of the word and the next two; "name=left|right" features of two of them
    pairs: Callable[[str, str, str, str, str, str], list[str]]
    tag_context: Callable[[str, str, str, str, str], list[str]]  # (prev, prev2, low, nlow, c): t tt tw tnw tac


# A word's summed rows in _Words.sums, by role: its own features (not the first word of a sentence
# / the first), as the word before, two before, after and two after the token scored; and where
# each comes from for the token at position i (the word at i + offset).
_OWN, _FIRST, _PREV, _PREV2, _NEXT, _NEXT2 = range(6)
_ROLES = np.array([_OWN, _PREV, _PREV2, _NEXT, _NEXT2])
_ROLE_OFFSETS = np.array([0, -1, -2, 1, 2])
# The arguments of Templates.pairs: (offset of the word, its lower case (0) or its class (1))
_PAIR_ARGUMENTS = ((-1, 0), (0, 0), (1, 0), (0, 1), (1, 1), (2, 1))


def _hash_table(keys: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pair keys (distinct, not negative) and their rows as an open-addressing table for
    ``_greedy.fixed``: 2^k slots, at least twice the keys, -1 where empty; a key sits at the first
    free slot from its home (``PAIR_HASH`` of ``_greedy.c``), so a lookup reads one or two slots
    where a binary search over the sorted keys read sixteen (a fifth of the tagger's time). Filled
    a round at a time: each free slot goes to the first key that probes it."""
    bits = max(1, int(2 * max(len(keys), 1) - 1).bit_length())
    mask = (1 << bits) - 1
    slots = np.full(1 << bits, -1, dtype=np.int64)
    values = np.zeros(1 << bits, dtype=np.intp)
    home = (keys.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)
    waiting = np.arange(len(keys))
    probe = np.zeros(len(keys), dtype=np.uint64)
    while len(waiting):  # each round, of the keys that probe a free slot the first (as given) takes it
        slot = ((home[waiting] + probe[waiting]) & np.uint64(mask)).astype(np.intp)
        free = slots[slot] < 0
        _, firsts = np.unique(np.where(free, slot, -1), return_index=True)
        taken = firsts[free[firsts]]
        slots[slot[taken]], values[slot[taken]] = keys[waiting[taken]], rows[waiting[taken]]
        left = np.ones(len(waiting), dtype=bool)
        left[taken] = False
        probe[waiting[left]] += np.uint64(1)
        waiting = waiting[left]
    return slots, values


class _Words:
    """Interned words: a word -> an id, and by id the sums of its features' rows in each role
    (``sums``), the ids of its lower case and its ambiguity class among the parts of the pair
    features (``parts``, 0: in none), and its blocks of tag-reading weights (as the word, as the
    next word, by its class: ``tagged``, 0: none). Grows by doubling up to ``limit`` words, then
    starts afresh (before a batch, :meth:`make_room`: one batch's words are always all in)."""

    def __init__(self, scorer: "DenseScorer", limit: int) -> None:
        self.scorer = scorer
        self.limit = limit
        self.clear()

    def clear(self) -> None:
        self.ids: dict[str, int] = {}
        self.count = 0  # words interned
        self.sums = np.zeros((256, 6, len(self.scorer.classes)), dtype=np.int32)
        self.parts = np.zeros((256, 2), dtype=np.intp)
        # (tw=, tnw=, tac=): the word's block in DenseScorer.tag_blocks as the word, as the next
        # word and by its ambiguity class; 0: none
        self.tagged = np.zeros((256, 3), dtype=np.intp)
        t, scorer = self.scorer.templates, self.scorer
        # the two pseudo-words: id 0 before a sentence, 1 after it, in the roles they take
        self._add([(START, "", [None] * 6), (END, END, [None] * 6)])
        for k, role, features in ((0, _PREV, t.as_previous(START)), (0, _PREV2, t.as_second_previous(START2)),
                                  (1, _NEXT, t.as_next(END, END, END)), (1, _NEXT2, t.as_second_next("-END2-"))):
            self.sums[k, role] = np.add.reduce(scorer.table[scorer.rows(features)], axis=0)

    def _add(self, words: list[tuple[str, str, list[list[str] | None]]]) -> None:
        """Intern words given as (lower case, class, its features in each role, in the order of
        the roles; None: none), under the next ids."""
        scorer = self.scorer
        first = self.count
        end = self.count = first + len(words)
        while end > len(self.sums):
            self.sums = np.concatenate([self.sums, np.zeros_like(self.sums)])
            self.parts = np.concatenate([self.parts, np.zeros_like(self.parts)])
            self.tagged = np.concatenate([self.tagged, np.zeros_like(self.tagged)])
        rows = [0]  # row 0 (no weights) first: a role without features (None) sums it alone
        starts: list[int] = []
        parts, part = [], scorer.pair_part.get
        tagged = []
        by_word, by_next_word, by_class = scorer.word_block.get, scorer.next_word_block.get, scorer.class_block.get
        for low, cls, roles in words:
            for features in roles:
                starts.append(len(rows) if features else 0)
                if features:
                    rows += scorer.rows(features)
            parts.append((part(low, 0), part(cls, 0)))
            tagged.append((by_word(low, 0), by_next_word(low, 0), by_class(cls, 0)))
        sums = np.add.reduceat(scorer.table[rows], starts, axis=0)
        self.sums[first:end] = sums.reshape(len(words), 6, -1)
        self.parts[first:end] = parts
        self.tagged[first:end] = tagged

    def make_room(self) -> None:
        """Start afresh when full: called before a batch, whose words then all stay in."""
        if self.count > self.limit:
            self.clear()

    def ids_of(self, sentences: Sequence[Sequence[str]]) -> list[list[int]]:
        """The ids of each sentence's words, before them the two ids of the start and after them
        two of the end; the words new to the index are interned together, the batch's at once (a
        few array operations for all, not for each sentence)."""
        ids = self.ids
        t, classes = self.scorer.templates, self.scorer.ambiguity
        new = []
        found = []
        for words in sentences:
            out = [0, 0]
            for word in words:
                k = ids.get(word)
                if k is None:
                    k = ids[word] = self.count + len(new)
                    low = word.lower()
                    c = classes.get(low, "?")
                    new.append((low, c, [t.own(word, False, classes), t.own(word, True, classes), t.as_previous(low),
                                         t.as_second_previous(low), t.as_next(word, low, c), t.as_second_next(low)]))
                out.append(k)
            out += (1, 1)
            found.append(out)
        if new:
            self._add(new)
        return found


class DenseScorer:
    """The weights of one English model as integer rows, and its interned words.

    ``templates``: the feature templates (:class:`Templates`); ``plain``: the plain perceptron's
    tag of token i given the tags before it, ``(i, words, prev, prev2) -> tag``.
    """

    def __init__(self, weights: dict[str, dict[str, float]], classes: Sequence[str], ambiguity: dict[str, str],
                 templates: Templates, word_limit: int = 1 << 15) -> None:
        self.classes = tuple(classes)
        self.ambiguity = ambiguity
        self.templates = templates
        column = {tag: k for k, tag in enumerate(self.classes)}  # a tag outside: KeyError
        self.row_of = {feature: n for n, feature in enumerate(weights, 1)}  # row 0: no weights
        by_feature = list(weights.values())
        lengths = np.fromiter(map(len, by_feature), dtype=np.intp, count=len(by_feature))
        cells = int(lengths.sum())
        rows = np.repeat(np.arange(1, len(by_feature) + 1), lengths)  # each weight's row, column and value
        columns = np.fromiter(map(column.__getitem__, chain.from_iterable(by_feature)), dtype=np.intp, count=cells)
        scaled = np.fromiter(chain.from_iterable(map(dict.values, by_feature)), dtype=float, count=cells) * _SCALE
        thousandths = np.rint(scaled)
        self.exact = bool(np.all(np.abs(scaled - thousandths) < 1e-6) and np.all(np.abs(thousandths) < 2**31))
        self.table = np.zeros((len(weights) + 1, len(self.classes)), dtype=np.int32)  # summed as int64
        self.table[rows, columns] = thousandths
        self.sure = np.array([tag in weights.get("b", ()) for tag in self.classes])  # the bias row's tags
        # The tags before a token: a tag, or the start (-START- before the first word; before the
        # second, -START- two back; -START2- two back from the first).
        self.before = self.classes + (START, START2)
        self.index = {tag: k for k, tag in enumerate(self.before)}
        self._tag_rows(weights)
        self._pair_rows()
        self.words = _Words(self, word_limit)

    def _tag_rows(self, weights: dict[str, dict[str, float]]) -> None:
        """The features that read the tags before a token, as integer blocks indexed by the tag
        before: ``t=`` and ``tt=`` summed densely over the two tags before (:attr:`pair_scores`,
        by (tag before, tag two before)), and ``tw=``, ``tnw=`` and ``tac=`` as one block each
        per word, next word or ambiguity class that has any (:attr:`tag_blocks`, by block, tag
        before; block 0 weighs nothing), found by :attr:`word_block`, :attr:`next_word_block`,
        :attr:`class_block`."""
        before, tag_context = self.before, self.templates.tag_context
        self.pair_scores = np.array([[self.table[self.rows(tag_context(p1, p2, "", "", "")[:2])].sum(axis=0)
                                      for p2 in before] for p1 in before], dtype=np.int64)
        column, index = {tag: k for k, tag in enumerate(self.classes)}, self.index
        blocks: tuple[dict[str, int], dict[str, int], dict[str, int]] = ({}, {}, {})
        cells: list[tuple[int, int, int, int]] = []  # (block, tag before, column, thousandths)
        for feature, row in weights.items():
            if not feature.startswith(("tw=", "tnw=", "tac=")):
                continue
            name, _, value = feature.partition("=")
            prev, _, of = value.partition("|")
            found = blocks[("tw", "tnw", "tac").index(name)]
            block = found.setdefault(of, sum(map(len, blocks)) + 1)
            cells += [(block, index[prev], column[tag], round(w * _SCALE)) for tag, w in row.items()]
        self.tag_blocks = np.zeros((sum(map(len, blocks)) + 1, len(before), len(self.classes)), dtype=np.int32)
        at = np.array(cells, dtype=np.int64).reshape(-1, 4).T
        np.add.at(self.tag_blocks, (at[0], at[1], at[2]), at[3].astype(np.int32))  # a cell twice: summed
        self.word_block, self.next_word_block, self.class_block = blocks

    def _pair_rows(self) -> None:
        """The pair features (``Templates.pairs``) as sorted integer keys: the kind of pair and the
        ids of its two parts (words or classes, :attr:`pair_part`), and their rows."""
        arguments = [f"\0{k}" for k in range(len(_PAIR_ARGUMENTS))]  # placeholders: which argument goes where
        kinds = []
        for feature in self.templates.pairs(*arguments):
            name, _, value = feature.partition("=")
            left, _, right = value.partition("|")
            kinds.append((name + "=", arguments.index(left), arguments.index(right)))
        self.pair_kinds = kinds
        kind_of: dict[str, int] = {}
        for k, (prefix, _, _) in enumerate(kinds):
            kind_of.setdefault(prefix[:-1], k)  # a feature's name -> the first kind written so
        parts: dict[str, int] = {}
        found: list[tuple[int, str, str, int]] = []
        for feature, row in self.row_of.items():
            name, _, value = feature.partition("=")
            kind = kind_of.get(name)
            if kind is None:
                continue
            # a part may hold "|" itself (a class "NOUN|VERB", the word "|"): every split is one
            # way a pair writes this feature
            cut = value.find("|")
            while cut >= 0:
                left, right = value[:cut], value[cut + 1 :]
                found.append((kind, left, right, row))
                parts.setdefault(left, len(parts) + 1)
                parts.setdefault(right, len(parts) + 1)
                cut = value.find("|", cut + 1)
        self.pair_part = parts
        self.pair_base = base = len(parts) + 1
        keys = np.array([(kind * base + parts[left]) * base + parts[right] for kind, left, right, _ in found],
                        dtype=np.int64)
        rows = np.array([row for *_, row in found], dtype=np.intp)
        order = np.argsort(keys)
        self.pair_keys = np.append(keys[order], np.iinfo(np.int64).max)  # past the last: found nowhere
        self.pair_values = np.append(rows[order], 0)
        self.pair_slots, self.pair_slot_rows = _hash_table(keys, rows)  # the compiled loop's lookup
        self.pair_at = (np.array([[_PAIR_ARGUMENTS[left][0], _PAIR_ARGUMENTS[right][0]] for _, left, right in kinds],
                                 dtype=np.intp),
                        np.array([[_PAIR_ARGUMENTS[left][1], _PAIR_ARGUMENTS[right][1]] for _, left, right in kinds],
                                 dtype=np.intp))
        self.pair_kind_base = np.arange(len(kinds), dtype=np.int64) * base

    @classmethod
    def of(cls, weights: dict[str, dict[str, float]], classes: Sequence[str], ambiguity: dict[str, str],
           templates: Templates) -> "DenseScorer | None":
        """The scorer of these weights, or None where they are not all whole thousandths of
        known tags (then only the plain perceptron tags)."""
        if not classes:
            return None
        try:
            scorer = cls(weights, classes, ambiguity, templates)
        except KeyError:
            return None
        return scorer if scorer.exact else None

    def rows(self, features: list[str]) -> list[int]:
        """The rows of ``features`` (0 for a feature without weights)."""
        row_of = self.row_of.get
        return [row_of(f, 0) for f in features]

    def tag_many(self, sentences: Sequence[Sequence[str]], dict_tags: Sequence[Sequence[str | None]],
                 plain: Callable[[int, Sequence[str], str, str], str]) -> list[list[str]]:
        """Each sentence's ``dict_tags`` (the dictionary's, None where the perceptron decides)
        completed, greedily left to right; ``plain`` decides a token where the integers do not (a
        tie, or an unweighed best tag).

        The sentences go together, position by position: the k-th tokens of all sentences long
        enough are scored in one array operation (their fixed sums, the blocks of the two tags
        before them, of the word, the next word and the class by the tag before), so a whole
        article costs a few array operations per token position, not Python per token."""
        out = [list(tags) for tags in dict_tags]
        todo = sorted((k for k, tags in enumerate(dict_tags) if None in tags), key=lambda k: -len(sentences[k]))
        if not todo:
            return out  # type: ignore[return-value]
        self.words.make_room()
        ids = self.words.ids_of([sentences[k] for k in todo])  # ids[r][i + 2] is the word at i
        lengths = np.array([len(sentences[k]) for k in todo])
        # the tokens flat, sentence after sentence: token i of sentence r is at first[r] + i
        first = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        ext = np.fromiter((i for row in ids for i in row), dtype=np.intp)  # each sentence padded by 2 + 2
        at = np.arange(int(lengths.sum())) + np.repeat(4 * np.arange(len(todo)) + 2, lengths)  # its id in ext
        fixed = (self._fixed_scores if _greedy is None else self._fixed_scores_compiled)(ext, at, first)
        blocks = self.words.tagged
        own_block, class_block, next_block = blocks[ext[at], 0], blocks[ext[at], 2], blocks[ext[at + 1], 1]
        index, before = self.index, self.before
        given_of = {**index, None: -1}  # the dictionary's tag by its index; -1: none
        given = np.fromiter((given_of[tag] for k in todo for tag in dict_tags[k]), dtype=np.intp, count=len(at))
        choose = self._choose if _greedy is None else self._choose_compiled
        chosen = choose(fixed, np.stack((own_block, next_block, class_block), axis=1), given, first, lengths,
                        lambda r, i, p, p2: index[plain(i, sentences[todo[r]], before[p], before[p2])])
        names = [before[t] for t in chosen.tolist()]
        for r, k in enumerate(todo):
            out[k] = names[first[r] : first[r] + lengths[r]]
        return out  # type: ignore[return-value]

    def _choose(self, fixed: np.ndarray, blocks: np.ndarray, given: np.ndarray, first: np.ndarray,
                lengths: np.ndarray, plain: Callable[[int, int, int, int], int]) -> np.ndarray:
        """Each token's tag (an index of :attr:`before`), the sentences left to right together:
        ``fixed`` scores, each token's three ``blocks`` (its word's, the next word's, its class's),
        the ``given`` tags (-1: none), the sentences' ``first`` tokens and ``lengths`` (longest
        first); ``plain(sentence, position, tag before, two before)`` decides where the integers do
        not."""
        index = self.index
        sure = self.sure
        pair, tag_blocks = self.pair_scores, self.tag_blocks
        own_block, next_block, class_block = blocks[:, 0], blocks[:, 1], blocks[:, 2]
        chosen = np.empty(len(given), dtype=np.intp)
        prev = np.full(len(first), index[START], dtype=np.intp)
        prev2 = np.full(len(first), index[START2], dtype=np.intp)
        active = len(first)
        for i in range(int(lengths[0])):
            while lengths[active - 1] <= i:
                active -= 1
            p, p2 = prev[:active], prev2[:active]
            token = first[:active] + i
            scores = (fixed[token] + pair[p, p2] + tag_blocks[own_block[token], p]
                      + tag_blocks[next_block[token], p] + tag_blocks[class_block[token], p])
            best = scores.argmax(axis=1)
            top = scores[np.arange(active), best]
            decided = sure[best] & ((scores == top[:, None]).sum(axis=1) == 1)
            known = given[token]
            tags = np.where(known >= 0, known, best)
            for r in np.flatnonzero(~decided & (known < 0)):
                # the integers do not decide: the plain perceptron's float sums do
                tags[r] = plain(r, i, p[r], p2[r])
            chosen[token] = tags
            prev2[:active], prev[:active] = p, tags
        return chosen

    def _choose_compiled(self, fixed: np.ndarray, blocks: np.ndarray, given: np.ndarray, first: np.ndarray,
                         lengths: np.ndarray, plain: Callable[[int, int, int, int], int]) -> np.ndarray:
        """:meth:`_choose` in C (``_greedy.c``), each sentence left to right until a token the
        integers do not decide; that one the plain perceptron decides here, and C goes on after it."""
        index = self.index
        chosen = np.empty(len(given), dtype=np.intp)
        prev = np.full(len(first), index[START], dtype=np.intp)
        prev2 = np.full(len(first), index[START2], dtype=np.intp)
        start = np.zeros(len(first), dtype=np.intp)
        stop = np.empty(len(first), dtype=np.intp)
        arrays = (np.ascontiguousarray(fixed, dtype=np.int64), np.ascontiguousarray(blocks, dtype=np.intp),
                  self.tag_blocks, self.pair_scores, given, self.sure, np.ascontiguousarray(first, dtype=np.intp),
                  np.ascontiguousarray(lengths, dtype=np.intp))
        while _greedy.decode(*arrays, start, prev, prev2, chosen, stop, len(self.classes), len(self.before)):
            start[:] = stop  # the finished sentences stay finished
            for r in np.flatnonzero(stop < lengths).tolist():
                i = int(stop[r])
                tag = plain(r, i, int(prev[r]), int(prev2[r]))
                chosen[first[r] + i] = tag
                prev2[r], prev[r], start[r] = prev[r], tag, i + 1
        return chosen

    def _fixed_scores_compiled(self, ext: np.ndarray, at: np.ndarray, first: np.ndarray) -> np.ndarray:
        """:meth:`_fixed_scores` in C (``_greedy.c``), token by token: the same integers."""
        words = self.words
        out = np.empty((len(at), len(self.classes)), dtype=np.int64)
        ext, at, first = (np.ascontiguousarray(a, dtype=np.intp) for a in (ext, at, first))
        _greedy.fixed(ext, at, first, words.sums, words.parts, self.table, self.pair_slots, self.pair_slot_rows,
                      *self.pair_at, self.pair_kind_base, self.pair_base, out)
        return out

    def _fixed_scores(self, ext: np.ndarray, at: np.ndarray, first: np.ndarray) -> np.ndarray:
        """(token, tag): each token's sum of its features that do not read the tags before it;
        ``ext``: the sentences' word ids, each with its two start and two end ids; ``at``: where
        each token's id is in ``ext``; ``first``: each sentence's first token."""
        words = self.words
        roles = ext[at[:, None] + _ROLE_OFFSETS] * 6 + _ROLES  # (token, role): rows of words.sums
        roles[first, 0] += _FIRST - _OWN  # the first word of a sentence has its own shape feature
        offsets, columns = self.pair_at
        parts = words.parts[ext[at[:, None, None] + offsets], columns]  # (token, kind of pair, left/right)
        base = self.pair_base
        keys = (self.pair_kind_base + parts[..., 0]) * base + parts[..., 1]
        found = np.searchsorted(self.pair_keys, keys)
        pairs = np.where(self.pair_keys[found] == keys, self.pair_values[found], 0)
        sums = words.sums.reshape(-1, words.sums.shape[2])
        total = np.add.reduce(sums[roles], axis=1, dtype=np.int64)
        total += np.add.reduce(self.table[pairs], axis=1, dtype=np.int64)
        return total
