"""wikisilver show: one article of the corpus in the terminal, mentions in brackets."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikisilver.cli import main
from wikisilver.corpus.read import read_article
from wikisilver.corpus.write import write_part
from wikisilver.records import EntitySpan, LabelledSentence


def sentence(page_id: int, title: str, index: int, words: str, conll: str, dbpedia: str,
             low_quality: bool = False) -> LabelledSentence:
    tokens = tuple(words.split())
    return LabelledSentence(
        page_id=page_id, title=title, index=index, tokens=tokens, lemmas=tokens,
        pos=("X",) * len(tokens), dbpedia_tags=tuple(dbpedia.split()),
        conll_tags=tuple(conll.split()),
        spans=tuple(EntitySpan(0, 1, "LOC", "City", title) for _ in tokens[:1] if conll[0] == "B"),
        low_quality=low_quality,
    )


ARTICLES = [
    sentence(5, "Bécs", 0, "Bécs is on the Danube .", "B-LOC O O O B-LOC O",
             "B-City O O O B-River O"),
    sentence(10, "Budapest", 0, "Budapest is the capital of Hungary .",
             "B-LOC O O O O B-LOC O", "B-City O O O O B-Country O"),
    sentence(10, "Budapest", 1, "The Hungarian Parliament sits in the city .",
             "O B-ORG I-ORG O O O O O", "O B-Legislature I-Legislature O O O O O"),
    sentence(10, "Budapest", 4, "Ferenc Puskás", "B-PER I-PER", "B-SoccerPlayer I-SoccerPlayer",
             low_quality=True),
    sentence(12, "New York", 0, "New York is big .", "B-LOC I-LOC O O O", "B-City I-City O O O"),
]


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    """One part file, one sentence per row group: show has to pick the rows of one title."""
    out = tmp_path / "out"
    (out / "parquet").mkdir(parents=True)
    write_part(ARTICLES, tmp_path / "part.tsv", out / "parquet" / "part-00000-of-00001.parquet",
               row_group_size=1)
    return out


def show(capsys, corpus: Path, *argv: str) -> tuple[int, str, str]:
    code = main(["show", str(corpus), *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_prints_the_article_with_mentions_in_brackets(corpus, capsys):
    code, out, err = show(capsys, corpus, "--title", "Budapest", "--color", "never")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Budapest (page 10): 3 sentence(s)"
    assert lines[1] == "    0  [Budapest]LOC is the capital of [Hungary]LOC ."
    assert lines[2] == "    1  The [Hungarian Parliament]ORG sits in the city ."
    assert lines[3] == "    4~ [Ferenc Puskás]PER"  # "~": flagged as a fragment
    assert "Bécs" not in out and "\x1b[" not in out


def test_limit_and_dbpedia_classes(corpus, capsys):
    code, out, _ = show(capsys, corpus, "--title", "Budapest", "--limit", "1", "--tagset", "dbpedia",
                        "--color", "never")
    assert code == 0
    assert out.splitlines()[1:] == ["    0  [Budapest]City is the capital of [Hungary]Country ."]


def test_colour_per_type_when_asked(corpus, capsys):
    code, out, _ = show(capsys, corpus, "--title", "Budapest", "--color", "always")
    assert code == 0
    assert "\x1b[32m[Budapest]LOC\x1b[0m is the capital" in out
    assert "\x1b[36m[Hungarian Parliament]ORG\x1b[0m" in out
    assert "\x1b[35m[Ferenc Puskás]PER\x1b[0m" in out


def test_colour_auto_is_off_when_not_a_terminal(corpus, capsys):
    code, out, _ = show(capsys, corpus, "--title", "Budapest")
    assert code == 0 and "\x1b[" not in out


def test_title_as_typed_in_a_url_is_normalized(corpus, capsys):
    code, out, _ = show(capsys, corpus, "--title", "new_York", "--color", "never")
    assert code == 0
    assert out.splitlines()[1] == "    0  [New York]LOC is big ."


def test_unknown_title_suggests_close_ones(corpus, capsys):
    code, out, err = show(capsys, corpus, "--title", "Budapst")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "no article titled 'Budapst' in the corpus; did you mean: 'Budapest'?" in err


def test_unknown_title_without_close_ones(corpus, capsys):
    code, _, err = show(capsys, corpus, "--title", "Zzzzzzzz")
    assert code == 2
    assert "no article titled 'Zzzzzzzz' in the corpus" in err and "did you mean" not in err


def test_read_article_keeps_sentence_order_and_other_articles_out(corpus):
    assert [s.index for s in read_article(corpus, "Budapest")] == [0, 1, 4]
    assert read_article(corpus, "Budapest", limit=2)[-1].tokens[1] == "Hungarian"
    assert read_article(corpus, "Bécs")[0].spans == (EntitySpan(0, 1, "LOC", "City", "Bécs"),)
