"""Step 3 of the method, unlinked mentions: the per-article alias index and the rules that fill it.

The entities an article is known to mention (its own subject, and the typed targets of its links)
may be mentioned again without a link. The alias rules say under which token sequences; the index
holds them by first token, longest first, and the first entity to claim a form keeps it: the
article's own subject first, then the links in text order, each rule's forms for all entities
before the next rule's (full names before first and last names).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from wikisilver.labels.anchors import (
    anchor_names_target, function_words, is_derived, is_member_word, names_a_modifier, not_a_persons_name,
)
from wikisilver.labels.language import LanguagePack, case_stems
from wikisilver.labels.limits import MAX_ALIAS_TOKENS
from wikisilver.labels.order import (
    ALIAS_AMBIGUOUS_UNK, ALIAS_MATCH, ALIAS_PERSON_NAME_PART, DERIVED_WORD, MODIFIER_ANCHOR_IGNORED, NATIONALITY_WORD,
    OWN_TITLE_UNK, PARTY_MEMBER_MISC, PERSON_TITLE_UNK, UNRELATED_ANCHOR_IGNORED,
)
from wikisilver.labels.registry import LabelConfig, Rule, Stage, rule
from wikisilver.labels.state import UNK, Mention
from wikisilver.records import Article, TargetInfo
from wikisilver.titles import drop_parenthetical
from wikisilver.text.base import is_capitalized, is_punct_token
from wikisilver.wikitext.markup import check_time

Tokenize = Callable[[str], tuple[str, ...]]
Form = tuple[str, ...]
# The DBpedia class of a name whose entity is not known, by its CoNLL tag.
GENERIC_CLASS = {"PER": "Person", "LOC": "Place", "ORG": "Organisation"}


def alias_forms(info: TargetInfo) -> list[str]:
    """Names under which an entity may be mentioned again: its title, its aliases (redirects),
    the title without a disambiguator, and a place's name without its region."""
    forms = [info.title, *info.aliases]
    bare = drop_parenthetical(info.title)
    if bare != info.title:
        forms.append(bare)
    if ", " in bare:  # "Paris, Texas" is mentioned as "Paris"
        forms.append(bare.split(", ", 1)[0])
    return [f for f in forms if f and is_capitalized(f)]


def _person_part(title: str, of_words: Sequence[str]) -> tuple[str, str]:
    """(the person's part of a title ``X of Y``, the "of" found or ""): ``X`` and its word."""
    for word in of_words:
        person, of, _ = title.partition(f" {word} ")
        if of:
            return person, of
    return title, ""


@rule(ALIAS_MATCH, Stage.ALIAS, requires=(
    NATIONALITY_WORD, DERIVED_WORD, PERSON_TITLE_UNK, UNRELATED_ANCHOR_IGNORED, MODIFIER_ANCHOR_IGNORED, PARTY_MEMBER_MISC))
def alias_match(info: TargetInfo, anchor: Form, pack: LanguagePack, tokenize: Tokenize) -> Iterator[Form]:
    """``[[Abraham Lincoln]] was a lawyer. Lincoln was elected …``: an entity's capitalized anchor,
    title, title without disambiguator and redirect titles (``Lincoln`` → Abraham Lincoln), and the
    article's own title and aliases, mentioned unlinked, take the entity's tag. The anchor's form
    ends where its name does: not with punctuation or a possessive clitic (``Earth`` of
    ``[[Earth|Earth's]]``); a person's forms start where the name does, after any personal title
    (``Mary`` of ``Queen Mary``), and a person's, place's or organisation's after a leading
    article (``New York Times``: the article is O, ``leading_article_o``)."""
    while anchor and (is_punct_token(anchor[-1]) or anchor[-1] in pack.possessive_clitics):
        anchor = anchor[:-1]
    conll = pack.conll_of(info.entity) if info.entity is not None else ""
    if anchor and all(is_capitalized(t) or not t.isalpha() for t in anchor):
        yield _name_start(anchor, conll, pack)
    for form in alias_forms(info):
        yield _name_start(tokenize(form), conll, pack)


