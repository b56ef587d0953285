"""Progress of a remote job: a runner whose ``run()`` returns while the job runs (Dataflow, Flink,
Spark through the job service) is followed through its counters, logged with their rates.

The local runner returns a finished job and reports progress from its workers
(wikisilver.progress); this thread only reads the runner's metrics, never waits for the job.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping

from wikisilver.pipelines.common import NAMESPACE

log = logging.getLogger(__name__)

# Counters logged while a remote job runs; a name also sums its parts ("pages_rejected.parse_error").
FOLLOWED_COUNTERS = ("pages_read", "articles_cleaned", "sentences_kept", "sentences_written", "pages_rejected")


def followed_totals(found: Iterable) -> dict[str, int]:
    """The followed counters' totals from a metrics query (a counter may be reported per step)."""
    totals: dict[str, int] = {}
    for result in found:
        name = result.key.metric.name
        for followed in FOLLOWED_COUNTERS:
            if name == followed or name.startswith(f"{followed}."):
                totals[followed] = totals.get(followed, 0) + int(result.committed or result.attempted or 0)
    return totals


def log_job_progress(result, previous: Mapping[str, int], since: float) -> tuple[dict[str, int], float]:
    """One look at a running job's counters: log them with their rates since the last look."""
    from apache_beam.metrics.metric import MetricsFilter

    totals = followed_totals(result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["counters"])
    now = time.monotonic()
    parts = []
    for name in FOLLOWED_COUNTERS:
        if name in totals:
            rate = (totals[name] - previous.get(name, 0)) / max(now - since, 1e-9)
            parts.append(f"{name} {totals[name]:,} ({rate:.1f}/s)")
    if parts:
        log.info("progress: %s", ", ".join(parts))
    return totals, now


class JobFollower(threading.Thread):
    """Logs a remote job's counters every ``interval`` seconds until stopped (Dataflow, Flink, Spark
    through the job service). It only reads ``result.metrics()``: waiting for the job stays with the
    caller's single ``wait_until_finish()``, so the runner's own streams are never read twice."""

    def __init__(self, result, interval: float) -> None:
        super().__init__(name="wikisilver-progress", daemon=True)
        self.result = result
        self.interval = interval
        self.stopped = threading.Event()

    def run(self) -> None:
        previous: dict[str, int] = {}
        since = time.monotonic()
        while not self.stopped.wait(self.interval):
            try:
                previous, since = log_job_progress(self.result, previous, since)
            except Exception as error:  # noqa: BLE001 - progress is best effort, never fails a run
                log.debug("cannot read the job's counters: %s", error)

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)
