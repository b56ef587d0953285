"""Inputs and outputs on an object store: every path through Beam's FileSystems, against a real
S3-compatible server (moto's, started here on a free local port), never a mock of Beam's API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared_file
from dump_support import write_multistream
import wikisilver as wikisilver_api
from wikisilver import paths
from wikisilver.config.resolve import demo_inputs

boto3 = pytest.importorskip("boto3", reason="the S3 tests need boto3 (apache-beam[aws], in the test extra)")
moto_server = pytest.importorskip("moto.server", reason="the S3 tests need moto[server] (in the test extra)")

DEMO_DUMP, DEMO_TYPES = demo_inputs()
BUCKET = "wikisilver-test"
TIMEOUT = 300  # generous: the runs take seconds; the bound only says "does not hang"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(scope="module")
def s3_server():
    """A local S3 server with an empty bucket; yields (endpoint URL, boto3 client)."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    client = boto3.client("s3", endpoint_url=url, aws_access_key_id="testing", aws_secret_access_key="testing",
                          region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    yield url, client
    server.stop()


@pytest.fixture
def s3(s3_server):
    """The server, and Beam's file systems in this process pointed at it (a pipeline run in this
    process resets them to its own options)."""
    paths.configure(beam_options(s3_server[0]))
    return s3_server


def beam_options(url: str) -> list[str]:
    """Beam's S3Options for the local server: what a user passes to `wikisilver build` for S3."""
    return [f"--s3_endpoint_url={url}", "--s3_access_key_id=testing", "--s3_secret_access_key=testing",
            "--s3_region_name=us-east-1"]


def objects(client, prefix: str) -> dict[str, tuple[str, object]]:
    """Key -> (ETag, last modified) of every object under a prefix."""
    found = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return {o["Key"]: (o["ETag"], o["LastModified"]) for o in found}


def wikisilver(url: str, *args: str) -> subprocess.CompletedProcess:
    """The CLI in a subprocess; the S3 settings in the environment too (commands without Beam options)."""
    env = {**os.environ, **CREDENTIALS, "AWS_ENDPOINT_URL": url}
    return subprocess.run([sys.executable, "-m", "wikisilver.cli", *args], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env)


# --------------------------------------------------------------------------- the path layer


def test_local_paths_stay_local(tmp_path):
    assert not paths.is_remote(tmp_path) and not paths.is_remote("file:///x/y")
    assert paths.normalize("file:///x/y.bz2") == "/x/y.bz2"
    assert paths.join(str(tmp_path), "tsv", "a.tsv") == os.path.join(str(tmp_path), "tsv", "a.tsv")
    assert paths.absolute("rel/x") == os.path.abspath("rel/x")
    assert paths.absolute("s3://b/rel/x") == "s3://b/rel/x" and paths.scheme("GS://b/x") == "gs"
    assert paths.join("s3://b/out/", "tsv", "a.tsv") == "s3://b/out/tsv/a.tsv"
    assert paths.basename("s3://b/out/x.nt") == "x.nt" and paths.dirname("s3://b/out/x.nt") == "s3://b/out"


@pytest.mark.slow
def test_remote_files_read_seek_list_and_move(s3):
    _, client = s3
    client.put_object(Bucket=BUCKET, Key="layer/a/one.txt", Body=b"0123456789")
    client.put_object(Bucket=BUCKET, Key="layer/a/deeper/two.txt", Body=b"two")
    root = f"s3://{BUCKET}/layer"
    with paths.open_read(f"{root}/a/one.txt") as handle:  # Beam's S3 reader is seekable
        handle.seek(4)
        assert handle.read(3) == b"456"
    assert paths.isdir(f"{root}/a") and not paths.isfile(f"{root}/a") and paths.isfile(f"{root}/a/one.txt")
    assert paths.listdir(f"{root}/a") == [f"{root}/a/one.txt"]  # files directly in it
    assert paths.size(f"{root}/a/one.txt") == 10 and paths.state(f"{root}/a/one.txt")["bytes"] == 10
    with pytest.raises(FileNotFoundError):
        paths.open_read(f"{root}/a/missing.txt")
    paths.write_bytes(f"{root}/empty", b"")  # Beam's S3 uploader alone cannot write no bytes
    assert paths.read_text(f"{root}/empty") == ""
    paths.move(f"{root}/a", f"{root}/b")
    assert paths.walk_files(f"{root}/b") == [f"{root}/b/deeper/two.txt", f"{root}/b/one.txt"]
    assert not paths.isdir(f"{root}/a")
    paths.remove_tree(root)
    assert objects(client, "layer/") == {}


