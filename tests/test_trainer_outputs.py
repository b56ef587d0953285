"""Outputs that trainers use as they are, run as a user runs them (subprocess, the demo dump):
each sentence's own text and its tokens' offsets in every format, the TSV's comment lines, the
Hugging Face columns and dataset card, spaCy Docs per article."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.slow


def wikisilver(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``wikisilver ARGS`` in a fresh process, as a user types it."""
    done = subprocess.run([sys.executable, "-m", "wikisilver.cli", *args], capture_output=True, text=True,
                          timeout=300)
    if check:
        assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("trainer") / "demo"
    wikisilver("-q", "build", "--demo", "--out", str(out))
    return out


def parquet_rows(corpus: Path) -> list[dict]:
    return [row for part in sorted((corpus / "parquet").glob("*.parquet")) for row in pq.read_table(part).to_pylist()]


def test_parquet_keeps_the_text_and_each_tokens_offsets(corpus):
    rows = parquet_rows(corpus)
    assert rows
    for row in rows:
        assert [row["text"][s:e] for s, e in zip(row["token_starts"], row["token_ends"])] == row["tokens"]
        assert row["id"] == f"{row['page_id']}-{row['sentence_index']}"
    # The real text, not tokens joined by spaces: "Europe, after" has no space before the comma.
    danube = next(r for r in rows if r["title"] == "Danube" and r["sentence_index"] == 0)
    assert danube["text"] == "The Danube is the second-longest river in Europe, after the Volga."
    assert any(" ".join(r["tokens"]) != r["text"] for r in rows)


def test_tsv_parts_carry_the_article_and_the_text_before_each_sentence(corpus):
    rows = {(r["page_id"], r["sentence_index"]): r for r in parquet_rows(corpus)}
    blocks = [b for part in sorted((corpus / "tsv").glob("*.tsv"))
              for b in part.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    assert len(blocks) == len(rows)
    for block in blocks:
        head, text, *lines = block.split("\n")
        assert head.startswith("# page_id=") and " title=" in head and " sentence=" in head
        fields = dict(f.split("=", 1) for f in head[2:].split(" ") if "=" in f)
        row = rows[(int(fields["page_id"]), int(fields["sentence"]))]
        assert head == (f"# page_id={row['page_id']} title={row['title']} sentence={row['sentence_index']} "
                        f"low_quality={int(row['low_quality'])}")
        assert text == "# text = " + row["text"]
        cells = [line.split("\t") for line in lines]
        assert [c[0] for c in cells] == row["tokens"] and [c[4] for c in cells] == row["conll_tags"]
        assert [(int(c[5]), int(c[6])) for c in cells] == list(zip(row["token_starts"], row["token_ends"]))


def test_every_reader_of_our_tsv_reads_the_comment_lines(corpus, tmp_path):
    # train and split read the build's TSV parts; the split keeps article, text and offsets.
    model = tmp_path / "m.crf"
    trained = wikisilver("train", "--corpus", str(corpus / "tsv"), "--model", str(model), "--max-iterations", "3")
    stats = json.loads((corpus / "stats.json").read_text())
    assert f"on {stats['sentences_kept']} sentences" in trained.stdout
    wikisilver("split", "--corpus", str(corpus / "tsv"), "--out", str(tmp_path / "split"), "--test-fraction", "0.3")
    halves = [(tmp_path / "split" / f"{side}.tsv").read_text(encoding="utf-8") for side in ("train", "test")]
    original = {b for part in sorted((corpus / "tsv").glob("*.tsv"))
                for b in part.read_text(encoding="utf-8").split("\n\n") if b.strip()}
    written = {b for half in halves for b in half.split("\n\n") if b.strip()}
    assert written == original  # the same sentence blocks, comment lines and offsets included


def test_jsonl_entities_slice_the_real_text(corpus, tmp_path):
    out = tmp_path / "c.jsonl"
    wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(out))
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    texts = {r["id"]: r["text"] for r in parquet_rows(corpus)}
    assert records and all(r["text"] == texts[r["id"]] for r in records)
    entities = 0
    for record in records:
        tokens = record["tokens"]
        assert all(record["text"][t["start"]:t["end"]] == t["text"] for t in tokens)
        for entity in record["entities"]:
            surface = record["text"][entity["start"]:entity["end"]]
            assert surface and not surface[0].isspace() and not surface[-1].isspace()
            assert entity["start"] in {t["start"] for t in tokens} and entity["end"] in {t["end"] for t in tokens}
            entities += 1
    assert entities > 0
    europe = next(r for r in records if r["text"].startswith("The Danube is"))
    assert [europe["text"][e["start"]:e["end"]] for e in europe["entities"]] == ["Danube", "Europe", "Volga"]


