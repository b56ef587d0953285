"""Silver labels against blind hand-annotated gold: precision, recall and F per type, for each gold
file and for all of them together.

The gold (tests/gold/*_blind.conll) was sampled from real articles by scripts/sample_gold.py and
annotated from the guidelines in tests/gold/ and the tokens alone. A gold sentence is scored when a
corpus kept it (matched on article title and tokens); the coverage line says how many were kept.
The English figures of the README are this command's output at the final commit::

    wikisilver build --dump ../shared/data/wikidumps/gensim_enwiki-…-shortened.bz2 \\
        --dump ../shared/data/wikidumps/enwiki-minidump.xml.bz2 --lang en \\
        --ontology ../shared/data/dbpedia/ontology/dbo-snapshots.owl \\
        --types ../shared/data/dbpedia/types/db100k-types.nt.bz2 \\
        --types ../shared/data/dbpedia/types/db111k-types.nt.bz2 --out /tmp/en
    wikisilver build --dump ../shared/data/wikidumps/enwiki-gathered-articles.xml.bz2 --lang en \\
        (the same --ontology and --types) --out /tmp/gathered
    python benchmarks/silver_gold.py --corpus /tmp/en --corpus /tmp/gathered \\
        --gold tests/gold/en_wiki_blind.conll --gold tests/gold/en_org_blind.conll \\
        --gold tests/gold/en_gathered_blind.conll

``--split FILE:N`` also scores the first N sentences of a gold file and the rest apart (the
gathered gold: its development half, whose errors were read, and its held-out half).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from wikisilver.corpus.goldcheck import read_blind_gold, score_corpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, action="append",
                        help="a finished wikisilver corpus directory (repeatable: their kept sentences together)")
    parser.add_argument("--gold", required=True, action="append", help="blind gold file (repeatable)")
    parser.add_argument("--split", action="append", default=[], metavar="FILE:N",
                        help="also score the first N sentences of gold FILE and the rest apart")
    parser.add_argument("--json", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    golds = {path: list(read_blind_gold(path)) for path in args.gold}
    parts: list[tuple[str, list]] = [(os.path.basename(path), sentences) for path, sentences in golds.items()]
    for spec in args.split:
        path, _, n = spec.rpartition(":")
        sentences = golds.get(path) or list(read_blind_gold(path))
        name = os.path.basename(path)
        parts += [(f"{name}, first {n}", sentences[: int(n)]), (f"{name}, after {n}", sentences[int(n):])]
    if len(golds) > 1:
        parts.append(("all gold files together", [s for sentences in golds.values() for s in sentences]))
    figures = {}
    for name, sentences in parts:
        report = score_corpus(args.corpus, sentences)
        print(f"== {name}\n{report.format()}\n")
        figures[name] = report.to_json()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
