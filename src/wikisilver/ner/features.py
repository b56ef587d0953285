"""§6 of the method: what the CRF sees of each token.

The usual orthographic, affix and context-window features and, optionally, gazetteer membership
from lists exported from our corpus (:mod:`wikisilver.corpus.gazetteers`), as CRFsuite attributes
(``name=value`` strings).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wikisilver.corpus.gazetteers import Gazetteer

FEATURES_VERSION = 1  # bump when features change: a model only works with the features it saw


def word_shape(token: str) -> str:
    """Collapsed shape: ``Budapest`` -> ``Xx``, ``MTA-SZTAKI`` -> ``X-X``, ``1956-ban`` -> ``d-x``."""
    shape = re.sub(r"[^\W\d_]", lambda m: "X" if m.group().isupper() else "x", token)
    shape = re.sub(r"\d", "d", shape)
    return re.sub(r"(.)\1+", r"\1", shape)


def _word_features(token: str, prefix: str) -> list[str]:
    """The features of one token, as seen from a position ``prefix`` (``""``, ``-1:``, ``+2:``…)."""
    lower = token.lower()
    features = [f"{prefix}w={lower}", f"{prefix}shape={word_shape(token)}"]
    if token[:1].isupper():
        features.append(f"{prefix}cap")
    if token.isupper() and any(c.isalpha() for c in token):
        features.append(f"{prefix}upper")
    return features


def _gazetteer_tags(sentence: Sequence[str], gazetteer: Gazetteer | None) -> list[set[str]]:
    tags: list[set[str]] = [set() for _ in sentence]
    if gazetteer is None:
        return tags
    for start, end, kind in gazetteer.matches(sentence):
        tags[start].add(f"gaz=B-{kind}")
        for i in range(start + 1, end):
            tags[i].add(f"gaz=I-{kind}")
    return tags


def _token_features(sentence: Sequence[str], i: int, gaz: list[set[str]]) -> list[str]:
    token = sentence[i]
    lower = token.lower()
    features = ["bias"] + _word_features(token, "")
    features.append(f"len={min(len(token), 8)}")
    if token.istitle():
        features.append("title")
    if token.isdigit():
        features.append("digit")
    elif any(c.isdigit() for c in token):
        features.append("hasdigit")
    if "-" in token:
        features.append("hyphen")
    if not any(c.isalnum() for c in token):
        features.append("punct")
    for n in range(1, 5):
        if len(lower) > n:
            features.append(f"p{n}={lower[:n]}")
            features.append(f"s{n}={lower[-n:]}")
    if i == 0:
        features.append("BOS")
    elif sentence[i - 1] in ('"', "„", "(", ":", "–", "-", "«", "»"):
        # After an opening quote or a colon a capital says as little as sentence-initially.
        features.append("quasi_BOS")
    if i == len(sentence) - 1:
        features.append("EOS")
    for offset in (-2, -1, 1, 2):
        j = i + offset
        if 0 <= j < len(sentence):
            features.extend(_word_features(sentence[j], f"{offset:+d}:"))
        else:
            features.append(f"{offset:+d}:pad")
    if i > 0:
        features.append(f"-1|0={sentence[i - 1].lower()}|{lower}")
    if i + 1 < len(sentence):
        features.append(f"0|+1={lower}|{sentence[i + 1].lower()}")
    for tag in gaz[i]:
        features.append(tag)
    for offset in (-1, 1):
        j = i + offset
        if 0 <= j < len(sentence):
            features.extend(f"{offset:+d}:{tag}" for tag in gaz[j])
    return features


def sentence_features(
    sentence: Sequence[str], gazetteer: Gazetteer | None = None
) -> list[list[str]]:
    """Attributes of every token; gazetteer matches are found once per sentence."""
    gaz = _gazetteer_tags(sentence, gazetteer)
    return [_token_features(sentence, i, gaz) for i in range(len(sentence))]
