"""§6 of the method: the corpora that ``train``, ``evaluate``, ``split`` and ``gazetteers`` read.

A path is a file or a directory of files, ours (Parquet and TSV parts, read by
:mod:`wikisilver.corpus.read`) or gold (CoNLL-2003, CoNLL-U, read by :mod:`wikisilver.corpus.gold`);
the format comes from each file's extension unless it is given. Every sentence comes out as a
:class:`~wikisilver.corpus.tags.TaggedSentence` with IOB2 tags in the tagset asked for.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from wikisilver.corpus.gold import read_conll2003, read_conllu
from wikisilver.corpus.read import read_parquet_tagged, read_tsv
from wikisilver.corpus.tags import CONLL_TYPES, TaggedSentence
from wikisilver.errors import InputError

FORMATS = ("conll2003", "conllu", "conllup", "tsv", "parquet")
# conll and dbpedia are the tag layers of our corpus; fine keeps every type of a gold file's one layer.
TAGSETS = ("conll", "fine", "dbpedia")
GOLD_ONLY_TAGSETS = ("fine",)
TAGSET_HELP = ("conll: PER/LOC/ORG/MISC (default conll); dbpedia: our corpus's DBpedia-class layer, or every "
               "type of a gold file; fine: every type of a gold CoNLL file (gold files only: our corpus has "
               "no fine layer)")

# File extension -> format, for reading directories; anything else (README.md, license.txt) is skipped.
EXTENSION_FORMATS = {
    ".parquet": "parquet",
    ".tsv": "tsv",
    ".conll": "conll2003",
    ".conllu": "conllu",
    ".conllup": "conllup",
}
# With an explicit format these plain-text names are read too (CoNLL-2003 ships as .txt / .iob).
_EXTRA_EXTENSIONS = (".txt", ".iob", ".bio")


def format_of(path: str) -> str | None:
    """The format a file's extension implies, or None."""
    return EXTENSION_FORMATS.get(Path(path).suffix.lower())


def corpus_files(path: str, fmt: str | None = None) -> list[tuple[str, str]]:
    """``(file, format)`` pairs of a file or (recursively, sorted) a directory.

    Hidden and ``_``-prefixed names are skipped: a pipeline's staging directory or ``_SUCCESS``
    markers are not part of a corpus. Of a ``wikisilver build`` output, which holds the same sentences
    twice, only ``parquet/`` is read (``tsv/`` with the tsv format).
    """
    if fmt is not None and fmt not in FORMATS:
        raise InputError(None, f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if os.path.isfile(path):
        found = fmt or format_of(path)
        if found is None:
            raise InputError(path, "cannot tell the format from the extension; pass --format")
        return [(path, found)]
    if not os.path.isdir(path):
        raise InputError(path, "no such file or directory")
    if os.path.isfile(os.path.join(path, "manifest.json")) and os.path.isdir(os.path.join(path, "parquet")):
        path = os.path.join(path, "tsv" if fmt == "tsv" else "parquet")
    files: list[tuple[str, str]] = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for name in sorted(names):
            if name.startswith((".", "_")):
                continue
            full = os.path.join(root, name)
            implied = format_of(name)
            if fmt is not None and (implied is not None or name.lower().endswith(_EXTRA_EXTENSIONS)):
                files.append((full, fmt))
            elif implied is not None:
                files.append((full, implied))
    if not files:
        raise InputError(path, "no corpus files (.parquet, .tsv, .conll, .conllu, .conllup) in directory")
    return files


def check_tagset(paths: Iterable[str], fmt: str | None, tagset: str) -> None:
    """Before any work: a tagset only gold files have (``fine``) asked of our corpus is one line."""
    if tagset not in GOLD_ONLY_TAGSETS:
        return
    for path in paths:
        ours = next((file for file, found in corpus_files(path, fmt) if found in ("parquet", "tsv")), None)
        if ours is not None:
            raise InputError(ours, f"our corpus has no {tagset} tags: --tagset {tagset} is for gold CoNLL files "
                                   f"(every type of their NER column); use conll or dbpedia")


def read_corpus(
    path: str, fmt: str | None = None, *, tagset: str = "conll", encoding: str = "utf-8"
) -> Iterator[TaggedSentence]:
    """Sentences of a corpus file or directory, tags normalized to IOB2 in the given tagset.

    ``tagset`` picks the tag layer of our corpus (``conll`` or ``dbpedia``); gold files have a single
    NER layer, read as it is: with ``conll`` its types must be the CoNLL four, with another tagset
    every type is kept.
    """
    if tagset not in TAGSETS:
        raise InputError(None, f"unknown tagset {tagset!r} (expected one of {', '.join(TAGSETS)})")
    known = CONLL_TYPES if tagset == "conll" else None
    for file, file_fmt in corpus_files(path, fmt):
        if file_fmt == "parquet":
            yield from read_parquet_tagged(file, tagset=tagset)
        elif file_fmt == "tsv":
            yield from read_tsv(file, tagset=tagset, encoding=encoding)
        elif file_fmt in ("conllu", "conllup"):
            yield from read_conllu(file, encoding=encoding, known_types=known)
        else:
            yield from read_conll2003(file, encoding=encoding, known_types=known)


def read_corpora(
    paths: Iterable[str], fmt: str | None = None, *, tagset: str = "conll", encoding: str = "utf-8"
) -> Iterator[TaggedSentence]:
    """:func:`read_corpus` over several paths, one after the other."""
    for path in paths:
        yield from read_corpus(path, fmt, tagset=tagset, encoding=encoding)
