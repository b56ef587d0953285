"""What a new user sees when they get something wrong: the wikisilver command run as a user runs it
(a subprocess, real files), its exit code, the one line on stderr, and nothing half-written."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from conftest import ENWIKI_EXTRACT, REPO, TYPES_100K, TYPES_111K, shared_file
from wikisilver.config.resolve import demo_inputs

DEMO_DUMP, DEMO_TYPES = demo_inputs()


def wikisilver(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wikisilver.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)


def error_line(result: subprocess.CompletedProcess) -> str:
    """The one line a failing command printed (and that it printed only that)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def warnings_of(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if " WARNING " in line]


# --------------------------------------------------------------------------- --lang


@pytest.mark.slow
def test_unknown_language_fails_in_one_line_before_any_work(tmp_path):
    result = wikisilver("build", "--demo", "--lang", "xx", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 2
    assert error_line(result) == ("wikisilver build: error: --lang 'xx' is not a Wikipedia language code "
                                  "(e.g. en, hu, zh-yue; the list is mappings/wikipedias.txt)")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_language_without_pack_and_wrong_header_warn_but_build(tmp_path):
    out = tmp_path / "out"
    result = wikisilver("build", "--demo", "--lang", "nl", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    warned = warnings_of(result)
    assert any("--lang nl, but the <siteinfo> of" in w and "says enwiki" in w for w in warned), warned
    assert any("no language pack for nl in mappings/nl/" in w and "POS to X" in w for w in warned), warned
    assert (out / "manifest.json").exists()
    assert "apache_beam" not in result.stderr  # Beam's own INFO lines stay hidden without -v


@pytest.mark.slow
def test_huwiki_minidump_header_says_enwiki_a_warning_not_a_failure(tmp_path):
    dump = shared_file("wikidumps/huwiki-minidump.xml.bz2")
    out = tmp_path / "out"
    result = wikisilver("build", "--dump", str(dump), "--lang", "hu", "--types", DEMO_TYPES, "--out", str(out),
                        cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    warned = warnings_of(result)
    assert "--lang hu, but the <siteinfo> of" in warned[0] and "says enwiki" in warned[0]
    # The demo's types are English DBpedia resources, looked up as Hungarian titles: said too.
    assert len(warned) == 2 and "its titles are en DBpedia resources" in warned[1]
    assert "no language pack" not in result.stderr  # hu has one
    assert (out / "manifest.json").exists()


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize("typo, meant", [("--overwite", "--overwrite"), ("--drop-low-qualty", "--drop-low-quality"),
                                         ("--direct_num_worker", "--direct_num_workers")])
@pytest.mark.slow
def test_typoed_option_fails_with_a_suggestion(tmp_path, typo, meant):
    result = wikisilver("build", "--demo", typo, "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 2
    assert error_line(result) == f"wikisilver build: error: unknown option {typo} (did you mean {meant}?)"
    assert not (tmp_path / "out").exists()


def test_unknown_option_of_a_command_without_beam_is_one_line(tmp_path):
    result = wikisilver("export", str(tmp_path), "--format", "jsonl", "--out", str(tmp_path / "x.jsonl"),
                        "--exclude-low-qualty", cwd=tmp_path)
    assert result.returncode == 2
    assert error_line(result) == ("wikisilver export: error: unknown option --exclude-low-qualty "
                                  "(did you mean --exclude-low-quality?)")


@pytest.mark.slow
def test_beam_options_pass_and_quiet_after_the_command(tmp_path):
    out = tmp_path / "out"
    result = wikisilver("build", "--demo", "--out", str(out), "--direct_num_workers=1", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # -q after the command: no INFO lines (and no Beam line at all)
    assert (out / "manifest.json").exists()


@pytest.mark.slow
def test_verbose_brings_beams_info_lines_back(tmp_path):
    result = wikisilver("build", "--demo", "--out", str(tmp_path / "out"), "-v", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert " INFO apache_beam" in result.stderr


@pytest.mark.slow
def test_missing_spacy_pipeline_fails_before_any_work(tmp_path):
    result = wikisilver("build", "--demo", "--text-backend", "spacy:missing", "--out", str(tmp_path / "out"),
                        cwd=tmp_path)
    assert result.returncode == 2
    line = error_line(result)
    assert line.startswith("wikisilver build: error: spaCy pipeline 'missing' is not installed")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_option_out_of_range_is_one_line_without_input_prefix(tmp_path):
    result = wikisilver("build", "--demo", "--page-timeout", "0", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 2
    assert error_line(result) == "wikisilver build: error: --page-timeout must be above 0, not 0.0"
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- files


@pytest.mark.slow
def test_directory_as_dump_says_it_is_a_directory(tmp_path):
    result = wikisilver("build", "--dump", str(tmp_path), "--types", DEMO_TYPES, "--out", str(tmp_path / "out"),
                        cwd=tmp_path)
    assert result.returncode == 2
    assert error_line(result) == f"wikisilver build: error: {tmp_path}: is a directory, not a file"


def test_export_to_an_existing_directory_is_one_line(tmp_path, demo_corpus):
    target = tmp_path / "exports"
    target.mkdir()
    result = wikisilver("export", str(demo_corpus), "--format", "jsonl", "--out", str(target), cwd=tmp_path)
    assert result.returncode == 2
    assert error_line(result) == (f"wikisilver export: error: {target}: is a directory: "
                                  "--out names the file to write")
    assert list(target.iterdir()) == []


@pytest.mark.slow
def test_noop_rerun_says_nothing_to_do_only(tmp_path):
    out = tmp_path / "out"
    assert wikisilver("build", "--demo", "--out", str(out), cwd=tmp_path).returncode == 0
    again = wikisilver("build", "--demo", "--out", str(out), cwd=tmp_path)
    assert again.returncode == 0
    assert again.stdout == ""  # no "corpus written" summary
    assert "nothing to do" in error_line(again)


@pytest.mark.slow
def test_types_in_another_order_are_the_same_build(tmp_path):
    extra = tmp_path / "more-types.nt"
    extra.write_text("<http://dbpedia.org/resource/Nowhere_Land> "
                     "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/Place> .\n")
    out = tmp_path / "out"
    first = wikisilver("build", "--demo", "--types", DEMO_TYPES, "--types", str(extra), "--out", str(out),
                       cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    again = wikisilver("build", "--demo", "--types", str(extra), "--types", DEMO_TYPES, "--out", str(out),
                       cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "nothing to do" in error_line(again)


# --------------------------------------------------------------------------- Ctrl-C


@pytest.mark.slow
def test_ctrl_c_during_a_build_is_one_line_exit_130_and_no_staging(tmp_path):
    out = tmp_path / "out"
    args = ["build", "--dump", str(shared_file(ENWIKI_EXTRACT)), "--lang", "en",
            "--types", str(shared_file(TYPES_100K)), "--types", str(shared_file(TYPES_111K)), "--out", str(out)]
    process = subprocess.Popen([sys.executable, "-m", "wikisilver.cli", *args], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(out.glob(".staging-*")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # inside the pipeline
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == "wikisilver build: interrupted"
    assert "Traceback" not in stderr and " ERROR " not in stderr
    assert list(out.iterdir()) == []  # staging removed, no manifest
    assert stdout == ""


# --------------------------------------------------------------------------- download


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("base_url, reason", [
    ("http://nonexistent.invalid", "cannot resolve the host name"),
    (None, "connection refused"),  # a port closed just before the run, chosen in the test
], ids=["unresolvable", "refused"])  # ids without the port: xdist workers must collect the same tests
def test_download_without_network_fails_at_once(tmp_path, base_url, reason):
    base_url = base_url or f"http://127.0.0.1:{_closed_port()}"
    # Retrying (6 attempts) would take 31 s of backoff; failing at once takes well under the limit.
    result = wikisilver("download", "--lang", "hu", "--out", str(tmp_path / "dl"), "--base-url", base_url,
                        cwd=tmp_path, timeout=25)
    assert result.returncode == 2
    line = error_line(result)
    assert line.startswith(f"wikisilver download: error: {base_url}/huwiki/: {reason}"), line
    assert "retrying" not in result.stderr


# --------------------------------------------------------------------------- install


def test_package_imports_beside_a_folder_named_wikisilver(tmp_path):
    (tmp_path / "wikisilver").mkdir()  # as in the clone's parent directory
    result = subprocess.run([sys.executable, "-c", "import wikisilver; wikisilver.build; print(wikisilver.__file__)"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert not result.stdout.strip().startswith(str(tmp_path))


def test_every_package_folder_is_installed():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {"wikisilver." + ".".join(p.parent.relative_to(REPO / "src" / "wikisilver").parts)
               for p in (REPO / "src" / "wikisilver").rglob("__init__.py")}
    folders = {name.rstrip(".") for name in folders}
    assert folders <= listed, f"add to [tool.setuptools] packages: {sorted(folders - listed)}"


# --------------------------------------------------------------------------- train


@pytest.mark.slow
def test_training_prints_progress_and_final_figures(tmp_path, demo_corpus):
    model = tmp_path / "model.crf"
    result = wikisilver("train", "--corpus", str(demo_corpus), "--model", str(model), "--max-iterations", "6",
                        "--progress-every", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("wikisilver train: features of ") and "training, at most 6 iterations" in lines[0]
    assert [line.split(":")[1].split()[1] for line in lines[1:]] == ["2/6", "4/6", "6/6"]
    assert all(" loss " in line for line in lines[1:])
    assert "6 iterations" in result.stdout and "final loss" in result.stdout
    assert model.exists()


# --------------------------------------------------------------------------- languages, directly


def test_wikipedia_codes_hold_open_closed_and_hyphenated_wikis():
    from wikisilver.languages import wikipedia_codes

    codes = wikipedia_codes()
    assert {"en", "hu", "de", "simple", "zh-yue", "be-tarask", "hz", "ltg"} <= codes
    assert not {"xx", "english", "#"} & codes
    assert len(codes) > 300


def test_language_warnings_name_the_header_and_the_fallbacks():
    from wikisilver.languages import language_warnings

    assert language_warnings("en", "enwiki.xml", "en") == []
    mismatch, no_pack = language_warnings("nl", "x.xml", "en")
    assert "says enwiki" in mismatch and "building as nl" in mismatch
    assert "mappings/default/labels.toml" in no_pack
    assert language_warnings("hu", "huwiki-minidump.xml.bz2", None) == []
