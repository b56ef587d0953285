"""Train Punkt sentence-splitter parameters on a Wikipedia dump and write a pack's punkt.tsv.

Usage: python scripts/train_punkt.py --lang LANG DUMP.xml[.bz2|.gz|.xz] [DUMP2 ...]
       python scripts/train_punkt.py --out OUT.tsv DUMP ...

``--lang`` writes ``mappings/<lang>/punkt.tsv`` of the checkout (the file a pack with
``[sentences] splitter = "punkt"`` reads). Markup is stripped crudely (templates, refs, tables,
tags, file and category links, link brackets, bold/italics): Punkt only needs running prose to
learn which period-final words are abbreviations and which words start sentences. Streams the
dump; memory is bounded by Punkt's own type counts.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import lzma
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from wikisilver.text.punkt import train_punkt, write_punkt_params

_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
_TABLE = re.compile(r"\{\|.*?\|\}", re.S)
_REF = re.compile(r"<ref[^>/]*/>|<ref[^>]*>.*?</ref>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<[^>]+>")
_FILE_LINK = re.compile(r"\[\[(?:File|Image|Category|[a-z-]{2,12}):[^\[\]]*(?:\[\[[^\]]*\]\][^\[\]]*)*\]\]", re.I)
_LINK = re.compile(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]")
_EXT_LINK = re.compile(r"\[https?://\S+\s*([^\]]*)\]")
_QUOTES = re.compile(r"'{2,}")


def strip_markup(wikitext: str) -> str:
    text = _COMMENT.sub("", wikitext)
    text = _REF.sub("", text)
    for _ in range(5):  # nested templates, innermost first
        text, n = _TEMPLATE.subn("", text)
        if not n:
            break
    text = _TABLE.sub("", text)
    text = _FILE_LINK.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _EXT_LINK.sub(r"\1", text)
    text = _TAG.sub("", text)
    text = _QUOTES.sub("", text)
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "=|!{}:;" or line.startswith("__"):
            continue
        lines.append(line.lstrip("*# "))
    return "\n\n".join(lines)


def dump_texts(path: Path) -> Iterator[str]:
    opener = {".bz2": bz2.open, ".gz": gzip.open, ".xz": lzma.open}.get(path.suffix, open)
    with opener(path, "rb") as handle:
        for _, elem in ET.iterparse(handle):
            if elem.tag.rsplit("}", 1)[-1] == "text":
                if elem.text and not elem.text.lstrip().lower().startswith("#redirect"):
                    yield strip_markup(elem.text)
                elem.clear()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--lang", help="write mappings/<lang>/punkt.tsv of this checkout")
    where.add_argument("--out", type=Path, help="write this file")
    parser.add_argument("dumps", nargs="+", type=Path)
    args = parser.parse_args(argv)
    out = args.out or Path(__file__).resolve().parents[1] / "mappings" / args.lang / "punkt.tsv"
    dumps = args.dumps

    def texts() -> Iterator[str]:
        for dump in dumps:
            yield from dump_texts(dump)

    params = train_punkt(texts())
    header = (
        "Punkt sentence-splitter parameters, trained unsupervised by scripts/train_punkt.py on:\n"
        + "\n".join(f"  {d.name}" for d in dumps)
        + "\n(Wikipedia text, CC BY-SA). Columns: kind, value, extra. kind = abbrev (abbreviation type,\n"
        "lowercase, no final period), colloc (word pair not split across a period), starter (frequent\n"
        "sentence starter), ortho (word, Punkt orthographic-context bit flags). Curated additions live\n"
        "in abbreviations.txt and are merged at load time."
    )
    write_punkt_params(params, out, header)
    print(f"{out}: {len(params.abbrev_types)} abbrevs, {len(params.collocations)} collocations, "
          f"{len(params.sent_starters)} starters, {len(params.ortho_context)} ortho entries")


if __name__ == "__main__":
    main(sys.argv[1:])
