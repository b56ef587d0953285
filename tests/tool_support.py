"""Shared by the tests of the tools around the corpus (tag, export, where outputs go): the command
run as a user runs it, a small corpus of ours, and a model trained in a second on a tiny CoNLL file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from wikisilver.corpus.write import write_part
from wikisilver.records import EntitySpan, LabelledSentence

TRAINING_CONLL = """-DOCSTART- -X- -X- O

John NNP B-NP B-PER
lives VBZ B-VP O
in IN B-PP O
Berlin NNP B-NP B-LOC
. . O O

Mary NNP B-NP B-PER
works VBZ B-VP O
at IN B-PP O
Google NNP B-NP B-ORG
in IN B-PP O
Paris NNP B-NP B-LOC
. . O O

Anna NNP B-NP B-PER
visited VBD B-VP O
Vienna NNP B-NP B-LOC
with IN B-PP O
Peter NNP B-NP B-PER
. . O O
"""


def wikisilver(*args: str, cwd: Path | None = None, stdin: str | bytes | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess:
    """``wikisilver ARGS`` in a fresh process, as a user types it (text in and out)."""
    return subprocess.run([sys.executable, "-m", "wikisilver.cli", *args], cwd=cwd, capture_output=True,
                          text=True, input=stdin, timeout=timeout)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    """The one line a failing command printed on stderr (and that it printed only that, exit 2)."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def train_model(folder: Path) -> Path:
    """A CRF model of ``wikisilver train`` on three sentences (tags are not the point here)."""
    from wikisilver.corpus.gold import read_conll2003
    from wikisilver.ner.crf import train

    conll = folder / "train.conll"
    conll.write_text(TRAINING_CONLL, encoding="utf-8")
    model = folder / "m.crf"
    train(read_conll2003(str(conll)), str(model), max_iterations=20)
    return model


def _sentence(page_id: int, title: str, index: int, words: str, conll: str, dbpedia: str,
              spans: tuple[EntitySpan, ...]) -> LabelledSentence:
    tokens = tuple(words.split())
    text = " ".join(tokens)
    offsets, at = [], 0
    for token in tokens:
        offsets.append((at, at + len(token)))
        at += len(token) + 1
    return LabelledSentence(
        page_id=page_id, title=title, index=index, tokens=tokens, lemmas=tuple(t.lower() for t in tokens),
        pos=tuple("PROPN" if t[0].isupper() else "X" for t in tokens), dbpedia_tags=tuple(dbpedia.split()),
        conll_tags=tuple(conll.split()), spans=spans, text=text, offsets=tuple(offsets),
    )


CORPUS_SENTENCES = (
    _sentence(10, "Budapest", 0, "Budapest is the capital of Hungary .", "B-LOC O O O O B-LOC O",
              "B-City O O O O B-Country O",
              (EntitySpan(0, 1, "LOC", "City", "Budapest"), EntitySpan(5, 6, "LOC", "Country", "Hungary"))),
    _sentence(20, "Kossuth Lajos", 0, "Kossuth was born in Monok .", "B-PER O O O B-LOC O",
              "B-Person O O O B-Village O",
              (EntitySpan(0, 1, "PER", "Person", "Kossuth Lajos"), EntitySpan(4, 5, "LOC", "Village", "Monok"))),
)


def write_corpus(out: Path) -> Path:
    """A build output directory of ours (Parquet and TSV parts) with two articles."""
    (out / "parquet").mkdir(parents=True)
    (out / "tsv").mkdir()
    for n, sentence in enumerate(CORPUS_SENTENCES):
        name = f"part-{n:05d}-of-00002"
        write_part((sentence,), out / "tsv" / f"{name}.tsv", out / "parquet" / f"{name}.parquet")
    return out
