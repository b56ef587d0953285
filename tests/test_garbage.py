"""The collector thresholds a job's processes run with (wikisilver.garbage)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from wikisilver.garbage import DEFAULT, THRESHOLDS

PROBE = """
import gc, json, sys
before = {before}
if before == "disabled":
    gc.disable()
elif before is not None:
    gc.set_threshold(*before)
{call}
print(json.dumps([gc.get_threshold(), gc.isenabled()]))
"""
APPLY = "from wikisilver.garbage import collect_garbage_less_often; collect_garbage_less_often()"
# the labelling step's set-up, as a distributed runner's worker process runs it
LABEL_SETUP = ("from wikisilver.pipelines.label import _LabelArticle; from wikisilver.labels import LabelConfig; "
               "_LabelArticle('en', 'builtin', LabelConfig()).setup()")


def _probe(before, call: str) -> tuple[tuple[int, ...], bool]:
    code = PROBE.format(before=repr(before), call=call)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    thresholds, enabled = json.loads(out.stdout)
    return tuple(thresholds), enabled


def test_a_job_process_collects_less_often() -> None:
    assert _probe(None, "pass") == (DEFAULT, True)  # CPython's own, which the module recognizes
    assert _probe(None, APPLY) == (THRESHOLDS, True)
    assert THRESHOLDS[0] > DEFAULT[0] and THRESHOLDS[1] >= DEFAULT[1]


def test_a_worker_process_gets_them_from_the_labelling_step() -> None:
    assert _probe(None, LABEL_SETUP) == (THRESHOLDS, True)


@pytest.mark.parametrize("choice", [(1000, 10, 10), (700, 5, 5), "disabled"])
def test_a_setting_the_user_made_is_kept(choice) -> None:
    expected = (DEFAULT, False) if choice == "disabled" else (choice, True)
    assert _probe(choice, APPLY) == expected


def _build(out: Path, thresholds: str) -> dict[str, str]:
    """A demo build in its own process, with the collector's thresholds the user set (or none);
    the digest of every corpus file but the timestamped ones."""
    code = (f"import gc, sys; {thresholds}; from wikisilver.cli import main; "
            f"sys.exit(main(['-q', 'build', '--demo', '--out', {str(out)!r}]))")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and p.name not in ("stats.json", "manifest.json", "README.md")}


@pytest.mark.slow
def test_when_the_collector_runs_never_changes_a_corpus(tmp_path) -> None:
    # the user's choice is kept, so a threshold of 1 (a collection at nearly every allocation)
    # builds beside the job's own thresholds: the same bytes
    tuned = _build(tmp_path / "tuned", "pass")
    eager = _build(tmp_path / "eager", "gc.set_threshold(1, 1, 1)")
    assert tuned and any(name.startswith("tsv") for name in tuned)
    assert eager == tuned
