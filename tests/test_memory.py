"""The allocator settings a job's process runs with (wikisilver.memory)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from wikisilver.memory import SETTINGS

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
PROBE = ("import os, json; from wikisilver.memory import hand_back_freed_memory as h; "
         "print(json.dumps([h(), {k: v for k, v in os.environ.items() if k.startswith('MALLOC_')}]))")


def _probe(env: dict[str, str]) -> tuple[dict, dict]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True, check=True)
    applied, environment = json.loads(out.stdout)
    return applied, environment


@pytest.mark.skipif(not GLIBC, reason="the settings are glibc's; elsewhere nothing is done")
def test_a_job_process_hands_freed_memory_back_and_its_workers_inherit_it() -> None:
    applied, environment = _probe({})
    assert applied == {name: value for name, _, value in SETTINGS}
    # the worker processes a local runner starts read the same settings from the environment
    assert environment == {name: str(value) for name, _, value in SETTINGS}


@pytest.mark.skipif(not GLIBC, reason="the settings are glibc's; elsewhere nothing is done")
def test_a_setting_the_user_made_is_kept() -> None:
    applied, environment = _probe({"MALLOC_ARENA_MAX": "8"})
    assert "MALLOC_ARENA_MAX" not in applied
    assert environment["MALLOC_ARENA_MAX"] == "8"
    assert environment["MALLOC_MMAP_THRESHOLD_"] == str(256 * 1024)
