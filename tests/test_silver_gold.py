"""The silver labels against blind gold (tests/gold/*_blind.conll, annotated from the guidelines in
tests/gold/ and the tokens alone): floors on precision, recall and F of the reference corpora."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ENWIKI_EXTRACT, ONTOLOGY, TYPES_100K, TYPES_111K, shared_file
from wikisilver.corpus.goldcheck import read_blind_gold, score_corpus

GOLD = Path(__file__).parent / "gold"


def _build(out: Path, lang: str, *dumps: Path) -> Path:
    command = [sys.executable, "-m", "wikisilver.cli", "-q", "build", "--lang", lang, "--out", str(out),
               "--ontology", str(shared_file(ONTOLOGY)), "--types", str(shared_file(TYPES_100K)),
               "--types", str(shared_file(TYPES_111K)), "--progress-interval", "0"]
    for dump in dumps:
        command += ["--dump", str(dump)]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    return out


# gold file -> (at least this many articles, at least this many entities)
GOLD_SIZES = {"en_wiki_blind.conll": (20, 1000), "en_org_blind.conll": (8, 250), "hu_berlin_blind.conll": (1, 300),
              "en_gathered_blind.conll": (30, 450)}


@pytest.mark.parametrize("name", sorted(GOLD_SIZES))
def test_blind_gold_files_are_well_formed(name):
    min_articles, min_entities = GOLD_SIZES[name]
    gold = list(read_blind_gold(str(GOLD / name)))
    assert len(gold) >= 150
    assert len({g.title for g in gold}) >= min_articles
    entities = 0
    for sentence in gold:
        tags = sentence.tags
        assert all(re.fullmatch(r"O|[BI]-(PER|LOC|ORG|MISC)", tag) for tag in tags)
        assert all(not (t.startswith("I-") and (i == 0 or tags[i - 1][2:] != t[2:])) for i, t in enumerate(tags))
        entities += sum(tag.startswith("B-") for tag in tags)
    assert entities >= min_entities


@pytest.fixture(scope="module")
def english_corpus(tmp_path_factory) -> Path:
    """The English corpus of the shared extract + minidump with both type samples, built once."""
    return _build(tmp_path_factory.mktemp("gold") / "en", "en", shared_file(ENWIKI_EXTRACT),
                  shared_file("wikidumps/enwiki-minidump.xml.bz2"))


@pytest.mark.slow
def test_english_silver_labels_against_blind_gold(english_corpus):
    corpus = english_corpus
    report = score_corpus(str(corpus), read_blind_gold(str(GOLD / "en_wiki_blind.conll")))
    print(report.format())
    assert report.kept_sentences >= 300
    scores = report.scores
    assert scores.f1 >= 96 and scores.precision >= 96  # issue 17's acceptance: F >= 96, every type >= 90
    assert all(scores.per_type[kind].f1 >= 90 for kind in ("LOC", "PER", "ORG", "MISC"))


@pytest.mark.slow
def test_english_organisation_articles_against_blind_gold(english_corpus):
    """The ORG stratum: articles about companies, bands and institutions, where ORG names are common."""
    report = score_corpus(str(english_corpus), read_blind_gold(str(GOLD / "en_org_blind.conll")))
    print(report.format())
    assert report.kept_sentences >= 100
    assert report.scores.per_type["ORG"].f1 >= 90 and report.scores.per_type["ORG"].support >= 50
    assert report.scores.f1 >= 92


@pytest.mark.slow
def test_hungarian_silver_labels_against_blind_gold(tmp_path):
    corpus = _build(tmp_path / "hu", "hu", shared_file("wikidumps/huwiki-minidump.xml.bz2"))
    report = score_corpus(str(corpus), read_blind_gold(str(GOLD / "hu_berlin_blind.conll")))
    print(report.format())
    assert report.kept_sentences >= 60
    assert report.scores.f1 >= 92 and report.scores.per_type["LOC"].f1 >= 92
    # every type the kept sentences hold: ORG is one mention (the others stand in lists of names whose
    # unlinked entries are dropped as unlinked phrases, or in sentences dropped for UNK)
    assert all(t.f1 >= 90 for t in report.scores.per_type.values())


@pytest.mark.slow
def test_gathered_articles_nobody_tuned_on_against_blind_gold(tmp_path):
    """The 78 gathered articles, whose gold was drawn and annotated before any rule change for it;
    its second half (after the 170th sentence) was never read to write a rule."""
    corpus = _build(tmp_path / "gathered", "en", shared_file("wikidumps/enwiki-gathered-articles.xml.bz2"))
    gold = list(read_blind_gold(str(GOLD / "en_gathered_blind.conll")))
    report = score_corpus(str(corpus), gold)
    print(report.format())
    assert report.kept_sentences >= 300
    # issue [4/5]'s acceptance: F >= 97, every type with 30 gold entities or more >= 93
    assert report.scores.f1 >= 97
    assert all(t.f1 >= 93 for t in report.scores.per_type.values() if t.support >= 30)
    held_out = score_corpus(str(corpus), gold[170:])
    assert held_out.scores.f1 >= 97
