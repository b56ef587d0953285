"""Step 1 of the method, its output: the entity table (title, class, tags, source, aliases) that the
``wikisilver entities`` job writes and a later build reads back with ``--entities`` (TSV or Parquet).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from wikisilver import paths
from wikisilver.entities.rdf import open_text
from wikisilver.errors import InputError
from wikisilver.records import TargetInfo

ENTITY_COLUMNS = ("title", "dbpedia_class", "conll", "fine", "source", "aliases")
ALIAS_SEPARATOR = "|"


@dataclass(frozen=True)
class EntityRow:
    """One typed title of an entity table (step 1 output, reusable as input of a later run)."""

    title: str
    dbpedia_class: str  # "" when untyped
    conll: str
    fine: str = "O"
    source: str = ""
    aliases: tuple[str, ...] = ()


def entity_row(info: TargetInfo) -> EntityRow:
    """The table row of a typed title (``info.entity`` is set)."""
    entity = info.entity
    return EntityRow(info.title, entity.dbpedia_class or "", entity.conll, entity.fine, entity.source, tuple(info.aliases))


def _clean_cell(value: str) -> str:
    # Titles never hold tabs or newlines; anything that does would break the TSV's rows.
    return value.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def write_entity_table(rows: Iterable[EntityRow], path: str) -> int:
    """Write an entity table, TSV with a header (or Parquet if ``path`` ends in .parquet).

    Aliases are joined by ``|``; an alias that itself contains ``|`` is dropped (MediaWiki
    titles cannot contain it). Returns the number of rows written.
    """
    if str(path).endswith(".parquet"):
        return _write_parquet(rows, path)
    count = 0
    with paths.open_text_write(path) as out:
        out.write("\t".join(ENTITY_COLUMNS) + "\n")
        for row in rows:
            aliases = ALIAS_SEPARATOR.join(_clean_cell(a) for a in row.aliases if ALIAS_SEPARATOR not in a)
            cells = (row.title, row.dbpedia_class or "", row.conll, row.fine, row.source, aliases)
            out.write("\t".join(_clean_cell(c) for c in cells) + "\n")
            count += 1
    return count


def _write_parquet(rows: Iterable[EntityRow], path: str) -> int:
    import pyarrow as pa

    schema = pa.schema([(c, pa.string()) for c in ENTITY_COLUMNS[:-1]] + [("aliases", pa.list_(pa.string()))])
    count = 0
    with paths.parquet_writer(path, schema) as writer:
        batch: list[EntityRow] = []

        def flush() -> None:
            columns = {c: [getattr(r, c) or "" for r in batch] for c in ENTITY_COLUMNS[:-1]}
            columns["aliases"] = [list(r.aliases) for r in batch]
            writer.write_table(pa.table(columns, schema=schema))
            batch.clear()

        for row in rows:
            batch.append(row)
            count += 1
            if len(batch) >= 50_000:
                flush()
        if batch or count == 0:
            flush()
    return count


def read_entity_table(path: str) -> Iterator[EntityRow]:
    """Rows of an entity table written by :func:`write_entity_table` (TSV or Parquet)."""
    try:
        with paths.open_read(path) as probe:
            magic = probe.read(4)
    except OSError as err:
        raise InputError(path, f"cannot open entity table: {err.strerror or err}") from None
    if magic == b"PAR1":
        yield from _read_parquet(path)
        return
    with open_text(path) as handle:
        header = handle.readline().rstrip("\n").split("\t")
        if tuple(header[: len(ENTITY_COLUMNS)]) != ENTITY_COLUMNS:
            raise InputError(path, f"not an entity table: header must be {' '.join(ENTITY_COLUMNS)}", "line 1")
        for number, line in enumerate(handle, 2):
            line = line.rstrip("\n")
            if not line:
                continue
            cells = line.split("\t")
            if len(cells) < 5 or not cells[0]:
                raise InputError(path, f"expected {len(ENTITY_COLUMNS)} tab-separated columns", f"line {number}")
            cells += [""] * (len(ENTITY_COLUMNS) - len(cells))
            title, cls, conll, fine, source, aliases = cells[:6]
            yield EntityRow(title, cls, conll, fine, source, tuple(a for a in aliases.split(ALIAS_SEPARATOR) if a))


def _read_parquet(path: str) -> Iterator[EntityRow]:
    try:
        parquet = paths.parquet_file(path)
    except Exception as err:  # pyarrow raises several unrelated types for a bad file
        raise InputError(path, f"unreadable Parquet entity table ({err})") from None
    missing = [c for c in ENTITY_COLUMNS if c not in parquet.schema_arrow.names]
    if missing:
        raise InputError(path, f"Parquet entity table lacks column(s) {', '.join(missing)}")
    for batch in parquet.iter_batches(columns=list(ENTITY_COLUMNS)):
        columns = batch.to_pydict()
        for i in range(batch.num_rows):
            aliases = columns["aliases"][i]
            if isinstance(aliases, str):
                aliases = [a for a in aliases.split(ALIAS_SEPARATOR) if a]
            yield EntityRow(
                columns["title"][i],
                columns["dbpedia_class"][i] or "",
                columns["conll"][i] or "O",
                columns["fine"][i] or "O",
                columns["source"][i] or "",
                tuple(aliases or ()),
            )
