"""Step 2 (tokens): the tokenizers a language pack chooses from, built from the pack's data.

``treebank``: Penn Treebank conventions, the ones that matter for NER: punctuation is split off;
abbreviations keep their period; 1,000.5, hyphenated words and URLs stay whole; a pack may split
clitics ("'s", "n't") and elided words ("dell'" + "Austria") off the word they lean on.

``ordinal``: for languages that write a period after ordinal numbers ("2012. március", "XX.
század", "15. März"): the period of an ordinal stays with its number (before a lower-case word or
a number; with ``ordinal_digits``, a short number's before any word), a number keeps a case ending
written after a hyphen ("15-én", "50%-os"), hyphenated compounds stay whole.

Both read the pack's ``abbreviations.txt`` (one per line, as written, with the period; a second,
tab-separated field marks a kind: ``number``, an abbreviation only before a number, "No. 5";
``final``, one that may end a sentence, "stb.").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wikisilver.errors import InputError
from wikisilver.text.base import URL_OR_EMAIL


def read_abbreviations(path: Path) -> list[tuple[str, str]]:
    """(abbreviation, kind) per period-final part of each line of an abbreviations file, in file
    order (``Kr. e.`` gives two); kind is the second field ("number", "final") or ""."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        kind = cells[1].strip() if len(cells) > 1 else ""
        rows.extend((part, kind) for part in cells[0].split() if part.endswith("."))
    return rows


def _alternation(words: Sequence[str]) -> str:
    # Longest first, so that a longer abbreviation wins over its prefix.
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def treebank_pattern(always: Sequence[str], numeric: Sequence[str], clitics: Sequence[str] = (),
                     negation: bool = False, elisions: Sequence[str] = ()) -> re.Pattern[str]:
    """The ``treebank`` tokens: ``always`` abbreviations, ``numeric`` ones (before a number only),
    ``clitics`` split after an apostrophe ("s" of "'s", in either case), the ``negation`` "n't"
    split off, ``elisions`` (the words as written before their apostrophe: "dell", "L") split
    before the word they lean on."""
    lower = list(clitics)
    cased = lower + [c.upper() for c in clitics]
    parts = [
        # Fast path, the bulk of the text: a plain word followed by nothing any rule below could
        # continue (no period, hyphen, apostrophe, @, :, /, + and no ",digit"); every other
        # alternative would give this very token, so the result is the same, only sooner.
        r"\w+(?![\w.@'’‐:/+-]|,\d)",
        URL_OR_EMAIL,
    ]
    if always:
        parts.append(rf"(?<!\w)(?:{_alternation(always)})")  # curated abbreviations keep their period
    if numeric:
        parts.append(rf"(?<!\w)(?:{_alternation(numeric)})(?=\s*\d)")  # "No. 5", "p. 12"
    parts += [
        r"(?<!\w)(?:[^\W\d_]\.){2,16}(?!\w)",  # initialisms: U.S., e.g., D.C. (bounded: each token would rescan a long run)
        r"(?<!\w)[A-Z]\.(?=\s+[A-Z])",  # an initial before a name: "J. K. Rowling"
        r"\d+(?:[.,:/]\d+)+",  # 1,000.5  12:30  1/2
    ]
    if negation:
        parts += [r"\w+(?=n['’]t\b)", r"n['’]t\b"]  # "do" of "don't", "n't"
    if clitics:
        parts.append(rf"(?<=\w)['’](?:{_alternation(cased)})\b")  # clitics 's 're 've 'll 'd 'm
    if elisions:
        parts.append(rf"(?<!\w)(?:{_alternation(elisions)})['’](?=\w)")  # "dell'" of "dell'Austria"
    if clitics:
        parts.append(rf"\w+(?:[-‐]\w+)*(?:['’](?!(?:{_alternation(lower)})\b)\w+)*")  # words, compounds, O'Brien
    else:
        parts.append(r"\w+(?:[-‐]\w+)*(?:['’]\w+)*")
    parts.append(r"\.{2,}|-{2,}|[^\w\s]")
    return re.compile("|".join(parts))


