"""SPARQL source of entity types: a real Oxigraph server on loopback, and scripted faulty servers."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlparse

import pytest
from conftest import TYPES_100K, shared_file

from wikisilver.errors import WikisilverError
from wikisilver.entities.rdf import RDF_TYPE, iter_triples, resource_title
from wikisilver.errors import SparqlError
from wikisilver.entities.sparql import SparqlConfig, check_endpoint, query_types, resource_iris, types_query
from wikisilver.titles import title_from_uri

DBR = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"
GRAPH = "http://example.org/graphs/types"
FAST = dict(retries=2, backoff=0.001, timeout=5.0)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# IRI spelling


def test_iri_keeps_dbpedia_punctuation_and_escapes_quotes_and_percent() -> None:
    assert resource_iris('"Heroes" (David Bowie album)') == (DBR + "%22Heroes%22_(David_Bowie_album)",)
    assert resource_iris("Crosby, Stills & Nash's 1969: live!") == (DBR + "Crosby,_Stills_&_Nash's_1969:_live!",)
    assert resource_iris("100% Pure?") == (DBR + "100%25_Pure%3F",)
    assert resource_iris("A^b `c` \\d") == (DBR + "A%5Eb_%60c%60_%5Cd",)


def test_non_ascii_title_has_iri_and_uri_spellings() -> None:
    assert resource_iris("Köln", "http://de.dbpedia.org/resource/") == (
        "http://de.dbpedia.org/resource/Köln",
        "http://de.dbpedia.org/resource/K%C3%B6ln",
    )
    assert resource_iris("Đồng Nai province")[1] == DBR + "%C4%90%E1%BB%93ng_Nai_province"


@pytest.mark.slow
def test_every_subject_of_the_real_type_dump_round_trips() -> None:
    # The dump's IRIs are DBpedia's own spelling: title_from_uri then resource_iris must give them back.
    subjects = {s for s, _, _ in iter_triples(str(shared_file(TYPES_100K)))}
    assert len(subjects) > 90_000
    wrong = [s for s in subjects if s not in resource_iris(title_from_uri(s))]
    assert wrong == []


def test_query_puts_iris_in_values_and_restricts_to_the_ontology() -> None:
    config = SparqlConfig("http://127.0.0.1:1/sparql", graph=GRAPH)
    query = types_query(config, [DBR + "A_(b)", DBR + "K%C3%B6ln"])
    assert f"VALUES ?s {{ <{DBR}A_(b)> <{DBR}K%C3%B6ln> }}" in query
    assert f"FROM <{GRAPH}>" in query
    assert f'STRSTARTS(STR(?type), "{DBO}")' in query


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(SparqlError, match="http"):
        SparqlConfig("localhost:8890/sparql")
    with pytest.raises(SparqlError, match="batch size"):
        SparqlConfig("http://localhost:8890/sparql", batch_size=0)
    with pytest.raises(SparqlError, match="not a valid IRI"):
        SparqlConfig("http://localhost:8890/sparql", graph="http://dbpedia.org> } DROP ALL {")


# ---------------------------------------------------------------------------------------------
# A real Oxigraph server


def _oxigraph_binary() -> str | None:
    beside = Path(sys.executable).parent / "oxigraph"
    return str(beside) if beside.exists() else shutil.which("oxigraph")


def _post_ntriples(base: str, text: str, graph: str | None = None) -> None:
    target = f"{base}/store?graph={quote(graph, safe='')}" if graph else f"{base}/store?default"
    request = urllib.request.Request(
        target, data=text.encode("utf-8"), method="POST", headers={"Content-Type": "application/n-triples"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status in (200, 201, 204)


def _select_triples() -> list[tuple[str, str, str]]:
    """A few hundred real type triples, of subjects whose titles are hard to spell as IRIs."""
    quotas = {"non-ascii": 40, "parentheses": 40, "comma": 30, "quote": 15, "apostrophe": 20, "other": 40}
    chosen: dict[str, str] = {}
    triples = []
    for subject, predicate, obj in iter_triples(str(shared_file(TYPES_100K))):
        if subject not in chosen:
            local = subject[len(DBR):]
            kind = (
                "non-ascii" if "%C" in local or "%E" in local
                else "quote" if "%22" in local
                else "parentheses" if "(" in local
                else "comma" if "," in local
                else "apostrophe" if "'" in local
                else "other"
            )
            if quotas[kind] == 0:
                continue
            quotas[kind] -= 1
            chosen[subject] = kind
        triples.append((subject, predicate, obj))
    assert not any(quotas.values()), f"the dump lacks some kinds of titles: {quotas}"
    return triples


@pytest.fixture(scope="module")
def oxigraph() -> Iterator[dict]:
    binary = _oxigraph_binary()
    if binary is None:
        pytest.skip("the `oxigraph` server is not installed (pip install oxigraph): no real SPARQL endpoint to test")
    port = _free_port()
    process = subprocess.Popen(
        [binary, "serve", "--bind", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    err = process.stderr.read().decode("utf-8", "replace").strip() if process.stderr else ""
                    pytest.skip(f"`{binary} serve` did not start: {err or 'no answer on ' + base}")
                time.sleep(0.05)
        triples = _select_triples()
        # Half of the non-ASCII resources go in with DBpedia's IRI spelling (Köln, not K%C3%B6ln):
        # mirrors hold either, and the client has to find both.
        lines, iri_form = [], set()
        non_ascii = [s for s in dict.fromkeys(s for s, _, _ in triples) if "%C" in s or "%E" in s]
        for s in non_ascii[::2]:
            iri_form.add(s)
        for s, p, o in triples:
            lines.append(f"<{unquote(s) if s in iri_form else s}> <{p}> <{o}> .")
        # Types outside the DBpedia ontology and dbo objects that are no classes must be left out.
        first = triples[0][0]
        extra = [
            f"<{first}> <{RDF_TYPE}> <http://www.w3.org/2002/07/owl#Thing> .",
            f"<{first}> <{RDF_TYPE}> <http://schema.org/Thing> .",
            f"<{first}> <{RDF_TYPE}> <{DBO}Wikidata:Q5> .",
            f"<{first}> <{DBO}wikiPageID> <{DBO}NotAType> .",
        ]
        _post_ntriples(base, "\n".join(lines + extra) + "\n")
        _post_ntriples(base, f"<{DBR}Only_in_graph> <{RDF_TYPE}> <{DBO}City> .\n", graph=GRAPH)
        # Expected answer, by a direct read of the same triples.
        expected: dict[str, list[str]] = {}
        for s, _, o in triples:
            classes = expected.setdefault(resource_title(s)[1], [])
            if o[len(DBO):] not in classes:
                classes.append(o[len(DBO):])
        yield {"endpoint": f"{base}/query", "expected": expected, "iri_form": iri_form}
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_oxigraph_answers_exactly_the_types_of_the_dump(oxigraph: dict) -> None:
    expected = oxigraph["expected"]
    assert len(expected) >= 150 and sum(map(len, expected.values())) >= 200
    titles = list(expected) + ["Absent title (not in the store)"]
    config = SparqlConfig(oxigraph["endpoint"], batch_size=37, **FAST)  # several batches, by POST
    pairs = list(query_types(config, titles))
    assert len(pairs) == len(set(pairs))
    got: dict[str, list[str]] = {}
    for title, cls in pairs:
        got.setdefault(title, []).append(cls)
    assert {t: sorted(c) for t, c in got.items()} == {t: sorted(c) for t, c in expected.items()}
    # Pairs come in the order the titles were given.
    assert list(got) == [t for t in titles if t in got]


def test_titles_hard_to_spell_as_iris_are_found(oxigraph: dict) -> None:
    expected = oxigraph["expected"]
    iri_spelled = {resource_title(s)[1] for s in oxigraph["iri_form"]}
    kinds = {
        "non-ASCII, stored as URI": lambda t: not t.isascii() and t not in iri_spelled,
        "non-ASCII, stored as IRI": lambda t: t in iri_spelled,
        "double quote": lambda t: '"' in t,
        "comma": lambda t: "," in t,
        "parentheses": lambda t: "(" in t,
        "apostrophe": lambda t: "'" in t,
    }
    picked = {kind: [t for t in expected if test(t)][:3] for kind, test in kinds.items()}
    assert all(len(titles) == 3 for titles in picked.values()), picked
    config = SparqlConfig(oxigraph["endpoint"], batch_size=4, **FAST)  # short queries, by GET
    for kind, titles in picked.items():
        got = {t for t, _ in query_types(config, titles)}
        assert got == set(titles), kind


def test_resource_stored_under_both_spellings_gives_each_class_once(oxigraph: dict) -> None:
    base = oxigraph["endpoint"].rsplit("/", 1)[0]
    _post_ntriples(
        base,
        f"<{DBR}Zürich_Twin> <{RDF_TYPE}> <{DBO}City> .\n<{DBR}Z%C3%BCrich_Twin> <{RDF_TYPE}> <{DBO}City> .\n"
        f"<{DBR}Z%C3%BCrich_Twin> <{RDF_TYPE}> <{DBO}Place> .\n",
    )
    config = SparqlConfig(oxigraph["endpoint"], **FAST)
    assert list(query_types(config, ["Zürich Twin"])) == [("Zürich Twin", "City"), ("Zürich Twin", "Place")]


def test_types_outside_the_ontology_are_left_out(oxigraph: dict) -> None:
    first = next(iter(oxigraph["expected"]))
    config = SparqlConfig(oxigraph["endpoint"], **FAST)
    assert sorted(c for _, c in query_types(config, [first])) == sorted(oxigraph["expected"][first])


def test_named_graph_is_queried_when_configured(oxigraph: dict) -> None:
    in_graph = SparqlConfig(oxigraph["endpoint"], graph=GRAPH, **FAST)
    default = SparqlConfig(oxigraph["endpoint"], **FAST)
    assert list(query_types(in_graph, ["Only in graph"])) == [("Only in graph", "City")]
    assert list(query_types(default, ["Only in graph"])) == []


def test_check_endpoint_accepts_a_store_with_types(oxigraph: dict) -> None:
    check_endpoint(SparqlConfig(oxigraph["endpoint"], **FAST))
    check_endpoint(SparqlConfig(oxigraph["endpoint"], graph=GRAPH, **FAST))


def test_check_endpoint_refuses_an_empty_graph(oxigraph: dict) -> None:
    config = SparqlConfig(oxigraph["endpoint"], graph="http://example.org/graphs/empty", **FAST)
    with pytest.raises(SparqlError, match="holds no rdf:type triples"):
        check_endpoint(config)


def test_syntax_error_from_a_real_server_fails_at_once(oxigraph: dict) -> None:
    # A prefix that breaks the FILTER string makes a query Oxigraph rejects with HTTP 400.
    config = SparqlConfig(oxigraph["endpoint"], ontology_prefix="http://x/\n", **FAST)
    with pytest.raises(SparqlError, match="query rejected: HTTP 400"):
        list(query_types(config, ["Anything"]))


# ---------------------------------------------------------------------------------------------
# Scripted endpoints that fail


class ScriptedEndpoint:
    """A loopback HTTP server whose n-th request gets ``script(n, query)`` = (status, headers, body, delay)."""

    def __init__(self, script: Callable[[int, str], tuple[int, dict, bytes, float]]) -> None:
        self.script = script
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, query: str) -> None:
                outer.answer(self, query)

            def do_GET(self) -> None:
                self._answer(parse_qs(urlparse(self.path).query).get("query", [""])[0])

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                self._answer(parse_qs(self.rfile.read(length).decode("utf-8")).get("query", [""])[0])

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def answer(self, handler: BaseHTTPRequestHandler, query: str) -> None:
        """Answer one request as the script says."""
        self.requests.append(query)
        status, headers, body, delay = self.script(len(self.requests), query)
        time.sleep(delay)
        try:
            handler.send_response(status)
            for name, value in {"Content-Type": "application/sparql-results+json", **headers}.items():
                handler.send_header(name, value)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting, as it should

    def __enter__(self) -> ScriptedEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def answer_all(query: str, cls: str = "Person") -> bytes:
    """SPARQL JSON results giving every resource in the query's VALUES the class ``cls``."""
    values = query.split("VALUES ?s {", 1)[1].split("}", 1)[0]
    iris = [token.strip("<>") for token in values.split()]
    rows = [{"s": {"type": "uri", "value": iri}, "type": {"type": "uri", "value": DBO + cls}} for iri in iris]
    return json.dumps({"head": {"vars": ["s", "type"]}, "results": {"bindings": rows}}).encode()


