"""Step 2 (POS), the English tagger's speed path: a sentence's perceptron scores summed with numpy.

The plain perceptron (:meth:`wikisilver.text.tagger.PerceptronTagger._score`) adds the float
weights of a token's features one tag at a time in Python. Training rounds the weights to
thousandths, so here they are integers (thousandths) in a dense table, one row per feature: the
features that do not read the tags chosen before (the word, its neighbours, their ambiguity
classes) are summed for every token of a sentence in one numpy call, and each token then adds only
the rows of its five features that read the previous tags (sparse, in Python).

The result is the plain perceptron's: integer sums are exact, and the plain float sums of a token's
few dozen weights are within far less than a thousandth of them, so the two agree on the best tag wherever one tag is best. A
tie, or a best tag that no feature of the token weighs (only tags of the bias row are sure to be
among the plain perceptron's candidates), is left to the plain perceptron, whose float sums decide.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

TAG_FEATURES = ("t=", "tt=", "tw=", "tnw=", "tac=")  # the features that read the tags chosen before
_SCALE = 1000  # training rounds every weight to thousandths (tagger._average)


class DenseScorer:
    """The weights of one model as integer rows; ``row_of`` maps a feature to its row (0: none)."""

    def __init__(self, weights: dict[str, dict[str, float]], classes: Sequence[str]) -> None:
        self.classes = tuple(classes)
        column = {tag: k for k, tag in enumerate(self.classes)}  # a tag outside: KeyError
        self.row_of = {feature: n for n, feature in enumerate(weights, 1)}  # row 0: no weights
        rows: list[int] = []
        columns: list[int] = []
        values: list[float] = []
        for n, row in enumerate(weights.values(), 1):
            rows += [n] * len(row)
            columns += map(column.__getitem__, row)
            values += row.values()
        scaled = np.array(values, dtype=float) * _SCALE
        thousandths = np.rint(scaled)
        self.exact = bool(np.all(np.abs(scaled - thousandths) < 1e-6) and np.all(np.abs(thousandths) < 2**31))
        self.table = np.zeros((len(weights) + 1, len(self.classes)), dtype=np.int32)  # summed as int64
        self.table[rows, columns] = thousandths
        self.sure = [tag in weights.get("b", ()) for tag in self.classes]  # the bias row's tags
        self.sparse = {f: tuple((column[t], round(w * _SCALE)) for t, w in row.items())
                       for f, row in weights.items() if f.startswith(TAG_FEATURES)}

    @classmethod
    def of(cls, weights: dict[str, dict[str, float]], classes: Sequence[str]) -> "DenseScorer | None":
        """The scorer of these weights, or None where they are not all whole thousandths of
        known tags (then only the plain perceptron tags)."""
        if not classes:
            return None
        try:
            scorer = cls(weights, classes)
        except KeyError:
            return None
        return scorer if scorer.exact else None

    def rows(self, features: list[str]) -> list[int]:
        """The rows of ``features`` (0 for a feature without weights)."""
        row_of = self.row_of.get
        return [row_of(f, 0) for f in features]

    def fixed_scores(self, rows: list[list[int]]) -> list[list[int]]:
        """Each token's sum of the ``rows`` of its tag-independent features (one list per token)."""
        width = max(map(len, rows))
        padded = np.zeros((len(rows), width), dtype=np.intp)  # a shorter list is padded with row 0
        for k, token_rows in enumerate(rows):
            padded[k, : len(token_rows)] = token_rows
        return self.table[padded].sum(axis=1).tolist()

    def best(self, scores: list[int], features: list[str]) -> str | None:
        """The best tag of a token: its fixed ``scores`` (changed in place) plus the rows of its
        tag-reading ``features``; None where the integers do not decide (a tie, or a best tag no
        feature weighs): the plain perceptron decides then."""
        sparse = self.sparse
        for f in features:
            row = sparse.get(f)
            if row is not None:
                for k, weight in row:
                    scores[k] += weight
        top = max(scores)
        k = scores.index(top)
        if not self.sure[k] or scores.count(top) > 1:
            return None
        return self.classes[k]
