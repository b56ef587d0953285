"""After step 5: our corpus in the formats NER tools read, and one article for a terminal.

Formats: CoNLL-2003 (``token POS _ TAG``, ``-DOCSTART- -X- -X- O`` before each article, IOB1 or
IOB2), CoNLL-U Plus (the ten CoNLL-U columns + ``WIKISILVER:NER``, ``SpaceAfter=No`` where the text
has no space after a token), spaCy ``DocBin`` (one Doc per article, when spaCy is installed) and
JSONL with character offsets into the sentence's own text. A sentence of a corpus that kept no text
(an earlier version's) stands as its tokens joined by spaces. Sentences are streamed from
:mod:`wikisilver.corpus.read`: a large Wikipedia's corpus does not fit in memory (spaCy's DocBin,
which is one object per file, is the exception).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import BinaryIO, TextIO

from wikisilver.corpus.read import OUR_TAGSETS, labelled, read_sentences
from wikisilver.corpus.schema import LINKS
from wikisilver.corpus.tags import TaggedSentence, iob_to_spans
from wikisilver.errors import InputError
from wikisilver.outputs import Output, check_output, open_output, output_path
from wikisilver.records import LabelledSentence

EXPORT_FORMATS = ("conll2003", "conllup", "spacy", "jsonl")
SCHEMES = ("iob1", "iob2")
NER_COLUMN = "WIKISILVER:NER"
CONLLUP_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC",
                   NER_COLUMN)
DOCSTART = "-DOCSTART- -X- -X- O"

_WHITESPACE = re.compile(r"\s")


@dataclass(frozen=True)
class Mention:
    """An entity mention of a sentence in one tagset: token span ``[start, end)``, label, target."""

    start: int
    end: int
    label: str
    target: str | None


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    path: str  # as given (or "standard output")
    articles: int
    sentences: int
    tokens: int
    mentions: int


# --------------------------------------------------------------------------- tags


def mentions(sentence: LabelledSentence, tagset: str = "conll") -> list[Mention]:
    """The mentions the sentence's tags carry, with the link target of the span behind each."""
    tags = sentence.conll_tags if tagset == "conll" else sentence.dbpedia_tags
    targets = {(span.start, span.end): span.target for span in sentence.spans}
    return [
        Mention(start, end, label, targets.get((start, end)) or None)
        for start, end, label in iob_to_spans(tags)
    ]


def tags_in_scheme(length: int, found: Iterable[Mention], scheme: str = "iob2") -> list[str]:
    """Tags of the mentions: IOB2 (every mention starts with B-) or IOB1 (B- only where a mention
    directly follows another of the same type, as in the original CoNLL-2003 files)."""
    tags = ["O"] * length
    previous: Mention | None = None
    for mention in sorted(found, key=lambda m: m.start):
        adjacent = previous is not None and previous.end == mention.start and previous.label == mention.label
        first = "B" if scheme == "iob2" or adjacent else "I"
        tags[mention.start] = f"{first}-{mention.label}"
        for i in range(mention.start + 1, mention.end):
            tags[i] = f"I-{mention.label}"
        previous = mention
    return tags


