"""Hostile runs (issue [6/6] items 5-9): stale no-op reruns, two builds into one --out, errors as one
line, amplification. Each hostile input is generated here; the CLI runs as a subprocess and the
tests assert what the user sees: exit code, the one line, stats.json, manifest.json."""

from __future__ import annotations

import bz2
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dump_support import peak_rss_mib
from wikisilver.config.resolve import demo_inputs
from wikisilver.lock import LOCK_NAME, output_lock

TIMEOUT = 300  # generous: these runs take seconds; the bound only says "does not hang"


def wikisilver(*args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wikisilver.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "error" in line.lower() or "Traceback" in line]


@pytest.fixture
def inputs(tmp_path) -> tuple[Path, Path]:
    """The demo dump (as plain XML, easy to edit) and its types, copied where a test may change them."""
    dump, types = demo_inputs()
    xml = tmp_path / "in" / "demowiki-pages-articles.xml"
    xml.parent.mkdir()
    xml.write_bytes(bz2.decompress(Path(dump).read_bytes()))
    copy = tmp_path / "in" / "types.nt"
    shutil.copyfile(types, copy)
    return xml, copy


def build(dump: Path, *types: Path, out: Path, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    args = ["build", "--dump", str(dump), "--lang", "en", "--out", str(out), "--progress-interval", "0", *extra]
    for path in types:
        args += ["--types", str(path)]
    return wikisilver(*args)


def entities_by_tag(out: Path) -> dict:
    return json.loads((out / "stats.json").read_text())["entities_by_tag"]


# -- 5. stale no-op reruns --------------------------------------------------------------------


def edit_same_size(path: Path, old: bytes, new: bytes, keep_mtime: bool = True) -> None:
    """Change the file's content in place, keeping its size (and its mtime, as `cp -p` would)."""
    assert len(old) == len(new)
    before = path.stat()
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new))
    if keep_mtime:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size


@pytest.mark.slow
def test_types_edited_in_place_is_not_a_no_op(inputs, tmp_path) -> None:
    dump, types = inputs
    out = tmp_path / "out"
    assert build(dump, types, out=out).returncode == 0
    before = entities_by_tag(out)
    same = build(dump, types, out=out)
    assert same.returncode == 0 and "nothing to do" in same.stderr
    # Austria, a Country (LOC), becomes a Company (ORG): same size, same mtime.
    edit_same_size(types, b"/Austria> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/Country>",
                   b"/Austria> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/Company>")
    changed = build(dump, types, out=out)
    assert changed.returncode == 2, changed.stderr
    assert "nothing to do" not in changed.stderr
    assert error_lines(changed.stderr) == [
        f"wikisilver build: error: {out}: holds a finished corpus of other inputs or options (changed: types); "
        "pass --overwrite to replace it"]
    rebuilt = build(dump, types, out=out, extra=("--overwrite",))
    assert rebuilt.returncode == 0, rebuilt.stderr
    after = entities_by_tag(out)
    assert after["ORG"] > before["ORG"] and after["LOC"] < before["LOC"]


@pytest.mark.slow
def test_dump_replaced_by_one_of_the_same_size_is_not_a_no_op(inputs, tmp_path) -> None:
    dump, types = inputs
    out = tmp_path / "out"
    assert build(dump, types, out=out).returncode == 0
    edit_same_size(dump, b"Vienna", b"Wienna")
    rerun = build(dump, types, out=out)
    assert rerun.returncode == 2 and "(changed: dumps)" in rerun.stderr, rerun.stderr


