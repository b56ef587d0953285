"""The HTML corpus report: numbers from stats.json, embedded plots, no external URLs, escaping."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytest.importorskip("matplotlib", reason="wikisilver report needs matplotlib (pip install matplotlib)")

from wikisilver import cli
from wikisilver.errors import InputError
from wikisilver.corpus.write import write_part
from wikisilver.records import EntitySpan, LabelledSentence
from wikisilver.report.html import render_sentence
from wikisilver.report.profile import SampleSentence, profile_corpus, summarize_rejects

EVIL_TOKEN = "<script>alert(1)</script>"
EVIL_TARGET = '"><img src=x onerror=alert(2)>'


@pytest.fixture(scope="module")
def demo(demo_corpus) -> Path:
    return demo_corpus


@pytest.fixture(scope="module")
def demo_report(demo, tmp_path_factory) -> Path:
    """The demo's report, written outside the shared demo corpus."""
    out = tmp_path_factory.mktemp("report") / "demo.report.html"
    assert cli.main(["report", str(demo), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def demo_html(demo_report) -> str:
    return demo_report.read_text(encoding="utf-8")


def _stats(corpus: Path) -> dict:
    return json.loads((corpus / "stats.json").read_text(encoding="utf-8"))


def _copy_metadata(demo: Path, target: Path) -> Path:
    """A corpus with the demo's stats and manifest and no parts yet."""
    (target / "parquet").mkdir(parents=True)
    for name in ("stats.json", "manifest.json"):
        shutil.copy(demo / name, target / name)
    return target


@pytest.mark.slow
def test_report_has_the_summary_numbers(demo, demo_html):
    stats = _stats(demo)
    for key in ("pages_read", "pages_used", "sentences_kept", "sentences_total", "tokens_kept",
                "sentences_low_quality", "sentences_dropped_unk", "entity_tokens"):
        assert f'<td class="num">{stats[key]:,}</td>' in demo_html, key
    assert f'<td class="num">{sum(stats["pages_skipped"].values()):,}</td>' in demo_html
    assert f"{stats['ne_density']:.4f}" in demo_html
    assert "<td>language</td><td>en</td>" in demo_html
    assert "demowiki-pages-articles.xml.bz2" in demo_html


def test_report_embeds_plots_and_nothing_external(demo_html):
    images = re.findall(r'<img src="data:image/png;base64,[A-Za-z0-9+/=]+"', demo_html)
    assert len(images) >= 4
    references = re.findall(r'(?:src|href)\s*=\s*["\']?([^"\'\s>]+)', demo_html, flags=re.IGNORECASE)
    assert references and all(ref.startswith("data:") for ref in references), references
    assert "@import" not in demo_html and "url(" not in demo_html
    assert "http://" not in demo_html and "https://" not in demo_html


def test_top_entities_and_samples_come_from_the_parquet(demo, demo_html):
    stats = _stats(demo)
    profile = profile_corpus(demo)
    assert profile.sentences == stats["sentences_kept"]
    assert sum(n * count for n, count in profile.sentence_lengths.items()) == stats["tokens_kept"]
    table = pq.read_table(demo / "parquet")
    targets = [s["target"] for spans in table.column("spans").to_pylist() for s in spans
               if s["conll"] == "LOC" and s["target"]]
    best = max(set(targets), key=lambda t: (targets.count(t), t))
    assert profile.top_entities["LOC"][0] == (best, targets.count(best))
    assert len(profile.samples) == 10 and all(s.spans for s in profile.samples)
    assert profile_corpus(demo).samples == profile.samples  # seeded: the same report twice
    assert f"<td>{best}</td>" in demo_html
    assert demo_html.count('<div class="sentence">') == 10


def test_pruned_counts_are_marked_approximate(demo):
    assert profile_corpus(demo).top_exact
    assert not profile_corpus(demo, max_tracked=2).top_exact


@pytest.mark.slow
def test_untrusted_tokens_and_targets_are_escaped(demo, tmp_path):
    corpus = _copy_metadata(demo, tmp_path / "evil")
    tokens = ("Alice", "wrote", EVIL_TOKEN, "in", "Paris", ".")
    sentence = LabelledSentence(
        page_id=1, title="A <b>bold</b> page", index=0, tokens=tokens, lemmas=tokens,
        pos=("PROPN", "VERB", "X", "ADP", "PROPN", "PUNCT"),
        dbpedia_tags=("B-Person", "O", "O", "O", "B-City", "O"),
        conll_tags=("B-PER", "O", "O", "O", "B-LOC", "O"),
        spans=(EntitySpan(0, 1, "PER", "Person", EVIL_TARGET, "link_entity"),
               EntitySpan(4, 5, "LOC", "City", "Paris", "link_entity")),
    )
    write_part([sentence], corpus / "part.tsv", corpus / "parquet" / "part-00000-of-00001.parquet")
    out = tmp_path / "evil.html"
    assert cli.main(["report", str(corpus), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html and "<img src=x" not in html and "<b>bold" not in html
    assert 'title="&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"' in html
    assert '<mark class="ent ent-LOC" title="Paris">Paris<sub>LOC</sub></mark>' in html


def test_overlapping_spans_do_not_garble_the_sentence():
    sample = SampleSentence("T", 1, 0, ("New", "York", "City"),
                            ((0, 2, "LOC", "New York"), (1, 3, "LOC", "York City")), False)
    rendered = render_sentence(sample)
    assert rendered.startswith('<mark class="ent ent-LOC" title="New York">New York<sub>LOC</sub></mark>')
    assert rendered.endswith(" City")


def test_rejects_are_tabled_and_bad_lines_named(demo, tmp_path):
    corpus = _copy_metadata(demo, tmp_path / "rej")
    stats = _stats(corpus) | {"pages_rejected": {"truncated": 1, "parse_error": 2}}
    (corpus / "stats.json").write_text(json.dumps(stats), encoding="utf-8")
    (corpus / "rejects").mkdir()
    record = {"source": "x.bz2", "reason": "parse_error", "detail": "unbalanced {{", "page_id": 7,
              "title": "Broken page", "offset": 10, "snippet": "{{"}
    rejects = corpus / "rejects" / "part-00000.jsonl"
    rejects.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    summary = summarize_rejects(corpus, stats)
    assert [(r.reason, r.pages, r.records, r.example_title) for r in summary] == [
        ("parse_error", 2, 2, "Broken page"), ("truncated", 1, 0, None)]
    with rejects.open("a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    with pytest.raises(InputError, match=r"part-00000\.jsonl:line 3: invalid JSON"):
        summarize_rejects(corpus, stats)


def test_unfinished_corpus_is_one_line_error(tmp_path, capsys):
    (tmp_path / "parquet").mkdir()
    assert cli.main(["report", str(tmp_path)]) == 2
    error = capsys.readouterr().err.strip()
    assert "stats.json" in error and "not the directory of a finished `wikisilver build`" in error
    assert "\n" not in error


def _chromium() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def test_report_renders_in_a_headless_browser(demo_report, demo_html, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium on PATH (apt-get install chromium) to render the report headless")
    shot = tmp_path / "report.png"
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
         f"--screenshot={shot}", "--window-size=1200,3000", demo_report.as_uri()],
        check=True, capture_output=True, timeout=120,
    )
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 50_000  # a blank page is a few kB
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", demo_report.as_uri()],
        check=True, capture_output=True, timeout=120, text=True,
    ).stdout
    # The browser parsed the whole page: every table, plot and sample sentence is in its DOM.
    assert dom.count("<table") == demo_html.count("<table") > 0
    assert dom.count('src="data:image/png;base64,') == demo_html.count('src="data:image/png;base64,')
    assert dom.count('<div class="sentence">') == 10


def test_report_fits_a_normal_screen_width(demo_html, tmp_path):
    """At 1280 px the page needs no horizontal scrolling: every table, figure and sample sentence
    fits the window (measured by the browser itself on a copy of the page)."""
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium on PATH (apt-get install chromium) to render the report headless")
    probe = tmp_path / "probe.html"
    html = demo_html
    measure = ("<script>window.addEventListener('load', () => document.body.setAttribute('data-overflow',"
               " document.documentElement.scrollWidth - window.innerWidth));</script>")
    probe.write_text(html.replace("</body>", measure + "</body>"), encoding="utf-8")
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
         "--window-size=1280,800", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
        check=True, capture_output=True, timeout=120, text=True,
    ).stdout
    overflow = re.search(r'data-overflow="(-?\d+)"', dom)
    assert overflow is not None, "the browser did not run the measurement"
    assert int(overflow.group(1)) <= 0
