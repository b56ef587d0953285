"""Step 1 of the method: the class -> entity tag table.

A title typed with a DBpedia class (``City``) gets the tags of that class: the row of the class
itself in ``mappings/classes.tsv`` or, failing that, of its closest mapped ancestor (City ->
Settlement -> PopulatedPlace: LOC/GPE).

A class with several parents that resolve to different tags is a decision the table must make
explicitly (Library: a Building and an EducationalInstitution); :func:`find_conflicts` lists the
classes where it does not, so a test can keep the table complete.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wikisilver.errors import InputError
from wikisilver.ontology.hierarchy import THING, Ontology, depth, load_builtin_ontology, parents_first
from wikisilver.ontology.owl import load_ontology
from wikisilver.resources import mapping_path

log = logging.getLogger(__name__)

CONLL_TAGS = frozenset({"PER", "LOC", "ORG", "MISC", "O"})
FINE_TAGS = frozenset({
    "PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE", "O",
})
MAPPING_HEADER = ("class", "conll", "fine", "note")


@dataclass(frozen=True)
class ClassTag:
    """The tags of one DBpedia class and the mapped class (itself or an ancestor) that decided them."""

    dbpedia_class: str
    conll: str
    fine: str
    decided_by: str


@functools.lru_cache(maxsize=8)
def _read_mapping(path: str) -> dict[str, tuple[str, str]]:
    file = Path(path)
    if not file.is_file():
        raise InputError(path, "no such class mapping file")
    table: dict[str, tuple[str, str]] = {}
    header_seen = False
    with file.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cells = [cell.strip() for cell in line.rstrip("\n").split("\t")]
            where = f"line {number}"
            if not header_seen:
                if tuple(cells[:3]) != MAPPING_HEADER[:3]:
                    raise InputError(path, f"header must be {' '.join(MAPPING_HEADER)} (tab-separated)", where)
                header_seen = True
                continue
            if len(cells) < 3:
                raise InputError(path, "expected class, conll, fine (and a note), tab-separated", where)
            cls, conll, fine = cells[:3]
            if conll not in CONLL_TAGS:
                allowed = " ".join(sorted(CONLL_TAGS))
                raise InputError(path, f"CoNLL tag {conll!r} of {cls} is not one of {allowed}", where)
            if fine not in FINE_TAGS:
                raise InputError(path, f"fine tag {fine!r} of {cls} is not one of {' '.join(sorted(FINE_TAGS))}", where)
            if cls in table:
                raise InputError(path, f"class {cls} mapped twice", where)
            table[cls] = (conll, fine)
    if not header_seen:
        raise InputError(path, "empty class mapping")
    return table


def load_class_mapping(path: str | None = None) -> dict[str, tuple[str, str]]:
    """The curated table: class -> (CoNLL tag, fine tag); default ``mappings/classes.tsv``."""
    return dict(_read_mapping(str(path) if path else str(mapping_path("classes.tsv"))))


def _resolve_all(
    ontology: Ontology, mapping: Mapping[str, tuple[str, str]]
) -> tuple[dict[str, ClassTag], dict[str, tuple[ClassTag, ...]]]:
    """Resolve every class; also return the classes whose parents disagree and have no row."""
    resolved: dict[str, ClassTag] = {}
    conflicts: dict[str, tuple[ClassTag, ...]] = {}
    thing = mapping.get(THING, ("O", "O"))
    depths = {cls: depth(ontology, cls) for cls in ontology.parents}

    def leaf(cls: str) -> ClassTag:  # a class with a row, Thing, or one the ontology does not know
        if cls in mapping:
            conll, fine = mapping[cls]
            return ClassTag(cls, conll, fine, cls)
        return ClassTag(cls, thing[0], thing[1], THING)

    # Parents before children (a cycle cut, as the hierarchy cuts it): a loop, however deep the chain.
    for cls, parents in parents_first(ontology):
        if cls in mapping:
            resolved[cls] = leaf(cls)
            continue
        # Deepest parent first, then by name: decides decided_by (and the tags when parents
        # disagree without a row, which find_conflicts reports) the same way on every run.
        parents = tuple(sorted(parents, key=lambda p: (-depths.get(p, 0), p)))
        options = [resolved.get(p) or leaf(p) for p in parents] or [leaf(THING)]
        distinct = {(o.conll, o.fine) for o in options}
        if len(distinct) > 1:
            conflicts[cls] = tuple(ClassTag(p, o.conll, o.fine, o.decided_by) for p, o in zip(parents, options))
        best = options[0]
        resolved[cls] = ClassTag(cls, best.conll, best.fine, best.decided_by)
    for cls in {THING, *mapping} - resolved.keys():
        resolved[cls] = leaf(cls)
    resolved = dict(sorted(resolved.items()))
    return resolved, conflicts


def resolve_with_conflicts(
    ontology: Ontology, mapping: Mapping[str, tuple[str, str]] | None = None
) -> tuple[dict[str, ClassTag], dict[str, tuple[ClassTag, ...]]]:
    """:func:`resolve_classes` and :func:`find_conflicts` in one pass, without the warning."""
    return _resolve_all(ontology, load_class_mapping() if mapping is None else mapping)


def find_conflicts(
    ontology: Ontology, mapping: Mapping[str, tuple[str, str]] | None = None
) -> dict[str, tuple[ClassTag, ...]]:
    """Classes whose parents resolve to different tags with no row of their own.

    Value: one ClassTag per parent (``dbpedia_class`` = the parent, ``decided_by`` = the row
    that tagged it). An empty result means the table decides every class explicitly.
    """
    return _resolve_all(ontology, load_class_mapping() if mapping is None else mapping)[1]


def resolve_classes(
    ontology: Ontology, mapping: Mapping[str, tuple[str, str]] | None = None, *, strict: bool = False
) -> dict[str, ClassTag]:
    """The tags of every class of ``ontology`` (and of every class of the table, even if unknown there).

    A multi-parent class whose parents disagree and has no row takes its deepest parent's tags
    (then by name) with a warning; with ``strict`` it is an :class:`InputError` listing them.
    """
    table, conflicts = _resolve_all(ontology, load_class_mapping() if mapping is None else mapping)
    if conflicts:
        listing = "; ".join(
            f"{cls} ({', '.join(f'{o.dbpedia_class}: {o.conll}/{o.fine}' for o in options)})"
            for cls, options in sorted(conflicts.items())
        )
        message = f"classes whose parents resolve differently need a row in the class table: {listing}"
        if strict:
            raise InputError(ontology.source or None, message)
        log.warning("%s", message)
    return table


def tag_for_class(cls: str, table: Mapping[str, ClassTag]) -> ClassTag:
    """Tags of one class from a resolved table; a class the table does not know is tagged as Thing."""
    if cls in table:
        return table[cls]
    thing = table.get(THING)
    return ClassTag(cls, thing.conll if thing else "O", thing.fine if thing else "O", THING)


def class_table(ontology_path: str | None) -> tuple[Ontology, dict[str, ClassTag]]:
    """The class hierarchy (``--ontology``, or the shipped one) and its resolved class -> tag
    table: what both jobs load once, before the output is touched (small: they travel with the code)."""
    ontology = load_ontology(ontology_path) if ontology_path else load_builtin_ontology()
    return ontology, resolve_classes(ontology)
