"""The build on Apache Flink and Apache Spark gives the DirectRunner's corpus, byte for byte.

Beam's portable Flink runner starts the Flink job server (fetched from Maven Central by
``scripts/fetch_job_server.sh flink``, which CI runs; skipped with a message where it is absent),
which runs the job on an embedded Flink cluster (``--flink_master [auto]``) with two task slots
(``--parallelism 2``) and two SDK worker processes per task manager, started by the launcher's
worker pool (LOOPBACK with ``use_loopback_process_worker``: separate Python processes sharing this
machine's file system, as EXTERNAL workers beside each task manager would). Every DoFn, coder and
side input crosses the Fn API into those processes; the grouping, the joins and the shuffles are
Flink's. Spark's job server (``scripts/fetch_job_server.sh spark``) runs the demo on a ``local[2]``
Spark master the same way.

The English extract takes about a minute on Flink on two cores, so these tests are marked slow.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from build_support import read_stats
from conftest import ENWIKI_EXTRACT, ONTOLOGY, TYPES_100K, TYPES_111K, shared_file
from wikisilver.engines import check_runner, one_local_worker, runner_name
from wikisilver.errors import InputError

REPO = Path(__file__).resolve().parents[1]
JOB_SERVER_JAR = REPO / ".cache" / "flink" / "beam-flink-job-server.jar"
SPARK_JOB_SERVER_JAR = REPO / ".cache" / "spark" / "beam-spark-job-server.jar"
RUN_TIMEOUT = 600  # generous: "does not hang", on a busy two-core machine


def job_server(jar: Path, runner: str) -> Path:
    if not jar.is_file():
        pytest.skip(f"no {runner} job server at {jar}: run scripts/fetch_job_server.sh {runner} (needs Java and Maven)")
    if shutil.which("java") is None:
        pytest.skip(f"no `java` on PATH: the {runner} job server needs Java 11+")
    return jar


def build(out: Path, inputs: list[str], *beam_args: str) -> subprocess.CompletedProcess:
    # SDK worker processes run `python` from PATH: this interpreter's, as in an activated venv.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        [sys.executable, "-m", "wikisilver.cli", "-v", "build", *inputs, "--out", str(out),
         "--progress-interval", "0", *beam_args],
        capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env,
    )


@pytest.fixture(scope="module")
def extract_inputs() -> list[str]:
    return [
        "--dump", str(shared_file(ENWIKI_EXTRACT)), "--lang", "en", "--ontology", str(shared_file(ONTOLOGY)),
        "--types", str(shared_file(TYPES_100K)), "--types", str(shared_file(TYPES_111K)),
    ]


@pytest.fixture(scope="module")
def flink_run(tmp_path_factory, extract_inputs) -> tuple[Path, str]:
    jar = job_server(JOB_SERVER_JAR, "flink")
    out = tmp_path_factory.mktemp("flink") / "corpus"
    done = build(out, extract_inputs, "--runner", "flink", "--flink_job_server_jar", str(jar),
                 "--parallelism", "2", "--sdk_worker_parallelism", "2",
                 "--environment_type", "LOOPBACK", "--experiments", "use_loopback_process_worker",
                 "--environment_cache_millis", "600000")  # the two workers serve every stage
    assert done.returncode == 0, done.stderr[-3000:]
    return out, done.stderr


@pytest.fixture(scope="module")
def direct_corpus(tmp_path_factory, extract_inputs) -> Path:
    out = tmp_path_factory.mktemp("direct") / "corpus"
    done = build(out, extract_inputs)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def corpus_files(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for sub in ("tsv", "parquet", "rejects") for p in (out / sub).rglob("*")
                  if p.is_file())


@pytest.mark.slow
def test_flink_job_ran_on_flink_with_two_worker_processes(flink_run):
    out, log = flink_run
    assert "FlinkJobServerDriver" in log or str(JOB_SERVER_JAR) in log, log[-3000:]
    assert "Job state changed to DONE" in log, log[-3000:]
    workers = set(re.findall(r'worker_id="(\d+)-(\d+)"', log))
    assert {slot for _, slot in workers} == {"1", "2"}, sorted(workers)  # two SDK workers side by side
    assert not list(out.glob(".staging-*"))


@pytest.mark.slow
def test_flink_corpus_is_byte_identical_to_direct_runner(flink_run, direct_corpus):
    flink, _ = flink_run
    assert_same_files(flink, direct_corpus)


@pytest.mark.slow
def test_flink_stats_equal_direct_runner(flink_run, direct_corpus):
    flink, _ = flink_run
    stats = read_stats(flink)
    assert stats["pages_read"] > 100 and stats["sentences_kept"] > 1000 and stats["pages_accounted"] is True
    assert (flink / "stats.json").read_bytes() == (direct_corpus / "stats.json").read_bytes()
    # The dataset card differs only in when it was built.
    card = [line for line in (flink / "README.md").read_text().splitlines() if not line.startswith("- built ")]
    direct = [line for line in (direct_corpus / "README.md").read_text().splitlines() if not line.startswith("- built ")]
    assert card == direct


def assert_same_files(out: Path, reference: Path) -> None:
    names = corpus_files(reference)
    assert any(name.startswith("tsv/part-") for name in names) and any(n.startswith("parquet/") for n in names)
    assert corpus_files(out) == names
    for name in names + ["stats.json"]:
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name


@pytest.mark.slow
def test_spark_demo_corpus_is_byte_identical_to_direct_runner(tmp_path, demo_corpus):
    jar = job_server(SPARK_JOB_SERVER_JAR, "spark")
    out = tmp_path / "corpus"
    done = build(out, ["--demo"], "--runner", "SparkRunner", "--spark_job_server_jar", str(jar),
                 "--spark_master_url", "local[2]", "--environment_type", "LOOPBACK",
                 "--experiments", "use_loopback_process_worker")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "SparkJobServerDriver" in done.stderr or str(jar) in done.stderr, done.stderr[-3000:]
    assert "Job state changed to DONE" in done.stderr, done.stderr[-3000:]
    assert_same_files(out, demo_corpus)


@pytest.mark.slow
def test_flink_without_a_local_job_server_jar_is_refused_before_any_work(tmp_path):
    out = tmp_path / "corpus"
    done = subprocess.run(
        [sys.executable, "-m", "wikisilver.cli", "build", "--demo", "--out", str(out), "--runner", "flink"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert "scripts/fetch_job_server.sh flink" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not out.exists()


def test_runner_names_are_beams_in_any_case():
    assert runner_name([]) == "direct"
    assert runner_name(["--runner", "FlinkRunner"]) == "flink"
    assert runner_name(["--runner=flink", "--parallelism", "2"]) == "flink"
    assert runner_name(["--runner", "SparkRunner"]) == "spark"
    assert runner_name(["--runner", "my.pkg.CustomRunner"]) == "my.pkg.CustomRunner"


def test_only_one_local_worker_reads_its_pages_without_spreading_them():
    assert one_local_worker([])  # the default: the DirectRunner with one worker
    assert one_local_worker(["--runner", "direct", "--direct_num_workers", "1"])
    assert not one_local_worker(["--direct_running_mode", "multi_processing", "--direct_num_workers", "2"])
    assert not one_local_worker(["--direct_num_workers=0"])  # 0: one per core
    assert not one_local_worker(["--runner", "FlinkRunner"])
    assert not one_local_worker(["--runner", "DataflowRunner", "--direct_num_workers", "1"])


def test_runners_that_would_download_need_their_local_file(tmp_path):
    check_runner(["--runner", "DataflowRunner"])  # nothing to fetch here
    check_runner(["--runner", "PortableRunner", "--job_endpoint", "localhost:8099"])
    for runner, option in (("flink", "--flink_job_server_jar"), ("SparkRunner", "--spark_job_server_jar"),
                           ("prism", "--prism_location")):
        with pytest.raises(InputError, match=option):
            check_runner(["--runner", runner])
        with pytest.raises(InputError, match="no such file"):
            check_runner(["--runner", runner, option, str(tmp_path / "missing")])
        present = tmp_path / "present"
        present.write_bytes(b"")
        check_runner(["--runner", runner, f"{option}={present}"])
