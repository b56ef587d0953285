"""CRF features, training, tagging and conlleval-compatible scoring."""

from __future__ import annotations

import itertools
import json

import pytest
from conftest import shared_file

from wikisilver import cli
from wikisilver.corpus.gazetteers import Gazetteer
from wikisilver.corpus.inputs import read_corpus
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.ner.crf import Tagger, train
from wikisilver.ner.features import sentence_features, word_shape
from wikisilver.ner.scores import ChunkCounter, Scores, evaluate_tagger, format_scores


def sentence(tokens: str, tags: str) -> TaggedSentence:
    return TaggedSentence(tokens=tuple(tokens.split()), tags=tuple(tags.split()), doc_id="d")


def evaluate(gold: list[TaggedSentence], predicted) -> Scores:
    counter = ChunkCounter()
    for sentence_, guess in zip(gold, predicted, strict=True):
        counter.add(sentence_.tags, list(guess))
    return counter.scores()


def test_evaluator_matches_conlleval_on_hand_counted_case():
    # 3 gold entities; 2 predicted: Kis Pál exact, "New" a boundary error on New York.
    # conlleval: P = 1/2 = 50, R = 1/3 = 33.33, F = 2PR/(P+R) = 40.
    gold = [sentence("Kis Pál visited New York and Paris .",
                     "B-PER I-PER O B-LOC I-LOC O B-LOC O")]
    predicted = [["B-PER", "I-PER", "O", "B-LOC", "O", "O", "O", "O"]]
    scores = evaluate(gold, predicted)
    assert (scores.gold, scores.predicted, scores.correct) == (3, 2, 1)
    assert scores.precision == pytest.approx(50.0)
    assert scores.recall == pytest.approx(100 / 3)
    assert scores.f1 == pytest.approx(40.0)
    assert scores.per_type["PER"].f1 == pytest.approx(100.0)
    loc = scores.per_type["LOC"]
    assert (loc.precision, loc.recall, loc.f1, loc.support, loc.predicted) == (0.0, 0.0, 0.0, 2, 1)
    assert scores.token_accuracy == pytest.approx(100 * 6 / 8)  # I-LOC and the last B-LOC missed


def test_type_error_is_not_a_match_and_counts_per_type():
    # Right span, wrong type: a false positive for ORG and a miss for LOC (conlleval exact match).
    gold = [sentence("Az MTA ülésezett", "O B-LOC O"), sentence("Pál jött", "B-PER O")]
    predicted = [["O", "B-ORG", "O"], ["B-PER", "O"]]
    scores = evaluate(gold, predicted)
    assert (scores.gold, scores.predicted, scores.correct) == (2, 2, 1)
    assert scores.per_type["ORG"].precision == 0.0 and scores.per_type["ORG"].support == 0
    assert scores.per_type["LOC"].recall == 0.0
    assert "overall" in format_scores(scores) and "50.00" in format_scores(scores)


def test_iob1_prediction_scores_like_iob2():
    gold = [sentence("New York", "B-LOC I-LOC")]
    assert evaluate(gold, [["I-LOC", "I-LOC"]]).f1 == pytest.approx(100.0)


def test_evaluate_rejects_misaligned_input():
    with pytest.raises(ValueError, match="1 predicted tags for 2 tokens"):
        ChunkCounter().add(["O", "O"], ["O"])


def test_word_shape():
    assert word_shape("Budapest") == "Xx"
    assert word_shape("MTA-SZTAKI") == "X-X"
    assert word_shape("1956-ban") == "d-x"


def test_token_features_cover_orthography_affixes_context_and_gazetteer():
    tokens = ["A", "Magyar", "Tudományos", "Akadémia", "ülésezett"]
    gazetteer = Gazetteer(
        entries={("Magyar", "Tudományos", "Akadémia"): frozenset({"ORG"})}, max_length=3
    )
    features = sentence_features(tokens, gazetteer)
    assert {"w=magyar", "shape=Xx", "title", "p2=ma", "s3=yar", "-1:w=a", "+2:w=akadémia",
            "gaz=B-ORG"} <= set(features[1])
    assert "BOS" in sentence_features(tokens)[0]
    assert "gaz=I-ORG" in features[3]
    assert not any(f.startswith("gaz") for f in features[4])


