"""§6 of the method: other people's gold NER files, read as :class:`~wikisilver.corpus.tags.TaggedSentence`.

CoNLL-2003 (IOB1 or IOB2, ``-DOCSTART-`` lines, tag in the last column) and CoNLL-U / CoNLL-U Plus
(the NER column found from the ``# global.columns`` header, as in NYTK-NerKor). Files are streamed
line by line, never loaded whole. Our own corpus is read by :mod:`wikisilver.corpus.read`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from wikisilver.corpus.tags import CONLL_TYPES, TagCleaner, TaggedSentence, text_lines, to_iob2
from wikisilver.errors import InputError

_NER_COLUMN = re.compile(r"(?:^|:)NER$", re.IGNORECASE)


def _finish(
    tokens: list[str], tags: list[str], **extra: object
) -> TaggedSentence:
    return TaggedSentence(tokens=tuple(tokens), tags=to_iob2(tags), **extra)  # type: ignore[arg-type]


def read_conll2003(
    path: str, *, encoding: str = "utf-8", known_types: frozenset[str] | None = CONLL_TYPES
) -> Iterator[TaggedSentence]:
    """CoNLL-2003 style: whitespace-separated columns, token first, NER tag last, IOB1 or IOB2."""
    clean = TagCleaner(path, known_types)
    doc_index = 0
    doc_id = f"{path}#0"
    tokens: list[str] = []
    tags: list[str] = []
    columns = 0
    for line_no, line in text_lines(path, encoding):
        if not line.strip():
            if tokens:
                yield _finish(tokens, tags, doc_id=doc_id)
                tokens, tags, columns = [], [], 0
            continue
        cells = line.split()
        if cells[0] == "-DOCSTART-":
            if tokens:
                yield _finish(tokens, tags, doc_id=doc_id)
                tokens, tags, columns = [], [], 0
            doc_index += 1
            doc_id = f"{path}#{doc_index}"
            continue
        if len(cells) < 2:
            raise InputError(path, f"expected a token and a tag, got {line!r}", f"line {line_no}")
        if columns and len(cells) != columns:
            raise InputError(
                path, f"{len(cells)} columns where the sentence has {columns}", f"line {line_no}"
            )
        columns = len(cells)
        tokens.append(cells[0])
        tags.append(clean(cells[-1], line_no))
    if tokens:
        yield _finish(tokens, tags, doc_id=doc_id)


_CONLLU_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


def read_conllu(
    path: str, *, encoding: str = "utf-8", known_types: frozenset[str] | None = CONLL_TYPES
) -> Iterator[TaggedSentence]:
    """CoNLL-U Plus (or plain CoNLL-U with ``NER=`` in MISC): the NER column comes from the header.

    Multiword-token lines (``1-2``) and empty nodes (``1.1``) are not tokens of the sentence.
    """
    clean = TagCleaner(path, known_types)
    names: tuple[str, ...] = _CONLLU_COLUMNS
    ner_col: int | None = None
    in_misc = False
    doc_id = path
    tokens: list[str] = []
    tags: list[str] = []
    lemmas: list[str] = []
    pos: list[str] = []
    header_seen = False

    def columns_from(names_: tuple[str, ...], line_no: int) -> None:
        nonlocal ner_col, in_misc
        found = [i for i, name in enumerate(names_) if _NER_COLUMN.search(name)]
        ner_col = found[0] if found else None
        in_misc = ner_col is None and "MISC" in names_
        if ner_col is None and not in_misc:
            raise InputError(
                path, f"no NER column in global.columns ({' '.join(names_)})", f"line {line_no}"
            )

    def sentence() -> TaggedSentence:
        return _finish(
            tokens, tags, doc_id=doc_id,
            lemmas=tuple(lemmas) if lemma_col is not None else None,
            pos=tuple(pos) if pos_col is not None else None,
        )

    lemma_col = pos_col = None
    form_col = 1
    id_col: int | None = 0
    for line_no, line in text_lines(path, encoding):
        if not header_seen:
            header_seen = True
            if line.startswith("# global.columns"):
                names = tuple(line.split("=", 1)[1].split()) if "=" in line else ()
            columns_from(names, line_no)
            form_col = names.index("FORM") if "FORM" in names else 0
            id_col = names.index("ID") if "ID" in names else None
            lemma_col = names.index("LEMMA") if "LEMMA" in names else None
            pos_col = names.index("UPOS") if "UPOS" in names else None
            if line.startswith("# global.columns"):
                continue
        if not line.strip():
            if tokens:
                yield sentence()
                tokens, tags, lemmas, pos = [], [], [], []
            continue
        # A comment has no tab: NerKor's first column is FORM, so "#<TAB>#<TAB>PUNCT…" is a token.
        if line.startswith("#") and "\t" not in line:
            if line.startswith("# newdoc"):
                _, _, value = line.partition("=")
                doc_id = value.strip() or f"{path}:{line_no}"
            continue
        cells = line.split("\t")
        if len(cells) != len(names):
            raise InputError(
                path, f"{len(cells)} tab-separated columns, the header names {len(names)}",
                f"line {line_no}",
            )
        if id_col is not None and ("-" in cells[id_col] or "." in cells[id_col]):
            continue
        tokens.append(cells[form_col])
        if lemma_col is not None:
            lemmas.append(cells[lemma_col])
        if pos_col is not None:
            pos.append(cells[pos_col])
        if in_misc:
            raw = next(
                (item[4:] for item in cells[names.index("MISC")].split("|") if item.startswith("NER=")),
                "O",
            )
        else:
            raw = cells[ner_col]  # type: ignore[index]
        tags.append(clean(raw, line_no))
    if tokens:
        yield sentence()
