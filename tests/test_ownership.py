"""A build owns only what it wrote (issue "Trust"): the user's files in or beside ``--out`` are
never replaced or deleted, inputs inside ``--out`` and an ``--out`` that is a system folder are
refused, the lock file is never followed, the report is written beside the corpus.

The rules are tested on the pure functions (wikisilver.ownership, wikisilver.destination,
wikisilver.lock) with small folders written here; the CLI runs as a subprocess on the bundled
demo dump for what the user sees: exit code, one line, every file of theirs byte for byte."""

from __future__ import annotations

import bz2
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wikisilver import destination, ownership
from wikisilver.config.resolve import demo_inputs
from wikisilver.errors import InputError
from wikisilver.lock import LOCK_NAME, output_lock
from wikisilver.ownership import CLAIM, CORPUS, RUN_MARKER, commit, place, prepare_output, staged, survey
from wikisilver.report.html import default_report_path, write_report

TIMEOUT = 300  # generous: these runs take seconds; the bound only says "does not hang"
DEMO_DUMP, DEMO_TYPES = demo_inputs()


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every file under ``folder`` (relative path -> bytes; a symlink -> its target), never followed."""
    found: dict[str, bytes | str] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            if path.is_symlink():
                found[str(path.relative_to(folder))] = "-> " + os.readlink(path)
            elif path.is_file():
                found[str(path.relative_to(folder))] = path.read_bytes()
    return found


def write(folder: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")


def corpus_manifest(parts: int = 4) -> dict:
    names = [f"part-{i:05d}-of-{parts:05d}" for i in range(parts)]
    files = ["README.md", "manifest.json", "stats.json", *(f"tsv/{n}.tsv" for n in names),
             *(f"parquet/{n}.parquet" for n in names)]
    return {"tool": "wikisilver", "files": files}


def fake_corpus(out: Path, parts: int = 4) -> dict:
    """A corpus folder as a build leaves it (its parts hold a line each): its manifest."""
    manifest = corpus_manifest(parts)
    write(out, {rel: f"ours: {rel}\n" for rel in manifest["files"] if rel != "manifest.json"})
    (out / "rejects").mkdir(exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return manifest


USER_FILES = {"README.md": "my notes\n", "stats.json": '{"mine": 1}\n', "tsv/mine.tsv": "a\tb\n",
              "parquet/mine.parquet": "not parquet\n", "rejects/mine.jsonl": "{}\n", ".staging-mine/keep.txt": "keep\n"}


# ----------------------------------------------------------------------------- what --out may hold


def test_a_new_or_empty_folder_is_fresh(tmp_path) -> None:
    (tmp_path / "empty" / "nothing-in-it").mkdir(parents=True)  # an empty folder holds nothing to lose
    for out in (tmp_path / "new", tmp_path / "empty"):
        found = survey(str(out), CORPUS)
        assert (found.owned, found.foreign, found.beside, found.finished) == (frozenset(), (), (), False)
        ownership.check_owned(found)


@pytest.mark.parametrize("rel", sorted(USER_FILES))
def test_a_folder_of_the_users_files_is_refused_and_left_as_it_is(tmp_path, rel) -> None:
    out = tmp_path / "out"
    write(out, {rel: USER_FILES[rel]})
    before = snapshot(out)
    with pytest.raises(InputError, match=r"holds files that are not wikisilver's \(.*\): refused; --out must be an "
                                         r"empty or new folder, or one holding a wikisilver output"):
        prepare_output(str(out), overwrite=True)
    assert snapshot(out) == before


def test_a_corpus_owns_what_its_manifest_lists_and_nothing_else(tmp_path) -> None:
    out = tmp_path / "out"
    manifest = fake_corpus(out)
    write(out, {"notes.txt": "mine", "notes/deep.txt": "mine", "tsv/mine.tsv": "mine", ".staging-mine/k": "mine"})
    found = survey(str(out), CORPUS)
    assert found.finished and found.owned == set(manifest["files"])
    assert found.foreign == ("tsv/mine.tsv",)
    assert set(found.beside) == {"notes.txt", "notes", ".staging-mine"}
    before = snapshot(out)
    with pytest.raises(InputError, match=r"holds files that its wikisilver output does not list, where the output is "
                                         r"written \(tsv/mine.tsv\): refused"):
        prepare_output(str(out), overwrite=True)
    assert snapshot(out) == before  # the corpus too: refused before anything was claimed or deleted


def test_a_manifest_of_an_earlier_version_owns_its_parts_and_rejects(tmp_path) -> None:
    out = tmp_path / "out"
    write(out, {"tsv/part-00000-of-00001.tsv": "x", "parquet/part-00000-of-00001.parquet": "x", "stats.json": "{}",
                "README.md": "card", "rejects/part-00003.jsonl": "{}", "rejects/mine.jsonl": "{}"})
    (out / "manifest.json").write_text(json.dumps({"tool": "wikisilver", "outputs": {
        "tsv": ["part-00000-of-00001.tsv"], "parquet": ["part-00000-of-00001.parquet"]}}))
    found = survey(str(out), CORPUS)
    assert found.foreign == ("rejects/mine.jsonl",)
    assert {"rejects/part-00003.jsonl", "README.md", "stats.json", "tsv/part-00000-of-00001.tsv"} <= found.owned


def test_a_manifest_owns_nothing_outside_the_output_places(tmp_path) -> None:
    out = tmp_path / "out"
    write(out, {"notes.txt": "mine"})
    (out / "manifest.json").write_text(json.dumps({"tool": "wikisilver", "files": [
        "../escape.txt", "/etc/passwd", "notes.txt", "tsv/../notes.txt", "tsv/a/b.tsv", "tsv\\x", "tsv/ok.tsv"]}))
    assert survey(str(out), CORPUS).owned == {"manifest.json", "tsv/ok.tsv"}


def test_a_manifest_json_of_another_tool_is_not_a_corpus(tmp_path) -> None:
    out = tmp_path / "out"
    write(out, {"manifest.json": json.dumps({"name": "my dataset", "files": ["tsv/a.tsv"]})})
    with pytest.raises(InputError, match=r"not wikisilver's \(manifest.json\)"):
        prepare_output(str(out), overwrite=True)


def test_an_output_folder_that_is_a_symlink_is_refused_and_never_followed(tmp_path) -> None:
    out, theirs = tmp_path / "out", tmp_path / "theirs"
    fake_corpus(out)
    shutil.rmtree(out / "tsv")
    write(theirs, {"part-00000-of-00004.tsv": "the user's"})
    (out / "tsv").symlink_to(theirs)
    with pytest.raises(InputError, match=r"where the output is written \(tsv\)"):
        prepare_output(str(out), overwrite=True)
    assert snapshot(theirs) == {"part-00000-of-00004.tsv": b"the user's"}


# ----------------------------------------------------------------------------- a run's life


def stage(staging: Path, parts: int) -> None:
    for i in range(parts):
        write(staging, {f"tsv/part-{i:05d}-of-{parts:05d}.tsv": "new", f"parquet/part-{i:05d}-of-{parts:05d}.parquet": "new"})


def test_overwrite_replaces_and_deletes_only_the_files_the_corpus_owned(tmp_path) -> None:
    out = tmp_path / "out"
    fake_corpus(out, parts=4)
    user = {"notes.txt": "mine", "notes/deep.txt": "mine", ".staging-mine/keep.txt": "mine", "report.html": "old"}
    write(out, user)
    output = prepare_output(str(out), overwrite=True)
    assert not (out / "manifest.json").exists()  # no longer looks finished
    assert set(json.loads((out / CLAIM).read_text())["files"]) == output.owned  # a killed run's stay owned
    with staged(str(out), CORPUS.dirs) as staging:
        assert json.loads((Path(staging) / RUN_MARKER).read_text())["pid"] == os.getpid()
        stage(Path(staging), parts=2)
        place(output, staging, CORPUS.dirs)
        write(out, {"stats.json": "{}", "README.md": "card"})
    commit(output, {"tool": "wikisilver"})
    assert sorted(p.name for p in (out / "tsv").iterdir()) == ["part-00000-of-00002.tsv", "part-00001-of-00002.tsv"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"] == sorted(["README.md", "manifest.json", "stats.json", *(
        f"{kind}/part-{i:05d}-of-00002.{kind}" for kind in ("tsv", "parquet") for i in range(2))])
    assert not (out / CLAIM).exists() and not list(out.glob(".staging-*/" + RUN_MARKER))
    assert {rel: snapshot(out)[rel] for rel in user} == {rel: text.encode() for rel, text in user.items()}


def test_a_corpus_over_an_entity_table_deletes_its_parts_and_keeps_the_users_file(tmp_path) -> None:
    out = tmp_path / "out"
    write(out, {"entities/part-00000-of-00002.tsv": "x", "entities/part-00001-of-00002.tsv": "x",
                "entities/mine.tsv": "mine", "manifest.json": json.dumps({"tool": "wikisilver entities"})})
    output = prepare_output(str(out), overwrite=True)  # an earlier version's manifest: its parts by name
    assert output.owned == {"manifest.json", "entities/part-00000-of-00002.tsv", "entities/part-00001-of-00002.tsv"}
    with staged(str(out), CORPUS.dirs) as staging:
        stage(Path(staging), parts=1)
        place(output, staging, CORPUS.dirs)
    commit(output, {"tool": "wikisilver"})
    assert snapshot(out / "entities") == {"mine.tsv": b"mine"}
    assert (out / "tsv" / "part-00000-of-00001.tsv").read_text() == "new" and (out / "rejects").is_dir()


def test_an_unfinished_output_is_still_ours_after_a_kill(tmp_path) -> None:
    out = tmp_path / "out"
    manifest = fake_corpus(out)
    write(out, {"notes.txt": "mine"})
    prepare_output(str(out), overwrite=True)  # and killed here: no manifest, the claim stays
    found = survey(str(out), CORPUS)
    assert not found.finished and found.owned == set(manifest["files"]) and found.beside == ("notes.txt",)
    ownership.check_owned(found)  # a rerun needs no --overwrite and may replace them


def test_only_marked_staging_folders_of_dead_runs_are_swept(tmp_path) -> None:
    out = tmp_path / "out"
    fake_corpus(out)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for run, pid in (("deadrun", dead.pid), ("liverun", alive.pid)):
            write(out, {f".staging-{run}/tsv/part.tsv": "x", f".staging-{run}/{RUN_MARKER}": json.dumps(
                {"run": run, "pid": pid, "host": os.uname().nodename, "started": "x"})})
        write(out, {".staging-mine/keep.txt": "mine", f".staging-copied/{RUN_MARKER}": json.dumps({"run": "other"})})
        output = prepare_output(str(out), overwrite=True)
        assert output.stale_staging == (".staging-deadrun",)
        assert sorted(p.name for p in out.glob(".staging-*")) == [".staging-copied", ".staging-liverun", ".staging-mine"]
    finally:
        alive.kill()
        alive.wait()


# ----------------------------------------------------------------------------- where --out may be


@pytest.fixture
def fake_root(tmp_path, monkeypatch) -> Path:
    """A temporary folder standing for the root, with system folders in it; never the real root."""
    root = tmp_path / "root"
    for name in ("etc", "tmp", "usr"):
        write(root, {f"{name}/keep": "system"})
    monkeypatch.setattr(destination, "SYSTEM_ROOT", str(root))
    return root


def test_out_resolving_to_a_system_folder_is_refused(tmp_path, fake_root, monkeypatch) -> None:
    for target in (fake_root, fake_root / "etc", fake_root / "tmp"):
        link = tmp_path / f"link-to-{target.name}"
        link.symlink_to(target)
        with pytest.raises(InputError, match=rf"--out resolves to {re.escape(str(target))}, a system folder or"):
            destination.check_destination(str(link), {})
    destination.check_destination(str(fake_root / "tmp" / "corpus"), {})  # a folder of its own in one: fine
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(InputError, match="the home directory"):
        destination.check_destination(str(home / "." / "sub" / ".."), {})


def test_inputs_inside_out_are_refused(tmp_path) -> None:
    out = tmp_path / "out"
    write(tmp_path, {"out/tsv/types.nt": "x", "elsewhere/dump.xml": "x"})
    (tmp_path / "linked.nt").symlink_to(out / "tsv" / "types.nt")
    for inside in (out / "tsv" / "types.nt", tmp_path / "linked.nt"):
        with pytest.raises(InputError, match=rf"--types lies inside --out {re.escape(str(out))}: refused"):
            destination.check_destination(str(out), {"--types": [str(inside)]})
    destination.check_destination(str(out), {"--dump": [str(tmp_path / "elsewhere" / "dump.xml")]})
    destination.check_destination(str(tmp_path / "ou"), {"--types": [str(out / "tsv" / "types.nt")]})
    with pytest.raises(InputError, match="--config lies inside"):
        destination.check_destination("s3://b/out/", {"--config": ["s3://b/out/x.toml"]})
    destination.check_destination("s3://b/out", {"--config": ["s3://b/outer/x.toml"], "--dump": [str(out)]})


# ----------------------------------------------------------------------------- the lock file


def test_a_symlink_as_the_lock_file_is_refused_and_its_target_untouched(tmp_path) -> None:
    out, precious = tmp_path / "out", tmp_path / "precious.txt"
    out.mkdir()
    precious.write_text("the user's")
    (out / LOCK_NAME).symlink_to(precious)
    with pytest.raises(InputError, match="is a symbolic link: refused, a lock file is never followed"):
        with output_lock(out):
            pass
    assert precious.read_text() == "the user's" and (out / LOCK_NAME).is_symlink()


@pytest.mark.parametrize("kind", ["hard link", "fifo", "not ours"])
def test_a_lock_file_that_is_not_ours_is_refused_and_never_written(tmp_path, kind) -> None:
    out, precious = tmp_path / "out", tmp_path / "precious.txt"
    out.mkdir()
    precious.write_text("the user's")
    if kind == "hard link":
        os.link(precious, out / LOCK_NAME)
    elif kind == "fifo":
        os.mkfifo(out / LOCK_NAME)
    else:
        (out / LOCK_NAME).write_text("the user's")
    with pytest.raises(InputError, match="refused"):
        with output_lock(out):
            pass
    assert (out / LOCK_NAME).exists()
    if kind != "fifo":
        assert (out / LOCK_NAME).read_text() == "the user's"


def test_a_dead_runs_lock_file_is_taken_over_and_removed(tmp_path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_NAME).write_text(json.dumps({"pid": 1, "host": "gone", "started": "earlier"}))
    with output_lock(out) as held:
        assert json.loads(Path(held).read_text())["pid"] == os.getpid()
    assert not (out / LOCK_NAME).exists()


# ----------------------------------------------------------------------------- the report


def test_the_report_goes_beside_the_corpus_and_never_replaces_a_file_of_the_users(tmp_path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    assert default_report_path(f"{corpus}/") == f"{corpus}.report.html"
    assert default_report_path("s3://b/corpora/hu/") == "s3://b/corpora/hu.report.html"
    theirs = tmp_path / "corpus.report.html"
    theirs.write_text("<html>my own page</html>")
    with pytest.raises(InputError, match="exists and is not a wikisilver report: refused, never replaced"):
        write_report(corpus)
    assert theirs.read_text() == "<html>my own page</html>"


# ----------------------------------------------------------------------------- the CLI, end to end


def wikisilver(*args: str, env: dict | None = None, prelude: str = "") -> subprocess.CompletedProcess:
    """The CLI in a subprocess; ``prelude``: Python run first (a test's stand-in for the root)."""
    code = f"import sys\n{prelude}\nfrom wikisilver.cli import main\nsys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, **(env or {})})


def one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    return line


def build_args(out: Path, *extra: str) -> list[str]:
    return ["build", "--demo", "--out", str(out), "--progress-interval", "0", *extra]


@pytest.mark.slow
def test_cli_refuses_an_out_holding_the_users_files(tmp_path) -> None:
    out = tmp_path / "out"
    write(out, USER_FILES)
    before = snapshot(out)
    line = one_error_line(wikisilver(*build_args(out)))
    assert line.startswith(f"wikisilver build: error: {out}: holds files that are not wikisilver's ("), line
    assert snapshot(out) == before


@pytest.mark.slow
def test_cli_refuses_inputs_inside_out_before_any_work(tmp_path) -> None:
    out = tmp_path / "out"
    write(out, {"in/notes.txt": "mine"})
    shutil.copyfile(DEMO_DUMP, out / "in" / "demowiki-pages-articles.xml.bz2")
    (out / "tsv").mkdir()
    shutil.copyfile(DEMO_TYPES, out / "tsv" / "types.nt")
    (out / "in" / "build.toml").write_text('lang = "en"\n')
    before = snapshot(out)
    cases = [("--dump", out / "in" / "demowiki-pages-articles.xml.bz2", ["--types", DEMO_TYPES]),
             ("--types", out / "tsv" / "types.nt", ["--dump", DEMO_DUMP]),
             ("--config", out / "in" / "build.toml", ["--dump", DEMO_DUMP, "--types", DEMO_TYPES])]
    for option, inside, rest in cases:
        line = one_error_line(wikisilver("build", option, str(inside), *rest, "--lang", "en", "--out", str(out)))
        assert line == (f"wikisilver build: error: {inside}: {option} lies inside --out {out}: refused, a run replaces "
                        "what it wrote there; move the input elsewhere or give another --out"), line
    assert snapshot(out) == before  # not even a lock file was made


@pytest.mark.slow
def test_cli_refuses_an_out_that_links_to_a_system_folder(tmp_path) -> None:
    root = tmp_path / "root"  # stands for /: the subprocess is told so; the real root is never tried
    write(root, {"README.md": "the system's", "tsv/keep.tsv": "the system's", "etc/passwd": "x"})
    link = tmp_path / "out"
    link.symlink_to(root)
    before = snapshot(root)
    prelude = f"import wikisilver.destination as d; d.SYSTEM_ROOT = {str(root)!r}"
    line = one_error_line(wikisilver(*build_args(link), prelude=prelude))
    assert line == (f"wikisilver build: error: {link}: --out resolves to {root}, a system folder or the home "
                    "directory: refused; give a folder of its own for the output"), line
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "to-home").symlink_to(home)
    line = one_error_line(wikisilver(*build_args(tmp_path / "to-home"), env={"HOME": str(home)}))
    assert f"--out resolves to {home}, a system folder or the home directory" in line
    assert snapshot(root) == before and list(home.iterdir()) == []


