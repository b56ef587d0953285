"""Shared fixtures: the real data in ../shared/data (skipped with a clear message when absent), and
the demo corpus, built once per test session."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"


def pytest_configure(config) -> None:
    # Parsed ontologies are cached (wikisilver.ontology.cache_dir); tests keep theirs out of ~/.cache.
    os.environ.setdefault("WIKISILVER_CACHE_DIR", tempfile.mkdtemp(prefix="wikisilver-test-cache-"))


def shared_file(relative: str) -> Path:
    """Path of a file under ../shared/data, or skip the test saying which file is missing."""
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"shared data not available: {path} (tests read real data from ../shared/data)")
    return path


@pytest.fixture
def shared() -> "callable":
    return shared_file


@pytest.fixture(scope="session")
def demo_corpus(tmp_path_factory) -> Path:
    """The demo corpus as ``wikisilver build --demo --out DIR`` writes it (defaults otherwise).

    Shared by every test that reads it: a test must not write into it.
    """
    from wikisilver.cli import main

    out = tmp_path_factory.mktemp("demo") / "corpus"
    assert main(["build", "--demo", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="session")
def real_types() -> dict:
    """Both DBpedia type samples read once per session: per file, its TripleReadStats and each
    title's classes in file order (shared by the tests of the reader and of typing)."""
    import collections

    from wikisilver.entities.rdf import TripleReadStats, iter_instance_types

    result = {}
    for name in (TYPES_100K, TYPES_111K):
        stats = TripleReadStats()
        classes: dict[str, list[str]] = collections.defaultdict(list)
        for title, cls in iter_instance_types(str(shared_file(name)), stats):
            classes[title].append(cls)
        result[name] = (stats, dict(classes))
    return result


ENWIKI_EXTRACT = "wikidumps/gensim_enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2"
ONTOLOGY = "dbpedia/ontology/dbo-snapshots.owl"
TYPES_100K = "dbpedia/types/db100k-types.nt.bz2"
TYPES_111K = "dbpedia/types/db111k-types.nt.bz2"
