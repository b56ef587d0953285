"""§6 of the method: other people's gold NER files, read as :class:`~wikisilver.corpus.tags.TaggedSentence`.

CoNLL-2003 (IOB1 or IOB2, ``-DOCSTART-`` lines, tag in the last column) and CoNLL-U / CoNLL-U Plus
(the NER column found from the ``# global.columns`` header, as in NYTK-NerKor). Files are streamed
line by line, never loaded whole. Our own corpus is read by :mod:`wikisilver.corpus.read`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from wikisilver.corpus.tags import CONLL_TYPES, TagCleaner, TaggedSentence, text_lines, to_iob2
from wikisilver.errors import InputError

_NER_COLUMN = re.compile(r"(?:^|:)NER$", re.IGNORECASE)


def _finish(
    tokens: list[str], tags: list[str], **extra: object
) -> TaggedSentence:
    return TaggedSentence(tokens=tuple(tokens), tags=to_iob2(tags), **extra)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Conll2003Sentence:
    """One sentence of a CoNLL-2003 file: the cells of its tokens, the document it is in, and its
    lines as they stand (the ``-DOCSTART-`` lines before it, then one per token), so that
    ``wikisilver tag`` can write it back with only the tags changed."""

    rows: list[tuple[int, list[str]]]  # (line number, cells) of each token
    doc_id: str
    lines: tuple[str, ...] = ()
    token_lines: tuple[int, ...] = ()  # the index in ``lines`` of each token's line


def conll2003_sentences(path: str, encoding: str = "utf-8") -> Iterator[Conll2003Sentence]:
    """The sentences of a CoNLL-2003 file (whitespace-separated columns, token first, tag last),
    read as they are iterated: the one reader of CoNLL-2003 rows. A row of another number of
    columns than the sentence's first, or of fewer than two, is an error naming its line."""
    doc_index = 0
    doc_id = f"{path}#0"
    rows: list[tuple[int, list[str]]] = []
    lines: list[str] = []
    token_lines: list[int] = []
    for line_no, line in text_lines(path, encoding):
        if not line.strip():
            if rows:
                yield Conll2003Sentence(rows, doc_id, tuple(lines), tuple(token_lines))
                rows, lines, token_lines = [], [], []
            continue
        cells = line.split()
        if cells[0] == "-DOCSTART-":
            if rows:
                yield Conll2003Sentence(rows, doc_id, tuple(lines), tuple(token_lines))
                rows, lines, token_lines = [], [], []
            doc_index += 1
            doc_id = f"{path}#{doc_index}"
            lines.append(line)
            continue
        if len(cells) < 2:
            raise InputError(path, f"expected a token and a tag, got {line!r}", f"line {line_no}")
        if rows and len(cells) != len(rows[0][1]):
            raise InputError(
                path, f"{len(cells)} columns where the sentence has {len(rows[0][1])}", f"line {line_no}"
            )
        rows.append((line_no, cells))
        token_lines.append(len(lines))
        lines.append(line)
    if rows:
        yield Conll2003Sentence(rows, doc_id, tuple(lines), tuple(token_lines))


def read_conll2003(
    path: str, *, encoding: str = "utf-8", known_types: frozenset[str] | None = CONLL_TYPES
) -> Iterator[TaggedSentence]:
    """CoNLL-2003 style: whitespace-separated columns, token first, NER tag last, IOB1 or IOB2."""
    clean = TagCleaner(path, known_types)
    for sentence in conll2003_sentences(path, encoding):
        yield _finish([cells[0] for _, cells in sentence.rows],
                      [clean(cells[-1], line_no) for line_no, cells in sentence.rows], doc_id=sentence.doc_id)


_CONLLU_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


@dataclass(frozen=True)
class ConlluSentence:
    """One sentence of a CoNLL-U file: the cells of its tokens, and the document it is in."""

    rows: list[tuple[int, list[str]]]  # (line number, cells) of each token
    doc_id: str  # of the last ``# newdoc`` line before it; the file's path before any
    # Every line of it as it stands (comments, multiword-token and empty-node rows, token rows),
    # and the index in ``lines`` of each token's row: ``wikisilver tag`` writes it back so.
    lines: tuple[str, ...] = ()
    token_lines: tuple[int, ...] = ()


