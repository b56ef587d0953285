"""Step 1 of the method for one title, from the article itself: an article no source types is typed
by what its lead sentence says it is.

Nothman et al. classify an article by the head noun of its first sentence ("*An American in Paris*
is a jazz-influenced symphonic **poem**"). wikisilver types titles through DBpedia first; where no
source knows the article's own title, the lead sentence still says what the article is about, and
its title there is one name of that type, not ``American``/MISC … ``Paris``/LOC. The head noun is
looked up in the language's ``lead_nouns.tsv`` (noun -> DBpedia class), and the class takes its
tags from the class table, as a DBpedia type would.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence

from wikisilver.labels.aliases import Form, Tokenize, alias_forms, is_name_title
from wikisilver.labels.language import LanguagePack
from wikisilver.labels.order import OWN_TITLE_LEAD
from wikisilver.labels.registry import Stage, rule
from wikisilver.ontology import class_table, tag_for_class
from wikisilver.records import Article, EntityType, TargetInfo
from wikisilver.text.base import is_capitalized

LEAD_SENTENCES = 3  # the lead sentence is the first of these that names the article
COPULA_WINDOW = 30  # tokens after the title within which its "is"/"was" is looked for
PosOf = Callable[[Sequence[str]], Sequence[str]]
# what stands between a determiner and its head ("an English film and television director")
_NOUN_PHRASE = frozenset({"ADJ", "NOUN", "PROPN", "NUM", "CCONJ"})


@rule(OWN_TITLE_LEAD, Stage.ALIAS)
def own_title_lead(info: TargetInfo, anchor: Form, pack: LanguagePack, tokenize: Tokenize) -> Iterator[Form]:
    """``An American in Paris is a jazz-influenced symphonic poem`` in the article of that title,
    which no source types: the lead sentence (the first of the article's first three sentences
    that holds its title, or a name of it without disambiguator or region) says what the article
    is, by the head noun after its ``is``/``was`` (``lead_copulas``, ``lead_determiners``; the head
    only: ``Adobe is a building material`` is no building): a noun of the language's
    ``lead_nouns.tsv`` types the article with its DBpedia class (``poem`` ->
    ``Poem``: MISC), and the title is then one name of that type wherever the article uses it, as
    a typed article's own title is: ``[An American in Paris]MISC``. A head noun the table lacks
    types nothing (``own_title_unk`` still holds). Applied by the labeller before the alias index
    is built; as a rule it only has its name."""
    return iter(())


@functools.cache
def _class_table() -> dict:
    """The shipped ontology's class -> tag table (not a build's ``--ontology``: the labeller is not given it)."""
    return class_table(None)[1]


def head_noun(tokens: Sequence[str], pos: Sequence[str], after: int, pack: LanguagePack) -> str | None:
    """The head noun of the predicate after token ``after`` (the end of the title), lower case:
    after the first copula and its determiners, the last noun of the run of adjectives, nouns,
    numbers and conjunctions that follows (``is a jazz-influenced symphonic poem by …`` -> ``poem``;
    ``was an American football player`` -> ``player``; ``is an English film and television
    director`` -> ``director``); a noun before it is a modifier (``Adobe is a building material``
    is no building). ``pos``: the tokens' UPOS."""
    for k in range(after, min(len(tokens), after + COPULA_WINDOW)):
        if tokens[k].lower() in pack.lead_copulas:
            break
    else:
        return None
    k += 1
    while k < len(tokens) and tokens[k].lower() in pack.lead_determiners:
        k += 1
    head = None
    while k < len(tokens) and pos[k] in _NOUN_PHRASE:
        if pos[k] == "NOUN":
            head = tokens[k].lower()
        k += 1
    return head


def _find(form: Form, tokens: Sequence[str]) -> int | None:
    """The index just after the first occurrence of ``form`` in ``tokens``."""
    n = len(form)
    for i in range(len(tokens) - n + 1):
        if tuple(tokens[i:i + n]) == form:
            return i + n
    return None


def lead_class(
    title_forms: Sequence[Form], sentences: Sequence[Sequence[str]], pack: LanguagePack, pos_of: PosOf,
) -> str | None:
    """The DBpedia class the lead sentence gives the article: the first of ``sentences`` holding
    one of ``title_forms`` is the lead; its head noun's class from ``lead_nouns``, if any."""
    for tokens in sentences:
        ends = [end for end in (_find(form, tokens) for form in title_forms if form) if end is not None]
        if not ends:
            continue
        noun = head_noun(tokens, pos_of(tokens), min(ends), pack)
        if noun is None:
            return None
        return pack.lead_nouns.get(noun) or (pack.lead_nouns.get(noun[:-1]) if noun.endswith("s") else None)
    return None


def lead_typed(
    article: Article, own: TargetInfo | None, sentences: Sequence[Sequence[str]], pack: LanguagePack,
    tokenize: Tokenize, pos_of: PosOf,
) -> TargetInfo | None:
    """The article's own subject typed by its lead sentence, or None (a source typed it already,
    its title reads as no name, or the lead says nothing the table knows). ``sentences``: the
    tokens of the article's first sentences; ``pos_of``: the UPOS of a sentence's tokens."""
    # a title with a comma ("University of Nevada, Reno Arboretum") would be cut there as a place
    # and its region ("Hodgenville, Kentucky"): no one name of the lead's type
    if not pack.lead_nouns or (own is not None and own.entity is not None) or "," in article.title:
        return None
    subject = own or TargetInfo(article.title, None, exists=True)
    forms = [tokenize(form) for form in alias_forms(subject)]
    # a name: every content word capitalized (a one-word title, or one read as a name of several)
    forms = [f for f in forms if f and (is_name_title(f, pack) or (len(f) == 1 and is_capitalized(f[0])))]
    cls = lead_class(forms, sentences[:LEAD_SENTENCES], pack, pos_of)
    if cls is None:
        return None
    tag = tag_for_class(cls, _class_table())
    entity = EntityType(subject.title, cls, tag.conll, tag.fine, source=OWN_TITLE_LEAD)
    return TargetInfo(subject.title, entity, exists=True, is_disambiguation=subject.is_disambiguation,
                      aliases=subject.aliases)
