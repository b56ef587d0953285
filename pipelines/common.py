"""What every stage of the jobs shares: the counter namespace, the names of the side outputs, and
the per-worker progress lines."""

from __future__ import annotations

import logging
import time

from apache_beam.metrics import Metrics

NAMESPACE = "wikisilver"
REJECTS = "rejects"
SKIPPED = "skipped"


def counter(name: str):
    return Metrics.counter(NAMESPACE, name)


progress_log = logging.getLogger("wikisilver.progress")


class Progress:
    """One stage's count and rate on one worker, logged every ``interval`` seconds.

    Beam counters hold the totals (and a Dataflow or Flink UI shows them live); these lines show a
    long local run moving, and land in the workers' logs on a cluster. ``interval`` 0: silent.
    """

    def __init__(self, stage: str, unit: str, interval: float) -> None:
        self.stage, self.unit, self.interval = stage, unit, interval
        self.count = self.logged_count = 0
        self.logged_at: float | None = None  # the last line, or the first element

    def add(self, n: int = 1) -> None:
        if self.interval <= 0:
            return
        now = time.monotonic()
        if self.logged_at is None:
            self.logged_at = now
        self.count += n
        if now - self.logged_at >= self.interval:
            rate = (self.count - self.logged_count) / (now - self.logged_at)
            progress_log.info("%s: %s %s on this worker so far, %.1f %s/s", self.stage, f"{self.count:,}",
                              self.unit, rate, self.unit)
            self.logged_at, self.logged_count = now, self.count
