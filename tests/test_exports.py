"""wikisilver export: every format round-trips (tokens and entity spans survive being read back)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from wikisilver.cli import main
from wikisilver.corpus.export import Mention, export_corpus, jsonl_record, tags_in_scheme
from wikisilver.corpus.gold import read_conll2003, read_conllu
from wikisilver.corpus.read import read_corpus_json, read_sentences
from wikisilver.corpus.tags import iob_to_spans
from wikisilver.corpus.write import sentences_to_table, write_part
from wikisilver.errors import InputError
from wikisilver.records import EntitySpan, LabelledSentence


def sentence(page_id: int, title: str, index: int, words: str, conll: str, dbpedia: str,
             spans: tuple[EntitySpan, ...] = (), low_quality: bool = False) -> LabelledSentence:
    tokens = tuple(words.split())
    return LabelledSentence(
        page_id=page_id, title=title, index=index, tokens=tokens,
        lemmas=tuple(t.lower() for t in tokens),
        pos=tuple("PUNCT" if t in ".," else "PROPN" if t[0].isupper() else "X" for t in tokens),
        dbpedia_tags=tuple(dbpedia.split()), conll_tags=tuple(conll.split()), spans=spans,
        low_quality=low_quality, quality_reasons=("no_final_punctuation",) if low_quality else (),
    )


BUDAPEST = (
    sentence(10, "Budapest", 0, "Budapest is the capital of Hungary .",
             "B-LOC O O O O B-LOC O", "B-City O O O O B-Country O",
             (EntitySpan(0, 1, "LOC", "City", "Budapest"),
              EntitySpan(5, 6, "LOC", "Country", "Hungary"))),
    # Two person mentions side by side: IOB1 has to mark the second one with B-.
    sentence(10, "Budapest", 2, "Ferenc Puskás Gyula Grosics played in Budapest .",
             "B-PER I-PER B-PER I-PER O O B-LOC O",
             "B-SoccerPlayer I-SoccerPlayer B-SoccerPlayer I-SoccerPlayer O O B-City O",
             (EntitySpan(0, 2, "PER", "SoccerPlayer", "Puskás Ferenc"),
              EntitySpan(2, 4, "PER", "SoccerPlayer", "Grosics Gyula"),
              EntitySpan(6, 7, "LOC", "City", "Budapest", "alias_match"))),
    sentence(10, "Budapest", 3, "Duna Plaza", "B-ORG I-ORG", "B-ShoppingMall I-ShoppingMall",
             (EntitySpan(0, 2, "ORG", "ShoppingMall", "Duna Plaza"),), low_quality=True),
)
KOSSUTH = (
    # A derived word carries B-MISC in both layers and no link target.
    sentence(20, "Kossuth Lajos", 0, "Kossuth was a Hungarian statesman from Monok .",
             "B-PER O O B-MISC O O B-LOC O", "B-Person O O B-MISC O O B-Village O",
             (EntitySpan(0, 1, "PER", "Person", "Kossuth Lajos", "alias_person_name_part"),
              EntitySpan(6, 7, "LOC", "Village", "Monok"))),
)
ALL = BUDAPEST + KOSSUTH


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    """A build output directory with two part files (one article each)."""
    out = tmp_path / "out"
    (out / "parquet").mkdir(parents=True)
    (out / "tsv").mkdir()
    for n, part in enumerate((BUDAPEST, KOSSUTH)):
        name = f"part-{n:05d}-of-00002"
        write_part(part, out / "tsv" / f"{name}.tsv", out / "parquet" / f"{name}.parquet")
    return out


def spans_of(s: LabelledSentence, tagset: str = "conll") -> list[tuple[int, int, str]]:
    return iob_to_spans(s.conll_tags if tagset == "conll" else s.dbpedia_tags)


def test_reads_back_what_build_wrote(corpus):
    assert list(read_sentences(corpus)) == list(ALL)
    assert [s.index for s in read_sentences(corpus, exclude_low_quality=True)] == [0, 2, 0]


def test_conll2003_iob2_round_trips(corpus, tmp_path):
    out = tmp_path / "corpus.conll"
    report = export_corpus(corpus, out, "conll2003")
    assert (report.articles, report.sentences, report.tokens, report.mentions) == (2, 4, 25, 9)
    text = out.read_text(encoding="utf-8")
    assert text.startswith("-DOCSTART- -X- -X- O\n\nBudapest PROPN _ B-LOC\nis X _ O\n")
    assert text.count("-DOCSTART- -X- -X- O") == 2
    back = list(read_conll2003(str(out)))
    assert [b.tokens for b in back] == [s.tokens for s in ALL]
    assert [iob_to_spans(b.tags) for b in back] == [spans_of(s) for s in ALL]
    # One document per article.
    assert len({b.doc_id for b in back}) == 2


def test_conll2003_iob1_marks_only_adjacent_mentions_with_b(corpus, tmp_path):
    out = tmp_path / "corpus.iob1"
    export_corpus(corpus, out, "conll2003", scheme="iob1")
    blocks = [block for block in out.read_text().split("\n\n") if block and "DOCSTART" not in block]
    second = [line.split()[-1] for line in blocks[1].splitlines()]
    assert second == ["I-PER", "I-PER", "B-PER", "I-PER", "O", "O", "I-LOC", "O"]
    back = list(read_conll2003(str(out)))
    assert [iob_to_spans(b.tags) for b in back] == [spans_of(s) for s in ALL]


def test_tags_in_scheme_iob1_differs_from_iob2_only_at_starts():
    found = [Mention(0, 1, "LOC", None), Mention(1, 3, "LOC", None), Mention(4, 5, "ORG", None)]
    assert tags_in_scheme(5, found, "iob2") == ["B-LOC", "B-LOC", "I-LOC", "O", "B-ORG"]
    assert tags_in_scheme(5, found, "iob1") == ["I-LOC", "B-LOC", "I-LOC", "O", "I-ORG"]


def test_conllup_round_trips_with_lemmas_and_pos(corpus, tmp_path):
    out = tmp_path / "corpus.conllup"
    export_corpus(corpus, out, "conllup", exclude_low_quality=True)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == ("# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC "
                        "WIKISILVER:NER")
    assert "# sent_id = 10-2" in lines
    assert "# text = Budapest is the capital of Hungary ." in lines
    assert "1\tBudapest\tbudapest\tPROPN\t_\t_\t_\t_\t_\t_\tB-LOC" in lines
    kept = [s for s in ALL if not s.low_quality]
    back = list(read_conllu(str(out)))
    assert [b.tokens for b in back] == [s.tokens for s in kept]
    assert [b.lemmas for b in back] == [s.lemmas for s in kept]
    assert [b.pos for b in back] == [s.pos for s in kept]
    assert [iob_to_spans(b.tags) for b in back] == [spans_of(s) for s in kept]
    assert [b.doc_id for b in back] == ["10", "10", "20"]


def test_conllup_with_dbpedia_classes(corpus, tmp_path):
    out = tmp_path / "classes.conllup"
    export_corpus(corpus, out, "conllup", tagset="dbpedia")
    back = list(read_conllu(str(out), known_types=None))
    assert [iob_to_spans(b.tags) for b in back] == [spans_of(s, "dbpedia") for s in ALL]
    assert iob_to_spans(back[0].tags) == [(0, 1, "City"), (5, 6, "Country")]


def test_jsonl_offsets_point_into_the_text(corpus, tmp_path):
    out = tmp_path / "corpus.jsonl"
    code = main(["export", str(corpus), "--format", "jsonl", "--out", str(out)])
    assert code == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 4
    first = records[0]
    assert first["id"] == "10-0" and first["title"] == "Budapest" and first["sentence_index"] == 0
    assert first["text"] == "Budapest is the capital of Hungary ."
    assert first["entities"] == [
        {"start": 0, "end": 8, "label": "LOC", "target": "Budapest"},
        {"start": 27, "end": 34, "label": "LOC", "target": "Hungary"},
    ]
    for record, original in zip(records, ALL):
        tokens = [first_text["text"] for first_text in record["tokens"]]
        assert tokens == list(original.tokens)
        assert all(record["text"][t["start"]:t["end"]] == t["text"] for t in record["tokens"])
        starts = {t["start"]: i for i, t in enumerate(record["tokens"])}
        ends = {t["end"]: i + 1 for i, t in enumerate(record["tokens"])}
        back = [(starts[e["start"]], ends[e["end"]], e["label"]) for e in record["entities"]]
        assert back == spans_of(original)
    assert records[3]["entities"][1] == {"start": 14, "end": 23, "label": "MISC", "target": None}


def test_jsonl_offsets_count_characters_not_bytes():
    record = jsonl_record(BUDAPEST[1])
    assert [(e["start"], e["end"]) for e in record["entities"]] == [(0, 13), (14, 27), (38, 46)]
    assert record["text"][0:13] == "Ferenc Puskás" and record["text"][38:46] == "Budapest"


def test_spacy_docbin_round_trips(corpus, tmp_path):
    pytest.importorskip("spacy")
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    out = tmp_path / "corpus.spacy"
    export_corpus(corpus, out, "spacy")
    docs = list(DocBin().from_disk(out).get_docs(Vocab()))
    # One Doc per article, its kept sentences as doc.sents, lemma and POS on every token.
    assert [d.user_data["title"] for d in docs] == ["Budapest", "Kossuth Lajos"]
    sentences = [sent for d in docs for sent in d.sents]
    assert [tuple(t.text for t in sent) for sent in sentences] == [s.tokens for s in ALL]
    assert [[(e.start - sent.start, e.end - sent.start, e.label_) for e in sent.ents] for sent in sentences] == [
        spans_of(s) for s in ALL]
    assert [t.lemma_ for t in docs[1]] == list(KOSSUTH[0].lemmas)
    assert [t.pos_ for t in docs[1]] == list(KOSSUTH[0].pos)
    assert list(docs[0].user_data["sentence_indexes"]) == [0, 2, 3]


def test_spacy_missing_is_a_clear_error(corpus, tmp_path, capsys, monkeypatch):
    # Without spaCy (None in sys.modules makes every import of it fail, installed or not).
    for name in ("spacy", "spacy.tokens", "spacy.vocab"):
        monkeypatch.setitem(sys.modules, name, None)
    code = main(["export", str(corpus), "--format", "spacy", "--out", str(tmp_path / "c.spacy")])
    err = capsys.readouterr().err
    assert code == 2
    assert "pip install 'wikisilver[spacy]'" in err and err.count("\n") == 1
    assert not (tmp_path / "c.spacy").exists()


def test_cli_reports_counts_and_missing_corpus(corpus, tmp_path, capsys):
    out = tmp_path / "nested" / "c.conll"
    assert main(["export", str(corpus), "--format", "conll2003", "--out", str(out),
                 "--exclude-low-quality"]) == 0
    assert "wrote 3 sentences (2 articles, 23 tokens, 8 entity mentions)" in capsys.readouterr().out
    code = main(["export", str(tmp_path / "nowhere"), "--format", "jsonl", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "nowhere: no such corpus directory" in err


def test_scheme_is_rejected_for_span_formats(corpus, tmp_path):
    with pytest.raises(InputError, match="--scheme applies to the CoNLL formats"):
        export_corpus(corpus, tmp_path / "c.jsonl", "jsonl", scheme="iob1")


def test_broken_row_names_file_and_row(tmp_path):
    bad = sentence(1, "X", 0, "a b", "O O", "O O")
    table = sentences_to_table([bad, bad])
    tags = pa.array([["O", "O"], ["O"]], type=pa.list_(pa.string()))
    table = table.set_column(table.schema.get_field_index("conll_tags"), "conll_tags", tags)
    path = tmp_path / "part-00000.parquet"
    pq.write_table(table, path)
    with pytest.raises(InputError, match=r"part-00000\.parquet:row 2: 1 conll_tags for 2 tokens"):
        list(read_sentences(path))


def test_read_corpus_json_names_the_file_and_the_position(tmp_path):
    (tmp_path / "stats.json").write_text('{"pages_read": 3}', encoding="utf-8")
    assert read_corpus_json(tmp_path, "stats.json") == {"pages_read": 3}
    with pytest.raises(InputError, match=r"manifest\.json: missing: not the directory of a finished"):
        read_corpus_json(tmp_path, "manifest.json")
    (tmp_path / "manifest.json").write_text('{\n  "config": {,}\n}', encoding="utf-8")
    with pytest.raises(InputError, match=r"manifest\.json:2:14: invalid JSON \(Expecting property name"):
        read_corpus_json(tmp_path, "manifest.json")
    (tmp_path / "manifest.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match=r"manifest\.json: expected a JSON object"):
        read_corpus_json(tmp_path, "manifest.json")
