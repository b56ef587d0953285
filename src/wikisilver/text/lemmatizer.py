"""Step 2 (lemma): a suffix-rule lemmatizer learnt from a treebank's (form, UPOS, lemma) triples.

Trained offline with the tagger (``scripts/train_pos.py``) and stored in the same model file
(:func:`wikisilver.text.tagger.save_model`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable


class SuffixLemmatizer:
    """Lemma = frequent-form lexicon, else the longest learnt (POS, word-final letters) rule.

    A rule strips ``strip`` characters and appends ``add`` (both learnt from gold lemmas), so
    "Budapesten"/PROPN → "Budapest" via the rule ("en" → "") learnt for PROPN. A suffix may have
    several candidate rules, most frequent first; with a ``vocabulary`` of known lemmas the first
    candidate that yields a known lemma wins: "scored" (-ored: "ignored" → "ignore" and "colored"
    → "color") → "score", because "scor" is not a word.
    """

    MAX_SUFFIX = 6

    def __init__(self, lexicon: dict[str, dict[str, str]],
                 rules: dict[str, dict[str, tuple[tuple[int, str], ...]]],
                 vocabulary: frozenset[str] = frozenset()) -> None:
        self.lexicon = lexicon
        self.rules = rules
        self.vocabulary = vocabulary

    def lemmatize(self, form: str, pos: str) -> str:
        """The lemma of ``form`` tagged ``pos`` (the text processor remembers each token's whole
        annotation, lemma included: ``PackProcessor._lemmas``)."""
        low = form.lower()
        lemma = self.lexicon.get(pos, {}).get(low)
        if lemma is None:
            rules = self.rules.get(pos)
            lemma = low
            if rules:
                for k in range(min(self.MAX_SUFFIX, len(low) - 1), 0, -1):
                    candidates = rules.get(low[-k:])
                    if candidates is not None:
                        lemma = self._apply(low, candidates)
                        break
        if pos == "PROPN" and form[:1].isupper():
            # keep the name's own capitalization where the lemma is a prefix of the form
            return form[: len(lemma)] if form.lower().startswith(lemma) else lemma[:1].upper() + lemma[1:]
        return lemma

    def _apply(self, low: str, candidates: tuple[tuple[int, str], ...]) -> str:
        first = None
        for strip, add in candidates:
            lemma = low[: len(low) - strip] + add if strip else low + add
            if lemma in self.vocabulary:
                return lemma
            if first is None:
                first = lemma
        return first

    @staticmethod
    def _transform(form: str, lemma: str) -> tuple[int, str]:
        n = 0
        limit = min(len(form), len(lemma))
        while n < limit and form[n] == lemma[n]:
            n += 1
        return len(form) - n, lemma[n:]

    @classmethod
    def train(cls, triples: Iterable[tuple[str, str, str]], min_form_count: int = 2,
              min_rule_count: int = 3, candidates: int = 1) -> "SuffixLemmatizer":
        """``candidates`` > 1 keeps that many rules per suffix (each seen ``min_rule_count``
        times) and the training lemmas as the vocabulary that chooses between them."""
        forms: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for form, pos, lemma in triples:
            forms[(form.lower(), pos)][lemma.lower()] += 1
        suffix_counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
        for (form, pos), lemmas in forms.items():
            lemma = lemmas.most_common(1)[0][0]
            t = cls._transform(form, lemma)
            for k in range(1, min(cls.MAX_SUFFIX, len(form) - 1) + 1):
                suffix_counts[(pos, form[-k:])][t] += 1
        rules: dict[str, dict[str, tuple[tuple[int, str], ...]]] = defaultdict(dict)
        # keep a rule only where it says something its shorter suffix does not
        for (pos, suffix), c in sorted(suffix_counts.items(), key=lambda kv: len(kv[0][1])):
            ranked = c.most_common()
            t, n = ranked[0]
            if n < min_rule_count or n / sum(c.values()) < 0.5:
                continue
            shorter = None
            for k in range(len(suffix) - 1, 0, -1):
                shorter = rules[pos].get(suffix[-k:])
                if shorter is not None:
                    break
            found = (t,) + tuple(r for r, m in ranked[1:candidates] if m >= min_rule_count)
            if shorter is None and found == ((0, ""),):
                continue
            if shorter != found:
                rules[pos][suffix] = found
        vocabulary = frozenset(lemma for c in forms.values() for lemma in c) if candidates > 1 else frozenset()
        model = cls({}, dict(rules), vocabulary)
        lexicon: dict[str, dict[str, str]] = defaultdict(dict)
        for (form, pos), lemmas in forms.items():
            lemma, n = lemmas.most_common(1)[0]
            if sum(lemmas.values()) >= min_form_count and model.lemmatize(form, pos).lower() != lemma:
                lexicon[pos][form] = lemma
        model.lexicon = dict(lexicon)
        return model

    def to_json(self) -> dict:
        data: dict = {"lexicon": self.lexicon}
        if any(len(c) > 1 for r in self.rules.values() for c in r.values()) or self.vocabulary:
            data["rules"] = {p: {s: [list(t) for t in c] for s, c in r.items()} for p, r in self.rules.items()}
            data["vocabulary"] = sorted(self.vocabulary)
        else:  # one rule per suffix: the original layout, [strip, add]
            data["rules"] = {p: {s: list(c[0]) for s, c in r.items()} for p, r in self.rules.items()}
        return data

    @classmethod
    def from_json(cls, data: dict) -> "SuffixLemmatizer":
        def candidates(value: list) -> tuple[tuple[int, str], ...]:
            pairs = [value] if value and isinstance(value[0], int) else value
            return tuple((int(strip), str(add)) for strip, add in pairs)

        rules = {p: {s: candidates(v) for s, v in r.items()} for p, r in data["rules"].items()}
        return cls(data["lexicon"], rules, frozenset(data.get("vocabulary", ())))
