"""Step 2 for a language with a pack: sentences, tokens, lemma/POS and finite verbs, as its
``pack.toml`` chooses them (docs/languages.md has every key).

``[sentences] splitter``: ``punkt`` (NLTK's Punkt with the pack's ``punkt.tsv``, trained on its
Wikipedia by ``scripts/train_punkt.py``, plus its curated abbreviations; with ``join_initials``,
a name that Punkt split after a middle initial is joined again) or ``rules`` (the
language-independent splitter with the pack's abbreviations; with ``ordinal_periods`` the period
of an ordinal or a Roman numeral, "2012. március", "XX. század", does not end a sentence, nor, with
``ordinal_digits``, that of a number that short before a capitalized word, "am 15. März").
``[tokens] tokenizer``: :mod:`wikisilver.text.tokens`. ``[tagger]``: the averaged-perceptron
tagger and suffix lemmatizer of the pack's model (:mod:`wikisilver.text.tagger`, trained by
``scripts/train_pos.py``), and how a capitalized first word is decided. ``[finite_verb]``: which
sentences have a finite verb (fragments are flagged low quality): a verb the tagger calls
``VerbForm=Fin`` (``test = "verb_form"``), or any VERB/AUX without a non-finite ending
(``test = "endings"``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nltk.tokenize.punkt import PunktParameters

from wikisilver.errors import InputError
from wikisilver.languages import Pack
from wikisilver.text.base import FINITE_POS, TextProcessor, compiled_scanner, first_word, skipping_spaces
from wikisilver.text.fast_punkt import fast_punkt_splitter
from wikisilver.text.punkt import ORTHO_MID_LC, continues_name, ends_with_initial, last_words, read_punkt_params
from wikisilver.text.tagger import PerceptronTagger, SuffixLemmatizer, load_model
from wikisilver.text.tokens import read_abbreviations, token_pattern, treebank_specials

_ROMAN = re.compile(r"[IVXLCDM]+\.")
_ORDINAL = re.compile(r"\d+(?:[.,]\d+)*\.")
# What the ordinal splitter strips before the word of a period (quotes, an opening bracket).
_ORDINAL_OPENERS = "\"'„“«("


@functools.lru_cache(maxsize=None)
def _model(path: Path) -> tuple[PerceptronTagger, SuffixLemmatizer, dict]:
    return load_model(path)


class PackProcessor(TextProcessor):
    """The linguistic layer of one language pack (``pack.toml``: ``[sentences]``, ``[tokens]``,
    ``[tagger]``, ``[finite_verb]``). ``params`` replaces the pack's Punkt parameters (your own,
    trained with :func:`wikisilver.text.punkt.train_punkt`)."""

    def __init__(self, pack: Pack, params: PunktParameters | None = None) -> None:
        super().__init__(pack.lang)
        where = str(pack.path("pack.toml"))
        sentences, tokens, tagger = pack.section("sentences"), pack.section("tokens"), pack.section("tagger")
        finite = pack.section("finite_verb")
        self._finite_test = finite.get("test", "verb_form")
        self._non_finite_endings = tuple(finite.get("non_finite_endings", ()))
        self._finite_exceptions = frozenset(finite.get("finite_exceptions", ()))
        self._after_subject = finite.get("after_subject")
        abbreviations = read_abbreviations(pack.path(sentences.get("abbreviations", "abbreviations.txt")))
        self._token_pattern = skipping_spaces(token_pattern(tokens, abbreviations, where))
        self._scan = compiled_scanner(self._token_pattern, treebank_specials(tokens, abbreviations),
                                      frozenset(a for a, _ in abbreviations))
        self.abbreviations = frozenset(a for a, kind in abbreviations if kind != "number")
        self._final_abbreviations = frozenset(a for a, kind in abbreviations if kind == "final")
        self._ordinal_periods = bool(sentences.get("ordinal_periods", False))
        self._ordinal_digits = int(sentences.get("ordinal_digits", 0))
        self._punkt = None
        self._lowercase_words: frozenset[str] = frozenset()
        splitter = sentences.get("splitter", "rules")
        if splitter == "punkt":
            if params is None:
                params = read_punkt_params(pack.path(sentences.get("punkt", "punkt.tsv")),
                                           [a for a, _ in abbreviations])
            self._punkt = fast_punkt_splitter(params)
            self._joins_initials = bool(sentences.get("join_initials", False))
            self._function_words = pack.words("function_words.txt")
            # words Punkt saw in lower case mid-sentence in Wikipedia: common words, whatever the treebank says
            self._lowercase_words = frozenset(w for w, flags in params.ortho_context.items() if flags & ORTHO_MID_LC)
        elif splitter != "rules":
            raise InputError(where, f"unknown sentence splitter {splitter!r} (punkt or rules)", "[sentences]")
        self._tagger, self._lemmatizer, _ = _model(pack.path(tagger.get("model", "pos_model.json.gz")))
        self._straight_apostrophe = bool(tagger.get("straight_apostrophe", False))
        self._first_word = tagger.get("first_word", "tagger")
        if self._first_word == "lowercase_evidence" and self._punkt is None:
            raise InputError(where, "first_word = \"lowercase_evidence\" reads Punkt's parameters: "
                                    "it needs splitter = \"punkt\"", "[tagger]")
        # a language that capitalizes every noun: whether a "noun" the tagger never saw is one
        self._trust_unseen_nouns = bool(tagger.get("trust_unseen_nouns", True))
        self._noun_endings = tuple(tagger.get("noun_endings", ()))
        self._keep_case = frozenset(tagger.get("keep_case", ()))
        self._lemma_exceptions = {(e["upos"], e["lemma"]): e["to"] for e in tagger.get("lemma_exceptions", ())}
        # _lemmas's memos, (word, tag) -> (lemma, UPOS, VerbForm): of a word inside a sentence, of a first word
        self._annotations: tuple[dict[tuple[str, str], tuple[str, str, str]], ...] = ({}, {})

    # -- sentences --------------------------------------------------------------------------

    def _split_block(self, text: str, start: int, end: int) -> list[tuple[int, int]]:
        if self._punkt is None:
            return super()._split_block(text, start, end)
        spans: list[tuple[int, int]] = []
        for s, e in self._punkt.span_tokenize(text[start:end]):
            if (spans and self._joins_initials and ends_with_initial(text, *spans[-1])
                    and continues_name(last_words(text, *spans[-1]), text[start + s : start + e], self._function_words)):
                spans[-1] = (spans[-1][0], start + e)
            else:
                spans.append((start + s, start + e))
        return spans

    def _period_is_not_final(self, text: str, line_start: int, dot: int, following: str) -> bool:
        if not self._ordinal_periods:
            return super()._period_is_not_final(text, line_start, dot, following)
        word_start = max(text.rfind(" ", line_start, dot), text.rfind("\t", line_start, dot), line_start - 1) + 1
        word = text[word_start : dot + 1].lstrip(_ORDINAL_OPENERS)
        if word in self._final_abbreviations:
            return False
        if word in self.abbreviations or _ROMAN.fullmatch(word):
            return True
        if _ORDINAL.fullmatch(word) and following.isdigit():
            return True  # dates written with periods: "2012. 03. 15."
        if word[:-1].isdigit() and len(word) - 1 <= self._ordinal_digits:
            return True  # a short ordinal before a capitalized word: "am 15. März"
        return len(word) == 2 and word[0].isupper()

    # -- lemma and POS ----------------------------------------------------------------------

    def annotate_many(self, sentences: Sequence[Sequence[str]]) -> list[list[tuple[str, str, str]]]:
        """(lemma, UPOS, VerbForm) per token of each sentence, the sentences tagged together
        (:meth:`wikisilver.text.tagger.PerceptronTagger.tag_many`); VerbForm (``Fin``, ``Inf``, …)
        only on the VERB and AUX of a model trained with verb forms, else "". With
        ``straight_apostrophe`` "’" is read as "'". With ``first_word = "lowercase_evidence"``,
        whether a capitalized first word is a name (PROPN, what the labeller asks) is checked
        against the words Punkt saw in lower case mid-sentence in Wikipedia: one tagged PROPN that
        Wikipedia writes in lower case ("Amphibians possess …") is tagged again in lower case; one
        that neither Wikipedia (in lower case) nor the treebank knows is PROPN, as a
        precision-first labeller wants."""
        if self._straight_apostrophe:
            batch = [[t.replace("’", "'") for t in tokens] for tokens in sentences]
        else:
            batch = [list(tokens) for tokens in sentences]
        tagged = self._tagger.tag_many(batch)
        firsts = [first_word(words) for words in batch]
        if self._first_word == "lowercase_evidence":
            again = []  # sentences whose first word is tagged again in lower case
            for k, (words, tags, first) in enumerate(zip(batch, tagged, firsts)):
                if tags and words[first][:1].isupper() and not words[first].isupper():
                    low = words[first].lower()
                    if low not in self._lowercase_words:
                        if low not in self._tagger.ambiguity:
                            tags[first] = "PROPN"  # no text we know writes it in lower case: maybe a name
                    elif tags[first] == "PROPN":
                        words[first] = low
                        again.append(k)
            for k, tags in zip(again, self._tagger.tag_many([batch[k] for k in again])):
                if tags[firsts[k]] == "PROPN":  # the treebank never saw it: the commonest open class
                    tags[firsts[k]] = "NOUN"
                tagged[k] = tags
        return [self._lemmas(words, tags, first) for words, tags, first in zip(batch, tagged, firsts)]

    # A token's annotation depends only on (word, tag, first word or not), and a corpus repeats the
    # same pairs: each is worked out once, in a memo (one for first words, one for the others) that
    # starts afresh when it holds this many (one tuple per pair, shared by its tokens).
    MEMO = 1 << 17

    def _lemmas(self, words: Sequence[str], tags: Sequence[str], first: int) -> list[tuple[str, str, str]]:
        inside, first_words = self._annotations
        for memo in (inside, first_words):
            if len(memo) >= self.MEMO:
                memo.clear()
        get, annotation = inside.get, self._annotation
        # every token as one inside the sentence, in one pass at C speed where the memo knows it
        out = [get(pair) or inside.setdefault(pair, annotation(*pair, False)) for pair in zip(words, tags)]
        if 0 <= first < len(out):
            pair = (words[first], tags[first])
            out[first] = first_words.get(pair) or first_words.setdefault(pair, annotation(*pair, True))
        return out

    def _annotation(self, word: str, tag: str, is_first: bool) -> tuple[str, str, str]:
        """(lemma, UPOS, VerbForm) of a word tagged ``tag`` (``UPOS`` or ``UPOS:VerbForm``)."""
        upos, _, verb_form = tag.partition(":")
        lemma = self._lemmatizer.lemmatize(word, upos)
        if upos in self._keep_case and lemma == word.lower() and not is_first and word[:1].isupper():
            lemma = word  # a proper adjective or a numeral keeps its case mid-sentence: Iranian, VI
        elif (upos, lemma) in self._lemma_exceptions:
            lemma = self._lemma_exceptions[upos, lemma]  # I, me, my
        return lemma, upos, verb_form

    def annotate(self, tokens: Sequence[str]) -> list[tuple[str, str, str]]:
        """:meth:`annotate_many` of one sentence."""
        return self.annotate_many([tokens])[0]

    def common_nouns(self, tokens: Sequence[str], annotations: Sequence[tuple[str, ...]]) -> frozenset[int]:
        """The tokens tagged NOUN; with ``trust_unseen_nouns = false`` only those the treebank
        showed as nouns (twice at least) or that end like one (``noun_endings``: "-ung", "-heit"):
        where every noun is capitalized, the tagger's NOUN for a word it never saw is a guess, and
        "Frankfurt", "Goethe" are names until shown otherwise (precision first)."""
        nouns = super().common_nouns(tokens, annotations)
        if self._trust_unseen_nouns:
            return nouns
        ambiguity = self._tagger.ambiguity
        return frozenset(k for k in nouns if "NOUN" in ambiguity.get(tokens[k].lower(), "").split("|")
                         or tokens[k].lower().endswith(self._noun_endings))

    # -- finite verbs -----------------------------------------------------------------------

    def is_finite_verb(self, token: str, pos: str, lemma: str) -> bool:
        """With ``test = "endings"``: a VERB/AUX without one of the ``non_finite_endings``
        (infinitive, converb), or one of the ``finite_exceptions`` that only look non-finite."""
        if pos not in FINITE_POS:
            return False
        low = token.lower()
        return low in self._finite_exceptions or not low.endswith(self._non_finite_endings)

    def has_finite_verb(self, tokens: Sequence[str], annotations: Sequence[tuple[str, ...]]) -> bool:
        """``test = "verb_form"``: a token tagged a finite verb form (``VerbForm=Fin``: "scored" in
        "He scored", not in "founded in 1990"), or what ``[finite_verb.after_subject]`` accepts
        right after a subject (:func:`_after_subject`). ``test = "endings"``: a VERB/AUX that
        :meth:`is_finite_verb` accepts (a sentence the tagger found nothing in is not flagged)."""
        if self._finite_test == "endings":
            if all(a[1] in ("X", "PROPN", "NUM", "PUNCT") for a in annotations):
                return True
            return any(self.is_finite_verb(t, a[1], a[0]) for t, a in zip(tokens, annotations))
        if any(a[2] == "Fin" for a in annotations):
            return True
        return bool(self._after_subject) and _after_subject(tokens, annotations, self._after_subject)


def _after_subject(tokens: Sequence[str], annotations: Sequence[tuple[str, ...]], rules: Mapping[str, Any]) -> bool:
    """A finite verb a greedy tagger missed, right after a ``subject`` word (``adverbs`` between
    aside): a verb tagged one of the ``verb_forms`` (infinitive, participle) without a
    ``not_endings`` ending ("tourists visit", "it established"; not "-ing"), or a NOUN with the
    ``plural_noun_ending`` (not one of ``not_plural_endings``) before a word of the ``before`` POS,
    which cannot continue a noun phrase ("Korea Aerospace Industries specializes in")."""
    subject, adverbs = frozenset(rules["subject"]), frozenset(rules.get("adverbs", ()))
    verb_forms, not_endings = frozenset(rules["verb_forms"]), tuple(rules.get("not_endings", ()))
    plural, not_plural = rules.get("plural_noun_ending", ""), tuple(rules.get("not_plural_endings", ()))
    before = frozenset(rules.get("before", ()))
    prev = ""
    last = len(annotations) - 1
    for k, (token, annotation) in enumerate(zip(tokens, annotations)):
        upos, verb_form = annotation[1], annotation[2]
        if prev in subject:
            if verb_form in verb_forms and not (not_endings and token.endswith(not_endings)):
                return True
            if (plural and upos == "NOUN" and k < last and annotations[k + 1][1] in before
                    and token.endswith(plural) and not (not_plural and token.endswith(not_plural))):
                return True
        if upos not in adverbs:
            prev = upos
    return False