def ok(query: str) -> tuple[int, dict, bytes, float]:
    return 200, {}, answer_all(query), 0.0


def test_unreachable_endpoint_fails_after_the_configured_retries() -> None:
    url = f"http://127.0.0.1:{_free_port()}/sparql"
    config = SparqlConfig(url, retries=3, backoff=0.001)
    with pytest.raises(SparqlError) as caught:
        list(query_types(config, ["Berlin", "Paris"]))
    message = str(caught.value)
    assert url in message and "batch 1 (2 titles from 'Berlin')" in message
    assert "cannot connect" in message and "after 4 attempts" in message
    assert "\n" not in message
    assert isinstance(caught.value, WikisilverError)


def test_503_twice_then_an_answer_succeeds() -> None:
    script = lambda n, q: (503, {}, b"busy", 0.0) if n <= 2 else ok(q)
    with ScriptedEndpoint(script) as endpoint:
        pairs = list(query_types(SparqlConfig(endpoint.url, **FAST), ["Berlin", "Zürich"]))
    assert pairs == [("Berlin", "Person"), ("Zürich", "Person")]
    assert len(endpoint.requests) == 3


def test_500_every_time_fails_naming_endpoint_and_batch() -> None:
    with ScriptedEndpoint(lambda n, q: (500, {"Content-Type": "text/plain"}, b"Virtuoso 42000 Error SR483", 0.0)) as endpoint:
        with pytest.raises(SparqlError, match=r"batch 1 .*HTTP 500 internal error: Virtuoso 42000 Error SR483; gave up after 3 attempts") as caught:
            list(query_types(SparqlConfig(endpoint.url, **FAST), ["Berlin"]))
    assert endpoint.url in str(caught.value)
    assert len(endpoint.requests) == 3


