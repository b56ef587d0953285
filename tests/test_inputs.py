"""Every corpus train, evaluate, split and gazetteers read, gold CoNLL-style files and our own output: tags come out as IOB2."""

from __future__ import annotations

import logging
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import shared_file

from wikisilver.corpus.inputs import read_corpus
from wikisilver.corpus.tags import TaggedSentence, iob_to_spans, to_iob2
from wikisilver.corpus.write import write_part, write_tagged_tsv
from wikisilver.errors import InputError
from wikisilver.records import EntitySpan, LabelledSentence


def write(path, text: str, encoding: str = "utf-8"):
    path.write_text(text, encoding=encoding)
    return str(path)


def test_iob_to_spans_follows_conlleval_chunk_boundaries():
    tags = ["B-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-ORG", "I-ORG"]
    assert iob_to_spans(tags) == [(0, 2, "PER"), (3, 4, "LOC"), (4, 5, "LOC"), (5, 7, "ORG")]


def test_iob1_becomes_iob2():
    # IOB1: I- everywhere, B- only between two adjacent entities of one type.
    assert to_iob2(["I-PER", "I-PER", "B-PER", "O", "I-LOC"]) == (
        "B-PER", "I-PER", "B-PER", "O", "B-LOC",
    )


CONLL2003 = """-DOCSTART- -X- -X- O

EU NNP B-NP I-ORG
rejects VBZ B-VP O
German JJ B-NP I-MISC
call NN I-NP O
. . O O

-DOCSTART- -X- -X- O

Peter NNP B-NP I-PER
Blackburn NNP I-NP I-PER
"""


def test_conll2003_reads_iob1_with_docstart(tmp_path):
    path = write(tmp_path / "eng.conll", CONLL2003)
    sentences = list(read_corpus(path))
    assert [s.tokens for s in sentences] == [
        ("EU", "rejects", "German", "call", "."), ("Peter", "Blackburn"),
    ]
    assert sentences[0].tags == ("B-ORG", "O", "B-MISC", "O", "O")
    assert sentences[1].tags == ("B-PER", "I-PER")
    assert sentences[0].doc_id != sentences[1].doc_id


def test_zero_is_o_and_unknown_tag_warns_with_file_and_line(tmp_path, caplog):
    path = write(tmp_path / "x.conll", "Budapest B-LOC\nés 0\nV V\n")
    with caplog.at_level(logging.WARNING):
        (sentence,) = read_corpus(path)
    assert sentence.tags == ("B-LOC", "O", "O")
    assert f"{path}:3" in caplog.text and "'V'" in caplog.text


def test_other_encoding_on_request(tmp_path):
    path = write(tmp_path / "hu.conll", "Győr B-LOC\nő O\n", encoding="iso-8859-2")
    with pytest.raises(InputError, match=r"hu.conll:line 1: not valid utf-8"):
        list(read_corpus(path))
    (sentence,) = read_corpus(path, encoding="iso-8859-2")
    assert sentence.tokens == ("Győr", "ő")


def test_malformed_conll_names_file_and_line(tmp_path):
    path = write(tmp_path / "bad.conll", "Budapest NNP B-LOC\nis VBZ\n")
    with pytest.raises(InputError, match=r"bad.conll:line 2: 2 columns where the sentence has 3"):
        list(read_corpus(path))


CONLLUP = """# global.columns = ID FORM LEMMA UPOS CONL:NER
# newdoc id = d1
# sent_id = 1
1-2	Bécsben	_	_	_
1	Bécs	Bécs	PROPN	B-LOC
2	ben	ben	ADP	O
2.1	x	x	X	O
3	élt	él	VERB	O

"""


def test_conllup_finds_ner_column_and_skips_multiword_and_empty_nodes(tmp_path):
    path = write(tmp_path / "a.conllup", CONLLUP)
    (sentence,) = read_corpus(path)
    assert sentence.tokens == ("Bécs", "ben", "élt")
    assert sentence.tags == ("B-LOC", "O", "O")
    assert sentence.lemmas == ("Bécs", "ben", "él")
    assert sentence.doc_id == "d1"


def test_conllup_without_ner_column_is_an_input_error(tmp_path):
    path = write(tmp_path / "a.conllup", "# global.columns = ID FORM LEMMA\n1\tx\tx\n")
    with pytest.raises(InputError, match="no NER column"):
        list(read_corpus(path))


