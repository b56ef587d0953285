"""Hostile files bounded (issue [1/5] "Trust"): a DTD in any encoding, a page that makes alias
matching quadratic, pages that made labelling take gigabytes, huge titles, and inputs whose depth
made the code recurse (ontology chains and cycles, redirect hops, SPARQL answers). Each hostile
input is generated here; where the finding is about the CLI it runs as a subprocess and the test
asserts what the user sees: the exit code, the one line, stats.json and the rejects."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from build_support import check_accounting, read_rejects, read_stats
from dump_support import dump_xml
from label_support import article, entity
from test_hostile_runs import CLI_PEAK_RSS, billion_laughs, error_lines
from test_sparql import ScriptedEndpoint
from wikisilver.config.resolve import demo_inputs
from wikisilver.dump import iter_pages
from wikisilver.errors import SparqlError
from wikisilver.entities.sparql import MAX_JSON_DEPTH, SparqlConfig, check_endpoint, nests_deeper_than
from wikisilver.errors import InputError
from wikisilver.labels import Labeller
from wikisilver.labels.aliases import AliasIndex
from wikisilver.labels.limits import MAX_SENTENCE_CHARS, MAX_SENTENCE_TOKENS, MAX_TOKEN_CHARS
from wikisilver.labels.state import Mention
from wikisilver.ontology import THING, Ontology, depth, load_ontology, resolve_classes
from wikisilver.ontology.hierarchy import cycle_links, parents_first
from wikisilver.ontology.owl import refuse_dtd
from wikisilver.records import Article, PageReject
from wikisilver.text import get_processor
from wikisilver.wikitext import WikitextBudgetError

DEMO_DUMP, DEMO_TYPES = demo_inputs()
TIMEOUT = 300  # generous: the bound only says "does not hang"
DBO = "http://dbpedia.org/ontology/"


def wikisilver(*args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wikisilver.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr, result.stderr[-3000:]


# -- a DTD in any encoding ----------------------------------------------------------------------


def laughs_in(encoding: str) -> bytes:
    """The billion laughs ontology saved in ``encoding``, declared as such (UTF-16: with its BOM)."""
    text = billion_laughs().replace('<?xml version="1.0"?>', f'<?xml version="1.0" encoding="{encoding}"?>')
    return text.encode("utf-16" if encoding == "UTF-16" else encoding)


@pytest.mark.parametrize("encoding", ["UTF-16", "UTF-16LE", "UTF-16BE", "UTF-8"])
def test_a_dtd_is_refused_whatever_the_encoding(tmp_path, encoding) -> None:
    owl = tmp_path / "laughs.owl"
    owl.write_bytes(laughs_in(encoding))
    with pytest.raises(InputError, match=r"has a DTD \(<!DOCTYPE\): refused") as caught:
        refuse_dtd(str(owl))
    assert caught.value.position == "line 2"


def test_an_internal_entity_in_utf16_is_refused_not_expanded(tmp_path) -> None:
    owl = tmp_path / "entity.owl"
    owl.write_bytes(('<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE rdf:RDF [<!ENTITY e "Expanded">]>\n'
                     '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                     'xmlns:owl="http://www.w3.org/2002/07/owl#">\n'
                     f'<owl:Class rdf:about="{DBO}Laugh&e;"/>\n</rdf:RDF>\n').encode("utf-16"))
    with pytest.raises(InputError, match="has a DTD"):
        load_ontology(str(owl))


def test_the_real_ontologies_have_no_dtd(shared) -> None:
    for name in ("dbo-snapshots.owl", "dbpedia_2014.owl", "dbpedia_3.7.owl"):
        refuse_dtd(str(shared(f"dbpedia/ontology/{name}")))  # no error


def test_a_dtd_in_a_dump_is_never_read(tmp_path) -> None:
    """Pages are parsed one by one, without the prolog: an entity of the dump's DTD is undefined in
    its page, which is an xml_error reject; nothing is expanded, in UTF-16 as in UTF-8."""
    prolog = billion_laughs().split("<rdf:RDF", 1)[0].replace("rdf:RDF [", "mediawiki [")
    xml = dump_xml([(1, "Laughs", "LAUGHS"), (2, "Ada Lovelace", "Ada Lovelace was a mathematician.")])
    dump = tmp_path / "laughs.xml"
    dump.write_bytes((prolog.replace('version="1.0"', 'version="1.0" encoding="UTF-16"')
                      + xml.replace("LAUGHS", "&a9;")).encode("utf-16"))
    records = list(iter_pages(str(dump)))
    assert [(type(r).__name__, r.page_id, getattr(r, "reason", None)) for r in records] == [
        ("PageReject", 1, "xml_error"), ("Page", 2, None)]
    assert "undefined entity" in records[0].detail


@pytest.mark.parametrize("command", [pytest.param("build", marks=pytest.mark.slow), "classes"])
def test_utf16_billion_laughs_is_refused_at_once_in_one_line(tmp_path, command) -> None:
    owl = tmp_path / "laughs.owl"
    owl.write_bytes(laughs_in("UTF-16"))
    assert owl.stat().st_size < 2048
    out = tmp_path / "out"
    args = ["build", "--dump", DEMO_DUMP, "--lang", "en", "--types", DEMO_TYPES, "--out", str(out)] \
        if command == "build" else ["classes"]
    # Expanded, it ran 50-72 s in a build and over 300 s in `classes`: the timeout only says "does
    # not hang"; that nothing was expanded is the refusal itself, before any work (no output).
    result = wikisilver(*args, "--ontology", str(owl), timeout=60)
    assert result.returncode == 2, result.stderr
    assert error_lines(result.stderr) == [
        f"wikisilver {command}: error: {owl}:line 2: has a DTD (<!DOCTYPE): refused, entity expansion can blow up; "
        "DBpedia's ontology has none"]
    assert not out.exists()


# -- depth set by the input ----------------------------------------------------------------------


def owl_chain(path: Path, classes: int, cycle: bool) -> Path:
    """C0 < C1 < … < C(n-1) < Thing (C0 the deepest, first by name), or the same closed into a cycle."""
    head = ('<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#">\n')
    top = f"{DBO}C0" if cycle else "http://www.w3.org/2002/07/owl#Thing"
    body = "".join(f'<owl:Class rdf:about="{DBO}C{i}"><rdfs:subClassOf rdf:resource="'
                   f'{DBO}C{i + 1}"/></owl:Class>\n' if i + 1 < classes else
                   f'<owl:Class rdf:about="{DBO}C{i}"><rdfs:subClassOf rdf:resource="{top}"/></owl:Class>\n'
                   for i in range(classes))
    path.write_text(head + body + "</rdf:RDF>\n", encoding="utf-8")
    return path


def test_depth_of_a_chain_deeper_than_the_recursion_limit() -> None:
    n = 5 * sys.getrecursionlimit()
    ontology = Ontology({f"C{i}": (f"C{i + 1}" if i + 1 < n else THING,) for i in range(n)})
    assert depth(ontology, "C0") == n and depth(ontology, f"C{n - 1}") == 1
    order = [cls for cls, _ in parents_first(ontology)]
    assert order[0] == f"C{n - 1}" and order[-1] == "C0"
    table = resolve_classes(ontology, {THING: ("O", "O"), f"C{n - 1}": ("PER", "PERSON")})
    assert (table["C0"].conll, table["C0"].decided_by) == ("PER", f"C{n - 1}")


def test_a_long_cycle_is_cut_at_the_link_that_closes_it() -> None:
    n = 3 * sys.getrecursionlimit()
    ontology = Ontology({f"C{i}": (f"C{(i + 1) % n}",) for i in range(n)} | {"Leaf": ("C0",)})
    assert cycle_links(ontology) == ((f"C{n - 1}", "C0"),)
    assert depth(ontology, "Leaf") == n and depth(ontology, f"C{n - 1}") == 0
    assert resolve_classes(ontology, {THING: ("O", "O"), "C5": ("ORG", "ORG")})["Leaf"].conll == "ORG"


@pytest.mark.parametrize("cycle", [False, True], ids=["chain", "cycle"])
def test_classes_of_a_1000_deep_ontology_print_without_a_traceback(tmp_path, cycle) -> None:
    owl = owl_chain(tmp_path / "deep.owl", 1000, cycle)
    result = wikisilver("classes", "--ontology", str(owl))
    assert result.returncode == 0, result.stderr[-2000:]
    no_traceback(result)
    rows = dict(line.split("\t", 1) for line in result.stdout.splitlines()[1:])
    assert {"C0", "C999"} <= rows.keys()
    warnings = [line for line in result.stderr.splitlines() if "WARNING" in line]
    if cycle:
        assert len(warnings) == 1 and f"{owl}: 1 subClassOf link(s) close a cycle and are ignored (C999 -> C0)" in warnings[0]
    else:
        assert warnings == []


@pytest.mark.slow
def test_redirect_hops_over_100_is_refused_in_one_line(tmp_path) -> None:
    result = wikisilver("build", "--demo", "--out", str(tmp_path / "out"), "--redirect-hops", "1000", timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == "wikisilver build: error: --redirect-hops must be at most 100, not 1000"
    assert not (tmp_path / "out").exists()  # refused before any work


def deep_json(levels: int) -> bytes:
    return b'{"head": {}, "boolean": true, "x": ' + b"[" * levels + b"]" * levels + b"}"


def test_nesting_depth_is_measured_outside_strings() -> None:
    answer = json.dumps({"head": {"vars": ["s"]}, "results": {"bindings": [
        {"s": {"type": "uri", "value": "http://dbpedia.org/resource/[[[{{" + "[" * 100}}]}})
    assert not nests_deeper_than(answer, 5) and nests_deeper_than(answer, 4)
    assert nests_deeper_than(deep_json(200_000).decode(), MAX_JSON_DEPTH)
    assert nests_deeper_than("[" * 200_000, MAX_JSON_DEPTH)  # unclosed: json.loads would recurse all the same
    assert not nests_deeper_than("[" * 10 + "}", MAX_JSON_DEPTH)  # json.loads stops at the "}"
    assert not nests_deeper_than('"' + '\\"' * 1000, MAX_JSON_DEPTH)  # an unclosed string holds no brackets


def test_a_deeply_nested_sparql_answer_is_one_line() -> None:
    with ScriptedEndpoint(lambda n, q: (200, {}, deep_json(200_000), 0.0)) as endpoint:
        with pytest.raises(SparqlError, match=f"start-up check: answer is not SPARQL JSON results: nested more "
                                              f"than {MAX_JSON_DEPTH} levels deep; gave up after 1 attempt"):
            check_endpoint(SparqlConfig(endpoint.url, retries=0, backoff=0.001))


@pytest.mark.slow
def test_build_against_an_endpoint_answering_200k_deep_json_fails_in_one_line(tmp_path) -> None:
    with ScriptedEndpoint(lambda n, q: (200, {}, deep_json(200_000), 0.0)) as endpoint:
        result = wikisilver("build", "--demo", "--out", str(tmp_path / "out"), "--sparql", endpoint.url,
                            "--sparql-retries", "0", timeout=120)
    assert result.returncode != 0
    no_traceback(result)
    assert error_lines(result.stderr) == [
        f"wikisilver build: error: SPARQL endpoint {endpoint.url}: start-up check: answer is not SPARQL JSON "
        f"results: nested more than {MAX_JSON_DEPTH} levels deep; gave up after 1 attempt"]


# -- labelling bounded -----------------------------------------------------------------------------


def reference_match(forms: dict, tokens: list[str], mentions: list, i: int):
    """What the alias index answered before its trie: every form starting with tokens[i], longest first."""
    for form in sorted((f for f in forms if f[0] == tokens[i]), key=len, reverse=True):
        end = i + len(form)
        if end <= len(tokens) and tuple(tokens[i:end]) == form and all(m is None for m in mentions[i:end]):
            return form, forms[form]
    return None


def test_alias_trie_matches_what_the_longest_first_list_matched() -> None:
    rng = random.Random(7)
    words = ["John", "Mary", "Smith", "Todd", "of", "Lincoln", "X"]
    for _ in range(300):
        forms = {tuple(rng.choice(words) for _ in range(rng.randint(1, 4))): None for _ in range(rng.randint(1, 12))}
        forms = {form: Mention("PER", "Person", " ".join(form), "alias_match") for form in forms}
        index = AliasIndex(forms)
        tokens = [rng.choice(words) for _ in range(30)]
        mentions = [None if rng.random() < 0.85 else Mention("O", "O", "", "x") for _ in tokens]
        for i in range(len(tokens)):
            assert index.match(tokens, mentions, i) == reference_match(forms, tokens, mentions, i)


def test_word_after_word_matches_what_it_matched_when_tried_at_every_letter() -> None:
    """common_noun_unk's pattern is tried only where a run of word characters starts (linear); the
    pattern tried at every letter, as it was, finds the same words."""
    from wikisilver.labels.text_evidence import _AFTER_WORD

    at_every_letter = re.compile(r"[^\W\d_][\w'’-]*,? (?=([^\W\d_][\w'’-]*))")
    rng = random.Random(5)
    for _ in range(20_000):
        text = "".join(rng.choice("aAbZ1_'’-, .²é\n") for _ in range(rng.randint(0, 24)))
        assert [m.group(1) for m in _AFTER_WORD.finditer(text)] == [m.group(1) for m in at_every_letter.finditer(text)]


def labeller() -> Labeller:
    return Labeller("en", get_processor("en"))


def test_sentences_and_tokens_over_the_limits_are_counted_fragments() -> None:
    prose = "The cat sat on the mat."
    text = "\n".join([
        prose,
        "Words " + "and more " * (MAX_SENTENCE_CHARS // 9) + "end.",  # over the characters
        "Word " + ", " * MAX_SENTENCE_TOKENS + "end.",  # over the tokens, not the characters
        "A " + "x" * (MAX_TOKEN_CHARS + 1) + " token.",
        "A " + "x" * MAX_TOKEN_CHARS + " token is a word.",
    ])
    result = labeller().label_article(Article(1, "Test", text, ()), {})
    counts = result.counts
    assert counts["sentences_total"] == 5
    assert counts["sentences_dropped_fragment.long_sentence"] == 2
    assert counts["sentences_dropped_fragment.long_token"] == 1
    assert len(result.sentences) == 2  # the first and the last: a token of exactly the limit is a token


def test_labelling_past_the_deadline_raises_the_budget_error() -> None:
    with pytest.raises(WikitextBudgetError, match="labelling took longer than the time budget"):
        labeller().label_article(article("[[Ada Lovelace]] was born in [[London]]."), {}, deadline=time.perf_counter())


def test_an_article_over_the_budget_is_an_over_budget_reject() -> None:
    from wikisilver.pipelines.common import REJECTS
    from wikisilver.pipelines.label import label_group

    outputs = list(label_group(labeller(), 1, [article("Ada Lovelace was born in London.")], [], max_seconds=1e-9))
    [reject] = [o.value for o in outputs if getattr(o, "tag", None) == REJECTS]
    assert isinstance(reject, PageReject)
    assert (reject.reason, reject.detail) == ("over_budget", "labelling took longer than the time budget")


def john_page(links: int, johns: int) -> str:
    """``links`` persons named John X…, each linked once, then ``johns`` unlinked "John" tokens in
    sentences of twenty: every one of them starts ``links`` alias forms."""
    linked = " ".join(f"[[John X{i:05d}]] met him." for i in range(links))
    sentence = " ".join(["John"] * 19) + " left."
    return linked + "\n\n" + " ".join([sentence] * (johns // 20))


def person_types(path: Path, links: int) -> Path:
    triple = "<http://dbpedia.org/resource/John_X{i:05d}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{o}Person> .\n"
    path.write_text("".join(triple.format(i=i, o=DBO) for i in range(links)), encoding="utf-8")
    return path


@pytest.mark.slow
def test_the_john_page_ends_within_its_page_timeout(tmp_path) -> None:
    """4,000 linked persons named John X and 200,000 "John" tokens (1.1 MB): alias matching was
    quadratic (3 min 14 s with --page-timeout 5, and not rejected). Now the page is labelled in
    linear time, inside its budget or rejected over_budget when the budget is spent."""
    text = john_page(4000, 200_000)
    assert len(text) > 1_000_000
    dump = tmp_path / "john.xml"
    dump.write_text(dump_xml([(1, "Ada Lovelace", "[[Ada Lovelace]] was born in [[London]]."), (2, "Johns", text)]),
                    encoding="utf-8")
    types = person_types(tmp_path / "types.nt", 4000)
    out = tmp_path / "out"
    # The quadratic matcher ran 194 s: the subprocess timeout below it is the hang guard, not a speed test.
    result = wikisilver("build", "--dump", str(dump), "--lang", "en", "--types", str(types), "--types", DEMO_TYPES,
                        "--page-timeout", "5", "--out", str(out), "--progress-interval", "0", timeout=150)
    assert result.returncode == 0, result.stderr[-2000:]
    no_traceback(result)
    stats = read_stats(out)
    check_accounting(stats)
    assert stats["pages_read"] == 2 and stats["pages_used"] + stats["pages_rejected"].get("over_budget", 0) == 2
    assert [(r["title"], r["reason"]) for r in read_rejects(out)] in ([], [("Johns", "over_budget")])


def peak_build(tmp_path: Path, pages: list[tuple[int, str, str]]) -> tuple[dict, list[dict], int]:
    """Build a dump of ``pages`` in a fresh interpreter: its stats, rejects and peak RSS (MiB)."""
    dump = tmp_path / "hostile.xml"
    dump.write_text(dump_xml(pages), encoding="utf-8")
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-c", CLI_PEAK_RSS, "build", "--dump", str(dump), "--lang", "en", "--types", DEMO_TYPES,
         "--out", str(out), "--progress-interval", "0"], capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr[-2000:]
    no_traceback(result)
    stats = read_stats(out)
    check_accounting(stats)
    return stats, read_rejects(out), int(result.stderr.strip().splitlines()[-1].split()[-1])


ADA = (1, "Ada Lovelace", "[[Ada Lovelace]] was an English mathematician who lived in [[London]].")


@pytest.mark.slow
@pytest.mark.parametrize("hostile", ["'''''" * 200_000, "Some text here. <math>" + "x + y " * 170_000],
                         ids=["quote runs", "unclosed math"])
def test_a_megabyte_of_broken_markup_builds_in_bounded_memory(tmp_path, hostile) -> None:
    """1 MB of ``'''''`` (3.2 GB before) or an unclosed ``<math>`` (2.4 GB before): one sentence of
    a megabyte, now a long_sentence fragment, never tokenized or tagged."""
    stats, rejects, peak = peak_build(tmp_path, [ADA, (2, "Hostile", hostile)])
    assert stats["pages_used"] == 2 and rejects == []
    assert stats["sentences_dropped_fragment"]["long_sentence"] == 1
    print(f"peak RSS {peak} MiB")
    assert peak < 1024, f"peak RSS {peak} MiB"


def test_a_title_over_255_bytes_is_a_reject_and_the_next_page_is_read(tmp_path) -> None:
    long = "É" * 128  # 256 bytes
    dump = tmp_path / "titles.xml"
    dump.write_text(dump_xml([(1, long, "Text."), (2, "É" * 127, "Text."), (3, "After", "Text.")]), encoding="utf-8")
    records = list(iter_pages(str(dump)))
    assert [type(r).__name__ for r in records] == ["PageReject", "Page", "Page"]
    assert (records[0].reason, records[0].page_id, records[0].title) == ("long_title", 1, long)
    assert records[0].detail.endswith("page 1 has a title of 256 bytes, over MediaWiki's 255")


def test_a_namespace_prefix_does_not_count_against_the_title_bound(tmp_path) -> None:
    xml = dump_xml([(1, "x" * 255, "Text.")]).replace(f"<title>{'x' * 255}</title><ns>0</ns>",
                                                        f"<title>Talk:{'x' * 255}</title><ns>1</ns>")
    dump = tmp_path / "talk.xml"
    dump.write_text(xml, encoding="utf-8")
    [page] = list(iter_pages(str(dump)))
    assert page.ns == 1 and page.title == "Talk:" + "x" * 255


@pytest.mark.slow
def test_a_megabyte_title_is_one_reject_not_a_corpus_of_copies(tmp_path) -> None:
    """A 1 MB title on a 300-sentence page: 287 MB of TSV and 2.4 GB before."""
    text = " ".join(f"Ada Lovelace met Charles Babbage in London on day {i}." for i in range(300))
    stats, rejects, peak = peak_build(tmp_path, [ADA, (2, "T" * 1_000_000, text)])
    assert stats["pages_used"] == 1 and stats["pages_rejected"] == {"long_title": 1}
    assert [(r["page_id"], r["reason"], len(r["title"])) for r in rejects] == [(2, "long_title", 200)]
    assert sum(p.stat().st_size for p in (tmp_path / "out" / "tsv").glob("*.tsv")) < 100_000
    assert peak < 1024, f"peak RSS {peak} MiB"
