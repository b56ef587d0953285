"""After step 5: the dataset card (``README.md``) written with every corpus.

A Hugging Face dataset card: YAML front matter the Hub reads (licence, language, task, the features
with the ``ner_tags`` label names, the Parquet files), then the source dump and its date, the
licence with the attribution Wikipedia's text needs, the counts and the columns. Made from the
build's manifest and stats only, so it says nothing the corpus files do not.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

import pyarrow as pa

from wikisilver.corpus.schema import NER_LABELS, SENTENCE_SCHEMA, SOURCE_SCHEMA, hf_feature_dict
from wikisilver.stats import unread_words

LICENCE = "cc-by-sa-4.0"
# What each column is, one line each (docs/output.md has the long form).
COLUMNS = {
    "id": "`page_id-sentence_index`, unique in the corpus",
    "title": "article title",
    "page_id": "page id in the dump",
    "sentence_index": "index of the sentence in its article (dropped sentences counted too)",
    "text": "the sentence as it stands in the clean article text",
    "tokens": "tokens",
    "token_starts": "each token's start offset (characters) in `text`",
    "token_ends": "each token's end offset (exclusive) in `text`",
    "lemmas": "lemmas (best effort)",
    "pos": "Universal POS tags (best effort)",
    "dbpedia_tags": "IOB2 tags with the most specific DBpedia class (`B-City`)",
    "conll_tags": "IOB2 CoNLL tags (`B-PER`, `I-LOC`, …) as strings",
    "ner_tags": "the CoNLL tags as ClassLabel ids: " + ", ".join(f"{i} {n}" for i, n in enumerate(NER_LABELS)),
    "spans": "entity mentions: token span, tags, the Wikipedia title linked, the rule that labelled it",
    "low_quality": "a fragment (no final punctuation or no finite verb), kept and flagged",
    "quality_reasons": "why it is flagged",
    "source": "`links` (labelled by the rules) or `second_pass` (UNK tokens labelled by a model, `--second-pass`)",
}


def _front_matter(manifest: Mapping, stats: Mapping) -> list[str]:
    sentences = int(stats.get("sentences_kept", 0))
    size = ("n<1K" if sentences < 1_000 else "1K<n<10K" if sentences < 10_000 else
            "10K<n<100K" if sentences < 100_000 else "100K<n<1M" if sentences < 1_000_000 else "n>1M")
    return [
        "---",
        f"license: {LICENCE}",
        f"language:\n- {manifest.get('language') or 'und'}",
        "task_categories:\n- token-classification",
        "task_ids:\n- named-entity-recognition",
        f"size_categories:\n- {size}",
        "tags:\n- wikipedia\n- silver-standard\n- wikisilver",
        "configs:\n- config_name: default\n  data_files:\n  - split: train\n    path: parquet/*.parquet",
        "dataset_info:\n  features:",
        *[f"  - name: {name}\n    {_yaml_type(feature)}" for name, feature in hf_feature_dict(_schema(manifest)).items()],
        "---",
    ]


def _schema(manifest: Mapping) -> pa.Schema:
    """The Parquet schema of the corpus: with the ``source`` column after a second pass."""
    return SOURCE_SCHEMA if (manifest.get("config") or {}).get("second_pass") else SENTENCE_SCHEMA


def _yaml_type(feature: dict | list) -> str:
    """A feature of :func:`~wikisilver.corpus.schema.hf_feature_dict` as the card's YAML says it."""
    if isinstance(feature, list):  # a list of structs
        fields = "\n".join(f"      - name: {name}\n        dtype: {f['dtype']}" for name, f in feature[0].items())
        return f"list:\n{fields}"
    if feature["_type"] == "Value":
        return f"dtype: {feature['dtype']}"
    item = feature["feature"]  # a Sequence
    if item["_type"] == "ClassLabel":
        labels = "\n".join(f"            '{i}': {label}" for i, label in enumerate(item["names"]))
        return f"sequence:\n      class_label:\n        names:\n{labels}"
    return f"sequence: {item['dtype']}"


def wiki_name(manifest: Mapping) -> str:
    """The wiki a corpus is built from, by the build's language (``--lang``): ``huwiki`` for
    ``hu``; a dump's ``<siteinfo>`` dbname only where it names the same language (``enwiktionary``
    for ``en``), since a header can be wrong (the shared huwiki extract says enwiki)."""
    lang = manifest.get("language")
    dumps = manifest.get("dumps") or []
    if not lang:
        return ", ".join(sorted({d.get("dbname") or "?" for d in dumps})) or "?"
    agreeing = sorted({d["dbname"] for d in dumps if d.get("dbname") and d.get("language") == lang})
    return agreeing[0] if len(agreeing) == 1 else f"{lang.replace('-', '_')}wiki"


def article_url(manifest: Mapping) -> str:
    """Where an article of the corpus is on the web, ``<title>`` standing for its title."""
    lang = manifest.get("language")
    return f"https://{lang}.wikipedia.org/wiki/<title>" if lang else "https://<lang>.wikipedia.org/wiki/<title>"


