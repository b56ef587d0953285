"""Step 2 (lemma and POS): a small averaged-perceptron UPOS tagger; the model file it shares with
the suffix-rule lemmatizer (:mod:`wikisilver.text.lemmatizer`).

Both are trained offline (``scripts/train_pos.py``) and shipped as one gzipped JSON file under
``mappings/<lang>/``, so tagging needs no download and no third-party model. The tagger is greedy,
left to right, with one of two feature sets, which the language pack names (``suffix``: word-final
letters carry most of the information in an agglutinative language; ``context``: case, wider
context and ambiguity classes); a
frequent-and-unambiguous word dictionary short-cuts the perceptron, which keeps per-token Python
work small.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from wikisilver.errors import InputError
from wikisilver.text.fast_tagger import DenseScorer, Templates, compiled
from wikisilver.text.lemmatizer import SuffixLemmatizer

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


def _word_features(low: str) -> list[str]:
    """The features of the word itself that every feature set starts with."""
    return ["b", "w=" + low, "s1=" + low[-1:], "s2=" + low[-2:], "s3=" + low[-3:], "s4=" + low[-4:]]


def _features_hu(i: int, words: Sequence[str], prev: str, prev2: str, classes: dict[str, str]) -> list[str]:
    """Features for an agglutinative language: word-final letters (up to five) carry the most."""
    w = words[i]
    low = w.lower()
    pw = words[i - 1].lower() if i > 0 else _START[0]
    nw = words[i + 1].lower() if i + 1 < len(words) else _END[0]
    feats = _word_features(low) + [
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


def _word_features_en(w: str, first: bool, classes: dict[str, str]) -> list[str]:
    """The English features of a word on its own (and whether it comes first): the same wherever
    it stands, so the dense scorer looks them up once per word (:mod:`wikisilver.text.fast_tagger`)."""
    low = w.lower()
    feats = _word_features(low) + [
        "p1=" + low[:1],
        "p2=" + low[:2],
        "sh=" + _shape(w) + ("i" if first else ""),
        "ac=" + classes.get(low, "?"),
    ]
    if w != low:
        feats.append("W=" + w)
    if "-" in w[1:]:
        feats.append("hy=" + low.rsplit("-", 1)[1][-3:])
    if not w.isalpha() and any(ch.isdigit() for ch in w):
        feats.append("dg")
    return feats


def _as_previous_en(low: str) -> list[str]:
    """The features a word (in lower case) gives the word after it."""
    return ["pw=" + low, "ps3=" + low[-3:]]


def _as_second_previous_en(low: str) -> list[str]:
    """The feature a word gives the word two after it."""
    return ["ppw=" + low]


def _as_next_en(word: str, low: str, c: str) -> list[str]:
    """The features a word (as written, in lower case, its ambiguity class) gives the word before
    it: the ambiguity classes of the next words give a greedy left-to-right tagger a view of its
    right context without a second pass."""
    return ["nw=" + low, "ns3=" + low[-3:], "nsh=" + _shape(word), "nac=" + c]


def _as_second_next_en(low: str) -> list[str]:
    """The feature a word gives the word two before it."""
    return ["nnw=" + low]


def _pairs_en(pw: str, low: str, nlow: str, c: str, nc: str, nnc: str) -> list[str]:
    """The features of word pairs around a word: the word before and the word, the word and the
    next, the classes of the word and the next, of the next two."""
    return ["pww=" + pw + "|" + low, "wnw=" + low + "|" + nlow, "acn=" + c + "|" + nc, "nnac=" + nc + "|" + nnc]


def _tag_context_en(prev: str, prev2: str, low: str, nlow: str, c: str) -> list[str]:
    """The English features that read the two tags chosen before the word."""
    return ["t=" + prev, "tt=" + prev + "|" + prev2, "tw=" + prev + "|" + low, "tnw=" + prev + "|" + nlow,
            "tac=" + prev + "|" + c]


def _context_features_en(i: int, words: Sequence[str], prev: str, prev2: str, classes: dict[str, str]) -> list[str]:
    """The English features of a word's context, in the order the model sums them: two words
    either side (_START before the sentence, _END after it), their ambiguity classes (tags seen in
    training, "?" unseen), and the tags before."""
    low = words[i].lower()
    n = len(words)
    pw = words[i - 1].lower() if i > 0 else _START[0]
    ppw = words[i - 2].lower() if i > 1 else _START[1]
    c = classes.get(low, "?")
    if i + 1 < n:
        nw = words[i + 1]
        nlow = nw.lower()
        nc = classes.get(nlow, "?")
        nnc = classes.get(words[i + 2].lower(), "?") if i + 2 < n else _END[0]
    else:
        nw = nlow = nc = nnc = _END[0]
    nnw = words[i + 2].lower() if i + 2 < n else _END[1]
    p_w, ps3 = _as_previous_en(pw)
    n_w, ns3, nsh, nac = _as_next_en(nw, nlow, c=nc)
    pww, wnw, acn, nnac = _pairs_en(pw, low, nlow, c, nc, nnc)
    t, tt, tw, tnw, tac = _tag_context_en(prev, prev2, low, nlow, c)
    return [t, tt, tw, p_w, ps3, pww, *_as_second_previous_en(ppw), n_w, ns3, nsh, wnw, tnw,
            *_as_second_next_en(nnw), nac, tac, acn, nnac]


_EN_TEMPLATES = Templates(_word_features_en, _as_previous_en, _as_second_previous_en, _as_next_en,
                          _as_second_next_en, _pairs_en, _tag_context_en)


def _features_en(i: int, words: Sequence[str], prev: str, prev2: str, classes: dict[str, str]) -> list[str]:
    """Features for English: the word's (shorter suffixes, its case, its ambiguity class), then its
    context's."""
    return _word_features_en(words[i], i == 0, classes) + _context_features_en(i, words, prev, prev2, classes)