def test_conllup_wrong_column_count_names_line(tmp_path):
    path = write(tmp_path / "a.conllup", "# global.columns = FORM CONLL:NER\nx\tO\ny\n")
    with pytest.raises(InputError, match=r"a.conllup:line 3: 1 tab-separated columns"):
        list(read_corpus(path))


def test_nerkor_file_tag_counts_and_known_bad_tag(caplog):
    path = shared_file("gold/nerkor/train/legal/jrc_1.conllup")
    with caplog.at_level(logging.WARNING):
        sentences = list(read_corpus(str(path)))
    counts = Counter(tag for s in sentences for tag in s.tags)
    # The one bad `V` of line 568 is read as O, with a warning naming the line.
    assert f"{path}:568" in caplog.text
    assert set(counts) <= {"O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-MISC", "I-MISC"}
    raw = Counter()
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        if line:
            raw[line.split("\t")[5]] += 1
    assert raw["V"] == 1
    assert counts["O"] == raw["O"] + 1
    assert counts["B-ORG"] == raw["B-ORG"] and counts["B-ORG"] > 0
    assert sum(counts.values()) == sum(raw.values())


def test_nerkor_directory_is_read_recursively():
    directory = shared_file("gold/nerkor/devel/wikipedia")
    files = {p for p in directory.iterdir() if p.suffix == ".conllup"}
    docs = {s.doc_id for s in read_corpus(str(directory))}
    assert docs == {str(p) for p in files}


OUR_TSV = """# page_id=12 title=Kis Pál sentence=0 low_quality=0
Kis\tKis\tPROPN\tB-Person\tB-PER
Pál\tPál\tPROPN\tI-Person\tI-PER
Budapesten\tBudapest\tPROPN\tB-City\tB-LOC
élt\tél\tVERB\tO\tO
.\t.\tPUNCT\tO\tO

# page_id=12 title=Kis Pál sentence=1 low_quality=1
Az\taz\tDET\tO\tO
MTA\tMTA\tPROPN\tB-Organisation\tB-ORG
"""


def test_our_tsv_with_comment_lines(tmp_path):
    path = write(tmp_path / "part-00000-of-00001.tsv", OUR_TSV)
    first, second = read_corpus(path)
    assert first.tags == ("B-PER", "I-PER", "B-LOC", "O", "O")
    assert first.doc_id == "12" and first.title == "Kis Pál" and first.sentence_index == 0
    assert not first.low_quality and second.low_quality
    assert first.dbpedia_tags == ("B-Person", "I-Person", "B-City", "O", "O")
    (dbp, _) = read_corpus(path, tagset="dbpedia")
    assert dbp.tags[2] == "B-City"
    with pytest.raises(InputError, match="our corpus has no fine tags"):
        list(read_corpus(path, tagset="fine"))


def test_our_tsv_wrong_columns(tmp_path):
    path = write(tmp_path / "x.tsv", "Kis\tKis\tB-PER\n")
    with pytest.raises(InputError, match=r"x.tsv:line 1: expected 7 tab-separated columns \(token lemma pos.* or the first 5, got 3"):
        list(read_corpus(path))


def test_tsv_round_trip(tmp_path):
    source = write(tmp_path / "a.tsv", OUR_TSV)
    out = tmp_path / "b.tsv"
    with open(out, "w", encoding="utf-8") as handle:
        write_tagged_tsv(handle, read_corpus(source))
    assert list(read_corpus(str(out))) == list(read_corpus(source))


KIS_PAL = (
    LabelledSentence(
        page_id=12, title="Kis Pál", index=0, tokens=("Kis", "Pál", "Budapesten", "élt"),
        lemmas=("Kis", "Pál", "Budapest", "él"), pos=("PROPN", "PROPN", "PROPN", "VERB"),
        dbpedia_tags=("B-Person", "I-Person", "B-City", "O"), conll_tags=("B-PER", "I-PER", "B-LOC", "O"),
        spans=(EntitySpan(0, 2, "PER", "Person", "Kis Pál", "link_entity"),),
    ),
    LabelledSentence(
        page_id=12, title="Kis Pál", index=1, tokens=("Az", "MTA"), lemmas=("az", "MTA"),
        pos=("DET", "PROPN"), dbpedia_tags=("O", "B-Organisation"), conll_tags=("O", "B-ORG"),
        spans=(), low_quality=True, quality_reasons=("no_final_punctuation",),
    ),
)


