"""Which languages a run can be for: the Wikipedia language codes (``mappings/wikipedias.txt``) and
the languages with a pack of their own (``mappings/<lang>/labels.toml``).

A code outside the list is refused (most likely a typo: ``--lang xx``); a Wikipedia without a pack
is built with the language-independent defaults, and the user is told which; a ``--lang`` that the
dump's ``<siteinfo>`` contradicts is used as given (headers can be wrong), with a warning.
"""

from __future__ import annotations

from wikisilver.errors import InputError
from wikisilver.resources import has_mapping, load_word_list


def wikipedia_codes() -> frozenset[str]:
    """The language codes of the Wikipedias (open and closed), from mappings/wikipedias.txt."""
    return load_word_list("wikipedias.txt")


def check_language(lang: str) -> None:
    """Refuse a code that names no Wikipedia, in one line."""
    if lang not in wikipedia_codes():
        raise InputError(None, f"--lang {lang!r} is not a Wikipedia language code (e.g. en, hu, zh-yue; "
                               "the list is mappings/wikipedias.txt)")


def has_language_pack(lang: str) -> bool:
    """Whether mappings/<lang>/ holds the language's own labelling rules."""
    return has_mapping(lang, "labels.toml")


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
