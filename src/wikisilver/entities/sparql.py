"""Step 1 input: entity types from a SPARQL endpoint (a user's own DBpedia mirror).

The alternative to reading DBpedia's instance-type dump (:func:`wikisilver.entities.rdf.iter_instance_types`):
ask a Virtuoso/Oxigraph/Fuseki mirror for the ``rdf:type`` classes, in the DBpedia ontology
namespace, of the titles a run needs. Titles go in batches as a ``VALUES`` list of resource IRIs,
escaped the way DBpedia writes them (:func:`resource_iris`), built by SPARQLWrapper with JSON
results and sent by :mod:`~wikisilver.entities.bounded_http`, which bounds each request's total time
(``--sparql-timeout``, however slowly the endpoint trickles) and its answer's size.

A corpus typed from half-answered queries would be silently wrong, so failures are never papered
over: connection errors, timeouts, HTTP 5xx/429 and unreadable answers are retried with capped
exponential backoff; when the retries are spent, or at once for a query the endpoint rejects
(HTTP 4xx), :class:`SparqlError` names the endpoint and the batch, and the caller turns it into a
failed run. A batch's pairs are only yielded once its whole answer is in, and an answer the
endpoint marks as truncated (Virtuoso's result-row cap or "anytime" partial results) is split and
asked again rather than used.
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import re
import time
import urllib.error
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from SPARQLWrapper import JSON, POST, GET, URLENCODED, SPARQLWrapper

from wikisilver.entities.bounded_http import fetch
from wikisilver.errors import AnswerTooLarge, SparqlError

log = logging.getLogger(__name__)

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
MAX_BACKOFF = 60.0  # seconds; a longer wait rarely helps and stalls a Beam bundle
POST_ABOVE = 2000  # query characters; longer queries go by POST (URL length limits of proxies)
CHECK_TIMEOUT = 10.0  # seconds, for the start-up check: a wrong URL should fail fast

# Characters DBpedia percent-encodes in resource IRIs (controls, the IRI-forbidden ASCII
# characters and C1 controls); a space becomes an underscore. These are also exactly the
# characters a SPARQL IRIREF cannot hold, so every IRI built here can go into a query verbatim.
_IRI_ESCAPES = frozenset(
    [chr(c) for c in range(0x00, 0x20)] + list('"#%<>?[\\]^`{|}') + [chr(c) for c in range(0x7F, 0xA0)]
)

_NOT_IN_IRIREF = frozenset('<>"{}|^`\\')


class _Truncated(Exception):
    """The endpoint answered, but marked the answer as partial."""


class _Rejected(Exception):
    """The endpoint refused the query itself (HTTP 4xx): retrying cannot help."""


@dataclass(frozen=True)
class SparqlConfig:
    """Where and how to ask: endpoint URL, batch size, and the patience of the client."""

    endpoint: str
    batch_size: int = 200  # titles per query (each may add two IRIs, see resource_iris)
    timeout: float = 30.0  # seconds per request, all of it (connecting, waiting, reading the answer)
    max_answer_bytes: int = 64 << 20  # a larger answer fails the batch
    retries: int = 4  # retries after the first attempt of each request
    backoff: float = 1.0  # first wait in seconds; doubles per retry, capped at MAX_BACKOFF
    resource_prefix: str = "http://dbpedia.org/resource/"
    ontology_prefix: str = "http://dbpedia.org/ontology/"
    graph: str | None = None  # named graph holding the types; None = the default graph

    def __post_init__(self) -> None:
        if not self.endpoint.startswith(("http://", "https://")):
            raise SparqlError(self.endpoint or "<none>", "configuration", "endpoint must be an http(s) URL")
        if self.batch_size < 1:
            raise SparqlError(self.endpoint, "configuration", "batch size must be at least 1")
        # Both go into queries verbatim, between angle brackets.
        for name, iri in (("graph", self.graph), ("resource prefix", self.resource_prefix)):
            if iri is not None and (not iri or any(c in _NOT_IN_IRIREF or c.isspace() for c in iri)):
                raise SparqlError(self.endpoint, "configuration", f"{name} {iri!r} is not a valid IRI")
        if self.timeout <= 0 or self.retries < 0 or self.backoff < 0 or self.max_answer_bytes < 1:
            raise SparqlError(self.endpoint, "configuration",
                              "timeout and answer size limit must be > 0, retries and backoff >= 0")


def _escape(local: str, ascii_only: bool) -> str:
    out: list[str] = []
    for ch in local:
        if ch == " ":
            out.append("_")
        elif ch in _IRI_ESCAPES or (ascii_only and ord(ch) > 0x7F):
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return "".join(out)


def resource_iris(title: str, resource_prefix: str = "http://dbpedia.org/resource/") -> tuple[str, ...]:
    """The resource IRI(s) DBpedia gives a title, IRI form first.

    DBpedia ships two spellings of the same resource: IRIs, with non-ASCII letters as they are
    (``Köln``), and URIs, with them percent-encoded as UTF-8 (``K%C3%B6ln``, the English N-Triples
    dumps). A mirror holds whichever its loader was given, so a title with non-ASCII letters asks
    for both; an ASCII title has one spelling. ``Foo "bar" (baz), 100%`` ->
    ``Foo_%22bar%22_(baz),_100%25``: parentheses, commas, apostrophes stay, as in DBpedia.
    """
    iri = resource_prefix + _escape(title, ascii_only=False)
    uri = resource_prefix + _escape(title, ascii_only=True)
    return (iri,) if iri == uri else (iri, uri)


def _batches(titles: Iterable[str], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    seen: set[str] = set()
    for title in titles:
        if not title or title in seen:
            continue  # a duplicate inside one batch would only repeat its pairs
        seen.add(title)
        batch.append(title)
        if len(batch) >= size:
            yield batch
            batch, seen = [], set()
    if batch:
        yield batch


def _from_clause(config: SparqlConfig) -> str:
    return f"FROM <{config.graph}>\n" if config.graph else ""


def types_query(config: SparqlConfig, iris: Iterable[str]) -> str:
    """The SELECT that fetches the DBpedia-ontology ``rdf:type`` classes of the given resources."""
    values = " ".join(f"<{iri}>" for iri in iris)
    prefix = config.ontology_prefix.replace("\\", "\\\\").replace('"', '\\"')
    return (
        "SELECT ?s ?type\n"
        f"{_from_clause(config)}"
        "WHERE {\n"
        f"  VALUES ?s {{ {values} }}\n"
        f"  ?s <{RDF_TYPE}> ?type .\n"
        f'  FILTER(isIRI(?type) && STRSTARTS(STR(?type), "{prefix}"))\n'
        "}"
    )


def _class_name(iri: str, ontology_prefix: str) -> str | None:
    # Same rule as the dump reader: a class local name starts upper-case and has no ':' or '/'
    # (real stores hold dbo:Wikidata:Q5-style objects and properties typed by mistake).
    if not iri.startswith(ontology_prefix):
        return None
    local = iri[len(ontology_prefix):]
    if not local or not local[0].isupper() or ":" in local or "/" in local:
        return None
    return local


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# What a status means to a SPARQL client, said in the message.
_STATUS_NAMES = {
    400: "HTTP 400 bad query",
    401: "HTTP 401 unauthorized",
    404: "HTTP 404 no SPARQL endpoint at this URL",
    414: "HTTP 414 query too long (lower the batch size)",
    500: "HTTP 500 internal error",
}


# SPARQL JSON results nest five deep (answer, results, bindings, row, term); json.loads recurses once
# per level, so a deeper answer is refused before it is parsed.
MAX_JSON_DEPTH = 32
# A string runs to its closing quote or to the end of the text (never fails, so never rescanned).
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\(?:.|\Z))*+(?:"|\Z)', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")
_OPENERS = re.compile(r"[\[{]*")


def nests_deeper_than(text: str, limit: int) -> bool:
    """Whether json.loads would go more than ``limit`` arrays and objects deep into JSON ``text``:
    its brackets outside strings, the innermost pairs removed once per level (``limit`` linear
    passes at most); brackets left that never pair up are read by json.loads until its first
    closer, where it fails."""
    brackets = _NOT_BRACKETS.sub("", _JSON_STRING.sub("", text))
    for _ in range(limit):
        inner = _INNERMOST.sub("", brackets)
        if inner == brackets:
            return _OPENERS.match(brackets).end() > limit
        brackets = inner
    return bool(brackets)


def _send(config: SparqlConfig, query: str, timeout: float) -> dict:
    """One request, all of it within ``timeout`` seconds and its answer within the size limit;
    raises _Rejected, _Truncated, AnswerTooLarge, or a transient error for the retry loop."""
    wrapper = SPARQLWrapper(config.endpoint)
    wrapper.setQuery(query)
    wrapper.setReturnFormat(JSON)
    if len(query) > POST_ABOVE:
        wrapper.setMethod(POST)
        wrapper.setRequestMethod(URLENCODED)
    else:
        wrapper.setMethod(GET)
    try:
        # SPARQLWrapper builds the request (parameters, Accept header); the transport is ours,
        # because urllib's timeout bounds each socket read, not the request.
        headers, body = fetch(wrapper._createRequest(), timeout, config.max_answer_bytes)
    except urllib.error.HTTPError as err:
        if 400 <= err.code < 500 and err.code not in (408, 429):
            raise _Rejected(_describe(err, timeout)) from None
        raise
    # Virtuoso caps result rows (ResultSetMaxRows) and, under load, may return "anytime"
    # partial results; both come back as HTTP 200 with one of these headers.
    capped = headers.get("X-SPARQL-MaxRows")
    partial = headers.get("X-SQL-State") if headers.get("X-SQL-State") == "S1TAT" else None
    if capped or partial:
        raise _Truncated(f"endpoint truncated the answer ({'row cap ' + capped if capped else 'anytime query timeout'})")
    try:
        text = body.decode("utf-8")
        deep = nests_deeper_than(text, MAX_JSON_DEPTH)
        data = None if deep else json.loads(text)
    except (UnicodeDecodeError, ValueError):
        raise ValueError(f"answer is not SPARQL JSON results: {_one_line(body[:120].decode('utf-8', 'replace'))!r}") from None
    if deep:
        raise ValueError(f"answer is not SPARQL JSON results: nested more than {MAX_JSON_DEPTH} levels deep")
    if not isinstance(data, dict) or not ("results" in data or "boolean" in data):
        raise ValueError("answer is not SPARQL JSON results (no 'results' or 'boolean' member)")
    return data


# Failures worth another try: the network, the server's load, a proxy's garbled page.
_TRANSIENT = (
    urllib.error.URLError,  # includes HTTPError 5xx/408/429 re-raised by _send
    http.client.HTTPException,
    OSError,  # connection refused/reset, socket timeouts
    ValueError,  # unreadable answer
)


def _ask(config: SparqlConfig, query: str, batch: str, retries: int, timeout: float) -> dict:
    """Run a query with retries; return its JSON answer or raise SparqlError."""
    attempts = retries + 1
    for attempt in range(1, attempts + 1):
        try:
            return _send(config, query, timeout)
        except _Rejected as err:
            raise SparqlError(config.endpoint, batch, f"query rejected: {err}") from None
        except _Truncated:
            raise
        except AnswerTooLarge as err:
            raise SparqlError(config.endpoint, batch, f"{err} (--sparql-max-answer-mb)") from None
        except _TRANSIENT as err:
            reason = _describe(err, timeout)
            if attempt == attempts:
                raise SparqlError(
                    config.endpoint, batch, f"{reason}; gave up after {attempts} attempt{'s' * (attempts > 1)}"
                ) from None
            delay = _delay(config.backoff, attempt, err)
            log.warning(
                "SPARQL endpoint %s: %s: %s; retry %d/%d in %.1f s",
                config.endpoint, batch, reason, attempt, retries, delay,
            )
            time.sleep(delay)
    raise AssertionError("unreachable")


def _describe(err: BaseException, timeout: float) -> str:
    if isinstance(err, urllib.error.HTTPError):
        try:
            body = err.read(300).decode("utf-8", "replace").strip()
        except (OSError, http.client.HTTPException):
            body = ""
        name = _STATUS_NAMES.get(err.code, f"HTTP {err.code} {err.reason}")
        return name + (f": {_one_line(body)}" if body else "")
    if isinstance(err, urllib.error.URLError):
        inner = err.reason
        if isinstance(inner, TimeoutError):
            return f"no answer within {timeout:g} s"
        return f"cannot connect ({getattr(inner, 'strerror', None) or inner})"
    if isinstance(err, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(err, OSError):
        return f"connection failed ({err.strerror or err})"
    return _one_line(str(err)) or type(err).__name__


def _delay(backoff: float, attempt: int, err: BaseException) -> float:
    delay = min(backoff * 2 ** (attempt - 1), MAX_BACKOFF)
    retry_after = getattr(err, "headers", None) and err.headers.get("Retry-After")
    if retry_after and retry_after.strip().isdigit():
        # A server that says when to come back knows its load better than our guess.
        return min(max(delay, float(retry_after)), MAX_BACKOFF)
    # Jitter, so that many workers that failed together do not retry together.
    return delay * (0.5 + random.random() / 2)


def _query_batch(config: SparqlConfig, titles: list[str], label: str) -> list[tuple[str, str]]:
    """(title, class) pairs of one batch, in the batch's title order; splits truncated answers."""
    by_iri: dict[str, str] = {}
    for title in titles:
        for iri in resource_iris(title, config.resource_prefix):
            by_iri[iri] = title
    try:
        data = _ask(config, types_query(config, by_iri), label, config.retries, config.timeout)
    except _Truncated as err:
        if len(titles) == 1:
            raise SparqlError(config.endpoint, label, str(err)) from None
        half = len(titles) // 2
        log.warning("SPARQL endpoint %s: %s: %s; asking again in two halves", config.endpoint, label, err)
        return _query_batch(config, titles[:half], label) + _query_batch(config, titles[half:], label)
    found: dict[str, list[str]] = {}
    try:
        bindings = data["results"]["bindings"]
        for row in bindings:
            subject, cls_iri = row["s"]["value"], row["type"]["value"]
            title = by_iri.get(subject)
            cls = _class_name(cls_iri, config.ontology_prefix)
            if title is None or cls is None:
                continue  # a store that rewrites IRIs would answer for resources we did not ask
            classes = found.setdefault(title, [])
            if cls not in classes:
                classes.append(cls)
    except (KeyError, TypeError) as err:
        raise SparqlError(config.endpoint, label, f"malformed SPARQL JSON results (missing {err})") from None
    return [(title, cls) for title in titles for cls in found.get(title, ())]


