"""manifest.json of a finished build: what the corpus was built from (each input's path, size
and SHA-256; a dump's ``<siteinfo>``), with what options, what it wrote and when.

manifest.json is written last, by wikisilver.ownership's ``commit`` (which adds the ``files`` a
later run owns there): a folder with one is a finished corpus. Its ``comparable`` and
``fingerprints`` are what the no-op rerun compares (wikisilver.rerun). The ``entities`` job's
manifest records its config the same way (:func:`config_record`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict

from wikisilver import __version__, paths
from wikisilver import dump as dumplib
from wikisilver.config import BuildConfig
from wikisilver.entities import sources
from wikisilver.entities.sources import Source
from wikisilver.fingerprint import digest_of
from wikisilver.rerun import comparable_config


def sha256_of(path: str) -> str:
    """The SHA-256 of a file, as hex."""
    return digest_of(path, "sha256").removeprefix("sha256:")


def input_record(path: str, sha256: str = "") -> dict:
    """Path, size and SHA-256 of an input file (``sha256``: already known, so not read again)."""
    return {"path": paths.absolute(path), "bytes": paths.size(path), "sha256": sha256 or sha256_of(path)}


def dump_record(path: str, sha256: str = "") -> dict:
    """:func:`input_record` of a dump, with what its ``<siteinfo>`` and its file name say."""
    record = input_record(path, sha256)
    try:
        site = dumplib.read_siteinfo(path)
        record.update(dbname=site.dbname, language=dumplib.dump_language(site), generator=site.generator)
    except Exception as error:  # the manifest reports what it could not read
        record["siteinfo_error"] = str(error)
    record["dump_date"] = dumplib.wiki_date_from_name(path)
    return record


def config_record(config: BuildConfig) -> dict:
    """The config as manifest.json records it (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()}


def source_record(source: Source, config: BuildConfig, record) -> list[dict] | dict | str | None:
    """What manifest.json ``inputs`` says of a source's files: each file's record (a list if the
    option is repeatable), a directory's path; None when not given."""
    values = source.values(config)
    if source.kind == "dir":
        return paths.absolute(values[0]) if values else None
    if source.repeatable:
        return [record(p) for p in values]
    return record(values[0]) if values else None


def build_manifest(config: BuildConfig, out: str, started: dt.datetime, prints: dict) -> dict:
    """manifest.json: the inputs with their checksums and fingerprints, the config, the outputs, when."""
    sha256 = {r["path"]: r["digest"][7:] for records in prints.values() for r in records
              if r["digest"].startswith("sha256:")}

    def record(path: str) -> dict:
        return input_record(path, sha256.get(paths.absolute(path), ""))

    return {
        "tool": "wikisilver",
        "version": __version__,
        "language": config.lang,
        "dumps": [dump_record(p, sha256.get(paths.absolute(p), "")) for p in config.dumps],
        "inputs": {source.option: source_record(source, config, record) for source in sources.SOURCES
                   if source.kind != "url"},
        "config": config_record(config),
        "comparable": comparable_config(config, prints),
        "fingerprints": prints,
        "outputs": {
            "tsv": [paths.basename(p) for p in paths.listdir(paths.join(out, "tsv"))],
            "parquet": [paths.basename(p) for p in paths.listdir(paths.join(out, "parquet"))],
        },
        "started": started.isoformat(),
        "finished": dt.datetime.now(dt.timezone.utc).isoformat(),
    }
