"""Step 3 of the method, its rules: what links, anchors and capitalized words say a token is.

Each rule is registered under its name (:mod:`wikisilver.labels.registry`); its docstring says what
it decides, with an example. The alias rules are in :mod:`wikisilver.labels.aliases`, the
low-quality flags in :mod:`wikisilver.labels.quality`.
"""

from __future__ import annotations

import functools
import unicodedata

from wikisilver.entities.calendar import is_calendar_title
from wikisilver.labels.language import LanguagePack
from wikisilver.labels.registry import Stage, rule
from wikisilver.labels.state import LEAVE, O, UNK, UNKNOWN, Leave, SentenceState, Tag
from wikisilver.records import Link, TargetInfo
from wikisilver.resources import load_word_list
from wikisilver.titles import drop_parenthetical


def is_lowercase_anchor(anchor: str) -> bool:
    """An anchor written in lower case: common-noun links ("[[city]]") and anchors with no letter
    at all ("[[1848]]"). An anchor in a script without case is not lower case."""
    letters = [ch for ch in anchor if ch.isalpha()]
    if not letters:
        return True
    return not any(ch.isupper() for ch in letters) and any(ch.islower() for ch in letters)


def is_punctuation(token: str) -> bool:
    return all(unicodedata.category(ch).startswith("P") or unicodedata.category(ch).startswith("S") for ch in token)


def _typed(info: TargetInfo | None) -> bool:
    return info is not None and info.entity is not None


# -- links, in order of precedence ------------------------------------------------------------


