"""Where every command writes (wikisilver.outputs), run as a user runs it, on real files: a regular
file replaced only whole, a symbolic link written through, a named pipe and an open descriptor
(what /dev/stdout is) streamed to and never renamed over, ``-`` as standard output, and every
destination that cannot be written refused in one line, exit 2, before any work."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tool_support import one_error_line, train_model, wikisilver, write_corpus
from wikisilver.errors import OutputError
from wikisilver.outputs import FILE, STREAM, check_output, open_output

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("outputs") / "corpus")


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return train_model(tmp_path_factory.mktemp("model"))


@pytest.fixture(scope="module")
def expected_jsonl(corpus, tmp_path_factory) -> str:
    """What ``export --format jsonl`` writes to a plain file: every other destination gets the same."""
    out = tmp_path_factory.mktemp("plain") / "c.jsonl"
    done = wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert [json.loads(line)["title"] for line in text.splitlines()] == ["Budapest", "Kossuth Lajos"]
    return text


class FifoReader(threading.Thread):
    """Reads a named pipe to its end (the writer's close), as `cat fifo` would."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path, self.data = path, b""

    def run(self) -> None:
        with open(self.path, "rb") as handle:
            self.data = handle.read()


def names_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------- what is written where


def test_a_regular_file_is_replaced_whole_keeping_its_mode(corpus, expected_jsonl, tmp_path):
    out = tmp_path / "c.jsonl"
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o640)
    done = wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == expected_jsonl
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert names_in(tmp_path) == ["c.jsonl"]  # no temporary file left beside it
    new = tmp_path / "sub" / "new.jsonl"  # missing folders are created; a new file gets the umask's mode
    assert wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(new)).returncode == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


def test_a_symlink_is_written_through_and_stays_a_link(corpus, expected_jsonl, tmp_path):
    target = tmp_path / "data" / "real.jsonl"
    target.parent.mkdir()
    target.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    done = wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(link))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") == expected_jsonl
    assert names_in(target.parent) == ["real.jsonl"] and names_in(tmp_path) == ["data", "link.jsonl"]
    dangling = tmp_path / "dangling.jsonl"  # a link to a file not yet there: the file is created
    dangling.symlink_to(tmp_path / "later.jsonl")
    assert wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(dangling)).returncode == 0
    assert dangling.is_symlink() and (tmp_path / "later.jsonl").read_text(encoding="utf-8") == expected_jsonl


def test_a_named_pipe_is_streamed_to_not_replaced(corpus, expected_jsonl, tmp_path):
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    reader.start()
    done = wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(fifo))
    reader.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert reader.data.decode("utf-8") == expected_jsonl
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and names_in(tmp_path) == ["fifo.jsonl"]


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="needs /proc/self/fd (Linux)")
def test_a_link_to_an_open_descriptor_is_a_stream_as_dev_stdout_is(model, tmp_path):
    """The user's `--out /dev/stdout` replaced the system's /dev/stdout with a file: here a link of
    our own to /proc/self/fd/1 (what /dev/stdout is) stands for it, never the real one."""
    text = tmp_path / "in.txt"
    text.write_text("John lives in Paris.\n", encoding="utf-8")
    fake_stdout = tmp_path / "stdout"
    fake_stdout.symlink_to("/proc/self/fd/1")
    done = wikisilver("tag", str(text), "--format", "text", "--model", str(model), "--out", str(fake_stdout))
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)  # the tags arrived on the command's standard output
    assert record["text"] == "John lives in Paris."
    assert fake_stdout.is_symlink() and os.readlink(fake_stdout) == "/proc/self/fd/1"
    assert names_in(tmp_path) == ["in.txt", "stdout"]
    # The same through a named pipe: written as a stream, still a pipe afterwards.
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    reader.start()
    done = wikisilver("tag", str(text), "--model", str(model), "--out", str(fifo))
    reader.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(reader.data)["text"] == "John lives in Paris." and stat.S_ISFIFO(fifo.lstat().st_mode)


