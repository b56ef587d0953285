"""Step 1 inputs, lexical layer: reading ``mysqldump`` output tuple by tuple in bounded memory.

Wikimedia publishes its SQL tables as ``mysqldump`` output: a ``CREATE TABLE`` statement, then
``INSERT INTO `t` VALUES (…),(…);`` lines that can be hundreds of MB each, plain (old dumps) or
gzip-compressed (current dumps). A line is read in 1 MiB pieces and scanned with an anchored regex
per value, a tuple cut by a piece's end parsed again with the next piece, so one line is never held
whole and memory stays flat.

Bad input is counted, not fatal: a tuple that does not parse is skipped (the scan resumes at the
next tuple), a warning names file and line (the first 20 of a file), and :class:`SqlReadStats`
keeps the counts, which the build sums into stats.json ``input_problems``. A file that is not a SQL dump at all raises :class:`InputError`. The typed readers of
the tables wikisilver uses are in :mod:`wikisilver.entities.sql`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from wikisilver.errors import InputError
from wikisilver.files import open_binary

log = logging.getLogger(__name__)

# Warnings per file are capped: a corrupt 2 GB dump must not flood the log.
MAX_WARNINGS = 20

# One value followed by its separator, matched at an exact position (never searched), so a
# value that does not parse is detected rather than silently skipped. The string branch is the
# unrolled form of ('[^'\\]|\\.)*, which the regex engine runs without backtracking.
_VALUE = re.compile(
    rb"""\s*(?:'([^'\\]*(?:\\.[^'\\]*)*)'|(NULL)|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))\s*([,)])""",
    re.DOTALL,
)
_ESCAPE = re.compile(rb"\\(.)", re.DOTALL)
_UNESCAPE = {
    b"0": b"\x00", b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"Z": b"\x1a",
}
_INSERT = re.compile(rb"INSERT INTO `?([^`\s]+)`? (?:\([^)]*\) )?VALUES\s*")
_CREATE = re.compile(rb"CREATE TABLE `?([^`\s]+)`? \(")
_COLUMN = re.compile(rb"\s*`([^`]+)`\s+\w")
# A tuple boundary, to resume after a malformed tuple; may in theory hit inside a string,
# in which case the following tuple is counted as malformed too.
_RESYNC = re.compile(rb"\),\(")
# What a dump may hold before its first CREATE TABLE or INSERT INTO: comments and session settings.
_PREAMBLE = (b"--", b"/*", b"DROP", b"SET", b"LOCK", b"UNLOCK", b"USE", b"#")


@dataclass
class SqlReadStats:
    """Counts of one or more SQL dump reads (mutable: the readers add to it as they go)."""

    lines: int = 0
    insert_lines: int = 0
    rows: int = 0
    malformed_tuples: int = 0
    malformed_lines: int = 0
    decode_errors: int = 0
    skipped_rows: int = 0  # well-formed rows a typed reader dropped (wrong arity, bad id)
    warnings: int = field(default=0, repr=False)

    def problems(self) -> dict[str, int]:
        """What was skipped or mended, by kind (for stats.json ``input_problems``; none: empty)."""
        found = {"malformed_tuples": self.malformed_tuples, "malformed_lines": self.malformed_lines,
                 "decode_errors": self.decode_errors, "skipped_rows": self.skipped_rows}
        return {kind: n for kind, n in found.items() if n}


PIECE = 1 << 20  # bytes read at a time: a 200 MB INSERT line is never held whole
MAX_TUPLE = 16 << 20  # a value tuple longer than this is malformed, not buffered


class _Line:
    """One line of a dump, read in pieces of at most PIECE bytes; ``more()`` gives the next piece
    (b"" at the end of the line)."""

    def __init__(self, path: str, handle, number: int, first: bytes) -> None:
        self.path, self.handle, self.number = path, handle, number
        self.done = first.endswith(b"\n") or len(first) < PIECE

    def more(self) -> bytes:
        if self.done:
            return b""
        try:
            piece = self.handle.readline(PIECE)
        except InputError as error:
            raise InputError(self.path, error.reason, f"line {self.number}") from None
        if piece.endswith(b"\n") or len(piece) < PIECE:
            self.done = True
        return piece


def _lines(path: str) -> Iterator[tuple[int, bytes, _Line]]:
    """(number, first piece, the rest) of each line of a plain or gzip SQL dump; the rest of a line
    the caller did not read is skipped. A broken gzip stream ends in one clear InputError."""
    with open_binary(path) as handle:
        number = 0
        while True:
            try:
                first = handle.readline(PIECE)
            except InputError as error:
                raise InputError(path, error.reason, f"line {number + 1}") from None
            if not first:
                return
            number += 1
            line = _Line(path, handle, number, first)
            yield number, first, line
            while line.more():
                pass


class _Reader:
    """Scans one dump file; holds the per-file warning budget."""

    def __init__(self, path: str, stats: SqlReadStats | None) -> None:
        self.path = path
        self.stats = stats if stats is not None else SqlReadStats()
        self.warned = 0

    def warn(self, line_number: int, message: str) -> None:
        self.stats.warnings += 1
        self.warned += 1
        if self.warned <= MAX_WARNINGS:
            log.warning("%s:%d: %s", self.path, line_number, message)
        elif self.warned == MAX_WARNINGS + 1:
            log.warning("%s: more problems, further warnings suppressed", self.path)

    def decode(self, raw: bytes, line_number: int) -> str:
        if b"\\" in raw:
            raw = _ESCAPE.sub(lambda m: _UNESCAPE.get(m.group(1), m.group(1)), raw)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as err:
            self.stats.decode_errors += 1
            self.warn(line_number, f"invalid UTF-8 in a value ({err.reason} at byte {err.start}); replaced")
            return raw.decode("utf-8", errors="replace")

    def tuples(
        self, buf: bytes, line: _Line, pos: int, keep: frozenset[int] | None = None
    ) -> Iterator[tuple]:
        """The value tuples of one INSERT line, from ``pos`` of its first piece ``buf`` (just after
        VALUES), reading the rest of the line as it goes: at most a tuple and a piece in memory.

        Values at positions outside ``keep`` are checked but not converted (they come back as
        None): the tables of a full dump have many columns that no caller reads.
        """
        stats, line_number = self.stats, line.number
        buf = buf.rstrip(b"\r\n") if line.done else buf
        after_tuple = False
        while True:
            if len(buf) - pos < 2 and not line.done:
                buf, pos = buf[pos:] + line.more(), 0
                buf = buf.rstrip(b"\r\n") if line.done else buf
            if after_tuple and buf[pos : pos + 1] == b",":  # the ',' may begin the next piece
                pos += 1
            if buf[pos : pos + 1] != b"(":
                tail = buf[pos:].strip()
                if tail not in (b";", b"") or not line.done:
                    stats.malformed_lines += 1
                    self.warn(line_number, f"unexpected text after the last tuple at byte {pos + 1} of a piece")
                return
            parsed = self._tuple(buf, pos + 1, keep, line_number)
            while parsed is None and not line.done and len(buf) - pos < MAX_TUPLE:
                # The tuple may go on in the next piece: read it and parse the tuple again.
                buf, pos = buf[pos:] + line.more(), 0
                buf = buf.rstrip(b"\r\n") if line.done else buf
                parsed = self._tuple(buf, pos + 1, keep, line_number)
            if parsed is None:
                stats.malformed_tuples += 1
                self.warn(line_number, "malformed value tuple; skipped")
                buf, pos = self._resync(buf, pos + 1, line)
                if pos is None:
                    return
                continue
            values, pos = parsed
            stats.rows += 1
            yield tuple(values)
            after_tuple = True

    def _tuple(self, buf: bytes, pos: int, keep: frozenset[int] | None, line_number: int) -> tuple[list, int] | None:
        """The values of the tuple whose '(' is just before ``pos``, and where it ends; None if it
        does not parse (or does not end) within ``buf``. Nothing is converted before the tuple is
        whole: a tuple cut by a piece's end is parsed again, and must not count its bad UTF-8 twice."""
        found: list[tuple] = []
        match_value = _VALUE.match
        while True:
            m = match_value(buf, pos)
            if m is None:
                return None
            found.append(m.groups())
            pos = m.end()
            if found[-1][3] == b")":
                return self._values(found, keep, line_number), pos

    def _values(self, found: list[tuple], keep: frozenset[int] | None, line_number: int) -> list:
        """Python values of one whole tuple's matched values (None outside ``keep``)."""
        values: list = []
        for raw, null, number, _sep in found:
            if keep is not None and len(values) not in keep:
                values.append(None)
            elif raw is not None:
                values.append(self.decode(raw, line_number))
            elif null is not None:
                values.append(None)
            elif b"." in number or b"e" in number or b"E" in number:
                values.append(float(number))
            else:
                values.append(int(number))
        return values

    @staticmethod
    def _resync(buf: bytes, pos: int, line: _Line) -> tuple[bytes, int | None]:
        """Where the next tuple starts after a malformed one, reading on through the line."""
        while True:
            found = _RESYNC.search(buf, pos)
            if found is not None:
                return buf, found.start() + 2
            if line.done:
                return buf, None
            buf, pos = buf[-2:] + line.more(), 0


