"""Readers for §6 of the method ("proving the corpus"): gold CoNLL-style files and our own output.

Every reader yields :class:`TaggedSentence` with IOB2 tags, whatever the input used: CoNLL-2003
(IOB1 or IOB2, ``-DOCSTART-`` lines, tag in the last column), CoNLL-U / CoNLL-U Plus (the NER column
found from the ``# global.columns`` header, as in NYTK-NerKor), our multitag TSV and our Parquet.
Files are streamed line by line (or batch by batch), never loaded whole: the silver corpus of a large
Wikipedia has hundreds of millions of tokens.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from wikisilver.errors import InputError

log = logging.getLogger(__name__)

FORMATS = ("conll2003", "conllu", "conllup", "tsv", "parquet")
TAGSETS = ("conll", "fine", "dbpedia")
CONLL_TYPES = frozenset({"PER", "LOC", "ORG", "MISC"})

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

_MAX_TAG_WARNINGS = 20  # per file: a corpus full of bad tags should not flood the log
_COMMENT_FIELD = re.compile(r"(\w+)=(\S*)")
_NER_COLUMN = re.compile(r"(?:^|:)NER$", re.IGNORECASE)


@dataclass(frozen=True)
class TaggedSentence:
    """One sentence with its NER tags (IOB2), as read from a gold file or from our corpus."""

    tokens: tuple[str, ...]
    tags: tuple[str, ...]  # IOB2, in the tagset asked for when reading
    doc_id: str | None = None  # the article (page id / title) or document the sentence belongs to
    low_quality: bool = False
    fine_tags: tuple[str, ...] | None = None
    pos: tuple[str, ...] | None = None
    lemmas: tuple[str, ...] | None = None
    # Kept so that a split of our corpus can be written back in the same 5-column format.
    dbpedia_tags: tuple[str, ...] | None = None
    conll_tags: tuple[str, ...] | None = None
    title: str | None = None
    sentence_index: int | None = None


# --------------------------------------------------------------------------- tags


def iob_to_spans(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """Entity spans ``(start, end, type)``, end exclusive, of a tag sequence.

    Follows conlleval: a chunk starts at ``B-X``, at ``I-X`` after ``O`` or after another type, so
    IOB1 and IOB2 give the same spans and a stray ``I-`` is not lost.
    """
    spans: list[tuple[int, int, str]] = []
    start: int | None = None
    current = ""
    for i, tag in enumerate(tags):
        if tag == "O" or "-" not in tag:
            prefix, kind = "O", ""
        else:
            prefix, kind = tag.split("-", 1)
        begins = prefix in ("B", "S") or (prefix in ("I", "E") and kind != current)
        if start is not None and (prefix == "O" or begins):
            spans.append((start, i, current))
            start, current = None, ""
        if begins:
            start, current = i, kind
        if prefix in ("E", "S") and start is not None:
            spans.append((start, i + 1, current))
            start, current = None, ""
    if start is not None:
        spans.append((start, len(tags), current))
    return spans


def spans_to_iob(length: int, spans: Iterable[tuple[int, int, str]]) -> tuple[str, ...]:
    """IOB2 tags of ``length`` tokens carrying the given spans."""
    tags = ["O"] * length
    for start, end, kind in spans:
        tags[start] = f"B-{kind}"
        for i in range(start + 1, end):
            tags[i] = f"I-{kind}"
    return tuple(tags)


def to_iob2(tags: Sequence[str]) -> tuple[str, ...]:
    """IOB1 (or IOBES) tags rewritten as IOB2; IOB2 input comes back unchanged."""
    return spans_to_iob(len(tags), iob_to_spans(tags))


class _TagCleaner:
    """Maps raw tag strings to ``O`` / ``B-X`` / ``I-X``; warns (file and line) about bad ones."""

    def __init__(self, path: str, known_types: frozenset[str] | None) -> None:
        self.path = path
        self.known_types = known_types
        self.warnings = 0

    def __call__(self, raw: str, line_no: int) -> str:
        tag = raw.strip()
        if tag in ("O", "0", "_", ""):
            return "O"
        prefix, sep, kind = tag.partition("-")
        if not sep:  # a bare type ("PER") is IOB1-style inside; a bare letter ("V") is junk
            prefix, kind = "I", tag
        if prefix not in ("B", "I", "E", "S") or not kind:
            return self._bad(tag, line_no)
        if self.known_types is not None and kind not in self.known_types:
            return self._bad(tag, line_no)
        return f"{prefix}-{kind}"

    def _bad(self, tag: str, line_no: int) -> str:
        self.warnings += 1
        if self.warnings <= _MAX_TAG_WARNINGS:
            log.warning("%s:%d: unknown NER tag %r read as O", self.path, line_no, tag)
        elif self.warnings == _MAX_TAG_WARNINGS + 1:
            log.warning("%s: more unknown NER tags; not reporting each", self.path)
        return "O"


# --------------------------------------------------------------------------- text readers


def _lines(path: str, encoding: str) -> Iterator[tuple[int, str]]:
    """Numbered lines without their line end; a decoding error names the file and line."""
    line_no = 0
    try:
        with open(path, encoding=encoding, newline="") as handle:
            for line_no, line in enumerate(handle, start=1):
                yield line_no, line.rstrip("\r\n")
    except UnicodeDecodeError as error:
        raise InputError(
            path, f"not valid {encoding} ({error.reason}); pass the right --encoding", f"line {line_no + 1}"
        ) from None
    except LookupError:
        raise InputError(path, f"unknown encoding {encoding!r}") from None
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}") from None


def _finish(
    tokens: list[str], tags: list[str], **extra: object
) -> TaggedSentence:
    return TaggedSentence(tokens=tuple(tokens), tags=to_iob2(tags), **extra)  # type: ignore[arg-type]


def read_conll2003(
    path: str, *, encoding: str = "utf-8", known_types: frozenset[str] | None = CONLL_TYPES
) -> Iterator[TaggedSentence]:
    """CoNLL-2003 style: whitespace-separated columns, token first, NER tag last, IOB1 or IOB2."""
    clean = _TagCleaner(path, known_types)
    doc_index = 0
    doc_id = f"{path}#0"
    tokens: list[str] = []
    tags: list[str] = []
    columns = 0
    for line_no, line in _lines(path, encoding):
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
    clean = _TagCleaner(path, known_types)
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
    for line_no, line in _lines(path, encoding):
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


def _comment_fields(line: str) -> dict[str, str]:
    """``# page_id=12 title=Foo_bar sentence=3 low_quality=0`` -> dict (title may hold spaces)."""
    body = line.lstrip("#").strip()
    fields: dict[str, str] = {}
    title_at = body.find("title=")
    if title_at >= 0:
        # The title runs to the next " key=" so titles with spaces survive.
        rest = body[title_at + 6:]
        match = re.search(r" (?:sentence|low_quality|page_id|doc)=", rest)
        fields["title"] = rest[: match.start()] if match else rest
        body = body[:title_at] + (rest[match.start():] if match else "")
    for key, value in _COMMENT_FIELD.findall(body):
        fields.setdefault(key, value)
    return fields


