"""Step 1 of the method: a DBpedia ontology file read into a class hierarchy (:class:`Ontology`).

RDF/XML (``.owl``) or Turtle (``.ttl``, ``.nt``, ``.n3``), optionally bz2/gzip, parsed by rdflib
after a file with a DTD is refused (:func:`refuse_dtd`), and cached as JSON by the SHA-256 of the
file (:func:`cache_dir`), so only the first run on a machine pays rdflib's seconds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import xml.parsers.expat
from dataclasses import replace
from pathlib import Path

from wikisilver import paths
from wikisilver.errors import InputError
from wikisilver.files import open_binary
from wikisilver.ontology.hierarchy import DBO, OWL_THING, THING, Ontology, cycle_links

log = logging.getLogger(__name__)

_MAX_LABEL = 200  # characters: a longer rdfs:label is not a class's name, and is not kept
_MAX_LANG = 16  # characters of a language tag (en, pt-br, zh-hans)
_RDF_FORMATS = {".owl": "xml", ".rdf": "xml", ".xml": "xml", ".ttl": "turtle", ".nt": "nt", ".n3": "n3"}


def _rdf_format(path: str) -> str:
    base = Path(paths.basename(path))  # the file's name, local or gs://, s3://, …
    name = base.name[: -len(base.suffix)] if base.suffix in (".bz2", ".gz") else base.name
    fmt = _RDF_FORMATS.get(Path(name).suffix.lower())
    if fmt is None:
        raise InputError(str(path), "unknown ontology format: expected .owl/.rdf (RDF/XML), .ttl, .nt or .n3, "
                                    "optionally .bz2/.gz")
    return fmt


def _parse_error(path: str, error: Exception) -> InputError:
    """rdflib's errors differ by parser; keep the line number where it gives one."""
    line = None
    if hasattr(error, "getLineNumber"):  # xml.sax.SAXParseException
        line = error.getLineNumber()
        reason = error.getMessage()
    elif type(error).__name__ == "BadSyntax":  # Turtle/N3; args = (uri, zero-based line, text, pos, why)
        line = error.args[1] + 1 if len(error.args) > 1 and isinstance(error.args[1], int) else None
        reason = f"bad syntax ({error.args[4]})" if len(error.args) > 4 else "bad syntax"
    else:
        reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
    return InputError(str(path), f"not a readable ontology: {reason}", f"line {line}" if line else None)


CACHE_ENV = "WIKISILVER_CACHE_DIR"
_CACHE_VERSION = 2  # 2: labels in every language


def cache_dir() -> Path | None:
    """Where parsed ontologies are cached: $WIKISILVER_CACHE_DIR, else $XDG_CACHE_HOME/wikisilver,
    else ~/.cache/wikisilver; None when the variable is ``off`` (or empty)."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured.strip() and configured.strip().lower() != "off" else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "wikisilver"


def _cache_file(file: str) -> tuple[Path | None, str]:
    """The cache entry of the file and the file's SHA-256 (``(None, "")`` with the cache off)."""
    directory = cache_dir()
    if directory is None:
        return None, ""
    with paths.open_read(file) as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return directory / f"ontology-v{_CACHE_VERSION}-{digest}.json", digest


def _read_cached(cached: Path | None, path: str) -> Ontology | None:
    if cached is None:
        return None
    try:
        data = json.loads(cached.read_text(encoding="utf-8"))
        parents = {cls: tuple(ps) for cls, ps in data["parents"].items()}
        labels = dict(data["labels"])
        by_lang = {lang: dict(found) for lang, found in data["labels_by_lang"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # absent or damaged: parse the file again
    return Ontology(parents=parents, labels=labels, labels_by_lang=by_lang, source=str(path))


def _write_cached(cached: Path | None, ontology: Ontology) -> None:
    if cached is None:
        return
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps({"parents": ontology.parents, "labels": ontology.labels,
                                           "labels_by_lang": ontology.labels_by_lang}), encoding="utf-8")
        os.replace(partial, cached)
    except OSError as error:  # a read-only home must not fail a build
        log.debug("cannot cache the parsed ontology in %s: %s", cached.parent, error)


def load_ontology(path: str) -> Ontology:
    """Read a DBpedia ontology (RDF/XML ``.owl`` or Turtle ``.ttl``/``.nt``, optionally .bz2/.gz).

    Only ``rdfs:subClassOf`` between classes of the DBpedia namespace (and owl:Thing) is kept;
    ``owl:equivalentClass`` and parents in other vocabularies are ignored.

    rdflib takes seconds on the 2.7 MB snapshot ontology, so the result is cached as JSON under
    :func:`cache_dir`, keyed by the SHA-256 of the file's bytes: the same file is parsed once per
    machine, an edited file is parsed again. ``WIKISILVER_CACHE_DIR=off`` turns the cache off.
    """
    file = paths.normalize(path)  # a local path or gs://, s3://, … (wikisilver.paths)
    if not paths.isfile(file):
        raise InputError(path, "no such ontology file")
    fmt = _rdf_format(path)
    try:
        cached, digest = _cache_file(file)
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}") from None
    ontology = _read_cached(cached, path)
    if ontology is None:
        ontology = _parse_ontology(file, fmt, path)
        _write_cached(cached, ontology)
    ontology = replace(ontology, sha256=digest)
    cut = cycle_links(ontology)
    if cut:
        log.warning("%s: %d subClassOf link(s) close a cycle and are ignored (%s)", path, len(cut),
                    ", ".join(f"{cls} -> {parent}" for cls, parent in cut[:3]) + (", …" if len(cut) > 3 else ""))
    return ontology


