"""``wikisilver tag``: run a trained model over plain text, CoNLL or JSONL files and write the tags."""

from __future__ import annotations

import argparse
import sys

from wikisilver.corpus.export import TAGGED_FORMATS, check_destination, write_tagged
from wikisilver.errors import InputError

NAME = "tag"
HELP = "Tag plain text, CoNLL, JSONL, TSV or Parquet files with a model trained by `wikisilver train`"


def configure(parser: argparse.ArgumentParser) -> None:
    from wikisilver.ner.tagging import TAG_INPUTS

    parser.add_argument("input", metavar="FILE",
                        help="file to tag (.txt, .jsonl, .conll, .conllu, .tsv, .parquet); - reads standard input")
    parser.add_argument("--model", required=True, metavar="FILE", help="model written by `wikisilver train`")
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="file to write; - writes standard output (a named pipe or a device is written "
                             "as a stream, a symbolic link through to its file)")
    parser.add_argument("--format", choices=tuple(TAG_INPUTS),
                        help="format of the input (default: from its extension; of standard input, from its "
                             "first lines)")
    parser.add_argument("--out-format", choices=tuple(TAGGED_FORMATS),
                        help="format to write (default: the input's; jsonl for plain text)")
    parser.add_argument("--lang", default="xx",
                        help="language of plain text, for sentence splitting and tokens (en, hu, …; default: generic)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text inputs")


def run(args: argparse.Namespace) -> int:
    from wikisilver.corpus.tags import STDIN
    from wikisilver.ner.crf import Tagger
    from wikisilver.ner.tagging import TAG_INPUTS, input_format, keeps_lines, read_input, tag_sentences, write_retagged
    from wikisilver.outputs import check_output, open_output
    from wikisilver.text import get_processor

    source = STDIN if args.input == "-" else args.input
    if args.format == "parquet" and source == STDIN:
        raise InputError(STDIN, "Parquet cannot be read from standard input; name the file")
    out = check_output(args.out)  # before any work; whether the format can stream, once it is known
    tagger = Tagger(args.model)
    fmt = input_format(source, args.format)
    out_format = args.out_format or TAG_INPUTS[fmt]
    out = check_destination(out, out_format)
    if keeps_lines(fmt, out_format):
        with open_output(out) as handle:
            counts = write_retagged(handle, tagger, source, fmt, args.encoding)
            if not counts[0]:
                raise InputError(source, "no sentences to tag")
    else:
        counts = [0, 0, 0]

        def counted():
            for sentence in tag_sentences(tagger, read_input(source, fmt, get_processor(args.lang), args.encoding)):
                counts[0] += 1
                counts[1] += len(sentence.tokens)
                counts[2] += sum(tag.startswith("B-") for tag in sentence.tags)
                yield sentence
            if not counts[0]:  # raised inside the writer: no empty file is left behind
                raise InputError(source, "no sentences to tag")

        write_tagged(out, out_format, counted())
    print(f"tagged {counts[0]} sentences ({counts[1]} tokens, {counts[2]} entity mentions) -> {out} ({out_format})",
          file=sys.stderr if out.is_stdout else sys.stdout)
    return 0
