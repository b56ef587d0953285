"""Which Beam runner (engine) a job runs on, and what that runner needs before it starts.

wikisilver downloads nothing at run time, but three of Beam's runners would: the Flink and Spark
runners fetch their job-server jar from Maven Central unless given one, and the Prism runner
fetches its binary from GitHub unless given one. So a job on them is refused, before any work,
unless the local file is given: the command that fetches it once (the Flink job server:
``scripts/fetch_job_server.sh flink``) is the user's to run, as any other install step.

A runner is named as Beam names it (``FlinkRunner``, ``flink``, ``flinkrunner``: case and the
``Runner`` suffix do not matter); a job service already running (``--runner PortableRunner
--job_endpoint HOST:PORT``) needs nothing here.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from wikisilver.errors import InputError


@dataclass(frozen=True)
class LocalArtifact:
    """What a runner would download: the Beam option that names the local file instead, and how to get it."""

    option: str
    what: str
    how: str


NEEDS_LOCAL_FILE = {
    "flink": LocalArtifact("--flink_job_server_jar", "the Flink job-server jar",
                           "fetch it once with scripts/fetch_job_server.sh flink"),
    "spark": LocalArtifact("--spark_job_server_jar", "the Spark job-server jar",
                           "fetch it once with scripts/fetch_job_server.sh spark"),
    "prism": LocalArtifact("--prism_location", "the Prism runner binary",
                           "build it with `go install github.com/apache/beam/sdks/v2/go/cmd/prism@v2.77.0`"),
}


def runner_name(beam_args: Sequence[str]) -> str:
    """The runner ``--runner`` names, as :func:`normalize_runner` writes it."""
    return normalize_runner(_parse(beam_args, "--runner"))


def normalize_runner(value: str | None) -> str:
    """A runner's name in lower case without ``Runner`` (``"direct"`` for None; a dotted class path
    is kept as given)."""
    value = value or "DirectRunner"
    if "." in value:
        return value
    return re.sub(r"runner$", "", value.lower()) or value.lower()


def one_local_worker(beam_args: Sequence[str]) -> bool:
    """Whether the job runs on Beam's local runner with one worker (its default): nothing to
    spread work over, so the job need not shuffle its pages to spread them."""
    workers = _parse(beam_args, "--direct_num_workers")
    return runner_name(beam_args) == "direct" and (workers is None or workers.strip() == "1")


def check_runner(beam_args: Sequence[str]) -> None:
    """Refuse a runner that would download at run time: its local file must be given and exist."""
    need = NEEDS_LOCAL_FILE.get(runner_name(beam_args))
    if need is None:
        return
    given = _parse(beam_args, need.option)
    if not given:
        raise InputError(None, f"--runner {_parse(beam_args, '--runner')} needs {need.what} as a local file "
                               f"({need.option} PATH; wikisilver downloads nothing at run time): {need.how}")
    if not os.path.isfile(given):
        raise InputError(given, f"{need.option}: no such file ({need.how})")


def _parse(beam_args: Sequence[str], option: str) -> str | None:
    """The last value of one Beam option among ``beam_args`` (``--opt VALUE`` or ``--opt=VALUE``)."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument(option, dest="value")
    return parser.parse_known_args(list(beam_args))[0].value
