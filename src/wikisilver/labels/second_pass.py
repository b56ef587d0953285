"""The second pass (after WikiNEuRal): a sentence the link rules drop for UNK is labelled by a
model trained on the first-pass corpus, and kept only when the model is sure and agrees.

For one dropped sentence the first pass has decided some tokens (entities from links and aliases,
O from the rules) and left others UNK. The model tags the whole sentence; the sentence is kept when

* every entity span of the first pass is an entity span of the model, same tokens and type, and
  every entity span of the model is either one of those or lies on UNK tokens only (it relabels
  nothing the first pass decided) — else it stays dropped as ``disagrees``;
* on every UNK token the model's marginal probability of its label is at least the threshold (so
  every unknown span is confidently labelled) — else ``low_confidence``;
* the model puts every UNK token in an entity — else ``unknown_as_o``. An UNK token is a name the
  rules could not explain (a capitalized word, a link to an untyped article); a model trained on
  the first pass misses names more than it invents them, and a sentence kept with such a token as
  O teaches the next model to miss it (measured in docs/labelling.md);
* with the table of what the first pass knows (``known``: surface form -> the majority type of its
  mentions in the corpus the model was trained on), every span the model puts on UNK tokens is a
  known form and the model gives it that type — else ``unknown_form`` (the first pass never saw
  it as a name: the model guesses, and its guesses on forms it never saw are wrong one time in
  three) or ``disagrees_known`` (the first pass knows it as another type). In a language whose
  names take case endings (``inflection_suffixes``: Hungarian) a form is also known by its last
  token's stem: ``Berlinnek`` by ``Berlin`` (the stems of :func:`~wikisilver.labels.language.case_stems`).

The UNK tokens then take the model's spans (rule ``second_pass``, the generic DBpedia class of
their type). The decision is pure (:func:`decide`); :meth:`SecondPass.relabel` applies it to the
labeller's sentence state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wikisilver.corpus.tags import iob_to_spans
from wikisilver.labels.aliases import GENERIC_CLASS
from wikisilver.labels.language import case_stems
from wikisilver.labels.state import UNK, Mention, O, SentenceState
from wikisilver.ner.seam import MarginalTagger

DEFAULT_THRESHOLD = 0.9
RULE = "second_pass"
SOURCE = "second_pass"
# Reasons a sentence stays dropped (stats.json second_pass.dropped).
DISAGREES, LOW_CONFIDENCE, UNKNOWN_AS_O = "disagrees", "low_confidence", "unknown_as_o"
UNKNOWN_FORM, DISAGREES_KNOWN = "unknown_form", "disagrees_known"


@dataclass(frozen=True)
class Decision:
    """What the second pass says of one sentence: kept with ``spans`` (model spans on UNK tokens,
    ``(start, end, type)``, end exclusive), or dropped for ``reason``."""

    spans: tuple[tuple[int, int, str], ...] = ()
    reason: str | None = None

    @property
    def kept(self) -> bool:
        return self.reason is None


def known_type(known: Mapping[tuple[str, ...], str], form: tuple[str, ...], suffixes: Sequence[str] = ()) -> str | None:
    """The type the first pass knows ``form`` as: the form itself, else (with case endings
    ``suffixes``) its last token's first stem that it knows; None if neither."""
    kind = known.get(form)
    if kind is None and form:
        for stem in case_stems(form[-1], suffixes):
            kind = known.get(form[:-1] + (stem,))
            if kind is not None:
                break
    return kind


def decide(
    first_pass: Sequence[str], predicted: Sequence[str], marginals: Sequence[float], threshold: float,
    tokens: Sequence[str] = (), known: Mapping[tuple[str, ...], str] | None = None, suffixes: Sequence[str] = (),
) -> Decision:
    """The decision for one sentence: ``first_pass`` its IOB2 tags after the rules (``B-UNK``/``I-UNK``
    on UNK tokens), ``predicted`` the model's IOB2 tags, ``marginals`` the model's probability of each;
    ``known`` (with the sentence's ``tokens``): surface form -> the type the first pass knows it as,
    ``suffixes`` the language's case endings."""
    unknown = [tag.endswith(UNK) for tag in first_pass]
    known_spans = {span for span in iob_to_spans(first_pass) if span[2] != UNK}
    model_spans = iob_to_spans(predicted)
    found = set(model_spans)
    if not known_spans <= found:
        return Decision(reason=DISAGREES)
    recovered = []
    for span in model_spans:
        if span in known_spans:
            continue
        if not all(unknown[span[0]:span[1]]):
            return Decision(reason=DISAGREES)
        recovered.append(span)
    if any(u and p < threshold for u, p in zip(unknown, marginals)):
        return Decision(reason=LOW_CONFIDENCE)
    if any(u and tag == "O" for u, tag in zip(unknown, predicted)):
        return Decision(reason=UNKNOWN_AS_O)
    if known is not None:
        kinds = [known_type(known, tuple(tokens[start:end]), suffixes) for start, end, _ in recovered]
        if None in kinds:
            return Decision(reason=UNKNOWN_FORM)
        if any(kind != span[2] for kind, span in zip(kinds, recovered)):
            return Decision(reason=DISAGREES_KNOWN)
    return Decision(spans=tuple(recovered))


class SecondPass:
    """A model, the threshold its marginals must reach and what the first pass knows of surface
    forms (None: no such check); :meth:`label` is :func:`decide` with the model's tags of the
    sentence and the language's case endings."""

    def __init__(self, tagger: MarginalTagger, threshold: float = DEFAULT_THRESHOLD,
                 known: Mapping[tuple[str, ...], str] | None = None) -> None:
        self.tagger = tagger
        self.threshold = threshold
        self.known = known

    def label(self, tokens: Sequence[str], first_pass: Sequence[str], suffixes: Sequence[str] = ()) -> Decision:
        predicted, marginals = self.tagger.tag_marginals(tokens)
        return decide(first_pass, predicted, marginals, self.threshold, tokens, self.known, suffixes)

    def relabel(self, state: SentenceState, suffixes: Sequence[str] = ()) -> bool:
        """The second pass over the labeller's sentence with UNK: True (its UNK tokens relabelled by
        the model) when the model is sure and agrees with the rules, else False (counted with the
        reason)."""
        state.counts["second_pass.candidates"] += 1
        decision = self.label(state.tokens, state.iob()[0], suffixes)
        if not decision.kept:
            state.counts[f"second_pass.dropped.{decision.reason}"] += 1
            return False
        for k, mention in enumerate(state.mentions):
            if mention is not None and mention.conll == UNK:
                state.decide(k, Mention.of(O, RULE))
                state.groups[k] = -1
        for start, end, kind in decision.spans:
            placed = Mention(kind, GENERIC_CLASS.get(kind, kind), "", RULE)
            for k in range(start, end):
                state.join(k, placed)
            state.close()
            state.counts["second_pass.entities"] += 1
        state.has_unk = False
        return True