@pytest.mark.slow
def test_inputs_given_as_a_set_compare_as_a_set(inputs, tmp_path) -> None:
    dump, types = inputs
    lines = types.read_text(encoding="utf-8").splitlines(keepends=True)
    first, second = tmp_path / "in" / "a.nt", tmp_path / "in" / "b.nt"
    first.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    second.write_text("".join(lines[len(lines) // 2:]), encoding="utf-8")
    out = tmp_path / "out"
    assert build(dump, first, second, out=out).returncode == 0
    swapped = build(dump, second, first, out=out)
    assert swapped.returncode == 0 and "nothing to do" in swapped.stderr, swapped.stderr


@pytest.mark.slow
def test_dump_sha1_comes_from_dumpstatus_json_beside_it(inputs, tmp_path) -> None:
    dump, types = inputs
    sha1 = hashlib.sha1(dump.read_bytes()).hexdigest()
    status = {"jobs": {"articlesdump": {"status": "done", "files": {
        dump.name: {"size": dump.stat().st_size, "sha1": sha1, "url": f"/enwiki/20240101/{dump.name}"}}}}}
    (dump.parent / "dumpstatus.json").write_text(json.dumps(status), encoding="utf-8")
    out = tmp_path / "out"
    assert build(dump, types, out=out).returncode == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert [r["digest"] for r in manifest["fingerprints"]["dumps"]] == [f"sha1:{sha1}"]
    assert manifest["comparable"]["dumps"] == [f"sha1:{sha1}"]
    assert manifest["fingerprints"]["types"][0]["digest"] == "sha256:" + hashlib.sha256(types.read_bytes()).hexdigest()
    # Replaced behind the dump status's back (same size and mtime): the file itself is read again.
    edit_same_size(dump, b"Vienna", b"Wienna")
    rerun = build(dump, types, out=out)
    assert rerun.returncode == 2 and "(changed: dumps)" in rerun.stderr, rerun.stderr


# -- 7. two builds into one --out ---------------------------------------------------------------


@pytest.mark.slow
def test_second_build_into_a_locked_out_says_who_holds_it_and_exits_2(inputs, tmp_path) -> None:
    dump, types = inputs
    out = tmp_path / "out"
    with output_lock(out) as lock:
        staging = out / ".staging-of-the-first-run"
        staging.mkdir()
        second = build(dump, types, out=out)
        assert second.returncode == 2, second.stderr
        [line] = error_lines(second.stderr)
        assert line.startswith(f"wikisilver build: error: {out}: another wikisilver run is writing here: pid {os.getpid()} on ")
        assert str(lock) in line
        assert staging.is_dir()  # the first run's staging directory is left alone
    assert not (out / LOCK_NAME).exists()


@pytest.mark.slow
def test_lock_of_a_dead_run_is_taken_over(inputs, tmp_path) -> None:
    dump, types = inputs
    out = tmp_path / "out"
    out.mkdir()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (out / LOCK_NAME).write_text(json.dumps({"pid": dead.pid, "host": "here", "started": "earlier"}))
    result = build(dump, types, out=out)
    assert result.returncode == 0, result.stderr
    assert (out / "manifest.json").exists() and not (out / LOCK_NAME).exists()


def many_pages(xml: Path, times: int) -> Path:
    """The dump with its pages repeated ``times`` times under new titles and ids: a build of it takes
    long enough (tens of seconds) for a second build to start while the first still holds the lock."""
    text = xml.read_text(encoding="utf-8")
    head, rest = text.split("<page>", 1)
    pages, tail = rest.rsplit("</page>", 1)
    pages = "<page>" + pages + "</page>"
    copies = [re.sub(r"<title>([^<]*)</title>", rf"<title>\1 {n}</title>",
                     re.sub(r"<id>(\d+)</id>", lambda m: f"<id>{int(m[1]) + n * 100_000}</id>", pages))
              for n in range(times)]
    bigger = xml.with_name("many-pages.xml")
    bigger.write_text(head + "\n".join(copies) + tail, encoding="utf-8")
    return bigger


@pytest.mark.slow
def test_two_builds_at_once_the_second_refused_the_first_undisturbed(inputs, tmp_path) -> None:
    xml, types = inputs
    dump = many_pages(xml, 300)
    out = tmp_path / "out"
    args = [sys.executable, "-m", "wikisilver.cli", "build", "--dump", str(dump), "--lang", "en", "--types", str(types),
            "--out", str(out), "--progress-interval", "0"]
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):  # at most 60 s for the first run to take the lock
            if (out / LOCK_NAME).exists() and (out / LOCK_NAME).read_text():
                break
            time.sleep(0.1)
        second = build(dump, types, out=out)
        _, first_err = first.communicate(timeout=TIMEOUT)
    finally:
        first.kill()
    assert second.returncode == 2 and f"pid {first.pid} on " in second.stderr, second.stderr
    assert first.returncode == 0, first_err
    assert (out / "manifest.json").exists() and (out / "stats.json").exists()


# -- 8. one line for every error --------------------------------------------------------------

# Runs the CLI with the disk "full" while one kind of file is written: the write raises ENOSPC
# after some bytes went out, as a full disk does.
FULL_DISK = """
import errno, os, sys
real_fsync, target = os.fsync, sys.argv.pop(1)
def fsync(fd):
    if os.readlink(f"/proc/self/fd/{fd}").endswith(target):
        raise OSError(errno.ENOSPC, "No space left on device")
    real_fsync(fd)
os.fsync = fsync  # only in this subprocess
from wikisilver.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_disk_full_while_writing_stats_json_is_one_line_and_leaves_no_tmp(inputs, tmp_path) -> None:
    dump, types = inputs
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-c", FULL_DISK, ".stats.json.tmp", "build", "--dump", str(dump), "--lang", "en",
         "--types", str(types), "--out", str(out), "--progress-interval", "0"],
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert result.returncode == 2, result.stderr
    assert error_lines(result.stderr) == [
        f"wikisilver build: error: {out / 'stats.json'}: cannot write: No space left on device"], result.stderr
    assert not list(out.glob(".*stats.json.tmp")) and not (out / "stats.json").exists()
    assert not (out / "manifest.json").exists()  # not a finished corpus


@pytest.mark.parametrize("option, content, where, reason", [
    ("--types", "this is not rdf at all\n", "1", "not N-Triples or Turtle: unknown prefix in 'this'"),
    ("--types", "# a comment\n\n<http://dbpedia.org/resource/A> <http://x> .\n", "3", "not N-Triples or Turtle: incomplete triple"),
    ("--page-sql", "-- MySQL dump\nCREATE TABLE `redirect` (\n  `rd_from` int\n);\n", "2", "a dump of table `redirect`, not `page`"),
    ("--redirect-sql", "-- MySQL dump\nhello world\n", "2", "not a MySQL dump of table `redirect`"),
])
@pytest.mark.slow
def test_bad_types_or_sql_file_fails_before_any_work_naming_file_and_line(inputs, tmp_path, option, content, where, reason) -> None:
    dump, types = inputs
    bad = tmp_path / "in" / "bad.txt"
    bad.write_text(content, encoding="utf-8")
    out = tmp_path / "out"
    extra = ["--types", str(types)] if option != "--types" else []
    result = wikisilver("build", "--dump", str(dump), "--lang", "en", option, str(bad), *extra, "--out", str(out))
    assert result.returncode == 2, result.stderr
    [line] = error_lines(result.stderr)
    assert line.startswith(f"wikisilver build: error: {bad}:line {where}: {reason}"), line
    assert "apache_beam.runners" not in result.stderr  # found before the pipeline was built
    assert not out.exists()


@pytest.mark.slow
def test_error_inside_the_pipeline_is_one_line_and_v_shows_the_traceback(inputs, tmp_path) -> None:
    # The types file starts well and goes bad past the header check: the pipeline fails inside.
    dump, types = inputs
    bad = tmp_path / "in" / "late.nt.gz"
    import gzip
    good = types.read_bytes() * 1000  # 6 MB: its end lies well past what the header check reads
    bad.write_bytes(gzip.compress(good)[:-40])  # a gzip stream cut short: unreadable at its end
    args = ("build", "--dump", str(dump), "--lang", "en", "--types", str(bad), "--out", str(tmp_path / "out"))
    quiet = wikisilver(*args)
    assert quiet.returncode == 2, quiet.stderr
    [line] = error_lines(quiet.stderr)
    assert line.startswith("wikisilver build: error: the pipeline failed: ") and str(bad) in line, quiet.stderr
    verbose = wikisilver("-v", *args)
    assert verbose.returncode == 2 and "Traceback" in verbose.stderr


# -- 9. amplification -------------------------------------------------------------------------


def billion_laughs() -> str:
    entities = ['<!ENTITY a0 "haha">'] + [f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10)]
    return ('<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n' + "\n".join(entities) + "\n]>\n"
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#">\n'
            '<owl:Class rdf:about="http://dbpedia.org/ontology/Laugh"><rdfs:label>&a9;</rdfs:label></owl:Class>\n'
            "</rdf:RDF>\n")


@pytest.mark.slow
def test_billion_laughs_ontology_is_refused_up_front(inputs, tmp_path) -> None:
    dump, types = inputs
    owl = tmp_path / "in" / "laughs.owl"
    owl.write_text(billion_laughs(), encoding="utf-8")
    assert owl.stat().st_size < 1500
    out = tmp_path / "out"
    # rdflib expands it for minutes; the bound here is generous but far below that.
    result = wikisilver("build", "--dump", str(dump), "--lang", "en", "--types", str(types), "--ontology", str(owl),
                        "--out", str(out), timeout=60)
    assert result.returncode == 2, result.stderr
    assert error_lines(result.stderr) == [
        f"wikisilver build: error: {owl}:line 2: has a DTD (<!DOCTYPE): refused, entity expansion can blow up; "
        "DBpedia's ontology has none"]
    assert not (out / "manifest.json").exists()


def write_lazily(path: Path, parts: list) -> None:
    """Write a big file from text parts, each a string or a generator of strings (never held whole)."""
    with path.open("w", encoding="utf-8") as handle:
        for part in parts:
            for piece in [part] if isinstance(part, str) else part:
                handle.write(piece)


@pytest.mark.slow
def test_one_huge_insert_line_is_read_as_a_stream_of_tuples(tmp_path) -> None:
    # One INSERT line of ~120 MB (written lazily): held whole, it alone would take 120+ MB twice.
    sql = tmp_path / "page.sql"
    row, pad, rows = "({id},0,'Title_number_{id}_{pad}',0)", "x" * 200, 500_000
    write_lazily(sql, [
        "CREATE TABLE `page` (\n  `page_id` int,\n  `page_namespace` int,\n  `page_title` varbinary(255),\n"
        "  `page_is_redirect` tinyint\n);\nINSERT INTO `page` VALUES ",
        (",".join(row.format(id=i, pad=pad) for i in range(start, start + 10_000))
         + ("," if start + 10_000 < rows else ";\n") for start in range(0, rows, 10_000)),
    ])
    assert sql.stat().st_size > 100 << 20
    peak, printed = peak_rss_mib(
        "from wikisilver.entities.sql import iter_page_table\n"
        f"rows = list(r.page_id for r in iter_page_table({str(sql)!r}))\n"
        "print(len(rows), rows[0], rows[-1])")
    assert printed == "500000 0 499999"
    assert peak < 150, f"peak RSS {peak} MiB"


def test_one_huge_line_in_a_types_file_is_skipped_without_being_held(tmp_path) -> None:
    # A 120 MB line (no line break) between two good triples: read in MAX_LINE pieces, never whole.
    triple = "<http://dbpedia.org/resource/{t}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> " \
             "<http://dbpedia.org/ontology/{c}> .\n"
    types = tmp_path / "types.nt"
    write_lazily(types, [
        triple.format(t="Ada_Lovelace", c="Person"),
        "<http://dbpedia.org/resource/Huge> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> \"",
        ("x" * (1 << 20) for _ in range(120)),
        "\" .\n",
        triple.format(t="London", c="City"),
    ])
    assert types.stat().st_size > 120 << 20
    peak, printed = peak_rss_mib(
        "from wikisilver.entities.rdf import TripleReadStats, iter_instance_types\n"
        "stats = TripleReadStats()\n"
        f"print(list(iter_instance_types({str(types)!r}, stats)), stats.malformed)")
    assert printed == "[('Ada Lovelace', 'Person'), ('London', 'City')] 1"
    assert peak < 100, f"peak RSS {peak} MiB"


@pytest.mark.slow
def test_a_huge_page_is_rejected_without_being_held_and_the_next_page_is_read(tmp_path) -> None:
    dump = tmp_path / "huge.xml"
    page = "<page><title>{t}</title><ns>0</ns><id>{i}</id><revision><id>1</id><text>{x}</text></revision></page>\n"
    write_lazily(dump, [
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><siteinfo><dbname>enwiki</dbname></siteinfo>\n',
        page.format(t="Small", i=1, x="Some text."),
        "<page><title>Huge</title><ns>0</ns><id>2</id><revision><id>1</id><text>",
        ("word " * 209_715 + "\n" for _ in range(100)),  # 100 MB of text
        "</text></revision></page>\n",
        page.format(t="After", i=3, x="More text."),
        "</mediawiki>\n",
    ])
    peak, printed = peak_rss_mib(
        "from wikisilver.dump import iter_pages\n"
        f"for r in iter_pages({str(dump)!r}):\n"
        "    print(type(r).__name__, r.page_id, r.title, getattr(r, 'reason', ''))")
    assert printed.splitlines() == ["Page 1 Small ", "PageReject 2 Huge xml_error", "Page 3 After "]
    assert peak < 250, f"peak RSS {peak} MiB"


# The CLI, then its own peak RSS on stderr (VmHWM, as above).
CLI_PEAK_RSS = """
import sys
from wikisilver.cli import main
code = main(sys.argv[1:])
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print("peak RSS MiB:", int(hwm.split()[1]) // 1024, file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.slow
def test_build_with_a_huge_page_rejects_it_in_bounded_memory_and_uses_the_others(inputs, tmp_path) -> None:
    """A 48 MB page (over what one page may hold) between two small ones, through the whole
    build: one xml_error reject naming it, the others used, the build's peak RSS that of a
    small build (the unbounded reader held such a page nine times over)."""
    _, types = inputs
    dump = tmp_path / "in" / "huge-pages-articles.xml"
    page = "<page><title>{t}</title><ns>0</ns><id>{i}</id><revision><id>1</id><text>{x}</text></revision></page>\n"
    write_lazily(dump, [
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><siteinfo><dbname>enwiki</dbname></siteinfo>\n',
        page.format(t="Ada Lovelace", i=1, x="Ada Lovelace was an English mathematician who lived in London."),
        "<page><title>Huge</title><ns>0</ns><id>2</id><revision><id>1</id><text>",
        ("word " * 209_715 + "\n" for _ in range(48)),
        "</text></revision></page>\n",
        page.format(t="After", i=3, x="Charles Babbage worked in London."),
        "</mediawiki>\n",
    ])
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-c", CLI_PEAK_RSS, "build", "--dump", str(dump), "--lang", "en", "--types", str(types),
         "--out", str(out), "--progress-interval", "0"], capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    stats = json.loads((out / "stats.json").read_text())
    assert (stats["pages_read"], stats["pages_used"], stats["pages_rejected"]) == (3, 2, {"xml_error": 1})
    assert stats["pages_accounted"] is True and stats["pages_unread_estimate"] == 0
    [reject] = [json.loads(line) for part in (out / "rejects").glob("*.jsonl") for line in part.read_text().splitlines()]
    assert (reject["title"], reject["reason"]) == ("Huge", "xml_error") and "longer than" in reject["detail"]
    lines = result.stderr.strip().splitlines()
    assert lines[-2].startswith("wikisilver build: warning: 1 page(s) rejected, 0 stream error(s)"), result.stderr
    peak = int(lines[-1].split()[-1])
    assert peak < 450, f"peak RSS {peak} MiB"
