"""The options that decide a corpus, checked before any work, and the defaults that scale with the input."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from wikisilver.errors import InputError
from wikisilver.labels import RULES


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
    shards: int = 4
    redirect_hops: int = 3
    max_page_chars: int = 2_000_000
    page_timeout: float = 20.0
    text_backend: str = "builtin"
    disabled_rules: tuple[str, ...] = ()
    drop_low_quality: bool = False
    overwrite: bool = False
    strict: bool = False
    progress_interval: float = 30.0  # seconds between progress lines per worker and stage; 0: none
    beam_args: tuple[str, ...] = field(default=())


SHARD_INPUT_BYTES = 16 << 20  # compressed dump bytes per output part, by default


def compressed_bytes(dumps: tuple[str, ...]) -> int:
    """Size of the dump files as given (compressed), the measure the defaults below scale with."""
    return sum(os.path.getsize(path) for path in dumps if os.path.isfile(path))


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
    """Fail early with one clear line for a missing file or a bad option."""
    if config.multistream_index and len(config.multistream_index) != len(config.dumps):
        raise InputError(None, "give one --multistream-index per --dump, in the same order")
    sql = (*config.multistream_index, *config.page_sql, *config.redirect_sql, *config.page_props_sql, *config.langlinks_sql)
    for path in (*config.dumps, *config.types, *config.entities, *sql, *(p for p in [config.ontology] if p)):
        if not os.path.isfile(path):
            raise InputError(path, "no such file")
    if config.infobox_mappings and not os.path.isdir(config.infobox_mappings):
        raise InputError(config.infobox_mappings, "not a directory of DBpedia mapping files")
    if not (config.types or config.entities or config.infobox_mappings or config.sparql):
        raise InputError(None, "no entity source: give --types, --entities, --infobox-mappings or --sparql")
    if config.sparql:
        from wikisilver.entities.sparql import check_endpoint

        check_endpoint(sparql_config(config))
    unknown = sorted(set(config.disabled_rules) - set(RULES))
    if unknown:
        raise InputError(None, f"unknown rule(s) {', '.join(unknown)}; known: {', '.join(RULES)}")
    if types_lang(config) != config.lang and not config.langlinks_sql:
        raise InputError(None, f"--types-lang {types_lang(config)} differs from --lang {config.lang}: "
                               "give --langlinks-sql to carry the types across languages")
    if config.shards < 1:
        raise InputError(None, "--shards must be at least 1")


def multistream_indexes(config: BuildConfig) -> dict[str, str]:
    """Each multistream dump's index (given with --multistream-index, or found beside the dump).

    With an index, one dump file is read as many independently decompressed byte ranges, so a
    huge dump part is spread over workers instead of being read by one.
    """
    indexes = dict(zip(config.dumps, config.multistream_index)) if config.multistream_index else {}
    for dump in config.dumps:
        name = os.path.basename(dump)
        if dump in indexes or "multistream" not in name or not name.endswith(".bz2"):
            continue
        guess = os.path.join(os.path.dirname(dump), name.replace(".xml.bz2", "-index.txt.bz2"))
        if guess != dump and os.path.isfile(guess):
            indexes[dump] = guess
    return indexes


def types_lang(config: BuildConfig) -> str:
    return config.types_lang or config.lang


def sparql_config(config: BuildConfig):
    from wikisilver.entities.sparql import SparqlConfig

    return SparqlConfig(
        endpoint=config.sparql, batch_size=config.sparql_batch_size, timeout=config.sparql_timeout,
        retries=config.sparql_retries,
    )