def test_remove_deletes_in_one_batch_without_an_exists_check_per_object(s3, monkeypatch):
    _, client = s3
    root = f"s3://{BUCKET}/removal"
    for name in ("a.txt", "b/c.txt", "b/d.txt"):
        client.put_object(Bucket=BUCKET, Key=f"removal/{name}", Body=b"x")
    asked = []
    real_exists = paths._exists
    monkeypatch.setattr(paths, "_exists", lambda path: asked.append(path) or real_exists(path))
    paths.remove([f"{root}/a.txt", f"{root}/missing.txt"])  # a missing object is fine
    assert set(objects(client, "removal/")) == {"removal/b/c.txt", "removal/b/d.txt"}
    paths.remove_tree(f"{root}/b")
    assert objects(client, "removal/") == {}
    assert asked == []


@pytest.mark.slow
def test_multistream_dump_read_by_ranges_from_s3(s3, tmp_path):
    from wikisilver import dump as dumplib

    _, client = s3
    local = tmp_path / "demowiki-20240101-pages-articles-multistream.xml.bz2"
    index = write_multistream(Path(DEMO_DUMP), local, pages_per_stream=2)
    for path in (local, index):
        client.upload_file(str(path), BUCKET, f"ranges/{path.name}")
    remote, remote_index = f"s3://{BUCKET}/ranges/{local.name}", f"s3://{BUCKET}/ranges/{index.name}"
    ranges = dumplib.stream_ranges(remote, remote_index, target_bytes=1)
    assert ranges == dumplib.stream_ranges(str(local), str(index), target_bytes=1) and len(ranges) > 3
    pages = 0
    for start, end in ranges:
        got = [(p.page_id, p.title, p.text) for p in dumplib.iter_pages_in_range(remote, start, end)]
        want = [(p.page_id, p.title, p.text) for p in dumplib.iter_pages_in_range(str(local), start, end)]
        assert got == want
        pages += len(got)
    assert pages == 17  # every page of the demo dump, each read once


ONTOLOGY_TTL = """@prefix dbo: <http://dbpedia.org/ontology/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
dbo:Place a owl:Class .
dbo:City a owl:Class ; rdfs:subClassOf dbo:Settlement .
dbo:Settlement a owl:Class ; rdfs:subClassOf dbo:Place .
"""