def _name_start(form: Form, conll: str, pack: LanguagePack) -> Form:
    """A form from where the name starts: after a person's personal titles, and (where the
    ``leading_article_o`` rule's ``leading_articles`` are) after the article leading a person's,
    place's or organisation's name (``New York Times`` of The New York Times)."""
    if conll == "PER":
        form = _without_titles(form, pack)
    if conll in ("PER", "LOC", "ORG") and len(form) > 1 and form[0] in pack.leading_articles:
        form = form[1:]
    return form


def _without_titles(form: Form, pack: LanguagePack) -> Form:
    """A person's name without the personal titles before it (``Mary`` of ``[[Mary of Teck|Queen
    Mary]]``): a title is not part of the name, so an unlinked ``Queen Mary`` is ``Queen/O
    Mary/PER``, as the anchor is after its cleansing."""
    while len(form) > 1 and form[0] in pack.personal_titles:
        form = form[1:]
    return form


@rule(ALIAS_PERSON_NAME_PART, Stage.ALIAS, requires=(NATIONALITY_WORD, PERSON_TITLE_UNK))
def alias_person_name_part(info: TargetInfo, anchor: Form, pack: LanguagePack, tokenize: Tokenize) -> Iterator[Form]:
    """``He met [[Mary Todd]] … Later Todd married him.``: a person's first and last name alone
    (not particles such as ``von``, not personal titles) are that person. The article's own
    subject claims them first: ``Lincoln`` in Abraham Lincoln is him, not a linked town. A
    title of the form ``X of Y`` (``person_of_words``) names the person by ``X``: ``Umberto`` is
    Umberto I of Italy, ``Italy`` is not."""
    if info.entity is None or pack.conll_of(info.entity) != "PER":
        return
    person, of = _person_part(drop_parenthetical(info.title), pack.person_of_words)
    names = [p for p in tokenize(person) if p.isalpha() and len(p) > 1 and is_capitalized(p)
             and p.lower() not in pack.name_particles]
    if len(names) >= 2 or (of and names):
        for name in dict.fromkeys((names[0], names[-1])):
            if name not in pack.personal_titles:
                yield (name,)


class _Node:
    """A node of the alias trie: the tokens that may follow, and the mention of the form that ends here."""

    __slots__ = ("next", "mention")

    def __init__(self) -> None:
        self.next: dict[str, _Node] = {}
        self.mention: Mention | None = None


@rule(OWN_TITLE_UNK, Stage.ALIAS)
def own_title_unk(info: TargetInfo, anchor: Form, pack: LanguagePack, tokenize: Tokenize) -> Iterator[Form]:
    """``An American in Paris is a jazz-influenced symphonic poem``: an article that no source
    types, whose title is a name of several words (every content word capitalized, and more than
    the first), names itself in its text under that title: the title there is one unknown name,
    UNK (the sentence is dropped), never ``American/MISC … Paris/LOC``. Applied by the index when
    it is built (it has no entity to give forms of); as a rule it only has its name."""
    return iter(())


@rule(ALIAS_AMBIGUOUS_UNK, Stage.ALIAS, requires=(ALIAS_PERSON_NAME_PART,))
def alias_ambiguous_unk(info: TargetInfo, anchor: Form, pack: LanguagePack, tokenize: Tokenize) -> Iterator[Form]:
    """``Chrysler … his cars`` in the article Chrysler, which links to Walter Chrysler: a one-word
    form of the article's own subject that is also a name part of a person it links to may mean
    either, so unlinked it is UNK (the sentence is dropped) rather than the subject's tag. Applied
    by the index when it is built; as a rule it only has its name."""
    return iter(())


def is_name_title(form: Form, pack: LanguagePack) -> bool:
    """Whether a title reads as a name of several words: more than one word, every alphabetic word
    capitalized or a function word of the language, and a capitalized word after the first."""
    function = function_words(pack.lang)
    words = [t for t in form if t[:1].isalpha()]
    # a real capital only: a title in a script without case is never read as a name by its capitals
    if len(words) < 2 or not all(w[:1].isupper() or w.lower() in function for w in words):
        return False
    return any(w[:1].isupper() and w.lower() not in function for w in words[1:])


