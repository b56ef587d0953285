"""``wikisilver anonymize``: replace the names a trained model (and the corpus's own entities) find,
by suppression, tagging, substitution or generalization (wikisilver.anonymize)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator

from wikisilver.errors import InputError

NAME = "anonymize"
HELP = "Replace the names in text, JSONL or CoNLL files: suppress, tag, substitute or generalize them"

INPUT_FORMATS = ("text", "jsonl", "conll2003", "conllu", "conllup")
OUTPUT_FORMATS = ("text", "jsonl", "conll2003", "conllup")
_DEFAULT_OUTPUT = {"text": "text", "jsonl": "jsonl", "conll2003": "conll2003", "conllu": "conllup", "conllup": "conllup"}
_STDIO = "-"


def configure(parser: argparse.ArgumentParser) -> None:
    from wikisilver.anonymize.detect import DETECTORS
    from wikisilver.anonymize.replace import DEFAULT_MASK, METHODS

    parser.add_argument("input", metavar="FILE", help="file to anonymize (.txt, .jsonl, .conll, .conllu, .conllup; - for stdin)")
    parser.add_argument("--model", metavar="FILE", help="model written by `wikisilver train` (not needed with --detect gazetteer)")
    parser.add_argument("--method", required=True, choices=METHODS, help="how a name is replaced")
    parser.add_argument("--out", required=True, metavar="FILE", help="file to write (- for stdout)")
    parser.add_argument("--corpus", action="append", metavar="PATH",
                        help="corpus whose entities give surrogates, classes and the gazetteer detector "
                             "(a `wikisilver build` output, its parts, or gold CoNLL files; repeatable; "
                             "needed by substitute and generalize)")
    parser.add_argument("--detect", choices=DETECTORS,
                        help="what finds the names: the model, the corpus's entity surfaces, or both "
                             "(default: both with --corpus, else model)")
    parser.add_argument("--classes", default="PER,LOC,ORG,MISC", metavar="TYPES",
                        help="comma-separated CoNLL types to replace (default PER,LOC,ORG,MISC)")
    parser.add_argument("--mask", default=DEFAULT_MASK, help=f"what suppress puts in a name's place (default {DEFAULT_MASK})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the surrogates' draw (default 0): same seed, same output")
    parser.add_argument("--ontology", metavar="FILE",
                        help="DBpedia ontology for generalize's class hierarchy and labels (default: the built-in hierarchy)")
    parser.add_argument("--min-members", type=int, default=10, metavar="K",
                        help="generalize: climb the hierarchy until at least K entities of the corpus share the class (default 10)")
    parser.add_argument("--keep-mapping", metavar="FILE",
                        help="also write what replaced what, one JSON line per document (keep it apart from the output)")
    parser.add_argument("--format", choices=INPUT_FORMATS, help="format of the input (default: from its extension; text for -)")
    parser.add_argument("--out-format", choices=OUTPUT_FORMATS,
                        help="format to write (default: the input's; conllup for conllu)")
    parser.add_argument("--lang", default="xx",
                        help="language of the text: sentences and tokens of plain text, case endings, class words (default: generic)")
    parser.add_argument("--encoding", default="utf-8", help="encoding of text inputs")


def _check(args: argparse.Namespace) -> tuple[str, str, frozenset[str], str]:
    """The input format, output format, classes and detector; every option checked before any work."""
    from wikisilver.corpus.tags import CONLL_TYPES
    from wikisilver.ner.tagging import input_format

    if args.input == _STDIO:
        fmt = args.format or "text"
    else:
        if not os.path.isfile(args.input):
            raise InputError(args.input, "no such input file")
        fmt = args.format or input_format(args.input, None)
    if fmt not in INPUT_FORMATS:
        raise InputError(args.input, f"cannot anonymize {fmt} input (expected one of {', '.join(INPUT_FORMATS)}); pass --format")
    out_format = args.out_format or _DEFAULT_OUTPUT[fmt]
    if out_format == "text" and fmt != "text":
        raise InputError(None, "--out-format text needs plain-text input (other inputs keep their tokens: jsonl, conll2003, conllup)")
    classes = frozenset(c.strip() for c in args.classes.split(",") if c.strip())
    if not classes or classes - CONLL_TYPES:
        raise InputError(None, f"--classes takes CoNLL types among PER,LOC,ORG,MISC, got {args.classes!r}")
    detect = args.detect or ("both" if args.corpus else "model")
    if detect != "gazetteer" and not args.model:
        raise InputError(None, f"--detect {detect} needs --model")
    if (detect != "model" or args.method in ("substitute", "generalize")) and not args.corpus:
        what = f"--method {args.method}" if args.method in ("substitute", "generalize") else f"--detect {detect}"
        raise InputError(None, f"{what} needs --corpus (the corpus whose entities it draws on)")
    if not args.mask or any(c in args.mask for c in "\n\r\t"):
        raise InputError(None, "--mask must be one line of text")
    if args.min_members < 1:
        raise InputError(None, "--min-members must be at least 1")
    _check_destination(args.out, "--out", args.input)
    if args.keep_mapping:
        if args.keep_mapping == _STDIO or _same(args.keep_mapping, args.out):
            raise InputError(args.keep_mapping, "--keep-mapping must be a file apart from --out")
        _check_destination(args.keep_mapping, "--keep-mapping", args.input)
    return fmt, out_format, classes, detect


def _same(a: str, b: str) -> bool:
    return a != _STDIO and b != _STDIO and os.path.abspath(a) == os.path.abspath(b)


def _check_destination(path: str, option: str, source: str) -> None:
    from wikisilver.outputs import check_output

    check_output(path, what="the anonymized text" if option == "--out" else "the mapping", option=option)
    if path == _STDIO:
        return
    if _same(path, source) or (os.path.exists(path) and source != _STDIO and os.path.samefile(path, source)):
        raise InputError(path, f"is the input: {option} must name another file")


def write_output(out: str, fmt: str, records: Iterable) -> None:
    """The one place anonymized output is written: plain-text lines (``text``) or sentences in a
    tagged format, as :mod:`wikisilver.outputs` writes every output (a file that appears whole once
    complete, a symlink written through, a pipe streamed to, ``-`` for stdout)."""
    from wikisilver.corpus.export import write_conll2003, write_conllup, write_jsonl
    from wikisilver.corpus.read import labelled
    from wikisilver.outputs import open_output

    with open_output(out) as handle:
        if fmt == "text":
            handle.writelines(f"{line}\n" for line in records)
        else:
            writer = {"jsonl": write_jsonl, "conll2003": write_conll2003, "conllup": write_conllup}[fmt]
            writer(handle, (labelled(sentence) for sentence in records))


@contextlib.contextmanager
def _input_path(path: str, fmt: str) -> Iterator[str]:
    """The input as a file: stdin is spooled to a private temporary folder, removed afterwards."""
    if path != _STDIO:
        yield path
        return
    folder = tempfile.mkdtemp(prefix="wikisilver-anonymize-")
    try:
        spooled = os.path.join(folder, "stdin")
        with open(spooled, "wb") as handle:
            shutil.copyfileobj(sys.stdin.buffer, handle)
        yield spooled
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace) -> int:
    from wikisilver.anonymize.detect import GazetteerDetector, detector, document_names
    from wikisilver.anonymize.documents import documents, read_text_lines, rebuild_lines
    from wikisilver.anonymize.generalize import Generalizer, Wording
    from wikisilver.anonymize.inflect import load_inflector
    from wikisilver.anonymize.replace import Anonymizer, Options
    from wikisilver.anonymize.surrogates import EntityTable
    from wikisilver.corpus.inputs import read_corpora
    from wikisilver.ner.tagging import read_input
    from wikisilver.outputs import open_output
    from wikisilver.ontology import load_builtin_ontology, load_ontology
    from wikisilver.text import get_processor

    fmt, out_format, classes, detect = _check(args)
    tagger = None
    if detect != "gazetteer":
        from wikisilver.ner.crf import Tagger

        tagger = Tagger(args.model)
    inflector = load_inflector(args.lang)
    table = EntityTable.from_sentences(read_corpora(args.corpus, encoding=args.encoding), inflector) if args.corpus else None
    generalizer = None
    if args.method == "generalize":
        ontology = load_ontology(args.ontology) if args.ontology else load_builtin_ontology()
        generalizer = Generalizer(ontology, table, args.lang, args.min_members, inflector)
    processor = get_processor(args.lang)
    anonymizer = Anonymizer(
        Options(args.method, classes, args.mask, args.seed), inflector, table=table, generalizer=generalizer,
        wording=Wording.load(args.lang), lemmatize=lambda tokens: [lemma for lemma, *_ in processor.annotate(tokens)],
    )
    find = detector(detect, tagger.tag if tagger else None, GazetteerDetector(table, inflector) if table else None)
    counts = anonymizer.counts

    def anonymized(path: str, mapping) -> Iterator:
        shown = "-" if args.input == _STDIO else args.input
        if fmt == "text":
            lines = read_text_lines(path, processor, os.path.basename(shown), args.encoding)
            sentences = [s for line in lines for s in line.sentences]
            names = document_names([s.tokens for s in sentences], find, inflector, table)
            done = anonymizer.document(os.path.basename(shown), sentences, names)
            mapping.write(_mapping_line(done, args.method))
            yield from rebuild_lines(lines, done.sentences)
        else:
            for doc in documents(read_input(path, fmt, processor, args.encoding)):
                doc_id = (doc[0].doc_id or "").replace(path, shown)
                done = anonymizer.document(doc_id, doc, document_names([s.tokens for s in doc], find, inflector, table))
                mapping.write(_mapping_line(done, args.method))
                yield from done.sentences
        if not counts.sentences:  # before the output is complete: nothing is left written
            raise InputError(args.input, "no sentences to anonymize")

    with contextlib.ExitStack() as stack:
        mapping = open(os.devnull, "w", encoding="utf-8")
        if args.keep_mapping:
            mapping = open_output(args.keep_mapping)
        mapping = stack.enter_context(mapping)
        path = stack.enter_context(_input_path(args.input, fmt))
        write_output(args.out, out_format, anonymized(path, mapping))
    replaced = ", ".join(f"{kind} {counts.mentions[kind]}" for kind in sorted(counts.mentions)) or "none"
    endings = f"; case endings carried {counts.endings_carried}, left off {counts.endings_left_off}" \
        if counts.endings_carried or counts.endings_left_off else ""
    missing = f"; {counts.no_surrogate} entities without a surrogate in the corpus, tagged" if counts.no_surrogate else ""
    print(f"anonymized {counts.documents} documents, {counts.sentences} sentences ({counts.tokens} tokens) by {args.method}: "
          f"replaced {replaced} ({sum(counts.entities.values())} distinct entities){endings}{missing} -> {args.out} ({out_format})",
          file=sys.stderr if args.out == _STDIO else sys.stdout)
    return 0


def _mapping_line(done, method: str) -> str:
    return json.dumps({"doc": done.doc_id, "method": method, "replacements": done.mapping}, ensure_ascii=False) + "\n"
