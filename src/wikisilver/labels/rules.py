"""Step 3 of the method, its rules: what links, anchors and capitalized words say a token is.

Each rule is registered under its name (:mod:`wikisilver.labels.registry`); its docstring says what
it decides, with an example. What the article's whole text shows is in
:mod:`wikisilver.labels.text_evidence`, the alias rules in :mod:`wikisilver.labels.aliases`, the
low-quality flags in :mod:`wikisilver.labels.quality`.
"""

from __future__ import annotations

import functools

from wikisilver.entities.calendar import is_calendar_title
from wikisilver.labels.anchors import (
    anchor_names_target, function_words, is_derived, is_member_word, names_a_modifier, not_a_persons_name,
)
from wikisilver.labels.language import LanguagePack
from wikisilver.labels.registry import Stage, rule
from wikisilver.labels.order import (
    DERIVED_WORD, LEADING_ARTICLE_O, MODIFIER_ANCHOR_IGNORED, NATIONALITY_WORD, PARTY_MEMBER_MISC, PERSON_TITLE_UNK,
    ROYAL_OF_PLACE, UNRELATED_ANCHOR_IGNORED,
)
from wikisilver.labels.state import LEAVE, O, UNK, UNKNOWN, Leave, Mention, SentenceState, Tag
from wikisilver.languages import language_pack
from wikisilver.records import Link, TargetInfo
from wikisilver.text.base import is_punct_token
from wikisilver.titles import drop_parenthetical


def is_lowercase_anchor(anchor: str) -> bool:
    """An anchor written in lower case: common-noun links ("[[city]]") and anchors with no letter
    at all ("[[1848]]"). An anchor in a script without case is not lower case."""
    if anchor.isascii():  # most anchors: a letter is upper or lower case, and any other is none
        return anchor.lower() == anchor
    letters = [ch for ch in anchor if ch.isalpha()]
    if not letters:
        return True
    return not any(ch.isupper() for ch in letters) and any(ch.islower() for ch in letters)


def _typed(info: TargetInfo | None) -> bool:
    return info is not None and info.entity is not None


# -- links, in order of precedence ------------------------------------------------------------


