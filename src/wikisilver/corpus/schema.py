"""Step 5 of the method: the layout of the corpus files, one definition for writers and readers.

TSV ("multitag" format): one token per line, tab-separated :data:`TSV_COLUMNS` (IOB2 tags), a blank
line after each sentence, UTF-8. Parquet: one row per sentence, :data:`SENTENCE_SCHEMA` (documented
in docs/output.md).
"""

from __future__ import annotations

import pyarrow as pa

TSV_COLUMNS = ("token", "lemma", "pos", "dbpedia_tag", "conll_tag")

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
        pa.field("title", pa.string(), nullable=False),
        pa.field("page_id", pa.int64(), nullable=False),
        pa.field("sentence_index", pa.int32(), nullable=False),
        pa.field("tokens", pa.list_(pa.string()), nullable=False),
        pa.field("lemmas", pa.list_(pa.string()), nullable=False),
        pa.field("pos", pa.list_(pa.string()), nullable=False),
        pa.field("dbpedia_tags", pa.list_(pa.string()), nullable=False),
        pa.field("conll_tags", pa.list_(pa.string()), nullable=False),
        pa.field("spans", pa.list_(SPAN_TYPE), nullable=False),
        pa.field("low_quality", pa.bool_(), nullable=False),
        pa.field("quality_reasons", pa.list_(pa.string()), nullable=False),
    ],
    metadata={
        b"wikisilver.description": b"One row per sentence of a wikisilver silver NER corpus",
        b"wikisilver.tags": b"IOB2; conll_tags in PER/LOC/ORG/MISC, dbpedia_tags carry the DBpedia class",
    },
)
