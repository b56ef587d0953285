"""A run's config from the options given: the defaults filled in before the checks.

The command line, :func:`wikisilver.build` and both jobs turn what the user gave into a config
through :func:`resolve_build` or :func:`resolve_entities`: the language (given, or read from the
dump's ``<siteinfo>``), the default output directory, the number of parts, the demo inputs, the
entity tables inside directories, the infobox mappings' language folder; then every check of the
inputs (wikisilver.config.checks) and of the destination (wikisilver.destination), before any work.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from wikisilver import paths
from wikisilver.config.checks import check_inputs, existing_dumps
from wikisilver.config.derived import auto_shards, siteinfo_language
from wikisilver.config.options import BUILD_OPTIONS, ENTITIES_OPTIONS, BuildConfig, EntitiesConfig, given_options
from wikisilver.destination import check_destination, input_paths
from wikisilver.errors import InputError, WikisilverError

log = logging.getLogger(__name__)


def resolve_build(options: Mapping[str, Any]) -> BuildConfig:
    """The checked config of a ``build`` from the options given (config field names, ``demo``,
    ``config``); raises InputError for bad input, TypeError for an option name it does not know."""
    given = given_options(options, BUILD_OPTIONS)
    demo = bool(given.pop("demo", False))
    if demo:
        demo_dump, demo_types = demo_inputs()
        given["dumps"] = given.get("dumps") or (demo_dump,)
        given["types"] = given.get("types") or (demo_types,)
        given.setdefault("lang", "en")
    dumps = existing_dumps(given, "--dump FILE or --demo (in Python: dump=PATH or demo=True)")
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
    given = given_options(options, ENTITIES_OPTIONS)
    dumps = existing_dumps(given, "--dump FILE")
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


def demo_inputs() -> tuple[str, str]:
    """The demo dump and its DBpedia types, bundled with the package."""
    root = resources.files("wikisilver.demo")
    return str(root.joinpath("demowiki-pages-articles.xml.bz2")), str(root.joinpath("demowiki-types.nt"))


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
