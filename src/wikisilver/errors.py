"""Errors that carry where they happened, so the CLI can print one clear line."""

from __future__ import annotations


class WikisilverError(Exception):
    """Base class: an expected failure the CLI reports as one line, without a traceback."""


class InputError(WikisilverError):
    """A user input (file, option, language) is missing or unusable."""

    def __init__(self, path: str | None, reason: str, position: str | None = None) -> None:
        self.path = path
        self.reason = reason
        self.position = position
        where = path or ""
        if position:
            where = f"{where}:{position}"
        # An error about no file in particular (a bad option) is the reason alone.
        super().__init__(f"{where}: {reason}" if where else reason)


class OutputError(WikisilverError):
    """An output could not be written (a full disk, a lost mount): names the file."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class DumpError(WikisilverError):
    """A dump could not be read at some point: names the file, byte offset and page."""

    def __init__(
        self, path: str, offset: int | None, page_id: int | None, reason: str
    ) -> None:
        self.path = path
        self.offset = offset
        self.page_id = page_id
        self.reason = reason
        parts = [path]
        if offset is not None:
            parts.append(f"byte {offset}")
        if page_id is not None:
            parts.append(f"page {page_id}")
        super().__init__(f"{', '.join(parts)}: {reason}")
