"""``wikisilver tag`` as a pipeline tool: standard input (its format told from its first lines) and
standard output, and a CoNLL file written back line for line with only its NER cells changed (CoNLL-U
``# doc_title``, ``# sent_id``, ``# text``, ``SpaceAfter=No``, every column; CoNLL-2003 POS and
chunk), run as a user runs it on real and realistic files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import shared_file
from tool_support import TRAINING_CONLL, one_error_line, train_model, wikisilver
from wikisilver.ner.tagging import sniff_format

TAGS = re.compile(r"O|[BI]-(PER|LOC|ORG|MISC)")

# Realistic CoNLL-U: a document title, sentence ids, text, SpaceAfter=No, a multiword token, syntax.
CONLLU = """# newdoc id = doc-1
# doc_title = Berlin
# sent_id = doc-1-s1
# text = John lives in Berlin, doesn't he?
1\tJohn\tJohn\tPROPN\tNNP\tNumber=Sing\t2\tnsubj\t2:nsubj\t_
2\tlives\tlive\tVERB\tVBZ\tMood=Ind\t0\troot\t0:root\t_
3\tin\tin\tADP\tIN\t_\t4\tcase\t4:case\t_
4\tBerlin\tBerlin\tPROPN\tNNP\tNumber=Sing\t2\tobl\t2:obl:in\tSpaceAfter=No
5\t,\t,\tPUNCT\t,\t_\t2\tpunct\t2:punct\t_
6-7\tdoesn't\t_\t_\t_\t_\t_\t_\t_\t_
6\tdoes\tdo\tAUX\tVBZ\t_\t2\tparataxis\t2:parataxis\t_
7\tn't\tnot\tPART\tRB\t_\t6\tadvmod\t6:advmod\t_
8\the\the\tPRON\tPRP\t_\t6\tnsubj\t6:nsubj\tSpaceAfter=No
9\t?\t?\tPUNCT\t.\t_\t2\tpunct\t2:punct\t_

# sent_id = doc-1-s2
# text = Mary works at Google.
1\tMary\tMary\tPROPN\tNNP\t_\t2\tnsubj\t2:nsubj\t_
2\tworks\twork\tVERB\tVBZ\t_\t0\troot\t0:root\t_
3\tat\tat\tADP\tIN\t_\t4\tcase\t4:case\t_
4\tGoogle\tGoogle\tPROPN\tNNP\t_\t2\tobl\t2:obl\tSpaceAfter=No
5\t.\t.\tPUNCT\t.\t_\t2\tpunct\t2:punct\t_

