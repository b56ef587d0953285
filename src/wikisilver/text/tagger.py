"""Step 2 (lemma and POS): a small averaged-perceptron UPOS tagger and a suffix-rule lemmatizer.

Both are trained offline (``scripts/train_pos.py``) and shipped as one gzipped JSON file under
``mappings/<lang>/``, so tagging needs no download and no third-party model. The tagger is greedy,
left to right, with features chosen for an agglutinative language (word-final letters carry most
of the information in Hungarian); a frequent-and-unambiguous word dictionary short-cuts the
perceptron for most tokens, which keeps per-token Python work small.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from wikisilver.errors import InputError

_START = ("-START-", "-START2-")
_END = ("-END-", "-END2-")


def _shape(word: str) -> str:
    if word[0].isupper():
        return "U" if word.isupper() and len(word) > 1 else "C"
    if word[0].isdigit():
        return "D"
    if not word[0].isalnum():
        return "P"
    return "l"


class PerceptronTagger:
    """Greedy averaged perceptron over the tag set seen in training."""

    def __init__(self, weights: dict[str, dict[str, float]] | None = None,
                 tagdict: dict[str, str] | None = None, classes: Sequence[str] = ()) -> None:
        self.weights = weights or {}
        self.tagdict = tagdict or {}
        self.classes = tuple(classes)

    # -- features ---------------------------------------------------------------------------

    @staticmethod
    def _features(i: int, words: Sequence[str], prev: str, prev2: str) -> list[str]:
        w = words[i]
        low = w.lower()
        pw = words[i - 1].lower() if i > 0 else _START[0]
        nw = words[i + 1].lower() if i + 1 < len(words) else _END[0]
        feats = [
            "b",
            "w=" + low,
            "s1=" + low[-1:],
            "s2=" + low[-2:],
            "s3=" + low[-3:],
            "s4=" + low[-4:],
            "s5=" + low[-5:],
            "p1=" + low[:1],
            "sh=" + _shape(w) + ("i" if i == 0 else ""),
            "t=" + prev,
            "tt=" + prev + "|" + prev2,
            "ts3=" + prev + "|" + low[-3:],
            "pw=" + pw,
            "ps3=" + pw[-3:],
            "nw=" + nw,
            "ns3=" + nw[-3:],
        ]
        if "-" in w[1:]:
            feats.append("hy=" + low.rsplit("-", 1)[1][-3:])
        return feats

    def _score(self, feats: list[str]) -> str:
        scores: dict[str, float] = defaultdict(float)
        weights = self.weights
        for f in feats:
            row = weights.get(f)
            if row:
                for tag, weight in row.items():
                    scores[tag] += weight
        if not scores:
            return self.classes[0] if self.classes else "X"
        return max(scores, key=scores.__getitem__)

    def tag(self, words: Sequence[str]) -> list[str]:
        prev, prev2 = _START
        out = []
        tagdict = self.tagdict
        for i, word in enumerate(words):
            tag = tagdict.get(word) or tagdict.get(word.lower()) if i == 0 else tagdict.get(word)
            if tag is None:
                tag = self._score(self._features(i, words, prev, prev2))
            out.append(tag)
            prev2, prev = prev, tag
        return out

    # -- training ---------------------------------------------------------------------------

    @classmethod
    def train(cls, sentences: list[list[tuple[str, str]]], iterations: int = 5, seed: int = 1,
              min_dict_count: int = 20, dict_purity: float = 0.97, prune: float = 0.5,
              log=print) -> "PerceptronTagger":
        counts: dict[str, Counter] = defaultdict(Counter)
        for sent in sentences:
            for word, tag in sent:
                counts[word][tag] += 1
        tagdict = {}
        for word, c in counts.items():
            tag, n = c.most_common(1)[0]
            total = sum(c.values())
            if total >= min_dict_count and n / total >= dict_purity:
                tagdict[word] = tag
        classes = sorted({t for c in counts.values() for t in c})
        model = cls({}, tagdict, classes)
        weights: dict[str, dict[str, float]] = defaultdict(dict)
        totals: dict[tuple[str, str], float] = defaultdict(float)
        stamps: dict[tuple[str, str], int] = defaultdict(int)
        model.weights = weights
        instance = 0
        rng = random.Random(seed)
        for it in range(iterations):
            correct = seen = 0
            for sent in sentences:
                words = [w for w, _ in sent]
                prev, prev2 = _START
                for i, (word, gold) in enumerate(sent):
                    guess = tagdict.get(word)
                    if guess is None:
                        feats = cls._features(i, words, prev, prev2)
                        guess = model._score(feats)
                        instance += 1
                        if guess != gold:
                            for f in feats:
                                row = weights[f]
                                for tag, delta in ((gold, 1.0), (guess, -1.0)):
                                    key = (f, tag)
                                    w = row.get(tag, 0.0)
                                    totals[key] += (instance - stamps[key]) * w
                                    stamps[key] = instance
                                    row[tag] = w + delta
                    correct += guess == gold
                    seen += 1
                    prev2, prev = prev, guess
            rng.shuffle(sentences)
            log(f"iteration {it + 1}: training accuracy {correct / seen:.4f}")
        averaged: dict[str, dict[str, float]] = {}
        for f, row in weights.items():
            new_row = {}
            for tag, w in row.items():
                key = (f, tag)
                total = totals[key] + (instance - stamps[key]) * w
                avg = round(total / instance, 3)
                if abs(avg) >= prune:
                    new_row[tag] = avg
            if new_row:
                averaged[f] = new_row
        model.weights = averaged
        return model

    # -- storage ----------------------------------------------------------------------------

    def to_json(self) -> dict:
        return {"classes": list(self.classes), "tagdict": self.tagdict, "weights": self.weights}

    @classmethod
    def from_json(cls, data: dict) -> "PerceptronTagger":
        return cls(data["weights"], data["tagdict"], data["classes"])


class SuffixLemmatizer:
    """Lemma = frequent-form lexicon, else the longest learnt (POS, word-final letters) rule.

    A rule strips ``strip`` characters and appends ``add`` (both learnt from gold lemmas), so
    "Budapesten"/PROPN → "Budapest" via the rule ("en" → "") learnt for PROPN.
    """

    MAX_SUFFIX = 6

    def __init__(self, lexicon: dict[str, dict[str, str]], rules: dict[str, dict[str, tuple[int, str]]]) -> None:
        self.lexicon = lexicon
        self.rules = rules

    def lemmatize(self, form: str, pos: str) -> str:
        low = form.lower()
        lemma = self.lexicon.get(pos, {}).get(low)
        if lemma is None:
            rules = self.rules.get(pos)
            lemma = low
            if rules:
                for k in range(min(self.MAX_SUFFIX, len(low) - 1), 0, -1):
                    rule = rules.get(low[-k:])
                    if rule is not None:
                        strip, add = rule
                        lemma = low[: len(low) - strip] + add if strip else low + add
                        break
        if pos == "PROPN" and form[:1].isupper():
            # keep the name's own capitalization where the lemma is a prefix of the form
            return form[: len(lemma)] if form.lower().startswith(lemma) else lemma[:1].upper() + lemma[1:]
        return lemma

    @staticmethod
    def _transform(form: str, lemma: str) -> tuple[int, str]:
        n = 0
        limit = min(len(form), len(lemma))
        while n < limit and form[n] == lemma[n]:
            n += 1
        return len(form) - n, lemma[n:]

    @classmethod
    def train(cls, triples: Iterable[tuple[str, str, str]], min_form_count: int = 2,
              min_rule_count: int = 3) -> "SuffixLemmatizer":
        forms: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for form, pos, lemma in triples:
            forms[(form.lower(), pos)][lemma.lower()] += 1
        suffix_counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for (form, pos), lemmas in forms.items():
            lemma = lemmas.most_common(1)[0][0]
            t = cls._transform(form, lemma)
            for k in range(1, min(cls.MAX_SUFFIX, len(form) - 1) + 1):
                suffix_counts[(pos, form[-k:])][t] += 1
        rules: dict[str, dict[str, tuple[int, str]]] = defaultdict(dict)
        # keep a rule only where it says something its shorter suffix does not
        for (pos, suffix), c in sorted(suffix_counts.items(), key=lambda kv: len(kv[0][1])):
            t, n = c.most_common(1)[0]
            if n < min_rule_count or n / sum(c.values()) < 0.5:
                continue
            shorter = None
            for k in range(len(suffix) - 1, 0, -1):
                shorter = rules[pos].get(suffix[-k:])
                if shorter is not None:
                    break
            if shorter is None and t == (0, ""):
                continue
            if shorter != t:
                rules[pos][suffix] = t
        model = cls({}, dict(rules))
        lexicon: dict[str, dict[str, str]] = defaultdict(dict)
        for (form, pos), lemmas in forms.items():
            lemma, n = lemmas.most_common(1)[0]
            if sum(lemmas.values()) >= min_form_count and model.lemmatize(form, pos).lower() != lemma:
                lexicon[pos][form] = lemma
        model.lexicon = dict(lexicon)
        return model

    def to_json(self) -> dict:
        return {"lexicon": self.lexicon, "rules": {p: {s: list(t) for s, t in r.items()} for p, r in self.rules.items()}}

    @classmethod
    def from_json(cls, data: dict) -> "SuffixLemmatizer":
        rules = {p: {s: (int(t[0]), str(t[1])) for s, t in r.items()} for p, r in data["rules"].items()}
        return cls(data["lexicon"], rules)


UPOS_TAGS = frozenset(
    "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split()
)


def read_conllup(path: Path) -> Iterable[list[tuple[str, str, str, str]]]:
    """Sentences of a CoNLL-U Plus file (NerKor layout: FORM LEMMA UPOS XPOS FEATS ...) as
    (form, lemma, upos, feats) tuples; a sentence with a non-UD tag is reported and skipped."""
    sent: list[tuple[str, str, str, str]] = []
    bad = False
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line:
                if sent and not bad:
                    yield sent
                sent, bad = [], False
                continue
            if line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) < 5:
                raise InputError(str(path), f"expected at least 5 columns, got {len(cells)}", f"line {number}")
            if cells[2] not in UPOS_TAGS:
                bad = True
            sent.append((cells[0], cells[1], cells[2], cells[4]))
    if sent and not bad:
        yield sent


def save_model(path: Path, tagger: PerceptronTagger, lemmatizer: SuffixLemmatizer, meta: dict) -> None:
    data = {"meta": meta, "tagger": tagger.to_json(), "lemmatizer": lemmatizer.to_json()}
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(data, out, ensure_ascii=False, separators=(",", ":"))


def load_model(path: Path) -> tuple[PerceptronTagger, SuffixLemmatizer, dict]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
        return PerceptronTagger.from_json(data["tagger"]), SuffixLemmatizer.from_json(data["lemmatizer"]), data["meta"]
    except FileNotFoundError:
        raise InputError(str(path), "POS model missing (train it with scripts/train_pos.py)") from None
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(str(path), f"unreadable POS model: {exc}") from None
