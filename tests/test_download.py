"""wikisilver download against a local mirror served on 127.0.0.1 (never the real network)."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import re
import threading
from functools import partial
from pathlib import Path

import pytest

from wikisilver.cli import main
from wikisilver.download import http as download_http
from wikisilver.download.files import RemoteFile, download_file
from wikisilver.download.http import RetryPolicy

DATE_OLD = "20240101"
DATE_NEW = "20240201"

# Small stand-ins for the real files: content only matters for the checksums.
CONTENTS = {
    "pages-articles-multistream.xml.bz2": b"BZh9" + bytes(range(256)) * 40,
    "pages-articles-multistream-index.txt.bz2": b"BZh9 index " * 50,
    "redirect.sql.gz": b"\x1f\x8b redirect " * 30,
    "page.sql.gz": b"\x1f\x8b page " * 30,
    "langlinks.sql.gz": b"\x1f\x8b langlinks " * 30,
    "page_props.sql.gz": b"\x1f\x8b page_props " * 30,
}
JOBS = {
    "articlesmultistreamdump": ("pages-articles-multistream.xml.bz2",
                                "pages-articles-multistream-index.txt.bz2"),
    "redirecttable": ("redirect.sql.gz",),
    "pagetable": ("page.sql.gz",),
    "langlinkstable": ("langlinks.sql.gz",),
    "pagepropstable": ("page_props.sql.gz",),
}


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a directory (with listings), honouring ``Range: bytes=N-`` like a real dump server.

    Knobs (set on the server object): ``ignore_range`` answers every request in full, ``cut`` maps
    a file name to a byte count after which the first response for it drops the connection.
    """

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_head(self):
        self.server.requests.append((self.command, self.path, self.headers.get("Range")))
        path = self.translate_path(self.path)
        header = self.headers.get("Range")
        if os.path.isdir(path) or self.server.ignore_range or not header:
            return super().send_head()
        if not os.path.isfile(path):
            self.send_error(404)
            return None
        size = os.path.getsize(path)
        start = int(re.fullmatch(r"bytes=(\d+)-", header).group(1))
        if start >= size:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        handle = open(path, "rb")  # noqa: SIM115 - send_head hands it to copyfile, which closes it
        handle.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        self.send_header("Content-Length", str(size - start))
        self.end_headers()
        return handle

    def copyfile(self, source, outputfile) -> None:
        name = self.path.rsplit("/", 1)[-1]
        limit = self.server.cut.pop(name, None)
        if limit is None:
            return super().copyfile(source, outputfile)
        outputfile.write(source.read(limit))
        self.close_connection = True


@pytest.fixture()
def mirror(tmp_path: Path):
    """A dump mirror tree in tmp_path/mirror served over HTTP; yields (base_url, root, server)."""
    root = tmp_path / "mirror"
    root.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(RangeHandler, directory=str(root)))
    server.requests, server.ignore_range, server.cut = [], False, {}
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root, server
    finally:
        server.shutdown()
        server.server_close()


