"""After step 5: the one reader of a wikisilver corpus (its Parquet and TSV parts, stats.json, manifest.json).

Everything that reads a built corpus goes through here: the Python API (``load_corpus``), ``report``,
``show``, ``export``, and, as tagged sentences, ``train``, ``evaluate``, ``split`` and ``gazetteers``.
Parts are streamed batch by batch (or line by line): the corpus of a large Wikipedia does not fit in
memory. A directory written by ``wikisilver build`` holds every sentence twice (``tsv/`` and
``parquet/``); its Parquet parts are the ones read.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa

from wikisilver import paths
from wikisilver.corpus.schema import (
    ADDED_COLUMNS, LINKS, SENTENCE_SCHEMA, SOURCE_SCHEMA, TEXT_COMMENT, TITLE_END, TSV_BASE_COLUMNS, TSV_COLUMNS,
    unescape_title,
)
from wikisilver.corpus.tags import CONLL_TYPES, TagCleaner, TaggedSentence, iob_to_spans, text_lines, to_iob2
from wikisilver.errors import InputError
from wikisilver.records import EntitySpan, LabelledSentence

OUR_TAGSETS = ("conll", "dbpedia")

_COMMENT_FIELD = re.compile(r"(\w+)=(\S*)")
_TITLE_FIELD = re.compile(r"(?:^| )title=")


# --------------------------------------------------------------------------- stats.json, manifest.json


def read_corpus_json(corpus: str | Path, name: str) -> dict:
    """A finished corpus's ``stats.json`` or ``manifest.json``, as a dict; a clear error otherwise."""
    path = paths.join(corpus, name)
    if not paths.isfile(path):
        raise InputError(str(path), "missing: not the directory of a finished `wikisilver build`")
    try:
        data = json.loads(paths.read_text(path))
    except json.JSONDecodeError as error:
        raise InputError(str(path), f"invalid JSON ({error.msg})", f"{error.lineno}:{error.colno}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(str(path), f"cannot read: {getattr(error, 'strerror', None) or error}") from None
    if not isinstance(data, dict):
        raise InputError(str(path), "expected a JSON object")
    return data


# --------------------------------------------------------------------------- Parquet parts


def parquet_files(corpus: str | Path) -> list[Path] | list[str]:
    """The Parquet part files of a corpus: ``DIR/parquet/*.parquet``, ``DIR/*.parquet`` or a file
    (a remote corpus, ``gs://…`` or ``s3://…``: their paths as strings)."""
    remote = paths.is_remote(corpus)
    corpus = str(corpus) if remote else paths.normalize(corpus)
    try:
        files = _part_files(corpus, remote)
    except OSError as error:
        raise InputError(corpus, f"cannot read: {error.strerror or error}") from None
    if not files:
        raise InputError(corpus, "no Parquet part files (expected parquet/part-*.parquet)")
    return files if remote else [Path(f) for f in files]


def _part_files(corpus: str, remote: bool) -> list[str]:
    if (corpus.endswith(".parquet") or not remote) and paths.isfile(corpus):
        return [corpus]
    if not remote and not paths.isdir(corpus):
        raise InputError(corpus, "no such corpus directory")
    for folder in (paths.join(corpus, "parquet"), corpus):
        files = [p for p in paths.listdir(folder)
                 if p.endswith(".parquet") and not paths.basename(p).startswith((".", "_"))]
        if files:
            return files
    return []


def parquet_batches(
    corpus: str | Path, columns: Sequence[str] | None = None, batch_size: int = 2048
) -> Iterator[tuple[Path, pa.RecordBatch]]:
    """``(part, batch)`` of the corpus's Parquet parts in file order, only ``columns`` (default all).

    A part that cannot be read, or lacks a column of our schema that is asked for, is an
    :class:`InputError` naming the part; all columns (the default) of a corpus of an earlier
    version are those it has (no text or offsets).
    """
    for path in parquet_files(corpus):
        try:
            handle = paths.parquet_file(path)
            wanted = list(columns) if columns is not None else [
                name for name in SOURCE_SCHEMA.names
                if name not in ADDED_COLUMNS or name in handle.schema_arrow.names
            ]
            missing = [name for name in wanted if name not in handle.schema_arrow.names]
            if missing:
                raise InputError(str(path), f"missing column(s) {', '.join(missing)}: not a wikisilver corpus part")
            for batch in handle.iter_batches(batch_size=batch_size, columns=wanted):
                yield path, batch
        except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
            raise InputError(str(path), f"not a readable Parquet file ({error})") from None


def sentence_count(corpus: str | Path) -> int:
    """Sentences (rows) in all parts, low-quality ones included; only the footers are read."""
    total = 0
    for path in parquet_files(corpus):
        try:
            total += paths.parquet_file(path).metadata.num_rows
        except (OSError, ValueError) as error:
            raise InputError(str(path), f"not a readable Parquet file ({error})") from None
    return total


def _sentence(row: dict) -> LabelledSentence:
    return LabelledSentence(
        page_id=row["page_id"], title=row["title"], index=row["sentence_index"],
        tokens=tuple(row["tokens"]), lemmas=tuple(row["lemmas"]), pos=tuple(row["pos"]),
        dbpedia_tags=tuple(row["dbpedia_tags"]), conll_tags=tuple(row["conll_tags"]),
        spans=tuple(EntitySpan(**span) for span in row["spans"]),
        low_quality=row["low_quality"], quality_reasons=tuple(row["quality_reasons"]),
        text=row.get("text") or "",
        offsets=tuple(zip(row["token_starts"], row["token_ends"])) if row.get("token_starts") else (),
        source=row.get("source") or LINKS,
    )


def read_sentences(
    corpus: str | Path, *, exclude_low_quality: bool = False, exclude_second_pass: bool = False,
    batch_size: int = 2048,
) -> Iterator[LabelledSentence]:
    """Sentences of our Parquet corpus in file order (within a part: page id, sentence index);
    ``exclude_second_pass``: only the sentences the rules labelled (``source`` "links")."""
    row_no, part = 0, None
    for path, batch in parquet_batches(corpus, batch_size=batch_size):
        if path != part:
            row_no, part = 0, path
        for row in batch.to_pylist():
            row_no += 1
            if (exclude_low_quality and row["low_quality"]) or (exclude_second_pass and row.get("source", LINKS) != LINKS):
                continue
            try:
                sentence = _sentence(row)
            except (KeyError, TypeError) as error:
                raise InputError(str(path), f"not a wikisilver corpus row ({error})", f"row {row_no}") from None
            for name in ("conll_tags", "dbpedia_tags"):
                tags = getattr(sentence, name)
                if len(tags) != len(sentence.tokens):
                    raise InputError(str(path), f"{len(tags)} {name} for {len(sentence.tokens)} tokens",
                                     f"row {row_no}")
            yield sentence


def read_table(corpus: str | Path, *, exclude_low_quality: bool = False, title: str | None = None) -> pa.Table:
    """Rows of the corpus as one Arrow table, all of them or those of one article.

    The filters are pushed down: row groups whose statistics exclude them are not read.
    """
    import pyarrow.dataset as ds

    files = [str(p) for p in parquet_files(corpus)]
    schema = SOURCE_SCHEMA if "source" in paths.parquet_file(files[0]).schema_arrow.names else SENTENCE_SCHEMA
    condition = ds.field("title") == title if title is not None else None
    if exclude_low_quality:
        keep = ~ds.field("low_quality")
        condition = keep if condition is None else condition & keep
    if paths.is_remote(corpus):  # part by part through Beam's FileSystems: the whole part is read
        table = pa.concat_tables([paths.parquet_file(p).read().cast(schema) for p in files])
        return table if condition is None else table.filter(condition)
    dataset = ds.dataset(files, format="parquet", schema=schema)
    return dataset.to_table(filter=condition)


def read_article(
    corpus: str | Path, title: str, *, limit: int | None = None
) -> list[LabelledSentence]:
    """The sentences of one article, by sentence index; only row groups that may hold it are read."""
    sentences = sorted((_sentence(row) for row in read_table(corpus, title=title).to_pylist()),
                       key=lambda s: s.index)
    return sentences[:limit] if limit is not None else sentences


def article_titles(corpus: str | Path) -> dict[str, int]:
    """Each article title of the corpus with its number of kept sentences, sorted by title; only
    the ``title`` column is read."""
    import pyarrow.compute as pc

    counts: dict[str, int] = {}
    for _, batch in parquet_batches(corpus, ["title"], batch_size=65536):
        for entry in pc.value_counts(batch.column(0)).to_pylist():
            counts[entry["values"]] = counts.get(entry["values"], 0) + entry["counts"]
    return dict(sorted(counts.items()))


def close_titles(corpus: str | Path, title: str, count: int = 5) -> list[str]:
    """Titles of the corpus that look like ``title`` (case-insensitive), best first."""
    by_folded: dict[str, str] = {}
    for known in article_titles(corpus):
        by_folded.setdefault(known.casefold(), known)
    matches = difflib.get_close_matches(title.casefold(), list(by_folded), n=count, cutoff=0.6)
    return [by_folded[m] for m in matches]


# --------------------------------------------------------------------------- as tagged sentences (§6)


def _check_tagset(tagset: str, where: str) -> None:
    if tagset not in OUR_TAGSETS:
        raise InputError(where, f"our corpus has no {tagset} tags; use the conll or dbpedia tagset")


def tagged(sentence: LabelledSentence, tagset: str = "conll") -> TaggedSentence:
    """A sentence of our corpus with the tags of one layer (``conll`` or ``dbpedia``)."""
    return TaggedSentence(
        tokens=sentence.tokens, tags=sentence.conll_tags if tagset == "conll" else sentence.dbpedia_tags,
        doc_id=str(sentence.page_id), low_quality=sentence.low_quality, pos=sentence.pos,
        lemmas=sentence.lemmas, dbpedia_tags=sentence.dbpedia_tags, conll_tags=sentence.conll_tags,
        title=sentence.title, sentence_index=sentence.index,
        text=sentence.text if sentence.offsets else None, offsets=sentence.offsets or None,
        spans=sentence.spans, source=sentence.source,
    )


def labelled(sentence: TaggedSentence) -> LabelledSentence:
    """A tagged sentence (ours, a gold file's, a model's output) as a sentence of our corpus, for
    the writers of :mod:`wikisilver.corpus.export` and :mod:`wikisilver.corpus.write`: missing
    layers are ``_``, spans come from the tags where the corpus kept none (no link target)."""
    n = len(sentence.tokens)
    conll = sentence.conll_tags or sentence.tags
    doc = sentence.doc_id or ""
    spans = sentence.spans
    if spans is None:
        spans = tuple(EntitySpan(start, end, kind, kind, "", "") for start, end, kind in iob_to_spans(conll))
    return LabelledSentence(
        page_id=int(doc) if doc.isdigit() else 0, title=sentence.title or doc,
        index=sentence.sentence_index or 0, tokens=sentence.tokens,
        lemmas=sentence.lemmas or ("_",) * n, pos=sentence.pos or ("_",) * n,
        dbpedia_tags=sentence.dbpedia_tags or conll, conll_tags=conll, spans=spans,
        low_quality=sentence.low_quality, text=sentence.text or "", offsets=sentence.offsets or (),
        source=sentence.source,
    )


def read_parquet_tagged(path: str, *, tagset: str = "conll") -> Iterator[TaggedSentence]:
    """A Parquet part (or the parts of a directory) of our corpus as tagged sentences."""
    _check_tagset(tagset, path)
    for sentence in read_sentences(path):
        yield tagged(sentence, tagset)


def _comment_fields(line: str) -> dict[str, str]:
    """``# page_id=12 title=Foo bar sentence=3 low_quality=0`` -> dict (title may hold spaces, and
    is unescaped: :func:`~wikisilver.corpus.schema.escape_title`)."""
    body = line.lstrip("#").strip()
    fields: dict[str, str] = {}
    found = _TITLE_FIELD.search(body)
    if found:
        # The title runs to the next " key=" so titles with spaces survive.
        title_at = found.end()
        rest = body[title_at:]
        match = TITLE_END.search(rest)
        fields["title"] = unescape_title(rest[: match.start()] if match else rest)
        body = body[: found.start()] + (rest[match.start():] if match else "")
    for key, value in _COMMENT_FIELD.findall(body):
        fields.setdefault(key, value)
    return fields


def read_tsv(path: str, *, tagset: str = "conll", encoding: str = "utf-8") -> Iterator[TaggedSentence]:
    """Our multitag TSV, a part of the build or a side of a split (with ``# page_id=…`` comments)."""
    _check_tagset(tagset, path)
    clean = TagCleaner(path, CONLL_TYPES if tagset == "conll" else None)
    clean_any = TagCleaner(path, None)
    rows: list[list[str]] = []
    first_line = 0
    meta: dict[str, str] = {}

    def sentence() -> TaggedSentence:
        conll = to_iob2([clean(r[4], first_line + k) for k, r in enumerate(rows)])
        dbpedia = to_iob2([clean_any(r[3], first_line + k) for k, r in enumerate(rows)])
        page = meta.get("page_id") or meta.get("doc") or None
        title = meta.get("title") or None
        index = meta.get("sentence")
        offsets = tuple((int(r[5]), int(r[6])) for r in rows) if all(len(r) > 6 for r in rows) else None
        return TaggedSentence(
            tokens=tuple(r[0] for r in rows), tags=conll if tagset == "conll" else dbpedia,
            doc_id=page or title or path,
            low_quality=meta.get("low_quality") in ("1", "true", "True"),
            pos=tuple(r[2] for r in rows), lemmas=tuple(r[1] for r in rows),
            dbpedia_tags=dbpedia, conll_tags=conll, title=title,
            sentence_index=int(index) if index and index.isdigit() else None,
            text=meta.get("text") if offsets else None, offsets=offsets, source=meta.get("source") or LINKS,
        )

    for line_no, line in text_lines(path, encoding):
        if not line.strip():
            if rows:
                yield sentence()
                rows, meta = [], {}
            continue
        if line.startswith(TEXT_COMMENT):
            meta["text"] = line[len(TEXT_COMMENT):]
            continue
        if line.startswith("#") and "\t" not in line:  # a "#" token still has its tabs
            meta.update(_comment_fields(line))
            continue
        cells = line.split("\t")
        if len(cells) not in (TSV_BASE_COLUMNS, len(TSV_COLUMNS)) or (
            len(cells) > TSV_BASE_COLUMNS and not (cells[5].isdigit() and cells[6].isdigit())
        ):
            raise InputError(
                path, f"expected {len(TSV_COLUMNS)} tab-separated columns ({' '.join(TSV_COLUMNS)}; "
                f"start and end numbers) or the first {TSV_BASE_COLUMNS}, got {len(cells)}", f"line {line_no}",
            )
        if not rows:
            first_line = line_no
        rows.append(cells)
    if rows:
        yield sentence()