def scan(
    path: str, stats: SqlReadStats | None, wanted: tuple[str, ...] | None = None
) -> Iterator[tuple[str, list[str] | None, tuple]]:
    """(table, columns, row) for every row of a dump; InputError if the file is no SQL dump.

    With ``wanted`` column names, only those columns are converted (others read as None).
    """
    reader = _Reader(path, stats)
    stats = reader.stats
    columns: dict[str, list[str]] = {}
    creating: tuple[str, list[str]] | None = None
    seen_sql = False
    for number, line, rest in _lines(path):
        stats.lines += 1
        if creating is not None:
            if line.startswith(b")"):
                columns[creating[0]] = creating[1]
                creating = None
                continue
            col = _COLUMN.match(line)
            if col:
                creating[1].append(col.group(1).decode("utf-8", "replace"))
            continue
        if line.startswith(b"INSERT INTO"):
            seen_sql = True
            stats.insert_lines += 1
            m = _INSERT.match(line)
            if m is None:
                stats.malformed_lines += 1
                reader.warn(number, "INSERT statement without VALUES; line skipped")
                continue
            table = m.group(1).decode("utf-8", "replace")
            keep = None
            if wanted is not None and table in columns:
                keep = frozenset(i for i, name in enumerate(columns[table]) if name in wanted)
            for row in reader.tuples(line, rest, m.end(), keep):
                yield table, columns.get(table), row
            continue
        if line.startswith(b"CREATE TABLE"):
            seen_sql = True
            m = _CREATE.match(line)
            if m:
                creating = (m.group(1).decode("utf-8", "replace"), [])
            continue
        if not seen_sql and number <= 200:
            stripped = line.strip()
            if stripped and not stripped.startswith(_PREAMBLE):
                raise InputError(path, "not a MySQL table dump (expected CREATE TABLE/INSERT INTO)", f"line {number}")
    if not seen_sql:
        raise InputError(path, "not a MySQL table dump: no CREATE TABLE or INSERT INTO statement")


