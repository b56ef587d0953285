"""The Python API (wikisilver.api) on the demo corpus, and its Parquet output in Hugging Face datasets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import wikisilver
from wikisilver.config.resolve import demo_inputs
from wikisilver.errors import InputError
from wikisilver.corpus.write import sentences_to_table
from wikisilver.records import LabelledSentence


@pytest.fixture(scope="module")
def corpus_dir(demo_corpus) -> Path:
    return demo_corpus


@pytest.fixture(scope="module")
def parquet_rows(corpus_dir) -> list[dict]:
    return [row for path in sorted((corpus_dir / "parquet").glob("*.parquet"))
            for row in pq.read_table(path).to_pylist()]


def test_import_is_cheap_and_lazy():
    code = ("import sys, wikisilver; assert 'apache_beam' not in sys.modules and 'pyarrow' not in sys.modules; "
            "wikisilver.load_corpus; assert 'apache_beam' not in sys.modules; "
            "assert set(wikisilver.__all__) >= {'build', 'load_corpus', 'train', 'evaluate', 'hf_features'}")
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        wikisilver.nope  # noqa: B018


@pytest.mark.slow
def test_build_resolves_options_as_the_command_line_does(corpus_dir):
    # corpus_dir is `wikisilver build --demo --out DIR`: the same build through the API is the same
    # build (a no-op that hands back the finished corpus's stats), and another one is refused.
    stats = json.loads((corpus_dir / "stats.json").read_text())
    assert stats["pages_accounted"] is True
    assert wikisilver.build(demo=True, out=corpus_dir) == stats
    assert wikisilver.build(demo=True, out=str(corpus_dir), types=demo_inputs()[1]) == stats
    with pytest.raises(InputError, match="--overwrite"):
        wikisilver.build(demo=True, out=corpus_dir, shards=2)


@pytest.mark.slow
def test_build_writes_a_corpus_of_the_options_given(tmp_path):
    out = tmp_path / "demo"
    stats = wikisilver.build(demo=True, out=out, shards=2, disabled_rules="derived_word", beam_args=["--direct_num_workers", "1"])
    assert stats["sentences_kept"] > 0 and stats["rules_fired"]["derived_word"] == 0
    assert sorted(p.name for p in (out / "parquet").iterdir()) == [
        "part-00000-of-00002.parquet", "part-00001-of-00002.parquet"]
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["disabled_rules"] == ["derived_word"] and config["beam_args"] == ["--direct_num_workers", "1"]


def test_build_rejects_bad_input_clearly(tmp_path):
    with pytest.raises(InputError, match="no dump given"):
        wikisilver.build(out=tmp_path / "x")
    with pytest.raises(InputError, match="missing.xml.bz2.*no such file"):
        wikisilver.build(tmp_path / "missing.xml.bz2", out=tmp_path / "x", lang="en")
    with pytest.raises(TypeError, match="unexpected option.*shardz"):
        wikisilver.build(demo=True, out=tmp_path / "x", shardz=3)
    with pytest.raises(InputError, match="not a Wikipedia language code"):
        wikisilver.build(demo=True, out=tmp_path / "x", lang="English")


def test_load_corpus_matches_the_parquet(corpus_dir, parquet_rows):
    corpus = wikisilver.load_corpus(corpus_dir)
    assert len(corpus) == len(parquet_rows)
    assert corpus.stats["sentences_kept"] == len(parquet_rows)
    assert corpus.manifest["language"] == "en"
    sentences = list(corpus.sentences())
    assert all(isinstance(s, LabelledSentence) for s in sentences)
    assert [(s.title, s.index, list(s.tokens), list(s.conll_tags)) for s in sentences] == [
        (r["title"], r["sentence_index"], r["tokens"], r["conll_tags"]) for r in parquet_rows]
    good = list(corpus.sentences(exclude_low_quality=True))
    assert len(good) == sum(not r["low_quality"] for r in parquet_rows)


def test_article_returns_one_article_in_order(corpus_dir, parquet_rows):
    corpus = wikisilver.load_corpus(corpus_dir)
    title = parquet_rows[0]["title"]
    article = corpus.article(title)
    expected = sorted((r for r in parquet_rows if r["title"] == title), key=lambda r: r["sentence_index"])
    assert [s.tokens for s in article] == [tuple(r["tokens"]) for r in expected]
    assert corpus.article("No Such Article Anywhere") == []


def test_to_pandas_or_a_clear_error(corpus_dir, parquet_rows):
    corpus = wikisilver.load_corpus(corpus_dir)
    assert corpus.to_arrow().num_rows == len(parquet_rows)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="needs pandas"):
            corpus.to_pandas()
        return
    frame = corpus.to_pandas(exclude_low_quality=True)
    assert len(frame) == sum(not r["low_quality"] for r in parquet_rows)
    assert list(frame.columns)[:4] == ["id", "title", "page_id", "sentence_index"]


def test_to_pandas_without_pandas_says_so(corpus_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    with pytest.raises(ImportError, match="needs pandas.*pip install pandas"):
        wikisilver.load_corpus(corpus_dir).to_pandas()


def test_load_corpus_of_a_directory_without_parquet(tmp_path):
    with pytest.raises(InputError, match="no Parquet part files"):
        wikisilver.load_corpus(tmp_path)
    (tmp_path / "parquet").mkdir()
    # Parquet parts without the build's stats/manifest: readable, but the stats say what is missing.
    pq.write_table(sentences_to_table([]), tmp_path / "parquet" / "part-0.parquet")
    corpus = wikisilver.load_corpus(tmp_path)
    assert len(corpus) == 0
    with pytest.raises(InputError, match="stats.json.*not the directory of a finished"):
        corpus.stats  # noqa: B018 - the property read is the test


def test_train_and_evaluate_through_the_api(corpus_dir, tmp_path):
    model = tmp_path / "demo.crf"
    report = wikisilver.train(corpus_dir / "tsv", model, max_iterations=5)
    assert report.sentences == json.loads((corpus_dir / "stats.json").read_text())["sentences_kept"]
    assert model.is_file()
    scores = wikisilver.evaluate(model, corpus_dir / "tsv")
    assert scores.tokens == report.tokens
    assert scores.gold > 0 and scores.f1 >= 30.0, scores  # its own training data, 5 iterations: 48 F; an untrained model 0
    # The same scores from a loaded corpus object and its Parquet parts.
    # The same scores from a loaded corpus object, or its directory: each sentence counted once
    # (the directory holds it twice, in tsv/ and parquet/).
    expected = (scores.gold, scores.correct, scores.tokens)
    for gold in (wikisilver.load_corpus(corpus_dir), corpus_dir):
        again = wikisilver.evaluate(str(model), gold)
        assert (again.gold, again.correct, again.tokens) == expected


def test_hf_features_describe_the_parquet_schema():
    from wikisilver.corpus.schema import SENTENCE_SCHEMA

    assert list(wikisilver.HF_FEATURES) == SENTENCE_SCHEMA.names
    assert wikisilver.HF_FEATURES["tokens"] == ["string"]
    assert wikisilver.HF_FEATURES["spans"] == [{"start": "int32", "end": "int32", "conll": "string",
                                                "dbpedia_class": "string", "target": "string", "rule": "string"}]
    # ner_tags as the corpus writes them: ClassLabel ids with the label names, not bare int64
    names = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"]
    assert wikisilver.HF_FEATURES["ner_tags"] == [{"class_label": {"names": names}}]


def test_huggingface_datasets_loads_the_parquet_offline(corpus_dir, parquet_rows, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    datasets = pytest.importorskip("datasets")
    # datasets reads the variables when first imported: in case another test imported it already.
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    files = [str(p) for p in sorted((corpus_dir / "parquet").glob("*.parquet"))]
    cache = str(tmp_path / "cache")

    plain = datasets.load_dataset("parquet", data_files=files, split="train", cache_dir=cache)
    assert plain.num_rows == len(parquet_rows)
    assert plain.column_names == list(wikisilver.HF_FEATURES)
    assert plain.features["page_id"] == datasets.Value("int64")
    assert plain.features["low_quality"] == datasets.Value("bool")
    assert plain[0]["tokens"] == parquet_rows[0]["tokens"]

    typed = datasets.load_dataset("parquet", data_files=files, split="train", cache_dir=cache,
                                  features=wikisilver.hf_features())
    assert typed.features == wikisilver.hf_features()
    assert typed.features == plain.features  # our description is what datasets reads itself
    # The label names come with the files (their schema metadata), without features= given.
    names = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"]
    assert plain.features["ner_tags"].feature == datasets.ClassLabel(names=names)
    first = plain[0]
    assert [names[i] for i in first["ner_tags"]] == first["conll_tags"]
    assert first["id"] == f"{first['page_id']}-{first['sentence_index']}"
    assert len({row["id"] for row in plain}) == plain.num_rows
    with_spans = next(i for i, r in enumerate(parquet_rows) if r["spans"])
    assert typed[with_spans]["spans"] == parquet_rows[with_spans]["spans"]
    assert typed[with_spans]["conll_tags"] == parquet_rows[with_spans]["conll_tags"]