def _batch_label(number: int, titles: list[str]) -> str:
    return f"batch {number} ({len(titles)} title{'s' * (len(titles) > 1)} from {titles[0]!r})"


def query_types(config: SparqlConfig, titles: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(title, DBpedia class local name) for each class the endpoint gives each title.

    ``titles`` are normalized page titles (spaces, see :func:`wikisilver.titles.normalize_title`);
    they are read lazily and asked ``config.batch_size`` at a time. Pairs come in title order
    within a batch, one per distinct class (a mirror holding both IRI spellings of a resource
    gives each class once). Titles the store does not know yield nothing.

    Raises :class:`SparqlError` when a batch cannot be answered; the pairs of earlier batches
    have been yielded by then, so the caller must treat the error as a failed run, not a short one.
    """
    for number, batch in enumerate(_batches(titles, config.batch_size), 1):
        yield from _query_batch(config, batch, _batch_label(number, batch))


def check_endpoint(config: SparqlConfig) -> None:
    """Fail fast, with one clear line, if the endpoint is unreachable, not SPARQL, or typeless.

    One cheap ASK with a short timeout and at most one retry, so that a mistyped URL fails in
    seconds rather than after a full backoff schedule. An endpoint (or graph) holding no
    ``rdf:type`` triple at all is refused too: it would type nothing and look like a success.
    """
    query = f"ASK\n{_from_clause(config)}WHERE {{ ?s <{RDF_TYPE}> ?type }}"
    try:
        data = _ask(config, query, "start-up check", min(config.retries, 1), min(config.timeout, CHECK_TIMEOUT))
    except _Truncated as err:
        raise SparqlError(config.endpoint, "start-up check", str(err)) from None
    answer = data.get("boolean")
    if not isinstance(answer, bool):
        raise SparqlError(config.endpoint, "start-up check", "answer to ASK has no boolean (not a SPARQL endpoint?)")
    if not answer:
        where = f"graph <{config.graph}>" if config.graph else "the default graph"
        raise SparqlError(config.endpoint, "start-up check", f"{where} holds no rdf:type triples (wrong graph or empty store?)")
