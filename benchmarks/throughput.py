"""Throughput of the build job, stage by stage, against a plain text extractor; memory growth.

One command, one machine, one run::

    python benchmarks/throughput.py [--dump FILE] [--types FILE ...] [--ontology FILE]
                                    [--repeat 4] [--runs N] [--skip-multi] [--json FILE]

Stages, each in its own child process so wall time, CPU time (the child and everything it
spawned, from ``wait4``) and peak RSS are measured cleanly:

1. read: decompress + cut + parse the XML of every page (``wikisilver.dump.iter_pages``);
2. parse: wikitext -> plain text of the article pages, pages already in memory, as
   2a ``mwparserfromhell.parse(text).strip_code()`` and 2b ``wikisilver.wikitext.clean_wikitext``;
3. ``wikiextractor --no-templates --processes 1`` (when the package is installed);
4. the full ``wikisilver build`` with one worker (DirectRunner, in-process);
5. the full build with two workers (``--direct_running_mode multi_processing``).

Stages 1 and 2 time only their loop (inside the child); stages 3-5 time the whole process, so
they include interpreter start-up and, for the build, Beam's start-up and reading the types
files. That fixed cost is why the build is also run on the input repeated ``--repeat`` times
(every page copied under a new page id and title): the difference between the two runs is the
*marginal* cost per article, the number that matters for a 7M-article dump, and the peak RSS of
the two runs shows whether memory grows with the input. The build's parts (``--shards``) grow with
the copies, as the default makes them grow with a real dump's size.

With two workers it also measures the machine's own two-process ceiling (stage 2b's loop alone,
against two copies of it run at once): what a second process can gain here at all, against
which the two-worker build is put.

Throughput is articles (namespace 0, not redirects) and MB of their wikitext (UTF-8) per
wall second and per CPU second ("per core").
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import json
import lzma
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from proctree import TreeSampler  # (this script's folder is on sys.path)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
DEFAULT_DUMP = SHARED / "wikidumps" / "gensim_enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
DEFAULT_TYPES = [SHARED / "dbpedia" / "types" / "db100k-types.nt.bz2", SHARED / "dbpedia" / "types" / "db111k-types.nt.bz2"]
DEFAULT_ONTOLOGY = SHARED / "dbpedia" / "ontology" / "dbo-snapshots.owl"
MB = 1_000_000


@dataclass(frozen=True)
class Measure:
    """One stage on one input: what it cost and how much it processed."""

    stage: str
    input_name: str
    wall_s: float
    cpu_s: float
    peak_rss_mb: float  # largest single process of the stage
    tree_rss_mb: float  # largest sum over the stage's processes at one moment (sampled)
    articles: int
    wikitext_mb: float
    note: str = ""
    worker_rss_mb: float = 0.0  # largest process the stage started (Beam's SDK workers); 0: none

    @property
    def articles_per_s(self) -> float:
        return self.articles / self.wall_s if self.wall_s else 0.0

    @property
    def articles_per_cpu_s(self) -> float:
        return self.articles / self.cpu_s if self.cpu_s else 0.0

    @property
    def mb_per_s(self) -> float:
        return self.wikitext_mb / self.wall_s if self.wall_s else 0.0

    @property
    def mb_per_cpu_s(self) -> float:
        return self.wikitext_mb / self.cpu_s if self.cpu_s else 0.0


# -- child side: stages 1 and 2 run here, timed from inside -------------------------------------


def _article_pages(dump: str):
    from wikisilver import dump as dumplib
    from wikisilver.records import Page
    from wikisilver.wikitext import redirect_target

    for record in dumplib.iter_pages(dump):
        if isinstance(record, Page) and record.ns == 0 and not (record.redirect or redirect_target(record.text)):
            yield record


def child_stage(stage: str, dump: str) -> dict:
    """Run one in-process stage and return its own timing (the caller adds rusage)."""
    if stage == "read":
        from wikisilver import dump as dumplib

        wall, cpu = time.perf_counter(), time.process_time()
        pages = articles = size = 0
        for record in dumplib.iter_pages(dump):
            pages += 1
            # Counting articles here needs only what the reader already gives (no text parsing).
            if getattr(record, "ns", None) == 0 and not getattr(record, "redirect", None):
                articles += 1
                size += len(record.text.encode("utf-8"))
        return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                "pages": pages, "articles_no_redirect_tag": articles, "wikitext_bytes": size}
    texts = [page.text for page in _article_pages(dump)]
    size = sum(len(text.encode("utf-8")) for text in texts)
    if stage == "mwparserfromhell":
        import mwparserfromhell

        def work(text: str) -> int:
            return len(mwparserfromhell.parse(text).strip_code())
    elif stage == "clean_wikitext":
        from wikisilver import wikitext

        def work(text: str) -> int:
            try:
                return len(wikitext.clean_wikitext(text, lang="en", max_seconds=None).text)
            except wikitext.WikitextBudgetError:
                return 0
    else:
        raise SystemExit(f"unknown stage {stage!r}")
    wall, cpu = time.perf_counter(), time.process_time()
    out_chars = sum(work(text) for text in texts)
    return {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
            "articles": len(texts), "wikitext_bytes": size, "output_chars": out_chars}


def input_size(dump: str) -> dict:
    """Article pages and MB of their wikitext: the denominators of every throughput."""
    articles = size = 0
    for page in _article_pages(dump):
        articles += 1
        size += len(page.text.encode("utf-8"))
    return {"articles": articles, "wikitext_bytes": size}


# -- parent side: run a child, measure it -------------------------------------------------------


def launch_and_report(command: list[str], report: str) -> int:
    """Run ``command`` as a child of this small process and write its rusage to ``report``.

    Why a launcher: Linux starts a forked child's max-RSS at its parent's size and keeps it
    across exec, so a child forked straight from the benchmark (which has Beam imported) would
    report at least the benchmark's own RSS. Forked from this interpreter, which has imported
    only the standard library, the floor is a few MB.
    """
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    Path(report).write_text(json.dumps({
        "cpu_s": usage.ru_utime + usage.ru_stime, "maxrss_kb": usage.ru_maxrss,
    }))
    return os.waitstatus_to_exitcode(status)


def run_measured(command: list[str], log: Path, env: dict | None = None) -> tuple[float, float, float, float, str, float]:
    """(wall s, CPU s, peak RSS MB, peak tree RSS MB, stdout, peak RSS MB of the largest process
    the command started, 0 when it started none) of one command and its children."""
    report = log.with_suffix(".rusage.json")
    started = time.perf_counter()
    with open(log, "wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-S", __file__, "--launch", str(report), "--", *command],
            stdout=subprocess.PIPE, stderr=err, env=env, cwd=REPO,
        )
        sampler = TreeSampler(process.pid)
        sampler.start()
        stdout = process.stdout.read()
        process.wait()
        sampler.done.set()
        sampler.join()
    wall = time.perf_counter() - started
    if process.returncode:
        tail = log.read_text(errors="replace").strip().splitlines()[-5:]
        raise RuntimeError(f"{' '.join(command[:4])} … exited with {process.returncode}: " + " | ".join(tail))
    usage = json.loads(report.read_text())
    # wait4 counts the command and every descendant it reaped; the sampler catches the rest.
    cpu = max(usage["cpu_s"], sampler.cpu_s)
    peak = usage["maxrss_kb"] / 1024  # KiB on Linux
    tree = max(sampler.peak_tree_rss / (1 << 20), peak)
    return wall, cpu, peak, tree, stdout.decode(), sampler.peak_worker_rss / (1 << 20)


def child_command(stage: str, dump: str) -> list[str]:
    """This script run as the child of stage 1 or 2 (see ``child_stage``)."""
    return [sys.executable, __file__, "--child-stage", stage, "--dump", dump]


def child_report(stdout: str) -> dict:
    """The timing a child stage printed as its last line."""
    return json.loads(stdout.strip().splitlines()[-1])


def measure_child_stage(stage: str, dump: str, name: str, work: Path) -> Measure:
    wall, cpu, peak, tree, out, _ = run_measured(child_command(stage, dump), work / f"{stage}-{name}.log")
    inner = child_report(out)
    size = input_size_cached(dump)
    return Measure(stage, name, inner["wall_s"], inner["cpu_s"], peak, tree, size["articles"],
                   size["wikitext_bytes"] / MB, note=f"loop only; process {wall:.1f} s wall, {cpu:.1f} s CPU")


def ceiling_pair(dump: str) -> float:
    """One sample of the machine's two-process ceiling: the wall s of the slower of two copies of
    stage 2b's loop run at the same time, in two processes.

    Stage 2b (``clean_wikitext`` over the articles) is pure-Python CPU work like the build's, with
    no Beam and nothing shared between the two processes. Against the same loop run alone (stage
    2b itself), 2 x alone / together is what a second process can gain on this machine at all: on a
    VM whose two "cores" share a physical core, or whose neighbours are busy, well under 2x, and no
    two-worker build can beat it."""
    command = child_command("clean_wikitext", dump)
    processes = [subprocess.Popen(command, stdout=subprocess.PIPE, cwd=REPO) for _ in range(2)]
    walls = []
    for process in processes:
        out, _ = process.communicate()
        if process.returncode:
            raise RuntimeError(f"parallel ceiling: child exited with {process.returncode}")
        walls.append(child_report(out.decode())["wall_s"])
    return max(walls)


_SIZES: dict[str, dict] = {}


def input_size_cached(dump: str) -> dict:
    if dump not in _SIZES:
        _SIZES[dump] = input_size(dump)
    return _SIZES[dump]


def wikiextractor_available() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import wikiextractor.WikiExtractor"], capture_output=True, check=False)
    return probe.returncode == 0


def measure_wikiextractor(dump: str, name: str, work: Path) -> Measure:
    target = work / f"wikiextractor-{name}"
    shutil.rmtree(target, ignore_errors=True)
    wall, cpu, peak, tree, _, _ = run_measured(
        [sys.executable, "-m", "wikiextractor.WikiExtractor", "--no-templates", "--processes", "1", "-q",
         "-o", str(target), dump],
        work / f"wikiextractor-{name}.log",
    )
    size = input_size_cached(dump)
    docs = sum(f.read_text(errors="replace").count("<doc ") for f in target.rglob("wiki_*"))
    shutil.rmtree(target, ignore_errors=True)
    return Measure("wikiextractor", name, wall, cpu, peak, tree, size["articles"], size["wikitext_bytes"] / MB,
                   note=f"whole process; {docs} docs written")


def measure_build(args, dump: str, name: str, work: Path, workers: int, copies: int = 1) -> Measure:
    out = work / f"build-{name}-{workers}w"
    # Parts grow with the input, as the default does on real dumps (one per 16 MiB of bz2): the
    # default for the original input, times the copies. The 1.7 MB extract sits on the 4-part
    # floor, and with 4 parts for the repeated input too each part would hold `copies` times the
    # sentences (one part is sorted in memory by one worker).
    from wikisilver.config.derived import auto_shards

    shards = auto_shards((args.dump,)) * copies
    command = [sys.executable, "-m", "wikisilver.cli", "-q", "build", "--dump", dump, "--lang", args.lang,
               "--out", str(out), "--overwrite", "--shards", str(shards)]
    for path in args.types:
        command += ["--types", str(path)]
    if args.ontology:
        command += ["--ontology", str(args.ontology)]
    command += ["--runner", "DirectRunner"]
    if workers > 1:
        command += ["--direct_running_mode", "multi_processing", "--direct_num_workers", str(workers)]
    wall, cpu, peak, tree, _, worker = run_measured(command, work / f"build-{name}-{workers}w.log")
    stats = json.loads((out / "stats.json").read_text())
    shutil.rmtree(out, ignore_errors=True)
    size = input_size_cached(dump)
    stage = "build, 1 worker" if workers == 1 else f"build, {workers} workers"
    return Measure(stage, name, wall, cpu, peak, tree, size["articles"], size["wikitext_bytes"] / MB,
                   note=f"whole process; {shards} parts; {stats['pages_used']} pages used, "
                        f"{stats['sentences_kept']} sentences kept",
                   worker_rss_mb=worker)


# -- the larger input -----------------------------------------------------------------------------


def _open_any(path: str):
    with open(path, "rb") as handle:
        magic = handle.read(6)
    if magic.startswith(b"BZh"):
        return bz2.open(path, "rb")
    if magic.startswith(b"\xfd7zXZ"):
        return lzma.open(path, "rb")
    if magic.startswith(b"\x1f\x8b"):
        return gzip.open(path, "rb")
    return open(path, "rb")


_TITLE = re.compile(rb"<title>([^<]*)</title>")
_ID = re.compile(rb"<id>(\d+)</id>")


def _pages(path: str, block: int = 1 << 20):
    """(head, pages, tail) of a dump as raw bytes, streamed: head and tail are yielded as
    ("head", bytes) / ("tail", bytes), pages as ("page", bytes)."""
    buffer = b""
    seen_page = False
    with _open_any(path) as handle:
        while chunk := handle.read(block):
            buffer += chunk
            while True:
                start = buffer.find(b"<page>")
                if start < 0:
                    break
                if not seen_page:
                    yield "head", buffer[:start]
                    seen_page = True
                end = buffer.find(b"</page>", start)
                if end < 0:
                    break
                end += len(b"</page>")
                yield "page", buffer[start:end]
                buffer = buffer[end:]
    yield "tail", buffer


def _renamed(page: bytes, copy: int, step: int) -> bytes:
    """Copy ``copy`` of a page: its first <title> and first <id> (the page id) made unique."""
    page_id = _ID.search(page)
    if page_id:
        page = page[:page_id.start()] + b"<id>%d</id>" % (int(page_id.group(1)) + copy * step) + page[page_id.end():]
    title = _TITLE.search(page)
    if title:
        page = page[:title.start()] + b"<title>%s (copy %d)</title>" % (title.group(1), copy) + page[title.end():]
    return page


def repeated_dump(source: str, copies: int, target: Path) -> Path:
    """The dump with every page ``copies`` times; copy k > 0 gets page id + k * (max id + 1) and
    the title "T (copy k)", so ids and titles stay unique and the job does ``copies`` times the
    work (links still point at the original titles, as the copies' text is unchanged)."""
    max_id = 0
    for kind, data in _pages(source):
        if kind == "page":
            match = _ID.search(data)
            max_id = max(max_id, int(match.group(1)) if match else 0)
    step = max_id + 1
    with bz2.open(target, "wb", compresslevel=9) as out:
        tail = b""
        for copy in range(copies):
            for kind, data in _pages(source):
                if kind == "head" and copy == 0:
                    out.write(data)
                elif kind == "tail":
                    tail = data
                elif kind == "page":
                    out.write((_renamed(data, copy, step) if copy else data) + b"\n")
        out.write(tail.lstrip() if tail.strip() else b"</mediawiki>\n")
    return target


# -- report -------------------------------------------------------------------------------------


def machine() -> dict:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import apache_beam
    import mwparserfromhell

    return {"cores": os.cpu_count(), "cpu": model, "python": platform.python_version(),
            "beam": apache_beam.__version__, "mwparserfromhell": mwparserfromhell.__version__}


def table(rows: list[Measure]) -> str:
    header = ("stage", "input", "wall s", "CPU s", "art/s", "art/CPU-s", "MB/s", "MB/CPU-s", "RSS MB", "tree RSS MB",
              "worker RSS MB")
    lines = [header]
    for m in rows:
        lines.append((m.stage, m.input_name, f"{m.wall_s:.2f}", f"{m.cpu_s:.2f}", f"{m.articles_per_s:.1f}",
                      f"{m.articles_per_cpu_s:.1f}", f"{m.mb_per_s:.3f}", f"{m.mb_per_cpu_s:.3f}",
                      f"{m.peak_rss_mb:.0f}", f"{m.tree_rss_mb:.0f}",
                      f"{m.worker_rss_mb:.0f}" if m.worker_rss_mb else "-"))
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    out = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths)) + " |" for row in lines]
    out.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)


def ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}x" if b else "n/a"


def ratios(found: dict[tuple[str, str], Measure], big: str | None, ceiling: float | None = None,
           why_not: dict[str, str] | None = None) -> list[str]:
    """The ratio lines; ``why_not``: stage -> why it has no measure ("not installed", "failed: …")."""
    lines = []
    why_not = why_not or {}
    if ceiling:
        lines.append(f"machine's two-process ceiling (stage 2b alone vs two copies at once, fastest of each): {ceiling:.2f}x")
    build = found.get(("build, 1 worker", "1x"))
    pairs = [("4/3 build vs wikiextractor", "wikiextractor"), ("4/2a build vs mwparserfromhell strip_code", "mwparserfromhell"),
             ("4/2b build vs clean_wikitext", "clean_wikitext"), ("4/5 build 1 worker vs 2 workers", "build, 2 workers"),
             ("4/1 build vs read only", "read")]
    for label, other in pairs:
        m = found.get((other, "1x"))
        if build is None or m is None:
            lines.append(f"{label}: n/a ({other} {why_not.get(other, 'not run')})")
            continue
        line = f"{label}: wall {ratio(build.wall_s, m.wall_s)}, CPU {ratio(build.cpu_s, m.cpu_s)}"
        if other == "build, 2 workers" and ceiling:
            line += f" (wall: {100 * build.wall_s / m.wall_s / ceiling:.0f}% of the machine's ceiling)"
        lines.append(line)
    if big:
        # Marginal cost: what the extra copies cost, free of start-up and of the fixed types load.
        for stage in ("build, 1 worker", "wikiextractor", "build, 2 workers"):
            small, large = found.get((stage, "1x")), found.get((stage, big))
            if small and large and large.articles > small.articles:
                extra = large.articles - small.articles
                lines.append(
                    f"marginal {stage}: {extra / max(large.wall_s - small.wall_s, 1e-9):.1f} articles/s wall, "
                    f"{extra / max(large.cpu_s - small.cpu_s, 1e-9):.1f} articles/CPU-s "
                    f"({(large.cpu_s - small.cpu_s) / extra * 1000:.0f} ms CPU per article)"
                )
        b_small, b_large = found.get(("build, 1 worker", "1x")), found.get(("build, 1 worker", big))
        w_small, w_large = found.get(("wikiextractor", "1x")), found.get(("wikiextractor", big))
        if b_small and b_large and w_small and w_large:
            build_marginal = (b_large.cpu_s - b_small.cpu_s) / (b_large.articles - b_small.articles)
            we_marginal = (w_large.cpu_s - w_small.cpu_s) / (w_large.articles - w_small.articles)
            lines.append(f"marginal 4/3 (CPU per article, build vs wikiextractor): {ratio(build_marginal, we_marginal)}")
        p_small, p_large = found.get(("build, 2 workers", "1x")), found.get(("build, 2 workers", big))
        if b_small and b_large and p_small and p_large:
            one = (b_large.wall_s - b_small.wall_s) / (b_large.articles - b_small.articles)
            two = (p_large.wall_s - p_small.wall_s) / (p_large.articles - p_small.articles)
            lines.append(f"marginal 4/5 (wall per article, 1 worker vs 2 workers): {ratio(one, two)}"
                         + (f" = {100 * (one / two) / ceiling:.0f}% of the machine's ceiling" if ceiling else ""))
        if b_small and b_large:
            per_article = (b_large.cpu_s - b_small.cpu_s) / (b_large.articles - b_small.articles)
            lines.append(
                f"fixed cost of the build (start-up, ontology, types): ~{b_small.cpu_s - per_article * b_small.articles:.1f} "
                f"CPU s of the {b_small.cpu_s:.1f} CPU s on the 1x input"
            )
            extra_mb = b_large.wikitext_mb - b_small.wikitext_mb
            lines.append(
                f"peak RSS growth, build 1 worker, input x{b_large.articles / b_small.articles:.0f}: "
                f"{b_small.peak_rss_mb:.0f} MB -> {b_large.peak_rss_mb:.0f} MB = {ratio(b_large.peak_rss_mb, b_small.peak_rss_mb)} "
                f"({(b_large.peak_rss_mb - b_small.peak_rss_mb) / extra_mb:.1f} MB of RSS per extra MB of wikitext)"
            )
        if p_small and p_large:
            lines.append(
                f"tree RSS growth, build 2 workers: {p_small.tree_rss_mb:.0f} MB -> {p_large.tree_rss_mb:.0f} MB = "
                f"{ratio(p_large.tree_rss_mb, p_small.tree_rss_mb)}"
            )
            if p_small.worker_rss_mb and p_large.worker_rss_mb:
                lines.append(
                    f"worker RSS growth, build 2 workers (largest SDK worker process, without the runner "
                    f"that holds the local shuffle): {p_small.worker_rss_mb:.0f} MB -> {p_large.worker_rss_mb:.0f} MB = "
                    f"{ratio(p_large.worker_rss_mb, p_small.worker_rss_mb)}"
                )
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--launch"]:
        return launch_and_report(argv[3:], argv[1])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", default=str(DEFAULT_DUMP), help="pages-articles dump (default: the shared enwiki extract)")
    parser.add_argument("--types", action="append", help="DBpedia types file(s) for the build (default: the shared two)")
    parser.add_argument("--ontology", default=str(DEFAULT_ONTOLOGY), help="DBpedia ontology for the build")
    parser.add_argument("--lang", default="en", help="language of the dump (default en)")
    parser.add_argument("--repeat", type=int, default=4, help="copies of the input for the memory-growth run (default 4; 1: skip)")
    parser.add_argument("--skip-multi", action="store_true", help="skip the two-worker build")
    parser.add_argument("--work", help="directory for temporary files (default: a new temp dir, removed at the end)")
    parser.add_argument("--json", help="also write every measurement to this JSON file")
    parser.add_argument("--runs", type=int, default=1,
                        help="run the whole plan N times, in rounds, and keep per stage the run with the least CPU "
                             "(shared machines drift; default 1)")
    parser.add_argument("--child-stage", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_stage:
        print(json.dumps(child_stage(args.child_stage, args.dump)))
        return 0
    args.types = args.types or [str(p) for p in DEFAULT_TYPES]
    for path in [args.dump, *args.types, *([args.ontology] if args.ontology else [])]:
        if not os.path.isfile(path):
            print(f"throughput: error: {path}: no such file", file=sys.stderr)
            return 2
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="wikisilver-throughput-"))
    work.mkdir(parents=True, exist_ok=True)
    info = machine()
    print(f"machine: {info['cores']} cores, {info['cpu']}; Python {info['python']}, Beam {info['beam']}, "
          f"mwparserfromhell {info['mwparserfromhell']}")
    inputs = [("1x", args.dump)]
    big = None
    if args.repeat > 1:
        big = f"{args.repeat}x"
        path = repeated_dump(args.dump, args.repeat, work / f"repeated-{args.repeat}x.xml.bz2")
        inputs.append((big, str(path)))
    for name, path in inputs:
        size = input_size_cached(path)
        print(f"input {name}: {path} ({os.path.getsize(path) / MB:.1f} MB compressed): "
              f"{size['articles']} articles, {size['wikitext_bytes'] / MB:.2f} MB wikitext", flush=True)
    has_we = wikiextractor_available()
    why_not: dict[str, str] = {}
    if not has_we:
        why_not["wikiextractor"] = "not installed"
        print("wikiextractor: not installed (pip install wikiextractor to compare); skipping stage 3")
    found: dict[tuple[str, str], Measure] = {}
    plan: list[tuple[str, object]] = [
        (stage, lambda stage=stage: measure_child_stage(stage, args.dump, "1x", work))
        for stage in ("read", "mwparserfromhell", "clean_wikitext")
    ]
    for name, path in inputs:
        copies = args.repeat if name == big else 1
        if has_we:
            plan.append(("wikiextractor", lambda path=path, name=name: measure_wikiextractor(path, name, work)))
        for workers in (1,) if args.skip_multi else (1, 2):
            plan.append(("build", lambda path=path, name=name, workers=workers, copies=copies:
                         measure_build(args, path, name, work, workers=workers, copies=copies)))
    if not args.skip_multi:
        plan.append(("ceiling", lambda: ceiling_pair(args.dump)))  # stage 2b is the loop alone
    # --runs N: the whole plan N times over, in rounds, so that every stage samples the same
    # stretches of a drifting shared machine; per stage the run with the least CPU time is kept.
    samples: dict[tuple[str, str], list[Measure]] = {}
    ceilings: list[float] = []
    runs = max(1, args.runs)
    for round_ in range(1, runs + 1):
        for kind, measure in plan:
            if kind == "wikiextractor" and not has_we:
                continue
            try:
                m = measure()
            except RuntimeError as error:
                if kind != "wikiextractor":
                    raise
                print(f"wikiextractor failed, skipping it from now on: {error}")
                why_not["wikiextractor"] = f"failed: {error}"[:300]
                has_we = False
                continue
            if kind == "ceiling":
                ceilings.append(m)
                print(f"  two copies of 2b   1x: {m:7.2f} s wall (the slower loop; parallel ceiling"
                      f"{f', run {round_} of {runs}' if runs > 1 else ''})", flush=True)
                continue
            samples.setdefault((m.stage, m.input_name), []).append(m)
            print(f"  {m.stage:<18} {m.input_name:>3}: {m.wall_s:7.2f} s wall {m.cpu_s:7.2f} s CPU "
                  f"{m.peak_rss_mb:6.0f} MB RSS  ({m.note}{f'; run {round_} of {runs}' if runs > 1 else ''})", flush=True)
    for key, taken in samples.items():
        m = min(taken, key=lambda run: run.cpu_s)
        if len(taken) > 1:
            m = Measure(**{**asdict(m), "note": m.note + f"; least CPU of {len(taken)} runs: "
                           + "/".join(f"{run.cpu_s:.1f}" for run in taken)})
        found[key] = m
    ceiling = None
    alone = found.get(("clean_wikitext", "1x"))
    if ceilings and alone:  # the fastest loop alone (stage 2b) against the fastest pair
        ceiling = 2 * alone.wall_s / min(ceilings)
    print()
    print(table(list(found.values())))
    print()
    for line in ratios(found, big, ceiling, why_not):
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"machine": info, "measures": [asdict(m) | {"articles_per_s": m.articles_per_s,
                                                         "articles_per_cpu_s": m.articles_per_cpu_s,
                                                         "mb_per_s": m.mb_per_s, "mb_per_cpu_s": m.mb_per_cpu_s}
                                           for m in found.values()],
             "parallel_ceiling": ceiling, "parallel_ceiling_samples": ceilings, "ratios": ratios(found, big, ceiling, why_not)}, indent=2))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as error:  # a stage failed: one line, its log is in --work
        print(f"throughput: error: {error}", file=sys.stderr)
        sys.exit(1)