def our_output(out) -> None:
    """A build's output directory: the same sentences in tsv/ and parquet/, and its manifest."""
    for folder in ("tsv", "parquet"):
        (out / folder).mkdir(parents=True)
    write_part(KIS_PAL, out / "tsv" / "part-00000-of-00001.tsv", out / "parquet" / "part-00000-of-00001.parquet")
    (out / "parquet" / "_SUCCESS").write_text("")
    (out / "manifest.json").write_text("{}")


def test_our_parquet(tmp_path):
    our_output(tmp_path / "out")
    first, second = read_corpus(str(tmp_path / "out"))
    assert first.tokens == ("Kis", "Pál", "Budapesten", "élt")
    assert first.tags == ("B-PER", "I-PER", "B-LOC", "O")
    assert first.doc_id == "12" and first.title == "Kis Pál" and second.sentence_index == 1
    assert second.low_quality and second.lemmas == ("az", "MTA")
    (dbpedia, _) = read_corpus(str(tmp_path / "out" / "parquet"), tagset="dbpedia")
    assert dbpedia.tags == ("B-Person", "I-Person", "B-City", "O")
    with pytest.raises(InputError, match="our corpus has no fine tags"):
        list(read_corpus(str(tmp_path / "out"), tagset="fine"))


def test_build_output_read_in_either_format(tmp_path):
    """With a format given, a build's output is read from the folder of that format, once."""
    our_output(tmp_path / "out")
    from_parquet = list(read_corpus(str(tmp_path / "out"), "parquet"))
    from_tsv = list(read_corpus(str(tmp_path / "out"), "tsv"))
    assert [s.tokens for s in from_parquet] == [s.tokens for s in from_tsv] == [s.tokens for s in KIS_PAL]
    assert [s.tags for s in from_parquet] == [s.tags for s in from_tsv]


def test_foreign_parquet_names_the_missing_columns(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"tokens": [["a"]], "conll_tags": [["O"]]}), path)
    with pytest.raises(InputError, match=r"p\.parquet: missing column\(s\) title, page_id, .*not a wikisilver corpus"):
        list(read_corpus(str(path)))


def test_directory_without_corpus_files(tmp_path):
    (tmp_path / "README.md").write_text("x")
    with pytest.raises(InputError, match="no corpus files"):
        list(read_corpus(str(tmp_path)))


def test_tagged_sentence_is_frozen():
    sentence = TaggedSentence(tokens=("a",), tags=("O",), doc_id=None)
    with pytest.raises(AttributeError):
        sentence.tags = ("B-PER",)  # type: ignore[misc]


def test_gold_types_outside_conll_kept_with_another_tagset(tmp_path):
    path = write(tmp_path / "onto.conll", "Obama B-PERSON\nin O\nHawaii B-GPE\n")
    (conll,) = read_corpus(path)
    assert conll.tags == ("O", "O", "O")  # not CoNLL types: dropped (with warnings)
    (fine,) = read_corpus(path, tagset="fine")
    assert fine.tags == ("B-PERSON", "O", "B-GPE")


def test_hash_token_is_not_a_comment(tmp_path):
    conllup = write(tmp_path / "a.conllup", "# global.columns = FORM CONLL:NER\n# sent_id = 1\n#\tO\nX\tB-ORG\n")
    (sentence,) = read_corpus(conllup)
    assert sentence.tokens == ("#", "X")
    tsv = write(tmp_path / "a.tsv", "# page_id=1\n#\t#\tSYM\tO\tO\nX\tX\tPROPN\tB-Org\tB-ORG\n")
    (sentence,) = read_corpus(tsv)
    assert sentence.tokens == ("#", "X") and sentence.doc_id == "1"


def test_nerkor_hash_tokens_are_read():
    path = shared_file("gold/nerkor/train/web/w365.conllup")
    tokens = [t for s in read_corpus(str(path)) for t in s.tokens]
    raw = [line.split("\t")[0] for line in path.read_text(encoding="utf-8").splitlines()[1:] if "\t" in line]
    assert tokens == raw and "#" in tokens


@pytest.mark.slow
def test_build_output_directory_is_read_once(tmp_path):
    """A build's output has tsv/ and parquet/ copies of the same sentences: a corpus reads one."""
    from wikisilver.cli import main

    out = tmp_path / "demo"
    assert main(["build", "--demo", "--out", str(out)]) == 0
    whole = list(read_corpus(str(out)))
    assert len(whole) == len(list(read_corpus(str(out / "parquet")))) == len(list(read_corpus(str(out / "tsv"))))