def read_tsv(
    path: str, *, tagset: str = "conll", encoding: str = "utf-8"
) -> Iterator[TaggedSentence]:
    """Our multitag TSV: ``token lemma pos dbpedia_tag conll_tag`` (+ an optional 6th fine tag)."""
    known = CONLL_TYPES if tagset == "conll" else None
    clean = _TagCleaner(path, known)
    rows: list[list[str]] = []
    first_line = 0
    meta: dict[str, str] = {}

    def sentence() -> TaggedSentence:
        tokens = [r[0] for r in rows]
        conll = to_iob2([clean(r[4], first_line + k) for k, r in enumerate(rows)])
        dbpedia = to_iob2([clean_any(r[3], first_line + k) for k, r in enumerate(rows)])
        fine = (
            to_iob2([clean_any(r[5], first_line + k) for k, r in enumerate(rows)])
            if rows[0][5:] else None
        )
        if tagset == "conll":
            tags = conll
        elif tagset == "dbpedia":
            tags = dbpedia
        elif fine is None:
            raise InputError(
                path, "no fine tags in this TSV (5 columns); use --tagset conll or dbpedia, "
                "or read the Parquet output", f"line {first_line}",
            )
        else:
            tags = fine
        page = meta.get("page_id") or meta.get("doc") or None
        title = meta.get("title") or None
        index = meta.get("sentence")
        return TaggedSentence(
            tokens=tuple(tokens), tags=tags,
            doc_id=page or title or path,
            low_quality=meta.get("low_quality") in ("1", "true", "True"),
            fine_tags=fine, pos=tuple(r[2] for r in rows), lemmas=tuple(r[1] for r in rows),
            dbpedia_tags=dbpedia, conll_tags=conll, title=title,
            sentence_index=int(index) if index and index.isdigit() else None,
        )

    clean_any = _TagCleaner(path, None)
    for line_no, line in _lines(path, encoding):
        if not line.strip():
            if rows:
                yield sentence()
                rows, meta = [], {}
            continue
        if line.startswith("#") and "\t" not in line:  # a "#" token still has its 4 tabs
            meta = _comment_fields(line)
            continue
        cells = line.split("\t")
        if len(cells) not in (5, 6):
            raise InputError(
                path, f"expected 5 tab-separated columns (token lemma pos dbpedia_tag conll_tag), "
                f"got {len(cells)}", f"line {line_no}",
            )
        if not rows:
            first_line = line_no
        rows.append(cells)
    if rows:
        yield sentence()