def test_dash_is_standard_output_and_logs_go_to_stderr(corpus, expected_jsonl, tmp_path):
    done = wikisilver("export", str(corpus), "--format", "jsonl", "--out", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected_jsonl
    assert done.stderr.startswith("wrote 2 sentences") and "Traceback" not in done.stderr
    assert names_in(tmp_path) == []  # no file named "-"


def test_a_reader_that_stops_early_ends_the_command_quietly(corpus, tmp_path):
    command = [sys.executable, "-m", "wikisilver.cli", "export", str(corpus), "--format", "conllup", "--out", "-"]
    writer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer.stdout.read(10)
    writer.stdout.close()  # as `| head -c 10` does
    _, err = writer.communicate(timeout=120)
    assert writer.returncode in (0, 141) and b"Traceback" not in err  # 0: it had written all before


# --------------------------------------------------------------------------- refused, in one line


@pytest.mark.parametrize("kind", ["directory", "socket", "under a file", "link to a directory"])
def test_what_cannot_hold_a_file_is_refused_in_one_line(corpus, tmp_path, kind):
    if kind == "directory":
        out = tmp_path / "folder"
        out.mkdir()
        reason = "is a directory"
    elif kind == "socket":
        out = tmp_path / "s"
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(out))
        reason = "is a socket"
    elif kind == "under a file":
        (tmp_path / "blocker").write_text("a file\n")
        out = tmp_path / "blocker" / "c.jsonl"
        reason = "blocker is not a directory"
    else:
        (tmp_path / "folder").mkdir()
        out = tmp_path / "link"
        out.symlink_to(tmp_path / "folder")
        reason = f"links to {tmp_path / 'folder'}, which is a directory"
    before = names_in(tmp_path)
    line = one_error_line(wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(out)))
    assert line.startswith(f"wikisilver export: error: {out}: ") and reason in line, line
    assert names_in(tmp_path) == before


def test_parquet_and_models_need_a_regular_file(corpus, model, tmp_path):
    line = one_error_line(wikisilver("tag", str(tmp_path / "in.jsonl"), "--model", str(model), "--out", "-",
                                     "--out-format", "parquet"))
    assert line == ("wikisilver tag: error: standard output: is standard output: the parquet format needs a "
                    "regular file to write; name a file")
    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)
    line = one_error_line(wikisilver("train", "--corpus", str(corpus), "--model", str(fifo)))
    assert line.endswith("is a named pipe: a model needs a regular file to write; name a file")


# A process per command: two in the developer loop, all in the full run.
@pytest.mark.parametrize("command", ["export", "train"] + [pytest.param(c, marks=pytest.mark.slow) for c in
                                                           ("split", "tag", "gazetteers", "report", "evaluate", "download")])
def test_an_unwritable_destination_fails_before_the_input_is_read(model, tmp_path, command):
    """Each command names its destination in one line, exit 2, though its input does not even
    exist: the destination is checked first."""
    (tmp_path / "blocker").write_text("a file, not a folder\n")
    dest = str(tmp_path / "blocker" / "out")
    missing = str(tmp_path / "no-such-input")
    args = {
        "export": ["export", missing, "--format", "jsonl", "--out", dest],
        "split": ["split", "--corpus", missing, "--out", dest],
        "tag": ["tag", missing, "--model", str(model), "--out", dest],
        "gazetteers": ["gazetteers", "--corpus", missing, "--out", dest],
        "train": ["train", "--corpus", missing, "--model", dest],
        "report": ["report", missing, "--out", dest],
        "evaluate": ["evaluate", "--model", str(model), "--gold", missing, "--json", dest],
        "download": ["download", "--lang", "xx", "--out", dest, "--base-url", "http://127.0.0.1:9"],
    }[command]
    line = one_error_line(wikisilver(*args))
    assert line.startswith(f"wikisilver {command}: error: {dest}") and "blocker is not a directory" in line, line


