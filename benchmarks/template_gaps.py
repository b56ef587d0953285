"""Gap sentences: sentences in which an unrendered inline template or formula stood.

Reads a finished corpus's stats.json and prints how many gap sentences were kept (corpora built
before gap sentences were dropped flagged them: ``rules_fired.low_quality_template_gap``) over
``sentences_kept``, and how many were dropped (``sentences_dropped_fragment.template_gap``). The
acceptance bound for the shared English extract is 0.2 % kept (docs/labelling.md has the build
command)::

    python benchmarks/template_gaps.py --corpus /tmp/en
"""

from __future__ import annotations

import argparse
import sys

from wikisilver.corpus.read import read_corpus_json


def gap_ratio(stats: dict) -> tuple[int, int, float]:
    """(gap sentences kept, kept sentences, gap sentences kept per kept sentence)."""
    gaps = int(stats["rules_fired"].get("low_quality_template_gap", 0))
    kept = int(stats["sentences_kept"])
    return gaps, kept, gaps / kept if kept else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="a finished wikisilver corpus directory")
    args = parser.parse_args(argv)
    stats = read_corpus_json(args.corpus, "stats.json")
    gaps, kept, ratio = gap_ratio(stats)
    dropped = int(stats.get("sentences_dropped_fragment", {}).get("template_gap", 0))
    print(f"gap sentences: {gaps:,} of {kept:,} kept sentences ({100 * ratio:.2f} %); "
          f"{dropped:,} dropped for a gap")
    return 0


if __name__ == "__main__":
    sys.exit(main())