_PARQUET_TAG_COLUMN = {"conll": "conll_tags", "dbpedia": "dbpedia_tags", "fine": "fine_tags"}


def read_parquet(path: str, *, tagset: str = "conll", batch_size: int = 4096) -> Iterator[TaggedSentence]:
    """Our Parquet output, one row per sentence, read batch by batch."""
    import pyarrow.parquet as pq

    try:
        handle = pq.ParquetFile(path)
    except (OSError, ValueError) as error:
        raise InputError(path, f"not a readable Parquet file ({error})") from None
    present = set(handle.schema_arrow.names)
    tag_column = _PARQUET_TAG_COLUMN[tagset]
    required = {"tokens", "conll_tags", tag_column}
    missing = sorted(required - present)
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)} (tagset {tagset})")
    wanted = [
        name
        for name in ("title", "page_id", "sentence_index", "tokens", "lemmas", "pos",
                     "dbpedia_tags", "conll_tags", "fine_tags", "low_quality")
        if name in present
    ]
    known = CONLL_TYPES if tagset == "conll" else None
    clean = _TagCleaner(path, known)
    clean_any = _TagCleaner(path, None)
    row_no = 0
    for batch in handle.iter_batches(batch_size=batch_size, columns=wanted):
        for row in batch.to_pylist():
            row_no += 1
            tokens = tuple(row["tokens"])
            where = f"row {row_no}"
            columns = {}
            for name in ("conll_tags", "dbpedia_tags", "fine_tags", "lemmas", "pos"):
                value = row.get(name)
                if value is not None and len(value) != len(tokens):
                    raise InputError(path, f"{name} has {len(value)} items for {len(tokens)} tokens", where)
                columns[name] = value
            conll = to_iob2([clean(t, row_no) for t in columns["conll_tags"]])
            dbpedia = (
                to_iob2([clean_any(t, row_no) for t in columns["dbpedia_tags"]])
                if columns["dbpedia_tags"] is not None else None
            )
            fine = (
                to_iob2([clean_any(t, row_no) for t in columns["fine_tags"]])
                if columns["fine_tags"] is not None else None
            )
            tags = {"conll": conll, "dbpedia": dbpedia, "fine": fine}[tagset]
            if tags is None:
                raise InputError(path, f"no {tag_column} in this row", where)
            page_id = row.get("page_id")
            yield TaggedSentence(
                tokens=tokens, tags=tags,
                doc_id=str(page_id) if page_id is not None else row.get("title"),
                low_quality=bool(row.get("low_quality") or False),
                fine_tags=fine,
                pos=tuple(columns["pos"]) if columns["pos"] is not None else None,
                lemmas=tuple(columns["lemmas"]) if columns["lemmas"] is not None else None,
                dbpedia_tags=dbpedia, conll_tags=conll, title=row.get("title"),
                sentence_index=row.get("sentence_index"),
            )


