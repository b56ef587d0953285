"""The checks of a run's inputs, before any work: each fails with one line naming the file (and
the position) or the option, so a wrong input never costs a run.

Files exist and are regular files (local or remote), dump and table headers read as what they
claim, every numeric option is in its range, rule names are known, the entity sources' own checks
pass (wikisilver.entities.sources), the runner downloads nothing (wikisilver.engines); what the
inputs say against each other is logged as warnings (wikisilver.health).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from wikisilver import paths
from wikisilver.config.derived import siteinfo_language, types_lang
from wikisilver.config.options import BuildConfig
from wikisilver.engines import check_runner
from wikisilver.entities import sources
from wikisilver.errors import InputError, WikisilverError
from wikisilver.files import special_kind
from wikisilver.labels import FORMER_RULE_NAMES, RULES
from wikisilver.text import check_backend

log = logging.getLogger(__name__)


def existing_dumps(given: Mapping[str, Any], how: str) -> tuple[str, ...]:
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


def check_inputs(config: BuildConfig) -> None:
    """Fail early with one clear line for a missing file or a bad option (the dumps were checked,
    file and header, before their ``<siteinfo>`` gave the language: :func:`existing_dumps`)."""
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
