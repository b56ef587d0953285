"""Steps 3 and 4 of the method, their stages: where in a sentence a rule acts, and the signature a
rule of that stage has.

Each :class:`Stage` has a :class:`typing.Protocol` (:data:`PROTOCOLS`) that writes its signature
down as types; :func:`signature_problem` says why a function does not fit one, so that the
registry refuses it when its module is imported rather than when a sentence first reaches it.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Set
from typing import Any, Protocol

from wikisilver.labels.language import LanguagePack
from wikisilver.labels.state import Leave, Mention, SentenceState, Tag
from wikisilver.records import Link, TargetInfo
from wikisilver.text.base import TextProcessor

if typing.TYPE_CHECKING:  # the alias index is defined beside the alias rules, which import the registry
    from wikisilver.labels.aliases import AliasIndex, Form, Tokenize


class Stage(enum.Enum):
    """Where in a sentence a rule acts, in the order the labeller runs them, and what it is given
    (its protocol in :data:`PROTOCOLS`).

    Within a stage rules run in the order ``labels/order.py`` writes down. In a *chain* the first
    rule that answers (returns something other than None) decides and the rest are not asked.
    """

    EVIDENCE = "evidence"
    """Per article, once: ``(article text, pack, asked) -> {name: "O" or UNK}``: titles the article's
    own text shows are not the entities a type source says; a link to such a title, or its anchor
    among the names, takes that tag instead of its type's, and the title gives no alias. ``asked``:
    the names the labeller looks up (the titles and anchors of the links to a typed entity); a rule
    may answer those only, or name more (names shown O also keep the alias index from them)."""
    LINK = "link"
    """Chain, per link: ``(link, target info or None, pack) -> Tag | LEAVE | None``."""
    ANCHOR_HEAD = "anchor_head"
    """Per entity link, repeated while the anchor keeps 2+ tokens: ``(first token, the link's
    mention, pack) -> bool`` (True: that token is O and leaves the anchor)."""
    ANCHOR_END = "anchor_end"
    """As ``ANCHOR_HEAD`` for the anchor's last token."""
    HYPHEN = "hyphen"
    """Chain, per entity link whose last token runs on past the anchor: ``(the rest of that token
    after the anchor, pack) -> Tag | LEAVE | None`` (LEAVE: the token keeps the link's tag)."""
    INSIDE = "inside"
    """Per token given a mention: ``(token, mention, pack) -> bool`` (True: O, and the mention
    splits there)."""
    ALIAS = "alias"
    """Per entity known in the article: ``(target info, its anchor's tokens, pack, tokenize) ->
    token sequences`` that mention it again; matched longest first by the alias index."""
    INFLECTED = "inflected"
    """Chain, per capitalized token no alias form matched: ``(token, alias index, pack) -> Mention | None``."""
    TOKEN = "token"
    """Chain, per capitalized token nothing labelled yet: ``(sentence state, token index, pack) ->
    Tag | None``; rules registered with ``needs_pos`` see the first word only, with its POS, and only
    in sentences with no UNK left."""
    QUALITY = "quality"
    """Per kept sentence: ``(sentence state, text processor, pack) -> bool`` (True: flagged low
    quality; the reason is the rule's name without ``low_quality_``)."""


class EvidenceRule(Protocol):
    def __call__(self, text: str, pack: LanguagePack, asked: Set[str], /) -> Mapping[str, str]: ...


class LinkRule(Protocol):
    def __call__(self, link: Link, info: TargetInfo | None, pack: LanguagePack, /) -> Tag | Leave | None: ...


class AnchorEdgeRule(Protocol):
    def __call__(self, token: str, mention: Mention, pack: LanguagePack, /) -> bool: ...


class HyphenRule(Protocol):
    def __call__(self, rest: str, pack: LanguagePack, /) -> Tag | Leave | None: ...


class InsideRule(Protocol):
    def __call__(self, token: str, mention: Mention, pack: LanguagePack, /) -> bool: ...


class AliasRule(Protocol):
    def __call__(self, info: TargetInfo, anchor: Form, pack: LanguagePack, tokenize: Tokenize, /) -> Iterator[Form]: ...


class InflectedRule(Protocol):
    def __call__(self, token: str, index: AliasIndex, pack: LanguagePack, /) -> Mention | None: ...


class TokenRule(Protocol):
    def __call__(self, state: SentenceState, k: int, pack: LanguagePack, /) -> Tag | None: ...


class QualityRule(Protocol):
    def __call__(self, state: SentenceState, processor: TextProcessor, pack: LanguagePack, /) -> bool: ...