@pytest.mark.slow
def test_cli_refuses_a_lock_file_that_is_a_symlink(tmp_path) -> None:
    out, precious = tmp_path / "out", tmp_path / "precious.txt"
    out.mkdir()
    precious.write_text("the user's")
    (out / LOCK_NAME).symlink_to(precious)
    line = one_error_line(wikisilver(*build_args(out)))
    assert line == (f"wikisilver build: error: {out / LOCK_NAME}: is a symbolic link: refused, a lock file is never "
                    "followed; remove it if no wikisilver run is writing here"), line
    assert precious.read_text() == "the user's" and (out / LOCK_NAME).is_symlink()


BESIDE = {"notes.txt": "mine\n", "notes/deep.txt": "mine too\n", ".staging-mine/keep.txt": "kept\n",
          "report.html": "<html>an old report</html>\n", "entities/mine.tsv": "a\tb\n"}


def owned_files(out: Path) -> set[str]:
    return {rel for rel in snapshot(out) if not rel.startswith(tuple(BESIDE))
            and rel.split("/")[0] not in ("notes", ".staging-mine", "entities")}


@pytest.mark.slow
def test_cli_users_files_beside_a_corpus_survive_build_and_overwrite(tmp_path) -> None:
    out = tmp_path / "out"
    assert wikisilver(*build_args(out)).returncode == 0
    write(out, BESIDE)
    again = wikisilver(*build_args(out))
    assert again.returncode == 0 and "nothing to do" in again.stderr, again.stderr
    rebuilt = wikisilver(*build_args(out, "--shards", "2", "--overwrite"))
    assert rebuilt.returncode == 0 and "Traceback" not in rebuilt.stderr, rebuilt.stderr
    assert {rel: snapshot(out)[rel] for rel in BESIDE} == {rel: text.encode() for rel, text in BESIDE.items()}
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["files"]) == owned_files(out)  # the old 4 parts are gone, nothing else of ours is left
    assert sorted(p.name for p in (out / "tsv").iterdir()) == ["part-00000-of-00002.tsv", "part-00001-of-00002.tsv"]
    report = wikisilver("report", str(out))
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "out.report.html").read_text().startswith("<!DOCTYPE html>")
    assert (out / "report.html").read_text() == BESIDE["report.html"]

    write(out, {"tsv/mine.tsv": "mine"})
    before = snapshot(out)
    line = one_error_line(wikisilver(*build_args(out, "--overwrite")))
    assert line.startswith(f"wikisilver build: error: {out}: holds files that its wikisilver output does not list, "
                           "where the output is written (tsv/mine.tsv): refused"), line
    assert snapshot(out) == before


