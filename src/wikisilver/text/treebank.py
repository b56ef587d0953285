"""Treebanks the taggers are trained and measured on: UD CoNLL-U and NerKor's CoNLL-U Plus."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from wikisilver.corpus.gold import conllu_sentences
from wikisilver.errors import InputError

UPOS_TAGS = frozenset(
    "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split()
)

_COLUMNS = ("FORM", "LEMMA", "UPOS", "FEATS")  # what a sentence is read as


def read_conllup(path: Path) -> Iterable[list[tuple[str, str, str, str]]]:
    """Sentences of a CoNLL-U file as (form, lemma, upos, feats) tuples, in either layout: CoNLL-U
    Plus with a ``# global.columns`` header (NerKor: FORM LEMMA UPOS XPOS FEATS ...), or plain
    CoNLL-U (Universal Dependencies: ID FORM LEMMA UPOS XPOS FEATS ...), where multiword-token
    ranges ("3-4 don't") and empty nodes ("8.1") are skipped: the syntactic words are the tokens
    (rows read by :func:`wikisilver.corpus.gold.conllu_sentences`). A sentence with a non-UD tag
    is skipped."""
    names, sentences = conllu_sentences(str(path))
    missing = [name for name in _COLUMNS if name not in names]
    if missing:
        raise InputError(str(path), f"no {', '.join(missing)} column in global.columns ({' '.join(names)})", "line 1")
    at = [names.index(name) for name in _COLUMNS]
    for sentence in sentences:
        sent = [(cells[at[0]], cells[at[1]], cells[at[2]], cells[at[3]]) for _, cells in sentence.rows]
        if all(upos in UPOS_TAGS for _, _, upos, _ in sent):
            yield sent