class AliasIndex:
    """The alias forms of one article, in a trie of tokens: a match at a token walks down it once,
    at most :data:`~wikisilver.labels.limits.MAX_ALIAS_TOKENS` steps, however many forms share the
    token (thousands of linked persons named John): linear in the page."""

    def __init__(self, forms: dict[Form, Mention]) -> None:
        self._forms = forms
        self._root = _Node()
        for form, mention in forms.items():
            if len(form) > MAX_ALIAS_TOKENS:
                continue
            node = self._root
            for token in form:
                node = node.next.setdefault(token, _Node())
            node.mention = mention
        self.first_tokens = self._root.next.keys()  # the tokens an alias form starts with

    @classmethod
    def build(
        cls,
        article: Article,
        targets: Mapping[str, TargetInfo],
        own: TargetInfo | None,
        pack: LanguagePack,
        tokenize: Tokenize,
        rules: Sequence[Rule],
        nationality: frozenset[str] = frozenset(),
        not_entities: Mapping[str, str] | None = None,
        config: LabelConfig = LabelConfig(),
        deadline: float | None = None,
    ) -> "AliasIndex":
        """The index of ``article`` from the ``ALIAS`` rules that are on. A form that is one
        function word is never an alias (``The`` of ``The Man``); a form that is one word of
        ``nationality`` (the ``nationality_word`` rule) takes the language's derived tag, not the
        entity's (``Chinese`` of ``[[China|Chinese]]`` is MISC in English), and so does a one-word
        anchor derived from the entity's name where the ``derived_word`` rule is on (in ``config``:
        ``Aristotelian`` of ``[[Aristotle|Aristotelian]]``). Where ``modifier_anchor_ignored`` is
        on, a place's or an organisation's form of several words ending in a lower-case one
        (``Andorra national football team``) is none: that rule ignores such an anchor, and a form
        must not undo it; nor is an anchor that is such a title without its lower-case tail
        (``Northern Ireland`` of the national football team: the country). Where
        ``party_member_misc`` is on, a one-word form of a party that is not its title is MISC
        (``Democrats``). ``not_entities``
        (name -> the ``EVIDENCE`` rule that says so: the taxa of ``taxon_o``) claim their forms
        first, as O: an unlinked ``Lissamphibia`` is O, not UNK. A link that repeats an earlier
        one (same target, same anchor) adds nothing and is read once. ``deadline`` (a
        ``time.perf_counter()`` value): :class:`~wikisilver.wikitext.WikitextBudgetError` once it
        has passed."""
        entries: dict[Form, Mention] = {
            tokenize(name): Mention("O", "O", "", evidence_rule) for name, evidence_rule in (not_entities or {}).items()
        }
        function = function_words(pack.lang)
        derived = pack.derived()
        # the switches of other rules that the alias rules declare they depend on (``requires``)
        derived_anchors = config.on(DERIVED_WORD, reader=ALIAS_MATCH)
        no_person = config.on(PERSON_TITLE_UNK, reader=ALIAS_MATCH)
        own_anchors_only = config.on(UNRELATED_ANCHOR_IGNORED, reader=ALIAS_MATCH)
        no_lower_tail = (config.on(MODIFIER_ANCHOR_IGNORED, reader=ALIAS_MATCH)
                         and not pack.capitalization_is_proper_noun)

        own_forms: set[Form] = set()  # the one-word forms of a typed subject other than a person
        ambiguous = config.on(ALIAS_AMBIGUOUS_UNK)
        members = config.on(PARTY_MEMBER_MISC, reader=ALIAS_MATCH)

        def add(info: TargetInfo, anchor: Form, alias_rule: Rule) -> None:
            mention = Mention.of(pack.tag_of(info), alias_rule.name)
            for form in alias_rule.decide(info, anchor, pack, tokenize):
                if (ambiguous and info is not own and form in own_forms and mention.conll == "PER"
                        and alias_rule.name == ALIAS_PERSON_NAME_PART):
                    entries[form] = Mention(UNK, UNK, "", ALIAS_AMBIGUOUS_UNK)
                    continue
                if not form or form in entries or not is_capitalized(form[0]):
                    continue
                if info is own and len(form) == 1 and mention.conll not in ("PER", "O"):
                    own_forms.add(form)
                if len(form) == 1 and form[0].lower() in function:
                    continue
                if no_lower_tail and mention.conll in ("LOC", "ORG") and len(form) > 1 and form[-1][:1].islower():
                    continue
                if members and len(form) == 1 and is_member_word(form[0], info, pack):
                    entries[form] = Mention.of(derived._replace(target=info.title), PARTY_MEMBER_MISC)
                elif len(form) == 1 and form[0] in nationality:
                    entries[form] = Mention.of(derived._replace(target=info.title), NATIONALITY_WORD)
                elif derived_anchors and form == anchor and len(form) == 1 and is_derived(form[0], info, pack):
                    entries[form] = Mention.of(derived._replace(target=info.title), DERIVED_WORD)
                else:
                    entries[form] = mention

        if config.on(OWN_TITLE_UNK) and (own is None or own.entity is None):
            title = tokenize(drop_parenthetical(article.title))
            if is_name_title(title, pack):
                entries.setdefault(title, Mention(UNK, UNK, "", OWN_TITLE_UNK))
        known: list[tuple[TargetInfo, Form]] = []
        if (own is not None and own.entity is not None and pack.conll_of(own.entity) != "O"
                and not (no_person and not_a_persons_name(own, pack))):
            known.append((own, ()))
            for alias_rule in rules:
                add(own, (), alias_rule)
        for link in article.links:
            check_time(deadline, "labelling")
            info = targets.get(link.target)
            if info is None or info.entity is None or info.is_disambiguation or pack.conll_of(info.entity) == "O":
                continue
            if no_person and not_a_persons_name(info, pack):
                continue
            related = not own_anchors_only or anchor_names_target(link.anchor, info, link.target)
            # "[[Northern Ireland national football team|Northern Ireland]]": the country's name
            # (modifier_anchor_ignored), no form of the team
            if no_lower_tail and pack.conll_of(info.entity) in ("LOC", "ORG") and names_a_modifier(link.anchor, info):
                related = False
            known.append((info, tokenize(link.anchor) if related else ()))
        known = list(dict.fromkeys(known))
        for alias_rule in rules:
            for info, anchor in known:
                add(info, anchor, alias_rule)
            check_time(deadline, "labelling")
        return cls(entries)

    def single(self, token: str) -> Mention | None:
        """The mention of the one-token form ``token``, if there is one."""
        return self._forms.get((token,))

    def part_mention(self, form: Form, whole: Mention) -> Mention:
        """The mention of ``form``, a part cut out of the name ``whole`` (``Kentucky`` of
        ``Hodgenville, Kentucky``): the entity of the article known by exactly that name if it has
        the same CoNLL tag, else ``whole``'s tag with only the generic class of that tag."""
        known = self._forms.get(form)
        if known is not None and known.conll == whole.conll:
            return Mention(known.conll, known.dbpedia_class, known.target, whole.rule)
        return Mention(whole.conll, GENERIC_CLASS.get(whole.conll, whole.conll), "", whole.rule)

    def match(self, tokens: Sequence[str], mentions: Sequence[Mention | None], i: int) -> tuple[Form, Mention] | None:
        """The longest form that starts at token i and covers only tokens with no mention yet."""
        node, found, end = self._root, None, i
        for k in range(i, min(len(tokens), i + MAX_ALIAS_TOKENS)):
            if mentions[k] is not None:
                break
            node = node.next.get(tokens[k])
            if node is None:
                break
            if node.mention is not None:
                found, end = node.mention, k + 1
        return None if found is None else (tuple(tokens[i:end]), found)


@rule("inflected_name", Stage.INFLECTED, formerly="hu_inflected_name")
def inflected_alias(token: str, index: AliasIndex, pack: LanguagePack) -> Mention | None:
    """``… Sokan élnek Berlinben.`` (Hungarian): a one-token alias plus a case ending of the
    language (``inflection_suffixes``: ``Berlin`` + ``-ben``, ``NASA`` + ``-nak``) is that entity,
    with its tag."""
    for stem in case_stems(token, pack.inflection_suffixes):
        mention = index.single(stem)
        if mention is not None:
            return mention
    return None