@pytest.mark.slow
def test_every_kind_of_input_reads_the_same_from_s3(s3, tmp_path, monkeypatch):
    import gzip

    from test_sqldump import REDIRECT
    from wikisilver.config.resolve import expand_entity_tables
    from wikisilver.entities.infobox import load_infobox_mappings
    from wikisilver.entities.sql import iter_redirect_table
    from wikisilver.entities.table import EntityRow, read_entity_table, write_entity_table
    from wikisilver.fingerprint import fingerprint
    from wikisilver.ontology import load_ontology

    _, client = s3
    monkeypatch.setenv("WIKISILVER_CACHE_DIR", "off")
    local, remote = tmp_path / "in", f"s3://{BUCKET}/kinds"
    (local / "mappings").mkdir(parents=True)
    (local / "redirect.sql.gz").write_bytes(gzip.compress(REDIRECT.encode()))
    (local / "ontology.ttl").write_text(ONTOLOGY_TTL)
    mappings = sorted(shared_file("dbpedia/mappings/en").glob("Mapping_en:Infobox_s*.ttl"))[:3]
    assert len(mappings) == 3
    for path in mappings:
        (local / "mappings" / path.name).write_bytes(path.read_bytes())
    for path in sorted(p for p in local.rglob("*") if p.is_file()):
        client.upload_file(str(path), BUCKET, f"kinds/{path.relative_to(local)}")

    assert list(iter_redirect_table(f"{remote}/redirect.sql.gz")) == list(iter_redirect_table(str(local / "redirect.sql.gz")))
    assert load_ontology(f"{remote}/ontology.ttl").parents == load_ontology(str(local / "ontology.ttl")).parents
    from_s3 = load_infobox_mappings(remote + "/mappings")
    assert from_s3 == load_infobox_mappings(str(local / "mappings")) and len(from_s3) == 3

    rows = [EntityRow("Budapest", "City", "LOC", "GPE", "types", ("Pest",)), EntityRow("Duna", "River", "LOC")]
    for suffix in (".tsv", ".parquet"):  # the entities job's output, and --entities DIR's input
        assert write_entity_table(rows, f"{remote}/table/entities/part-00000-of-00001{suffix}") == 2
    tables = expand_entity_tables([f"{remote}/table"])
    assert [paths.basename(t) for t in tables] == ["part-00000-of-00001.parquet", "part-00000-of-00001.tsv"]
    assert all(list(read_entity_table(table)) == rows for table in tables)

    ontology = f"{remote}/ontology.ttl"
    first = fingerprint(ontology)
    assert first["digest"] == fingerprint(str(local / "ontology.ttl"))["digest"] and first["path"] == ontology
    assert fingerprint(ontology, {ontology: {**first, "digest": "sha256:recorded"}})["digest"] == "sha256:recorded"
    client.put_object(Bucket=BUCKET, Key="kinds/ontology.ttl", Body=ONTOLOGY_TTL.encode() + b"# edited\n")
    assert fingerprint(ontology, {ontology: {**first, "digest": "sha256:recorded"}})["digest"] != first["digest"]


@pytest.mark.slow
def test_lock_object_refuses_a_second_run_and_a_stale_one_is_taken_over(s3, monkeypatch):
    from wikisilver import lock

    _, client = s3
    out = f"s3://{BUCKET}/locked"
    with lock.output_lock(out) as held:
        assert held == f"{out}/.wikisilver.lock"
        info = json.loads(paths.read_text(held))
        assert info["pid"] == os.getpid() and info["token"]
        with pytest.raises(lock.OutputLocked, match=f"pid {os.getpid()} on "):
            with lock.output_lock(out):
                pass
    assert objects(client, "locked/") == {}  # released: the lock object is gone
    paths.write_bytes(f"{out}/.wikisilver.lock", json.dumps({"pid": 1, "host": "gone", "started": "x"}).encode())
    monkeypatch.setattr(lock, "STALE_S", 0.0)  # a killed run's lock object, never refreshed
    with lock.output_lock(out):
        pass
    assert objects(client, "locked/") == {}


# --------------------------------------------------------------------------- the build on S3