def test_endpoint_slower_than_the_timeout_fails() -> None:
    with ScriptedEndpoint(lambda n, q: (*ok(q)[:3], 1.5)) as endpoint:
        config = SparqlConfig(endpoint.url, timeout=0.2, retries=1, backoff=0.001)
        with pytest.raises(SparqlError, match=r"no answer within 0\.2 s; gave up after 2 attempts"):
            list(query_types(config, ["Berlin"]))
    assert len(endpoint.requests) == 2


def test_bad_query_fails_at_once() -> None:
    with ScriptedEndpoint(lambda n, q: (400, {"Content-Type": "text/plain"}, b"syntax error at line 3", 0.0)) as endpoint:
        with pytest.raises(SparqlError, match="query rejected: HTTP 400 bad query: syntax error at line 3"):
            list(query_types(SparqlConfig(endpoint.url, **FAST), ["Berlin"]))
    assert len(endpoint.requests) == 1


def test_too_many_requests_is_retried() -> None:
    script = lambda n, q: (429, {"Retry-After": "0"}, b"slow down", 0.0) if n == 1 else ok(q)
    with ScriptedEndpoint(script) as endpoint:
        assert list(query_types(SparqlConfig(endpoint.url, **FAST), ["Berlin"])) == [("Berlin", "Person")]
    assert len(endpoint.requests) == 2


