"""The options of a run, resolved and checked in one place before any work (steps 1-5 and the
entity table alike).

The command line (flags, and a TOML ``--config`` file under them), :func:`wikisilver.build` and
both jobs turn what the user gave into a config through :func:`resolve_build` or
:func:`resolve_entities`: the defaults, the language (given, or read from the dump's
``<siteinfo>``), the default output directory, the number of parts, the demo inputs, the entity
tables inside directories, and every check of the inputs. A value of ``None`` means "not given".
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikisilver import paths
from wikisilver.destination import check_destination, input_paths
from wikisilver.engines import check_runner
from wikisilver.entities import sources
from wikisilver.errors import InputError, WikisilverError
from wikisilver.files import special_kind
from wikisilver.health import DEFAULT_MAX_REJECT_SHARE
from wikisilver.labels import FORMER_RULE_NAMES, RULES
from wikisilver.labels.second_pass import DEFAULT_THRESHOLD
from wikisilver.text import check_backend

if TYPE_CHECKING:
    from wikisilver.entities.sparql import SparqlConfig

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BuildConfig:
    """Everything that decides the corpus (recorded in manifest.json)."""

    dumps: tuple[str, ...]
    lang: str
    out: str
    multistream_index: tuple[str, ...] = ()  # index file of each --dump, in the same order
    types: tuple[str, ...] = ()
    ontology: str | None = None
    entities: tuple[str, ...] = ()
    infobox_mappings: str | None = None
    sparql: str | None = None
    types_lang: str | None = None  # language of the --types titles; default: --lang
    page_sql: tuple[str, ...] = ()
    redirect_sql: tuple[str, ...] = ()
    page_props_sql: tuple[str, ...] = ()
    langlinks_sql: tuple[str, ...] = ()
    sparql_batch_size: int = 200
    sparql_timeout: float = 30.0
    sparql_retries: int = 4
    sparql_max_answer_mb: float = 64.0  # a larger answer fails the run
    shards: int = 4
    redirect_hops: int = 3
    max_page_chars: int = 2_000_000
    max_pages: int | None = None  # a trial run: stop reading after the first N pages of the dumps
    page_timeout: float = 20.0
    text_backend: str = "builtin"
    disabled_rules: tuple[str, ...] = ()
    drop_low_quality: bool = False
    second_pass: str | None = None  # a model (wikisilver.ner.seam spec) that labels what the rules leave UNK
    second_pass_threshold: float = DEFAULT_THRESHOLD  # its marginal on every UNK token must reach this
    overwrite: bool = False
    strict: bool = False
    max_reject_share: float = DEFAULT_MAX_REJECT_SHARE  # more pages rejected for one reason: the run fails
    progress_interval: float = 30.0  # seconds between progress lines per worker and stage; 0: none
    beam_args: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class EntitiesConfig(BuildConfig):
    """The ``entities`` job's options: the inputs of step 1, and the format of the table it writes."""

    table_format: str = "tsv"  # "tsv" or "parquet"


ENTITY_SOURCE_OPTIONS = sources.options()  # the declared entity sources and their settings
# The names each resolver takes: config fields, plus "demo" (the bundled inputs) and "config" (a TOML file).
BUILD_OPTIONS = frozenset(f.name for f in dataclasses.fields(BuildConfig)) | {"demo", "config"}
ENTITIES_OPTIONS = frozenset(
    {*ENTITY_SOURCE_OPTIONS, "dumps", "lang", "out", "shards", "overwrite", "beam_args", "table_format", "config"}
)
# Long option names of the command line whose config field is named otherwise (TOML keys use them).
OPTION_FIELDS = {"dump": "dumps", "disable_rule": "disabled_rules", "format": "table_format"}


def path_options() -> frozenset[str]:
    """The options that name files or directories (``file://`` paths are read as local ones)."""
    return frozenset({"dumps", "multistream_index", "out", "config"}) | sources.path_options()