def many_pages_dump(tmp_path: Path, times: int) -> Path:
    """The demo dump with its pages repeated ``times`` times under new titles and ids: a build long
    enough to be killed in the middle."""
    text = bz2.decompress(Path(DEMO_DUMP).read_bytes()).decode("utf-8")
    head, rest = text.split("<page>", 1)
    pages, tail = rest.rsplit("</page>", 1)
    pages = "<page>" + pages + "</page>"
    copies = [re.sub(r"<title>([^<]*)</title>", rf"<title>\1 {n}</title>",
                     re.sub(r"<id>(\d+)</id>", lambda m: f"<id>{int(m[1]) + n * 100_000}</id>", pages))
              for n in range(times)]
    dump = tmp_path / "in" / "demowiki-pages-articles.xml"
    dump.parent.mkdir(exist_ok=True)
    dump.write_text(head + "\n".join(copies) + tail, encoding="utf-8")
    return dump


@pytest.mark.slow
def test_cli_killed_overwrite_and_its_rerun_keep_the_users_files(tmp_path) -> None:
    out = tmp_path / "out"
    assert wikisilver(*build_args(out)).returncode == 0
    write(out, BESIDE)
    dump = many_pages_dump(tmp_path, 300)
    args = [sys.executable, "-m", "wikisilver.cli", "-q", "build", "--dump", str(dump), "--types", DEMO_TYPES,
            "--lang", "en", "--out", str(out), "--progress-interval", "0", "--overwrite"]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list(out.glob(f".staging-*/{RUN_MARKER}")):
            time.sleep(0.05)
        time.sleep(1.0)  # the job is under way
        assert process.poll() is None, "the build ended before it could be killed"
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert not (out / "manifest.json").exists() and (out / CLAIM).exists()
    assert {rel: snapshot(out)[rel] for rel in BESIDE} == {rel: text.encode() for rel, text in BESIDE.items()}
    rerun = wikisilver("build", *args[args.index("build") + 1:-1])  # no --overwrite: nothing is finished there
    assert rerun.returncode == 0 and "Traceback" not in rerun.stderr, rerun.stderr
    assert {rel: snapshot(out)[rel] for rel in BESIDE} == {rel: text.encode() for rel, text in BESIDE.items()}
    assert set(json.loads((out / "manifest.json").read_text())["files"]) == owned_files(out)
    assert not (out / CLAIM).exists() and not list(out.glob(f".staging-*/{RUN_MARKER}"))
