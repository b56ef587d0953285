"""The process-tree sampler of the benchmarks (throughput.py, engines.py): what a command and
everything it started used, read from /proc while it runs."""

from __future__ import annotations

import os
import threading

TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


class TreeSampler(threading.Thread):
    """Polls /proc for the process tree of one child: the CPU of every process seen (so workers
    that are killed rather than reaped still count), each one's command line and peak RSS (VmHWM,
    which the kernel keeps for the life of a process, so a sampling gap loses only its last
    interval), and the largest summed RSS."""

    def __init__(self, root: int, interval: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval = interval
        self.cpu_ticks: dict[int, int] = {}
        self.commands: dict[int, str] = {}
        self.peak_kb: dict[int, int] = {}
        self.peak_tree_rss = 0
        self.peak_worker_rss = 0  # largest process below the stage's own (Beam's SDK workers)
        self.done = threading.Event()

    @staticmethod
    def _stat(pid: int) -> tuple[int, int, int] | None:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            return None
        # After the command name: state ppid ... utime(14) stime(15) ... rss(24), 1-based in proc(5).
        return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[21])

    def _tree(self) -> list[tuple[int, int, int, int]]:
        try:
            return self._tree_by_children()
        except OSError:
            return self._tree_by_scan()

    def _tree_by_children(self) -> list[tuple[int, int, int, int]]:
        # /proc/PID/task/TID/children: cheap, no scan of every process on the machine.
        # Depth 0 is the launcher, 1 the measured command, 2 and more what it started.
        found, frontier = [], [(self.root, 0)]
        while frontier:
            pid, depth = frontier.pop()
            stat = self._stat(pid)
            if stat is None:
                continue
            found.append((pid, stat[1], stat[2], depth))
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    frontier.extend((int(child), depth + 1) for child in handle.read().split())
        return found

    def _tree_by_scan(self) -> list[tuple[int, int, int, int]]:
        stats = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                stat = self._stat(int(name))
                if stat:
                    stats[int(name)] = stat
        depths, frontier, depth = {}, {self.root}, 0
        while frontier:
            depths.update((pid, depth) for pid in frontier)
            frontier = {pid for pid, (ppid, _, _) in stats.items() if ppid in frontier and pid not in depths}
            depth += 1
        return [(pid, stats[pid][1], stats[pid][2], d) for pid, d in depths.items() if pid in stats]

    def _note(self, pid: int) -> None:
        """The command line of a process new to the sampler, and its peak RSS so far."""
        try:
            if pid not in self.commands:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    self.commands[pid] = handle.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/status") as handle:
                hwm = next((int(line.split()[1]) for line in handle if line.startswith("VmHWM:")), 0)
        except OSError:  # it ended since it was seen
            return
        self.peak_kb[pid] = max(self.peak_kb.get(pid, 0), hwm)

    def run(self) -> None:
        while not self.done.is_set():
            tree = self._tree()
            for pid, ticks, _, _ in tree:
                self.cpu_ticks[pid] = max(self.cpu_ticks.get(pid, 0), ticks)
                self._note(pid)
            self.peak_tree_rss = max(self.peak_tree_rss, sum(rss for _, _, rss, _ in tree) * PAGE_SIZE)
            workers = [rss for _, _, rss, depth in tree if depth >= 2]
            if workers:
                self.peak_worker_rss = max(self.peak_worker_rss, max(workers) * PAGE_SIZE)
            self.done.wait(self.interval)

    @property
    def cpu_s(self) -> float:
        return sum(self.cpu_ticks.values()) / TICKS
