"""Step 2 for English: Punkt sentences, Treebank-like tokens, trained lemma/POS, finite verbs.

Sentences come from NLTK's Punkt with parameters we trained on Wikipedia (``mappings/en/punkt.tsv``)
plus a curated abbreviation list (``mappings/en/abbreviations.txt``): nothing is downloaded.
Tokens follow the Penn Treebank conventions that matter for NER (punctuation, "'s" and "n't" split;
abbreviations keep their period; 1,000.5, hyphenated words and URLs stay whole). POS and lemma come
from the averaged-perceptron tagger and suffix-rule lemmatizer of :mod:`wikisilver.text.tagger`,
trained on UD English-EWT (``mappings/en/pos_model.json.gz``; accuracy in ``mappings/en/README.md``).
The tagger also tells each verb's ``VerbForm``, so a sentence has a finite verb when a token is
tagged ``Fin`` ("He scored two goals." yes; "Founded in 1990 by three engineers" no).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from nltk.tokenize.punkt import PunktParameters

from wikisilver.resources import load_word_list, mapping_path
from wikisilver.text.base import URL_OR_EMAIL, TextProcessor, first_word
from wikisilver.text.fast_punkt import fast_punkt_splitter
from wikisilver.text.punkt import read_punkt_params, train_punkt
from wikisilver.text.tagger import PerceptronTagger, SuffixLemmatizer, load_model

__all__ = ["EnglishProcessor", "train_punkt"]



@functools.lru_cache(maxsize=1)
def _abbreviations() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(always, before-number-only) abbreviations from mappings/en/abbreviations.txt."""
    always, numeric = [], []
    for line in mapping_path("en", "abbreviations.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        for part in cells[0].split():
            if part.endswith("."):
                (numeric if len(cells) > 1 and cells[1].strip() == "number" else always).append(part)
    return tuple(always), tuple(numeric)


def _token_pattern(always: Sequence[str], numeric: Sequence[str]) -> re.Pattern:
    def alternation(words: Sequence[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))

    return re.compile(
        # Fast path, the bulk of the text: a plain word followed by nothing any rule below could
        # continue (no period, hyphen, apostrophe, @, :, /, + and no ",digit"); every other
        # alternative would give this very token, so the result is the same, only sooner.
        r"\w+(?![\w.@'’‐:/+-]|,\d)"
        rf"|{URL_OR_EMAIL}"
        rf"|(?<!\w)(?:{alternation(always)})"  # curated abbreviations keep their period
        rf"|(?<!\w)(?:{alternation(numeric)})(?=\s*\d)"  # "No. 5", "p. 12"
        r"|(?<!\w)(?:[^\W\d_]\.){2,16}(?!\w)"  # initialisms: U.S., e.g., D.C. (bounded: each token would rescan a long run)
        r"|(?<!\w)[A-Z]\.(?=\s+[A-Z])"  # an initial before a name: "J. K. Rowling"
        r"|\d+(?:[.,:/]\d+)+"  # 1,000.5  12:30  1/2
        r"|\w+(?=n['’]t\b)"  # "do" of "don't"
        r"|n['’]t\b"
        r"|(?<=\w)['’](?:[sdm]|re|ve|ll|S|D|M|RE|VE|LL)\b"  # clitics 's 're 've 'll 'd 'm
        r"|\w+(?:[-‐]\w+)*(?:['’](?!(?:[sdm]|re|ve|ll)\b)\w+)*"  # words, hyphenated compounds, O'Brien
        r"|\.{2,}|-{2,}|[^\w\s]"
    )


@functools.lru_cache(maxsize=1)
def _model() -> tuple[PerceptronTagger, SuffixLemmatizer, dict]:
    return load_model(mapping_path("en", "pos_model.json.gz"))


_INITIAL = re.compile(r"[A-Z]\.")
_ROMAN = frozenset("IVX")  # "World War I." ends a sentence


def _last_words(text: str, start: int, end: int, n: int = 2) -> list[str]:
    """The last ``n`` whitespace-separated words of ``text[start:end]``, read back from ``end``
    only as far as they reach (a sentence grown by joins is never read whole again)."""
    words: list[str] = []
    i = end
    while len(words) < n:
        while i > start and text[i - 1].isspace():
            i -= 1
        j = i
        while j > start and not text[j - 1].isspace():
            j -= 1
        if j == i:
            break
        words.append(text[j:i])
        i = j
    return words[::-1]


def _continues_name(words: list[str], right: str) -> bool:
    """Whether Punkt split a name after a middle initial, given the last ``words`` (two at most) of
    the sentence before and the sentence after: ``George W.`` | ``Bush and …``, ``activist W.`` |
    ``E. B.`` | ``Du Bois …``. Punkt ends a sentence at an initial when the next word also occurs in
    lower case (bush, sessions); a single capital and a period after a capitalized word or another
    initial, followed by an initial or by a capitalized word that is not a function word, is a
    name going on. Roman numerals (I, V, X) and function words after the period (``Group B.`` |
    ``The team …``) keep the split."""
    following = right.split(maxsplit=1)
    if not following or not _INITIAL.fullmatch(words[-1]) or words[-1][0] in _ROMAN:
        return False
    first = following[0]
    if _INITIAL.fullmatch(first):
        return True
    before = words[-2] if len(words) > 1 else ""
    if not (before[:1].isupper() or _INITIAL.fullmatch(before)):
        return False
    name = first.rstrip(",;:.")
    return name[:1].isupper() and name.lower() not in load_word_list("en", "function_words.txt")


class EnglishProcessor(TextProcessor):
    """English: Punkt sentences, Treebank-like tokens, EWT-trained tags and lemmas."""

    def __init__(self, params: PunktParameters | None = None) -> None:
        super().__init__("en")
        always, numeric = _abbreviations()
        if params is None:
            params = read_punkt_params(mapping_path("en", "punkt.tsv"), always + numeric)
        self._punkt = fast_punkt_splitter(params)
        self._token_pattern = _token_pattern(always, numeric)
        self.abbreviations = frozenset(always)
        self._tagger, self._lemmatizer, _ = _model()
        # words Punkt saw in lower case mid-sentence in Wikipedia: common words, whatever EWT says
        self._lowercase_words = frozenset(w for w, flags in params.ortho_context.items() if flags & _ORTHO_MID_LC)

    def _split_block(self, text: str, start: int, end: int) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        for s, e in self._punkt.span_tokenize(text[start:end]):
            if spans and _continues_name(_last_words(text, *spans[-1]), text[start + s : start + e]):
                spans[-1] = (spans[-1][0], start + e)
            else:
                spans.append((start + s, start + e))
        return spans

    def annotate(self, tokens: Sequence[str]) -> list[tuple[str, str, str]]:
        """(lemma, UPOS, VerbForm) per token; VerbForm (``Fin``, ``Inf``, ``Part``, ``Ger``) only
        on VERB and AUX, else "". EWT writes the apostrophe straight: "’s" is tagged as "'s".
        Whether a capitalized first word is a name (PROPN) is what the labeller asks: one tagged
        PROPN that Wikipedia writes in lower case mid-sentence ("Amphibians possess …") is tagged
        again in lower case; one that neither Wikipedia (in lower case) nor EWT knows is PROPN
        ("Angolan-Nigerian relations …"), as a precision-first labeller wants."""
        words = [t.replace("’", "'") for t in tokens]
        tags = self._tagger.tag(words)
        first = first_word(words)
        if tags and words[first][:1].isupper() and not words[first].isupper():
            low = words[first].lower()
            if low not in self._lowercase_words:
                if low not in self._tagger.ambiguity:
                    tags[first] = "PROPN"  # no text we know writes it in lower case: maybe a name
            elif tags[first] == "PROPN":
                words[first] = low
                tags = self._tagger.tag(words)
                if tags[first] == "PROPN":  # EWT never saw it: the commonest open class
                    tags[first] = "NOUN"
        lemmatize = self._lemmatizer.lemmatize
        out = []
        for k, (word, tag) in enumerate(zip(words, tags)):
            upos, _, verb_form = tag.partition(":")
            lemma = lemmatize(word, upos)
            if upos in ("ADJ", "NUM") and lemma == word.lower() and k != first and word[:1].isupper():
                lemma = word  # a proper adjective or a numeral keeps its case mid-sentence: Iranian, VI (as EWT)
            elif lemma == "i" and upos == "PRON":
                lemma = "I"  # I, me, my
            out.append((lemma, upos, verb_form))
        return out

    def has_finite_verb(self, tokens: Sequence[str], annotations: Sequence[tuple[str, ...]]) -> bool:
        """Whether a token was tagged a finite verb form (``VerbForm=Fin``: "scored" in "He
        scored", not in "founded in 1990"). EWT is mostly present-tense web text, and a greedy
        tagger reads a verb after a noun as a compound's head; so also, right after a noun, name
        or pronoun (adverbs between aside): a verb tagged infinitive or participle, not -ing
        ("tourists visit", "it established"), or a NOUN in -s before a word that cannot continue
        a noun phrase ("Korea Aerospace Industries specializes in")."""
        prev = ""
        last = len(annotations) - 1
        for k, (token, annotation) in enumerate(zip(tokens, annotations)):
            upos, verb_form = annotation[1], annotation[2]
            if verb_form == "Fin":
                return True
            if prev in _SUBJECT_POS:
                if verb_form in ("Inf", "Part") and not token.endswith("ing"):
                    return True
                if (upos == "NOUN" and k < last and annotations[k + 1][1] in _AFTER_VERB
                        and token.endswith("s") and not token.endswith(("ss", "us", "is"))):
                    return True
            if upos != "ADV":
                prev = upos
        return False


_SUBJECT_POS = frozenset({"NOUN", "PROPN", "PRON"})
_AFTER_VERB = frozenset({"ADP", "DET", "ADV", "PRON", "NUM", "ADJ", "SCONJ"})
# Punkt orthographic-context bit: the word was seen in lower case in the middle of a sentence.
_ORTHO_MID_LC = 1 << 5

