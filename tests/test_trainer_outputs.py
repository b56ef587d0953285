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


def test_split_writes_train_dev_test_in_every_format(corpus, tmp_path):
    rows = parquet_rows(corpus)
    seen = {}
    for fmt, ext in (("tsv", "tsv"), ("conll2003", "conll"), ("conllup", "conllup"), ("jsonl", "jsonl"),
                     ("spacy", "spacy"), ("parquet", "parquet")):
        out = tmp_path / fmt
        done = wikisilver("split", "--corpus", str(corpus), "--out", str(out), "--out-format", fmt,
                          "--test-fraction", "0.2", "--dev-fraction", "0.2")
        assert sorted(p.name for p in out.iterdir()) == sorted(f"{side}.{ext}" for side in ("train", "dev", "test"))
        seen[fmt] = [line.split("->")[0] for line in done.stdout.splitlines()]
    assert len({tuple(lines) for lines in seen.values()}) == 1  # the same articles on each side
    sides = {side: pq.read_table(tmp_path / "parquet" / f"{side}.parquet").to_pylist() for side in ("train", "dev", "test")}
    assert sum(len(s) for s in sides.values()) == len(rows)
    pages = [{r["page_id"] for r in s} for s in sides.values()]
    assert all(pages) and not (pages[0] & pages[1] or pages[0] & pages[2] or pages[1] & pages[2])
    kept = {r["id"]: r for r in rows}
    assert all(r["text"] == kept[r["id"]]["text"] and r["spans"] == kept[r["id"]]["spans"] for s in sides.values() for r in s)
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    docs = list(DocBin().from_disk(tmp_path / "spacy" / "dev.spacy").get_docs(spacy.blank("en").vocab))
    assert {d.user_data["page_id"] for d in docs} == pages[1]


def test_tag_runs_a_model_over_text_jsonl_and_conll(corpus, tmp_path):
    model = tmp_path / "m.crf"
    wikisilver("train", "--corpus", str(corpus), "--model", str(model), "--max-iterations", "30")
    text = tmp_path / "in.txt"
    text.write_text("The Danube flows through Vienna and Budapest.\nIt reaches the Black Sea.\n", encoding="utf-8")
    done = wikisilver("tag", str(text), "--model", str(model), "--out", str(tmp_path / "out.jsonl"), "--lang", "en")
    assert "tagged 2 sentences" in done.stdout
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in records] == ["The Danube flows through Vienna and Budapest.", "It reaches the Black Sea."]
    surfaces = [r["text"][e["start"]:e["end"]] for r in records for e in r["entities"]]
    assert "Vienna" in surfaces and "Budapest" in surfaces
    # Its own JSONL output tags back to the same; CoNLL in gives CoNLL out, the tokens kept.
    wikisilver("tag", str(tmp_path / "out.jsonl"), "--model", str(model), "--out", str(tmp_path / "again.jsonl"))
    assert (tmp_path / "again.jsonl").read_text() == (tmp_path / "out.jsonl").read_text()
    wikisilver("export", str(corpus), "--format", "conll2003", "--out", str(tmp_path / "c.conll"))
    wikisilver("tag", str(tmp_path / "c.conll"), "--model", str(model), "--out", str(tmp_path / "t.conll"))
    tokens = [line.split()[0] for line in (tmp_path / "t.conll").read_text().splitlines() if line and "DOCSTART" not in line]
    assert tokens == [t for r in parquet_rows(corpus) for t in r["tokens"]]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{oops\n', encoding="utf-8")
    failed = wikisilver("tag", str(bad), "--model", str(model), "--out", str(tmp_path / "x.jsonl"), check=False)
    assert failed.returncode == 2 and failed.stderr.strip().endswith("bad.jsonl:line 2: invalid JSON (Expecting property name enclosed in double quotes)")
    assert not (tmp_path / "x.jsonl").exists()


def test_max_pages_is_a_trial_run_whose_counts_add_up(tmp_path):
    out = tmp_path / "trial"
    done = wikisilver("build", "--demo", "--max-pages", "5", "--out", str(out))
    stats = json.loads((out / "stats.json").read_text())
    assert stats["pages_read"] == 5 and stats["max_pages"] == 5 and stats["pages_accounted"] is True
    assert "after the first 5 pages (--max-pages)" in done.stdout
    assert "trial run" in (out / "README.md").read_text()
    failed = wikisilver("build", "--demo", "--max-pages", "0", "--out", str(tmp_path / "no"), check=False)
    assert failed.returncode == 2 and "--max-pages must be at least 1" in failed.stderr
    assert not (tmp_path / "no").exists()


def test_show_lists_the_articles_and_picks_one_at_random(corpus):
    listed = wikisilver("show", str(corpus), "--list")
    rows = parquet_rows(corpus)
    titles = sorted({r["title"] for r in rows})
    assert [line.split(None, 1)[1] for line in listed.stdout.splitlines()] == titles
    assert sum(int(line.split()[0]) for line in listed.stdout.splitlines()) == len(rows)
    picked = {wikisilver("show", str(corpus), "--random", "--seed", str(seed)).stdout.splitlines()[0].split(" (page")[0]
              for seed in range(6)}
    assert picked <= set(titles) and len(picked) > 1
    neither = wikisilver("show", str(corpus), check=False)
    assert neither.returncode == 2 and "one of the arguments --title --list --random is required" in neither.stderr


def test_report_compares_with_english_gold_too(corpus, tmp_path):
    wikisilver("report", str(corpus), "--out", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Entity mentions per token, next to English gold" in page
    assert "Tjong Kim Sang &amp; De Meulder (2003), Table 2" in page
    from wikisilver.report.plots import GOLD_MENTION_DENSITY

    assert GOLD_MENTION_DENSITY["CoNLL-2003 train (en, gold)"] == round(23_499 / 203_621, 4)
