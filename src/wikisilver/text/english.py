"""Step 2 for English: Punkt sentences, Treebank-like tokens, rule-based lemma/POS, finite verbs.

Sentences come from NLTK's Punkt with parameters we trained on Wikipedia (``mappings/en/punkt.tsv``)
plus a curated abbreviation list (``mappings/en/abbreviations.txt``): nothing is downloaded.
Tokens follow the Penn Treebank conventions that matter for NER (punctuation, "'s" and "n't" split;
abbreviations keep their period; 1,000.5, hyphenated words and URLs stay whole). No tagged English
corpus is available offline, so POS is a best-effort rule tagger: a closed-class and irregular-verb
lexicon (``mappings/en/lexicon.tsv``), suffix rules, and capitalization. What the labeller really
needs from it is (a) proper noun vs. sentence-initial common word and (b) whether a sentence has a
finite verb, and the rules aim at those two.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from nltk.tokenize.punkt import PunktParameters

from wikisilver.resources import load_tsv, mapping_path
from wikisilver.text.base import TextProcessor, _sentence_initial, is_punct_token
from wikisilver.text.fast_punkt import fast_punkt_splitter
from wikisilver.text.punkt import read_punkt_params, train_punkt

__all__ = ["EnglishProcessor", "train_punkt"]

# Punkt orthographic-context bit: the word was seen in lower case in the middle of a sentence.
_ORTHO_MID_LC = 1 << 5

_SUBJECT_POS = frozenset({"NOUN", "PROPN", "PRON"})
_DOUBLED = re.compile(r"([bdfgklmnprtvz])\1$")
_E_AFTER = ("v", "u", "c", "z", "at", "it", "iz", "is", "ur", "bl", "pl", "dl", "gl", "tl", "ng", "rg", "dg", "ys", "rs", "ns", "as", "os", "us")


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
        r"|(?:https?://|www\.)[^\s<>\"]*[^\s<>\".,;:!?)\]'}]"  # URL, minus trailing punctuation
        r"|[\w.+-]{1,64}@\w[\w-]*(?:\.\w[\w-]*)+"  # e-mail address (local part bounded, as below: linear on "a.a.a…")
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
def _lexicon() -> dict[str, tuple[str, str, str]]:
    """form -> (UPOS, lemma, verbform), the first row of mappings/en/lexicon.tsv per form."""
    table: dict[str, tuple[str, str, str]] = {}
    for row in load_tsv("en", "lexicon.tsv")[1:]:
        table.setdefault(row[0], (row[1], row[2], row[3]))
    return table


class EnglishProcessor(TextProcessor):
    """English: Punkt sentences, Treebank-like tokens, rule-based tags."""

    def __init__(self, params: PunktParameters | None = None) -> None:
        super().__init__("en")
        always, numeric = _abbreviations()
        if params is None:
            params = read_punkt_params(mapping_path("en", "punkt.tsv"), always + numeric)
        self._punkt = fast_punkt_splitter(params)
        self._token_pattern = _token_pattern(always, numeric)
        self.abbreviations = frozenset(always)
        self._lexicon = _lexicon()
        self._lowercase_words = frozenset(
            w for w, flags in params.ortho_context.items() if flags & _ORTHO_MID_LC
        ) | frozenset(self._lexicon)

    def _split_block(self, text: str, start: int, end: int) -> list[tuple[int, int]]:
        return [(start + s, start + e) for s, e in self._punkt.span_tokenize(text[start:end])]

    # -- tagging ----------------------------------------------------------------------------

    def annotate(self, tokens: Sequence[str]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        lexicon = self._lexicon
        prev_pos = "PUNCT"
        prev_low = ""
        for i, token in enumerate(tokens):
            low = token.lower()
            first = token[0]
            if first.isdigit():
                pair = (token, "NUM")
            elif is_punct_token(token):
                pair = (token, "PUNCT")
            elif first.isupper() and low != "i" and (
                not _sentence_initial(tokens, i) or low not in self._lowercase_words or token[-1] == "."
            ):
                pair = (token, "PROPN")
            else:
                entry = lexicon.get(low)
                if entry is not None:
                    pair = (entry[1], entry[0])
                else:
                    pos = self._guess_pos(low, prev_pos, prev_low in _MODALS)
                    pair = (lemmatize(low, pos), pos)
            out.append(pair)
            prev_pos = pair[1]
            prev_low = low
        return out

    @staticmethod
    def _guess_pos(low: str, prev_pos: str, after_modal: bool) -> str:
        """Suffix rules for an open-class word not in the lexicon (``after_modal``: the word
        before is "to" or a modal verb)."""
        if after_modal and prev_pos in ("PART", "AUX"):
            if not low.endswith(("tion", "ment", "ness", "ity", "ing")):
                return "VERB"
        if low.endswith("ly") and len(low) > 4:
            return "ADV"
        if low.endswith("ing") and len(low) > 5:
            return "NOUN" if prev_pos == "DET" else "VERB"
        if low.endswith("ed") and len(low) > 4:
            return "ADJ" if prev_pos == "DET" else "VERB"
        if low.endswith(("tion", "sion", "ment", "ness", "ity", "ism", "ist", "ship", "hood", "ance", "ence", "dom", "ure", "age", "er", "or")):
            return "NOUN"
        if low.endswith(("ous", "ful", "ive", "able", "ible", "al", "ic", "less", "ish", "ary", "ian", "ese", "ern")):
            return "ADJ"
        if low.endswith(("ize", "ise", "ify")):
            return "VERB"
        if low.endswith("s") and not low.endswith(("ss", "us", "is")) and prev_pos in _SUBJECT_POS:
            return "VERB"
        return "NOUN"

    # -- signals for the labelling rules ----------------------------------------------------

    def verb_form(self, token: str, pos: str) -> str:
        """Fin, Pres, Past, Part, Ger, Inf, or "_" (not a verb); -ed is Past, -s is Fin."""
        if pos not in ("VERB", "AUX"):
            return "_"
        entry = self._lexicon.get(token.lower())
        if entry is not None and entry[0] in ("VERB", "AUX"):
            return entry[2]
        low = token.lower()
        if low.endswith("ing"):
            return "Ger"
        if low.endswith("ed"):
            return "Past"
        if low.endswith("s"):
            return "Fin"
        return "Pres"

    def is_finite_verb(self, token: str, pos: str, lemma: str) -> bool:
        """Out of context: only forms that are always finite (is, was, has, went, modals, -s verbs)."""
        return self.verb_form(token, pos) == "Fin"

    def has_finite_verb(self, tokens: Sequence[str], annotations: Sequence[tuple[str, str]]) -> bool:
        """A finite form, or a past/present form right after a subject (noun, name, pronoun,
        adverb: "he later moved") — so "founded in 1990" alone is a fragment, "it was founded" is not."""
        prev_pos = ""
        for token, (_, pos) in zip(tokens, annotations):
            form = self.verb_form(token, pos)
            if form == "Fin":
                return True
            if form in ("Past", "Pres") and prev_pos in ("NOUN", "PROPN", "PRON", "ADV"):
                return True
            if pos != "ADV":
                prev_pos = pos
            elif prev_pos in _SUBJECT_POS:
                pass  # "he later moved": keep the subject as the left context
            else:
                prev_pos = pos
        return False

    def is_proper_noun_candidate(self, token: str, pos: str, sentence_initial: bool) -> bool:
        """Capitalized, and tagged PROPN or (sentence-initial) not a known lowercase word."""
        if not token[:1].isupper():
            return False
        if not sentence_initial:
            return True
        return pos == "PROPN" or token.lower() not in self._lowercase_words


_MODALS = frozenset({"to", "will", "would", "can", "could", "may", "might", "must", "shall", "should"})


def lemmatize(low: str, pos: str) -> str:
    """Rule lemma of a lowercase open-class word not in the lexicon (best effort)."""
    if pos == "NOUN" and low.endswith("s") and len(low) > 3:
        if low.endswith("ies") and len(low) > 4:
            return low[:-3] + "y"
        if low.endswith(("sses", "shes", "ches", "xes", "zes")):
            return low[:-2]
        if not low.endswith(("ss", "us", "is", "ous")):
            return low[:-1]
        return low
    if pos == "VERB":
        if low.endswith("ies") or low.endswith("ied"):
            return low[:-3] + "y"
        if low.endswith("ing") and len(low) > 5:
            return _restore_stem(low[:-3])
        if low.endswith("ed") and len(low) > 4:
            return _restore_stem(low[:-2])
        if low.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
            return low[:-2]
        if low.endswith("s") and not low.endswith("ss"):
            return low[:-1]
    return low


def _restore_stem(stem: str) -> str:
    """Undo spelling changes before -ing/-ed: doubled consonant (stopp-), dropped e (creat-)."""
    if _DOUBLED.search(stem) and not stem.endswith(("ll", "ss", "zz", "ff")):
        return stem[:-1]
    if stem.endswith(_E_AFTER) and not stem.endswith(("ss", "ous")):
        return stem + "e"
    if len(stem) <= 3 and len(stem) >= 2 and stem[-1] not in "aeiouwxy" and stem[-2] in "aeiou" and (len(stem) == 2 or stem[-3] not in "aeiou"):
        return stem + "e"
    return stem


def train_english_punkt(texts: Iterable[str]) -> PunktParameters:
    """Punkt parameters trained on your own English texts (see :func:`wikisilver.text.punkt.train_punkt`)."""
    return train_punkt(texts)
