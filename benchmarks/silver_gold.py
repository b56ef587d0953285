"""Silver labels against blind hand-annotated gold: precision, recall and F per type.

The gold (tests/gold/*_blind.conll) was sampled from real articles by scripts/sample_gold.py and
annotated from the guidelines in tests/gold/ and the tokens alone. A gold sentence is scored when the
corpus kept it (matched on article title and tokens); the coverage line says how many were kept::

    wikisilver build --dump ../shared/data/wikidumps/gensim_enwiki-…-shortened.bz2 \\
        --dump ../shared/data/wikidumps/enwiki-minidump.xml.bz2 --lang en \\
        --ontology ../shared/data/dbpedia/ontology/dbo-snapshots.owl \\
        --types ../shared/data/dbpedia/types/db100k-types.nt.bz2 \\
        --types ../shared/data/dbpedia/types/db111k-types.nt.bz2 --out /tmp/en
    python benchmarks/silver_gold.py --corpus /tmp/en --gold tests/gold/en_wiki_blind.conll
"""

from __future__ import annotations

import argparse
import json
import sys

from wikisilver.corpus.goldcheck import read_blind_gold, score_corpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="a finished wikisilver corpus directory")
    parser.add_argument("--gold", required=True, action="append", help="blind gold file (repeatable)")
    parser.add_argument("--json", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    gold = [sentence for path in args.gold for sentence in read_blind_gold(path)]
    report = score_corpus(args.corpus, gold)
    print(report.format())
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report.to_json(), handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