def check_table(path: str, table: str) -> None:
    """Before any work: the dump's first statement is a CREATE TABLE or INSERT INTO of ``table``,
    else one InputError naming file and line (the lines are read in bounded pieces)."""
    for number, line, _rest in _lines(path):
        found = _CREATE.match(line) or _INSERT.match(line)
        if found:
            name = found.group(1).decode("utf-8", "replace")
            if name != table:
                raise InputError(path, f"a dump of table `{name}`, not `{table}`", f"line {number}")
            return
        stripped = line.strip()
        if number > 200 or (stripped and not stripped.startswith(_PREAMBLE)):
            raise InputError(path, f"not a MySQL dump of table `{table}` (expected CREATE TABLE or INSERT INTO)",
                             f"line {number}")
    raise InputError(path, f"not a MySQL dump of table `{table}`: no CREATE TABLE or INSERT INTO statement")


def iter_rows(path: str, stats: SqlReadStats | None = None) -> Iterator[tuple]:
    """Every value tuple of every INSERT in a dump, as Python values (str, int, float, None)."""
    for _table, _columns, row in scan(path, stats):
        yield row


def table_columns(path: str) -> list[str]:
    """Column names of the (first) table in a dump, from its CREATE TABLE statement."""
    creating: list[str] | None = None
    for _number, line, _rest in _lines(path):
        if creating is not None:
            if line.startswith(b")"):
                return creating
            col = _COLUMN.match(line)
            if col:
                creating.append(col.group(1).decode("utf-8", "replace"))
        elif line.startswith(b"CREATE TABLE"):
            creating = []
        elif line.startswith(b"INSERT INTO"):
            break
    raise InputError(path, "no CREATE TABLE statement: cannot tell the columns")
