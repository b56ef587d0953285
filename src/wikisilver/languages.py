"""Which languages a run can be for, and the pack loader: the one place that maps a language code
to its folder of conventions.

A code must name a Wikipedia (``mappings/wikipedias.txt``; anything else is most likely a typo:
``--lang xx``). A language has a *full pack* when ``mappings/<lang>/pack.toml`` exists: that folder
then holds every convention of the language (sentence splitter, tokenizer, tagger model, labelling
resources, calendar grammar, word lists; docs/languages.md). Any other language is built with the
named fallback, ``mappings/default/``: the language-independent splitter and tokenizer, no tagger,
the default labelling resources. The user is told which, and ``stats.json`` and the dataset card
name it. A folder without ``pack.toml`` may still hold the wiki's own markup conventions
(``wikitext.toml``, ``templates.toml``), which the cleaner reads whatever the pack.

Nothing else in the code asks for a language by its code: it asks the :class:`Pack`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikisilver.errors import InputError
from wikisilver.resources import has_mapping, load_optional_toml, load_word_list, mapping_path

#: the file that makes a folder of mappings/ a full language pack
PACK_FILE = "pack.toml"
#: the folder every language without a pack falls back to
FALLBACK = "default"


def wikipedia_codes() -> frozenset[str]:
    """The language codes of the Wikipedias (open and closed), from mappings/wikipedias.txt."""
    return load_word_list("wikipedias.txt")


def check_language(lang: str) -> None:
    """Refuse a code that names no Wikipedia, in one line."""
    if lang not in wikipedia_codes():
        raise InputError(None, f"--lang {lang!r} is not a Wikipedia language code (e.g. en, hu, zh-yue; "
                               "the list is mappings/wikipedias.txt)")


def has_language_pack(lang: str) -> bool:
    """Whether mappings/<lang>/ is a full language pack (it holds pack.toml)."""
    return _is_code(lang) and has_mapping(lang, PACK_FILE)


def _is_code(lang: str) -> bool:
    """A code that can name a folder (letters, digits and hyphens: ``zh-min-nan``), never a path."""
    return bool(lang) and lang != FALLBACK and all(ch.isalnum() or ch == "-" for ch in lang)


@dataclass(frozen=True)
class Pack:
    """The folder of one language's conventions: its own (``full``) or the fallback's."""

    lang: str  # the language of the run
    folder: str  # mappings/<folder>/: ``lang`` for a full pack, else ``default``
    settings: dict[str, Any]  # pack.toml ({} for the fallback, which has none)

    @property
    def full(self) -> bool:
        return self.folder != FALLBACK

    def path(self, name: str) -> Path:
        """A file of the pack (``pos_model.json.gz``)."""
        return mapping_path(self.folder, name)

    def has(self, name: str) -> bool:
        return has_mapping(self.folder, name)

    def words(self, name: str) -> frozenset[str]:
        """A one-entry-per-line list of the pack (empty when the pack has none)."""
        return load_word_list(self.folder, name)

    def table(self, name: str) -> dict[str, Any]:
        """A TOML file of the pack, parsed ({} when the pack has none)."""
        return load_optional_toml(self.folder, name)

    def section(self, name: str) -> dict[str, Any]:
        """A table of pack.toml ({} when absent)."""
        return dict(self.settings.get(name, {}))

    def describe(self) -> dict[str, str]:
        """What a run records of its pack (``stats.json`` ``language_pack``, the dataset card)."""
        licence = self.section("licence")
        record = {"language": self.lang, "pack": "full" if self.full else "fallback",
                  "folder": f"mappings/{self.folder}/"}
        if licence.get("models"):
            record["models_licence"] = str(licence["models"])
        if licence.get("note"):
            record["licence_note"] = " ".join(str(licence["note"]).split())
        return record


@functools.cache
def language_pack(lang: str) -> Pack:
    """The pack of ``lang``: mappings/<lang>/ when it holds pack.toml, else the fallback."""
    if has_language_pack(lang):
        return Pack(lang, lang, load_optional_toml(lang, PACK_FILE))
    return Pack(lang, FALLBACK, {})


def wiki_conventions(lang: str, name: str) -> dict[str, Any]:
    """A wiki's own markup table (``wikitext.toml``, ``templates.toml``) from mappings/<lang>/,
    pack or not ({} when the language has none)."""
    return load_optional_toml(lang, name) if _is_code(lang) else {}


def language_warnings(lang: str, dump: str, dump_lang: str | None) -> list[str]:
    """What the user should know about building in ``lang`` from ``dump`` (whose ``<siteinfo>``
    names ``dump_lang``): a language without a pack, and a header that names another language."""
    warnings = []
    if dump_lang and dump_lang != lang:
        warnings.append(f"--lang {lang}, but the <siteinfo> of {dump} says {dump_lang}wiki: building as {lang} "
                        "(the header is sometimes wrong; if it is right, pass --lang "
                        f"{dump_lang} or leave --lang out)")
    if not has_language_pack(lang):
        warnings.append(f"no language pack for {lang} in mappings/{lang}/: the labelling rules fall back to "
                        "mappings/default/labels.toml, sentences and tokens to the language-independent "
                        "splitter, lemmas to the lower-cased word and POS to X (PROPN, NUM, PUNCT by shape)")
    return warnings
