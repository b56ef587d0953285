"""The one progress reporter: log lines of the pipeline stages, a byte bar for downloads."""

from __future__ import annotations

import io
import logging
import time

import pytest

from wikisilver.progress import Progress


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """A clock the test moves by hand: now[0] is the time Progress reads."""
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    return now


def test_log_lines_give_the_count_so_far_and_the_rate_since_the_last_line(clock, caplog):
    progress = Progress("read", "pages", 30.0)
    with caplog.at_level(logging.INFO, logger="wikisilver.progress"):
        progress.add(1_000)  # the clock starts at the first element
        clock[0] += 10.0
        progress.add(119_000)  # before the interval: no line
        clock[0] += 20.0
        progress.add(3_000)
        clock[0] += 40.0
        progress.add(8_000)
    assert [r.getMessage() for r in caplog.records] == [
        "read: 123,000 pages on this worker so far, 4100.0 pages/s",
        "read: 131,000 pages on this worker so far, 200.0 pages/s",
    ]


def test_interval_zero_is_silent(clock, caplog):
    progress = Progress("label", "articles", 0)
    with caplog.at_level(logging.INFO, logger="wikisilver.progress"):
        for _ in range(3):
            progress.add()
            clock[0] += 100.0
    assert caplog.records == []


def test_bar_draws_on_a_terminal_only(clock):
    shown = io.StringIO()
    bar = Progress.terminal_bar("file.bz2", 2048, shown, enabled=True)
    bar.add(1024)
    clock[0] += 1.0
    bar.close()
    assert shown.getvalue() == "\rfile.bz2 [############............]  50.0% 1.0 KiB/2.0 KiB 1.0 KiB/s  \n"
    silent = io.StringIO()  # StringIO is not a TTY: auto means quiet
    bar = Progress.terminal_bar("file.bz2", 2048, silent)
    bar.add(2048)
    bar.close()
    assert silent.getvalue() == ""


def test_bar_without_a_size_shows_bytes_and_starts_over_on_restart(clock):
    shown = io.StringIO()
    bar = Progress.terminal_bar("types.ttl.bz2", None, shown, enabled=True, done=5 * 1024**2)
    bar.restart()
    bar.add(3 * 1024**3)
    clock[0] += 2.0
    bar.add(0)
    assert shown.getvalue() == "\rtypes.ttl.bz2 3.0 GiB 1.5 GiB/s  "
