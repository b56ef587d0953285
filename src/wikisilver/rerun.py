"""The no-op rerun of ``wikisilver build``: is ``--out`` already a finished corpus of the same
inputs (by content: wikisilver.fingerprint) and the same options? Then a scheduled rerun has
nothing to do (:class:`~wikisilver.errors.AlreadyBuilt`); otherwise the options that differ are what a refusal to
overwrite names.

What makes two builds the same build is :func:`comparable_config`, which manifest.json records
(wikisilver.manifest) and a later run compares with its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict

from wikisilver import paths
from wikisilver.config import BuildConfig
from wikisilver.fingerprint import digests, fingerprints


FILE_INPUTS = ("dumps", "multistream_index")  # the job's own; the entity sources' are declared (entities/sources.py)


def input_fingerprints(config: BuildConfig, known: Mapping[str, Mapping] | None = None) -> dict[str, list[dict]]:
    """The fingerprints (wikisilver.fingerprint) of every input file of a config, by option: the
    dumps and their indexes, the files of every declared entity source (a directory's files), the
    second pass's model; ``known``: those a finished corpus recorded, reused for files whose stat
    is unchanged."""
    from wikisilver.entities import sources

    prints = {key: fingerprints(getattr(config, key), known, dump=key == "dumps") for key in FILE_INPUTS}
    for source in sources.SOURCES:
        if source.fingerprinted:
            prints[source.option] = fingerprints(source.files(config), known)
    if config.second_pass:  # a build without it records what it always did
        from wikisilver.ner.seam import model_files

        prints["second_pass"] = fingerprints(model_files(config.second_pass), known)
    return prints


def comparable_config(config: BuildConfig, prints: Mapping[str, list[dict]]) -> dict:
    """What makes two builds the same build: the config without what does not change the output,
    each input file option as the set of its files' content digests (``prints``:
    :func:`input_fingerprints`)."""
    data = asdict(config)
    for volatile in ("overwrite", "beam_args", "strict", "progress_interval", "max_reject_share"):
        data.pop(volatile, None)
    if not config.second_pass:  # as a build of a version without the second pass recorded it
        data.pop("second_pass", None)
        data.pop("second_pass_threshold", None)
    for key, records in prints.items():
        data[key] = digests(records)
    data["disabled_rules"] = sorted(data["disabled_rules"])  # a set: the order given does not matter
    data["out"] = paths.absolute(config.out)
    return json.loads(json.dumps(data))


def recorded_fingerprints(out: str) -> dict[str, dict]:
    """The input fingerprints the finished corpus in ``out`` recorded, by absolute path ({} if none)."""
    try:
        manifest = json.loads(paths.read_text(paths.join(out, "manifest.json")))
        return {r["path"]: r for records in manifest.get("fingerprints", {}).values() for r in records}
    except (OSError, ValueError, AttributeError, TypeError, KeyError):
        return {}


def finished_same_build(out: str, config: BuildConfig, prints: Mapping[str, list[dict]]) -> tuple[dict | None, list[str]]:
    """The stats of a finished corpus in ``out`` built from the same inputs (by content) and
    options, if any; else None and the options (or inputs) that differ from its manifest's.
    manifest.json is the commit marker: without it nothing in ``out`` counts as finished."""
    manifest_path, stats_path = paths.join(out, "manifest.json"), paths.join(out, "stats.json")
    if not (paths.exists(manifest_path) and paths.exists(stats_path)):
        return None, []
    try:
        recorded = json.loads(paths.read_text(manifest_path)).get("comparable") or {}
        wanted = comparable_config(config, prints)
        changed = sorted(key for key in set(recorded) | set(wanted) if recorded.get(key) != wanted.get(key))
        return (None, changed) if changed else (json.loads(paths.read_text(stats_path)), [])
    except (OSError, ValueError, AttributeError):
        return None, []