@pytest.mark.slow
def test_demo_build_with_inputs_and_output_on_s3_then_a_rerun_is_a_no_op(s3, tmp_path, demo_corpus):
    url, client = s3
    dump = tmp_path / "demowiki-20240101-pages-articles-multistream.xml.bz2"
    index = write_multistream(Path(DEMO_DUMP), dump, pages_per_stream=2)
    config = tmp_path / "demo.toml"
    config.write_text(f'types = ["s3://{BUCKET}/in/demowiki-types.nt"]\nlang = "en"\nshards = 4\n')
    for path in (dump, index, Path(DEMO_TYPES), config):
        client.upload_file(str(path), BUCKET, f"in/{path.name}")
    # A killed run's leftovers: its staging prefix (with its marker) and a part its claim lists are
    # swept; the user's object beside them stays.
    client.put_object(Bucket=BUCKET, Key="corpus/.staging-dead/.wikisilver-run.json",
                      Body=json.dumps({"run": "dead", "pid": 1, "host": "gone", "started": "x"}).encode())
    client.put_object(Bucket=BUCKET, Key="corpus/.staging-dead/tsv/part-00000-of-00004.tsv", Body=b"junk")
    client.put_object(Bucket=BUCKET, Key="corpus/tsv/part-00009-of-00010.tsv", Body=b"junk")
    client.put_object(Bucket=BUCKET, Key="corpus/.wikisilver-owned.json",
                      Body=json.dumps({"tool": "wikisilver", "files": ["tsv/part-00009-of-00010.tsv"]}).encode())
    client.put_object(Bucket=BUCKET, Key="corpus/notes/keep.txt", Body=b"the user's")
    args = ("build", "--config", f"s3://{BUCKET}/in/demo.toml", "--dump", f"s3://{BUCKET}/in/{dump.name}",
            "--out", f"s3://{BUCKET}/corpus", "--progress-interval", "0", *beam_options(url))

    first = wikisilver(url, *args)
    assert first.returncode == 0, first.stderr
    assert "corpus written to s3://" in first.stdout
    assert "Finished listing" not in first.stderr and "botocore" not in first.stderr  # Beam's INFO lines hidden
    written = objects(client, "corpus/")
    names = {key[len("corpus/"):] for key in written}
    assert {"manifest.json", "stats.json", "README.md"} <= names
    assert {n for n in names if n.startswith(("tsv/", "parquet/"))} == {
        f"{kind}/part-{i:05d}-of-00004.{kind}" for kind in ("tsv", "parquet") for i in range(4)}
    assert not any(n.startswith((".staging-", ".wikisilver.lock", ".wikisilver-owned")) for n in names), names
    assert client.get_object(Bucket=BUCKET, Key="corpus/notes/keep.txt")["Body"].read() == b"the user's"

    # The same corpus, byte for byte, as `wikisilver build --demo` on local files.
    local_out = demo_corpus
    for name in sorted(n for n in names if n.startswith(("tsv/", "parquet/"))):
        body = client.get_object(Bucket=BUCKET, Key=f"corpus/{name}")["Body"].read()
        assert body == (local_out / name).read_bytes(), name
    stats = json.loads(client.get_object(Bucket=BUCKET, Key="corpus/stats.json")["Body"].read())
    assert stats == json.loads((local_out / "stats.json").read_text()) and stats["sentences_kept"] > 0
    manifest = json.loads(client.get_object(Bucket=BUCKET, Key="corpus/manifest.json")["Body"].read())
    assert manifest["dumps"][0]["path"] == f"s3://{BUCKET}/in/{dump.name}"
    assert [r["path"] for r in manifest["inputs"]["types"]] == [f"s3://{BUCKET}/in/demowiki-types.nt"]

    # The corpus reader and `wikisilver show` read it where it is.
    shown = wikisilver(url, "show", f"s3://{BUCKET}/corpus", "--title", "Budapest", "--color", "never")
    assert shown.returncode == 0 and "Budapest" in shown.stdout, shown.stderr
    assert shown.stdout == subprocess.run(
        [sys.executable, "-m", "wikisilver.cli", "show", str(local_out), "--title", "Budapest", "--color", "never"],
        capture_output=True, text=True, timeout=TIMEOUT).stdout

    paths.configure(beam_options(url))  # the demo corpus was built in this process, with its own options
    corpus = wikisilver_api.load_corpus(f"s3://{BUCKET}/corpus")
    assert len(corpus) == stats["sentences_kept"] and corpus.stats == stats
    assert [s.tokens for s in corpus.article("Budapest")] == [
        s.tokens for s in wikisilver_api.load_corpus(local_out).article("Budapest")]

    # A rerun: nothing to do, says so, and writes nothing.
    again = wikisilver(url, *args)
    assert again.returncode == 0, again.stderr
    assert "already holds the finished corpus" in again.stderr and "nothing to do" in again.stderr
    assert objects(client, "corpus/") == written

    # The HTML report of the corpus, written beside it.
    report = wikisilver(url, "report", f"s3://{BUCKET}/corpus")
    assert report.returncode == 0, report.stderr
    page = client.get_object(Bucket=BUCKET, Key="corpus.report.html")["Body"].read().decode()
    assert page.lstrip().lower().startswith("<!doctype html") and "sentences kept" in page