def test_train_checks_its_three_files_before_training(tmp_path):
    conll = tmp_path / "train.conll"
    from tool_support import TRAINING_CONLL

    conll.write_text(TRAINING_CONLL, encoding="utf-8")
    (tmp_path / "m.crf.meta.json").mkdir()  # the model's meta file cannot be written
    done = wikisilver("train", "--corpus", str(conll), "--model", str(tmp_path / "m.crf"), "--max-iterations", "500")
    line = one_error_line(done)  # one line: not even the "features of … sentences" progress line
    assert line == f"wikisilver train: error: {tmp_path / 'm.crf.meta.json'}: is a directory: --model names the file to write"
    assert not (tmp_path / "m.crf").exists()


@pytest.mark.skipif(AS_ROOT, reason="root may write in any folder: permissions cannot refuse it")
def test_a_folder_without_write_permission_fails_before_work(corpus, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        line = one_error_line(wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(locked / "c.jsonl")))
        assert line.endswith(f"cannot write in folder {locked} (permission denied)")
        line = one_error_line(wikisilver("split", "--corpus", str(corpus), "--out", str(locked / "sides")))
        assert line.endswith(f"cannot create folder {locked / 'sides'} in {locked} (permission denied)")
    finally:
        locked.chmod(0o755)


@pytest.mark.skipif(AS_ROOT, reason="root may write any file: a read-only mode does not stop it")
def test_a_read_only_file_is_not_replaced(corpus, tmp_path):
    out = tmp_path / "c.jsonl"
    out.write_text("keep me\n")
    out.chmod(0o444)
    line = one_error_line(wikisilver("export", str(corpus), "--format", "jsonl", "--out", str(out)))
    assert line.endswith("is read-only: not replacing it") and out.read_text() == "keep me\n"


def test_a_failed_run_leaves_the_old_file_and_no_temporary_one(model, tmp_path):
    out = tmp_path / "tagged.jsonl"
    out.write_text("the previous run's\n", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "John lives in Paris."}\n{oops\n', encoding="utf-8")
    line = one_error_line(wikisilver("tag", str(bad), "--model", str(model), "--out", str(out)))
    assert line.endswith("bad.jsonl:line 2: invalid JSON (Expecting property name enclosed in double quotes)")
    assert out.read_text(encoding="utf-8") == "the previous run's\n"
    assert names_in(tmp_path) == ["bad.jsonl", "tagged.jsonl"]


# --------------------------------------------------------------------------- the function itself


def test_check_output_says_what_a_destination_is(tmp_path):
    assert check_output("-").is_stdout
    assert check_output(tmp_path / "new.txt").kind == FILE
    link = tmp_path / "null"
    link.symlink_to(os.devnull)
    assert check_output(link).kind == STREAM and check_output(link).target == os.devnull
    with pytest.raises(OutputError, match="is a character device: the parquet format needs a regular file"):
        check_output(link, stream=False, what="the parquet format")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(OutputError, match="too many levels of symbolic links"):
        check_output(loop)


def test_open_output_streams_to_a_device_and_leaves_it_alone(tmp_path):
    link = tmp_path / "null"
    link.symlink_to(os.devnull)
    with open_output(link) as handle:
        handle.write("nothing\n")
    assert link.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_check_output_refuses_what_it_may_not_write(tmp_path, monkeypatch):
    """The permission checks, wherever the tests run (root may write anything: os.access, which the
    checks ask, is made to say no for one folder and one file)."""
    locked, read_only = tmp_path / "locked", tmp_path / "read-only.txt"
    locked.mkdir()
    read_only.write_text("keep me\n")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) not in (str(locked), str(read_only))
                        and real_access(path, mode))
    with pytest.raises(OutputError, match=r"cannot write in folder .*locked \(permission denied\)"):
        check_output(locked / "c.jsonl")
    with pytest.raises(OutputError, match=r"cannot create folder .*locked/a/b in .*locked \(permission denied\)"):
        check_output(locked / "a" / "b" / "c.jsonl")
    with pytest.raises(OutputError, match="is read-only: not replacing it"):
        check_output(read_only)
