"""End-to-end runs of ``wikisilver build`` (the Beam job) on the demo dump and on real dumps."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from build_support import check_accounting, read_corpus, read_stats, read_tsv_sentences
from conftest import ENWIKI_EXTRACT, ONTOLOGY, TYPES_100K, TYPES_111K, shared_file
from wikisilver.cli import main
from wikisilver.labels import RULES


def test_demo_build_writes_all_outputs(demo_corpus):
    out = demo_corpus
    for name in ("stats.json", "manifest.json"):
        assert (out / name).is_file()
    assert len(list((out / "tsv").glob("part-*.tsv"))) == 4
    assert len(list((out / "parquet").glob("part-*.parquet"))) == 4
    assert not list(out.glob(".staging-*")), "staging directory left behind"


def test_demo_stats_account_for_every_page(demo_corpus):
    stats = read_stats(demo_corpus)
    check_accounting(stats)
    # 8 articles, 5 redirects, 1 disambiguation page and 3 pages of other namespaces.
    assert stats["pages_read"] == 17
    assert stats["pages_used"] == 8
    assert stats["pages_skipped"] == {"disambiguation": 1, "namespace": 3, "redirect": 5}
    assert stats["sentences_kept"] > 5 and stats["sentences_dropped_unk"] > 0
    assert set(stats["rules_fired"]) == set(RULES)
    rows = read_corpus(demo_corpus)  # the density is the corpus's own: entity tokens of kept tokens
    tokens = sum(len(r["tokens"]) for r in rows)
    entity_tokens = sum(tag != "O" for r in rows for tag in r["conll_tags"])
    assert stats["tokens_kept"] == tokens and stats["entity_tokens"] == entity_tokens > 0
    assert stats["ne_density"] == round(entity_tokens / tokens, 6)
    assert stats["entities_by_tag"]["LOC"] > 5


def test_demo_sentence_is_labelled_as_the_paper_says(demo_corpus):
    rows = read_corpus(demo_corpus)
    by_text = {" ".join(r["tokens"]): r for r in rows}
    sentence = by_text["Budapest is the capital and the largest city of Hungary ."]
    assert sentence["conll_tags"] == ["B-LOC", "O", "O", "O", "O", "O", "O", "O", "O", "B-LOC", "O"]
    assert sentence["dbpedia_tags"][0] == "B-City" and sentence["dbpedia_tags"][9] == "B-Country"
    targets = {(s["start"], s["target"]) for s in sentence["spans"]}
    assert targets == {(0, "Budapest"), (9, "Hungary")}
    # Unlinked "Puskás" found through the alias set (the page's own title, a person: last name).
    moved = by_text["In 1958 , Puskás moved to Madrid ."]
    assert moved["conll_tags"] == ["O", "O", "O", "B-PER", "O", "O", "B-LOC", "O"]
    # [[Real Madrid CF|Real Madrid]]: the club, not the city.
    played = by_text["He played for Budapest Honvéd and for Real Madrid ."]
    assert played["conll_tags"][-3:] == ["B-ORG", "I-ORG", "O"]
    assert played["dbpedia_tags"][-3] == "B-SoccerClub"


def test_demo_tsv_matches_parquet(demo_corpus):
    rows = read_corpus(demo_corpus)
    tsv = read_tsv_sentences(demo_corpus)
    assert len(tsv) == len(rows)
    assert all(len(line) == 7 for sentence in tsv for line in sentence)
    assert sorted(tuple(line[0] for line in s) for s in tsv) == sorted(tuple(r["tokens"]) for r in rows)


def test_demo_manifest_records_inputs_and_config(demo_corpus):
    manifest = json.loads((demo_corpus / "manifest.json").read_text())
    assert manifest["language"] == "en"
    dump = manifest["dumps"][0]
    assert len(dump["sha256"]) == 64 and dump["bytes"] > 0 and dump["dbname"] == "enwiki"
    assert manifest["config"]["shards"] == 4
    assert manifest["started"] <= manifest["finished"]


@pytest.mark.slow
def test_progress_lines_name_stage_count_and_rate(tmp_path, caplog, demo_corpus):
    import re

    stats = read_stats(demo_corpus)
    with caplog.at_level("INFO", logger="wikisilver.progress"):
        assert main(["build", "--demo", "--out", str(tmp_path / "a"), "--progress-interval", "1e-9"]) == 0
    lines = [r.getMessage() for r in caplog.records if r.name == "wikisilver.progress"]
    counts = {}
    for line in lines:
        m = re.fullmatch(r"(read|clean|label): ([\d,]+) (pages|articles) on this worker so far, [\d.]+ \3/s", line)
        if m:
            counts[m.group(1)] = max(counts.get(m.group(1), 0), int(m.group(2).replace(",", "")))
    # With an interval this small every element is logged, so the last line holds the total.
    assert counts == {"read": stats["pages_read"], "clean": stats["pages_used"], "label": stats["pages_used"]}
    written = [line for line in lines if line.startswith("write: part-")]
    assert len(written) == 4 and sum(int(re.search(r"\(([\d,]+) sentences\)", w).group(1).replace(",", ""))
                                     for w in written) == stats["sentences_kept"]
    caplog.clear()
    with caplog.at_level("INFO", logger="wikisilver.progress"):
        assert main(["build", "--demo", "--out", str(tmp_path / "b"), "--progress-interval", "0"]) == 0
    assert not [r for r in caplog.records if r.name == "wikisilver.progress"]


@pytest.mark.slow
def test_a_quiet_clean_build_prints_nothing_on_stderr(tmp_path):
    # What a user of `-q` sees: no warning of Beam's about our transforms, no noise at all.
    command = [sys.executable, "-m", "wikisilver.cli", "-q", "build", "--demo", "--out", str(tmp_path / "o")]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stderr == ""
    assert "corpus written to" in done.stdout


def test_rerun_of_a_finished_build_is_skipped(demo_corpus, capsys):
    manifest = (demo_corpus / "manifest.json").read_text()
    assert main(["build", "--demo", "--out", str(demo_corpus)]) == 0
    assert "nothing to do" in capsys.readouterr().err
    assert (demo_corpus / "manifest.json").read_text() == manifest  # untouched


def test_finished_output_of_other_inputs_is_not_overwritten(demo_corpus, capsys):
    assert main(["build", "--demo", "--shards", "2", "--out", str(demo_corpus)]) == 2
    err = capsys.readouterr().err
    assert "--overwrite" in err and "Traceback" not in err
    assert len(list((demo_corpus / "tsv").glob("part-*"))) == 4


def test_missing_dump_is_one_line_error(tmp_path, capsys):
    code = main(["build", "--dump", str(tmp_path / "nope.xml.bz2"), "--lang", "en", "--types", "x", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "nope.xml.bz2" in err and "no such file" in err and len(err.strip().splitlines()) == 1


def test_wrong_language_is_one_line_error(tmp_path, capsys):
    assert main(["build", "--demo", "--lang", "English!", "--out", str(tmp_path / "o")]) == 2
    assert "not a Wikipedia language code" in capsys.readouterr().err


@pytest.mark.slow
def test_english_extract_single_and_two_workers_give_same_corpus(tmp_path):
    dump = shared_file(ENWIKI_EXTRACT)
    args = [
        "build", "--dump", str(dump), "--lang", "en", "--ontology", str(shared_file(ONTOLOGY)),
        "--types", str(shared_file(TYPES_100K)), "--types", str(shared_file(TYPES_111K)),
    ]
    one, two = tmp_path / "one", tmp_path / "two"
    assert main([*args, "--out", str(one)]) == 0
    assert main([*args, "--out", str(two), "--runner", "DirectRunner", "--direct_running_mode",
                 "multi_processing", "--direct_num_workers", "2"]) == 0
    stats = read_stats(one)
    check_accounting(stats)
    assert stats["pages_read"] == 206
    # 100 redirects (one of them in the Wikipedia: namespace) and 8 disambiguation pages.
    assert stats["pages_skipped"] == {"disambiguation": 8, "namespace": 1, "redirect": 99}
    assert stats["pages_used"] == 98
    assert stats["sentences_kept"] > 100
    assert read_corpus(one) == read_corpus(two)
    assert read_stats(two) == stats


def test_a_bad_config_file_is_one_line_error(tmp_path, capsys):
    config = tmp_path / "build.toml"
    config.write_text('lang = "en"\nno_such_option = 1\n')
    assert main(["build", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "no_such_option" in err and len(err.strip().splitlines()) == 1


def test_a_remote_job_is_followed_through_its_counters(caplog):
    """A runner whose run() returns at once (Dataflow, Flink): counters polled while it runs."""
    import threading
    from types import SimpleNamespace

    from wikisilver.pipelines.follow import JobFollower

    def counter(name, value):
        return SimpleNamespace(key=SimpleNamespace(metric=SimpleNamespace(name=name)), committed=value, attempted=value)

    polls = [[counter("pages_read", 1000), counter("articles_cleaned", 400)],
             RuntimeError("metrics service unavailable"),  # a failed look is skipped, not fatal
             [counter("pages_read", 3000), counter("articles_cleaned", 1500), counter("sentences_kept", 9000),
              # a count by reason is followed as its total, and a counter of two steps as their sum
              counter("pages_rejected.parse_error", 2), counter("pages_rejected.label_error", 1),
              counter("sentences_kept", 500)]]
    done = threading.Event()

    def query(_filter):
        answer = polls.pop(0)
        if not polls:
            done.set()
        if isinstance(answer, Exception):
            raise answer
        return {"counters": answer}

    result = SimpleNamespace(metrics=lambda: SimpleNamespace(query=query))
    with caplog.at_level("INFO", logger="wikisilver.pipelines.follow"):
        follower = JobFollower(result, interval=0.01)
        follower.start()
        assert done.wait(10)
        follower.stop()
    assert not follower.is_alive()
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("progress:")]
    assert len(lines) == 2
    assert lines[0].startswith("progress: pages_read 1,000 (") and "articles_cleaned 400 (" in lines[0]
    assert "pages_read 3,000 (" in lines[1] and "sentences_kept 9,500 (" in lines[1]
    assert "pages_rejected 3 (" in lines[1]


def test_articles_are_sent_only_the_targets_the_labeller_can_use(tmp_path):
    """The typing join answers a request with a TargetInfo only for a typed title or a
    disambiguation page: an untyped title (most link targets: common nouns) is what the labeller
    calls unknown anyway, so it is not sent (and its (article, target) pair never travels)."""
    import apache_beam as beam
    from apache_beam.testing.util import assert_that, equal_to

    from wikisilver.config import BuildConfig
    from wikisilver.pipelines.common import pcollections
    from wikisilver.pipelines.evidence import GatherEvidence
    from wikisilver.ontology import class_table
    from wikisilver.pipelines.typing import TypeRequestedTitles
    from wikisilver.pipelines.wiki_evidence import WikiEvidence
    from wikisilver.packed import pack, unpack
    from wikisilver.records import PageFlags

    types = tmp_path / "types.ttl"
    types.write_text(
        "<http://dbpedia.org/resource/Budapest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
        "<http://dbpedia.org/ontology/City> .\n", encoding="utf-8",
    )
    ontology, table = class_table(None)
    article = (1, "Danube")
    with beam.Pipeline("FnApiRunner") as pipeline:
        flags = pipeline | "Flags" >> beam.Create([
            ("Budapest", PageFlags("Budapest")), ("River", PageFlags("River")),
            ("Mercury", PageFlags("Mercury", is_disambiguation=True)), ("Danube", PageFlags("Danube")),
        ])
        requests = pipeline | "Requests" >> beam.Create([  # as ResolveRedirects hands them on: in packed batches
            ("Budapest", ("Budapest", (pack(((article, False),)),))), ("River", ("river", (pack(((article, False),)),))),
            ("Mercury", ("Mercury", (pack(((article, False),)),))), ("Danube", ("Danube", (pack(((article, True),)),))),
            ("Nowhere", ("Nowhere", (pack(((article, False),)),))),
        ])
        redirects = pipeline | "NoRedirects" >> beam.Create([])
        config = BuildConfig(dumps=(), lang="en", out="", types=(str(types),))
        # No infobox mappings, no langlinks.sql: those sources are None, not empty collections.
        wiki = WikiEvidence(flags, redirects, infobox=None, langlinks=None)
        evidence = pcollections(wiki) | GatherEvidence(config, requests)
        assert set(evidence.sources) == {"types"}  # the sources the run does not use are left out
        targets, _ = evidence.inputs() | TypeRequestedTitles("en", ontology, table, requests)
        # (article key, (title as written, packed TargetInfo, own title?)): an ArticleTarget
        sent = targets | beam.Map(lambda kv: (kv[0], kv[1][0], unpack(kv[1][1]).title,
                                              unpack(kv[1][1]).entity.conll if unpack(kv[1][1]).entity else None))
        assert_that(sent, equal_to([(article, "Budapest", "Budapest", "LOC"), (article, "Mercury", "Mercury", None)]))


def test_a_titles_requests_are_collected_whole_however_they_were_combined() -> None:
    """_CollectRequests as runners call it: lists within a bundle, packed across the shuffle, one
    packed accumulator handed on as it is, several merged; the same requests come out."""
    from wikisilver.packed import pack
    from wikisilver.pipelines.redirects import _CollectRequests, requests_of

    combine = _CollectRequests()
    a, b, c = [((1, "A"), False)], [((2, "B"), True), ((3, "C"), False)], [((4, "D"), False)]

    def requests(output: bytes) -> list:
        return sorted(requests_of([output]))

    one = combine.compact(combine.add_input(combine.add_input(combine.create_accumulator(), a), b))
    assert combine.extract_output(combine.merge_accumulators([one])) is one  # handed on as it is
    assert requests(combine.extract_output(combine.merge_accumulators([one]))) == sorted(a + b)
    merged = combine.merge_accumulators([one, combine.compact(c), list(c)])
    assert requests(combine.extract_output(merged)) == sorted(a + b + c + c)
    again = combine.add_input(combine.merge_accumulators([pack(a)]), c)  # an input after a merge
    assert requests(combine.extract_output(again)) == sorted(a + c)


TINY_ONTOLOGY = (
    "@prefix dbo: <http://dbpedia.org/ontology/> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    "dbo:Place a owl:Class .\ndbo:City a owl:Class ; rdfs:subClassOf dbo:Place .\ndbo:Person a owl:Class .\n"
)


@pytest.mark.slow
def test_manifest_records_the_ontology_file_and_its_checksum(tmp_path):
    ontology = tmp_path / "tiny.ttl"
    ontology.write_text(TINY_ONTOLOGY, encoding="utf-8")
    out = tmp_path / "corpus"
    assert main(["build", "--demo", "--ontology", str(ontology), "--out", str(out)]) == 0
    recorded = json.loads((out / "manifest.json").read_text())["inputs"]["ontology"]
    assert recorded["path"] == str(ontology) and recorded["bytes"] == ontology.stat().st_size
    assert recorded["sha256"] == hashlib.sha256(ontology.read_bytes()).hexdigest()


def test_a_bad_ontology_fails_before_the_output_is_touched(tmp_path, capsys):
    ontology = tmp_path / "broken.ttl"
    ontology.write_text("dbo:City a owl:Class ; rdfs:subClassOf {{{ .\n", encoding="utf-8")
    out = tmp_path / "corpus"
    assert main(["build", "--demo", "--ontology", str(ontology), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "broken.ttl" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_counts_are_summed_over_a_bundle_and_the_other_outputs_pass():
    """A DoFn that counts each element sends one count a bundle, not one an element: the sums
    are those of the elements, and its other outputs pass untouched."""
    import apache_beam as beam
    from apache_beam.testing.test_pipeline import TestPipeline
    from apache_beam.testing.util import BeamAssertException, assert_that, equal_to

    from wikisilver.pipelines.common import COUNTS, CountsPerBundle, count
    from wikisilver.pipelines.stats import MergeCounts

    class Doubled(CountsPerBundle):
        def outputs(self, n):
            yield count("seen")
            if n % 2:
                yield count("odd", n)
            yield 2 * n

    def fewer_than_the_elements(sizes):
        if not (len(sizes) == 1 and 1 <= sizes[0] < 100):
            raise BeamAssertException(f"{sizes} count elements for 100 elements")

    with TestPipeline() as pipeline:
        result = pipeline | beam.Create(range(1, 101)) | beam.ParDo(Doubled()).with_outputs(COUNTS, main="doubled")
        assert_that(result.doubled, equal_to([2 * n for n in range(1, 101)]), label="outputs")
        assert_that(result[COUNTS] | beam.CombineGlobally(MergeCounts()), equal_to([{"seen": 100, "odd": 2500}]),
                    label="sums")
        assert_that(result[COUNTS] | beam.combiners.Count.Globally(), fewer_than_the_elements, label="elements")
