"""Step 2 (sentence splitting): Punkt parameters as a plain TSV data file, trained offline, and
the one repair the ``punkt`` splitter makes to Punkt's sentences.

NLTK's Punkt splitter needs learnt parameters (abbreviation types, collocations, sentence
starters, orthographic context). NLTK ships them only as a downloadable pickle, which we must not
fetch at run time, so we train them ourselves on Wikipedia text (``scripts/train_punkt.py``) and
store them as a TSV under ``mappings/<lang>/punkt.tsv`` that anyone can read and diff.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import Path

from nltk.tokenize.punkt import PunktParameters, PunktTrainer

from wikisilver.errors import InputError

_INITIAL = re.compile(r"[A-Z]\.")
_ROMAN = frozenset("IVX")  # "World War I." ends a sentence
# Punkt orthographic-context bit: the word was seen in lower case in the middle of a sentence.
ORTHO_MID_LC = 1 << 5

_ABBREV_SHAPE = re.compile(r"[^\W\d_]+(?:\.-?[^\W\d_]+)*")

# Orthographic context: rare words add much size for little gain, so training keeps only
# the words seen at least this often (Punkt treats unseen words as "no evidence").
MIN_ORTHO_COUNT = 3


def train_punkt(texts: Iterable[str], min_ortho_count: int = MIN_ORTHO_COUNT) -> PunktParameters:
    """Train Punkt unsupervised on plain texts (e.g. the articles of your own dump)."""
    trainer = PunktTrainer()
    trainer.INCLUDE_ALL_COLLOCS = True
    for text in texts:
        trainer.train(text, finalize=False)
    trainer.finalize_training()
    params = trainer.get_params()
    # Unsupervised training also "learns" a few rare words ("liechtenstein.", "b=2."): keep only
    # letter-and-period types, and plain words only when short (Dr, Col, Inc); the curated list
    # (abbreviations.txt) adds the longer ones that matter.
    params.abbrev_types = {
        t for t in params.abbrev_types if _ABBREV_SHAPE.fullmatch(t) and ("." in t or len(t) <= 4)
    }
    if min_ortho_count > 1:
        counts = trainer._type_fdist  # word-type frequencies seen while training
        keep = {w for w, c in counts.items() if c >= min_ortho_count}
        params.ortho_context = _prune_ortho(params.ortho_context, keep)
    return params


def _prune_ortho(ortho: dict, keep: set[str]) -> dict:
    import collections

    pruned = collections.defaultdict(int)
    for word, flags in ortho.items():
        if word in keep or word.rstrip(".") in keep:
            pruned[word] = flags
    return pruned


def write_punkt_params(params: PunktParameters, path: Path, header: str = "") -> None:
    """Write parameters as TSV rows: ``abbrev\\tTYPE``, ``colloc\\tW1\\tW2``, ``starter\\tW``, ``ortho\\tW\\tFLAGS``."""
    with path.open("w", encoding="utf-8") as out:
        for line in header.splitlines():
            out.write(f"# {line}\n" if line else "#\n")
        out.write("kind\tvalue\textra\n")
        for abbrev in sorted(params.abbrev_types):
            out.write(f"abbrev\t{abbrev}\t\n")
        for first, second in sorted(params.collocations):
            out.write(f"colloc\t{first}\t{second}\n")
        for starter in sorted(params.sent_starters):
            out.write(f"starter\t{starter}\t\n")
        for word, flags in sorted(params.ortho_context.items()):
            if flags and "\t" not in word:
                out.write(f"ortho\t{word}\t{flags}\n")


def read_punkt_params(path: Path, extra_abbrevs: Iterable[str] = ()) -> PunktParameters:
    """Read a TSV written by :func:`write_punkt_params`; ``extra_abbrevs`` are added as written
    ("U.S.", "e.g.": lowercased, final period dropped, as Punkt stores abbreviation types)."""
    params = PunktParameters()
    if not path.exists():
        raise InputError(str(path), "Punkt parameter file missing (train it with scripts/train_punkt.py)")
    with path.open(encoding="utf-8") as handle:
        header_seen = False
        for number, line in enumerate(handle, 1):
            if line.startswith("#") or not line.strip():
                continue
            if not header_seen:
                header_seen = True
                continue
            cells = line.rstrip("\n").split("\t")
            kind = cells[0]
            try:
                if kind == "abbrev":
                    params.abbrev_types.add(cells[1])
                elif kind == "colloc":
                    params.collocations.add((cells[1], cells[2]))
                elif kind == "starter":
                    params.sent_starters.add(cells[1])
                elif kind == "ortho":
                    params.ortho_context[cells[1]] = int(cells[2])
                else:
                    raise ValueError(f"unknown row kind {kind!r}")
            except (IndexError, ValueError) as exc:
                raise InputError(str(path), f"bad Punkt parameter row: {exc}", f"line {number}") from None
    for abbrev in extra_abbrevs:
        params.abbrev_types.add(abbrev.lower().rstrip("."))
    return params


def last_words(text: str, start: int, end: int, n: int = 2) -> list[str]:
    """The last ``n`` whitespace-separated words of ``text[start:end]``, read back from ``end``
    only as far as they reach (a sentence grown by joins is never read whole again)."""
    words: list[str] = []
    i = end
    while len(words) < n:
        while i > start and text[i - 1].isspace():
            i -= 1
        j = i
        while j > start and not text[j - 1].isspace():
            j -= 1
        if j == i:
            break
        words.append(text[j:i])
        i = j
    return words[::-1]


def ends_with_initial(text: str, start: int, end: int) -> bool:
    """Whether the last word of ``text[start:end]`` is an initial (``W.``): where it is not,
    :func:`continues_name` is False whatever follows, and most sentences end otherwise."""
    i = end
    while i > start and text[i - 1].isspace():
        i -= 1
    return i - start >= 2 and text[i - 1] == "." and "A" <= text[i - 2] <= "Z" and (
        i - 2 == start or text[i - 3].isspace())


def continues_name(words: list[str], right: str, function_words: Collection[str]) -> bool:
    """Whether Punkt split a name after a middle initial, given the last ``words`` (two at most) of
    the sentence before and the sentence after: ``George W.`` | ``Bush and …``, ``activist W.`` |
    ``E. B.`` | ``Du Bois …``. Punkt ends a sentence at an initial when the next word also occurs in
    lower case (bush, sessions); a single capital and a period after a capitalized word or another
    initial, followed by an initial or by a capitalized word that is not one of the language's
    ``function_words``, is a name going on. Roman numerals (I, V, X) and function words after the
    period (``Group B.`` | ``The team …``) keep the split."""
    following = right.split(maxsplit=1)
    if not following or not _INITIAL.fullmatch(words[-1]) or words[-1][0] in _ROMAN:
        return False
    first = following[0]
    if _INITIAL.fullmatch(first):
        return True
    before = words[-2] if len(words) > 1 else ""
    if not (before[:1].isupper() or _INITIAL.fullmatch(before)):
        return False
    name = first.rstrip(",;:.")
    return name[:1].isupper() and name.lower() not in function_words
