"""Where a whole build's CPU goes, stage by stage, sampled (not traced) as it really runs.

One command::

    python benchmarks/profile_build.py [--copies 8] [--dump FILE] [--rate 100]

It builds the shared English extract repeated ``--copies`` times (as ``vs_wikiextractor.py`` does)
twice with one worker: once plain, for its CPU seconds (``wait4``), and once under py-spy (a
sampling profiler: the code runs at full speed, unlike under cProfile, which inflates Python-heavy
code several times). Each sample is put in the stage of the innermost frame that names one
(:data:`STAGES`: the tagger inside the labeller is the tagger), and the table gives each stage's
share of the samples and that share of the plain run's CPU per article. py-spy is in the ``bench``
extra (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from throughput import DEFAULT_DUMP, DEFAULT_ONTOLOGY, DEFAULT_TYPES, input_size_cached, repeated_dump, run_measured
from vs_wikiextractor import build_command

# (stage, function names that mark it): a sample goes to the stage of its innermost marked frame.
STAGES = (
    ("POS tagging", ("PerceptronTagger.tag_many", "DenseScorer.tag_many", "DenseScorer._fixed_scores")),
    ("lemmas", ("PackProcessor._lemmas", "SuffixLemmatizer.lemmatize")),
    ("tokenizing", ("TextProcessor.tokenize", "TextProcessor.spans_and_tokens")),
    ("sentence splitting", ("TextProcessor.split_sentences",)),
    ("evidence rules (scans of the article text)", ("evidence_overrides",)),
    ("alias index of the article", ("AliasIndex.build",)),
    ("links, aliases, capitals (rules per sentence)", ("Labeller._label_links", "Labeller._label_words")),
    ("sentence records, IOB, quality", ("Labeller._label_sentence",)),
    ("labeller, the rest (fragments, counts)", ("Labeller.label_article",)),
    ("cleaning wikitext", ("clean_wikitext", "page_kind", "template_names")),
    ("reading the dump (bz2, XML)", ("_ReadDumpPart.process", "_ReadDumpPart.process_records")),
    ("reading the type files", ("_read_classes",)),
    ("typing and redirects (joins by title)", ("_TypeTitle.process", "_AnswerRequests.outputs", "_CollectRequests",
                                              "MergeBloom", "resolve")),
    ("packing records for shuffles", ("pack@packed.py", "unpack@packed.py", "pack_sentences@packed.py",
                                      "unpack_columns@packed.py")),
    ("writing TSV", ("write_tsv",)),
    ("writing Parquet", ("_write_groups", "sentences_to_table")),
    ("start-up (imports, ontology, graph)", ("_find_and_load", "class_table", "build_pipeline")),
)
_FRAME = re.compile(r"(.*?) \((.*?):\d+\)")


def stage_of(frames: list[str]) -> str:
    """The stage of a sampled stack (root first); a mark is a function's name, or NAME@FILE."""
    for frame in reversed(frames):
        match = _FRAME.match(frame)
        name = match.group(1) if match else frame
        where = f"{name}@{Path(match.group(2)).name}" if match else name
        for stage, marks in STAGES:
            if name in marks or where in marks:
                return stage
    return "Beam's runner (encoding, moving, scheduling elements)"


def is_idle(frames: list[str]) -> bool:
    """A sample of one of Beam's helper threads asleep (its state sampler, the data plane's periodic
    flush): py-spy reports them as running, but they spend no CPU, so they are left out."""
    return frames[0].startswith("Thread._bootstrap") and frames[-1].startswith(("Thread.run ", "Condition.wait "))


def shares(raw: Path) -> dict[str, float]:
    counts: collections.Counter[str] = collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        if stack and not is_idle(frames):
            counts[stage_of(frames)] += int(n)
    total = sum(counts.values())
    return {stage: n / total for stage, n in counts.most_common()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", default=str(DEFAULT_DUMP))
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--rate", type=int, default=100, help="py-spy samples per second (default 100)")
    args = parser.parse_args(argv)
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(spy).exists():
        print("profile_build: py-spy is not installed (pip install -e '.[bench]')", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="profile-build-"))
    dump = repeated_dump(args.dump, args.copies, work / "input.xml.bz2") if args.copies > 1 else Path(args.dump)
    articles = input_size_cached(str(dump))["articles"]
    command = build_command(dump, work / "out", DEFAULT_TYPES, DEFAULT_ONTOLOGY)
    _, cpu, _, _, _, _ = run_measured(command, work / "plain.log")
    shutil.rmtree(work / "out", ignore_errors=True)
    subprocess.run([spy, "record", "-r", str(args.rate), "-f", "raw", "-o", str(work / "raw.txt"), "--", *command],
                   check=True, capture_output=True)
    found = shares(work / "raw.txt")
    print(f"input: {Path(args.dump).name} x{args.copies}, {articles:,} articles; one-worker build "
          f"{cpu:.1f} CPU s, {cpu / articles * 1000:.1f} ms per article (start-up included)")
    print(f"{'stage':<50} {'share':>7} {'ms/article':>11}")
    for stage, share in found.items():
        print(f"{stage:<50} {share * 100:6.1f}% {share * cpu / articles * 1000:10.1f}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
