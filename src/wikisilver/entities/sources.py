"""Step 1 of the method, its inputs: every entity source declared once.

A :class:`Source` says everything the code needs to know about one input of step 1: its option
(the config field, ``--option-with-dashes`` on the command line, the key of a ``--config`` file),
what its value names (files, a directory or a URL, once or repeatable), how a wrong value is
caught before any work, whether a rerun fingerprints it, and, for the sources that type titles,
the evidence it gives the typing join, its precedence and its role in the decision. Every list
that names sources is derived from :data:`SOURCES`:

* the flags of ``build`` and ``entities`` (``commands/build.py``);
* the checks of a config and which options are paths (``wikisilver.config``);
* the evidence gathered and grouped for the join (``pipelines/evidence.py``, ``pipelines/typing.py``)
  and :class:`wikisilver.entities.typing.TitleEvidence`;
* the precedence of the class sources and the tie-breaker (``wikisilver.entities.typing``);
* the input fingerprints of the no-op rerun and manifest.json's ``inputs`` (``wikisilver.rerun``,
  ``wikisilver.manifest``).

A new source of ``(title, DBpedia class)`` files is a declaration with a ``reader`` here (its
files are read, filtered to the requested titles and voted with the others without further
code) and its field in :class:`wikisilver.config.BuildConfig` (a test checks that each declared
option has one). The sources whose evidence comes another way (an entity table's rows, a SPARQL
endpoint, the classes carried over langlinks, the dump's own infoboxes) have no reader: the
jobs gather them in ``pipelines/evidence.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from wikisilver.config import BuildConfig

PathKind = Literal["file", "dir", "url"]
Role = Literal["decides", "votes", "breaks_ties"]
# Reads one file: (title, DBpedia class) pairs; what it skipped is added to the counter by kind
# (stats.json ``input_problems.<option>.<kind>``).
Reader = Callable[[str, Counter], Iterator[tuple[str, str]]]
# Checks one value before any work (a wrong file fails with one line naming file and position).
Check = Callable[[str, "BuildConfig"], None]

TYPING = "entity sources (at least one)"
SQL = "redirects and disambiguation pages from SQL dumps (optional)"


@dataclass(frozen=True)
class Source:
    """One input of step 1 (module doc)."""

    option: str  # the config field; --option-with-dashes; the TOML key
    kind: PathKind  # what its value names: files, a directory (of files) or a URL
    help: str
    metavar: str = "FILE"
    repeatable: bool = False  # a tuple of values (the flag may be given several times)
    group: str = TYPING  # the group of --help it is listed in
    # The evidence it gives the typing join, under this name (a field of TitleEvidence, and the
    # ``source`` of the titles it types); None: it types nothing itself (the class hierarchy,
    # the SQL tables' redirects and disambiguation flags).
    evidence: str | None = None
    precedence: int | None = None  # lower first: picks the class of the decided tag, orders conflicts
    role: Role = "votes"  # decides alone (a user's table), votes, or votes and breaks a tie
    reader: Reader | None = None  # the files' (title, class) pairs, read by the jobs as they are
    check: Check | None = None  # each value, before any work (a file is also checked to exist)
    fingerprinted: bool = True  # a rerun compares its files' content (a URL's answers cannot be)
    needs: str | None = None  # the option without which it gives nothing (langlinks carry --types)
    settings: tuple[str, ...] = ()  # the config fields that tune it (not paths; flags of their own)

    @property
    def flag(self) -> str:
        return "--" + self.option.replace("_", "-")

    def values(self, config: Any) -> tuple[str, ...]:
        """The paths or URL the config gives this source (none when not given)."""
        value = getattr(config, self.option)
        if self.repeatable:
            return tuple(value)
        return (value,) if value else ()

    def files(self, config: Any) -> list[str]:
        """The files this source reads in a run: its paths, or the files of its directory."""
        from wikisilver import paths

        if self.kind == "url":
            return []
        if self.kind == "dir":
            return [file for directory in self.values(config) for file in paths.listdir(directory)]
        return list(self.values(config))


def _instance_types(path: str, problems: Counter) -> Iterator[tuple[str, str]]:
    from wikisilver.entities.rdf import TripleReadStats, iter_instance_types

    stats = TripleReadStats()
    yield from iter_instance_types(path, stats)
    problems.update(stats.problems())


def _types_header(path: str, config: BuildConfig) -> None:
    from wikisilver.entities.rdf import check_header

    check_header(path)


def _sql_table(table: str) -> Check:
    def check(path: str, config: BuildConfig) -> None:
        from wikisilver.entities.mysqldump import check_table

        check_table(path, table)

    return check


def _mapping_directory(path: str, config: BuildConfig) -> None:
    from wikisilver import paths
    from wikisilver.errors import InputError

    if not paths.isdir(path):
        raise InputError(path, "not a directory of DBpedia mapping files")


def _endpoint(url: str, config: BuildConfig) -> None:
    from wikisilver.config.derived import sparql_config
    from wikisilver.entities.sparql import check_endpoint

    check_endpoint(sparql_config(config))


# In the order of --help. Precedence: entity tables, types, SPARQL, langlinks, infobox (docs/classes.md).
_DECLARED = (
    Source("types", "file", "DBpedia instance types, N-Triples or Turtle, optionally .bz2/.gz (repeatable)",
           repeatable=True, evidence="types", precedence=20, reader=_instance_types, check=_types_header,
           settings=("types_lang",)),
    Source("ontology", "file", "DBpedia ontology (OWL or Turtle) for the class hierarchy; default: the built-in "
                               "class hierarchy in mappings/class_parents.tsv"),
    Source("entities", "file", "a title->class table written by `wikisilver entities` (TSV or Parquet, or its "
                               "directory; repeatable)",
           repeatable=True, evidence="entities", precedence=10, role="decides"),
    Source("infobox_mappings", "dir", "DBpedia infobox mapping files (Mapping_<lang>:*.ttl) to type articles by infobox",
           metavar="DIR", evidence="infobox", precedence=50, role="breaks_ties", check=_mapping_directory),
    Source("langlinks_sql", "file", "langlinks SQL dump (.sql or .sql.gz): links pages to their --types-lang equivalents",
           repeatable=True, evidence="langlinks", precedence=40, needs="types", check=_sql_table("langlinks")),
    Source("redirect_sql", "file", "redirect table dump; page ids are mapped to titles by the dump and --page-sql",
           repeatable=True, group=SQL, check=_sql_table("redirect")),
    Source("page_sql", "file", "page table dump (2016 and current schemas)",
           repeatable=True, group=SQL, check=_sql_table("page")),
    Source("page_props_sql", "file", "page_props table dump: pages with the 'disambiguation' property are "
                                     "disambiguation pages",
           repeatable=True, group=SQL, check=_sql_table("page_props")),
    Source("sparql", "url", "SPARQL endpoint of a DBpedia mirror, asked for the types of the linked titles",
           metavar="URL", evidence="sparql", precedence=30, check=_endpoint, fingerprinted=False,
           settings=("sparql_batch_size", "sparql_timeout", "sparql_retries", "sparql_max_answer_mb")),
)


def checked(declared: tuple[Source, ...]) -> tuple[Source, ...]:
    """The declarations, if they are consistent: unique options, evidence names and precedences;
    a precedence for each source of evidence; exactly one deciding source (the entity tables:
    their evidence is rows, not classes); only URLs unfingerprinted; every ``needs`` declared."""
    def unique(values: list) -> None:
        repeated = sorted({str(v) for v in values if values.count(v) > 1})
        if repeated:
            raise ValueError(f"entity sources declared twice: {', '.join(repeated)}")

    unique([s.option for s in declared])
    unique([s.evidence for s in declared if s.evidence])
    unique([s.precedence for s in declared if s.evidence])
    options = {s.option for s in declared}
    for source in declared:
        if source.evidence and source.precedence is None:
            raise ValueError(f"entity source {source.option} gives evidence but has no precedence")
        if not source.fingerprinted and source.kind != "url":
            raise ValueError(f"entity source {source.option} names {source.kind}s: they must be fingerprinted")
        if source.reader is not None and (source.kind != "file" or not source.evidence):
            raise ValueError(f"entity source {source.option}: a reader reads files of evidence")
        if source.needs is not None and source.needs not in options:
            raise ValueError(f"entity source {source.option} needs {source.needs}, which is not declared")
    if [s.evidence for s in declared if s.role == "decides"] != ["entities"]:
        raise ValueError("exactly one entity source decides alone: the entity tables")
    return declared


SOURCES: tuple[Source, ...] = checked(_DECLARED)


def register(source: Source) -> Source:
    """Declare one more source (a plugin's, a test's): from now on every derived list has it."""
    global SOURCES
    SOURCES = checked((*SOURCES, source))
    return source


def by_option(option: str) -> Source:
    return next(source for source in SOURCES if source.option == option)


def typing_sources() -> tuple[Source, ...]:
    """The sources of evidence, by precedence (highest first)."""
    return tuple(sorted((s for s in SOURCES if s.evidence), key=lambda s: s.precedence))


def precedence() -> tuple[str, ...]:
    """The evidence names by precedence: the order that picks a decided tag's class."""
    return tuple(s.evidence for s in typing_sources())


def class_sources() -> tuple[str, ...]:
    """The evidence names of the voters (every source of evidence but the deciding one), by precedence."""
    return tuple(s.evidence for s in typing_sources() if s.role != "decides")


def tie_breaker() -> str | None:
    """The voter whose single tag decides when no majority does (the page's own infobox)."""
    return next((s.evidence for s in typing_sources() if s.role == "breaks_ties"), None)


def readable() -> tuple[Source, ...]:
    """The sources of (title, class) files the jobs read through their ``reader``."""
    return tuple(s for s in SOURCES if s.reader is not None)


def standalone() -> tuple[Source, ...]:
    """The sources that can type titles on their own: a run needs at least one of them."""
    return tuple(s for s in SOURCES if s.evidence and s.needs is None)


def path_options() -> frozenset[str]:
    """The options whose values are local or remote paths (``file://`` is read as local)."""
    return frozenset(s.option for s in SOURCES if s.kind != "url")


def options() -> tuple[str, ...]:
    """Every option the sources take: their own and their settings."""
    return tuple(name for s in SOURCES for name in (s.option, *s.settings))