def test_an_answer_that_is_not_sparql_json_is_an_error() -> None:
    page = b"<html><body>Welcome to nginx!</body></html>"
    with ScriptedEndpoint(lambda n, q: (200, {"Content-Type": "text/html"}, page, 0.0)) as endpoint:
        with pytest.raises(SparqlError, match="not SPARQL JSON results"):
            list(query_types(SparqlConfig(endpoint.url, **FAST), ["Berlin"]))


def test_a_failing_batch_raises_instead_of_ending_the_stream_early() -> None:
    # Batch 1 answers, batch 2 never does: the consumer must see an error, not a shorter list.
    script = lambda n, q: ok(q) if "Alpha" in q else (502, {"Content-Type": "text/plain"}, b"upstream down", 0.0)
    titles = ["Alpha", "Alpha b", "Gamma", "Delta"]
    with ScriptedEndpoint(script) as endpoint:
        stream = query_types(SparqlConfig(endpoint.url, batch_size=2, **FAST), titles)
        assert [next(stream), next(stream)] == [("Alpha", "Person"), ("Alpha b", "Person")]
        with pytest.raises(SparqlError, match=r"batch 2 \(2 titles from 'Gamma'\): HTTP 502 Bad Gateway: upstream down; gave up after 3 attempts"):
            next(stream)