def test_conllu_text_is_the_real_text_with_space_after_no(corpus, tmp_path):
    out = tmp_path / "c.conllu"
    wikisilver("export", str(corpus), "--format", "conllup", "--out", str(out))
    sentences = [b for b in out.read_text(encoding="utf-8").split("\n\n") if "# text = " in b]
    assert len(sentences) == len(parquet_rows(corpus))
    for block in sentences:
        text = next(line for line in block.split("\n") if line.startswith("# text = "))[len("# text = "):]
        rows = [line.split("\t") for line in block.split("\n") if line and not line.startswith("#")]
        # Rebuilding the text from FORM and SpaceAfter=No gives the # text line back (CoNLL-U's rule).
        rebuilt = "".join(r[1] + ("" if r[9] == "SpaceAfter=No" else " ") for r in rows).rstrip(" ")
        assert rebuilt == text
    assert "Europe\tEurope\tPROPN\t_\t_\t_\t_\t_\tSpaceAfter=No\tB-LOC" in out.read_text(encoding="utf-8")


def test_spacy_export_is_one_doc_per_article_with_lemma_and_pos(corpus, tmp_path):
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    out = tmp_path / "c.spacy"
    wikisilver("export", str(corpus), "--format", "spacy", "--out", str(out))
    docs = list(DocBin().from_disk(out).get_docs(spacy.blank("en").vocab))
    rows = parquet_rows(corpus)
    assert len(docs) == len({r["page_id"] for r in rows})
    assert sum(len(list(d.sents)) for d in docs) == len(rows)
    danube = next(d for d in docs if d.user_data["title"] == "Danube")
    first = next(iter(danube.sents))
    assert first.text == "The Danube is the second-longest river in Europe, after the Volga."
    assert [(t.lemma_, t.pos_) for t in first[:3]] == [("the", "DET"), ("Danube", "PROPN"), ("be", "AUX")]
    assert [(e.text, e.label_) for e in first.ents] == [("Danube", "LOC"), ("Europe", "LOC"), ("Volga", "LOC")]


def test_dataset_card_is_written_with_every_corpus(corpus):
    card = (corpus / "README.md").read_text(encoding="utf-8")
    stats = json.loads((corpus / "stats.json").read_text())
    assert card.startswith("---\nlicense: cc-by-sa-4.0\n")
    assert "demowiki-pages-articles.xml.bz2" in card and "enwiki" in card  # the source dump
    assert "CC BY-SA 4.0" in card and "Attribution" in card
    assert f"| sentences | {stats['sentences_kept']:,} " in card and f"| tokens | {stats['tokens_kept']:,} |" in card
    for column in ("id", "text", "token_starts", "token_ends", "ner_tags", "conll_tags", "spans"):
        assert f"| `{column}` |" in card
    assert "'1': B-PER" in card  # the label names of ner_tags, as the Hub reads them


def test_huggingface_loads_the_corpus_directory_by_its_card(corpus, tmp_path):
    pytest.importorskip("datasets")
    code = ("import datasets, sys; ds = datasets.load_dataset(sys.argv[1], split='train', cache_dir=sys.argv[2]); "
            "print(ds.num_rows, ds.features['ner_tags'].feature.names[1], ds[0]['id'])")
    env = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", code, str(corpus), str(tmp_path / "cache")], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    rows = parquet_rows(corpus)
    assert done.stdout.split()[:2] == [str(len(rows)), "B-PER"]