def text_and_offsets(sentence: LabelledSentence) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The sentence's text and each token's ``[start, end)`` in it: as kept by the build, or the
    tokens joined by single spaces where the corpus has no text."""
    if sentence.offsets and len(sentence.offsets) == len(sentence.tokens):
        return sentence.text, sentence.offsets
    offsets, position = [], 0
    for token in sentence.tokens:
        offsets.append((position, position + len(token)))
        position += len(token) + 1
    return " ".join(sentence.tokens), tuple(offsets)


def spaces_after(sentence: LabelledSentence) -> list[bool]:
    """Whether each token is followed by whitespace in the text (the last one: True)."""
    text, offsets = text_and_offsets(sentence)
    ends = [end for _, end in offsets]
    return [end < len(text) and text[end].isspace() for end in ends[:-1]] + [True] * bool(ends)


def _cell(text: str) -> str:
    """A token as one whitespace-free column cell (CoNLL-2003 splits on any whitespace)."""
    return _WHITESPACE.sub("_", text) or "_"


# --------------------------------------------------------------------------- writers


def write_conll2003(
    handle: TextIO, sentences: Iterable[LabelledSentence], *, scheme: str = "iob2",
    tagset: str = "conll",
) -> tuple[int, int, int, int]:
    """``token POS _ TAG`` lines, a blank line after each sentence, ``-DOCSTART-`` per article."""
    counts = _Counts()
    for sentence in sentences:
        if counts.new_article(sentence):
            handle.write(f"{DOCSTART}\n\n")
        found = mentions(sentence, tagset)
        counts.add(sentence, found)
        tags = tags_in_scheme(len(sentence.tokens), found, scheme)
        pos = sentence.pos or ("_",) * len(sentence.tokens)
        handle.writelines(f"{_cell(token)} {_cell(tag_pos)} _ {tag}\n" for token, tag_pos, tag in zip(sentence.tokens, pos, tags))
        handle.write("\n")
    return counts.as_tuple()


def write_conllup(
    handle: TextIO, sentences: Iterable[LabelledSentence], *, scheme: str = "iob2",
    tagset: str = "conll",
) -> tuple[int, int, int, int]:
    """CoNLL-U Plus: the CoNLL-U columns (no syntax: ``_``) and the NER tag in ``WIKISILVER:NER``;
    ``# text`` is the sentence's text and MISC says ``SpaceAfter=No`` where no space follows."""
    handle.write(f"# global.columns = {' '.join(CONLLUP_COLUMNS)}\n")
    counts = _Counts()
    for sentence in sentences:
        if counts.new_article(sentence):
            handle.write(f"# newdoc id = {sentence.page_id}\n")
            handle.write(f"# doc_title = {_one_line(sentence.title)}\n")
        found = mentions(sentence, tagset)
        counts.add(sentence, found)
        tags = tags_in_scheme(len(sentence.tokens), found, scheme)
        handle.write(f"# sent_id = {sentence.page_id}-{sentence.index}\n")
        handle.write(f"# text = {_one_line(text_and_offsets(sentence)[0])}\n")
        if sentence.source != LINKS:
            handle.write(f"# source = {sentence.source}\n")
        n = len(sentence.tokens)
        lemmas = sentence.lemmas or ("_",) * n
        pos = sentence.pos or ("_",) * n
        spaces = spaces_after(sentence)
        for i, (token, lemma, upos, tag) in enumerate(zip(sentence.tokens, lemmas, pos, tags), 1):
            misc = "_" if spaces[i - 1] else "SpaceAfter=No"
            cells = (str(i), _tsv_cell(token), _tsv_cell(lemma), _tsv_cell(upos), "_", "_", "_", "_",
                     "_", misc, tag)
            handle.write("\t".join(cells) + "\n")
        handle.write("\n")
    return counts.as_tuple()


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ")


def _tsv_cell(text: str) -> str:
    return text.replace("\t", " ").replace("\n", " ").replace("\r", " ") or "_"


def jsonl_record(sentence: LabelledSentence, tagset: str = "conll") -> dict:
    """One sentence as JSON: its text, and tokens and entities with character offsets into it
    (and ``source`` for a sentence the second pass kept)."""
    text, offsets = text_and_offsets(sentence)
    tokens = [{"text": token, "start": start, "end": end} for token, (start, end) in zip(sentence.tokens, offsets)]
    entities = [
        {"start": tokens[m.start]["start"], "end": tokens[m.end - 1]["end"], "label": m.label,
         "target": m.target}
        for m in mentions(sentence, tagset)
    ]
    return {
        "id": sentence.sentence_id,
        "title": sentence.title,
        "page_id": sentence.page_id,
        "sentence_index": sentence.index,
        "text": text,
        "tokens": tokens,
        "entities": entities,
    } | ({"source": sentence.source} if sentence.source != LINKS else {})


def write_jsonl(
    handle: TextIO, sentences: Iterable[LabelledSentence], *, tagset: str = "conll"
) -> tuple[int, int, int, int]:
    """One JSON object per sentence and line (see :func:`jsonl_record`)."""
    counts = _Counts()
    for sentence in sentences:
        counts.new_article(sentence)
        record = jsonl_record(sentence, tagset)
        counts.sentences += 1
        counts.tokens += len(sentence.tokens)
        counts.mentions += len(record["entities"])
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return counts.as_tuple()


