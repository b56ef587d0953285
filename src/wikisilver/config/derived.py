"""Settings derived from a config, read where they are used rather than stored in it: the
dump's ``<siteinfo>`` language, the default number of parts and the size of the title filter
(scaled with the compressed dump), each multistream dump's index, the language of the types'
titles, the SPARQL client's settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wikisilver import paths

if TYPE_CHECKING:
    from wikisilver.config.options import BuildConfig
    from wikisilver.entities.sparql import SparqlConfig


def siteinfo_language(dump: str) -> str | None:
    """The wiki language named by a dump's ``<siteinfo>`` (None when it names none)."""
    from wikisilver import dump as dumplib

    return dumplib.dump_language(dumplib.read_siteinfo(dump))


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
