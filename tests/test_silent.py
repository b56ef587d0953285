"""No silent bad corpus: a text backend that cannot split sentences fails before any work, a run
whose pages are mostly rejected for one reason fails, inputs in the wrong language are named, and
the dataset card and report name the wiki the user built (its --lang), not a wrong header."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from conftest import ENWIKI_EXTRACT, TYPES_100K, TYPES_111K, shared_file
from wikisilver.cli import main
from wikisilver.config import resolve_build
from wikisilver.config.resolve import demo_inputs
from wikisilver.corpus.card import dataset_card, wiki_name
from wikisilver.errors import InputError
from wikisilver.health import (
    coverage_warnings,
    dominant_reject,
    text_language_warnings,
    types_language_warnings,
)
from wikisilver.text import TextProcessor, check_backend, probe_processor

DEMO_DUMP, DEMO_TYPES = demo_inputs()
HUWIKI = "wikidumps/huwiki-minidump.xml.bz2"
DEWIKI = "wikidumps/dbpedia-minidumps/dewiki-minidump.xml.bz2"
MAPPINGS = "dbpedia/mappings"


def stderr_lines(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.strip()]


# --------------------------------------------------------------------------- the text backend, probed


@pytest.fixture(scope="module")
def spacy_pipelines(tmp_path_factory):
    """A blank English spaCy pipeline saved to disk (no sentence boundaries), and one with a sentencizer."""
    spacy = pytest.importorskip("spacy", reason="the spaCy backend tests need spaCy (in the test extra)")
    root = tmp_path_factory.mktemp("spacy")
    nlp = spacy.blank("en")
    nlp.to_disk(root / "blank")
    nlp.add_pipe("sentencizer")
    nlp.to_disk(root / "sentencizer")
    return root / "blank", root / "sentencizer"


def test_spacy_pipeline_without_sentence_boundaries_fails_before_any_work(spacy_pipelines, tmp_path, capsys):
    blank, _ = spacy_pipelines
    out = tmp_path / "out"
    assert main(["build", "--demo", "--text-backend", f"spacy:{blank}", "--out", str(out)]) == 2
    lines = stderr_lines(capsys)
    assert len(lines) == 1, lines
    assert f"text backend spacy:{blank}" in lines[0] and "sets no sentence boundaries" in lines[0]
    assert "sentencizer" in lines[0] and "Traceback" not in lines[0]
    assert not out.exists()  # nothing written, nothing locked


def test_spacy_pipeline_with_a_sentencizer_passes_the_probe(spacy_pipelines):
    _, sentencizer = spacy_pipelines
    check_backend(f"spacy:{sentencizer}", "en")


class _NoSentences(TextProcessor):
    def split_sentences(self, text: str) -> list[tuple[int, int]]:
        return []


class _ShortAnnotations(TextProcessor):
    def annotate(self, tokens):
        return super().annotate(tokens)[:-1]


def test_probe_names_what_a_backend_gets_wrong():
    probe_processor(TextProcessor("de"), "builtin")  # the language-independent processor passes
    with pytest.raises(InputError, match="splits no sentence"):
        probe_processor(_NoSentences("en"), "spacy:x")
    with pytest.raises(InputError, match="lemma/POS pairs for"):
        probe_processor(_ShortAnnotations("en"), "spacy:x")


# --------------------------------------------------------------------------- pages rejected for one reason


def test_dominant_reject_is_the_reason_over_the_share_of_usable_pages():
    stats = {"pages_used": 1, "pages_rejected": {"label_error": 3}, "pages_skipped": {"redirect": 50}}
    found = dominant_reject(stats, 0.5)
    assert (found.reason, found.pages, found.candidates) == ("label_error", 3, 4)  # skipped pages do not count
    assert dominant_reject(stats, 0.8) is None and dominant_reject(stats, 1.0) is None
    assert dominant_reject({"pages_used": 2, "pages_rejected": {"truncated": 2}}, 0.5) is None  # half is not more
    two = {"pages_used": 1, "pages_rejected": {"bad_page_id": 1, "empty_title": 1}}
    assert dominant_reject(two, 0.5) is None  # two reasons, a third of the pages each
    assert dominant_reject({"pages_used": 0, "pages_rejected": {}}, 0.5) is None


def _every_article_fails(monkeypatch) -> None:
    from wikisilver import labels

    def failing(self, article, targets, own=None, deadline=None):
        raise ValueError("[E030] Sentence boundaries unset (injected)")

    monkeypatch.setattr(labels.Labeller, "label_article", failing)


@pytest.mark.slow
def test_a_build_whose_every_page_is_rejected_fails_and_is_not_finished(tmp_path, monkeypatch, capsys):
    _every_article_fails(monkeypatch)
    out = tmp_path / "out"
    assert main(["build", "--demo", "--out", str(out), "--progress-interval", "0"]) == 1
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if "error" in line]
    assert len(errors) == 1 and "Traceback" not in captured.err, captured.err
    assert "8 of 8 pages (100%) were rejected for label_error" in errors[0]
    assert "[E030]" in errors[0] and "--max-reject-share 0.5" in errors[0]
    assert "corpus written" not in captured.out
    assert not (out / "manifest.json").exists() and not (out / "README.md").exists()
    stats = json.loads((out / "stats.json").read_text())  # left to inspect, with the rejects
    assert stats["pages_rejected"] == {"label_error": 8} and stats["sentences_kept"] == 0
    assert sum(len(part.read_text().splitlines()) for part in (out / "rejects").iterdir()) == 8
    # The same run again: not "nothing to do" (no manifest), the same failure.
    assert main(["build", "--demo", "--out", str(out), "--progress-interval", "0"]) == 1
    # Allowed by the user: written and finished, rc 0, with its rejects warned about.
    assert main(["build", "--demo", "--out", str(out), "--max-reject-share", "1", "--progress-interval", "0"]) == 0
    assert (out / "manifest.json").exists()


# --------------------------------------------------------------------------- inputs in the wrong language


def test_english_types_looked_up_as_german_or_italian_titles_warn():
    types = [str(shared_file(TYPES_100K)), str(shared_file(TYPES_111K))]
    warnings = types_language_warnings(types, "de")
    assert len(warnings) == 2 and all("en DBpedia resources" in w and "--types-lang en" in w for w in warnings)
    assert len(types_language_warnings(types[:1], "it")) == 1
    assert types_language_warnings(types, "en") == []


def test_build_options_with_english_types_on_a_german_dump_warn_and_on_english_do_not(caplog):
    types = (str(shared_file(TYPES_100K)), str(shared_file(TYPES_111K)))
    with caplog.at_level(logging.WARNING, logger="wikisilver.config"):
        resolve_build({"dumps": (str(shared_file(DEWIKI)),), "lang": "de", "types": types, "out": "unused"})
    german = [r.getMessage() for r in caplog.records]
    assert any("en DBpedia resources" in m and "--types-lang" in m for m in german), german
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="wikisilver.config"):
        resolve_build({"dumps": (str(shared_file(ENWIKI_EXTRACT)),), "lang": "en", "types": types, "out": "unused"})
    assert caplog.records == []


def test_a_hungarian_dump_whose_header_says_enwiki_does_not_read_as_english():
    huwiki = str(shared_file(HUWIKI))
    warnings = text_language_warnings(huwiki, "en", "en")
    assert len(warnings) == 1 and "do not read as en" in warnings[0] and "--lang" in warnings[0]
    assert text_language_warnings(huwiki, "hu", "en") == []  # --lang hu given: it reads as Hungarian
    assert text_language_warnings(str(shared_file(DEWIKI)), "en", "en")  # German, built as English
    assert text_language_warnings(str(shared_file(ENWIKI_EXTRACT)), "en", "en") == []
    assert text_language_warnings(str(shared_file(DEWIKI)), "de", "en") == []  # no de function words: not judged


# Raw counts of real builds with the shared English DBpedia types (db100k + db111k).
ENGLISH_EXTRACT = ({"link_targets": 16649, "titles_typed_by.types": 2439, "titles_typed_by.curated": 5},
                   {"tokens_kept": 190_000, "ne_density": 0.026})
ITALIAN_WITH_ENGLISH_TYPES = ({"link_targets": 28132, "titles_typed_by.types": 2209},
                              {"tokens_kept": 250_000, "ne_density": 0.0102})
UKRAINIAN_WITH_ENGLISH_TYPES = ({"link_targets": 31799, "titles_typed_by.types": 250, "titles_typed_by.calendar": 533},
                                {"tokens_kept": 200_000, "ne_density": 0.0018})


def test_coverage_far_below_a_matching_language_warns_with_the_likely_causes():
    counts, stats = UKRAINIAN_WITH_ENGLISH_TYPES
    warnings = coverage_warnings(counts, stats, class_sources=True, lang="uk", types_lang="uk", header_lang="uk")
    assert len(warnings) == 1
    assert "only 0.8% of the 31,799 link targets found a type" in warnings[0] and "NE density 0.18%" in warnings[0]
    assert "--types-lang" in warnings[0] and "pass --lang" in warnings[0]
    for counts, stats in (ENGLISH_EXTRACT, ITALIAN_WITH_ENGLISH_TYPES):
        assert coverage_warnings(counts, stats, class_sources=True, lang="en", types_lang="en", header_lang="en") == []
    tiny = ({"link_targets": 40, "titles_typed_by.types": 0}, {"tokens_kept": 300, "ne_density": 0.0})
    assert coverage_warnings(*tiny, class_sources=True, lang="en", types_lang="en", header_lang="en") == []


@pytest.mark.slow
def test_english_types_on_the_ukrainian_dump_warn_in_the_summary_stats_and_card(tmp_path, capsys, caplog):
    dump = shared_file("wikidumps/ukwiki-truncated-100k.xml.xz")
    out = tmp_path / "out"
    args = ["build", "--dump", str(dump), "--lang", "uk", "--types", str(shared_file(TYPES_100K)),
            "--types", str(shared_file(TYPES_111K)), "--max-pages", "150", "--progress-interval", "0"]
    assert main([*args, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "en DBpedia resources" in caplog.text  # before the build
    assert "wikisilver build: warning: only" in err and "link targets found a type" in err  # after it
    stats = json.loads((out / "stats.json").read_text())
    assert len(stats["warnings"]) == 1 and "--types-lang" in stats["warnings"][0]
    assert "## Warnings" in (out / "README.md").read_text()


# --------------------------------------------------------------------------- the wiki's name


def test_card_names_the_wiki_of_the_build_language_not_a_wrong_header():
    manifest = {"language": "hu", "version": "0", "dumps": [
        {"path": "/d/huwiki-minidump.xml.bz2", "dbname": "enwiki", "language": "en", "sha256": "ab" * 32}]}
    card = dataset_card(manifest, {"sentences_kept": 3})
    assert "# Silver NER corpus of huwiki" in card and "authors of the huwiki articles" in card
    assert "https://hu.wikipedia.org/wiki/<title>" in card and "<lang>" not in card
    assert "(huwiki; its <siteinfo> says enwiki," in card
    assert wiki_name({"language": "en", "dumps": [{"dbname": "enwiktionary", "language": "en"}]}) == "enwiktionary"
    assert wiki_name({"language": "zh-yue", "dumps": []}) == "zh_yuewiki"


@pytest.mark.slow
def test_hungarian_build_from_all_languages_mappings_is_named_huwiki(tmp_path, capsys):
    from wikisilver.report.html import write_report

    out = tmp_path / "out"
    assert main(["build", "--dump", str(shared_file(HUWIKI)), "--lang", "hu",
                 "--infobox-mappings", str(shared_file(MAPPINGS)), "--out", str(out), "--progress-interval", "0"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"]["infobox_mappings"].endswith("/mappings/hu")
    assert json.loads((out / "stats.json").read_text())["titles_typed_by_source"].get("infobox", 0) > 0
    card = (out / "README.md").read_text()
    assert "Silver NER corpus of huwiki" in card and "https://hu.wikipedia.org/wiki/" in card
    assert "enwiki articles" not in card and "corpus of enwiki" not in card
    page = Path(write_report(out).target).read_text()
    assert "huwiki (articles on hu.wikipedia.org)" in page and "(enwiki," not in page


# --------------------------------------------------------------------------- --infobox-mappings


def test_infobox_mappings_take_the_folder_of_all_languages():
    from wikisilver.entities.infobox import mapping_directory, mapping_language_warning

    parent = str(shared_file(MAPPINGS))
    assert mapping_directory(parent, "hu") == f"{parent}/hu"
    assert mapping_directory(f"{parent}/hu", "hu") == f"{parent}/hu"  # one language's folder, as before
    assert mapping_directory("/no/such/folder", "hu") == "/no/such/folder"  # the input check names it
    with pytest.raises(InputError, match="no DBpedia mapping files .* and no xx/ folder"):
        mapping_directory(parent, "xx")
    assert "mapping files of en" in mapping_language_warning(f"{parent}/en", "hu")
    assert mapping_language_warning(f"{parent}/it", "it") is None
    config = resolve_build({"dumps": (str(shared_file("wikidumps/itwiki-small-dump.xml.gz")),), "lang": "it",
                            "infobox_mappings": parent, "out": "unused"})
    assert config.infobox_mappings == f"{parent}/it"
