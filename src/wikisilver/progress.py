"""How far a long-running step has come and how fast: the one progress reporter of wikisilver.

One count, two ways to show it. The stages of the Beam jobs (steps 1-5) write a log line every few
seconds on each worker (``read: 120,000 pages on this worker so far, 410.2 pages/s``): it lands in the
workers' logs on a cluster, where no terminal exists. ``wikisilver download`` redraws a bar in place
on a terminal (bytes, share of the file, rate) and stays silent when stderr is a log or a pipe.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO

progress_log = logging.getLogger("wikisilver.progress")

_BAR_INTERVAL_S = 0.1  # a bar redrawn more often only flickers
_BAR_WIDTH = 24


class Progress:
    """A running count of ``unit`` for ``stage``, shown at most every ``interval`` seconds.

    Without a ``bar`` stream each showing is a line on :data:`progress_log` with the rate since the
    line before. With one, it is a bar redrawn in place on that stream with the rate since the
    start; the bar counts bytes. ``interval`` 0: silent. Time starts at the first :meth:`add`, so a
    worker waiting for its input does not lower its rate.
    """

    def __init__(
        self, stage: str, unit: str, interval: float, *, total: int | None = None, done: int = 0,
        bar: TextIO | None = None,
    ) -> None:
        self.stage, self.unit, self.interval = stage, unit, interval
        self.total, self.bar = total, bar
        self.count = self._started_count = self._shown_count = done
        self._started_at: float | None = None
        self._shown_at = 0.0

    @classmethod
    def terminal_bar(
        cls, label: str, total: int | None, stream: TextIO | None = None, *, enabled: bool | None = None,
        done: int = 0,
    ) -> Progress:
        """A byte bar on ``stream`` (stderr by default), drawn only on a terminal unless ``enabled``."""
        stream = stream if stream is not None else sys.stderr
        shown = enabled if enabled is not None else _isatty(stream)
        return cls(label, "B", _BAR_INTERVAL_S if shown else 0.0, total=total, done=done, bar=stream)

    def add(self, n: int = 1) -> None:
        if self.interval <= 0:
            return
        now = time.monotonic()
        if self._started_at is None:
            self._started_at = self._shown_at = now
        self.count += n
        if now - self._shown_at >= self.interval:
            self._show(now)

    def restart(self) -> None:
        """Count from zero again (a download that had to start its file over)."""
        self.count = self._started_count = self._shown_count = 0
        self._started_at = None

    def close(self) -> None:
        """Show the final count; a bar ends its line."""
        if self.bar is not None and self.interval > 0:
            self._show(time.monotonic())
            self.bar.write("\n")
            self.bar.flush()

    def _show(self, now: float) -> None:
        if self.bar is None:
            rate = (self.count - self._shown_count) / (now - self._shown_at)
            progress_log.info("%s: %s %s on this worker so far, %.1f %s/s", self.stage, f"{self.count:,}",
                              self.unit, rate, self.unit)
        else:
            started = self._started_at if self._started_at is not None else now
            rate = (self.count - self._started_count) / max(now - started, 1e-6)
            self.bar.write(f"\r{self.stage} {self._bar_text()} {_size(rate)}/s  ")
            self.bar.flush()
        self._shown_at, self._shown_count = now, self.count

    def _bar_text(self) -> str:
        if not self.total:
            return _size(self.count)
        share = min(self.count / self.total, 1.0)
        filled = int(share * _BAR_WIDTH)
        return (f"[{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {share * 100:5.1f}% "
                f"{_size(self.count)}/{_size(self.total)}")


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _size(count: float) -> str:
    for unit in ("B", "KiB", "MiB"):
        if count < 1024:
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GiB"
