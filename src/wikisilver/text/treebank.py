"""Treebanks the taggers are trained and measured on: UD CoNLL-U and NerKor's CoNLL-U Plus."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from wikisilver.errors import InputError

UPOS_TAGS = frozenset(
    "ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split()
)


def read_conllup(path: Path) -> Iterable[list[tuple[str, str, str, str]]]:
    """Sentences of a CoNLL-U file as (form, lemma, upos, feats) tuples, in either layout: CoNLL-U
    Plus with a ``# global.columns`` header (NerKor: FORM LEMMA UPOS XPOS FEATS ...), or plain
    CoNLL-U (Universal Dependencies: ID FORM LEMMA UPOS XPOS FEATS ...), where multiword-token
    ranges ("3-4 don't") and empty nodes ("8.1") are skipped: the syntactic words are the tokens.
    A sentence with a non-UD tag is skipped."""
    sent: list[tuple[str, str, str, str]] = []
    bad = False
    first = 1  # column of FORM: 1 in plain CoNLL-U, 0 under NerKor's header
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line:
                if sent and not bad:
                    yield sent
                sent, bad = [], False
                continue
            if line.startswith("#"):
                if line.startswith("# global.columns") and "ID" not in line.split("=", 1)[1].split():
                    first = 0
                continue
            cells = line.split("\t")
            if len(cells) < first + 5:
                raise InputError(str(path), f"expected at least {first + 5} columns, got {len(cells)}", f"line {number}")
            if first and not cells[0].isdigit():
                continue
            form, lemma, upos, _, feats = cells[first : first + 5]
            if upos not in UPOS_TAGS:
                bad = True
            sent.append((form, lemma, upos, feats))
    if sent and not bad:
        yield sent
