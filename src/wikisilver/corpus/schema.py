"""Step 5 of the method: the layout of the corpus files, one definition for writers and readers.

TSV ("multitag" format): each sentence is a ``# page_id=… title=… sentence=… low_quality=…`` line
(a title that would read back otherwise escaped, :func:`escape_title`),
a ``# text = …`` line (the sentence as it stands in the article), then one token per line,
tab-separated :data:`TSV_COLUMNS` (IOB2 tags; ``start``/``end`` the token's character offsets in
the text), and a blank line; UTF-8. Files with only the first :data:`TSV_BASE_COLUMNS` columns and
no comment lines (corpora of earlier versions) are read too. Parquet: one row per sentence,
:data:`SENTENCE_SCHEMA` (documented in docs/output.md).
"""

from __future__ import annotations

import json
import re

import pyarrow as pa

TSV_COLUMNS = ("token", "lemma", "pos", "dbpedia_tag", "conll_tag", "start", "end")
TSV_BASE_COLUMNS = 5  # token … conll_tag: what a corpus without character offsets has
TEXT_COMMENT = "# text = "
# The fields of the comment line; a title runs to the next of TITLE_END, so a title that holds one
# (or a backslash a reader would take for an escape, or a line break) is written escaped.
TITLE_END = re.compile(r" (?:sentence|low_quality|page_id|doc)=")
_NEEDS_ESCAPE = re.compile(r"[\t\n\r]|\\[\\=tnr]| (?:sentence|low_quality|page_id|doc|title|source)=")
_ESCAPES = {"\\": "\\\\", "=": "\\=", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPE = re.compile(r"\\([\\=tnr])")
_UNESCAPED = {"t": "\t", "n": "\n", "r": "\r"}


def escape_title(title: str) -> str:
    """A title as the comment line holds it: as it is, unless it would read back otherwise (it holds
    `` sentence=`` and the like, a backslash before ``\\ = t n r``, or a tab or line break); then
    with every backslash, ``=``, tab and line break escaped (``\\\\``, ``\\=``, ``\\t``, ``\\n``, ``\\r``)."""
    if not _NEEDS_ESCAPE.search(title):
        return title
    return "".join(_ESCAPES.get(char, char) for char in title)


def unescape_title(written: str) -> str:
    """The title :func:`escape_title` wrote."""
    if "\\" not in written:
        return written
    return _UNESCAPE.sub(lambda m: _UNESCAPED.get(m.group(1), m.group(1)), written)


# The CoNLL tags as integers (the ``ner_tags`` column), in the order of Hugging Face's conll2003
# dataset, so that models and label maps made for it fit as they are.
NER_LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC")
NER_LABEL_IDS = {label: i for i, label in enumerate(NER_LABELS)}

SPAN_TYPE = pa.struct(
    [
        ("start", pa.int32()),
        ("end", pa.int32()),
        ("conll", pa.string()),
        ("dbpedia_class", pa.string()),
        ("target", pa.string()),
        ("rule", pa.string()),
    ]
)

SENTENCE_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("page_id", pa.int64(), nullable=False),
        pa.field("sentence_index", pa.int32(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("tokens", pa.list_(pa.string()), nullable=False),
        pa.field("token_starts", pa.list_(pa.int32()), nullable=False),
        pa.field("token_ends", pa.list_(pa.int32()), nullable=False),
        pa.field("lemmas", pa.list_(pa.string()), nullable=False),
        pa.field("pos", pa.list_(pa.string()), nullable=False),
        pa.field("dbpedia_tags", pa.list_(pa.string()), nullable=False),
        pa.field("conll_tags", pa.list_(pa.string()), nullable=False),
        # Nullable as datasets' own schema is: it takes a column's ClassLabel from the metadata
        # only when the field is the same, nullability included (never null in our files).
        pa.field("ner_tags", pa.list_(pa.int64())),
        pa.field("spans", pa.list_(SPAN_TYPE), nullable=False),
        pa.field("low_quality", pa.bool_(), nullable=False),
        pa.field("quality_reasons", pa.list_(pa.string()), nullable=False),
    ],
    metadata={
        b"wikisilver.description": b"One row per sentence of a wikisilver silver NER corpus",
        b"wikisilver.tags": b"IOB2; conll_tags in PER/LOC/ORG/MISC, dbpedia_tags carry the DBpedia class",
        b"wikisilver.ner_labels": " ".join(NER_LABELS).encode(),
    },
)


def hf_feature_dict(schema: pa.Schema = SENTENCE_SCHEMA) -> dict:
    """The schema as ``datasets.Features.to_dict()`` writes it, ``ner_tags`` a sequence of
    ``ClassLabel`` with :data:`NER_LABELS`; no ``datasets`` import needed.

    Written into every Parquet part (the ``huggingface`` key of the schema metadata, which
    ``datasets`` reads), so ``load_dataset("parquet", …)`` gives the label names by itself.
    """

    def describe(kind: pa.DataType) -> dict | list:
        if pa.types.is_list(kind):
            inner = describe(kind.value_type)
            # A struct's sequence as a plain list: "Sequence" of a dict would be a dict of lists.
            return [inner] if pa.types.is_struct(kind.value_type) else {"feature": inner, "_type": "Sequence"}
        if pa.types.is_struct(kind):
            return {field.name: describe(field.type) for field in kind}
        return {"dtype": str(kind), "_type": "Value"}

    features = {field.name: describe(field.type) for field in schema}
    features["ner_tags"] = {"feature": {"names": list(NER_LABELS), "_type": "ClassLabel"}, "_type": "Sequence"}
    return features


SENTENCE_SCHEMA = SENTENCE_SCHEMA.with_metadata(
    {**SENTENCE_SCHEMA.metadata, b"huggingface": json.dumps({"info": {"features": hf_feature_dict()}}).encode()}
)

# A build with --second-pass adds this column to every row ("links" or "second_pass"); a corpus
# without it is all "links". Kept out of the default schema so that the default build's files stay
# as they were.
SOURCE_FIELD = pa.field("source", pa.string(), nullable=False)
SOURCE_SCHEMA = SENTENCE_SCHEMA.append(SOURCE_FIELD)
SOURCE_SCHEMA = SOURCE_SCHEMA.with_metadata(
    {**SENTENCE_SCHEMA.metadata, b"huggingface": json.dumps({"info": {"features": hf_feature_dict(SOURCE_SCHEMA)}}).encode()}
)
LINKS = "links"  # the source of a sentence labelled by the rules alone

# Columns a corpus of an earlier version (or of a build without --second-pass) lacks: readers take
# them when present.
ADDED_COLUMNS = ("id", "text", "token_starts", "token_ends", "ner_tags", "source")