UPOS = frozenset("ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split())


def _articles(sentences: Iterable[LabelledSentence]) -> Iterator[list[LabelledSentence]]:
    """Runs of consecutive sentences of one article (a part holds whole articles, in order)."""
    for _, run in groupby(sentences, key=lambda sentence: sentence.page_id):
        yield list(run)


def spacy_doc(vocab, article: Sequence[LabelledSentence], tagset: str = "conll"):
    """One article as a spaCy ``Doc``: its kept sentences (``doc.sents``), spaces as in the text,
    lemma and POS on every token, entities as ``doc.ents``; title, page id and the sentences'
    indexes in ``doc.user_data``."""
    from spacy.tokens import Doc, Span

    words, spaces, lemmas, pos, starts, ents = [], [], [], [], [], []
    for sentence in article:
        offset = len(words)
        words.extend(sentence.tokens)
        spaces.extend(spaces_after(sentence))
        lemmas.extend(lemma if lemma != "_" else token for lemma, token in zip(sentence.lemmas, sentence.tokens))
        pos.extend(tag if tag in UPOS else "X" for tag in sentence.pos)
        starts.extend([True] + [False] * (len(sentence.tokens) - 1))
        ents.extend((offset + m.start, offset + m.end, m.label) for m in mentions(sentence, tagset))
    if spaces:
        spaces[-1] = False
    doc = Doc(vocab, words=words, spaces=spaces, lemmas=lemmas, pos=pos, sent_starts=starts)
    doc.ents = [Span(doc, start, end, label=label) for start, end, label in ents]
    doc.user_data.update({
        "title": article[0].title, "page_id": article[0].page_id,
        "sentence_indexes": [sentence.index for sentence in article],
    })
    return doc


SPACY_MISSING = "the spacy format needs spaCy: pip install 'wikisilver[spacy]'"


def write_spacy(
    handle: BinaryIO, sentences: Iterable[LabelledSentence], *, tagset: str = "conll"
) -> tuple[int, int, int, int]:
    """A spaCy ``DocBin`` (``.spacy``) of one Doc per article (:func:`spacy_doc`), ready for
    ``spacy train``, written to a binary handle."""
    try:
        from spacy.tokens import DocBin
        from spacy.vocab import Vocab
    except ImportError:
        raise InputError(None, SPACY_MISSING) from None
    vocab = Vocab()
    doc_bin = DocBin(store_user_data=True)
    counts = _Counts()
    for article in _articles(sentences):
        for sentence in article:
            counts.new_article(sentence)
            counts.add(sentence, mentions(sentence, tagset))
        doc_bin.add(spacy_doc(vocab, article, tagset))
    handle.write(doc_bin.to_bytes())
    return counts.as_tuple()


class _Counts:
    def __init__(self) -> None:
        self.articles = self.sentences = self.tokens = self.mentions = 0
        self._page: int | None = None

    def new_article(self, sentence: LabelledSentence) -> bool:
        if sentence.page_id == self._page:
            return False
        self._page = sentence.page_id
        self.articles += 1
        return True

    def add(self, sentence: LabelledSentence, found: Sequence[Mention]) -> None:
        self.sentences += 1
        self.tokens += len(sentence.tokens)
        self.mentions += len(found)

    def as_tuple(self) -> tuple[int, int, int, int]:
        return self.articles, self.sentences, self.tokens, self.mentions


# The formats that can be written to a stream (``-``, a pipe, a device); Parquet needs a file.
STREAM_FORMATS = frozenset({"conll2003", "conllup", "jsonl", "tsv", "spacy"})


def check_destination(out: str | Path | Output, fmt: str) -> Output:
    """``out`` checked for writing ``fmt`` (:func:`wikisilver.outputs.check_output`), before any work;
    for spaCy, that spaCy is installed."""
    if fmt == "spacy":
        try:
            import spacy  # noqa: F401
        except ImportError:
            raise InputError(None, SPACY_MISSING) from None
    return check_output(out, stream=fmt in STREAM_FORMATS, what=f"the {fmt} format")


def export_corpus(
    corpus: str | Path, out: str | Path | Output, fmt: str, *, scheme: str = "iob2", tagset: str = "conll",
    exclude_low_quality: bool = False, exclude_second_pass: bool = False,
) -> ExportReport:
    """Write the corpus in ``fmt`` to ``out`` (a file appears under its name only once complete;
    ``-``, a pipe or a device is streamed to: :mod:`wikisilver.outputs`); ``exclude_second_pass``:
    only the sentences the rules labelled, none the second pass kept."""
    if fmt not in EXPORT_FORMATS:
        raise InputError(None, f"unknown export format {fmt!r} (expected one of {', '.join(EXPORT_FORMATS)})")
    if scheme not in SCHEMES:
        raise InputError(None, f"unknown tag scheme {scheme!r} (expected iob1 or iob2)")
    if tagset not in OUR_TAGSETS:
        raise InputError(None, f"unknown tagset {tagset!r} (expected conll or dbpedia)")
    if fmt in ("jsonl", "spacy") and scheme != "iob2":
        raise InputError(None, f"--scheme applies to the CoNLL formats; {fmt} stores entity spans")
    out = check_destination(out, fmt)
    sentences = read_sentences(corpus, exclude_low_quality=exclude_low_quality, exclude_second_pass=exclude_second_pass)
    return ExportReport(str(out), *write_sentences(out, fmt, sentences, scheme=scheme, tagset=tagset))


def write_sentences(
    out: str | Path | Output, fmt: str, sentences: Iterable[LabelledSentence], *, scheme: str = "iob2",
    tagset: str = "conll",
) -> tuple[int, int, int, int]:
    """Write sentences in ``fmt`` (an export format, or ``parquet``, our schema) to ``out``, as
    :mod:`wikisilver.outputs` writes. Returns (articles, sentences, tokens, mentions)."""
    out = check_destination(out, fmt)
    if fmt == "parquet":
        with output_path(out) as tmp:
            return _write_parquet(tmp, sentences)
    with open_output(out, binary=fmt == "spacy") as handle:
        if fmt == "spacy":
            return write_spacy(handle, sentences, tagset=tagset)
        if fmt == "conll2003":
            return write_conll2003(handle, sentences, scheme=scheme, tagset=tagset)
        if fmt == "conllup":
            return write_conllup(handle, sentences, scheme=scheme, tagset=tagset)
        return write_jsonl(handle, sentences, tagset=tagset)


TAGGED_FORMATS = {"tsv": ".tsv", "conll2003": ".conll", "conllup": ".conllup", "jsonl": ".jsonl",
                  "spacy": ".spacy", "parquet": ".parquet"}


def write_tagged(out: str | Path | Output, fmt: str, sentences: Iterable[TaggedSentence]) -> None:
    """Tagged sentences (a split's side, a model's output) in one of :data:`TAGGED_FORMATS`:
    our TSV as they are, the other formats through :func:`~wikisilver.corpus.read.labelled`."""
    if fmt not in TAGGED_FORMATS:
        raise InputError(None, f"unknown output format {fmt!r} (expected one of {', '.join(TAGGED_FORMATS)})")
    if fmt != "tsv":
        write_sentences(out, fmt, (labelled(sentence) for sentence in sentences))
        return
    from wikisilver.corpus.write import write_tagged_tsv

    with open_output(check_destination(out, fmt)) as handle:
        write_tagged_tsv(handle, sentences)


def _write_parquet(path: str, sentences: Iterable[LabelledSentence]) -> tuple[int, int, int, int]:
    from wikisilver.corpus.write import write_parquet

    counts = _Counts()

    def counted() -> Iterator[LabelledSentence]:
        for sentence in sentences:
            counts.new_article(sentence)
            counts.add(sentence, mentions(sentence))
            yield sentence

    write_parquet(counted(), path)
    return counts.as_tuple()


# --------------------------------------------------------------------------- terminal

# ANSI colours per CoNLL type; finer DBpedia classes take the colour of their CoNLL type.
COLOURS = {"PER": "35", "LOC": "32", "ORG": "36", "MISC": "33"}
_OTHER_COLOUR = "34"


def bracketed(sentence: LabelledSentence, *, tagset: str = "conll", colour: bool = False) -> str:
    """``[Budapest]LOC is the capital of [Hungary]LOC .`` (ANSI-coloured per type if asked)."""
    found = {m.start: m for m in mentions(sentence, tagset)}
    conll = {start: label for start, _, label in iob_to_spans(sentence.conll_tags)}
    words: list[str] = []
    i = 0
    while i < len(sentence.tokens):
        mention = found.get(i)
        if mention is None:
            words.append(sentence.tokens[i])
            i += 1
            continue
        text = f"[{' '.join(sentence.tokens[mention.start:mention.end])}]{mention.label}"
        if colour:
            code = COLOURS.get(conll.get(i, mention.label), _OTHER_COLOUR)
            text = f"\x1b[{code}m{text}\x1b[0m"
        words.append(text)
        i = mention.end
    return " ".join(words)