def test_train_and_tag_round_trip_on_nerkor(tmp_path):
    directory = shared_file("gold/nerkor/train/wikipedia")
    sentences = list(itertools.islice(read_corpus(str(directory)), 400))
    model = str(tmp_path / "m.crfsuite")
    report = train(sentences[:300], model, max_iterations=40)
    assert report.sentences == 300 and report.tokens == sum(len(s.tokens) for s in sentences[:300])
    assert {"O", "B-PER", "B-LOC"} <= set(report.labels)
    tagger = Tagger(model)
    seen = evaluate_tagger(tagger, sentences[:300])
    unseen = evaluate_tagger(tagger, sentences[300:])
    assert seen.f1 > 80.0  # a CRF nearly memorises its training data
    assert unseen.gold > 0 and 0.0 < unseen.f1 < seen.f1


def test_train_budget_and_low_quality(tmp_path):
    sentences = [
        sentence("Kis Pál Budapesten élt .", "B-PER I-PER B-LOC O O"),
        TaggedSentence(("Nagy", "Éva"), ("B-PER", "I-PER"), "d", low_quality=True),
        sentence("Az MTA ülésezett .", "O B-ORG O O"),
    ]
    report = train(sentences, str(tmp_path / "m"), exclude_low_quality=True, max_iterations=5)
    assert (report.sentences, report.tokens, report.skipped_low_quality) == (2, 9, 1)
    report = train(sentences, str(tmp_path / "m"), max_tokens=7, max_iterations=5)
    assert (report.sentences, report.tokens) == (2, 7)


TRAIN_TSV = "".join(
    f"# page_id={i} title=T{i} sentence=0 low_quality=0\n"
    f"{name}\t{name}\tPROPN\tB-Person\tB-PER\n"
    "a\ta\tDET\tO\tO\n"
    f"{city}\t{city}\tPROPN\tB-City\tB-LOC\n"
    "városban\tváros\tNOUN\tO\tO\n"
    "élt\tél\tVERB\tO\tO\n"
    ".\t.\tPUNCT\tO\tO\n\n"
    for i, (name, city) in enumerate(
        [("Pál", "Szeged"), ("Éva", "Győr"), ("Anna", "Pécs"), ("Béla", "Eger")] * 5
    )
)


def test_cli_train_and_evaluate(tmp_path, capsys):
    corpus = tmp_path / "corpus" / "tsv"
    corpus.mkdir(parents=True)
    (corpus / "part-00000-of-00001.tsv").write_text(TRAIN_TSV, encoding="utf-8")
    gold = tmp_path / "gold.conll"
    gold.write_text("Pál B-PER\na O\nSzeged B-LOC\nvárosban O\nélt O\n", encoding="utf-8")
    model = str(tmp_path / "model.crfsuite")
    assert cli.main(["train", "--corpus", str(tmp_path / "corpus"), "--model", model,
                     "--max-iterations", "30"]) == 0
    assert "on 20 sentences, 120 tokens" in capsys.readouterr().out
    out_json = tmp_path / "scores.json"
    assert cli.main(["evaluate", "--model", model, "--gold", str(gold), "--json", str(out_json)]) == 0
    assert "overall" in capsys.readouterr().out
    scores = json.loads(out_json.read_text())
    assert scores["f1"] == pytest.approx(100.0)
    assert set(scores["per_type"]) == {"PER", "LOC"}
    assert scores["per_type"]["LOC"]["support"] == 1


def test_cli_reports_missing_model_in_one_line(tmp_path, capsys):
    gold = tmp_path / "gold.conll"
    gold.write_text("Pál B-PER\n", encoding="utf-8")
    assert cli.main(["evaluate", "--model", str(tmp_path / "nope"), "--gold", str(gold)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such model file" in err


def test_cli_evaluate_with_encoding(tmp_path, capsys):
    corpus = tmp_path / "train.tsv"
    corpus.write_text(TRAIN_TSV, encoding="utf-8")
    model = str(tmp_path / "m.crfsuite")
    assert cli.main(["train", "--corpus", str(corpus), "--model", model, "--max-iterations", "30"]) == 0
    gold = tmp_path / "gold.txt"
    gold.write_text("Éva B-PER\na O\nGyőr B-LOC\nvárosban O\n", encoding="iso-8859-2")
    args = ["evaluate", "--model", model, "--gold", str(gold), "--format", "conll2003"]
    assert cli.main(args) == 2
    assert "gold.txt:line 1: not valid utf-8" in capsys.readouterr().err
    assert cli.main(args + ["--encoding", "iso-8859-2"]) == 0
    assert "with 2 phrases" in capsys.readouterr().out