_REPEATABLE = frozenset(f.name for f in dataclasses.fields(EntitiesConfig) if str(f.type).startswith("tuple"))


def resolve_build(options: Mapping[str, Any]) -> BuildConfig:
    """The checked config of a ``build`` from the options given (config field names, ``demo``,
    ``config``); raises InputError for bad input, TypeError for an option name it does not know."""
    given = _given(options, BUILD_OPTIONS)
    demo = bool(given.pop("demo", False))
    if demo:
        demo_dump, demo_types = demo_inputs()
        given["dumps"] = given.get("dumps") or (demo_dump,)
        given["types"] = given.get("types") or (demo_types,)
        given.setdefault("lang", "en")
    dumps = _existing_dumps(given, "--dump FILE or --demo (in Python: dump=PATH or demo=True)")
    lang = resolve_language(given.get("lang"), dumps[0])
    given.setdefault("out", default_out(dumps[0], "demo" if demo else f"{lang}wiki"))
    given.setdefault("shards", auto_shards(dumps))
    config = BuildConfig(**{**given, **language_folders(given, lang), "lang": lang,
                            "entities": expand_entity_tables(given.get("entities", ()))})
    check_inputs(config)
    check_destination(config.out, input_paths(config, options.get("config")))
    return config


def resolve_entities(options: Mapping[str, Any]) -> EntitiesConfig:
    """The checked config of an ``entities`` job, resolved as :func:`resolve_build` does."""
    given = _given(options, ENTITIES_OPTIONS)
    dumps = _existing_dumps(given, "--dump FILE")
    lang = resolve_language(given.get("lang"), dumps[0])
    if not given.get("out"):
        raise InputError(None, "no output directory given: pass --out DIR")
    if given.get("table_format", "tsv") not in ("tsv", "parquet"):
        raise InputError(None, f"table format {given['table_format']!r}: choose tsv or parquet")
    config = EntitiesConfig(**{**given, **language_folders(given, lang), "lang": lang,
                               "entities": expand_entity_tables(given.get("entities", ()))})
    check_inputs(config)
    check_destination(config.out, input_paths(config, options.get("config")))
    return config


def language_folders(given: Mapping[str, Any], lang: str) -> dict[str, str]:
    """--infobox-mappings as the folder of ``lang``'s files: the folder of all languages names it
    by its ``<lang>`` subfolder (:func:`wikisilver.entities.infobox.mapping_directory`)."""
    if not given.get("infobox_mappings"):
        return {}
    from wikisilver.entities.infobox import mapping_directory, mapping_language_warning

    folder = mapping_directory(given["infobox_mappings"], lang)
    warning = mapping_language_warning(folder, lang) if paths.isdir(folder) else None
    if warning:
        log.warning("%s", warning)
    return {"infobox_mappings": folder}


