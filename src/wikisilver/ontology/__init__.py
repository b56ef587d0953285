"""Step 1 of the method: the DBpedia class hierarchy (:mod:`.hierarchy`, read from an ontology file
by :mod:`.owl`) and the class -> entity tag table resolved over it (:mod:`.tags`). Typing asks the hierarchy for the most specific of a
title's classes and the table for that class's CoNLL and fine tags."""

from wikisilver.ontology.hierarchy import (
    DBO,
    THING,
    Ontology,
    depth,
    format_class_parents,
    load_builtin_ontology,
    merge_ontologies,
    most_specific,
    read_class_parents,
)
from wikisilver.ontology.owl import cache_dir, load_ontology
from wikisilver.ontology.tags import (
    CONLL_TAGS,
    FINE_TAGS,
    ClassTag,
    class_table,
    find_conflicts,
    load_class_mapping,
    resolve_classes,
    resolve_with_conflicts,
    tag_for_class,
)

__all__ = [
    "CONLL_TAGS", "DBO", "FINE_TAGS", "THING", "ClassTag", "Ontology", "cache_dir", "class_table", "depth",
    "find_conflicts", "format_class_parents", "load_builtin_ontology", "load_class_mapping", "load_ontology",
    "merge_ontologies", "most_specific", "read_class_parents", "resolve_classes", "resolve_with_conflicts",
    "tag_for_class",
]
