"""Access to the curated data files under ``mappings/`` (installed as ``wikisilver.mappings``).

Rules are data where they can be: class→tag tables, calendar words, personal titles and the
other language resources are TSV/TOML/TXT files documented at their top, loaded once here.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from pathlib import Path


def mapping_path(*parts: str) -> Path:
    """Path of a file under mappings/ (works for editable and regular installs)."""
    return Path(str(resources.files("wikisilver.mappings").joinpath(*parts)))


def has_mapping(*parts: str) -> bool:
    return mapping_path(*parts).exists()


@functools.lru_cache(maxsize=None)
def load_toml(*parts: str) -> dict:
    """A TOML file under mappings/, parsed once."""
    with mapping_path(*parts).open("rb") as handle:
        return tomllib.load(handle)


def load_optional_toml(*parts: str) -> dict:
    """A TOML file under mappings/, parsed once; {} when there is none."""
    return load_toml(*parts) if has_mapping(*parts) else {}


@functools.lru_cache(maxsize=None)
def load_word_list(*parts: str) -> frozenset[str]:
    """A one-entry-per-line list under mappings/ ('#' starts a comment; blank lines ignored)."""
    path = mapping_path(*parts)
    if not path.exists():
        return frozenset()
    words = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("\\#") else line.strip()[1:]
        if line:
            words.add(line)
    return frozenset(words)


@functools.lru_cache(maxsize=None)
def load_tsv(*parts: str) -> tuple[tuple[str, ...], ...]:
    """Rows of a TSV under mappings/ ('#' lines are comments; the first non-comment row is the header)."""
    rows = []
    for line in mapping_path(*parts).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        rows.append(tuple(cell.strip() for cell in line.split("\t")))
    return tuple(rows)
