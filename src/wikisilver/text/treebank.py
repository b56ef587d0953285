"""Treebanks the taggers are trained and measured on: UD CoNLL-U and NerKor's CoNLL-U Plus."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from wikisilver.corpus.gold import conllu_sentences
from wikisilver.errors import InputError

UPOS_TAGS = frozenset(
    "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split()
)
#: how a treebank's multiword tokens ("della" = "di" + "la", "zum" = "zu" + "dem") are read
WORDS = ("syntactic", "surface", "both")

_COLUMNS = ("FORM", "LEMMA", "UPOS", "FEATS")  # what a sentence is read as

Token = tuple[str, str, str, str]  # form, lemma, upos, feats


def read_conllup(path: Path, words: str = "syntactic") -> Iterable[list[Token]]:
    """Sentences of a CoNLL-U file as (form, lemma, upos, feats) tuples, in either layout: CoNLL-U
    Plus with a ``# global.columns`` header (NerKor: FORM LEMMA UPOS XPOS FEATS ...), or plain
    CoNLL-U (Universal Dependencies: ID FORM LEMMA UPOS XPOS FEATS ...), rows read by
    :func:`wikisilver.corpus.gold.conllu_sentences`; empty nodes ("8.1") are skipped. ``words``:
    ``syntactic``, the treebank's syntactic words are the tokens ("di", "la"; multiword-token
    ranges skipped); ``surface``, a multiword token is one token as the text writes it ("della"),
    with the lemma, UPOS and features of its first word ("di", ADP), as a tokenizer that does not
    split it sees it; ``both``, each sentence with a multiword token in both views. A sentence with
    a non-UD tag is skipped."""
    if words not in WORDS:
        raise ValueError(f"words must be one of {', '.join(WORDS)}, not {words!r}")
    names, sentences = conllu_sentences(str(path), multiword=words != "syntactic")
    missing = [name for name in _COLUMNS if name not in names]
    if missing:
        raise InputError(str(path), f"no {', '.join(missing)} column in global.columns ({' '.join(names)})", "line 1")
    at = [names.index(name) for name in _COLUMNS]
    id_at = names.index("ID") if "ID" in names else None
    for sentence in sentences:
        rows = [(cells[id_at] if id_at is not None else "", tuple(cells[i] for i in at)) for _, cells in sentence.rows]
        views = [_surface(rows)] if words == "surface" else [[t for i, t in rows if "-" not in i]]
        if words == "both" and any("-" in i for i, _ in rows):
            views.append(_surface(rows))
        for sent in views:
            if all(upos in UPOS_TAGS for _, _, upos, _ in sent):
                yield sent


def _surface(rows: list[tuple[str, Token]]) -> list[Token]:
    """The tokens of a sentence as written: a multiword token's range row ("3-4 della") with the
    analysis of its first word, its other words left out."""
    out: list[Token] = []
    pending: Iterator[tuple[str, Token]] = iter(rows)
    for token_id, token in pending:
        if "-" not in token_id:
            out.append(token)
            continue
        first, _, last = token_id.partition("-")
        parts = [next(pending, ("", token)) for _ in range(int(last) - int(first) + 1)] if last.isdigit() and first.isdigit() else []
        head = parts[0][1] if parts else token
        out.append((token[0], head[1], head[2], head[3]))
    return out
