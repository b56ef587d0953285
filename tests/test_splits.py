"""By-article, hash-based, budgeted train/test splits."""

from __future__ import annotations

import pytest

from wikisilver import cli
from wikisilver.corpus.inputs import read_corpus
from wikisilver.corpus.splits import article_hash, split_corpus
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.corpus.write import write_tagged_tsv
from wikisilver.errors import InputError


def corpus(articles: int = 60, sentences_per_article: int = 3) -> list[TaggedSentence]:
    out = []
    for page in range(1, articles + 1):
        for index in range(sentences_per_article):
            tokens = ("Kis", "Pál", "élt", ".") if index % 2 else ("A", "város", "nagy", "volt", ".")
            tags = ("B-PER", "I-PER", "O", "O") if index % 2 else ("O",) * 5
            out.append(TaggedSentence(tokens, tags, doc_id=str(page), title=f"Cikk {page}",
                                      sentence_index=index, low_quality=index == 2))
    return out


def sides(report) -> tuple[list[TaggedSentence], list[TaggedSentence]]:
    return list(read_corpus(report.train_path)), list(read_corpus(report.test_path))


def test_no_article_on_both_sides_and_all_sentences_kept(tmp_path):
    data = corpus()
    report = split_corpus(lambda: iter(data), str(tmp_path), test_fraction=0.25, seed=1)
    train, test = sides(report)
    assert {s.doc_id for s in train}.isdisjoint({s.doc_id for s in test})
    assert len(train) + len(test) == len(data)
    assert 0 < report.test_articles < report.train_articles
    assert report.train_tokens == sum(len(s.tokens) for s in train)
    # What goes out is what came in, metadata included.
    fields = lambda s: (int(s.doc_id), s.sentence_index, s.title, s.tokens, s.tags, s.low_quality)  # noqa: E731
    assert sorted(map(fields, train + test)) == sorted(map(fields, data))


def test_split_is_stable_across_input_order_and_depends_on_seed(tmp_path):
    data = corpus()
    a = split_corpus(lambda: iter(data), str(tmp_path / "a"), seed=3, test_fraction=0.3)
    b = split_corpus(lambda: iter(reversed(data)), str(tmp_path / "b"), seed=3, test_fraction=0.3)
    c = split_corpus(lambda: iter(data), str(tmp_path / "c"), seed=4, test_fraction=0.3)
    test_docs = lambda r: {s.doc_id for s in sides(r)[1]}  # noqa: E731
    assert test_docs(a) == test_docs(b)
    assert test_docs(a) != test_docs(c)
    assert article_hash("12", 0) == article_hash("12", 0) != article_hash("12", 1)
    # The test side is the articles whose hash falls in the first 30 % of the hash space.
    assert {d for d in map(str, range(1, 61)) if article_hash(d, 3) < 0.3 * 2**64} == test_docs(a)


def test_token_budget_takes_whole_articles_within_budget(tmp_path):
    data = corpus(articles=200)  # 14 tokens per article
    report = split_corpus(lambda: iter(data), str(tmp_path), test_fraction=0.1, max_tokens=700)
    train, test = sides(report)
    assert report.train_tokens <= 630 and report.test_tokens <= 70
    assert report.train_tokens >= 630 - 14 * 2  # filled up to about the budget
    for side in (train, test):
        per_doc = {}
        for s in side:
            per_doc[s.doc_id] = per_doc.get(s.doc_id, 0) + 1
        assert set(per_doc.values()) == {3}  # whole articles only
    bigger = split_corpus(lambda: iter(data), str(tmp_path / "big"), test_fraction=0.1, max_tokens=1400)
    assert {s.doc_id for s in train} <= {s.doc_id for s in sides(bigger)[0]}


def test_bad_fraction_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="test-fraction"):
        split_corpus(lambda: iter(corpus()), str(tmp_path), test_fraction=1.5)


def test_cli_split(tmp_path, capsys):
    source = tmp_path / "in.tsv"
    with open(source, "w", encoding="utf-8") as handle:
        write_tagged_tsv(handle, corpus())
    out = tmp_path / "split"
    assert cli.main(["split", "--corpus", str(source), "--out", str(out), "--seed", "7"]) == 0
    printed = capsys.readouterr().out
    assert "train:" in printed and "test:" in printed
    train = list(read_corpus(str(out / "train.tsv")))
    test = list(read_corpus(str(out / "test.tsv")))
    assert len(train) + len(test) == 180
    assert any(s.low_quality for s in train)


def test_the_corpus_is_read_once_and_twice_with_a_budget(tmp_path):
    source = tmp_path / "in.tsv"
    with open(source, "w", encoding="utf-8") as handle:
        write_tagged_tsv(handle, corpus())
    opened = []

    def read():
        opened.append(1)
        return read_corpus(str(source))

    report = split_corpus(read, str(tmp_path / "a"), test_fraction=0.2, dev_fraction=0.2, fmt="conll2003")
    assert len(opened) == 1
    assert report.train_sentences + report.dev_sentences + report.test_sentences == 180
    assert (tmp_path / "a" / "dev.conll").read_text(encoding="utf-8").count("-DOCSTART-") == report.dev_articles
    opened.clear()
    split_corpus(read, str(tmp_path / "b"), test_fraction=0.2, max_tokens=300)
    assert len(opened) == 2


def test_a_corpus_that_fails_midway_completes_no_side(tmp_path):
    def read():
        for number, sentence in enumerate(corpus()):
            if number == 150:
                raise InputError("in.tsv", "bad sentence", "line 900")
            yield sentence

    with pytest.raises(InputError, match="line 900"):
        split_corpus(read, str(tmp_path), test_fraction=0.3, dev_fraction=0.2)
    assert list(tmp_path.iterdir()) == []