# Characters that are neither word characters nor white space with which a treebank token may start
# other than as a mark of its own (the pattern's last alternative, [^\w\s]): "--", an e-mail
# address ("-x@y.org", "+x@y.org"), a clitic ("'s", "’re"). A period ("...", ".x@y.org") is not
# among them: the compiled scanner reads it itself (text/_scan.c).
_TREEBANK_STARTS = "+-'’"


def treebank_specials(settings: Mapping[str, Any], abbreviations: list[tuple[str, str]]) -> str | None:
    """For a ``treebank`` tokenizer, the characters neither word characters nor white space with
    which one of its tokens may start other than as a mark of its own, the period aside:
    :data:`_TREEBANK_STARTS` and the first characters of the pack's abbreviations and elisions. Any
    other such character is a token by itself, wherever it stands; the compiled scanner
    (``text/_scan.c``) takes it so. None for another tokenizer."""
    if settings.get("tokenizer", "treebank") != "treebank":
        return None
    firsts = {a[:1] for a, _ in abbreviations} | {e[:1] for e in settings.get("elisions", ())}
    extra = sorted(c for c in firsts if c and not re.fullmatch(r"[\w\s]", c) and c not in _TREEBANK_STARTS)
    return _TREEBANK_STARTS + "".join(extra)


def ordinal_pattern(abbreviations: Sequence[str], lower: str, upper: str, ordinal_digits: int = 0) -> re.Pattern[str]:
    """The ``ordinal`` tokens; ``lower`` and ``upper`` are the letters (a regex class body) that
    may follow an ordinal's period inside a sentence and that start an initial's name; a number of
    at most ``ordinal_digits`` digits keeps its period before any word ("15. März")."""
    parts = [URL_OR_EMAIL]
    if abbreviations:
        parts.append(rf"(?<!\w)(?:{_alternation(abbreviations)})(?!\w)")  # stb. pl. Kr. e.
    if ordinal_digits > 0:
        parts.append(rf"(?<![\w.,])\d{{1,{int(ordinal_digits)}}}\.(?=\s+\w)")  # "15. März", "19. Jahrhundert"
    parts += [
        r"(?<!\w)[IVXLCDM]+\.(?=\s+\S)",  # Roman ordinal: "XX. század", "II. Rákóczi"
        rf"\d+(?:[.,]\d+)*\.(?=\s+[{lower}\d(–-])",  # ordinal: "2012. március", "15. század"
        r"\d+(?:[.,:/]\d+)*(?:%?-\w+)?",  # numbers, with a case ending: "15-én", "50%-os"
        rf"(?<!\w)[{upper}]\.(?=\s+[{upper}])",  # initials: "J. K. Rowling"
        r"\w+(?:[-‐]\w+)*",  # words and hyphenated compounds: "Nobel-díjas", "NASA-nak"
        r"\.{2,}|-{2,}|[^\w\s]",
    ]
    return re.compile("|".join(parts))


def token_pattern(settings: Mapping[str, Any], abbreviations: list[tuple[str, str]], where: str) -> re.Pattern[str]:
    """The pattern of the ``[tokens]`` table of a pack.toml (``where`` names it in errors)."""
    kind = settings.get("tokenizer", "treebank")
    if kind == "treebank":
        return treebank_pattern(
            [a for a, k in abbreviations if k != "number"], [a for a, k in abbreviations if k == "number"],
            settings.get("clitics", ()), bool(settings.get("negation", False)), settings.get("elisions", ()),
        )
    if kind == "ordinal":
        return ordinal_pattern([a for a, _ in abbreviations], settings["lower"], settings["upper"],
                               int(settings.get("ordinal_digits", 0)))
    raise InputError(where, f"unknown tokenizer {kind!r} (treebank or ordinal)", "[tokens]")