@rule("link_calendar_o", Stage.LINK)
def link_calendar_o(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``on [[February 12]], [[1809]]``: a link to a calendar page (a date, a year, a month; titles
    as in ``mappings/calendar.toml``, or a page typed by the calendar source) is O."""
    if is_calendar_title(link.target, pack.lang) or (_typed(info) and info.entity.source == "calendar"):
        return Tag("O", "O", link.target)
    return None


@rule("link_lowercase_ignored", Stage.LINK)
def link_lowercase_ignored(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Leave | None:
    """``a [[Lawyer|lawyer]]``: an anchor with no capital names no entity (a common noun), so the
    link is ignored and its tokens are left to the other rules. Anchors in a script without case
    are never lower case."""
    return LEAVE if is_lowercase_anchor(link.anchor) else None


@functools.cache
def nationality_words(lang: str) -> frozenset[str]:
    """The nationality, ethnic-group, language and religion words of ``lang``
    (``mappings/<lang>/nationalities.txt``), with their plurals in -s."""
    words = load_word_list(lang, "nationalities.txt")
    plurals = {w + "s" for w in words if not w.endswith(("sh", "ch", "ese", "s", "x", "z"))}
    return words | plurals


def _derived(pack: LanguagePack, target: str) -> Tag:
    """What a derived word is: the language's ``derived_tag`` (en MISC, hu O)."""
    return Tag(pack.derived_tag, pack.derived_tag if pack.derived_tag == "O" else "MISC", target)


@rule("nationality_word", Stage.LINK)
def nationality_word_link(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``[[China|Chinese]] alchemy``, ``[[Greek language|Greek]]``, ``[[Ancient Egypt|ancient
    Egyptians]]``: an anchor that is one nationality, ethnic-group, language or religion word
    (``mappings/<lang>/nationalities.txt``; lower-case words before it and punctuation after it
    aside) is that word, whatever the link points at: the language's ``derived_tag`` (English MISC
    as CoNLL-2003 annotates it; Hungarian O, Szeged guidelines)."""
    words = [w for w in link.anchor.split() if not w[:1].islower()]
    if len(words) == 1 and words[0].rstrip(".,;:!?)\"'") in nationality_words(pack.lang):
        return _derived(pack, info.title if info is not None else link.target)
    return None


@rule("nationality_word", Stage.ANCHOR_HEAD)
def nationality_word_head(token: str, tag: Tag, pack: LanguagePack) -> bool:
    """``[[Ancient Egypt|ancient Egyptians]]``: lower-case words before the nationality word are O."""
    return getattr(tag, "rule", "") == "nationality_word" and token[:1].islower()


@rule("link_disambiguation_unk", Stage.LINK)
def link_disambiguation_unk(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``the [[Mercury]] …``: a link to a disambiguation page does not say which entity is meant,
    even when a source typed the page: UNK (the sentence is dropped)."""
    if info is not None and info.is_disambiguation:
        return Tag(UNK, UNK, link.target)
    return None


@rule("link_unknown_unk", Stage.LINK)
def link_unknown_unk(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``admired [[Henry Clay]]`` where no source types Henry Clay (or the page does not exist):
    UNK, since it may be a name; precision first, the sentence is dropped."""
    if not _typed(info):
        return Tag(UNK, UNK, link.target)
    return None


@rule("link_non_entity_o", Stage.LINK)
def link_non_entity_o(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``[[Mercury (planet)|Mercury]]``: a link to a typed page whose class maps to O
    (``mappings/classes.tsv``, the language's ``class_overrides``) is O."""
    if _typed(info) and pack.conll_of(info.entity) == "O":
        return Tag("O", "O", info.title)
    return None


@rule("derived_word", Stage.LINK)
def derived_word(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``[[Turkey|Turkish]] poetry``: a one-word anchor not contained in the entity's names and
    ending in one of the language's ``derived_suffixes`` is derived from the name: the language's
    ``derived_tag`` (English MISC; Hungarian O, as in the Szeged guidelines)."""
    if _typed(info) and pack.conll_of(info.entity) != "O" and _is_derived(link.anchor, info, pack):
        tag = pack.derived_tag
        return Tag(tag, tag if tag == "O" else "MISC", info.title)
    return None


@rule("link_entity", Stage.LINK)
def link_entity(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``born in [[Kentucky]]``: a link's anchor takes its target's tag (class AdministrativeRegion
    → LOC through ``mappings/classes.tsv``)."""
    if _typed(info) and pack.conll_of(info.entity) != "O":
        return pack.tag_of(info)
    return None


def _is_derived(anchor: str, info: TargetInfo, pack: LanguagePack) -> bool:
    """'Turkish' -> Turkey: a single word not contained in any name of the entity.

    An inflected name is not derived: a name followed by a case ending of the language
    ("Berlinben", "NASA-nak") or a possessive ("Lincoln's") is the name itself.
    """
    words = anchor.split()
    if len(words) != 1:
        return False
    word = words[0].lower()
    names = [w.lower() for form in (info.title, *info.aliases) for w in drop_parenthetical(form).split()]
    if any(word in form.lower() for form in (info.title, *info.aliases)):
        return False
    endings = pack.inflection_suffixes + ("'s", "’s", "'")
    for name in names:
        if word.startswith(name):
            rest = word[len(name):].lstrip("-")
            if rest in endings:
                return False
    # Derived words carry a derivational ending ("Turkish", "American", hu "berlini"); another
    # name of the entity ("Poroszország" for Porosz Királyság, a nickname) is not derived.
    return word.endswith(pack.derived_suffixes)


# -- reference cleansing of an entity link's anchor --------------------------------------------


@rule("personal_title_o", Stage.ANCHOR_HEAD)
def personal_title_in_anchor(token: str, tag: Tag, pack: LanguagePack) -> bool:
    """``[[Abraham Lincoln|President Lincoln]]``: personal titles leading an anchor are O
    (``personal_titles`` of the language)."""
    return token in pack.personal_titles


@rule("trailing_punctuation_o", Stage.ANCHOR_END)
def trailing_punctuation_o(token: str, tag: Tag, pack: LanguagePack) -> bool:
    """``[[Republican Party (United States)|Republican Party,]]``: punctuation closing an anchor is O."""
    return is_punctuation(token)


@rule("lowercase_tail_o", Stage.ANCHOR_END)
def lowercase_tail_o(token: str, tag: Tag, pack: LanguagePack) -> bool:
    """``a [[Whig Party (United States)|Whig Party leader]]``: lower-case words closing an anchor
    are common nouns or titles, O. Where capitalization is the proper-noun test (Hungarian writes
    the common-noun part of some names in lower case: ``Weimari köztársaság``) only persons'
    anchors are trimmed (``brandenburgi választófejedelem``)."""
    if tag.conll != "PER" and pack.capitalization_is_proper_noun:
        return False
    return token[:1].islower()


@rule("hu_inflected_name", Stage.HYPHEN)
def inflected_anchor(rest: str, pack: LanguagePack) -> Leave | None:
    """(hu) ``[[NASA]]-nak``: a case ending after a hyphen leaves the name as it is, so
    ``NASA-nak`` keeps the link's tag (``inflection_suffixes`` of the language)."""
    if pack.inflection_suffixes and rest.startswith("-") and rest[1:] in pack.inflection_suffixes:
        return LEAVE
    return None


@rule("hu_hyphen_compound_o", Stage.HYPHEN)
def hu_hyphen_compound_o(rest: str, pack: LanguagePack) -> Tag | None:
    """(hu) ``[[WorldCom]]-botrány``: a hyphenated compound whose head is a common noun is O, as in
    NerKor (only in languages with case endings). A compound that is itself the linked page keeps
    the link's tag: ``[[Nobel-díj]]at`` is ``Nobel-díjat``, the anchor plus a case ending."""
    if pack.inflection_suffixes and rest.startswith("-"):
        return O
    return None


@rule("location_comma_split", Stage.INSIDE)
def location_comma_split(token: str, tag: Tag, pack: LanguagePack) -> bool:
    """``[[Hodgenville, Kentucky]]``: a comma inside a location splits it into two places
    (``Hodgenville/B-LOC ,/O Kentucky/B-LOC``), as CoNLL annotates them."""
    return tag.conll == "LOC" and token == ","


# -- capitalized words no link or alias explains, first match decides --------------------------


@rule("personal_title_o", Stage.TOKEN)
def personal_title_alone(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``President Lincoln`` unlinked: the title before a name is O, wherever it stands."""
    return O if state.tokens[k] in pack.personal_titles else None


@rule("incidental_capital_o", Stage.TOKEN)
def incidental_capital_o(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``In March I went …``: words capitalized by convention (months and weekdays of
    ``mappings/calendar.toml``, ``I``, listed acronyms: ``incidental_capitals``) are O."""
    token = state.tokens[k]
    if token in pack.incidental_capitals or token.lower() in pack.calendar_words:
        return O
    return None


@rule("nationality_word", Stage.TOKEN)
def nationality_word_alone(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``It is said that the Chinese invented gunpowder.``, ``French policy was …``: an unlinked
    nationality, language or religion word is the language's ``derived_tag`` (English MISC), unless
    a capitalized word follows (``French Revolution`` is a name of its own, left to the rules)."""
    tokens = state.tokens
    if tokens[k] not in nationality_words(pack.lang):
        return None
    if k + 1 < len(tokens) and tokens[k + 1][:1].isupper():
        return None
    return _derived(pack, "")


@rule("sentence_initial_unk", Stage.TOKEN, needs_pos=True)
def sentence_initial_unk(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``Douglas stayed …``: a capitalized first word that the tagger calls a proper noun is an
    unknown name: UNK (the sentence is dropped)."""
    return UNKNOWN if state.pos(k) == "PROPN" else None


@rule("sentence_initial_o", Stage.TOKEN, needs_pos=True)
def sentence_initial_o(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``However, he stayed …``: any other first word is capitalized because it comes first: O."""
    return O


@rule("unlinked_capitalized_unk", Stage.TOKEN)
def unlinked_capitalized_unk(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``He met Douglas in …``: a capitalized word nothing else explains is an unknown name: UNK
    (the sentence is dropped). Only a real capital counts: a word of a script without case is never
    UNK for its first letter."""
    return UNKNOWN