def test_truncated_answer_is_split_and_asked_again() -> None:
    # Virtuoso's row cap: answers of more than two resources come back cut short, flagged by a header.
    def script(n: int, query: str) -> tuple[int, dict, bytes, float]:
        body = answer_all(query)
        if query.count("<" + DBR) > 2:
            rows = json.loads(body)
            rows["results"]["bindings"] = rows["results"]["bindings"][:2]
            return 200, {"X-SPARQL-MaxRows": "2"}, json.dumps(rows).encode(), 0.0
        return 200, {}, body, 0.0

    titles = [f"Title {i}" for i in range(7)]
    with ScriptedEndpoint(script) as endpoint:
        pairs = list(query_types(SparqlConfig(endpoint.url, batch_size=7, **FAST), titles))
    assert pairs == [(t, "Person") for t in titles]


def test_check_endpoint_fails_fast_on_a_wrong_url() -> None:
    with ScriptedEndpoint(lambda n, q: (404, {"Content-Type": "text/html"}, b"<h1>Not Found</h1>", 0.0)) as endpoint:
        with pytest.raises(SparqlError, match="start-up check: query rejected: HTTP 404 no SPARQL endpoint at this URL"):
            check_endpoint(SparqlConfig(endpoint.url, retries=4, backoff=0.001))
    assert len(endpoint.requests) == 1
    url = f"http://127.0.0.1:{_free_port()}/sparql"
    with pytest.raises(SparqlError, match="start-up check: cannot connect.*after 2 attempts"):
        check_endpoint(SparqlConfig(url, retries=4, backoff=0.001))


def test_check_endpoint_refuses_a_non_sparql_answer() -> None:
    with ScriptedEndpoint(lambda n, q: (200, {}, b'{"head": {}, "results": {"bindings": []}}', 0.0)) as endpoint:
        with pytest.raises(SparqlError, match="no boolean"):
            check_endpoint(SparqlConfig(endpoint.url, **FAST))


@pytest.mark.slow
def test_build_typed_by_a_real_sparql_endpoint_matches_the_types_dump(oxigraph: dict, tmp_path) -> None:
    """The build job asks the endpoint for its link targets' types: same corpus as from the dump."""
    import json

    import pyarrow.parquet as pq

    from wikisilver.cli import main
    from wikisilver.config.resolve import demo_inputs

    dump, types = demo_inputs()
    base = oxigraph["endpoint"].rsplit("/", 1)[0]
    _post_ntriples(base, Path(types).read_text(encoding="utf-8"))

    def corpus(out: Path) -> list[dict]:
        rows = [row for part in sorted((out / "parquet").glob("*.parquet")) for row in pq.read_table(part).to_pylist()]
        return sorted(rows, key=lambda r: (r["page_id"], r["sentence_index"]))

    by_dump, by_sparql = tmp_path / "dump", tmp_path / "sparql"
    assert main(["build", "--dump", dump, "--lang", "en", "--types", types, "--out", str(by_dump)]) == 0
    assert main(["build", "--dump", dump, "--lang", "en", "--sparql", oxigraph["endpoint"],
                 "--sparql-batch-size", "7", "--out", str(by_sparql)]) == 0
    assert corpus(by_sparql) == corpus(by_dump)
    stats = json.loads((by_sparql / "stats.json").read_text())
    # calendar pages: O; the curated table's titles (mappings/en/entities.tsv) its own
    assert set(stats["titles_typed_by_source"]) - {"calendar", "curated"} == {"sparql"}