PROTOCOLS: dict[Stage, type] = {
    Stage.EVIDENCE: EvidenceRule,
    Stage.LINK: LinkRule,
    Stage.ANCHOR_HEAD: AnchorEdgeRule,
    Stage.ANCHOR_END: AnchorEdgeRule,
    Stage.HYPHEN: HyphenRule,
    Stage.INSIDE: InsideRule,
    Stage.ALIAS: AliasRule,
    Stage.INFLECTED: InflectedRule,
    Stage.TOKEN: TokenRule,
    Stage.QUALITY: QualityRule,
}


_LATE_NAMES = {Stage.ALIAS: ("Form", "Tokenize"), Stage.INFLECTED: ("AliasIndex",)}


def _protocol_hints(stage: Stage) -> dict[str, Any]:
    """The protocol's parameter and return types, resolved; the alias index's names are looked up
    in its module when a stage needs them (that module is being imported when its rules register,
    and defines what each of its stages needs before its first rule of that stage)."""
    late: dict[str, Any] = {}
    if stage in _LATE_NAMES:
        from wikisilver.labels import aliases

        late = {name: getattr(aliases, name) for name in _LATE_NAMES[stage]}
    return typing.get_type_hints(PROTOCOLS[stage].__call__, localns=late)


def _members(t: Any) -> tuple[Any, ...]:
    """The members of a union (``X | None``, ``Union[X, Y]``), or ``(t,)``."""
    if typing.get_origin(t) in (typing.Union, types.UnionType):
        return typing.get_args(t)
    return (t,)


def _fits(sub: Any, sup: Any) -> bool:
    """Whether a value of type ``sub`` may stand where ``sup`` is expected: every member of a union
    ``sub`` fits some member of ``sup``; a generic fits by its origin class and its arguments."""
    if sup is Any or sub == sup:
        return True
    subs, sups = _members(sub), _members(sup)
    if len(subs) > 1 or len(sups) > 1:
        return all(any(_fits(s, t) for t in sups) for s in subs)
    sub_origin, sup_origin = typing.get_origin(sub) or sub, typing.get_origin(sup) or sup
    sub_args, sup_args = typing.get_args(sub), typing.get_args(sup)
    if sub_args != sup_args and (len(sub_args) != len(sup_args) or not all(map(_fits, sub_args, sup_args))):
        return False
    try:
        return isinstance(sub_origin, type) and isinstance(sup_origin, type) and issubclass(sub_origin, sup_origin)
    except TypeError:  # a protocol that is not runtime-checkable: only itself fits it
        return False


def signature_problem(decide: Callable[..., Any], stage: Stage) -> str | None:
    """Why ``decide`` cannot be a rule of ``stage`` (None: it can): it must take the stage's
    arguments, in order, as positional parameters, each annotated with a type that accepts what the
    labeller passes (the protocol's type or a wider one), and return a type the protocol accepts."""
    expected = _protocol_hints(stage)
    wanted = [(name, t) for name, t in expected.items() if name != "return"]
    params = list(inspect.signature(decide).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required_other = [p.name for p in params if p not in positional and p.default is p.empty
                      and p.kind is not p.VAR_KEYWORD]
    shape = ", ".join(f"{name}: {_name(t)}" for name, t in wanted) + f" -> {_name(expected['return'])}"
    if len(positional) != len(wanted) or required_other:
        return f"takes {len(positional)} positional argument(s); stage {stage.value} passes ({shape})"
    hints = typing.get_type_hints(decide)
    for (name, t), param in zip(wanted, positional):
        if param.name not in hints:
            return f"parameter {param.name!r} has no type; stage {stage.value} passes ({shape})"
        if not _fits(t, hints[param.name]):
            return (f"parameter {param.name!r} is {_name(hints[param.name])}, but stage {stage.value} passes "
                    f"{name}: {_name(t)} ({shape})")
    if "return" not in hints:
        return f"has no return type; stage {stage.value} expects ({shape})"
    if not _fits(hints["return"], expected["return"]):
        return f"returns {_name(hints['return'])}; stage {stage.value} expects ({shape})"
    return None


def _name(t: Any) -> str:
    """A type as the signature writes it, without module paths: ``Tag | Leave | None``."""
    if len(_members(t)) > 1:
        return " | ".join(map(_name, _members(t)))
    if isinstance(t, list):  # the parameters of a Callable
        return "[" + ", ".join(map(_name, t)) + "]"
    if t is type(None) or t is Ellipsis:
        return "None" if t is type(None) else "..."
    origin = typing.get_origin(t)
    if origin is None:
        return getattr(t, "__name__", str(t))
    return f"{getattr(origin, '__name__', origin)}[{', '.join(map(_name, typing.get_args(t)))}]"
