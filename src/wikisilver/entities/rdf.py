"""Step 1 of the method, its main source: DBpedia's RDF, read as streaming pure functions.

* DBpedia instance types (``rdf:type`` triples, N-Triples or Turtle, optionally bz2/gz/xz):
  :func:`iter_instance_types`. Tens of millions of lines, so no rdflib: a one-regex fast path for
  the N-Triples layout DBpedia ships, and a small line tokenizer for Turtle (``@prefix``/``PREFIX``
  declarations, prefixed names, ``a``, and ``;``/``,`` continuations across lines).

The Turtle terms (:data:`TURTLE_TERM`, :class:`TurtleState`) also serve the infobox mappings
(:mod:`wikisilver.entities.infobox`). Malformed input is skipped and counted in
:class:`TripleReadStats`, with a warning naming file and line; an unreadable file raises
:class:`InputError`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import unquote

from wikisilver.errors import InputError
from wikisilver.files import open_text
from wikisilver.titles import normalize_title

log = logging.getLogger(__name__)

DBO = "http://dbpedia.org/ontology/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
MAX_WARNINGS = 20

# Resource IRIs of the DBpedia chapters: dbpedia.org is English, xx.dbpedia.org is language xx.
# wikidata.dbpedia.org and commons.dbpedia.org look alike but are not Wikipedia languages.
_RESOURCE = re.compile(r"^https?://(?:([a-z][a-z\-]*)\.)?dbpedia\.org/resource/(.+)$")
_NOT_LANGUAGES = frozenset({"wikidata", "commons", "global", "www", "live"})

# The N-Triples layout DBpedia ships: three IRIs and a dot; anything else takes the slow path.
_NT_LINE = re.compile(r"^<([^>\s]*)>\s+<([^>\s]*)>\s+<([^>\s]*)>\s*\.\s*(?:#.*)?$")
_EN_RESOURCE = "http://dbpedia.org/resource/"  # English DBpedia's resources, most of what is read


def nt_terms(line: str) -> tuple[str, str, str] | None:
    """Speed, in one place: the three IRIs of an N-Triples line, what :data:`_NT_LINE` reads
    (None where it reads nothing). A line of DBpedia's own layout (three bracketed IRIs and a dot
    between spaces) is read by a split; any other goes to the expression. A types file has tens of
    millions of lines, and the split reads one in a fifth of the expression's time
    (docs/performance.md); ``tests/test_sources.py`` holds the two equal."""
    parts = line.split()  # the white space of \s
    if len(parts) == 4 and parts[3] == "." and line[0] == "<":
        subject, predicate, obj = parts[0], parts[1], parts[2]
        if (subject[-1] == ">" and predicate[0] == "<" and predicate[-1] == ">" and obj[0] == "<"
                and obj[-1] == ">" and ">" not in subject[1:-1] and ">" not in predicate[1:-1]
                and ">" not in obj[1:-1]):
            return subject[1:-1], predicate[1:-1], obj[1:-1]
    m = _NT_LINE.match(line)
    return m.groups() if m is not None else None  # type: ignore[return-value]
# Turtle terms on one line: IRI, literal (with language tag or datatype), punctuation, or a
# prefixed name / keyword (local names may contain backslash escapes and inner dots).
TURTLE_TERM = re.compile(
    r"""\s*(?:
      (<[^>]*>)
    | ("(?:[^"\\]|\\.)*"(?:@[A-Za-z\-]+|\^\^\S+?)?(?=[\s;,.]|$))
    | ([;,])
    | (\.)(?=\s|$|\#)
    | (\#.*)
    | ((?:[^\s;,.\\<>"\#]|\\.|\.(?=[^\s;,.\#]))+)
    )""",
    re.VERBOSE,
)
_PREFIX = re.compile(r"^\s*(?:@prefix|PREFIX)\s+([A-Za-z][\w.\-]*)?:\s*<([^>]*)>\s*\.?\s*$", re.IGNORECASE)
_LOCAL_ESCAPE = re.compile(r"\\(.)")


@dataclass
class TripleReadStats:
    """Counts of an RDF read (mutable: the readers add to it as they go)."""

    lines: int = 0
    triples: int = 0
    kept: int = 0
    other_objects: int = 0  # rdf:type objects outside the DBpedia ontology (owl:Thing, schema.org…)
    other_predicates: int = 0
    other_subjects: int = 0  # subjects that are not DBpedia resources
    malformed: int = 0
    warnings: int = field(default=0, repr=False)
    malformed_lines: list[int] = field(default_factory=list, repr=False)  # first few, for reports
    header_check: bool = field(default=False, repr=False)  # a malformed line raises (check_header)

    def problems(self) -> dict[str, int]:
        """Lines skipped, by kind (for stats.json ``input_problems``; none: empty)."""
        return {"malformed_lines": self.malformed} if self.malformed else {}


class _Warner:
    def __init__(self, path: str, stats: TripleReadStats) -> None:
        self.path = path
        self.stats = stats

    def malformed(self, number: int, reason: str) -> None:
        stats = self.stats
        if stats.header_check:
            raise InputError(self.path, f"not N-Triples or Turtle: {reason}", f"line {number}")
        stats.malformed += 1
        stats.warnings += 1
        if len(stats.malformed_lines) < 100:
            stats.malformed_lines.append(number)
        if stats.warnings <= MAX_WARNINGS:
            log.warning("%s:%d: %s; line skipped", self.path, number, reason)
        elif stats.warnings == MAX_WARNINGS + 1:
            log.warning("%s: more malformed lines, further warnings suppressed", self.path)


MAX_LINE = 1 << 20  # characters; DBpedia's lines are well under 1 kB


def _lines(path: str) -> Iterator[tuple[int, str | None]]:
    """(number, line) of a text file, read in bounded pieces: a line over MAX_LINE characters is
    skipped without being held, and comes as (number, None)."""
    with open_text(path, errors="replace") as handle:
        number = 0
        try:
            while line := handle.readline(MAX_LINE):
                number += 1
                if len(line) == MAX_LINE and not line.endswith("\n"):
                    while (rest := handle.readline(MAX_LINE)) and not rest.endswith("\n"):
                        pass
                    yield number, None
                    continue
                yield number, line
        except InputError as error:
            raise InputError(path, error.reason, f"line {number + 1}") from None


def resource_title(iri: str) -> tuple[str, str] | None:
    """(language, title) of a DBpedia resource IRI; None for anything else.

    ``http://dbpedia.org/resource/Foo_(bar)`` -> ``("en", "Foo (bar)")``;
    ``http://hu.dbpedia.org/resource/K%C3%B6ln`` -> ``("hu", "Köln")``.
    """
    if iri.startswith(_EN_RESOURCE) and "\n" not in iri:  # speed: _RESOURCE's reading of the usual IRI
        lang, local = "en", iri[len(_EN_RESOURCE):]
        if not local:
            return None
    else:
        m = _RESOURCE.match(iri)
        if m is None:
            return None
        lang, local = m.group(1) or "en", m.group(2)
    if lang in _NOT_LANGUAGES:
        return None
    title = normalize_title(unquote(local) if "%" in local else local)  # (unquote's own test, without its call)
    return (lang, title) if title else None


def ontology_class(iri: str) -> str | None:
    """Local name of a DBpedia ontology class IRI; None for properties and foreign types.

    Real dumps also carry ``dbo:Wikidata:Q5``-style objects; those are not ontology classes.
    """
    if not iri.startswith(DBO):
        return None
    local = iri[len(DBO):]
    if not local or not local[0].isupper() or ":" in local or "/" in local:
        return None
    return local


class TurtleState:
    """Prefixes and the pending subject/predicate of a Turtle statement spanning lines."""

    def __init__(self) -> None:
        self.prefixes: dict[str, str] = {}
        self.subject: str | None = None
        self.predicate: str | None = None
        self.awaiting_object = False
        self.triples = 0  # triples of the current statement so far

    def reset(self) -> None:
        self.subject = self.predicate = None
        self.awaiting_object = False
        self.triples = 0

    def expand(self, token: str) -> str | None:
        if token.startswith("<"):
            return token[1:-1]
        if token == "a":
            return RDF_TYPE
        if token.startswith('"'):
            return token  # literal, kept as written
        prefix, colon, local = token.partition(":")
        if not colon or prefix not in self.prefixes:
            return None
        if "\\" in local:
            local = _LOCAL_ESCAPE.sub(r"\1", local)
        return self.prefixes[prefix] + local


def _turtle_triples(
    line: str, number: int, state: TurtleState, warner: _Warner
) -> Iterator[tuple[str, str, str]]:
    """Triples completed on one Turtle line (the statement may have started on earlier lines)."""
    stripped = line.strip()
    if stripped.startswith(("@prefix", "PREFIX", "prefix", "@PREFIX")):
        m = _PREFIX.match(stripped)
        if m is None:
            warner.malformed(number, "unreadable prefix declaration")
        else:
            state.prefixes[m.group(1) or ""] = m.group(2)
        return
    if stripped.startswith(("@base", "BASE")):
        return  # relative IRIs do not occur in instance-type dumps
    pos, end = 0, len(line)
    pending: list[tuple[str, str, str]] = []
    while pos < end:
        m = TURTLE_TERM.match(line, pos)
        if m is None or m.end() == pos:
            if line[pos:].strip():
                warner.malformed(number, f"unreadable term at column {pos + 1}")
                state.reset()
                return
            break
        pos = m.end()
        iri, literal, punct, dot, _comment, name = m.groups()
        token = iri or literal or name
        problem = None
        if token is not None:
            term = state.expand(token)
            if term is None:
                problem = f"unknown prefix in {token!r}"
            elif state.subject is None:
                state.subject = term
            elif state.predicate is None:
                state.predicate = term
                state.awaiting_object = True
            elif not state.awaiting_object:
                problem = "two objects without ',' between them"
            else:
                pending.append((state.subject, state.predicate, term))
                state.triples += 1
                state.awaiting_object = False
        elif punct == ",":
            if state.predicate is None or state.awaiting_object:
                problem = "',' without a preceding object"
            state.awaiting_object = True
        elif punct == ";":
            if state.subject is None or (state.predicate is not None and state.awaiting_object):
                problem = "';' without a preceding object"
            state.predicate = None
        elif dot:
            if state.subject is None or state.triples == 0 or (state.predicate is not None and state.awaiting_object):
                problem = "incomplete triple"
            else:
                state.reset()
        if problem:
            warner.malformed(number, problem)
            state.reset()
            return
    yield from pending


def iter_triples(path: str, stats: TripleReadStats | None = None) -> Iterator[tuple[str, str, str]]:
    """(subject, predicate, object) of an N-Triples or Turtle file, IRIs without brackets.

    Literal objects are returned as written (with their quotes). Blank nodes, collections and
    multi-line literals are outside the line-oriented layout this reads: they count as malformed.
    """
    stats = stats if stats is not None else TripleReadStats()
    warner = _Warner(path, stats)
    state = TurtleState()
    first_content = True
    fast = 0  # N-Triples lines, added to the counts at the end (or where the reader stops)
    try:
        for number, line in _lines(path):
            terms = nt_terms(line) if line is not None and state.subject is None else None
            if terms is not None:
                fast += 1
                first_content = False
                yield terms
                continue
            stats.lines += 1
            if line is None:
                warner.malformed(number, f"line longer than {MAX_LINE:,} characters")
                state.reset()
                continue
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if first_content:
                first_content = False
                if "\x00" in line or "\ufffd" in line[:200]:
                    raise InputError(path, "not an N-Triples/Turtle text file", f"line {number}")
            for triple in _turtle_triples(line, number, state, warner):
                stats.triples += 1
                yield triple
        if state.subject is not None:
            warner.malformed(stats.lines + fast, "file ends inside a statement")
    finally:
        stats.lines += fast
        stats.triples += fast


def check_header(path: str) -> None:
    """Before any work: a types file's first statement (everything up to its first triple) must
    parse, else one InputError naming file and line."""
    for _triple in iter_triples(path, TripleReadStats(header_check=True)):
        return


def iter_instance_types(path: str, stats: TripleReadStats | None = None) -> Iterator[tuple[str, str]]:
    """(title, DBpedia class local name) of each ``rdf:type`` triple into the DBpedia ontology.

    Titles come from DBpedia resource IRIs of any language chapter, percent-decoded and
    normalized. A title with several classes yields several pairs, in file order; choosing the
    most specific is the ontology's job. Other objects (owl:Thing, schema.org, Wikidata, YAGO,
    ``dbo:Wikidata:Q…``) and other predicates are skipped and counted.
    """
    stats = stats if stats is not None else TripleReadStats()
    last_subject, resource = None, None  # the types of one resource come on consecutive lines
    classes: dict[str, str | None] = {}  # ontology_class of each object seen (a few hundred)
    kept = 0  # added to the counts at the end (or where the reader stops)
    try:
        for subject, predicate, obj in iter_triples(path, stats):
            if predicate != RDF_TYPE:
                stats.other_predicates += 1
                continue
            cls = classes.get(obj, False)
            if cls is False:
                cls = classes[obj] = ontology_class(obj)
            if cls is None:
                stats.other_objects += 1
                continue
            if subject != last_subject:
                last_subject, resource = subject, resource_title(subject)
            if resource is None:
                stats.other_subjects += 1
                continue
            kept += 1
            yield resource[1], cls
    finally:
        stats.kept += kept
