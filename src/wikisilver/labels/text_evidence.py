"""Step 3 of the method, the rules of its ``EVIDENCE`` stage: what an article's whole text shows
about the titles its links name, read once per article before any sentence is labelled (a taxon's
name, a word the article writes in lower case), whatever a type source says of them.
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from wikisilver.labels.language import LanguagePack
from wikisilver.labels.registry import Stage, rule
from wikisilver.labels.state import UNK


@functools.cache
def _taxon_pattern(ranks: frozenset[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, ranks))) + r")\s+([A-Z][a-z]+)(?![\w-])")


@rule("taxon_o", Stage.EVIDENCE)
def taxon_o(text: str, pack: LanguagePack) -> dict[str, str]:
    """``the modern subclass [[Lissamphibia]]``, ``the order Anura``: a capitalized word right
    after a taxonomic rank word (``taxon_ranks``) is the name of a taxon, which CoNLL does not
    annotate; where the article says so, every link to it and every alias of it is O, whatever a
    type source says (a sample typed Lissamphibia ``Band``). After a rank word that is also a
    common word (``latin_ranks``: "the order Grant gave") only a Latin name (``taxon_endings``)
    counts."""
    if not pack.taxon_ranks:
        return {}
    names = {}
    for match in _taxon_pattern(pack.taxon_ranks).finditer(text):
        rank, name = match.group(1), match.group(2)
        if rank not in pack.latin_ranks or name.endswith(pack.taxon_endings):
            names[name] = "O"
    return names


_WORD = re.compile(r"(?<![\w'’-])([^\W\d_][\w'’-]*)")
# a word right after another word (and a comma): the lookahead leaves it to be the next match's first.
# Tried only where a run of word characters starts (from its first letter on): tried at every letter,
# a run of a million letters with no space after it was rescanned a million times.
_AFTER_WORD = re.compile(r"(?<![\w'’-])[\d_'’-]*+[^\W\d_][\w'’-]*+,? (?=([^\W\d_][\w'’-]*))")


@rule("common_noun_unk", Stage.EVIDENCE)
def common_noun_unk(text: str, pack: LanguagePack) -> dict[str, str]:
    """``… including consumers, agribusiness, trade lobbies … [[Agribusiness]] interests hold …``: a
    one-word title that the article writes in lower case more often than capitalized inside a
    sentence is a common noun to this article (the capitalization evidence of Nothman et al.),
    whatever a type source says (a sample typed Agribusiness ``University``): the link is unknown,
    UNK, and no alias (precision first: the sentence is dropped, not labelled O). Where
    capitalization is the proper-noun test (Hungarian) a type and a lower-case word never meet
    this way, and the rule asks nothing."""
    if pack.capitalization_is_proper_noun:
        return {}
    # Counted by distinct word (Counter over the regex's matches), not word by word: an article
    # repeats its words, and this runs over every article's whole text.
    lower = {word: n for word, n in Counter(_WORD.findall(text)).items() if word[0].islower()}
    if not lower:
        return {}
    inside = Counter(_AFTER_WORD.findall(text))
    names = {}
    for word, n in lower.items():
        name = word[0].upper() + word[1:]
        if n > (inside.get(name, 0) if name.lower() in lower else 0):
            names[name] = UNK
    return names
