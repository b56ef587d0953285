"""Memory, in one place: a job's process hands back what it frees.

Beam's local runner holds a stage's whole input (its grouped elements, as objects, then encoded,
then copied into the worker's message) and frees it when the stage ends. glibc's malloc keeps
freed memory for reuse, and by default raises its mmap threshold to the largest block freed, so
that later large blocks come from the heap too and stay there when freed: the process's resident
size then follows every stage's high-water mark, not what is live. These settings are glibc's own
(``mallopt``, the same as its ``MALLOC_*`` environment variables): at most two arenas, blocks of
256 kB and more mapped on their own (and unmapped when freed), the heap trimmed once 1 MB at its
top is free. They also go into the environment, so the worker processes a multi-process local
runner starts (and a job server) inherit them. A setting the user made in the environment is kept.

Where they count, and what they cost: docs/performance.md, "Memory" (the one-worker build's peak
RSS on the 8x input over the 1x input, ``benchmarks/vs_wikiextractor.py``). Not glibc (macOS,
musl): nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

# glibc's mallopt parameters (malloc.h) and the environment variable that sets each.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
SETTINGS = (
    ("MALLOC_ARENA_MAX", _M_ARENA_MAX, 2),
    ("MALLOC_MMAP_THRESHOLD_", _M_MMAP_THRESHOLD, 256 * 1024),
    ("MALLOC_TRIM_THRESHOLD_", _M_TRIM_THRESHOLD, 1024 * 1024),
)


def hand_back_freed_memory() -> dict[str, int]:
    """Apply :data:`SETTINGS` to this process and its children-to-be; the settings applied (none
    where the C library is not glibc, or where the user set them)."""
    mallopt = _glibc_mallopt()
    applied = {}
    if mallopt is None:
        return applied
    for variable, parameter, value in SETTINGS:
        if variable in os.environ:  # the user's choice
            continue
        if mallopt(parameter, value) == 1:
            os.environ[variable] = str(value)
            applied[variable] = value
    return applied


def _glibc_mallopt():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version  # noqa: B018 - glibc only: musl has mallopt but not these settings
    except (OSError, AttributeError):
        return None
    mallopt = libc.mallopt
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt
