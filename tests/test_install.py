"""What a newcomer meets first: what a plain ``pip install .`` pulls in, the one line an optional
feature prints when its extra is missing, ``--version`` after a command, and ``--tagset fine``
offered only where it works."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata

import pytest
from packaging.requirements import Requirement

from conftest import REPO
from tool_support import TRAINING_CONLL, one_error_line, wikisilver, write_corpus

TEST_STACK = {"pytest", "pytest-xdist", "hypothesis", "oxigraph", "moto", "spacy", "datasets", "boto3", "matplotlib"}


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", Requirement(requirement).name).lower()


def test_a_plain_install_pulls_no_test_stack():
    """The packages a plain install brings, followed through the installed packages' own metadata
    (extras not asked for left out): none of the test stack or of an optional feature's."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    seen: set[str] = set()
    todo = [Requirement(r) for r in project["dependencies"]]
    while todo:
        requirement = todo.pop()
        name = _name(str(requirement))
        if name in seen or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        try:
            todo.extend(Requirement(r) for r in metadata.requires(requirement.name) or ())
        except metadata.PackageNotFoundError:
            pytest.fail(f"{requirement.name} is a dependency but not installed here")
    assert "apache-beam" in seen and len(seen) > 20
    assert not seen & TEST_STACK, sorted(seen & TEST_STACK)
    extras = project["optional-dependencies"]
    assert {_name(r) for r in extras["report"]} == {"matplotlib"}
    assert {_name(r) for r in extras["spacy"]} == {"spacy"}
    assert {_name(r) for r in extras["test"]} >= {"pytest", "pytest-xdist", "matplotlib", "spacy", "datasets", "moto"}


# Runs the CLI as if a package were not installed (an import of it fails, as for a plain install).
WITHOUT = """
import sys
for name in sys.argv.pop(1).split(","):
    sys.modules[name] = None
from wikisilver.cli import main
sys.exit(main(sys.argv[1:]))
"""


def without(modules: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT, modules, *args], capture_output=True, text=True,
                          timeout=120)


def test_a_missing_extra_is_named_in_one_line_before_work(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    line = one_error_line(without("matplotlib", "report", str(tmp_path / "not-read-yet")))
    assert line == "wikisilver report: error: wikisilver report needs matplotlib: pip install 'wikisilver[report]'"
    line = one_error_line(without("spacy,spacy.tokens,spacy.vocab", "export", str(corpus), "--format", "spacy",
                                  "--out", str(tmp_path / "c.spacy")))
    assert line == "wikisilver export: error: the spacy format needs spaCy: pip install 'wikisilver[spacy]'"
    assert not (tmp_path / "c.spacy").exists()


# One process per command: one in the developer loop, all in the full run.
@pytest.mark.parametrize("command", ["build"] + [pytest.param(c, marks=pytest.mark.slow) for c in ("tag", "train", "export")])
def test_version_after_a_command(command):
    done = wikisilver(command, "--version")
    assert done.returncode == 0 and re.fullmatch(r"wikisilver \d+\.\d+\.\d+\S*\n", done.stdout), done


@pytest.mark.slow
def test_tagset_fine_is_for_gold_files_and_refused_for_ours_before_work(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    part = sorted((corpus / "parquet").glob("*.parquet"))[0]
    line = one_error_line(wikisilver("train", "--corpus", str(corpus), "--tagset", "fine", "--model",
                                     str(tmp_path / "m.crf")))
    assert line == (f"wikisilver train: error: {part}: our corpus has no fine tags: --tagset fine is for gold "
                    f"CoNLL files (every type of their NER column); use conll or dbpedia")
    assert not (tmp_path / "m.crf").exists()
    assert "gold files only" in " ".join(wikisilver("gazetteers", "--help").stdout.split())
    gold = tmp_path / "gold.conll"
    gold.write_text(TRAINING_CONLL.replace("B-ORG", "B-COMPANY"), encoding="utf-8")
    done = wikisilver("gazetteers", "--corpus", str(gold), "--tagset", "fine", "--out", "-")
    assert done.returncode == 0, done.stderr
    assert "COMPANY\tGoogle\t1" in done.stdout.splitlines()  # every type of the gold file kept


def _corpus_digest(out) -> dict[str, str]:
    import hashlib

    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name not in ("stats.json", "manifest.json", "README.md")}


@pytest.mark.slow
def test_without_a_c_compiler_the_install_goes_on_and_tags_the_same(tmp_path):
    """The compiled parts (the tagger's greedy loop, the text scans and the TSV's lines, setup.py) are optional:
    with a compiler that always fails, building the package's extensions still succeeds (without
    them), and a build whose extensions are missing writes the demo corpus byte for byte as one with
    them."""
    import os

    env = {**os.environ, "CC": "false", "LDSHARED": "false"}
    built = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "lib"),
                            "--build-temp", str(tmp_path / "tmp")], cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    for name in ("_greedy", "_scan", "_tsv"):  # it said it left each out
        assert name in built.stderr and not list(tmp_path.rglob(f"{name}*.so"))
    fallback = without("wikisilver.text._greedy,wikisilver.text._scan,wikisilver.corpus._tsv", "-q", "build", "--demo",
                       "--out", str(tmp_path / "numpy"))
    compiled = subprocess.run([sys.executable, "-m", "wikisilver.cli", "-q", "build", "--demo", "--out",
                               str(tmp_path / "c")], capture_output=True, text=True, timeout=300)
    assert fallback.returncode == 0 and compiled.returncode == 0, fallback.stderr + compiled.stderr
    digest = _corpus_digest(tmp_path / "c")
    assert any(name.startswith("tsv") for name in digest) and _corpus_digest(tmp_path / "numpy") == digest
