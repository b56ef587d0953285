"""Step 1 of the method, the fallback typer: DBpedia's infobox mappings (RML in Turtle, one file per
template). :func:`load_infobox_mappings` reads one language's mapping directory and
:func:`infobox_class` types an article that DBpedia's type dump misses by its first mapped infobox.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from urllib.parse import unquote

from wikisilver import paths
from wikisilver.entities.rdf import RDF_TYPE, TURTLE_TERM, TurtleState, ontology_class
from wikisilver.errors import InputError
from wikisilver.wikitext import template_key

log = logging.getLogger(__name__)

_MAPPING_FILE = re.compile(r"^Mapping_[\w\-]+:(.+)\.ttl$")
_BLOCK_END = re.compile(r"\s\.\s*$", re.MULTILINE)
_SUBJECT_MAP = re.compile(r"^<SubjectMap>\s", re.MULTILINE)
_CLASS_MAPPING = re.compile(r"^<ConditionalMapping/[^>]*/ClassMapping>\s", re.MULTILINE)
_FILE_PREFIX = re.compile(r"^@prefix\s+([\w\-]*):\s*<([^>]*)>", re.MULTILINE)
# DBpedia's placeholder for templates mapped without a class; it is no ontology class.
_PLACEHOLDER_CLASSES = frozenset({"Unknown"})


def _block_pairs(text: str, start: int, prefixes: dict[str, str]) -> list[tuple[str, str]]:
    """(predicate, object) pairs of the Turtle statement starting at ``start``, IRIs expanded."""
    end_match = _BLOCK_END.search(text, start)
    block = text[start : end_match.end() if end_match else len(text)]
    state = TurtleState()
    state.prefixes = prefixes
    pairs: list[tuple[str, str]] = []
    subject: str | None = None
    predicate: str | None = None
    pos = 0
    while pos < len(block):
        m = TURTLE_TERM.match(block, pos)
        if m is None or m.end() == pos:
            break
        pos = m.end()
        iri, literal, punct, dot, _comment, name = m.groups()
        token = iri or literal or name
        if token is not None:
            term = state.expand(token) or token
            if subject is None:
                subject = term
            elif predicate is None:
                predicate = term
            else:
                pairs.append((predicate, term))
        elif punct == ";":
            predicate = None
        elif dot:
            break
    return pairs


def _mapping_classes(text: str) -> tuple[str, ...]:
    """Classes of one mapping file: the main subject map's, then conditional ones.

    Order matters: the first class is the one :func:`infobox_class` uses. Unconditional
    ``rr:class`` values of the main ``<SubjectMap>`` come first; for a conditional mapping
    (no main class) the fallback — the condition without ``crml:equalCondition``, the class
    DBpedia gives when no condition holds — comes first, then the conditional classes in order.
    """
    prefixes = {m.group(1): m.group(2) for m in _FILE_PREFIX.finditer(text)}
    main: list[str] = []
    m = _SUBJECT_MAP.search(text)
    if m:
        main = [o for p, o in _block_pairs(text, m.start(), prefixes) if p == "http://www.w3.org/ns/r2rml#class"]
    fallback: list[str] = []
    conditional: list[str] = []
    for m in _CLASS_MAPPING.finditer(text):
        pairs = _block_pairs(text, m.start(), prefixes)
        if ("http://www.w3.org/ns/r2rml#predicate", RDF_TYPE) not in pairs:
            continue
        objects = [o for p, o in pairs if p == "http://www.w3.org/ns/r2rml#object"]
        has_condition = any(p.endswith("#equalCondition") for p, _ in pairs)
        (conditional if has_condition else fallback).extend(objects)
    classes: list[str] = []
    for iri in main + fallback + conditional:
        cls = ontology_class(iri)
        if cls and cls not in _PLACEHOLDER_CLASSES and cls not in classes:
            classes.append(cls)
    return tuple(classes)


def mapping_directory(directory: str, lang: str) -> str:
    """The folder of ``lang``'s mapping files that ``--infobox-mappings DIR`` names: ``DIR`` itself
    when it holds ``Mapping_*.ttl`` files, else ``DIR/<lang>`` when that exists (DIR is the folder
    of all languages, as DBpedia lays them out: ``mappings/en``, ``mappings/hu``, …). A missing
    ``DIR`` is returned as it is, for the input checks to name; a folder of neither kind fails."""
    if not paths.isdir(directory):
        return directory
    if any(_MAPPING_FILE.match(unquote(paths.basename(path))) for path in paths.listdir(directory)):
        return directory
    inner = paths.join(directory, lang)
    if paths.isdir(inner):
        return inner
    raise InputError(directory, f"no DBpedia mapping files (Mapping_{lang}:*.ttl) in it, and no {lang}/ folder of them "
                                "(give the folder of one language, or the folder that holds one per language)")


def mapping_language_warning(directory: str, lang: str) -> str | None:
    """A warning when the mapping files of ``directory`` are another language's (``Mapping_en:…``
    for a Hungarian build): that language's template names rarely match the dump's infoboxes."""
    for path in paths.listdir(directory):
        found = re.match(r"^Mapping_([\w\-]+):", unquote(paths.basename(path)))
        if found:
            other = found.group(1)
            if other != lang:
                return (f"{directory}: mapping files of {other} (Mapping_{other}:…), but the build is in {lang}: "
                        f"{other} infobox names rarely match a {lang} dump's (give the {lang} folder, or its parent)")
            return None
    return None


def load_infobox_mappings(directory: str) -> dict[str, tuple[str, ...]]:
    """Template key (:func:`wikisilver.wikitext.template_key`) -> DBpedia classes, of one language.

    Reads ``Mapping_<lang>:<Template>.ttl`` files (names percent-decoded). Empty files and
    mappings that give no ontology class are left out; several classes are kept (conditional
    mappings), the first being the one used for typing.
    """
    if not paths.isdir(directory):
        raise InputError(directory, "infobox mapping directory not found")
    mappings: dict[str, tuple[str, ...]] = {}
    for path in paths.listdir(directory):
        m = _MAPPING_FILE.match(unquote(paths.basename(path)))
        if m is None:
            continue
        try:
            text = paths.read_text(path, errors="replace")
        except OSError as err:
            raise InputError(str(path), f"cannot read mapping: {err.strerror or err}") from None
        if not text.strip():
            continue
        classes = _mapping_classes(text)
        if classes:
            mappings[template_key(m.group(1))] = classes
    if not mappings:
        log.warning("%s: no infobox mappings found", directory)
    return mappings


def infobox_class(template_names: Iterable[str], mappings: dict[str, tuple[str, ...]]) -> str | None:
    """The class given by the first mapped infobox among an article's templates, in page order.

    An article with two mapped infoboxes (a person box, then an embedded military-unit box) is
    typed by the first, which is the one describing the article's subject. Names are matched by
    :func:`wikisilver.wikitext.template_key`, and if that fails with the rest of the name lower-cased, as template
    redirects often differ only in case (``Infobox Settlement``).
    """
    lowered: dict[str, str] | None = None
    for name in template_names:
        key = template_key(name)
        classes = mappings.get(key)
        if classes is None and key:
            if lowered is None:
                lowered = {k.lower(): k for k in mappings}
            original = lowered.get(key.lower())
            classes = mappings.get(original) if original else None
        if classes:
            return classes[0]
    return None
