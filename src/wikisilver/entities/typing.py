"""Step 1 of the method, its decision: what is known of one title, from all the evidence on it.

:func:`type_title` is the one place that decides a title's entity type; the pipelines only gather
the evidence (:class:`TitleEvidence`) and count what it returns (docs/classes.md):

* **An ``--entities`` table** is an explicit decision of the user: it types the title.
* **The curated table** of the language (``mappings/<lang>/entities.tsv``: titles that DBpedia
  types wrongly as a rule, the European Union a Country) types the title next.
* **Otherwise the evidence votes** on the CoNLL tag. Each ``--types`` file, the SPARQL endpoint,
  the types of the page's equivalent in another language (per ``--types`` file) and the page's own
  infobox are one voter each; a voter whose classes lie on different branches with different tags
  (Greek_language: Language and Organisation) supports each of those tags. One tag from every
  voter: **agreed**. Else a tag more than half of the voters support, and more than any other:
  **majority** (Language from both files against Organisation from one). Else the tag of the page's
  own infobox: **infobox**. Else the title is **unknown** (no type: its mentions are UNK and their
  sentences dropped): precision first, as in the paper.
* The class of the decided tag comes from the first source, by precedence (types > SPARQL >
  langlinks > infobox), that supports it: its most specific class of that tag (City over
  Settlement).
* **Conflicts** are still reported: classes of one source on different branches with different
  tags (``within_<source>``) and sources whose candidates differ in tag (``between_sources``).
* **Calendar titles** (years, months, days) that no source types are typed O, so links to them
  are non-entity links rather than unknown ones.
* A title that is itself **only a redirect** (a redirect loop, or a chain longer than the hops
  followed) is not an entity and does not exist as a page.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

from wikisilver.entities import sources
from wikisilver.entities.calendar import is_calendar_title
from wikisilver.ontology import THING, ClassTag, Ontology, most_specific, tag_for_class
from wikisilver.records import EntityType, PageFlags, TargetInfo
from wikisilver.resources import has_mapping, load_tsv

# The sources of a title's type, their precedence (which picks the class of the decided tag and
# orders the candidates of a conflict) and their roles are declared in wikisilver.entities.sources:
# the entity table decides alone, the others vote, the infobox breaks a tie (module doc).
# How a title's type was decided: the names counted under ``typing_decisions`` in stats.json (a
# tie broken is named after the source that broke it).
DECISIONS = ("entities", "curated", "agreed", "majority", "infobox", "unknown")


class Claim(NamedTuple):
    """One DBpedia class a source gives a title; ``origin`` tells the source's files apart (the
    index of the ``--types`` file it was read from), so that each file votes once."""

    cls: str
    origin: int = 0


def _claims(values) -> tuple[Claim, ...]:
    """A source's evidence as claims: a bare class name is a claim of the source's only origin."""
    return tuple(Claim(*value) if isinstance(value, tuple) else Claim(value) for value in values)


@dataclass(frozen=True, init=False)
class TitleEvidence:
    """Everything the sources say about one title, in no particular order.

    ``TitleEvidence(flags=…, aliases=…, entities=…, types=…, sparql=…)``: one keyword per field
    of :func:`evidence_fields`, the voters' by the evidence names of their declarations
    (:func:`wikisilver.entities.sources.class_sources`); a name no source declares is a TypeError.
    The voters' values are class names or ``(class, origin)`` pairs, both kept as :class:`Claim`.
    """

    flags: tuple[PageFlags, ...]  # the dump's pages of this title (and page_props.sql)
    aliases: tuple[str, ...]  # redirects to it, its other-language title, entity-table aliases
    entities: tuple[EntityType, ...]  # rows of --entities tables
    claims: Mapping[str, tuple[Claim, ...]]  # by voter (types: by file; infobox: its first mapped infobox)

    def __init__(self, flags=(), aliases=(), entities=(), **claims) -> None:
        voters = sources.class_sources()
        unknown = sorted(set(claims) - set(voters))
        if unknown:
            raise TypeError(f"no entity source gives evidence named {', '.join(unknown)} "
                            f"(declared: {', '.join(evidence_fields())})")
        object.__setattr__(self, "flags", tuple(flags))
        object.__setattr__(self, "aliases", tuple(aliases))
        object.__setattr__(self, "entities", tuple(entities))
        object.__setattr__(self, "claims", {name: _claims(claims[name]) for name in voters if claims.get(name)})

    def of(self, source: str) -> tuple[Claim, ...]:
        """The claims of one voter (none when it said nothing)."""
        return self.claims.get(source, ())


def evidence_fields() -> tuple[str, ...]:
    """The keywords of :class:`TitleEvidence`: the names the jobs group a title's evidence by."""
    return ("flags", "aliases", *sources.precedence())


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
    """What typing found out about one title: what is known of it, the conflicts on the way, and
    how its type was decided (one of :data:`DECISIONS`; None when no source says anything)."""

    info: TargetInfo
    conflicts: tuple[TypingConflict, ...] = ()
    decision: str | None = None


@dataclass(frozen=True)
class _Voter:
    """The classes one voter (a source, or one file of it) gives a title, by the CoNLL tag of each."""

    source: str
    classes_by_tag: Mapping[str, tuple[str, ...]]


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


