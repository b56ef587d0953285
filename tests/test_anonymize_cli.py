"""``wikisilver anonymize`` as a user runs it: a real NerKor news article (CoNLL-U Plus) and Hungarian
plain text, a model trained on NerKor train, NerKor train files as the corpus; every method, every
format, stdin and stdout, the mapping file, and bad paths in one line."""

from __future__ import annotations

import io
import json

import pytest
from conftest import shared_file

from wikisilver.cli import main
from wikisilver.corpus.inputs import read_corpus
from wikisilver.ner.crf import train

ARTICLE = "gold/nerkor/devel/news/globv_17.conllup"
CORPUS = ("gold/nerkor/train/news/globalvoices_12.conllup", "gold/nerkor/train/news/globalvoices_13.conllup",
          "gold/nerkor/train/news/globalvoices_14.conllup", "gold/nerkor/train/news/globalvoices_15.conllup")
TEXT = """Fang Licsi kínai értelmiségi 2012-ben hunyt el az Egyesült Államokban.
Fang az elmúlt 22 évben száműzetésben élt,  és Fangot a Kínai Kommunista Párt elfelejtettnek nyilvánította.

1989-ben Fang a pekingi nagykövetségen kért menedéket, majd Teng Hsziao-ping ellen is felszólalt.
"""


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> str:
    sentences = [s for name in ("globalvoices_2", "globalvoices_4", "globalvoices_5", "globalvoices_6", "newscrawl_2")
                 for s in read_corpus(str(shared_file(f"gold/nerkor/train/news/{name}.conllup")))]
    path = str(tmp_path_factory.mktemp("model") / "hu.crf")
    train(sentences, path, max_iterations=40)
    return path


def anonymize(*args: str, model: str | None = None, corpus: bool = True) -> int:
    argv = ["anonymize", *args, "--lang", "hu"]
    if model:
        argv += ["--model", model]
    if corpus:
        for path in CORPUS:
            argv += ["--corpus", str(shared_file(path))]
    return main(argv)


def names(sentences, kind: str | None = None) -> list[str]:
    return [t for s in sentences for t, tag in zip(s.tokens, s.tags) if tag != "O" and (kind is None or tag.endswith(kind))]


@pytest.mark.parametrize("method", ["suppress", "tag", "substitute", "generalize"])
def test_each_method_on_a_real_article(method, model, tmp_path, capsys):
    out, mapping = tmp_path / "out.conllup", tmp_path / "map.jsonl"
    assert anonymize(str(shared_file(ARTICLE)), "--method", method, "--out", str(out), "--keep-mapping", str(mapping),
                     model=model) == 0
    assert "anonymized 1 documents, 12 sentences" in capsys.readouterr().out
    gold = list(read_corpus(str(shared_file(ARTICLE))))
    done = list(read_corpus(str(out)))
    assert len(done) == len(gold)
    tokens = [t for s in done for t in s.tokens]
    assert tokens.count("Fang") + tokens.count("Fangot") <= 2  # of 14 mentions
    records = [json.loads(line) for line in mapping.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 1 and records[0]["method"] == method
    replaced = records[0]["replacements"]
    assert len(replaced) >= 10 and all(r["original"] != r["replacement"] for r in replaced)
    text = out.read_text(encoding="utf-8")
    assert all(r["replacement"].split()[0] in text for r in replaced)
    # The lemma column and the "# text" lines give back no name the tokens do not.
    lemmas = [line.split("\t")[2] for line in text.splitlines() if line and not line.startswith("#")]
    in_clear = sum(t.startswith("Fang") for t in tokens)
    assert lemmas.count("Fang") == in_clear
    assert sum(line.count("Fang") for line in text.splitlines() if line.startswith("# text")) == in_clear
    persons = {r["replacement"] for r in replaced if r["original"] == "Fang"}
    assert len(persons) == 1  # every "Fang" the same
    if method == "tag":
        assert persons == {r["replacement"] for r in replaced if r["original"] == "Fang Licsi"}


def test_plain_text_keeps_its_lines_and_all_but_the_names(model, tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "out.txt"
    assert anonymize(str(source), "--method", "substitute", "--seed", "3", "--out", str(out), model=model) == 0
    lines = out.read_text(encoding="utf-8").split("\n")
    assert len(lines) == len(TEXT.split("\n")) and lines[2] == ""
    assert "élt,  és" in lines[1] and lines[1].endswith("elfelejtettnek nyilvánította.")  # spacing kept
    assert "Fang" not in "".join(lines)
    surname = lines[0].split()[0]
    assert lines[1].startswith(f"{surname} az elmúlt")  # the partial mention follows "Fang Licsi"
    again = tmp_path / "again.txt"
    assert anonymize(str(source), "--method", "substitute", "--seed", "3", "--out", str(again), model=model) == 0
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def test_jsonl_in_jsonl_out_with_offsets(model, tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"text": line}, ensure_ascii=False) + "\n" for line in TEXT.splitlines() if line),
                      encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert anonymize(str(source), "--method", "tag", "--out", str(out), model=model) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3
    for record in records:
        assert [record["text"][t["start"]:t["end"]] for t in record["tokens"]] == [t["text"] for t in record["tokens"]]
        assert all(record["text"][e["start"]:e["end"]].startswith("[") for e in record["entities"])
    assert records[0]["text"].startswith("[PER-1] kínai értelmiségi")