# The feature sets a model may be trained with (pack.toml [tagger] features), by name.
_FEATURES = {"suffix": _features_hu, "context": _features_en}
FEATURE_SETS = tuple(_FEATURES)


class PerceptronTagger:
    """Greedy averaged perceptron over the tag set seen in training.

    ``features`` names the feature set (``suffix``: suffix-heavy, for an agglutinative language;
    ``context``: see :func:`_features_en`); ``ambiguity`` maps a lowercase word to the tags it had
    in training (the ``context`` set reads it). Words in ``tagdict`` (frequent, one tag) skip the perceptron.
    """

    def __init__(self, weights: dict[str, dict[str, float]] | None = None,
                 tagdict: dict[str, str] | None = None, classes: Sequence[str] = (),
                 features: str = "suffix", ambiguity: dict[str, str] | None = None) -> None:
        self.weights = weights or {}
        self.tagdict = tagdict or {}
        self.classes = tuple(classes)
        self.features = features
        self.ambiguity = ambiguity or {}
        self._extract = _FEATURES[features]

    @property
    def weights(self) -> dict[str, dict[str, float]]:
        return self._weights

    @weights.setter
    def weights(self, weights: dict[str, dict[str, float]]) -> None:
        self._weights = weights
        self._dense: DenseScorer | None | bool = False  # built at the first tagging with these weights

    def _features(self, i: int, words: Sequence[str], prev: str, prev2: str) -> list[str]:
        return self._extract(i, words, prev, prev2, self.ambiguity)

    def _score(self, feats: list[str]) -> str:
        """The plain perceptron's tag: the tag with the highest sum of the features' weights."""
        weights = self.weights
        scores: dict[str, float] = {}
        for f in feats:
            row = weights.get(f)
            if row:
                for tag, weight in row.items():
                    scores[tag] = scores.get(tag, 0.0) + weight
        if not scores:
            return self.classes[0] if self.classes else "X"
        return max(scores, key=scores.__getitem__)

    def _dict_tag(self, i: int, word: str) -> str | None:
        """The tag of a frequent unambiguous word (the first word also in lower case), else None."""
        tagdict = self.tagdict
        return tagdict.get(word) or tagdict.get(word.lower()) if i == 0 else tagdict.get(word)

    def _dict_tags(self, sentences: Sequence[Sequence[str]]) -> list[list[str | None]]:
        """:meth:`_dict_tag` of every token of the sentences: the dictionary read at C speed, then
        a first word it lacks in lower case."""
        get = self.tagdict.get
        found = [list(map(get, words)) for words in sentences]
        for words, tags in zip(sentences, found):
            if tags and tags[0] is None:
                tags[0] = get(words[0].lower())
        return found

    def tag(self, words: Sequence[str]) -> list[str]:
        return self.tag_many([words])[0]

    def tag_many(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """The tags of several sentences: the same as :meth:`tag` of each, scored together where
        the model has a dense scorer (:mod:`wikisilver.text.fast_tagger`)."""
        if self.features == "context":
            if self._dense is False:
                self._dense = DenseScorer.of(self.weights, self.classes, self.ambiguity, _EN_TEMPLATES)
            # The same tags, scored by :mod:`wikisilver.text.fast_tagger`. One sentence alone (the lead
            # rule's, anonymize's) too where its loops are compiled: ~8 against the plain perceptron's
            # ~25 µs a token (EWT dev, one sentence at a time); their numpy twins cost more per call.
            if self._dense is not None and (len(sentences) > 1 or compiled()):
                return self._dense.tag_many(sentences, self._dict_tags(sentences), self._plain_tag)
        return [self._greedy(words) for words in sentences]

    def _greedy(self, words: Sequence[str]) -> list[str]:
        prev, prev2 = _START
        out = []
        for i, word in enumerate(words):
            tag = self._dict_tag(i, word) or self._plain_tag(i, words, prev, prev2)
            out.append(tag)
            prev2, prev = prev, tag
        return out

    def _plain_tag(self, i: int, words: Sequence[str], prev: str, prev2: str) -> str:
        """The plain perceptron's tag of token i, given the two tags before it."""
        return self._score(self._features(i, words, prev, prev2))

    def accuracy(self, sentences: Iterable[list[tuple[str, str]]]) -> float:
        sentences = list(sentences)
        correct = total = 0
        for sent, guesses in zip(sentences, self.tag_many([[w for w, _ in sent] for sent in sentences])):
            for (_, gold), guess in zip(sent, guesses):
                correct += guess == gold
                total += 1
        return correct / max(total, 1)

    # -- training ---------------------------------------------------------------------------

    @classmethod
    def train(cls, sentences: list[list[tuple[str, str]]], iterations: int = 5, seed: int = 1,
              min_dict_count: int = 20, dict_purity: float = 0.97, prune: float = 0.5,
              features: str = "suffix", dev: list[list[tuple[str, str]]] | None = None,
              log=print) -> "PerceptronTagger":
        """Train for ``iterations`` passes; with ``dev`` sentences, keep the averaged weights of
        the pass that tags ``dev`` best (the choice is logged)."""
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
        ambiguity = _ambiguity_classes(sentences) if features == "context" else {}
        model = cls({}, tagdict, classes, features, ambiguity)
        weights: dict[str, dict[str, float]] = defaultdict(dict)
        totals: dict[tuple[str, str], float] = defaultdict(float)
        stamps: dict[tuple[str, str], int] = defaultdict(int)
        instance = 0
        rng = random.Random(seed)
        best: tuple[float, int, dict[str, dict[str, float]]] | None = None
        for it in range(iterations):
            model.weights = weights
            correct = seen = 0
            for sent in sentences:
                words = [w for w, _ in sent]
                prev, prev2 = _START
                for i, (word, gold) in enumerate(sent):
                    guess = tagdict.get(word)
                    if guess is None:
                        feats = model._features(i, words, prev, prev2)
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
            line = f"iteration {it + 1}: training accuracy {correct / seen:.4f}"
            if dev is not None or it == iterations - 1:  # without dev only the last pass's are kept
                averaged = _average(weights, totals, stamps, instance, prune)
            if dev is not None:
                model.weights = averaged
                score = model.accuracy(dev)
                line += f", dev accuracy {score:.4f}"
                if best is None or score > best[0]:
                    best = (score, it + 1, averaged)
            log(line)
        if best is not None:
            log(f"kept the weights of iteration {best[1]} (best on dev)")
            averaged = best[2]
        model.weights = averaged
        return model

    # -- storage ----------------------------------------------------------------------------

    def to_json(self) -> dict:
        data = {"classes": list(self.classes), "tagdict": self.tagdict, "weights": self.weights}
        if self.features != "suffix":
            data.update(features=self.features, ambiguity=self.ambiguity)
        return data

    @classmethod
    def from_json(cls, data: dict) -> "PerceptronTagger":
        return cls(data["weights"], data["tagdict"], data["classes"], data.get("features", "suffix"), data.get("ambiguity"))


def _ambiguity_classes(sentences: list[list[tuple[str, str]]], min_count: int = 2,
                       min_share: float = 0.05) -> dict[str, str]:
    """Lowercase word -> its tags in training ("NOUN|VERB"), for words seen ``min_count`` times;
    a tag under ``min_share`` of the word's uses is left out (annotation noise)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for sent in sentences:
        for word, tag in sent:
            counts[word.lower()][tag] += 1
    out = {}
    for word, c in counts.items():
        total = sum(c.values())
        if total >= min_count:
            out[word] = "|".join(sorted(t for t, n in c.items() if n / total >= min_share))
    return out


def _average(weights: dict[str, dict[str, float]], totals: dict[tuple[str, str], float],
             stamps: dict[tuple[str, str], int], instance: int, prune: float) -> dict[str, dict[str, float]]:
    """The averaged weights after ``instance`` updates, rounded; those under ``prune`` dropped."""
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
    return averaged


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