def publish(root: Path, date: str, *, lang: str = "hu", unfinished: tuple[str, ...] = (),
            bad_sha1: str | None = None, missing: str | None = None) -> dict[str, bytes]:
    """Write one dump run with its dumpstatus.json; returns file name -> content."""
    run_dir = root / f"{lang}wiki" / date
    run_dir.mkdir(parents=True)
    jobs, written = {}, {}
    for job, suffixes in JOBS.items():
        files = {}
        for suffix in suffixes:
            name = f"{lang}wiki-{date}-{suffix}"
            content = CONTENTS[suffix] + date.encode()
            if suffix != missing:
                (run_dir / name).write_bytes(content)
            sha1 = hashlib.sha1(content).hexdigest()
            files[name] = {
                "size": len(content), "url": f"/{lang}wiki/{date}/{name}",
                "sha1": "0" * 40 if suffix == bad_sha1 else sha1,
                "md5": hashlib.md5(content).hexdigest(),
            }
            written[name] = content
        jobs[job] = {"status": "in-progress" if job in unfinished else "done",
                     "updated": "2024-01-02 03:04:05", "files": files}
    # Small wikis carry the recombine job too, skipped and without files.
    jobs["articlesmultistreamdumprecombine"] = {"status": "skipped", "files": {}}
    (run_dir / "dumpstatus.json").write_text(json.dumps({"jobs": jobs, "version": "0.8"}))
    return written


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["download", "--progress", "never", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    """Retries happen, but without waiting; the delays asked for are recorded."""
    delays: list[float] = []
    monkeypatch.setattr(download_http, "_sleep", delays.append)
    return delays


def test_downloads_every_file_of_a_dated_run_and_verifies_it(mirror, tmp_path, capsys):
    base, root, _ = mirror
    written = publish(root, DATE_OLD)
    out = tmp_path / "dl"
    code, stdout, err = run_cli(capsys, "--lang", "hu", "--date", DATE_OLD, "--out", str(out),
                                "--base-url", base)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted(written)
    for name, content in written.items():
        assert (out / name).read_bytes() == content
    assert f"huwiki {DATE_OLD}:" in stdout
    assert stdout.count("downloaded") == 6


def test_files_option_selects_kinds(mirror, tmp_path, capsys):
    base, root, _ = mirror
    publish(root, DATE_OLD)
    out = tmp_path / "dl"
    code, _, err = run_cli(capsys, "--lang", "hu", "--date", DATE_OLD, "--out", str(out),
                           "--base-url", base, "--files", "redirect,page")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [
        f"huwiki-{DATE_OLD}-page.sql.gz", f"huwiki-{DATE_OLD}-redirect.sql.gz"]


def test_latest_is_the_newest_run_whose_files_are_finished(mirror, tmp_path, capsys):
    base, root, _ = mirror
    publish(root, DATE_OLD)
    publish(root, DATE_NEW, unfinished=("articlesmultistreamdump",))
    out = tmp_path / "dl"
    code, stdout, err = run_cli(capsys, "--lang", "hu", "--date", "latest", "--out", str(out),
                                "--base-url", base)
    assert code == 0, err
    assert f"huwiki {DATE_OLD}:" in stdout
    assert all(DATE_OLD in p.name for p in out.iterdir())
    # The tables of the newer run are done: asking only for them takes the newer run.
    out2 = tmp_path / "dl2"
    code, stdout, err = run_cli(capsys, "--lang", "hu", "--out", str(out2), "--base-url", base,
                                "--files", "redirect")
    assert code == 0, err
    assert [p.name for p in out2.iterdir()] == [f"huwiki-{DATE_NEW}-redirect.sql.gz"]


def test_resumes_a_truncated_part_file_with_a_range_request(mirror, tmp_path, capsys):
    base, root, server = mirror
    written = publish(root, DATE_OLD)
    name = f"huwiki-{DATE_OLD}-pages-articles-multistream.xml.bz2"
    out = tmp_path / "dl"
    out.mkdir()
    keep = 3000
    (out / f"{name}.part").write_bytes(written[name][:keep])
    code, stdout, err = run_cli(capsys, "--lang", "hu", "--date", DATE_OLD, "--out", str(out),
                                "--base-url", base, "--files", "pages-articles")
    assert code == 0, err
    assert (out / name).read_bytes() == written[name]
    assert not (out / f"{name}.part").exists()
    assert ("GET", f"/huwiki/{DATE_OLD}/{name}", f"bytes={keep}-") in server.requests
    assert "resumed" in stdout


def test_server_ignoring_range_restarts_the_file(mirror, tmp_path):
    base, root, server = mirror
    written = publish(root, DATE_OLD)
    name = f"huwiki-{DATE_OLD}-redirect.sql.gz"
    server.ignore_range = True
    content = written[name]
    out = tmp_path / "dl"
    out.mkdir()
    # A stale .part whose bytes are wrong: appending the full body to it would break the sha1.
    (out / f"{name}.part").write_bytes(b"x" * 10)
    remote = RemoteFile(name, f"{base}/huwiki/{DATE_OLD}/{name}", len(content),
                        hashlib.sha1(content).hexdigest())
    result = download_file(remote, out, progress=False)
    assert result.status == "downloaded"
    assert (out / name).read_bytes() == content


def test_dropped_connection_is_retried_from_where_it_stopped(mirror, tmp_path, no_backoff):
    base, root, server = mirror
    written = publish(root, DATE_OLD)
    name = f"huwiki-{DATE_OLD}-pages-articles-multistream.xml.bz2"
    content = written[name]
    server.cut[name] = 5000
    remote = RemoteFile(name, f"{base}/huwiki/{DATE_OLD}/{name}", len(content),
                        hashlib.sha1(content).hexdigest())
    result = download_file(remote, tmp_path, policy=RetryPolicy(attempts=3, backoff_s=2.0),
                           progress=False)
    assert (tmp_path / name).read_bytes() == content
    assert result.fetched == len(content)
    ranges = [r for (_, path, r) in server.requests if path.endswith(name)]
    assert ranges == [None, "bytes=5000-"]
    assert no_backoff == [2.0]


def test_checksum_mismatch_is_a_one_line_error_and_removes_the_part(mirror, tmp_path, capsys):
    base, root, _ = mirror
    publish(root, DATE_OLD, bad_sha1="redirect.sql.gz")
    out = tmp_path / "dl"
    code, _, err = run_cli(capsys, "--lang", "hu", "--date", DATE_OLD, "--out", str(out),
                           "--base-url", base, "--files", "redirect")
    assert code == 2
    assert err.count("\n") == 1
    assert "sha1 mismatch" in err and f"huwiki-{DATE_OLD}-redirect.sql.gz" in err
    assert list(out.iterdir()) == []


def test_missing_run_is_a_404_error(mirror, tmp_path, capsys):
    base, root, _ = mirror
    publish(root, DATE_OLD)
    code, _, err = run_cli(capsys, "--lang", "hu", "--date", "20991231", "--out",
                           str(tmp_path / "dl"), "--base-url", base)
    assert code == 2
    assert err.count("\n") == 1
    assert "HTTP 404" in err and "/huwiki/20991231/dumpstatus.json" in err


def test_listed_file_missing_on_the_server_is_a_404_error(mirror, tmp_path, capsys):
    base, root, _ = mirror
    publish(root, DATE_OLD, missing="page.sql.gz")
    code, _, err = run_cli(capsys, "--lang", "hu", "--date", DATE_OLD, "--out",
                           str(tmp_path / "dl"), "--base-url", base, "--files", "page")
    assert code == 2
    assert "HTTP 404" in err and f"huwiki-{DATE_OLD}-page.sql.gz" in err


def test_unfinished_job_of_a_dated_run_is_explained(mirror, tmp_path, capsys):
    base, root, _ = mirror
    publish(root, DATE_NEW, unfinished=("langlinkstable",))
    code, _, err = run_cli(capsys, "--lang", "hu", "--date", DATE_NEW, "--out",
                           str(tmp_path / "dl"), "--base-url", base, "--files", "langlinks")
    assert code == 2
    assert "langlinkstable is in-progress" in err


def test_verified_file_is_not_fetched_again(mirror, tmp_path, capsys):
    base, root, server = mirror
    publish(root, DATE_OLD)
    out = tmp_path / "dl"
    argv = ("--lang", "hu", "--date", DATE_OLD, "--out", str(out), "--base-url", base,
            "--files", "page")
    assert run_cli(capsys, *argv)[0] == 0
    server.requests.clear()
    code, stdout, _ = run_cli(capsys, *argv)
    assert code == 0
    assert "present" in stdout
    assert [path for (_, path, _) in server.requests] == [f"/huwiki/{DATE_OLD}/dumpstatus.json"]


def test_unknown_file_kind_is_rejected(mirror, tmp_path, capsys):
    base, _, _ = mirror
    code, _, err = run_cli(capsys, "--lang", "hu", "--out", str(tmp_path), "--base-url", base,
                           "--files", "pages-meta-history")
    assert code == 2
    assert "unknown dump file kind 'pages-meta-history'" in err


def test_dbpedia_files_come_from_the_manifest(mirror, tmp_path, capsys):
    base, root, _ = mirror
    release = root / "dbpedia" / "2016-10"
    (release / "core-i18n" / "hu").mkdir(parents=True)
    (release / "dbpedia_2016-10.owl").write_text("<rdf:RDF/>\n")
    types = b"BZh9 <http://hu.dbpedia.org/resource/Budapest> a <http://dbpedia.org/ontology/City> ."
    (release / "core-i18n" / "hu" / "instance_types_hu.ttl.bz2").write_bytes(types)
    out = tmp_path / "dl"
    code, stdout, err = run_cli(capsys, "--lang", "hu", "--out", str(out), "--files", "none",
                                "--dbpedia", "--dbpedia-base-url", f"{base}/dbpedia")
    assert code == 0, err
    assert (out / "dbpedia_2016-10.owl").read_text() == "<rdf:RDF/>\n"
    assert (out / "instance_types_hu.ttl.bz2").read_bytes() == types
    assert "DBpedia 2016-10" in stdout
