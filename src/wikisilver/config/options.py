"""The options of a run (steps 1-5, and the entity table alike): the config records, the option
names each resolver takes, and the options given read into the config's types.

Options come from the command line's flags, a TOML ``--config`` file under them, or the keyword
arguments of :func:`wikisilver.build`; here they become one dict of config field names whose
values have the types of :class:`BuildConfig` (tuples for the repeatable options, a ``file://``
path as the local one). A value of ``None`` means "not given". What is not given is filled in by
wikisilver.config.resolve; what is given is checked by wikisilver.config.checks.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wikisilver import paths
from wikisilver.entities import sources
from wikisilver.errors import InputError
from wikisilver.files import special_kind
from wikisilver.health import DEFAULT_MAX_REJECT_SHARE
from wikisilver.labels.second_pass import DEFAULT_THRESHOLD


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


def given_options(options: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any]:
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
