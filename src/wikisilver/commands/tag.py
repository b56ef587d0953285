"""``wikisilver tag``: run a trained model over plain text, CoNLL or JSONL files and write the tags."""

from __future__ import annotations

import argparse

from wikisilver.corpus.export import TAGGED_FORMATS, write_tagged
from wikisilver.errors import InputError

NAME = "tag"
HELP = "Tag plain text, CoNLL, JSONL, TSV or Parquet files with a model trained by `wikisilver train`"


def configure(parser: argparse.ArgumentParser) -> None:
    from wikisilver.ner.tagging import TAG_INPUTS

    parser.add_argument("input", metavar="FILE", help="file to tag (.txt, .jsonl, .conll, .conllu, .tsv, .parquet)")
    parser.add_argument("--model", required=True, metavar="FILE", help="model written by `wikisilver train`")
    parser.add_argument("--out", required=True, metavar="FILE", help="file to write")
    parser.add_argument("--format", choices=tuple(TAG_INPUTS), help="format of the input (default: from its extension)")
    parser.add_argument("--out-format", choices=tuple(TAGGED_FORMATS),
                        help="format to write (default: the input's; jsonl for plain text)")
    parser.add_argument("--lang", default="xx",
                        help="language of plain text, for sentence splitting and tokens (en, hu, …; default: generic)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text inputs")


def run(args: argparse.Namespace) -> int:
    from wikisilver.ner.crf import Tagger
    from wikisilver.ner.tagging import TAG_INPUTS, input_format, read_input, tag_sentences
    from wikisilver.text import get_processor

    fmt = input_format(args.input, args.format)
    out_format = args.out_format or TAG_INPUTS[fmt]
    tagger = Tagger(args.model)
    counts = [0, 0, 0]

    def counted():
        for sentence in tag_sentences(tagger, read_input(args.input, fmt, get_processor(args.lang), args.encoding)):
            counts[0] += 1
            counts[1] += len(sentence.tokens)
            counts[2] += sum(tag.startswith("B-") for tag in sentence.tags)
            yield sentence

    write_tagged(args.out, out_format, counted())
    if not counts[0]:
        raise InputError(args.input, "no sentences to tag")
    print(f"tagged {counts[0]} sentences ({counts[1]} tokens, {counts[2]} entity mentions) -> {args.out} ({out_format})")
    return 0
