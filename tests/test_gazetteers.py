"""Per-type entity lists exported from the corpus, and their use as gazetteers."""

from __future__ import annotations

import pytest

from wikisilver import cli
from wikisilver.corpus.gazetteers import count_surfaces, load_gazetteer, write_gazetteer
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.errors import InputError

SENTENCES = [
    TaggedSentence(("Kis", "Pál", "Budapesten", "élt"), ("B-PER", "I-PER", "B-LOC", "O"), "1"),
    TaggedSentence(("Budapesten", "és", "Szegeden"), ("B-LOC", "O", "B-LOC"), "2"),
    TaggedSentence(("A", "Magyar", "Tudományos", "Akadémia"), ("O", "B-ORG", "I-ORG", "I-ORG"), "3"),
]


def test_counts_surfaces_per_type():
    counts = count_surfaces(SENTENCES)
    assert counts[("LOC", "Budapesten")] == 2
    assert counts[("PER", "Kis Pál")] == 1
    assert counts[("ORG", "Magyar Tudományos Akadémia")] == 1


def test_written_sorted_and_loaded_back(tmp_path):
    path = tmp_path / "gaz.tsv"
    assert write_gazetteer(str(path), count_surfaces(SENTENCES)) == 4
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()
            if not line.startswith("#")]
    # By type, then by falling count.
    assert rows == [
        ["LOC", "Budapesten", "2"], ["LOC", "Szegeden", "1"],
        ["ORG", "Magyar Tudományos Akadémia", "1"], ["PER", "Kis Pál", "1"],
    ]
    gazetteer = load_gazetteer(str(path))
    assert gazetteer.matches(["Kis", "Pál"]) == [(0, 2, "PER")]
    assert gazetteer.max_length == 3
    assert gazetteer.matches(["a", "Magyar", "Tudományos", "Akadémia", "Szegeden"]) == [
        (1, 4, "ORG"), (4, 5, "LOC"),
    ]
    assert list(load_gazetteer(str(path), min_count=2).entries) == [("Budapesten",)]


def test_min_count_when_writing(tmp_path):
    path = tmp_path / "gaz.tsv"
    assert write_gazetteer(str(path), count_surfaces(SENTENCES), min_count=2) == 1


def test_malformed_gazetteer_names_line(tmp_path):
    path = tmp_path / "gaz.tsv"
    path.write_text("# header\nLOC\tBudapest\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"gaz.tsv:line 2: expected type"):
        load_gazetteer(str(path))


def test_cli_gazetteers_and_training_with_them(tmp_path, capsys):
    corpus = tmp_path / "part-00000-of-00001.tsv"
    corpus.write_text(
        "# page_id=1 title=X sentence=0 low_quality=0\n"
        "Kis\tKis\tPROPN\tB-Person\tB-PER\nPál\tPál\tPROPN\tI-Person\tI-PER\n"
        "Szegeden\tSzeged\tPROPN\tB-City\tB-LOC\nélt\tél\tVERB\tO\tO\n\n"
        "# page_id=2 title=Y sentence=0 low_quality=0\n"
        "Szegeden\tSzeged\tPROPN\tB-City\tB-LOC\nélt\tél\tVERB\tO\tO\n\n",
        encoding="utf-8",
    )
    out = tmp_path / "gaz.tsv"
    assert cli.main(["gazetteers", "--corpus", str(corpus), "--out", str(out), "--min-count", "2"]) == 0
    assert "wrote 1 entries" in capsys.readouterr().out
    assert load_gazetteer(str(out)).entries == {("Szegeden",): {"LOC"}}
    fine = tmp_path / "fine.tsv"
    assert cli.main(["gazetteers", "--corpus", str(corpus), "--out", str(fine), "--tagset", "dbpedia"]) == 0
    assert load_gazetteer(str(fine)).matches(["Kis", "Pál"]) == [(0, 2, "Person")]
    model = tmp_path / "m.crfsuite"
    assert cli.main(["train", "--corpus", str(corpus), "--model", str(model), "--gazetteer", str(out),
                     "--max-iterations", "5"]) == 0
    from wikisilver.ner.crf import Tagger

    assert Tagger(str(model)).gazetteer is not None
