"""Agreement of the labeller with hand-checked gold labels on real Wikipedia articles.

Prints token accuracy, entity precision/recall/F1 (exact span and type) over the gold sentences the
labeller keeps, and coverage (kept / gold). Thresholds sit a little under the measured agreement, so
a regression in any rule shows up here.
"""

from __future__ import annotations

import re

import pytest

from conftest import ENWIKI_EXTRACT, TYPES_100K, TYPES_111K, shared_file
from gold_support import GOLD, hu_types, label_linked_article, label_real_article, read_gold
from wikisilver.corpus.tags import iob_to_spans


def agreement(result, gold: dict[int, list[tuple[str, str]]]) -> dict[str, float]:
    kept = {s.index: s for s in result.sentences}
    tokens = correct_tokens = gold_entities = found_entities = matched = covered = 0
    for index, rows in gold.items():
        sentence = kept.get(index)
        if sentence is None:
            continue
        assert list(sentence.tokens) == [t for t, _ in rows], f"sentence {index} is tokenized differently"
        covered += 1
        gold_tags = [tag for _, tag in rows]
        tokens += len(rows)
        correct_tokens += sum(a == b for a, b in zip(gold_tags, sentence.conll_tags))
        gold_spans, found_spans = set(iob_to_spans(gold_tags)), set(iob_to_spans(list(sentence.conll_tags)))
        gold_entities += len(gold_spans)
        found_entities += len(found_spans)
        matched += len(gold_spans & found_spans)
    precision = matched / found_entities if found_entities else 0.0
    recall = matched / gold_entities if gold_entities else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    report = {
        "coverage": covered / len(gold), "token_accuracy": correct_tokens / tokens if tokens else 0.0,
        "precision": precision, "recall": recall, "f1": f1, "entities": gold_entities,
    }
    print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in report.items()))
    return report


@pytest.mark.slow
def test_english_labeller_agrees_with_gold():
    types = [shared_file(TYPES_100K), shared_file(TYPES_111K)]
    result, _ = label_linked_article(shared_file(ENWIKI_EXTRACT), "Abraham Lincoln", types)
    report = agreement(result, read_gold(GOLD / "en_abraham_lincoln.conll"))
    assert report["coverage"] == 1.0
    assert report["token_accuracy"] >= 0.99
    assert report["f1"] >= 0.95 and report["entities"] >= 45


def test_hungarian_labeller_agrees_with_gold():
    dump = shared_file("wikidumps/huwiki-minidump.xml.bz2")
    result, _ = label_real_article(dump, "Berlin", "hu", hu_types(), max_chars=6000)
    report = agreement(result, read_gold(GOLD / "hu_berlin.conll"))
    assert report["coverage"] == 1.0
    assert report["token_accuracy"] >= 0.97
    assert report["f1"] >= 0.85


@pytest.mark.parametrize("name", ["en_abraham_lincoln.conll", "hu_berlin.conll"])
def test_gold_files_are_well_formed(name):
    gold = read_gold(GOLD / name)
    assert len(gold) >= 20
    for rows in gold.values():
        tags = [tag for _, tag in rows]
        assert all(re.fullmatch(r"O|[BI]-(PER|LOC|ORG|MISC)", tag) for tag in tags)
        assert all(not (tag.startswith("I-") and (i == 0 or tags[i - 1] == "O")) for i, tag in enumerate(tags))
