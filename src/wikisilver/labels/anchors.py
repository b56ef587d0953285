"""Step 3 of the method: what a link's anchor (and its target's title) says about whether it names
the target: a derived word (``Turkish`` of Turkey), an abbreviation, a member's word (``Democrats``
of a party), the name of a modifier (``Northern Ireland`` of its football team), another entity
altogether (``[[NASA|United States]]``), a title typed a person that is no person's name. The
link rules (:mod:`~wikisilver.labels.rules`) and the alias index
(:mod:`~wikisilver.labels.aliases`) ask these.
"""

from __future__ import annotations

import re
import unicodedata

from wikisilver.labels.language import LanguagePack
from wikisilver.languages import language_pack
from wikisilver.records import TargetInfo
from wikisilver.titles import drop_parenthetical


def function_words(lang: str) -> frozenset[str]:
    """The function words of ``lang`` (its pack's ``function_words.txt``, lower case): never an
    alias on their own."""
    return language_pack(lang).words("function_words.txt")



def is_derived(anchor: str, info: TargetInfo, pack: LanguagePack) -> bool:
    """'Turkish' -> Turkey: a single word not contained in any name of the entity.

    An abbreviation in capitals is not derived either (``RNLI`` of the Royal National Lifeboat
    Institution ends like ``Iraqi``, but is the name itself).
    An inflected name is not derived: a name followed by a case ending of the language
    ("Berlinben", "NASA-nak") or a possessive ending ("Lincoln's": ``possessive_endings``) is the
    name itself.
    """
    words = anchor.split()
    if len(words) != 1 or _is_abbreviation(words[0]):
        return False
    word = words[0].lower()
    names = [w.lower() for form in (info.title, *info.aliases) for w in drop_parenthetical(form).split()]
    if any(word in form.lower() for form in (info.title, *info.aliases)):
        return False
    endings = pack.inflection_suffixes + pack.possessive_endings
    for name in names:
        if word.startswith(name):
            rest = word[len(name):].lstrip("-")
            if rest in endings:
                return False
    # Derived words carry a derivational ending ("Turkish", "American", hu "berlini"); another
    # name of the entity ("Poroszország" for Porosz Királyság, a nickname) is not derived.
    return word.endswith(pack.derived_suffixes)


def _is_abbreviation(text: str) -> bool:
    """An abbreviation in capitals: ``NASA``, ``U.S.``, ``RNLI`` (letters only, two or more, all
    capitals, periods and spaces aside)."""
    letters = text.replace(".", "").replace(" ", "")
    return len(letters) > 1 and letters.isalpha() and letters.isupper()


_WORDS = re.compile(r"[^\W_][\w'’.-]*")


def _stem4(word: str) -> str:
    """The first four letters of a word, lower case, without diacritics: what an anchor shares
    with a name of its target (``Elbába`` with ``Elba``: a case ending lengthens the vowel)."""
    head = word[:4]
    if head.isascii():  # no diacritics to drop, and lower case keeps the length
        return head.lower()
    return "".join(ch for ch in unicodedata.normalize("NFD", word.lower()[:4]) if not unicodedata.combining(ch))


def anchor_names_target(anchor: str, info: TargetInfo, written: str = "") -> bool:
    """Whether an anchor names its target rather than another entity: it has no capitalized word,
    or one of its capitalized words shares its first four letters (all of them, if shorter; accents
    aside) with a word of the target's title, its aliases or the link's target as ``written`` (a
    redirect to it: ``[[Donau]]`` of the Danube): ``Lincoln``, ``Turkish`` of Turkey,
    ``Berlinben``, ``Elbába`` of Elba; or it is an abbreviation in capitals (``NASA``, ``U.S.``,
    ``SPD`` of the Social Democratic Party of Germany: initials of a name in another language are
    initials all the same).
    ``[[Ashkenazi Jews|Europe]]``, ``[[NASA|United States]]`` do not."""
    capitalized = {_stem4(w) for w in _WORDS.findall(anchor) if w[:1].isupper()}
    if not capitalized or _is_abbreviation(anchor):
        return True
    # the title first, then the redirects (a popular target has hundreds): most anchors share
    # the title's first word, and the aliases are never read
    return any(_stem4(w) in capitalized for name in (info.title, written, *info.aliases)
               for w in _WORDS.findall(drop_parenthetical(name)))


def is_member_word(word: str, info: TargetInfo, pack: LanguagePack) -> bool:
    """Whether ``word`` names a member, a supporter or the adjective of an organisation of a class
    whose members are named after it (``member_word_classes``: a political party) rather than the
    organisation: one word that is not the title itself (``Democrats``, ``Democrat``, ``Whig`` of
    ``Whig Party``; not ``Likud`` of Likud), nor an abbreviation in capitals (``SPD``), nor a noun
    for the kind of thing it is (``the Party``: a word of ``lead_nouns``)."""
    if info.entity is None or info.entity.dbpedia_class not in pack.member_word_classes:
        return False
    words = word.split()
    return (len(words) == 1 and not _is_abbreviation(word) and word != drop_parenthetical(info.title)
            and word.lower() not in pack.lead_nouns)


def names_a_modifier(anchor: str, info: TargetInfo) -> bool:
    """Whether an anchor is the words of its target's title before a lower-case tail
    (``[[Northern Ireland national football team|Northern Ireland]]``): the anchor is the name of
    the modifier (the country), not of the target."""
    title = drop_parenthetical(info.title).split()
    words = anchor.split()
    return 0 < len(words) < len(title) and title[:len(words)] == words and all(
        w[:1].islower() for w in title[len(words):])


def not_a_persons_name(info: TargetInfo, pack: LanguagePack) -> bool:
    """Whether a title typed as a person is no person's name: it has a lower-case word of three
    letters or more that is neither a name particle (``van``, ``bin``: ``name_particles.txt``) nor
    a function word (``the`` of Jack the Ripper): ``Mediterranean climate``, ``Art critic``, typed
    Person by a sample. Where capitalization is the proper-noun test (Hungarian writes a person's
    titles in lower case) never."""
    if pack.capitalization_is_proper_noun or info.entity is None or pack.conll_of(info.entity) != "PER":
        return False
    function = function_words(pack.lang)
    return any(len(word) >= 3 and word.isalpha() and word.islower() and word not in pack.name_particles
               and word not in function for word in drop_parenthetical(info.title).split())