def _given(options: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The options given (a ``config`` file's under them), their values in the config's types."""
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"unexpected option(s) {', '.join(unknown)}; known options: {', '.join(sorted(known))}")
    given = {name: value for name, value in options.items() if value is not None}
    # Beam's file systems (gs://, s3://, …) take their settings from the Beam options: set before
    # the first remote file (the --config file itself may be one) is read.
    paths.configure(tuple(given.get("beam_args") or ()))
    if "config" in given:
        paths.check_remote(given["config"])
        given = {**read_config_file(os.fspath(given.pop("config")), known), **given}
    given = {name: _normalized(name, value) for name, value in given.items()}
    check_remote_paths(given)
    return given


def check_remote_paths(given: Mapping[str, Any]) -> None:
    """Every remote input and ``out`` usable, each asked once with a deadline, before anything
    else reads them (Beam's own calls retry for minutes on missing credentials)."""
    for name in (f.name for f in dataclasses.fields(EntitiesConfig) if f.name in path_options() and f.name in given):
        for value in given[name] if name in _REPEATABLE else (given[name],):
            paths.check_remote(value, output=name == "out")


def _normalized(name: str, value: Any) -> Any:
    """Tuples of strings for the repeatable options (a lone path or name too), str for a path;
    a ``file://`` path as the local path it names."""
    if name in _REPEATABLE:
        single = isinstance(value, (str, os.PathLike))
        values = tuple(os.fspath(v) for v in ([value] if single else value))
        return tuple(map(paths.normalize, values)) if name in path_options() else values
    value = os.fspath(value) if isinstance(value, os.PathLike) else value
    return paths.normalize(value) if name in path_options() and isinstance(value, str) else value


def read_config_file(path: str, known: Iterable[str]) -> dict[str, Any]:
    """Options from a TOML file whose keys are the long option names (``lang = "hu"``)."""
    import tomllib

    special = special_kind(path)
    if special is not None:  # a FIFO would be waited on for ever
        raise InputError(path, f"is {special}, not a regular file: give the config as a file")
    try:
        with paths.open_read(path) as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise InputError(path, "no such config file") from None
    except OSError as error:
        raise InputError(path, f"cannot read the config file: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(path, f"not valid TOML ({error})") from None
    options = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        name = OPTION_FIELDS.get(name, name)
        if name not in known or name == "config":
            raise InputError(path, f"unknown option {key!r} (use the long option names of --help)")
        options[name] = value
    return options


def demo_inputs() -> tuple[str, str]:
    """The demo dump and its DBpedia types, bundled with the package."""
    root = resources.files("wikisilver.demo")
    return str(root.joinpath("demowiki-pages-articles.xml.bz2")), str(root.joinpath("demowiki-types.nt"))


def _existing_dumps(given: Mapping[str, Any], how: str) -> tuple[str, ...]:
    from wikisilver.dump import check_dump

    dumps = given.get("dumps") or ()
    if not dumps:
        raise InputError(None, f"no dump given: pass {how}, or a --config file with dump = [...]")
    for path in dumps:
        check_file(path)
        check_dump(path)
    return dumps


def check_file(path: str) -> None:
    """An input file that exists and is a file (a directory is not, and says so); local or remote
    (a remote one that cannot be asked about says why: no credentials, no such bucket, …)."""
    try:
        if paths.isfile(path):
            return
        if paths.isdir(path):
            raise InputError(path, "is a directory, not a file")
        special = special_kind(path)
        if special is not None:
            raise InputError(path, f"is {special}, not a regular file: inputs are read more than once, so give a file")
    except (OSError, ValueError) as error:  # ValueError: Beam knows no file system for the scheme
        raise InputError(path, f"cannot read: {error.strerror or error}" if isinstance(error, OSError)
                         else str(error).splitlines()[0]) from None
    raise InputError(path, "no such file")


def siteinfo_language(dump: str) -> str | None:
    """The wiki language named by a dump's ``<siteinfo>`` (None when it names none)."""
    from wikisilver import dump as dumplib

    return dumplib.dump_language(dumplib.read_siteinfo(dump))


def resolve_language(given: str | None, dump: str) -> str:
    """The run's language: ``--lang`` if given, else the dump's ``<siteinfo>``; a code that names no
    Wikipedia fails, and a language without a pack or a header that disagrees is logged as a warning."""
    from wikisilver.languages import check_language, language_warnings, wikipedia_codes

    if given:
        check_language(given)
    try:
        named = siteinfo_language(dump)
    except WikisilverError:
        if not given:
            raise
        named = None  # the pages' rejects will say what is wrong with the header
    lang = given or named
    if not lang:
        raise InputError(dump, "cannot tell the language from <siteinfo>; pass --lang (lang= in Python)")
    if not given and lang not in wikipedia_codes():
        raise InputError(dump, f"<siteinfo> names {lang!r}, not a Wikipedia language code; pass --lang")
    for warning in language_warnings(lang, dump, named):
        log.warning("%s", warning)
    return lang


def default_out(dump: str, wiki: str) -> str:
    """output/<wiki>/<the dump's date, or "latest">."""
    from wikisilver import dump as dumplib

    return str(Path("output") / wiki / (dumplib.wiki_date_from_name(dump) or "latest"))


def expand_entity_tables(given: Iterable[str]) -> tuple[str, ...]:
    """--entities takes files or directories written by `wikisilver entities` (their part files)."""
    files: list[str] = []
    for path in given:
        if not paths.isfile(path) and paths.isdir(path):
            inner = paths.join(path, "entities")
            inner = inner if paths.isdir(inner) else path
            files.extend(p for p in paths.listdir(inner) if p.endswith((".tsv", ".parquet")))
        else:
            files.append(path)
    return tuple(files)


SHARD_INPUT_BYTES = 16 << 20  # compressed dump bytes per output part, by default


def compressed_bytes(dumps: tuple[str, ...]) -> int:
    """Size of the dump files as given (compressed), the measure the defaults below scale with."""
    return sum(paths.size(path) for path in dumps if paths.isfile(path))


def auto_shards(dumps: tuple[str, ...]) -> int:
    """Default number of parts: one per 16 MiB of compressed dump, at least 4.

    A part is written by one worker that sorts its sentences in memory, so the part count grows
    with the input: a full English dump (~22 GB of bz2) gives ~1,300 parts, each sorted from a few
    hundred MB of records in memory (safe on workers with 4 GB per core).
    """
    return max(4, -(-compressed_bytes(dumps) // SHARD_INPUT_BYTES))


FILTER_INPUT_BYTES = 1000  # compressed dump bytes per title the type filter is sized for


def title_filter_capacity(dumps: tuple[str, ...]) -> int:
    """Titles the Bloom filter of requested titles is sized for: one per kB of compressed dump.

    A full English dump (~22 GB of bz2, ~10 M distinct link targets) gives 22 M titles, a 26 MB
    filter with fewer than 1 % false positives; a small wiki gets the minimum of 100 000
    (120 kB). Over capacity the filter only lets more unrequested type lines through.
    """
    return max(100_000, compressed_bytes(dumps) // FILTER_INPUT_BYTES)


def check_inputs(config: BuildConfig) -> None:
    """Fail early with one clear line for a missing file or a bad option (the dumps were checked,
    file and header, before their ``<siteinfo>`` gave the language: :func:`_existing_dumps`)."""
    check_numbers(config)
    if config.multistream_index and len(config.multistream_index) != len(config.dumps):
        raise InputError(None, "give one --multistream-index per --dump, in the same order")
    for path in config.multistream_index:
        check_file(path)
    for source in sources.SOURCES:
        for path in source.values(config) if source.kind == "file" else ():
            check_file(path)
    check_headers(config)
    if not any(source.values(config) for source in sources.standalone()):
        flags = [source.flag for source in sources.standalone()]
        raise InputError(None, f"no entity source: give {', '.join(flags[:-1])} or {flags[-1]}")
    for source in sources.SOURCES:
        if source.check is not None and source.kind != "file":
            for value in source.values(config):
                source.check(value, config)
    unknown = sorted(set(config.disabled_rules) - set(RULES) - set(FORMER_RULE_NAMES))
    if unknown:
        raise InputError(None, f"unknown rule(s) {', '.join(unknown)}; known: {', '.join(RULES)}")
    if types_lang(config) != config.lang and not config.langlinks_sql:
        raise InputError(None, f"--types-lang {types_lang(config)} differs from --lang {config.lang}: "
                               "give --langlinks-sql to carry the types across languages")
    check_backend(config.text_backend, config.lang)
    for warning in input_warnings(config):
        log.warning("%s", warning)
    if getattr(config, "second_pass", None):
        from wikisilver.ner.seam import load_model

        load_model(config.second_pass)  # a missing or stale model fails before any work
        if not 0.0 <= config.second_pass_threshold <= 1.0:
            raise InputError(None, f"--second-pass-threshold must be between 0 and 1, not {config.second_pass_threshold}")
    if getattr(config, "max_pages", None) is not None and config.max_pages < 1:
        raise InputError(None, "--max-pages must be at least 1")
    check_runner(config.beam_args)


def input_warnings(config: BuildConfig) -> list[str]:
    """What the inputs say against each other (wikisilver.health): --types of another DBpedia
    chapter than --types-lang, a dump whose articles do not read as --lang."""
    from wikisilver.health import text_language_warnings, types_language_warnings

    try:
        header = siteinfo_language(config.dumps[0])
    except WikisilverError:
        header = None
    return [*types_language_warnings(config.types, types_lang(config)),
            *text_language_warnings(config.dumps[0], config.lang, header)]


def check_headers(config: BuildConfig) -> None:
    """Read the start of every file of a source that has a check (the types, the SQL tables), so
    that a wrong file fails before any work with one line naming file and position (the ontology
    is parsed before the output is touched)."""
    for source in sources.SOURCES:
        if source.check is not None and source.kind == "file":
            for path in source.values(config):
                source.check(path, config)


# The numeric options and their smallest allowed values (the timeouts must be above theirs).
_AT_LEAST = {"shards": 1, "redirect_hops": 0, "max_page_chars": 1, "sparql_batch_size": 1, "sparql_retries": 0,
             "progress_interval": 0}
_ABOVE = {"page_timeout": 0, "sparql_timeout": 0}
# And the largest: each redirect hop is a join stage of the job, and Beam builds the job's graph
# recursively (a thousand hops failed after minutes with a RecursionError). Real chains are
# double redirects at most: MediaWiki's bots fix them.
_AT_MOST = {"redirect_hops": 100}


def check_numbers(config: BuildConfig) -> None:
    """Every numeric option a number in its range (a --config file can give any TOML value)."""
    share = config.max_reject_share
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
        raise InputError(None, f"--max-reject-share must be a number from 0 to 1, not {share!r}")
    for name, low in (*_AT_LEAST.items(), *_ABOVE.items()):
        value, flag = getattr(config, name), f"--{name.replace('_', '-')}"
        whole = name in _AT_LEAST and name != "progress_interval"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            raise InputError(None, f"{flag} must be {'a whole number' if whole else 'a number'}, not {value!r}")
        if value < low or (name in _ABOVE and value == low):
            raise InputError(None, f"{flag} must be {'above' if name in _ABOVE else 'at least'} {low}, not {value}")
        if value > _AT_MOST.get(name, value):
            raise InputError(None, f"{flag} must be at most {_AT_MOST[name]}, not {value}")


def multistream_indexes(config: BuildConfig) -> dict[str, str]:
    """Each multistream dump's index (given with --multistream-index, or found beside the dump).

    With an index, one dump file is read as many independently decompressed byte ranges, so a
    huge dump part is spread over workers instead of being read by one.
    """
    indexes = dict(zip(config.dumps, config.multistream_index)) if config.multistream_index else {}
    for dump in config.dumps:
        name = paths.basename(dump)
        if dump in indexes or "multistream" not in name or not name.endswith(".bz2"):
            continue
        guess = dump[: len(dump) - len(name)] + name.replace(".xml.bz2", "-index.txt.bz2")
        if guess != dump and paths.isfile(guess):
            indexes[dump] = guess
    return indexes


def types_lang(config: BuildConfig) -> str:
    """The language of the titles in --types (the build's own unless --types-lang says otherwise)."""
    return config.types_lang or config.lang


def sparql_config(config: BuildConfig) -> SparqlConfig:
    """The SPARQL client settings of a config."""
    from wikisilver.entities.sparql import SparqlConfig

    return SparqlConfig(
        endpoint=config.sparql, batch_size=config.sparql_batch_size, timeout=config.sparql_timeout,
        retries=config.sparql_retries, max_answer_bytes=max(1, int(config.sparql_max_answer_mb * (1 << 20))),
    )
