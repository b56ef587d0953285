"""The build on each engine, side by side: Beam's local runner and Flink, one and two workers, the
English extract once and repeated: wall time, CPU and the peak memory of every process.

    python benchmarks/engines.py                          # local and Flink, 1 and 2 slots, x1 and x4
    python benchmarks/engines.py --engines flink --slots 2 --repeat 8 --json engines.json

Each run is a whole ``wikisilver build`` process; a sampler polls /proc every 0.2 s for every process
it started and keeps, per process, its CPU ticks and its peak RSS (VmHWM, which the kernel keeps
for the life of a process, so a short sampling gap loses nothing but the last 0.2 s). Processes
are named by role:

* ``launcher``: the ``wikisilver build`` process (with one local worker it runs the job itself);
* ``JVM``: the Flink job server with its embedded cluster (job manager and task manager in one JVM);
* ``SDK workers``: the Python processes that run the DoFns: Flink's, started by the worker pool
  (``--environment_type LOOPBACK --experiments use_loopback_process_worker``: one process per
  environment, ``--sdk_worker_parallelism`` per task manager, kept for the whole job by
  ``--environment_cache_millis``: without it a worker is started, and its imports and tables
  loaded again, for every stage), or the local runner's
  ``multi_processing`` workers. "each" is the largest one's peak; "n" how many ran in all.

Flink runs with ``--parallelism N`` task slots (the embedded cluster's one task manager gets N
slots) and N SDK workers; the local runner with ``--direct_num_workers N``. ``--shards`` grows
with the copies (benchmarks/throughput.py says why). The corpus of every run is checked against
the one-worker local run of the same input (byte for byte, every TSV and Parquet part).

Needs the Flink job server: scripts/fetch_job_server.sh flink.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proctree import TICKS, TreeSampler  # noqa: E402
from throughput import (  # noqa: E402
    DEFAULT_DUMP, DEFAULT_ONTOLOGY, DEFAULT_TYPES, REPO, ceiling_pair, child_command, child_report, machine, repeated_dump,
)

JOB_SERVER_JAR = REPO / ".cache" / "flink" / "beam-flink-job-server.jar"


@dataclass
class Run:
    input: str
    engine: str
    slots: int
    wall_s: float
    cpu_s: float
    launcher_mb: float
    jvm_mb: float
    worker_mb: float  # the largest SDK worker's peak (the launcher's with one local worker)
    workers: int
    identical: str = ""
    worker_peaks_mb: list[float] = field(default_factory=list)
    cpu_by_role_s: dict[str, float] = field(default_factory=dict)


def role(command: str, launcher: bool) -> str:
    """What a process of the build is, from its command line."""
    if launcher:
        return "launcher"
    program = os.path.basename(command.split(" ", 1)[0])
    if program == "java":
        return "jvm"
    if program.startswith("python") and ("SdkHarness" in command or "sdk_worker_main" in command):
        return "worker"  # (the local runner starts each worker through a shell: not counted)
    return "other"


def roles(sampler: TreeSampler) -> dict[int, str]:
    return {pid: role(command, pid == sampler.root) for pid, command in sampler.commands.items()}


def cpu_by_role_s(sampler: TreeSampler) -> dict[str, float]:
    found: dict[str, float] = {}
    for pid, name in roles(sampler).items():
        found[name] = round(found.get(name, 0) + sampler.cpu_ticks.get(pid, 0) / TICKS, 1)
    return found


def peaks_mb(sampler: TreeSampler, name: str) -> list[float]:
    return sorted((sampler.peak_kb.get(pid, 0) / 1024 for pid, r in roles(sampler).items() if r == name), reverse=True)


def engine_args(engine: str, slots: int, extra: list[str]) -> list[str]:
    if engine == "local":
        return ["--runner", "DirectRunner"] + (
            ["--direct_running_mode", "multi_processing", "--direct_num_workers", str(slots)] if slots > 1 else [])
    return ["--runner", "flink", "--flink_job_server_jar", str(JOB_SERVER_JAR), "--parallelism", str(slots),
            "--sdk_worker_parallelism", str(slots), "--environment_type", "LOOPBACK",
            "--experiments", "use_loopback_process_worker", "--environment_cache_millis", "600000", *extra]


def corpus_digest(out: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for sub in ("tsv", "parquet") for p in (out / sub).iterdir()):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def measure(args, dump: Path, name: str, shards: int, engine: str, slots: int, work: Path) -> tuple[Run, str]:
    out = work / f"{name}-{engine}-{slots}"
    command = [sys.executable, "-m", "wikisilver.cli", "-q", "build", "--dump", str(dump), "--lang", "en",
               "--out", str(out), "--overwrite", "--shards", str(shards), "--progress-interval", "0",
               "--ontology", str(args.ontology), *[a for t in args.types for a in ("--types", str(t))],
               *engine_args(engine, slots, args.flink_args)]
    # SDK worker processes run `python` from PATH: this interpreter's, as in an activated venv.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with open(work / f"{name}-{engine}-{slots}.log", "wb") as log:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, env=env, cwd=REPO)
        sampler = TreeSampler(process.pid, interval=0.2)
        sampler.start()
        code = process.wait()
        sampler.done.set()
        sampler.join()
    wall = time.perf_counter() - started
    if code:
        raise RuntimeError(f"{engine} x{slots} on {name} exited with {code}: see {log.name}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    reaped = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    workers = peaks_mb(sampler, "worker")
    launcher = peaks_mb(sampler, "launcher")[0]
    digest = corpus_digest(out)
    shutil.rmtree(out, ignore_errors=True)
    run = Run(name, engine, slots, round(wall, 1), round(max(reaped, sampler.cpu_s), 1), round(launcher),
              round(max(peaks_mb(sampler, "jvm"), default=0)), round(max(workers, default=launcher)),
              len(workers), worker_peaks_mb=[round(w) for w in workers], cpu_by_role_s=cpu_by_role_s(sampler))
    return run, digest


def table(runs: list[Run]) -> str:
    lines = ["| input | engine | slots | wall s | CPU s (launcher / JVM / workers) | launcher MB | JVM MB "
             "| SDK worker MB, each (n) | corpus |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        workers = f"{r.worker_mb} ({r.workers})" if r.workers else f"{r.worker_mb} (in launcher)"
        roles = r.cpu_by_role_s
        cpu = f"{r.cpu_s} ({roles.get('launcher', 0)} / {roles.get('jvm', 0)} / {roles.get('worker', 0)})"
        lines.append(f"| {r.input} | {r.engine} | {r.slots} | {r.wall_s} | {cpu} | {r.launcher_mb} | "
                     f"{r.jvm_mb or '–'} | {workers} | {r.identical} |")
    return "\n".join(lines)


def machine_ceiling(dump: Path) -> float:
    """What a second process gains on this machine right now: benchmarks/throughput.py's stage 2b
    loop (pure-Python CPU work, nothing shared) alone, then two copies at once: 2 x alone / together."""
    alone = subprocess.run(child_command("clean_wikitext", str(dump)), capture_output=True, check=True, cwd=REPO)
    return 2 * child_report(alone.stdout.decode())["wall_s"] / ceiling_pair(str(dump))


def ratios(runs: list[Run], small: str, big: str, ceiling: float | None) -> str:
    found = {(r.input, r.engine, r.slots): r for r in runs}
    lines = [f"machine's two-process ceiling, measured between the runs: {ceiling:.2f}x"] if ceiling else []
    for engine in sorted({r.engine for r in runs}):
        for name in (small, big):
            one, two = found.get((name, engine, 1)), found.get((name, engine, 2))
            if one and two:
                lines.append(f"{engine}: 2 slots vs 1 on {name}: {one.wall_s / two.wall_s:.2f}x wall "
                             f"(goal on {big}: >= 1.8x)")
        for slots in (1, 2):
            a, b = found.get((small, engine, slots)), found.get((big, engine, slots))
            if a and b:
                parts = [f"worker {b.worker_mb / a.worker_mb:.2f}x", f"launcher {b.launcher_mb / a.launcher_mb:.2f}x"]
                if a.jvm_mb:
                    parts.append(f"JVM {b.jvm_mb / a.jvm_mb:.2f}x")
                lines.append(f"{engine}, {slots} slot(s): peak memory {big} vs {small}: {', '.join(parts)} (goal: < 1.2x)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path, default=DEFAULT_DUMP)
    parser.add_argument("--types", type=Path, action="append")
    parser.add_argument("--ontology", type=Path, default=DEFAULT_ONTOLOGY)
    parser.add_argument("--repeat", type=int, default=4, help="copies of the input for the larger run (default 4)")
    parser.add_argument("--engines", default="local,flink", help="comma-separated: local, flink")
    parser.add_argument("--slots", default="1,2", help="comma-separated task slots / workers (default 1,2)")
    parser.add_argument("--json", type=Path, help="also write the runs as JSON")
    parser.add_argument("--flink-arg", dest="flink_args", action="append", default=[], metavar="ARG",
                        help="one more Beam option for the Flink runs (repeatable), e.g. --flink-arg=--environment_cache_millis=60000")
    args = parser.parse_args(argv)
    args.types = args.types or DEFAULT_TYPES
    engines, slot_counts = args.engines.split(","), [int(s) for s in args.slots.split(",")]
    if "flink" in engines and not JOB_SERVER_JAR.is_file():
        parser.error(f"no Flink job server at {JOB_SERVER_JAR}: run scripts/fetch_job_server.sh flink")
    from wikisilver.config.derived import auto_shards

    print(json.dumps(machine()))
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="wikisilver-engines-") as tmp:
        work = Path(tmp)
        big = f"x{args.repeat}"
        inputs = [("x1", args.dump, auto_shards((str(args.dump),)))]
        if args.repeat > 1:
            copies = repeated_dump(str(args.dump), args.repeat, work / f"repeat{args.repeat}.xml.bz2")
            inputs.append((big, copies, auto_shards((str(args.dump),)) * args.repeat))
        ceiling = machine_ceiling(args.dump) if 2 in slot_counts else None
        for name, dump, shards in inputs:
            reference = None
            for engine in engines:
                for slots in slot_counts:
                    run, digest = measure(args, dump, name, shards, engine, slots, work)
                    reference = reference or digest
                    run.identical = "same" if digest == reference else "DIFFERS"
                    runs.append(run)
                    print(f"{name} {engine} {slots}: {json.dumps(asdict(run))}", file=sys.stderr, flush=True)
    print(table(runs))
    print()
    print(ratios(runs, "x1", big, ceiling))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in runs], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