# ---------------------------------------------------------------------------------------------
# Hostile endpoints: a trickle that never ends, an answer that never ends


class HostileEndpoint(ScriptedEndpoint):
    """Loopback server: ASK is answered true; other queries get ``mode``: "trickle-body" (one byte
    every 50 ms after the headers), "trickle-head" (the status line itself, byte by byte) or
    "huge" (1 MiB pieces with no Content-Length). Every loop is bounded (at most ~100 s or 512 MiB)."""

    def __init__(self, mode: str) -> None:
        super().__init__(lambda n, q: (200, {}, b'{"head": {}, "boolean": true}', 0.0))
        self.mode = mode

    def answer(self, handler: BaseHTTPRequestHandler, query: str) -> None:
        if query.lstrip().startswith("ASK"):
            super().answer(handler, query)
            return
        try:
            if self.mode == "trickle-head":
                for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"x" * 2000:
                    handler.wfile.write(bytes([byte]))
                    handler.wfile.flush()
                    time.sleep(0.05)
                return
            handler.send_response(200)
            handler.send_header("Content-Type", "application/sparql-results+json")
            handler.end_headers()
            if self.mode == "trickle-body":
                for byte in b'{"head": {}, "results": {"bindings": [' + b" " * 2000:
                    handler.wfile.write(bytes([byte]))
                    handler.wfile.flush()
                    time.sleep(0.05)
            else:
                piece = b" " * (1 << 20)
                for _ in range(512):
                    handler.wfile.write(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up, as it should


@pytest.mark.parametrize("mode", ["trickle-body", "trickle-head"])
def test_a_trickling_endpoint_is_cut_off_at_the_timeout(mode: str) -> None:
    # Each byte arrives well within any per-read timeout; only a bound on the whole request ends it.
    with HostileEndpoint(mode) as endpoint:
        config = SparqlConfig(endpoint.url, timeout=0.5, retries=1, backoff=0.001)
        started = time.monotonic()
        with pytest.raises(SparqlError, match=r"batch 1 .*no (complete )?answer within 0\.5 s; gave up after 2 attempts"):
            list(query_types(config, ["Berlin"]))
    assert time.monotonic() - started < 30  # not the 100 s the trickle would last


def test_a_huge_answer_fails_at_the_size_limit_without_retries() -> None:
    with HostileEndpoint("huge") as endpoint:
        config = SparqlConfig(endpoint.url, timeout=60, retries=3, backoff=0.001, max_answer_bytes=1 << 20)
        with pytest.raises(SparqlError, match=r"batch 1 .*answer is over the limit of 1,048,576 bytes"):
            list(query_types(config, ["Berlin"]))


@pytest.mark.slow
def test_build_against_a_trickling_endpoint_fails_in_bounded_time_with_one_line(tmp_path) -> None:
    from wikisilver.config.resolve import demo_inputs

    dump, _ = demo_inputs()
    with HostileEndpoint("trickle-body") as endpoint:
        result = subprocess.run(
            [sys.executable, "-m", "wikisilver.cli", "build", "--dump", dump, "--lang", "en", "--sparql", endpoint.url,
             "--sparql-timeout", "1", "--sparql-retries", "0", "--out", str(tmp_path / "out")],
            capture_output=True, text=True, timeout=120,
        )
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and "no answer within 1 s" in errors[0] and endpoint.url in errors[0], result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out" / "manifest.json").exists()