def _dump_line(dump: Mapping, wiki: str) -> str:
    header = dump.get("dbname")
    said = f"; its <siteinfo> says {header}" if header and header != wiki else ""
    return (f"- `{os.path.basename(dump.get('path', ''))}` ({wiki}{said}, dump date "
            f"{dump.get('dump_date') or 'unknown'}, sha256 `{dump.get('sha256', '')[:16]}…`)")


def _pack_lines(pack: Mapping) -> list[str]:
    """The card's line on the language pack the build used (``stats.json`` ``language_pack``)."""
    if not pack:
        return []
    if pack.get("pack") == "full":
        models = f"; its tagger and lemmatizer models: {pack['models_licence']}" if pack.get("models_licence") else ""
        return [f"- linguistic layer and labelling conventions: the language pack `{pack.get('folder', '')}`{models}"]
    return [f"- no language pack for `{pack.get('language', '')}`: the language-independent fallback "
            f"`{pack.get('folder', '')}` (sentences and tokens by a generic splitter, no lemmas or POS tagger)"]


def dataset_card(manifest: Mapping, stats: Mapping) -> str:
    """The README.md of a corpus from its manifest.json and stats.json objects."""
    dumps = manifest.get("dumps") or []
    dates = sorted({d.get("dump_date") or "unknown" for d in dumps})
    wiki = wiki_name(manifest)
    lines = _front_matter(manifest, stats)
    lines += [
        "",
        f"# Silver NER corpus of {wiki}" + (f" (dump of {', '.join(dates)})" if dates != ["unknown"] else ""),
        "",
        "Named-entity tags (CoNLL PER, LOC, ORG, MISC and the DBpedia class of each mention) found",
        f"automatically from Wikipedia's links and DBpedia's types by wikisilver {manifest.get('version', '')}",
        "(a silver standard: not checked by people).",
        "",
        "## Source",
        "",
        *[_dump_line(d, wiki) for d in dumps],
        f"- built {manifest.get('finished') or manifest.get('started') or ''}, language "
        f"`{manifest.get('language', '')}`",
        *_pack_lines(stats.get("language_pack") or {}),
        "",
        "## Licence and attribution",
        "",
        "The text comes from Wikipedia and is licensed under the Creative Commons Attribution-ShareAlike",
        "4.0 licence (CC BY-SA 4.0, https://creativecommons.org/licenses/by-sa/4.0/). Attribution: the",
        f"authors of the {wiki} articles, whose revision histories are on Wikipedia (each",
        f"sentence's `title` names its article: `{article_url(manifest)}`). Share",
        "adaptations under the same licence. The entity types come from DBpedia (CC BY-SA as well).",
        *(["", (stats.get("language_pack") or {})["licence_note"]] if (stats.get("language_pack") or {}).get("licence_note") else []),
        "",
        "## Counts",
        "",
        "| | |",
        "|---|---|",
        f"| pages read | {stats.get('pages_read', 0):,} |",
        f"| articles used | {stats.get('pages_used', 0):,} |",
        f"| sentences | {stats.get('sentences_kept', 0):,} ({stats.get('sentences_low_quality', 0):,} flagged low quality) |",
        f"| tokens | {stats.get('tokens_kept', 0):,} |",
        f"| entity mentions | {json.dumps(stats.get('entities_by_tag', {}), sort_keys=True)} |",
        f"| NE density (entity tokens / tokens) | {stats.get('ne_density', 0.0):.4f} |",
    ]
    if stats.get("second_pass"):
        lines.append(f"| kept by the second pass | {stats['second_pass'].get('recovered', 0):,} sentences "
                     "(`source` `second_pass`: UNK tokens labelled by a model, `--second-pass`) |")
    if stats.get("max_pages"):
        lines.append(f"| trial run | stopped after the first {stats['max_pages']:,} pages (`--max-pages`) |")
    if stats.get("bytes_skipped"):
        lines.append(f"| pages unread (estimate) | {unread_words(stats)}, in {stats['bytes_skipped']:,} compressed "
                     "bytes of corrupt blocks skipped |")
    if stats.get("warnings"):
        lines += ["", "## Warnings", "", "The build found this corpus weaker than its inputs promise:", "",
                  *[f"- {warning}" for warning in stats["warnings"]]]
    lines += [
        "",
        "## Files and columns",
        "",
        "`parquet/part-*.parquet` (one row per sentence; `datasets.load_dataset(\"parquet\", "
        "data_files=\"parquet/*.parquet\")` reads the label names from the files) and the same sentences in",
        "`tsv/part-*.tsv`; `stats.json`, `manifest.json` (inputs, checksums, options).",
        "",
        "| column | meaning |",
        "|---|---|",
        *[f"| `{name}` | {COLUMNS.get(name, '')} |" for name in _schema(manifest).names],
        "",
    ]
    return "\n".join(lines)
