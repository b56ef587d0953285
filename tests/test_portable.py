"""The build job is portable: it runs unchanged through Beam's portable job API.

Dataflow, Flink and Spark all take a job through the same portable API (a job service that
receives the pipeline proto and runs it with SDK harnesses). Beam's own local job service is
that API on one machine, so a build that goes through it and writes the same corpus as the
default DirectRunner shows the pipeline survives what a cluster runner does to it: every
DoFn, coder and side input is serialized into the proto and rebuilt in the harness.

With ``--environment_type LOOPBACK`` the SDK harness runs inside this test process, so the
test needs no Docker and downloads nothing. It takes a few seconds (the demo dump), so it is
not marked slow.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from build_support import read_corpus, read_stats
from wikisilver.cli import main

# Every test reads a corpus built through a job service started here: a whole build each run.
pytestmark = pytest.mark.slow

STARTUP_SECONDS = 60  # importing Beam in a fresh interpreter takes a few seconds on a busy machine


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the Beam job service exited with code {process.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"the Beam job service did not listen on port {port} within {STARTUP_SECONDS} s")


@pytest.fixture(scope="module")
def job_service(tmp_path_factory):
    """Beam's local job service on a free port; yields (port, its log file); always stopped."""
    root = tmp_path_factory.mktemp("job-service")
    log = root / "job-service.log"
    port = free_port()
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "apache_beam.runners.portability.local_job_service_main",
             "--port", str(port), "--staging_dir", str(root / "staging")],
            stdout=handle, stderr=subprocess.STDOUT, env={**os.environ, "TMPDIR": str(root)},
        )
    try:
        wait_for_port(port, process, log)
        yield port, log
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def direct_corpus(demo_corpus) -> Path:
    return demo_corpus


@pytest.fixture(scope="module")
def portable_corpus(tmp_path_factory, job_service) -> Path:
    port, _ = job_service
    out = tmp_path_factory.mktemp("portable") / "corpus"
    code = main([
        "build", "--demo", "--out", str(out),
        "--runner", "PortableRunner", "--job_endpoint", f"localhost:{port}", "--environment_type", "LOOPBACK",
        "--progress-interval", "0.2",  # the launcher polls the job service's counters while it runs
    ])
    assert code == 0
    return out


def test_portable_run_went_through_the_job_service(portable_corpus, job_service):
    _, log = job_service
    text = log.read_text(errors="replace")
    assert "Running job" in text, text[-2000:]
    assert "with state DONE" in text, text[-2000:]


def test_portable_corpus_rows_equal_direct_runner(portable_corpus, direct_corpus):
    portable, direct = read_corpus(portable_corpus), read_corpus(direct_corpus)
    assert portable, "the portable run wrote no sentences"
    assert portable == direct


def test_portable_parts_are_byte_identical(portable_corpus, direct_corpus):
    # Sharding is by crc32 of the page id and each part is sorted, so the runner must not matter.
    names = sorted(p.name for p in (direct_corpus / "tsv").iterdir())
    assert names == sorted(p.name for p in (portable_corpus / "tsv").iterdir())
    for name in names:
        assert (portable_corpus / "tsv" / name).read_bytes() == (direct_corpus / "tsv" / name).read_bytes(), name


def test_portable_stats_equal_direct_runner(portable_corpus, direct_corpus):
    portable, direct = read_stats(portable_corpus), read_stats(direct_corpus)
    assert portable["pages_read"] > 0 and portable["pages_accounted"] is True
    assert portable == direct


def test_portable_manifest_is_written_last(portable_corpus):
    manifest = json.loads((portable_corpus / "manifest.json").read_text())
    assert "PortableRunner" in manifest["config"]["beam_args"]
    assert not list(portable_corpus.glob(".staging-*"))
