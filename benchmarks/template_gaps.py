"""Gap sentences: kept sentences in which an unrendered inline template or formula stood.

Reads a finished corpus's stats.json (``rules_fired.low_quality_template_gap`` over
``sentences_kept``) and prints the ratio; the acceptance bound for the shared English extract is
0.2 % (docs/labelling.md has the build command)::

    python benchmarks/template_gaps.py --corpus /tmp/en
"""

from __future__ import annotations

import argparse
import sys

from wikisilver.corpus.read import read_corpus_json


def gap_ratio(stats: dict) -> tuple[int, int, float]:
    """(gap sentences, kept sentences, gap sentences per kept sentence)."""
    gaps = int(stats["rules_fired"].get("low_quality_template_gap", 0))
    kept = int(stats["sentences_kept"])
    return gaps, kept, gaps / kept if kept else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="a finished wikisilver corpus directory")
    args = parser.parse_args(argv)
    gaps, kept, ratio = gap_ratio(read_corpus_json(args.corpus, "stats.json"))
    print(f"gap sentences: {gaps:,} of {kept:,} kept sentences ({100 * ratio:.2f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