@pytest.mark.slow
def test_a_missing_cloud_input_is_one_line_naming_it(s3):
    url, _ = s3
    missing = f"s3://{BUCKET}/in/no-such-dump.xml.bz2"
    result = wikisilver(url, "build", "--dump", missing, "--lang", "en", "--types", DEMO_TYPES,
                        "--out", f"s3://{BUCKET}/never", *beam_options(url))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and missing in lines[0] and "no such file" in lines[0], result.stderr
    types = wikisilver(url, "build", "--demo", "--types", f"s3://{BUCKET}/in/gone.nt",
                       "--out", f"s3://{BUCKET}/never", *beam_options(url))
    assert types.returncode == 2 and f"s3://{BUCKET}/in/gone.nt" in types.stderr
    assert len(types.stderr.strip().splitlines()) == 1, types.stderr


# --------------------------------------------------------------------------- failing fast, in one line

FAST_S = 15  # what the user waits at most for the line that says a remote path cannot be used


def no_aws_environment() -> dict[str, str]:
    """The environment with no AWS setting at all: no keys, no profile files, no instance metadata."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "AWS_CONFIG_FILE": os.devnull,
            "AWS_EC2_METADATA_DISABLED": "true"}


def timed_cli(env: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess, float]:
    import time

    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "wikisilver.cli", *args], capture_output=True, text=True,
                            timeout=TIMEOUT, env=env)
    return result, time.monotonic() - started


def closed_port() -> int:
    """A local port nobody listens on (bound, then released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def assert_one_line(result: subprocess.CompletedProcess, seconds: float, *words: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert seconds < FAST_S, f"{seconds:.1f} s: {result.stderr}"
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.slow
def test_no_credentials_is_one_line_within_seconds_for_build_and_show(s3, tmp_path):
    url, client = s3
    client.put_object(Bucket=BUCKET, Key="fast/demo.xml.bz2", Body=Path(DEMO_DUMP).read_bytes())
    env = {**no_aws_environment(), "AWS_ENDPOINT_URL": url}  # the store answers; we have no keys for it
    dump = f"s3://{BUCKET}/fast/demo.xml.bz2"
    built, seconds = timed_cli(env, "build", "--dump", dump, "--lang", "en", "--types", DEMO_TYPES,
                               "--out", str(tmp_path / "out"), "--s3_endpoint_url", url)
    assert_one_line(built, seconds, dump, "no S3 credentials", "AWS_ACCESS_KEY_ID")
    out = f"s3://{BUCKET}/fast/corpus"  # --out alone on the store: checked as well
    built, seconds = timed_cli(env, "build", "--demo", "--out", out)
    assert_one_line(built, seconds, out, "no S3 credentials")
    shown, seconds = timed_cli(env, "show", f"s3://{BUCKET}/fast/corpus", "--list")
    assert_one_line(shown, seconds, "no S3 credentials")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_unreachable_endpoint_is_one_line_within_seconds(tmp_path):
    endpoint = f"http://127.0.0.1:{closed_port()}"
    env = {**no_aws_environment(), **CREDENTIALS, "AWS_ENDPOINT_URL": endpoint}
    built, seconds = timed_cli(env, "build", "--demo", "--types", f"s3://{BUCKET}/in/types.nt",
                               "--out", str(tmp_path / "out"))
    assert_one_line(built, seconds, f"s3://{BUCKET}/in/types.nt", "cannot reach the S3 endpoint", endpoint)
    shown, seconds = timed_cli(env, "show", f"s3://{BUCKET}/corpus", "--title", "Budapest")
    assert_one_line(shown, seconds, "cannot reach the S3 endpoint")
    reported, seconds = timed_cli(env, "report", f"s3://{BUCKET}/corpus")
    assert_one_line(reported, seconds, "cannot reach the S3 endpoint")


@pytest.mark.slow
def test_missing_object_or_bucket_is_one_line_within_seconds(s3, tmp_path):
    url, _ = s3
    env = {**no_aws_environment(), **CREDENTIALS, "AWS_ENDPOINT_URL": url}
    shown, seconds = timed_cli(env, "show", f"s3://{BUCKET}/no-corpus-here", "--list")
    assert_one_line(shown, seconds, f"s3://{BUCKET}/no-corpus-here", "no such file or directory")
    built, seconds = timed_cli(env, "build", "--demo", "--out", "s3://no-such-bucket/corpus", *beam_options(url))
    assert_one_line(built, seconds, "s3://no-such-bucket/corpus", "no such bucket")
    exported, seconds = timed_cli(env, "export", f"s3://{BUCKET}/gone", "--format", "jsonl",
                                  "--out", str(tmp_path / "x.jsonl"))
    assert_one_line(exported, seconds, "no such file or directory")


@pytest.mark.slow
def test_download_schemes_and_unknown_ones_are_named(tmp_path):
    env = no_aws_environment()
    built, seconds = timed_cli(env, "build", "--demo", "--types", "https://example.org/types.nt",
                               "--out", str(tmp_path / "out"))
    assert_one_line(built, seconds, "https:// inputs are not supported", "download the file first")
    shown, seconds = timed_cli(env, "show", "ftp://example.org/corpus", "--list")
    assert_one_line(shown, seconds, "ftp:// inputs are not supported")


# --------------------------------------------------------------------------- the check itself


def test_check_remote_passes_what_the_store_has_and_says_why_not(s3):
    from wikisilver.errors import InputError

    _, client = s3
    client.put_object(Bucket=BUCKET, Key="check/dir/file.txt", Body=b"x")
    paths.check_remote(f"s3://{BUCKET}/check/dir/file.txt")  # a file
    paths.check_remote(f"s3://{BUCKET}/check/dir")  # a "directory": objects under the prefix
    paths.check_remote(f"s3://{BUCKET}/check/new-corpus", output=True)  # an output need not exist
    paths.check_remote("/no/such/local/path")  # local paths are the other checks' business
    with pytest.raises(InputError, match="no such file or directory"):
        paths.check_remote(f"s3://{BUCKET}/check/missing.txt")
    with pytest.raises(InputError, match="no such bucket 'wikisilver-absent'"):
        paths.check_remote("s3://wikisilver-absent/corpus", output=True)
    with pytest.raises(InputError, match="no bucket in the path"):
        paths.check_remote("s3:///key")
    with pytest.raises(InputError, match=r"^https://x\.org/a\.nt: https:// inputs are not supported"):
        paths.check_remote("https://x.org/a.nt")
    with pytest.raises(InputError, match="https:// outputs are not supported"):
        paths.check_remote("https://x.org/out", output=True)
    with pytest.raises(InputError, match="xyz:// is no file system"):
        paths.check_remote("xyz://x/y")


def test_check_remote_without_credentials_or_endpoint_is_quick(monkeypatch):
    import time

    from wikisilver.errors import InputError

    for name in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    monkeypatch.setenv("AWS_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    endpoint = f"http://127.0.0.1:{closed_port()}"
    paths.configure([f"--s3_endpoint_url={endpoint}", "--s3_region_name=us-east-1"])
    started = time.monotonic()
    with pytest.raises(InputError, match="no S3 credentials"):
        paths.check_remote(f"s3://{BUCKET}/x.xml.bz2")
    paths.configure([f"--s3_endpoint_url={endpoint}", "--s3_access_key_id=k", "--s3_secret_access_key=s",
                     "--s3_region_name=us-east-1"])
    with pytest.raises(InputError, match=f"cannot reach the S3 endpoint {endpoint}"):
        paths.check_remote(f"s3://{BUCKET}/x.xml.bz2")
    assert time.monotonic() - started < FAST_S


def test_a_probe_that_hangs_is_cut_off_at_the_deadline(monkeypatch):
    import time

    from wikisilver import remote
    from wikisilver.errors import InputError

    monkeypatch.setattr(remote, "PROBE_DEADLINE_S", 0.5)
    monkeypatch.setattr(remote, "_probe_s3", lambda path, output: time.sleep(30))
    started = time.monotonic()
    with pytest.raises(InputError, match=r"no answer from s3:// within 0 s|no answer from s3://"):
        remote.check_remote(f"s3://{BUCKET}/slow.nt")
    assert time.monotonic() - started < 5
