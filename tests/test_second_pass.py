"""The second pass (issue 18): what the links leave UNK labelled by a model, kept only when the
model is sure and agrees; marked, counted, written, read back and excluded on request."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from label_support import TARGETS, article
from wikisilver.corpus.export import export_corpus
from wikisilver.corpus.read import read_sentences, read_tsv
from wikisilver.corpus.schema import SENTENCE_SCHEMA
from wikisilver.corpus.tags import TaggedSentence
from wikisilver.corpus.write import write_part
from wikisilver.labels import Labeller
from wikisilver.labels.language import LanguagePack
from wikisilver.labels.second_pass import (
    DISAGREES, DISAGREES_KNOWN, LOW_CONFIDENCE, UNKNOWN_AS_O, UNKNOWN_FORM, SecondPass, decide,
)
from wikisilver.ner.crf import Tagger, load_model, mentions_path, train
from wikisilver.ner.seam import MarginalTagger
from wikisilver.text import get_processor

# "He met Mary Todd in Zorbaville ." with Mary Todd linked: Zorbaville is UNK.
MARKUP = "He met [[Mary Todd]] in Zorbaville again."
FIRST = ("O", "O", "B-PER", "I-PER", "O", "B-UNK", "O", "O")


class Scripted:
    """A tagger that answers what it was given (the seam a transformer would fill)."""

    def __init__(self, tags: str, sure: float = 0.99) -> None:
        self.tags, self.sure = tags.split(), sure

    def tag_marginals(self, tokens: Sequence[str]) -> tuple[list[str], list[float]]:
        assert len(tokens) == len(self.tags)
        return list(self.tags), [self.sure] * len(tokens)


def test_decide_keeps_a_sure_agreeing_model_and_takes_its_spans_on_unk():
    decision = decide(FIRST, "O O B-PER I-PER O B-LOC O O".split(), [0.95] * 8, 0.9)
    assert decision.kept and decision.spans == ((5, 6, "LOC"),)
    # Two unknown runs, each an entity of the model.
    first = ("B-UNK", "O", "B-PER", "I-PER", "O", "B-UNK", "I-UNK", "O")
    assert decide(first, "B-MISC O B-PER I-PER O B-ORG I-ORG O".split(), [0.95] * 8, 0.9).spans == (
        (0, 1, "MISC"), (5, 7, "ORG"))


def test_decide_drops_when_the_model_calls_an_unknown_name_o():
    assert decide(FIRST, "O O B-PER I-PER O O O O".split(), [0.99] * 8, 0.9).reason == UNKNOWN_AS_O


def test_decide_drops_when_the_model_disagrees_with_the_links():
    assert decide(FIRST, "O O B-ORG I-ORG O B-LOC O O".split(), [0.99] * 8, 0.9).reason == DISAGREES
    assert decide(FIRST, "O O B-PER O O B-LOC O O".split(), [0.99] * 8, 0.9).reason == DISAGREES
    # A model span reaching into a token the rules decided (here an O) relabels it: dropped.
    assert decide(FIRST, "O O B-PER I-PER B-LOC I-LOC O O".split(), [0.99] * 8, 0.9).reason == DISAGREES


def test_decide_drops_when_unsure_on_an_unknown_token_only():
    marginals = [0.99] * 8
    marginals[5] = 0.6
    assert decide(FIRST, "O O B-PER I-PER O B-LOC O O".split(), marginals, 0.9).reason == LOW_CONFIDENCE
    marginals = [0.5] * 5 + [0.95] + [0.5] * 2  # unsure on known tokens: not asked
    assert decide(FIRST, "O O B-PER I-PER O B-LOC O O".split(), marginals, 0.9).kept


def test_decide_keeps_only_forms_the_first_pass_knows_with_the_models_type():
    tokens = "He met Mary Todd in Zorbaville again .".split()
    predicted = "O O B-PER I-PER O B-LOC O O".split()
    assert decide(FIRST, predicted, [0.99] * 8, 0.9, tokens, {("Zorbaville",): "LOC"}).spans == ((5, 6, "LOC"),)
    assert decide(FIRST, predicted, [0.99] * 8, 0.9, tokens, {("Zorbaville",): "ORG"}).reason == DISAGREES_KNOWN
    # Known only as part of a longer name, or not at all: the model guesses, dropped.
    known = {("Zorbaville", "Castle"): "LOC", ("Mary", "Todd"): "PER"}
    assert decide(FIRST, predicted, [0.99] * 8, 0.9, tokens, known).reason == UNKNOWN_FORM
    # The links' spans need no entry: only the spans the model puts on UNK tokens are looked up.
    assert decide(FIRST, predicted, [0.99] * 8, 0.9, tokens, {("Zorbaville",): "LOC"}).kept
    # Without a table (a model trained by an older version, a plugged-in tagger without one): no check.
    assert decide(FIRST, predicted, [0.99] * 8, 0.9, tokens, None).kept
    # The check comes after the others: an unsure model is still dropped for that.
    assert decide(FIRST, predicted, [0.5] * 8, 0.9, tokens, {}).reason == LOW_CONFIDENCE


def test_a_hungarian_name_with_a_case_ending_is_known_by_its_stem():
    """Hungarian names take case endings: the first pass knew ``Zorbaváros`` (LOC), so the model's
    ``Zorbavárosban`` and ``NASA-nak`` are known forms; without the endings they are not."""
    suffixes = LanguagePack.load("hu").inflection_suffixes
    first, predicted = "O O B-UNK O".split(), "O O B-LOC O".split()
    tokens = "Sokan élnek Zorbavárosban .".split()
    known = {("Zorbaváros",): "LOC", ("NASA",): "ORG"}
    assert decide(first, predicted, [0.99] * 4, 0.9, tokens, known, suffixes).spans == ((2, 3, "LOC"),)
    assert decide(first, predicted, [0.99] * 4, 0.9, tokens, known).reason == UNKNOWN_FORM
    nasa = decide("O O B-UNK O".split(), "O O B-ORG O".split(), [0.99] * 4, 0.9, "Írt a NASA-nak .".split(), known, suffixes)
    assert nasa.spans == ((2, 3, "ORG"),)
    # The labeller gives the second pass its language's endings.
    labeller = Labeller("hu", get_processor("hu"), second_pass=SecondPass(Scripted("O O B-LOC O"), known=known))
    (kept,) = labeller.label_article(article("Sokan élnek Zorbavárosban."), {}).sentences
    assert kept.source == "second_pass" and kept.conll_tags == ("O", "O", "B-LOC", "O")


def test_train_writes_the_mentions_table_and_loading_it_gives_each_form_its_majority_type(tmp_path):
    def sentence(text: str, tags: str) -> TaggedSentence:
        return TaggedSentence(tuple(text.split()), tuple(tags.split()))

    sentences = [sentence("Ann lives in Paris .", "B-PER O O B-LOC O")] * 3 + [
        sentence("Paris Hilton sang .", "B-PER I-PER O O"), sentence("Paris smiled .", "B-PER O O"),
        sentence("Jordan is near Jordan .", "B-PER O O B-LOC O")]
    model = str(tmp_path / "m.crfsuite")
    train(sentences, model)
    assert "LOC\tParis\t3" in Path(mentions_path(model)).read_text(encoding="utf-8")
    known = load_model(model, known=True).known
    assert known[("Paris",)] == "LOC" and known[("Paris", "Hilton")] == "PER" and known[("Ann",)] == "PER"
    assert ("Jordan",) not in known  # once PER, once LOC: the first pass does not know which
    # The table follows the model when both are moved together (the meta file names it relatively).
    moved = tmp_path / "moved"
    moved.mkdir()
    for name in ("m.crfsuite", "m.crfsuite.meta.json", "m.crfsuite.mentions.tsv"):
        (moved / name).write_bytes((tmp_path / name).read_bytes())
    (tmp_path / "m.crfsuite.mentions.tsv").unlink()
    assert load_model(str(moved / "m.crfsuite"), known=True).known == known
    assert load_model(model).known is None  # a tagger that does not check forms does not read the table


def label(second_pass: SecondPass | None):
    labeller = Labeller("en", get_processor("en"), second_pass=second_pass)
    return labeller.label_article(article(MARKUP), TARGETS)


def test_labeller_keeps_the_recovered_sentence_marked_and_counted():
    assert not label(None).sentences  # the first pass drops it
    result = label(SecondPass(Scripted("O O B-PER I-PER O B-LOC O O")))
    (sentence,) = result.sentences
    assert sentence.source == "second_pass"
    assert sentence.conll_tags == ("O", "O", "B-PER", "I-PER", "O", "B-LOC", "O", "O")
    recovered = [s for s in sentence.spans if s.rule == "second_pass"]
    assert [(s.start, s.end, s.conll, s.dbpedia_class) for s in recovered] == [(5, 6, "LOC", "Place")]
    assert result.counts["second_pass.recovered"] == 1 and result.counts["sentences_dropped_unk"] == 0
    assert result.counts["second_pass.entities"] == 1


def test_labeller_counts_why_a_sentence_stays_dropped():
    unsure = label(SecondPass(Scripted("O O B-PER I-PER O B-LOC O O", sure=0.5)))
    assert not unsure.sentences and unsure.counts["second_pass.dropped.low_confidence"] == 1
    other = label(SecondPass(Scripted("O O B-ORG I-ORG O B-LOC O O")))
    assert not other.sentences and other.counts["second_pass.dropped.disagrees"] == 1
    assert other.counts["sentences_dropped_unk"] == 1
    unseen = label(SecondPass(Scripted("O O B-PER I-PER O B-LOC O O"), known={("Mary", "Todd"): "PER"}))
    assert not unseen.sentences and unseen.counts["second_pass.dropped.unknown_form"] == 1


def test_crf_gives_marginals_of_its_own_tags(tmp_path):
    sentences = [TaggedSentence(tuple("Ann lives in Paris .".split()), ("B-PER", "O", "O", "B-LOC", "O")),
                 TaggedSentence(tuple("Bob works in Rome .".split()), ("B-PER", "O", "O", "B-LOC", "O"))] * 5
    model = str(tmp_path / "m.crfsuite")
    train(sentences, model)
    tagger = Tagger(model)
    assert isinstance(tagger, MarginalTagger)
    tokens = "Eve lives in Oslo .".split()
    tags, marginals = tagger.tag_marginals(tokens)
    assert tags == tagger.tag(tokens) and len(marginals) == 5
    assert all(0.0 < p <= 1.0 for p in marginals) and marginals[2] > 0.5


def test_source_is_written_read_and_excluded(tmp_path):
    (kept,) = label(SecondPass(Scripted("O O B-PER I-PER O B-LOC O O"))).sentences
    plain = kept.__class__(**{**kept.__dict__, "source": "links", "index": 0})
    (tmp_path / "c" / "tsv").mkdir(parents=True)
    (tmp_path / "c" / "parquet").mkdir()
    tsv, parquet = tmp_path / "c/tsv/part-0.tsv", tmp_path / "c/parquet/part-0.parquet"
    write_part([plain, kept], tsv, parquet, with_source=True)
    assert pq.read_table(parquet).column("source").to_pylist() == ["links", "second_pass"]
    assert [s.source for s in read_sentences(tmp_path / "c")] == ["links", "second_pass"]
    assert [s.index for s in read_sentences(tmp_path / "c", exclude_second_pass=True)] == [0]
    assert "low_quality=0 source=second_pass" in tsv.read_text(encoding="utf-8")
    assert [s.source for s in read_tsv(str(tsv))] == ["links", "second_pass"]
    report = export_corpus(tmp_path / "c", tmp_path / "out.jsonl", "jsonl", exclude_second_pass=True)
    assert report.sentences == 1
    model = str(tmp_path / "m.crfsuite")
    assert train(read_tsv(str(tsv)), model, exclude_second_pass=True).skipped_second_pass == 1
    # Without a second pass the files are as before: no source column, no source= field.
    write_part([plain], tsv, parquet)
    assert pq.read_schema(parquet).names == SENTENCE_SCHEMA.names
    assert "source" not in tsv.read_text(encoding="utf-8")


@pytest.mark.slow
def test_hand_check_sample_is_blind_and_scores_the_recovered_spans(tmp_path):
    (kept,) = label(SecondPass(Scripted("O O B-PER I-PER O B-LOC O O"))).sentences
    (tmp_path / "c" / "tsv").mkdir(parents=True)
    (tmp_path / "c" / "parquet").mkdir()
    write_part([kept], tmp_path / "c/tsv/p.tsv", tmp_path / "c/parquet/p.parquet", with_source=True)
    script = [sys.executable, str(Path(__file__).parent.parent / "scripts" / "sample_recovered.py")]
    todo, key = tmp_path / "todo.txt", tmp_path / "key.jsonl"
    subprocess.run([*script, "sample", "--corpus", str(tmp_path / "c"), "--out", str(todo), "--key", str(key)],
                   check=True, timeout=120)
    lines = todo.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["# title = Test article", "# sentence = 0"]
    assert lines[3:11] == list(kept.tokens) and not any("\t" in line for line in lines)  # no label
    # An annotator who calls Zorbaville an ORG: the recovered LOC span is wrong, the link's right.
    tags = ["O", "O", "B-PER", "I-PER", "O", "B-ORG", "O", "O"]
    annotated = "\n".join(lines[:3] + [f"{t}\t{tag}" for t, tag in zip(kept.tokens, tags)]) + "\n"
    (tmp_path / "done.conll").write_text(annotated, encoding="utf-8")
    for where in (["--corpus", str(tmp_path / "c")], ["--key", str(key)]):
        done = subprocess.run([*script, "score", *where, "--annotation", str(tmp_path / "done.conll")],
                              capture_output=True, text=True, check=True, timeout=120)
        assert "recovered spans: 0 / 1 right" in done.stdout and "P 50.0 R 50.0" in done.stdout


@pytest.mark.slow
def test_build_with_second_pass_end_to_end(tmp_path):
    """build → train → build --second-pass on the demo dump, through the command line."""
    cli = [sys.executable, "-m", "wikisilver.cli", "-q"]

    def run(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([*cli, *args], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done

    run("build", "--demo", "--out", str(tmp_path / "first"))
    run("train", "--corpus", str(tmp_path / "first"), "--model", str(tmp_path / "m.crfsuite"))
    run("build", "--demo", "--out", str(tmp_path / "second"), "--second-pass", str(tmp_path / "m.crfsuite"),
        "--second-pass-threshold", "0.5")
    first = json.loads((tmp_path / "first/stats.json").read_text())
    second = json.loads((tmp_path / "second/stats.json").read_text())
    assert "second_pass" not in first
    recovered = second["second_pass"].get("recovered", 0)
    assert recovered > 0
    assert second["sentences_kept"] == first["sentences_kept"] + recovered
    assert second["second_pass"]["candidates"] == first["sentences_dropped_unk"]
    sources = [s.source for s in read_sentences(tmp_path / "second")]
    assert sources.count("second_pass") == recovered
    # The model's files are inputs: the same rerun does nothing; a changed mentions table is another input.
    assert "nothing to do" in run("build", "--demo", "--out", str(tmp_path / "second"), "--second-pass",
                                  str(tmp_path / "m.crfsuite"), "--second-pass-threshold", "0.5").stderr
    with open(tmp_path / "m.crfsuite.mentions.tsv", "a", encoding="utf-8") as table:
        table.write("LOC\tNowhere\t9\n")
    changed = subprocess.run([*cli, "build", "--demo", "--out", str(tmp_path / "second"), "--second-pass",
                              str(tmp_path / "m.crfsuite"), "--second-pass-threshold", "0.5"],
                             capture_output=True, text=True, timeout=300)
    assert changed.returncode != 0 and "changed: second_pass" in changed.stderr, changed.stderr
    done = run("export", str(tmp_path / "second"), "--format", "jsonl", "--out", str(tmp_path / "x.jsonl"),
               "--exclude-second-pass")
    assert f"wrote {first['sentences_kept']} sentences" in done.stdout
    # A missing model fails before any work, in one line.
    bad = subprocess.run([*cli, "build", "--demo", "--out", str(tmp_path / "bad"), "--second-pass",
                          str(tmp_path / "none.crfsuite")], capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "none.crfsuite" in bad.stderr and "Traceback" not in bad.stderr


def test_tagger_spec_names_the_kind_or_is_a_crf_path():
    from wikisilver.errors import InputError
    from wikisilver.ner.seam import split_spec

    assert split_spec("models/en.crfsuite") == ("crf", "models/en.crfsuite")
    assert split_spec("crf:models/en.crfsuite") == ("crf", "models/en.crfsuite")
    with pytest.raises(InputError, match="unknown tagger kind 'bert'"):
        split_spec("bert:models/en")