def conllu_sentences(path: str, encoding: str = "utf-8", multiword: bool = False
                     ) -> tuple[tuple[str, ...], Iterator[ConlluSentence]]:
    """The column names of a CoNLL-U file and its sentences, read as they are iterated: the one
    reader of CoNLL-U rows (NER gold here, treebanks in :mod:`wikisilver.text.treebank`).

    CoNLL-U Plus names its columns on its first line (``# global.columns = FORM LEMMA …`` in
    NerKor); plain CoNLL-U has the ten of Universal Dependencies. Multiword-token lines (``1-2``)
    and empty nodes (``1.1``) are not tokens of the sentence (``multiword``: the multiword-token
    lines are kept, before their words). A row whose cells are not one per column is an error
    naming its line.
    """
    lines = text_lines(path, encoding)
    first = next(lines, None)
    if first is not None and first[1].startswith("# global.columns"):
        header = first[1]
        names = tuple(header.split("=", 1)[1].split()) if "=" in header else ()
        return names, _conllu_rows(path, names, lines, multiword)
    return _CONLLU_COLUMNS, _conllu_rows(path, _CONLLU_COLUMNS, itertools.chain([first] if first else [], lines), multiword)


def _conllu_rows(path: str, names: tuple[str, ...], lines: Iterator[tuple[int, str]],
                 multiword: bool = False) -> Iterator[ConlluSentence]:
    id_col = names.index("ID") if "ID" in names else None
    doc_id = path
    rows: list[tuple[int, list[str]]] = []
    block: list[str] = []
    token_lines: list[int] = []
    for line_no, line in lines:
        if not line.strip():
            if rows:
                yield ConlluSentence(rows, doc_id, tuple(block), tuple(token_lines))
                rows, block, token_lines = [], [], []
            continue
        block.append(line)
        # A comment has no tab: NerKor's first column is FORM, so "#<TAB>#<TAB>PUNCT…" is a token.
        if line.startswith("#") and "\t" not in line:
            if line.startswith("# newdoc"):
                _, _, value = line.partition("=")
                doc_id = value.strip() or f"{path}:{line_no}"
            continue
        cells = line.split("\t")
        if len(cells) != len(names):
            raise InputError(
                path, f"{len(cells)} tab-separated columns, the header names {len(names)}", f"line {line_no}"
            )
        if id_col is not None and (("-" in cells[id_col] and not multiword) or "." in cells[id_col]):
            continue
        rows.append((line_no, cells))
        token_lines.append(len(block) - 1)
    if rows:
        yield ConlluSentence(rows, doc_id, tuple(block), tuple(token_lines))


def ner_column(names: tuple[str, ...]) -> int | None:
    """The index of the NER column among a CoNLL-U Plus file's columns (``CONLL:NER``, …), or None."""
    return next((i for i, name in enumerate(names) if _NER_COLUMN.search(name)), None)


def read_conllu(
    path: str, *, encoding: str = "utf-8", known_types: frozenset[str] | None = CONLL_TYPES
) -> Iterator[TaggedSentence]:
    """CoNLL-U Plus (or plain CoNLL-U with ``NER=`` in MISC): the NER column comes from the header."""
    clean = TagCleaner(path, known_types)
    names, sentences = conllu_sentences(path, encoding)
    ner_col = ner_column(names)
    misc_col = names.index("MISC") if ner_col is None and "MISC" in names else None
    if ner_col is None and misc_col is None:
        raise InputError(path, f"no NER column in global.columns ({' '.join(names)})", "line 1")
    form_col = names.index("FORM") if "FORM" in names else 0
    lemma_col = names.index("LEMMA") if "LEMMA" in names else None
    pos_col = names.index("UPOS") if "UPOS" in names else None

    def tag(cells: list[str]) -> str:
        if misc_col is None:
            return cells[ner_col]  # type: ignore[index]
        return next((item[4:] for item in cells[misc_col].split("|") if item.startswith("NER=")), "O")

    for sentence in sentences:
        rows = [cells for _, cells in sentence.rows]
        yield _finish(
            [cells[form_col] for cells in rows], [clean(tag(cells), line_no) for line_no, cells in sentence.rows],
            doc_id=sentence.doc_id,
            lemmas=tuple(cells[lemma_col] for cells in rows) if lemma_col is not None else None,
            pos=tuple(cells[pos_col] for cells in rows) if pos_col is not None else None,
        )
