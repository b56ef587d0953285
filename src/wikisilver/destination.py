"""Where a run may write at all: never into a system folder or the home directory, and never
where its own inputs live (a build owns only what it wrote: docs/output.md, "What a build owns";
what it owns inside ``--out`` is wikisilver.ownership's).

Both are checked when a config is resolved (wikisilver.config), before the first byte of work.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from wikisilver import paths
from wikisilver.errors import InputError

# An --out that resolves (symlinks followed) to one of these is refused. Folders under
# SYSTEM_ROOT ("": the root itself); the home directory ($HOME) is added by system_folders().
# Tests point SYSTEM_ROOT at a temporary folder standing for the root.
SYSTEM_ROOT = "/"
SYSTEM_FOLDERS = (
    "", "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt", "proc",
    "root", "run", "sbin", "srv", "sys", "tmp", "usr", "var",
)


def system_folders() -> frozenset[str]:
    """The folders an ``--out`` must not resolve to: :data:`SYSTEM_FOLDERS` and the home directory."""
    found = {os.path.realpath(os.path.join(SYSTEM_ROOT, name)) for name in SYSTEM_FOLDERS}
    home = os.path.expanduser("~")
    if home != "~":
        found.add(os.path.realpath(home))
    return frozenset(found)


def input_paths(config: Any, config_file: str | os.PathLike | None = None) -> dict[str, tuple[str, ...]]:
    """Every input file or folder of a build or entities config (and its ``--config`` file), by option."""
    found = {
        "--dump": config.dumps, "--multistream-index": config.multistream_index, "--types": config.types,
        "--ontology": (config.ontology,), "--entities": config.entities,
        "--infobox-mappings": (config.infobox_mappings,), "--page-sql": config.page_sql,
        "--redirect-sql": config.redirect_sql, "--page-props-sql": config.page_props_sql,
        "--langlinks-sql": config.langlinks_sql, "--config": (os.fspath(config_file) if config_file else None,),
    }
    if getattr(config, "second_pass", None):
        from wikisilver.ner.seam import model_files

        found["--second-pass"] = tuple(model_files(config.second_pass))
    return {option: tuple(p for p in given if p) for option, given in found.items()}


def check_destination(out: str, inputs: Mapping[str, Iterable[str]]) -> None:
    """Refuse, in one line, an ``out`` that resolves to a system folder or the home directory, and
    an input that lies inside ``out`` (a run replaces what it wrote there)."""
    if not paths.is_remote(out):
        real = os.path.realpath(out)
        if real in system_folders():
            raise InputError(out, f"--out resolves to {real}, a system folder or the home directory: refused; "
                                  "give a folder of its own for the output")
    for option, given in inputs.items():
        for path in given:
            if _inside(path, out):
                raise InputError(path, f"{option} lies inside --out {out}: refused, a run replaces what it wrote "
                                       "there; move the input elsewhere or give another --out")


def _inside(path: str, out: str) -> bool:
    """Whether ``path`` is ``out`` or lies under it (locally: as given, or with symlinks followed)."""
    if paths.is_remote(path) != paths.is_remote(out):
        return False
    if paths.is_remote(out):
        path, out = paths.normalize(path).rstrip("/"), paths.normalize(out).rstrip("/")
        return path == out or path.startswith(out + "/")
    for resolve in (os.path.abspath, os.path.realpath):
        inner, outer = resolve(path), resolve(out)
        if inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep):
            return True
    return False