def test_stdin_to_stdout(model, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(TEXT.encode("utf-8")), encoding="utf-8"))
    assert anonymize("-", "--method", "suppress", "--out", "-", model=model) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("[MASK] kínai értelmiségi 2012-ben hunyt el")
    assert "Fang" not in captured.out and "anonymized 1 documents" in captured.err


def test_bad_model_or_input_is_one_line_and_exit_2(model, tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "out.txt"
    assert anonymize(str(source), "--method", "tag", "--out", str(out), model=str(tmp_path / "nope.crf"), corpus=False) == 2
    assert capsys.readouterr().err.strip().splitlines() == [f"wikisilver anonymize: error: {tmp_path / 'nope.crf'}: no such model file"]
    assert anonymize(str(source), "--method", "tag", "--out", str(out), model=str(source), corpus=False) == 2
    assert "not a CRFsuite model" in capsys.readouterr().err
    assert anonymize(str(tmp_path / "missing.txt"), "--method", "tag", "--out", str(out), model=model, corpus=False) == 2
    assert capsys.readouterr().err.strip() == f"wikisilver anonymize: error: {tmp_path / 'missing.txt'}: no such input file"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "Fang Licsi meghalt."}\n{oops\n', encoding="utf-8")
    mapping = tmp_path / "map.jsonl"
    assert anonymize(str(bad), "--method", "tag", "--out", str(out), "--keep-mapping", str(mapping), model=model, corpus=False) == 2
    assert capsys.readouterr().err.strip().endswith("bad.jsonl:line 2: invalid JSON (Expecting property name enclosed in double quotes)")
    assert not out.exists() and not mapping.exists()  # nothing half written
    assert anonymize(str(source), "--method", "tag", "--out", str(source), model=model, corpus=False) == 2
    assert "is the input" in capsys.readouterr().err and source.read_text(encoding="utf-8") == TEXT
    assert anonymize(str(source), "--method", "substitute", "--out", str(out), model=model, corpus=False) == 2
    assert "--method substitute needs --corpus" in capsys.readouterr().err


ENGLISH = "Ferenc Puskás left Budapest in 1956 and signed for Real Madrid.\nPuskás later coached in Vienna, on the Danube.\n"


@pytest.mark.slow
@pytest.mark.parametrize("method, expected", [
    ("suppress", "[MASK] left [MASK] in 1956 and signed for [MASK]."),
    ("tag", "[PER-1] left [LOC-1] in 1956 and signed for [ORG-1]."),
    ("generalize", " left a city in 1956 and signed for a soccer club."),
])
def test_english_text_by_each_method_with_the_demo_corpus(method, expected, demo_corpus, tmp_path, capsys):
    model = tmp_path / "en.crf"
    assert main(["-q", "train", "--corpus", str(demo_corpus), "--model", str(model), "--max-iterations", "30"]) == 0
    source = tmp_path / "in.txt"
    source.write_text(ENGLISH, encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["anonymize", str(source), "--model", str(model), "--method", method, "--out", str(out), "--lang", "en",
                 "--corpus", str(demo_corpus), "--min-members", "1",
                 "--ontology", str(shared_file("dbpedia/ontology/dbo-snapshots.owl"))]) == 0
    first, second = out.read_text(encoding="utf-8").splitlines()
    assert expected in first and "Puskás" not in first + second and "Budapest" not in first
    if method == "tag":
        assert second.startswith("[PER-1] later coached in [LOC-")
    if method == "generalize":  # the person is substituted, "Puskás" after "Ferenc Puskás" follows him
        assert second.startswith(f"{first.split(' left ')[0].split()[-1]} later coached in a city")
