"""Step 1 inputs: the MediaWiki SQL tables wikisilver reads (``page``, ``redirect``, ``langlinks``,
``page_props``), as typed rows.

Columns are looked up by *name* from the ``CREATE TABLE`` statement, because the ``page``
schema changed (2016 dumps carry ``page_counter`` and ``page_restrictions``; current ones drop
them and add ``page_lang``); unknown columns are ignored. The dumps are streamed in bounded memory
by :mod:`wikisilver.entities.mysqldump`.

The Beam pipeline joins ``page`` and ``redirect`` rows by page id (``CoGroupByKey``,
``pipelines/wiki_evidence.py``): nothing here holds a whole table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from wikisilver.entities.mysqldump import SqlReadStats, scan
from wikisilver.errors import InputError
from wikisilver.titles import normalize_title


@dataclass(frozen=True)
class PageRow:
    """One row of the ``page`` table."""

    page_id: int
    namespace: int
    title: str  # normalized (spaces, first letter upper)
    is_redirect: bool


@dataclass(frozen=True)
class RedirectRow:
    """One row of the ``redirect`` table: page ``from_page_id`` redirects to ``target_title``."""

    from_page_id: int
    namespace: int  # namespace of the target
    target_title: str  # normalized
    interwiki: str  # "" for a local target
    fragment: str  # section anchor, "" if none


@dataclass(frozen=True)
class LanglinkRow:
    """One row of ``langlinks``: page ``from_page_id`` is ``title`` in Wikipedia ``lang``."""

    from_page_id: int
    lang: str
    title: str  # normalized


@dataclass(frozen=True)
class PagePropRow:
    """One row of ``page_props`` (``name == "disambiguation"`` marks a disambiguation page)."""

    page_id: int
    name: str
    value: str | None


def _named_rows(
    path: str, table: str, wanted: tuple[str, ...], stats: SqlReadStats | None
) -> Iterator[tuple]:
    """Rows of ``table`` projected onto the ``wanted`` columns (by name, any schema version)."""
    stats = stats if stats is not None else SqlReadStats()
    indexes: list[int] | None = None
    width = 0
    others: set[str] = set()
    for name, columns, row in scan(path, stats, wanted):
        if name != table:
            others.add(name)
            continue
        if indexes is None:
            if columns is None:
                raise InputError(path, f"INSERT INTO `{table}` before its CREATE TABLE: cannot tell the columns")
            missing = [c for c in wanted if c not in columns]
            if missing:
                raise InputError(path, f"table `{table}` lacks column(s) {', '.join(missing)}")
            indexes = [columns.index(c) for c in wanted]
            width = len(columns)
        if len(row) != width:
            stats.skipped_rows += 1
            continue
        yield tuple(row[i] for i in indexes)
    if indexes is None and others:
        found = ", ".join(f"`{name}`" for name in sorted(others))
        raise InputError(path, f"a dump of table {found}, not `{table}`")


def _as_text(value: object) -> str:
    return "" if value is None else str(value)


def iter_page_table(path: str, stats: SqlReadStats | None = None) -> Iterator[PageRow]:
    """Rows of a ``page`` table dump (2016 or current schema), titles normalized."""
    stats = stats if stats is not None else SqlReadStats()
    for page_id, ns, title, redirect in _named_rows(
        path, "page", ("page_id", "page_namespace", "page_title", "page_is_redirect"), stats
    ):
        if not isinstance(page_id, int) or not isinstance(ns, int):
            stats.skipped_rows += 1
            continue
        yield PageRow(page_id, ns, normalize_title(_as_text(title)), bool(redirect))


def iter_redirect_table(path: str, stats: SqlReadStats | None = None) -> Iterator[RedirectRow]:
    """Rows of a ``redirect`` table dump, target titles normalized."""
    stats = stats if stats is not None else SqlReadStats()
    for from_id, ns, title, interwiki, fragment in _named_rows(
        path, "redirect", ("rd_from", "rd_namespace", "rd_title", "rd_interwiki", "rd_fragment"), stats
    ):
        if not isinstance(from_id, int) or not isinstance(ns, int):
            stats.skipped_rows += 1
            continue
        yield RedirectRow(from_id, ns, normalize_title(_as_text(title)), _as_text(interwiki), _as_text(fragment))


def iter_langlinks(path: str, stats: SqlReadStats | None = None) -> Iterator[LanglinkRow]:
    """Rows of a ``langlinks`` table dump (empty targets, which MediaWiki allows, are skipped)."""
    stats = stats if stats is not None else SqlReadStats()
    for from_id, lang, title in _named_rows(path, "langlinks", ("ll_from", "ll_lang", "ll_title"), stats):
        if not isinstance(from_id, int) or not title:
            stats.skipped_rows += 1
            continue
        yield LanglinkRow(from_id, _as_text(lang), normalize_title(_as_text(title)))


def iter_page_props(path: str, stats: SqlReadStats | None = None) -> Iterator[PagePropRow]:
    """Rows of a ``page_props`` table dump."""
    stats = stats if stats is not None else SqlReadStats()
    for page_id, name, value in _named_rows(path, "page_props", ("pp_page", "pp_propname", "pp_value"), stats):
        if not isinstance(page_id, int):
            stats.skipped_rows += 1
            continue
        yield PagePropRow(page_id, _as_text(name), None if value is None else str(value))