"""


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return train_model(tmp_path_factory.mktemp("model"))


def test_conllu_round_trip_keeps_every_line_and_adds_the_ner_column(model, tmp_path):
    source = tmp_path / "in.conllu"
    source.write_text(CONLLU, encoding="utf-8")
    out = tmp_path / "out.conllup"
    done = wikisilver("tag", str(source), "--model", str(model), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("tagged 2 sentences (14 tokens, ")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC WIKISILVER:NER"
    kept = lines[1:]
    assert len(kept) == len(CONLLU.splitlines())
    for before, after in zip(CONLLU.splitlines(), kept):
        if "\t" not in before:  # comments and blank lines as they were
            assert after == before
            continue
        cells = after.split("\t")
        assert "\t".join(cells[:-1]) == before  # every column as it was, the tag after them
        assert (cells[-1] == "_") if "-" in cells[0] else TAGS.fullmatch(cells[-1]), after
    assert [l for l in kept if l.startswith("#")] == [l for l in CONLLU.splitlines() if l.startswith("#")]


def test_conllu_to_jsonl_keeps_title_text_and_offsets(model, tmp_path):
    source = tmp_path / "in.conllu"
    source.write_text(CONLLU, encoding="utf-8")
    done = wikisilver("tag", str(source), "--model", str(model), "--out", "-", "--out-format", "jsonl")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["text"] for r in records] == ["John lives in Berlin, doesn't he?", "Mary works at Google."]
    assert {r["title"] for r in records} == {"Berlin"}
    for record in records:
        assert [record["text"][t["start"]:t["end"]] for t in record["tokens"]] == [t["text"] for t in record["tokens"]]


def test_nerkor_round_trip_changes_only_its_ner_column(model, tmp_path):
    source = next(iter(sorted(shared_file("gold/nerkor/devel/wikipedia").glob("*.conllup"))))
    out = tmp_path / "out.conllup"
    done = wikisilver("tag", str(source), "--model", str(model), "--out", str(out))
    assert done.returncode == 0, done.stderr
    before = source.read_text(encoding="utf-8").splitlines()
    after = out.read_text(encoding="utf-8").splitlines()
    ner = before[0].split("=", 1)[1].split().index("CONLL:NER")
    assert after[0] == before[0] and len(after) >= len(before)
    rows = 0
    for old, new in zip(before, after):
        if "\t" in old:
            old_cells, new_cells = old.split("\t"), new.split("\t")
            assert old_cells[:ner] + old_cells[ner + 1:] == new_cells[:ner] + new_cells[ner + 1:]
            assert TAGS.fullmatch(new_cells[ner]), new
            rows += 1
        else:
            assert old == new
    assert rows > 500  # the file is real: hundreds of tokens


def test_ud_treebank_round_trip_keeps_multiword_tokens_and_syntax(model, tmp_path):
    treebank = shared_file("gold/ud_english_ewt/en_ewt-ud-test.conllu")
    head = treebank.read_text(encoding="utf-8").split("\n\n")[:40]
    source = tmp_path / "ewt.conllu"
    source.write_text("\n\n".join(head) + "\n\n", encoding="utf-8")
    done = wikisilver("tag", "-", "--model", str(model), "--out", "-", stdin=source.read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("tagged 40 sentences") and "conllup" in done.stderr
    lines = done.stdout.splitlines()
    assert [line.rsplit("\t", 1)[0] if "\t" in line else line for line in lines[1:]] == \
        source.read_text(encoding="utf-8").splitlines()
    assert any(line.split("\t")[0].count("-") for line in lines[1:] if "\t" in line)  # a multiword row kept


def test_conll2003_keeps_pos_chunk_and_docstart(model, tmp_path):
    source = tmp_path / "in.conll"
    source.write_text(TRAINING_CONLL, encoding="utf-8")
    out = tmp_path / "out.conll"
    done = wikisilver("tag", str(source), "--model", str(model), "--out", str(out))
    assert done.returncode == 0, done.stderr
    before = TRAINING_CONLL.rstrip("\n").splitlines()
    after = out.read_text(encoding="utf-8").rstrip("\n").splitlines()  # a blank line ends every sentence
    assert len(after) == len(before) and after[0] == "-DOCSTART- -X- -X- O"
    for old, new in zip(before, after):
        assert old.split()[:-1] == new.split()[:-1]  # token, POS, chunk as they were
        if new and not new.startswith("-DOCSTART-"):
            assert TAGS.fullmatch(new.split()[-1])


def test_tag_reads_standard_input_and_writes_standard_output(model, tmp_path):
    done = wikisilver("tag", "-", "--model", str(model), "--lang", "en", "--out", "-", cwd=tmp_path,
                      stdin="John lives in Paris. Mary works at Google.\n")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["text"] for r in records] == ["John lives in Paris.", "Mary works at Google."]
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("tagged 2 sentences (10 tokens, ")
    assert done.stderr.rstrip().endswith("-> standard output (jsonl)")
    assert list(tmp_path.iterdir()) == []  # nothing named "-" anywhere


INPUTS = [
    ("in.conllu", "conllu", CONLLU),
    ("in.conll", "conll2003", TRAINING_CONLL),
    ("in.conll", "conll2003", TRAINING_CONLL.split("\n", 2)[2]),  # without -DOCSTART-
    ("in.jsonl", "jsonl", '{"text": "John lives in Paris."}\n{"tokens": ["Mary", "works", "at", "Google"]}\n'),
    ("in.txt", "text", '<doc id="12" url="https://x" title="Anarchism">\nJohn lives in Paris.\n</doc>\n'),
]


@pytest.mark.parametrize("name, fmt, text", INPUTS)
def test_standard_input_is_sniffed_as_its_format(name, fmt, text):
    assert sniff_format(text.encode("utf-8")) == fmt


# Two processes per format: the first format in the developer loop, every format in the full run.
@pytest.mark.parametrize("name, fmt, text", INPUTS[:1] + [pytest.param(*i, marks=pytest.mark.slow) for i in INPUTS[1:]])
def test_standard_input_is_tagged_as_the_same_file_is(model, tmp_path, name, fmt, text):
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    from_file = wikisilver("tag", str(source), "--model", str(model), "--out", "-")
    from_stdin = wikisilver("tag", "-", "--model", str(model), "--out", "-", stdin=text)
    assert from_file.returncode == 0 and from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout.replace("<stdin>", "in") == from_file.stdout.replace(name, "in")


def test_our_tsv_is_told_from_its_first_lines(tmp_path):
    from tool_support import write_corpus

    corpus = write_corpus(tmp_path / "corpus")
    tsv = next((corpus / "tsv").glob("*.tsv")).read_bytes()
    assert sniff_format(tsv) == "tsv"
    assert sniff_format(b"PAR1\x15\x04") == "parquet"
    assert sniff_format(b"# A heading\nBig O\nThe rest is prose, with many words in it.\n") == "text"
    assert sniff_format(b"") == "text"


def test_parquet_cannot_come_from_standard_input(model):
    line = one_error_line(wikisilver("tag", "-", "--model", str(model), "--out", "-", stdin="PAR1 not really"))
    assert line == "wikisilver tag: error: <stdin>: Parquet cannot be read from standard input; name the file"


def test_nothing_to_tag_leaves_no_file(model, tmp_path):
    out = tmp_path / "out.jsonl"
    line = one_error_line(wikisilver("tag", "-", "--format", "text", "--model", str(model), "--out", str(out),
                                     stdin="\n\n"))
    assert line == "wikisilver tag: error: <stdin>: no sentences to tag"
    assert list(tmp_path.iterdir()) == []