def _voter(source: str, classes: tuple[str, ...], ontology: Ontology, class_table: Mapping[str, ClassTag]) -> _Voter:
    """The tags one voter supports: those of its classes that no other of its classes refines
    (Settlement and Place are one LOC; Language and Organisation are MISC and ORG). Thing and
    classes known neither to the hierarchy nor to the table count only when nothing else is given."""
    given = set(classes) - {THING}
    known = {c for c in given if c in ontology or c in class_table}
    leaves = {c for c in known if not any(c in ontology.ancestors(other) for other in known if other != c)}
    if not leaves:
        best, _ = most_specific(classes, ontology)
        leaves = {best} if best is not None else set()
    by_tag: dict[str, list[str]] = {}
    for cls in sorted(leaves):
        by_tag.setdefault(tag_for_class(cls, class_table).conll, []).append(cls)
    return _Voter(source, {tag: tuple(found) for tag, found in by_tag.items()})


def _voters(evidence: TitleEvidence, ontology: Ontology, class_table: Mapping[str, ClassTag]) -> list[_Voter]:
    """One voter per class source and origin (each --types file), in precedence order."""
    voters = []
    for source in sources.class_sources():
        by_origin: dict[int, list[str]] = {}
        for claim in evidence.of(source):
            by_origin.setdefault(claim.origin, []).append(claim.cls)
        for origin in sorted(by_origin):
            voters.append(_voter(source, tuple(by_origin[origin]), ontology, class_table))
    return voters


def _decide_tag(voters: list[_Voter]) -> tuple[str | None, str]:
    """The CoNLL tag the voters decide and how (agreed, majority, infobox, unknown); module doc."""
    votes = Counter(tag for voter in voters for tag in voter.classes_by_tag)
    if len(votes) == 1:
        return next(iter(votes)), "agreed"
    (best, most), *rest = votes.most_common()
    if 2 * most > len(voters) and all(count < most for _, count in rest):
        return best, "majority"
    breaker = sources.tie_breaker()
    tied = [voter for voter in voters if voter.source == breaker]
    if tied and len(tied[0].classes_by_tag) == 1:
        return next(iter(tied[0].classes_by_tag)), breaker
    return None, "unknown"


def _decided_entity(
    voters: list[_Voter], tag: str, ontology: Ontology, class_table: Mapping[str, ClassTag]
) -> EntityType:
    """The most specific class of ``tag`` from the first voter that supports it."""
    voter = next(voter for voter in voters if tag in voter.classes_by_tag)
    best, _ = most_specific(voter.classes_by_tag[tag], ontology)
    assert best is not None
    return _entity(best, voter.source, class_table)


@functools.cache
def curated_classes(lang: str) -> dict[str, str]:
    """The curated table of ``lang`` (``mappings/<lang>/entities.tsv``): title -> DBpedia class;
    empty without one. A few dozen rows: it is held whole."""
    if not has_mapping(lang, "entities.tsv"):
        return {}
    header, *rows = load_tsv(lang, "entities.tsv")
    return {row[0]: row[1] for row in rows}


def type_title(
    title: str, evidence: TitleEvidence, lang: str, ontology: Ontology, class_table: Mapping[str, ClassTag]
) -> Typing:
    """All evidence on ``title`` -> what is known of it, its conflicts and its decision (module doc)."""
    candidates: dict[str, EntityType] = {}
    conflicts: list[TypingConflict] = []
    if evidence.entities:
        candidates["entities"] = min(evidence.entities, key=repr)  # a stable choice among tables
    for source in sources.class_sources():
        classes = tuple(claim.cls for claim in evidence.of(source))
        if classes:
            candidate, conflict = _class_candidate(source, classes, ontology, class_table)
            if conflict is not None:
                conflicts.append(conflict)
            if candidate is not None:
                candidates[source] = candidate
    ranked = [candidates[source] for source in sources.precedence() if source in candidates]
    if len({candidate.conll for candidate in ranked}) > 1:
        conflicts.append(TypingConflict("between_sources", tuple(ranked)))
    entity, decision = None, None
    curated = curated_classes(lang).get(title)
    if evidence.entities:
        entity, decision = candidates["entities"], "entities"
    elif curated is not None:
        entity, decision = _entity(curated, "curated", class_table), "curated"
    else:
        voters = _voters(evidence, ontology, class_table)
        if voters:
            tag, decision = _decide_tag(voters)
            entity = None if tag is None else _decided_entity(voters, tag, ontology, class_table)
    if decision is None and is_calendar_title(title, lang):
        entity = EntityType(title, None, "O", "O", "calendar")
    flags = evidence.flags
    if flags and all(flag.is_redirect for flag in flags):
        return Typing(TargetInfo(title=title, entity=None, exists=False), tuple(conflicts), decision)
    info = TargetInfo(
        title=title,
        entity=None if entity is None else EntityType(title, entity.dbpedia_class, entity.conll, entity.fine, entity.source),
        exists=any(not flag.is_redirect for flag in flags),
        is_disambiguation=any(flag.is_disambiguation for flag in flags),
        aliases=tuple(sorted(set(evidence.aliases))),
    )
    return Typing(info, tuple(conflicts), decision)