# --------------------------------------------------------------------------- dispatch


def format_of(path: str) -> str | None:
    """The format a file's extension implies, or None."""
    return EXTENSION_FORMATS.get(Path(path).suffix.lower())


def corpus_files(path: str, fmt: str | None = None) -> list[tuple[str, str]]:
    """``(file, format)`` pairs of a file or (recursively, sorted) a directory.

    Hidden and ``_``-prefixed names are skipped: a pipeline's staging directory or ``_SUCCESS``
    markers are not part of a corpus.
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
    if fmt is None and os.path.isfile(os.path.join(path, "manifest.json")) and os.path.isdir(os.path.join(path, "parquet")):
        # A `wikisilver build` output holds the same sentences twice (tsv/ and parquet/): read one.
        path = os.path.join(path, "parquet")
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


def read_corpus(
    path: str, fmt: str | None = None, *, tagset: str = "conll", encoding: str = "utf-8"
) -> Iterator[TaggedSentence]:
    """Sentences of a corpus file or directory, tags normalized to IOB2 in the given tagset.

    ``tagset`` picks the tag layer of our corpus (``conll``, ``fine`` or ``dbpedia``); gold files
    have a single NER layer, read as it is.
    """
    if tagset not in TAGSETS:
        raise InputError(None, f"unknown tagset {tagset!r} (expected one of {', '.join(TAGSETS)})")
    # Gold files hold one NER layer; with the CoNLL tagset its types must be the CoNLL four.
    known = CONLL_TYPES if tagset == "conll" else None
    for file, file_fmt in corpus_files(path, fmt):
        if file_fmt == "parquet":
            yield from read_parquet(file, tagset=tagset)
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


def write_tsv(handle, sentences: Iterable[TaggedSentence]) -> int:  # noqa: ANN001 - any text handle
    """Write sentences in our 5-column TSV with a ``# page_id=… title=…`` comment; returns tokens."""
    tokens = 0
    for s in sentences:
        fields = []
        if s.doc_id is not None and s.doc_id.isdigit():
            fields.append(f"page_id={s.doc_id}")
        elif s.doc_id is not None:
            fields.append("doc=" + re.sub(r"\s", "_", s.doc_id))
        if s.title:
            fields.append(f"title={s.title}")
        if s.sentence_index is not None:
            fields.append(f"sentence={s.sentence_index}")
        fields.append(f"low_quality={int(s.low_quality)}")
        lines = ["# " + " ".join(fields).replace("\n", " ")]
        conll = s.conll_tags or s.tags
        dbpedia = s.dbpedia_tags or conll
        lemmas = s.lemmas or ("_",) * len(s.tokens)
        pos = s.pos or ("_",) * len(s.tokens)
        for cells in zip(s.tokens, lemmas, pos, dbpedia, conll):
            lines.append("\t".join(c.replace("\t", " ") or "_" for c in cells))
        handle.write("\n".join(lines))
        handle.write("\n\n")
        tokens += len(s.tokens)
    return tokens