class _Stop(Exception):
    """Raised from inside expat to end the DTD check: ``line`` of a DTD, or None at the root element."""

    def __init__(self, line: int | None) -> None:
        super().__init__(line)
        self.line = line


_DTD_READ = 1 << 16  # bytes per read


def refuse_dtd(path: str) -> None:
    """An RDF/XML ontology with a DTD is refused before rdflib parses it: entity definitions are how
    a 1 kB file expands to gigabytes (billion laughs), and DBpedia's ontology has none.

    The check is expat's own reading of the file, the parser rdflib uses: it decodes the bytes the
    way rdflib's parse will (BOM, XML declaration: UTF-16 and any other encoding expat reads), and
    stops at the first ``<!DOCTYPE`` (before any entity is declared, let alone expanded) or at the
    root element (no DTD can follow it), so it costs the prolog, not the file. A file expat cannot
    read is left to rdflib, which says where."""
    parser = xml.parsers.expat.ParserCreate()

    def dtd(*_args: object) -> None:
        raise _Stop(parser.CurrentLineNumber)

    def root(*_args: object) -> None:
        raise _Stop(None)

    parser.StartDoctypeDeclHandler = parser.EntityDeclHandler = dtd
    parser.StartElementHandler = root
    try:
        with open_binary(path) as handle:
            while piece := handle.read(_DTD_READ):
                parser.Parse(piece, False)
            parser.Parse(b"", True)
    except _Stop as found:
        if found.line is not None:
            raise InputError(path, "has a DTD (<!DOCTYPE): refused, entity expansion can blow up; "
                                   "DBpedia's ontology has none", f"line {found.line}") from None
    except xml.parsers.expat.ExpatError:
        pass  # not well-formed before any element: rdflib's parse reports it with its line


def _parse_ontology(file: str, fmt: str, path: str) -> Ontology:
    import rdflib  # slow to import; only needed when an ontology file is given
    from rdflib.namespace import OWL, RDF, RDFS

    if fmt == "xml":
        refuse_dtd(path)

    graph = rdflib.Graph()
    try:
        with open_binary(file) as handle:
            graph.parse(source=handle, format=fmt, publicID=DBO)
    except (OSError, EOFError, ValueError) as error:  # bad compression, unreadable file
        raise InputError(path, f"cannot read: {error}") from None
    except Exception as error:  # rdflib raises parser-specific types (SAXParseException, BadSyntax, …)
        raise _parse_error(file, error) from None

    declared = {s for kind in (OWL.Class, RDFS.Class) for s in graph.subjects(RDF.type, kind)}
    names = {str(uri)[len(DBO):] for uri in declared if isinstance(uri, rdflib.URIRef) and str(uri).startswith(DBO)}
    names.discard("")
    if not names:
        raise InputError(path, "no DBpedia ontology classes (owl:Class in http://dbpedia.org/ontology/) found")
    parents: dict[str, tuple[str, ...]] = {}
    labels: dict[str, str] = {}
    by_lang: dict[str, dict[str, str]] = {}
    dangling: list[str] = []
    for name in sorted(names):
        uri = rdflib.URIRef(DBO + name)
        found = set()
        for parent in graph.objects(uri, RDFS.subClassOf):
            parent = str(parent)
            if parent == OWL_THING:
                found.add(THING)
            elif parent.startswith(DBO):
                local = parent[len(DBO):]
                if local in names and local != name:
                    found.add(local)
                else:
                    dangling.append(f"{name} -> {local or '<empty>'}")
        # Thing next to a real parent adds nothing (3.7 lists it on every class).
        real = sorted(found - {THING})
        parents[name] = tuple(real) or (THING,)
        english = [str(label) for label in graph.objects(uri, RDFS.label) if getattr(label, "language", None) == "en"]
        if english:
            labels[name] = min(english)
        for label in graph.objects(uri, RDFS.label):
            lang = getattr(label, "language", None)
            text = " ".join(str(label).split())
            if lang and len(lang) <= _MAX_LANG and 0 < len(text) <= _MAX_LABEL:
                known = by_lang.setdefault(lang.lower(), {})
                known[name] = min(known.get(name, text), text)
    if dangling:
        log.debug("%s: ignored subClassOf links to undeclared classes: %s", path, ", ".join(dangling))
    return Ontology(parents=parents, labels=labels, labels_by_lang=by_lang, source=str(path))
