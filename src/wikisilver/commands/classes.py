"""``wikisilver classes``: print the DBpedia class -> tag table (step 1) as resolved for an ontology."""

from __future__ import annotations

import argparse
import sys

from wikisilver.ontology import load_builtin_ontology, load_class_mapping, load_ontology, resolve_with_conflicts

NAME = "classes"
HELP = "Print every DBpedia class with its CoNLL tag, fine tag and the mapped class that decided them."

COLUMNS = ("class", "conll", "fine", "decided_by")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ontology", metavar="FILE",
                        help="DBpedia ontology (OWL or Turtle, optionally .bz2/.gz); default: the built-in "
                             "hierarchy (current snapshot + 2014 + 3.7)")
    parser.add_argument("--mapping", metavar="FILE",
                        help="class -> tag table (TSV: class, conll, fine, note); default: mappings/classes.tsv")
    parser.add_argument("--format", choices=("tsv", "table"), default="tsv", help="output format (default tsv)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a class has parents that resolve differently and no row of its own")


def run(args: argparse.Namespace) -> int:
    ontology = load_ontology(args.ontology) if args.ontology else load_builtin_ontology()
    mapping = load_class_mapping(args.mapping)
    table, conflicts = resolve_with_conflicts(ontology, mapping)
    rows = [COLUMNS] + [(t.dbpedia_class, t.conll, t.fine, t.decided_by) for _, t in sorted(table.items())]
    if args.format == "tsv":
        lines = ["\t".join(row) for row in rows]
    else:
        widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    try:
        sys.stdout.write("\n".join(lines) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `wikisilver classes | head`: the reader has what it wanted
        return 0
    for cls, options in sorted(conflicts.items()):
        choices = ", ".join(f"{o.dbpedia_class} -> {o.conll}/{o.fine}" for o in options)
        print(f"wikisilver classes: {cls} has parents that resolve differently ({choices}); "
              f"add a row for it to the class table", file=sys.stderr)
    return 1 if args.check and conflicts else 0
