"""Step 1 of the method, its decision: what is known of one title, from all the evidence on it.

:func:`type_title` is the one place that decides a title's entity type; the pipelines only gather
the evidence (:class:`TitleEvidence`) and count what it returns (docs/classes.md):

* **Precedence**: an ``--entities`` table (an explicit decision of the user) > DBpedia instance
  types (``--types``) > a SPARQL endpoint > the types of the page's equivalent in another
  language (langlinks) > infobox mappings. The first source with a candidate types the title.
* **Several classes of one source** resolve to the most specific (City over Settlement). Classes
  on different branches whose CoNLL tags differ (Delphi: a city and a programming language) are a
  conflict *within* that source; the deepest class, then the first by name, still wins.
* **Sources that disagree**: candidates of different sources with different CoNLL tags are a
  conflict *between* sources; the precedence decides.
* **Calendar titles** (years, months, days) that no source types are typed O, so links to them
  are non-entity links rather than unknown ones.
* A title that is itself **only a redirect** (a redirect loop, or a chain longer than the hops
  followed) is not an entity and does not exist as a page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from wikisilver.entities.calendar import is_calendar_title
from wikisilver.ontology import ClassTag, Ontology, most_specific, tag_for_class
from wikisilver.records import EntityType, PageFlags, TargetInfo

# The sources of a title's type, first wins; all but the entity table give DBpedia classes.
PRECEDENCE = ("entities", "types", "sparql", "langlinks", "infobox")
CLASS_SOURCES = PRECEDENCE[1:]


@dataclass(frozen=True)
class TitleEvidence:
    """Everything the sources say about one title, in no particular order."""

    flags: tuple[PageFlags, ...] = ()  # the dump's pages of this title (and page_props.sql)
    aliases: tuple[str, ...] = ()  # redirects to it, its other-language title, entity-table aliases
    entities: tuple[EntityType, ...] = ()  # rows of --entities tables
    types: tuple[str, ...] = ()  # DBpedia classes from --types
    sparql: tuple[str, ...] = ()  # DBpedia classes from the SPARQL endpoint
    langlinks: tuple[str, ...] = ()  # DBpedia classes of its equivalent in the --types-lang language
    infobox: tuple[str, ...] = ()  # DBpedia class of its first mapped infobox


@dataclass(frozen=True)
class TypingConflict:
    """Evidence on one title that disagrees on its CoNLL tag.

    ``kind`` is ``within_<source>`` (classes of one source on different branches) or
    ``between_sources``; it names the count under ``typing_conflicts`` in stats.json.
    ``candidates``: what disagreed, one EntityType per class (within) or per source (between).
    """

    kind: str
    candidates: tuple[EntityType, ...]


@dataclass(frozen=True)
class Typing:
    """What typing found out about one title: what is known of it, and the conflicts on the way."""

    info: TargetInfo
    conflicts: tuple[TypingConflict, ...] = ()


def _entity(cls: str, source: str, class_table: Mapping[str, ClassTag], title: str = "") -> EntityType:
    tag = tag_for_class(cls, class_table)
    return EntityType(title=title, dbpedia_class=cls, conll=tag.conll, fine=tag.fine, source=source)


def _class_candidate(
    source: str, classes: tuple[str, ...], ontology: Ontology, class_table: Mapping[str, ClassTag]
) -> tuple[EntityType | None, TypingConflict | None]:
    """One source's classes -> its candidate (the most specific class) and its conflict, if any."""
    best, off_one_chain = most_specific(classes, ontology)
    conflict = None
    # A conflict that matters: classes on different branches with different CoNLL tags
    # (Delphi: a city and a programming language), not OfficeHolder vs Politician.
    if off_one_chain and len({tag_for_class(c, class_table).conll for c in classes if c in class_table}) > 1:
        options = tuple(_entity(c, source, class_table) for c in sorted(set(classes)))
        conflict = TypingConflict(f"within_{source}", options)
    return (_entity(best, source, class_table) if best is not None else None), conflict


def type_title(
    title: str, evidence: TitleEvidence, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag]
) -> Typing:
    """All evidence on ``title`` -> what is known of it, by the precedence of sources (module doc)."""
    candidates: dict[str, EntityType] = {}
    conflicts: list[TypingConflict] = []
    if evidence.entities:
        candidates["entities"] = min(evidence.entities, key=repr)  # a stable choice among tables
    for source in CLASS_SOURCES:
        classes = getattr(evidence, source)
        if classes:
            candidate, conflict = _class_candidate(source, classes, ontology, class_table)
            if conflict is not None:
                conflicts.append(conflict)
            if candidate is not None:
                candidates[source] = candidate
    ranked = [candidates[source] for source in PRECEDENCE if source in candidates]
    if len({candidate.conll for candidate in ranked}) > 1:
        conflicts.append(TypingConflict("between_sources", tuple(ranked)))
    entity = ranked[0] if ranked else None
    if entity is None and is_calendar_title(title, lang):
        entity = EntityType(title, None, "O", "O", "calendar")
    flags = evidence.flags
    if flags and all(flag.is_redirect for flag in flags):
        return Typing(TargetInfo(title=title, entity=None, exists=False), tuple(conflicts))
    info = TargetInfo(
        title=title,
        entity=None if entity is None else EntityType(title, entity.dbpedia_class, entity.conll, entity.fine, entity.source),
        exists=any(not flag.is_redirect for flag in flags),
        is_disambiguation=any(flag.is_disambiguation for flag in flags),
        aliases=tuple(sorted(set(evidence.aliases))),
    )
    return Typing(info, tuple(conflicts))
