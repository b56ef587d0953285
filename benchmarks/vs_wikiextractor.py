"""The whole build against wikiextractor, as a user would compare them: CPU, marginal cost, memory.

One command::

    python benchmarks/vs_wikiextractor.py [--pairs 3] [--copies 8] [--dump FILE] [--json FILE]

It makes the shared English extract repeated ``--copies`` times (every page copied under a new
page id and title, ``throughput.repeated_dump``), then runs, alternately (A B A B ...), one-worker
``wikisilver -q build`` with the ontology and both type samples, and ``python -m
wikiextractor.WikiExtractor --no-templates --processes 1`` on that file, each as a whole process
(CPU of the process and its children from ``wait4``, peak RSS). It prints each pair and the median
CPU ratio (build / wikiextractor). Then it builds the 1x input (as many times as ``--pairs``) and
prints:

- the marginal CPU per extra article: (median CPU at Nx - median CPU at 1x) / extra articles, the
  cost a 7 M-article dump pays per article, free of start-up and of the fixed cost of reading the
  type files;
- peak RSS Nx / 1x: whether the one-worker build's memory grows with its input.

Builds use the default number of parts, as a user's command does. Timings are whole processes;
nothing here is asserted (benchmarks print ratios); the load average at start and end is printed
beside them, since a busy machine slows both sides of a pair alike but not exactly alike.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from throughput import (  # (this script's folder is on sys.path)
    DEFAULT_DUMP, DEFAULT_ONTOLOGY, DEFAULT_TYPES, input_size_cached, repeated_dump, run_measured,
)


def build_command(dump: Path, out: Path, types: list[Path], ontology: Path) -> list[str]:
    command = [sys.executable, "-m", "wikisilver.cli", "-q", "build", "--dump", str(dump), "--lang", "en",
               "--out", str(out), "--ontology", str(ontology), "--runner", "DirectRunner"]
    for path in types:
        command += ["--types", str(path)]
    return command


def run_build(dump: Path, work: Path, name: str, types: list[Path], ontology: Path) -> dict:
    out = work / f"build-{name}"
    shutil.rmtree(out, ignore_errors=True)
    wall, cpu, peak, _, _, _ = run_measured(build_command(dump, out, types, ontology), work / f"build-{name}.log")
    stats = json.loads((out / "stats.json").read_text())
    shutil.rmtree(out, ignore_errors=True)
    return {"cpu_s": cpu, "wall_s": wall, "rss_mb": peak, "sentences_kept": stats.get("sentences_kept")}


def run_wikiextractor(dump: Path, work: Path, name: str) -> dict:
    out = work / f"wikiextractor-{name}"
    shutil.rmtree(out, ignore_errors=True)
    wall, cpu, peak, _, _, _ = run_measured(
        [sys.executable, "-m", "wikiextractor.WikiExtractor", "--no-templates", "--processes", "1", "-q",
         "-o", str(out), str(dump)],
        work / f"wikiextractor-{name}.log",
    )
    shutil.rmtree(out, ignore_errors=True)
    return {"cpu_s": cpu, "wall_s": wall, "rss_mb": peak}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", default=str(DEFAULT_DUMP), help="pages-articles dump (default: the shared English extract)")
    parser.add_argument("--types", action="append", type=Path, help="types file (repeatable; default: both shared samples)")
    parser.add_argument("--ontology", type=Path, default=DEFAULT_ONTOLOGY)
    parser.add_argument("--copies", type=int, default=8, help="copies of the input for the large run (default 8)")
    parser.add_argument("--pairs", type=int, default=3, help="alternating build/wikiextractor pairs (default 3)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one, removed after)")
    args = parser.parse_args(argv)
    types = args.types or DEFAULT_TYPES
    for path in [Path(args.dump), args.ontology, *types]:
        if not Path(path).exists():
            print(f"vs_wikiextractor: {path} is missing (../shared/data)", file=sys.stderr)
            return 2
    if subprocess.run([sys.executable, "-c", "import wikiextractor.WikiExtractor"], capture_output=True).returncode:
        print("vs_wikiextractor: wikiextractor is not installed (pip install -e '.[bench]')", file=sys.stderr)
        return 2
    work = args.work or Path(tempfile.mkdtemp(prefix="vs-wikiextractor-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        return compare(args, types, work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


def compare(args, types: list[Path], work: Path) -> int:
    small = Path(args.dump)
    big = repeated_dump(str(small), args.copies, work / f"repeated-{args.copies}x.xml.bz2")
    articles_small = input_size_cached(str(small))["articles"]
    articles_big = input_size_cached(str(big))["articles"]
    print(f"input: {small.name} x{args.copies}: {articles_big:,} articles "
          f"({articles_small:,} at 1x); load average at start {load()}; {os.cpu_count()} cores")
    pairs = []
    for index in range(args.pairs):
        build = run_build(big, work, f"{args.copies}x", types, args.ontology)
        extractor = run_wikiextractor(big, work, f"{args.copies}x")
        pairs.append((build, extractor))
        print(f"pair {index + 1}: build {build['cpu_s']:6.1f} CPU s {build['wall_s']:6.1f} wall s {build['rss_mb']:5.0f} MB | "
              f"wikiextractor {extractor['cpu_s']:5.1f} CPU s {extractor['wall_s']:5.1f} wall s | "
              f"CPU ratio {build['cpu_s'] / extractor['cpu_s']:.2f}x", flush=True)
    smalls = [run_build(small, work, "1x", types, args.ontology) for _ in range(args.pairs)]
    cpu_big = statistics.median(b["cpu_s"] for b, _ in pairs)
    cpu_small = statistics.median(b["cpu_s"] for b in smalls)
    ratio = statistics.median(b["cpu_s"] / e["cpu_s"] for b, e in pairs)
    marginal_ms = (cpu_big - cpu_small) / (articles_big - articles_small) * 1000
    rss_big = statistics.median(b["rss_mb"] for b, _ in pairs)
    rss_small = statistics.median(b["rss_mb"] for b in smalls)
    small_cpu = ", ".join(f"{b['cpu_s']:.1f}" for b in smalls)
    small_rss = ", ".join(f"{b['rss_mb']:.0f}" for b in smalls)
    pair_ratios = ", ".join(f"{b['cpu_s'] / e['cpu_s']:.2f}" for b, e in pairs)
    print(f"1x builds: CPU s {small_cpu}; peak RSS MB {small_rss}")
    print(f"median CPU ratio build / wikiextractor ({args.copies}x): {ratio:.2f}x (pairs {pair_ratios})")
    print(f"marginal CPU per extra article: {marginal_ms:.1f} ms "
          f"(({cpu_big:.1f} - {cpu_small:.1f}) CPU s / {articles_big - articles_small:,} articles)")
    print(f"peak RSS {args.copies}x / 1x: {rss_big / rss_small:.2f} ({rss_big:.0f} MB / {rss_small:.0f} MB)")
    print(f"load average at end {load()}")
    if args.json:
        args.json.write_text(json.dumps({
            "pairs": pairs, "small": smalls, "ratio": ratio, "marginal_ms": marginal_ms,
            "rss_ratio": rss_big / rss_small, "articles": [articles_small, articles_big],
        }, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
