"""Nothing lost, nothing crashes: bad input, faults and reruns of ``wikisilver build``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from build_support import check_accounting, read_corpus, read_rejects, read_stats
from conftest import shared_file
from wikisilver.cli import main
from wikisilver.config.resolve import demo_inputs

DEMO_DUMP, DEMO_TYPES = demo_inputs()


@pytest.mark.slow
def test_truncated_dump_keeps_complete_pages_and_warns(tmp_path, capsys):
    dump = shared_file("wikidumps/mrwiki-truncated-100k.xml.xz")
    out = tmp_path / "out"
    assert main(["build", "--dump", str(dump), "--lang", "mr", "--types", DEMO_TYPES, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "rejected" in err
    stats = read_stats(out)
    check_accounting(stats)
    assert stats["pages_rejected"] == {"truncated": 1}
    assert stats["pages_read"] > 200
    rejects = read_rejects(out)
    assert [r["reason"] for r in rejects] == ["truncated"]
    assert rejects[0]["source"].endswith("mrwiki-truncated-100k.xml.xz") and rejects[0]["title"]


@pytest.mark.slow
def test_truncated_dump_fails_under_strict(tmp_path):
    dump = shared_file("wikidumps/mrwiki-truncated-100k.xml.xz")
    code = main(["build", "--dump", str(dump), "--lang", "mr", "--types", DEMO_TYPES, "--strict",
                 "--out", str(tmp_path / "out")])
    assert code == 1
    assert (tmp_path / "out" / "manifest.json").exists()  # the corpus is still written, and says so


@pytest.mark.slow
def test_corrupt_bz2_block_keeps_pages_before_it(tmp_path):
    data = bytearray(Path(DEMO_DUMP).read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)
    broken = tmp_path / "broken-pages-articles.xml.bz2"
    broken.write_bytes(bytes(data))
    out = tmp_path / "out"
    assert main(["build", "--dump", str(broken), "--lang", "en", "--types", DEMO_TYPES, "--out", str(out)]) == 0
    stats = read_stats(out)
    check_accounting(stats, complete=False)  # the demo dump is one bz2 block: no page is left to read
    assert stats["stream_errors"], "the corrupt block must be reported"
    rejects = read_rejects(out)
    assert any(r["source"].endswith("broken-pages-articles.xml.bz2") and r["offset"] is not None for r in rejects)


@pytest.mark.slow
def test_utf16_dump_is_read_correctly(tmp_path):
    dump = shared_file("wikidumps/gensim_bgwiki-latest-pages-articles-shortened.xml.bz2")
    out = tmp_path / "out"
    assert main(["build", "--dump", str(dump), "--lang", "bg", "--types", DEMO_TYPES, "--out", str(out)]) == 0
    stats = read_stats(out)
    check_accounting(stats)
    assert stats["pages_read"] == 3 and not stats["pages_rejected"]
    tokens = [tok for row in read_corpus(out) for tok in row["tokens"]]
    assert tokens and all("\ufffd" not in tok and "\r" not in tok for tok in tokens)
    assert any(any("\u0400" <= ch <= "\u04ff" for ch in tok) for tok in tokens), "Cyrillic text expected"


def test_unwritable_output_is_one_line_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert main(["build", "--demo", "--out", str(blocker / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not writable" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_failing_page_goes_to_rejects_not_down_with_the_run(tmp_path, monkeypatch):
    from wikisilver import labels

    original = labels.Labeller.label_article

    def flaky(self, article, targets, own=None, deadline=None):
        if article.title == "Vienna":
            raise RuntimeError("injected fault")
        return original(self, article, targets, own, deadline)

    monkeypatch.setattr(labels.Labeller, "label_article", flaky)
    out = tmp_path / "out"
    assert main(["build", "--demo", "--out", str(out)]) == 0
    stats = read_stats(out)
    check_accounting(stats)
    assert stats["pages_rejected"] == {"label_error": 1}
    assert stats["pages_used"] == 7
    rejects = read_rejects(out)
    assert rejects[0]["title"] == "Vienna" and "injected fault" in rejects[0]["detail"]


@pytest.mark.slow
def test_killed_run_leaves_no_finished_corpus_and_rerun_gives_same_corpus(tmp_path):
    dump = shared_file("wikidumps/gensim_enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2")
    types = shared_file("dbpedia/types/db100k-types.nt.bz2")
    args = ["build", "--dump", str(dump), "--lang", "en", "--types", str(types)]
    killed = tmp_path / "killed"
    command = [sys.executable, "-m", "wikisilver.cli", "-q", *args, "--out", str(killed)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(killed.glob(".staging-*")):
        time.sleep(0.05)
    time.sleep(1.0)  # let the job get going
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (killed / "manifest.json").exists(), "a killed run must not look finished"
    assert main([*args, "--out", str(killed)]) == 0  # no --overwrite needed: nothing finished there
    clean = tmp_path / "clean"
    assert main([*args, "--out", str(clean)]) == 0
    assert read_corpus(killed) == read_corpus(clean)
    assert read_stats(killed) == read_stats(clean)
    assert not list(killed.glob(".staging-*")), "the rerun sweeps the killed run's staging directory"


@pytest.mark.slow
def test_edge_case_dump_with_reused_page_ids(tmp_path):
    """tinywiki: every page but one has id 1, one title twice, a redirect without <redirect/>, a dab
    page. Page ids are unique in the corpus: of the five articles with id 1, the first title keeps
    it ("Big Page"), the others are rejected saying which title has it."""
    dump = shared_file("wikidumps/tinywiki-latest-pages-articles.xml")
    out = tmp_path / "out"
    # two thirds of its pages reuse an id: a dump made of edge cases, allowed by --max-reject-share 1
    assert main(["build", "--dump", str(dump), "--types", DEMO_TYPES, "--out", str(out),
                 "--max-reject-share", "1"]) == 0  # --lang from siteinfo
    stats = read_stats(out)
    check_accounting(stats)
    assert stats["pages_read"] == 8
    assert stats["pages_skipped"] == {"disambiguation": 1, "redirect": 1}
    assert stats["pages_rejected"] == {"duplicate_page_id": 4}  # Hello, Duplicate title (twice), Bodmin
    assert stats["pages_used"] == 2  # Big Page (id 1) and Toronto (id 18)
    rows = read_corpus(out)
    assert {row["title"] for row in rows if row["page_id"] == 1} == {"Big Page"}
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids))  # unique, as documented
    rejected = sorted((r["title"], r["detail"]) for r in read_rejects(out))
    assert [title for title, _ in rejected] == ["Bodmin", "Duplicate title", "Duplicate title", "Hello"]
    assert all("'Big Page'" in detail for title, detail in rejected if title != "Duplicate title")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["language"] == "ltg"