@rule("link_calendar_o", Stage.LINK)
def link_calendar_o(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``on [[February 12]], [[1809]]``: a link to a calendar page (a date, a year, a month; titles
    as in ``mappings/<lang>/calendar.toml``, or a page typed by the calendar source) is O."""
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
    """The nationality, ethnic-group, language and religion words of ``lang`` (its pack's
    ``nationalities.txt``, with their plurals as its ``labels.toml`` ``[nationality_plural]`` makes
    them: English adds -s except after ``not_after`` endings; except the plurals that are names of
    their own, ``plural_names.txt``: Philippines, Laos) and its names of religions and of God
    (``religions.txt``, as written)."""
    pack = language_pack(lang)
    words = pack.words("nationalities.txt")
    plural = pack.table("labels.toml").get("nationality_plural", {})
    suffix, not_after = plural.get("suffix", ""), tuple(plural.get("not_after", ()))
    plurals = {w + suffix for w in words if not (not_after and w.endswith(not_after))} if suffix else set()
    plurals -= pack.words("plural_names.txt")
    return words | plurals | pack.words("religions.txt")


@rule(NATIONALITY_WORD, Stage.LINK)
def nationality_word_link(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``[[China|Chinese]] alchemy``, ``[[Greek language|Greek]]``, ``[[Ancient Egypt|ancient
    Egyptians]]``: an anchor that is one nationality, ethnic-group, language or religion word
    (``mappings/<lang>/nationalities.txt``; lower-case words before it and punctuation after it
    aside) is that word, whatever the link points at: the language's ``derived_tag`` (English MISC
    as CoNLL-2003 annotates it; Hungarian O, Szeged guidelines)."""
    words = [w for w in link.anchor.split() if not w[:1].islower()]
    if len(words) == 1 and words[0].rstrip(".,;:!?)\"'") in nationality_words(pack.lang):
        return pack.derived(info.title if info is not None else link.target)
    return None


@rule(NATIONALITY_WORD, Stage.ANCHOR_HEAD)
def nationality_word_head(token: str, tag: Mention, pack: LanguagePack) -> bool:
    """``[[Ancient Egypt|ancient Egyptians]]``: lower-case words before the nationality word are O."""
    return tag.rule == NATIONALITY_WORD and token[:1].islower()


@rule("descriptive_anchor_ignored", Stage.LINK)
def descriptive_anchor_ignored(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Leave | None:
    """``stunningly [[Battle of Fredericksburg|defeated by Lee at Fredericksburg]]``: an anchor that
    opens with a lower-case content word (not a function word, not a word of the target's names)
    describes its target instead of naming it: the link is ignored and the names in it are left to
    the other rules (``Lee`` as an alias of Robert E. Lee, ``Fredericksburg`` as itself). Where
    capitalization is the proper-noun test (Hungarian) lower-case words belong to names and the
    rule asks nothing."""
    if pack.capitalization_is_proper_noun or not _typed(info):
        return None
    words = link.anchor.split()
    first = words[0] if words else ""
    if len(words) < 2 or not first[:1].islower() or first.lower() in function_words(pack.lang):
        return None
    names = {w.lower() for form in (info.title, *info.aliases) for w in form.split()}
    return LEAVE if first.lower() not in names and any(w[:1].isupper() for w in words[1:]) else None


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


@rule(PERSON_TITLE_UNK, Stage.LINK)
def person_title_unk(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``the [[Mediterranean climate|Mediterranean]] air``: a target typed as a person whose title
    is no person's name (a lower-case content word: ``Mediterranean climate``, ``Art critic``,
    typed Person by a sample) has a wrong type: UNK (the sentence is dropped), and its title and
    anchors are no alias forms. Not where capitalization is the proper-noun test (Hungarian)."""
    if _typed(info) and not_a_persons_name(info, pack):
        return Tag(UNK, UNK, link.target)
    return None


@rule(DERIVED_WORD, Stage.LINK)
def derived_word(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``[[Turkey|Turkish]] poetry``: a one-word anchor not contained in the entity's names and
    ending in one of the language's ``derived_suffixes`` is derived from the name: the language's
    ``derived_tag`` (English MISC; Hungarian O, as in the Szeged guidelines)."""
    if _typed(info) and pack.conll_of(info.entity) != "O" and is_derived(link.anchor, info, pack):
        return pack.derived(info.title)
    return None


@rule(PARTY_MEMBER_MISC, Stage.LINK)
def party_member_misc(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``blue-collar [[Democratic Party (United States)|Democrats]]``, ``He was a [[Democratic Party
    (United States)|Democrat]].``, ``a [[Whig Party (United States)|Whig]] congressman``: one word
    for a political party (``member_word_classes``) that is not the party's title nor an
    abbreviation names its members, supporters or adjective: the language's derived tag (English
    MISC), as GUIDELINES_EN and CoNLL-2003 tag them; its unlinked mentions too. The party's name
    (``Democratic Party``, ``Likud``) and abbreviation (``SPD``) stay ORG."""
    if _typed(info) and pack.conll_of(info.entity) != "O" and is_member_word(link.anchor.strip(), info, pack):
        return pack.derived(info.title)
    return None


@rule(MODIFIER_ANCHOR_IGNORED, Stage.LINK)
def modifier_anchor_ignored(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Leave | None:
    """``the [[Andorra national football team]]``, ``[[Tang dynasty]]``: an anchor whose
    lower-case tail is written in the target's own title in lower case (``national football team``)
    names the target by a name of something else, the modifier before the tail (Andorra the
    country, not the team; Tang no dynasty): the link is ignored and the modifier is left to the
    other rules, rather than trimmed to it with the target's tag. So is an anchor that is only the
    modifier (``England, Scotland, Wales and [[Northern Ireland national football team|Northern
    Ireland]] compete as separate countries``): the country's name, LOC as CoNLL-2003 tags a
    country standing for its team, and no alias form of the team either (unlinked, the same words
    name the country). Only places and organisations:
    a person's anchor keeps its head (``[[John Smith (footballer)|John Smith]]``), and so does a
    MISC one, whose head is mostly the name itself (``[[September 11 attacks]]``,
    ``[[Greek language]]``); where capitalization is the proper-noun test (Hungarian writes parts
    of names in lower case) the rule asks nothing."""
    if pack.capitalization_is_proper_noun or not _typed(info) or pack.conll_of(info.entity) not in ("LOC", "ORG"):
        return None
    if names_a_modifier(link.anchor.strip(), info):
        return LEAVE
    words = link.anchor.split()
    head = len(words)
    while head > 0 and words[head - 1][:1].islower():
        head -= 1
    if head in (0, len(words)) or not words[0][:1].isupper():
        return None
    title_words = set(drop_parenthetical(info.title).split())
    return LEAVE if all(w in title_words for w in words[head:]) else None


@rule(UNRELATED_ANCHOR_IGNORED, Stage.LINK)
def unrelated_anchor_ignored(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Leave | None:
    """``larger than [[Ashkenazi Jews|Europe]]``, ``citizens of the [[NASA|United States]]``: a
    capitalized anchor that shares no word (by its first four letters) with the target's title or
    aliases and is not its initials names another entity: the link is ignored, the anchor is no
    alias form, and its words are left to the other rules (mostly UNK: the sentence is dropped).
    Precision first: a name of the target that its aliases lack (``[[Netherlands|Holland]]`` where
    no redirect says so) is lost with them. Derived and nationality words are decided before."""
    if _typed(info) and not anchor_names_target(link.anchor, info, link.target):
        return LEAVE
    return None


@rule("link_entity", Stage.LINK)
def link_entity(link: Link, info: TargetInfo | None, pack: LanguagePack) -> Tag | None:
    """``born in [[Kentucky]]``: a link's anchor takes its target's tag (class AdministrativeRegion
    → LOC through ``mappings/classes.tsv``)."""
    if _typed(info) and pack.conll_of(info.entity) != "O":
        return pack.tag_of(info)
    return None


# -- reference cleansing of an entity link's anchor --------------------------------------------


@rule("personal_title_o", Stage.ANCHOR_HEAD)
def personal_title_in_anchor(token: str, tag: Mention, pack: LanguagePack) -> bool:
    """``[[Abraham Lincoln|President Lincoln]]``: personal titles leading a person's anchor are O
    (``personal_titles`` of the language); in another name they are part of it (``[[General
    Motors]]``, ``[[Major League Baseball]]``)."""
    return tag.conll == "PER" and token in pack.personal_titles


@rule(LEADING_ARTICLE_O, Stage.ANCHOR_HEAD)
def leading_article_in_anchor(token: str, mention: Mention, pack: LanguagePack) -> bool:
    """``[[The New York Times]] reported``: a capitalized article leading the anchor of a person, a
    place or an organisation (``leading_articles``) is O, as GUIDELINES_EN says ("a name does not
    include a leading the") and every English gold file annotates (The/O Go-Gos/ORG, The/O
    Financial Times/ORG); the title of a work keeps it (``[The Crime at Black Dudley]MISC``)."""
    return mention.conll in ("PER", "LOC", "ORG") and token in pack.leading_articles


@rule("trailing_punctuation_o", Stage.ANCHOR_END)
def trailing_punctuation_o(token: str, tag: Mention, pack: LanguagePack) -> bool:
    """``[[Republican Party (United States)|Republican Party,]]``: punctuation closing an anchor is O."""
    return is_punct_token(token)


@rule("lowercase_tail_o", Stage.ANCHOR_END)
def lowercase_tail_o(token: str, tag: Mention, pack: LanguagePack) -> bool:
    """``a [[Whig Party (United States)|Whig Party leader]]``: lower-case words closing an anchor
    are common nouns or titles, O. Where capitalization is the proper-noun test (Hungarian writes
    the common-noun part of some names in lower case: ``Weimari köztársaság``) only persons'
    anchors are trimmed (``brandenburgi választófejedelem``)."""
    if tag.conll != "PER" and pack.capitalization_is_proper_noun:
        return False
    return token[:1].islower()


@rule("possessive_o", Stage.ANCHOR_END)
def possessive_o(token: str, tag: Mention, pack: LanguagePack) -> bool:
    """``[[Earth|Earth's]] largest``, ``[[Earth#Surface|Earth's surface]]``: the possessive clitic
    closing an anchor (``possessive_clitics`` of the language, after a lower-case tail) is O;
    the name is ``Earth``. Inside a name (``People's Republic``) it stays."""
    return token in pack.possessive_clitics


@rule("inflected_name", Stage.HYPHEN, formerly="hu_inflected_name")
def inflected_anchor(rest: str, pack: LanguagePack) -> Leave | None:
    """``[[NASA]]-nak`` (Hungarian): a case ending after a hyphen leaves the name as it is, so
    ``NASA-nak`` keeps the link's tag (``inflection_suffixes`` of the language; a language without
    them never asks). Was ``hu_inflected_name``, still accepted by ``--disable-rule``."""
    if pack.inflection_suffixes and rest.startswith("-") and rest[1:] in pack.inflection_suffixes:
        return LEAVE
    return None


@rule("hyphen_compound_o", Stage.HYPHEN, formerly="hu_hyphen_compound_o")
def hyphen_compound_o(rest: str, pack: LanguagePack) -> Tag | None:
    """``[[WorldCom]]-botrány`` (Hungarian): a hyphenated compound whose head is a common noun is O,
    as in NerKor (only in languages with case endings, ``inflection_suffixes``). A compound that is
    itself the linked page keeps the link's tag: ``[[Nobel-díj]]at`` is ``Nobel-díjat``, the anchor
    plus a case ending. Was ``hu_hyphen_compound_o``, still accepted by ``--disable-rule``."""
    if pack.inflection_suffixes and rest.startswith("-"):
        return O
    return None


@rule("bracket_split", Stage.INSIDE)
def bracket_split(token: str, tag: Mention, pack: LanguagePack) -> bool:
    """``[[Free Democratic Party (Germany)|Free Democratic Party (FDP)]]``: a bracket inside a name
    is O and splits it; the abbreviation in brackets is a name of its own (``Free Democratic
    Party/ORG (/O FDP/ORG )/O``), as CoNLL annotates it."""
    return token in _BRACKETS


_BRACKETS = frozenset("()[]")


@rule(ROYAL_OF_PLACE, Stage.INSIDE)
def royal_of_place(token: str, tag: Mention, pack: LanguagePack) -> bool:
    """``Queen [[Juliana of the Netherlands]] abdicates``: a royal or noble person's name of the
    form ``X of Y`` is the person ``X`` and the place ``Y`` (``Juliana/PER of/O the/O
    Netherlands/LOC``), as the guidelines settle it. The word ``of`` (the language's
    ``place_after_of_words``) is O and splits the name; the labeller types what follows as a place
    (leading lower-case words O). Only for the classes of ``place_after_of_classes`` (Royalty,
    Monarch, Noble: ``Joan of Arc`` the saint stays one name)."""
    return token in pack.place_after_of_words and tag.dbpedia_class in pack.place_after_of_classes


@rule("location_comma_split", Stage.INSIDE)
def location_comma_split(token: str, tag: Mention, pack: LanguagePack) -> bool:
    """``[[Hodgenville, Kentucky]]``: a comma inside a location splits it into two places
    (``Hodgenville/B-LOC ,/O Kentucky/B-LOC``), as CoNLL annotates them."""
    return tag.conll == "LOC" and token == ","


# -- capitalized words no link or alias explains, first match decides --------------------------


@rule("personal_title_o", Stage.TOKEN)
def personal_title_alone(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``President Lincoln`` unlinked: the title before a name is O, wherever it stands."""
    return O if state.tokens[k] in pack.personal_titles else None


@rule(LEADING_ARTICLE_O, Stage.TOKEN)
def leading_article_alone(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``… by The Washington Post`` unlinked (its alias form starts after the article): a
    capitalized article right before the mention of a person, a place or an organisation is O."""
    if state.tokens[k] not in pack.leading_articles or k + 1 >= len(state.tokens):
        return None
    following = state.mentions[k + 1]
    return O if following is not None and following.conll in ("PER", "LOC", "ORG") else None


@rule("incidental_capital_o", Stage.TOKEN)
def incidental_capital_o(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``In March I went …``: words capitalized by convention (months and weekdays of
    ``mappings/<lang>/calendar.toml``, ``I``, listed acronyms: ``incidental_capitals``) are O."""
    token = state.tokens[k]
    if token in pack.incidental_capitals or token.lower() in pack.calendar_words:
        return O
    return None


@rule(NATIONALITY_WORD, Stage.TOKEN)
def nationality_word_alone(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``It is said that the Chinese invented gunpowder.``, ``French policy was …``: an unlinked
    nationality, language or religion word is the language's ``derived_tag`` (English MISC), unless
    a capitalized word follows (``French Revolution`` is a name of its own, left to the rules)."""
    tokens = state.tokens
    if tokens[k] not in nationality_words(pack.lang):
        return None
    if k + 1 < len(tokens) and tokens[k + 1][:1].isupper():
        return None
    return pack.derived()


@rule("capitalized_noun_o", Stage.TOKEN)
def capitalized_noun_o(state: SentenceState, k: int, pack: LanguagePack) -> Tag | None:
    """``Die Stadt hat viele Einwohner.``: where the language capitalizes every noun
    (``nouns_capitalized``: German), a capitalized word that the language's processor calls a
    common noun is O, not an unknown name (every sentence of such a language is tagged before its
    capitals are decided; :meth:`~wikisilver.text.TextProcessor.common_nouns`). Anything else, a
    word tagged PROPN or a "noun" the tagger never saw, is left to the rules after this one."""
    return O if pack.nouns_capitalized and k in state.common_nouns else None


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
