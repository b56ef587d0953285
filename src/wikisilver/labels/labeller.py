"""Steps 3 and 4 of the method: label the tokens of an article, keep the sentences without UNK.

Input: the clean text of one article with its link spans (:class:`~wikisilver.records.Article`)
and what is known of each link target after redirects and typing (:class:`TargetInfo`, joined by
key in the Beam job, so only this article's targets are in memory). Output: the kept
:class:`~wikisilver.records.LabelledSentence` objects and the counts of the article, among them how
often each rule fired.

Each sentence goes through the stages of :class:`~wikisilver.labels.registry.Stage` in order: its
links (and the cleansing of their anchors), unlinked mentions through the article's alias index,
the capitalized words left; a sentence with UNK is dropped before it is tagged; the first word is
decided by its POS; the kept sentence is flagged low quality or not. The rules themselves are in
:mod:`~wikisilver.labels.rules`, :mod:`~wikisilver.labels.aliases` and
:mod:`~wikisilver.labels.quality`; this module only runs the ones that are on.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from wikisilver.labels.aliases import GENERIC_CLASS, AliasIndex
from wikisilver.labels.fragments import fragment_reason, is_unlinked_phrase, size_reason
from wikisilver.labels.language import LanguagePack
from wikisilver.labels.lead import LEAD_SENTENCES, lead_typed
from wikisilver.labels.limits import MAX_SENTENCE_CHARS
from wikisilver.labels.quality import quality_reasons
from wikisilver.labels.order import ALIAS_MATCH, ALIAS_PERSON_NAME_PART, NATIONALITY_WORD, OWN_TITLE_LEAD, ROYAL_OF_PLACE
from wikisilver.labels.rules import nationality_words
from wikisilver.labels.registry import LabelConfig, Rule, Stage, first_answer
from wikisilver.labels.second_pass import SOURCE as SECOND_PASS, SecondPass
from wikisilver.labels.state import LEAVE, UNK, Mention, O, SentenceState
from wikisilver.labels.text_evidence import evidence_overrides
from wikisilver.records import Article, LabelledSentence, Link, TargetInfo
from wikisilver.text.base import TextProcessor, is_capitalized
from wikisilver.wikitext.markup import check_time
from wikisilver.wikitext.templates import GAP


@dataclass
class ArticleResult:
    """The kept sentences of one article and its counts (merged into stats.json)."""

    sentences: list[LabelledSentence] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)


def _person_alias(mention: Mention | None) -> bool:
    """A person's name found through the alias index (not a link: a link's span is its own)."""
    return mention is not None and mention.conll == "PER" and mention.rule in (ALIAS_MATCH, ALIAS_PERSON_NAME_PART)


class Labeller:
    """Labels the articles of one language with the rules that are on in ``config``.

    ``processor`` is a :class:`wikisilver.text.TextProcessor` (sentences, tokens, lemma/POS);
    ``second_pass``: a model that labels what the rules leave UNK (:mod:`~wikisilver.labels.second_pass`).
    """

    def __init__(
        self, lang: str, processor: TextProcessor, config: LabelConfig | None = None,
        second_pass: SecondPass | None = None,
    ) -> None:
        self.lang = lang
        self.second_pass = second_pass
        self.pack = LanguagePack.load(lang)
        self.processor = processor
        self.config = config or LabelConfig()
        # The rules that are on, one attribute per stage, in their order.
        on = self.config.rules
        self.evidence_rules = on(Stage.EVIDENCE)
        self.link_rules = on(Stage.LINK)
        self.head_rules = on(Stage.ANCHOR_HEAD)
        self.end_rules = on(Stage.ANCHOR_END)
        self.hyphen_rules = on(Stage.HYPHEN)
        self.inside_rules = on(Stage.INSIDE)
        self.alias_rules = on(Stage.ALIAS)
        self.inflected_rules = on(Stage.INFLECTED)
        token_rules = on(Stage.TOKEN)
        self.quality_rules = on(Stage.QUALITY)
        # The first word waits for its POS at the first rule that reads it; other words skip those.
        pos_at = next((i for i, r in enumerate(token_rules) if r.needs_pos), len(token_rules))
        self._first_word_before_pos, self._first_word_by_pos = token_rules[:pos_at], token_rules[pos_at:]
        self._other_word_rules = tuple(r for r in token_rules if not r.needs_pos)
        # the alias rules read the nationality words only where nationality_word is on
        nationality_on = self.config.on(NATIONALITY_WORD, reader=ALIAS_MATCH)
        self._nationality = nationality_words(lang) if nationality_on else frozenset()
        # Two persons' names side by side ("Mary" of Mary Todd, "Lincoln" of her husband) are one name.
        self._joins_names = self.config.on(ALIAS_PERSON_NAME_PART)
        # Without case endings only a token that starts some alias form can start a match.
        self._inflects = bool(self.inflected_rules) and bool(self.pack.inflection_suffixes)

    def label_article(
        self,
        article: Article,
        targets: Mapping[str, TargetInfo],
        own: TargetInfo | None = None,
        deadline: float | None = None,
    ) -> ArticleResult:
        """Label every sentence of an article; return the kept ones and the counts.

        ``deadline`` (a ``time.perf_counter()`` value, the page's budget): raises
        :class:`~wikisilver.wikitext.WikitextBudgetError` once it has passed, checked between
        sentences (each bounded by :mod:`~wikisilver.labels.limits`)."""
        result = ArticleResult()
        counts = result.counts
        text = article.text
        targets, not_entities = evidence_overrides(article, targets, self.evidence_rules, self.pack, counts)
        check_time(deadline, "labelling")
        sentences_at = list(self.processor.split_sentences(text))
        lead_annotated: dict[tuple[str, ...], list] = {}  # the lead's annotations, for its sentence if it survives
        if self.config.on(OWN_TITLE_LEAD):
            lead = [self._tokens_of(text, s, e) for s, e in sentences_at[:LEAD_SENTENCES] if e - s <= MAX_SENTENCE_CHARS]
            typed = lead_typed(article, own, lead, self.pack, self._tokens_of, self._remembering_pos(lead_annotated))
            if typed is not None:
                own = typed
                counts[OWN_TITLE_LEAD] += 1
        aliases = AliasIndex.build(article, targets, own, self.pack, self._tokens_of, self.alias_rules, self._nationality,
                                   not_entities, self.config, deadline)
        links = sorted(article.links, key=lambda link: link.start)
        link_pos = 0
        sentences: list[tuple[int, tuple[int, int], list, list[str], list[Link]]] = []
        for index, (s_start, s_end) in enumerate(sentences_at):
            check_time(deadline, "labelling")
            if s_end - s_start > MAX_SENTENCE_CHARS:  # not prose: never tokenized
                counts["sentences_total"] += 1
                counts["sentences_dropped_fragment.long_sentence"] += 1
                continue
            spans, tokens = self.processor.spans_and_tokens(text, s_start, s_end, relative=True)
            # A dropped inline template or formula left a gap mark: not a token; the sentence goes.
            gap = False
            if GAP in text[s_start:s_end]:
                kept = [k for k, token in enumerate(tokens) if GAP not in token]
                gap = len(kept) != len(spans)
                spans, tokens = [spans[k] for k in kept], [tokens[k] for k in kept]
            if not spans:
                continue
            counts["sentences_total"] += 1
            # A sentence with a hole where a formula or template stood is not text to learn from.
            fragment = "template_gap" if gap else size_reason(tokens, s_end - s_start) or fragment_reason(tokens)
            if fragment is not None:
                counts[f"sentences_dropped_fragment.{fragment}"] += 1
                continue
            while link_pos < len(links) and links[link_pos].end <= s_start:
                link_pos += 1
            sentence_links = []
            j = link_pos
            while j < len(links) and links[j].start < s_end:
                sentence_links.append(links[j])
                j += 1
            sentences.append((index, (s_start, s_end), spans, tokens, sentence_links))
        # Links first: a sentence an UNK link drops goes no further (unless a second pass will
        # see it), and most of those the labeller drops, it drops there.
        after_links: list[tuple[int, SentenceState, tuple[int, int], bool]] = []
        for index, bounds, spans, tokens, sentence_links in sentences:
            check_time(deadline, "labelling")
            state = SentenceState(tokens, spans, counts, bounds[0])
            self._label_links(state, sentence_links, targets, aliases)
            if state.has_unk and self.second_pass is None:
                counts["sentences_dropped_unk"] += 1
                continue
            after_links.append((index, state, bounds, bool(sentence_links)))
        # A language that capitalizes every noun asks the tagger which capitalized words are
        # nouns before labelling them: the sentences left are annotated, all together.
        if self.pack.nouns_capitalized:
            states = [state for _, state, *_ in after_links]
            for state, tagged in zip(states, self.processor.annotate_many([s.tokens for s in states])):
                state.annotations = tagged
                state.common_nouns = self.processor.common_nouns(state.tokens, tagged)
        pending: list[tuple[int, SentenceState, bool, tuple[int, int], bool]] = []  # labelled up to POS
        for index, state, bounds, has_links in after_links:
            check_time(deadline, "labelling")
            waits = self._label_words(state, aliases)
            if waits is None:
                counts["sentences_dropped_unk"] += 1
                continue
            pending.append((index, state, waits, bounds, has_links))
        # Lemma and POS of the surviving sentences (and those the second pass sees), together:
        # the tagger scores a whole article's sentences in a few array operations per position.
        check_time(deadline, "labelling")
        bare = [state for _, state, *_ in pending if state.annotations is None]
        if lead_annotated:  # a lead sentence the lead rule annotated is not annotated twice
            for state in bare:
                state.annotations = lead_annotated.get(tuple(state.tokens))
            bare = [state for state in bare if state.annotations is None]
        for state, annotations in zip(bare, self.processor.annotate_many([state.tokens for state in bare])):
            state.annotations = annotations
        for index, state, waits, bounds, linked in pending:
            labelled = self._label_sentence(article, index, state, waits, bounds)
            if labelled is None:
                counts["sentences_dropped_unk"] += 1
                continue
            if not (linked or labelled.spans) and is_unlinked_phrase(state.tokens, state.annotations, self.processor):
                counts["sentences_dropped_fragment.unlinked_phrase"] += 1
                continue
            if labelled.low_quality:
                counts["sentences_low_quality"] += 1
                if not self.config.keep_low_quality:
                    counts["sentences_dropped_low_quality"] += 1
                    continue
            counts["sentences_kept"] += 1
            counts["tokens_kept"] += len(labelled.tokens)
            if labelled.source == SECOND_PASS:
                counts["second_pass.recovered"] += 1
                counts["second_pass.tokens"] += len(labelled.tokens)
            for span in labelled.spans:
                counts[f"entities_by_tag.{span.conll}"] += 1
                counts["entity_tokens"] += span.end - span.start
            result.sentences.append(labelled)
        return result

    def _tokens_of(self, text: str, start: int = 0, end: int | None = None) -> tuple[str, ...]:
        return tuple(self.processor.spans_and_tokens(text, start, end)[1])

    def _remembering_pos(self, annotated: dict[tuple[str, ...], list]) -> Callable[[Sequence[str]], list[str]]:
        """The UPOS of a sentence's tokens, its annotations kept in ``annotated`` (``annotate`` of
        one sentence is ``annotate_many``'s of it)."""
        def pos_of(tokens: Sequence[str]) -> list[str]:
            annotations = annotated[tuple(tokens)] = self.processor.annotate(tokens)
            return [a[1] for a in annotations]
        return pos_of

    def _label_words(self, state: SentenceState, aliases: AliasIndex) -> bool | None:
        """A sentence's aliases and capitalized words after its links (:meth:`_label_links`), up to
        where POS is needed: None when it has UNK (and no second pass will see it), else whether
        its first word waits for its POS. A sentence an UNK link drops never gets here: these rules
        neither decide nor count (``rules_fired``) words of a sentence no output keeps."""
        self._match_aliases(state, aliases)
        first_word_waits = self._label_capitals(state)
        if state.has_unk and self.second_pass is None:
            return None
        return first_word_waits

    def _label_sentence(
        self, article: Article, index: int, state: SentenceState, first_word_waits: bool, bounds: tuple[int, int],
    ) -> LabelledSentence | None:
        """The labelled sentence, its tokens annotated, or None when it has UNK; ``bounds``: the
        sentence's [start, end) in the article text (its tokens' offsets are kept relative to the
        sentence)."""
        if first_word_waits:
            self._decide(state, state.first_word, self._first_word_by_pos)
        source = "links"
        if state.has_unk:
            if self.second_pass is None or not self.second_pass.relabel(state, self.pack.inflection_suffixes):
                return None
            source = SECOND_PASS
        conll_tags, dbpedia_tags, entity_spans = state.iob()
        reasons = quality_reasons(state, self.processor, self.pack, self.quality_rules)
        columns = tuple(zip(*state.annotations)) or ((), ())  # lemma, UPOS, … of each token
        start = bounds[0]
        return LabelledSentence(
            page_id=article.page_id,
            title=article.title,
            index=index,
            tokens=tuple(state.tokens),
            lemmas=columns[0],
            pos=columns[1],
            dbpedia_tags=tuple(dbpedia_tags),
            conll_tags=tuple(conll_tags),
            spans=tuple(entity_spans),
            low_quality=bool(reasons),
            quality_reasons=reasons,
            text=article.text[start : bounds[1]].replace(GAP, " "),  # a gap mark is a blank: offsets hold
            offsets=tuple(state.spans),  # relative to the sentence already
            source=source,
        )

    # -- the stages ---------------------------------------------------------------------------

    def _label_links(
        self, state: SentenceState, links: Sequence[Link], targets: Mapping[str, TargetInfo], aliases: AliasIndex
    ) -> None:
        """Links: the first ``LINK`` rule that answers decides; an entity's anchor is cleansed."""
        if not links or not state.spans:
            return
        starts, ends = zip(*state.spans)
        base = state.start
        for link in links:
            # the tokens overlapping the anchor (spans are in order and do not overlap)
            covered = list(range(bisect_right(ends, link.start - base), bisect_left(starts, link.end - base)))
            if not covered:
                continue
            link_rule, decision = first_answer(self.link_rules, link, targets.get(link.target), self.pack)
            if link_rule is None:
                continue
            state.fire(link_rule.name)
            if decision is LEAVE:
                continue
            mention = Mention.of(decision, link_rule.name)
            if mention.conll not in ("O", UNK):
                covered = self._cleanse(state, covered, mention, link)
                if not covered:
                    continue
            self._place(state, covered, mention, aliases)

    def _cleanse(self, state: SentenceState, covered: list[int], mention: Mention, link: Link) -> list[int]:
        """Reference cleansing of an entity link's anchor: the tokens that keep the link's tag."""
        tokens = state.tokens
        for edge_rule in self.head_rules:
            while len(covered) > 1 and edge_rule.decide(tokens[covered[0]], mention, self.pack):
                state.fire(edge_rule.name)
                state.decide(covered.pop(0), Mention.of(O, edge_rule.name))
        for edge_rule in self.end_rules:
            while len(covered) > 1 and edge_rule.decide(tokens[covered[-1]], mention, self.pack):
                state.fire(edge_rule.name)
                state.decide(covered.pop(), Mention.of(O, edge_rule.name))
        last = covered[-1]
        overhang = state.spans[last][1] + state.start - link.end
        if overhang > 0:
            rest = tokens[last][len(tokens[last]) - overhang:]
            hyphen_rule, decision = first_answer(self.hyphen_rules, rest, self.pack)
            if hyphen_rule is not None:
                state.fire(hyphen_rule.name)
                if decision is not LEAVE:
                    state.decide(covered.pop(), Mention.of(decision, hyphen_rule.name))
        return covered

    def _place(self, state: SentenceState, indices: Sequence[int], mention: Mention, aliases: AliasIndex) -> None:
        """Give the tokens at ``indices`` that have no mention yet one mention (``INSIDE`` rules may
        cut tokens out of it, splitting it).

        The parts after a cut are other names (``Hodgenville, Kentucky``: Kentucky is the state, not
        the town): each takes the class and target of the article's entity of that name, else only
        a generic class, so that one entity has one DBpedia class in an article. After a cut by
        ``royal_of_place`` the part is a place whatever the name's tag (``of the Netherlands``)."""
        part: list[int] = []
        parts: list[tuple[list[int], str]] = [(part, "")]
        for k in indices:
            if state.mentions[k] is not None:
                continue
            for inside_rule in self.inside_rules:
                if inside_rule.decide(state.tokens[k], mention, self.pack):
                    state.fire(inside_rule.name)
                    state.decide(k, Mention.of(O, inside_rule.name))
                    part = []
                    parts.append((part, inside_rule.name))
                    break
            else:
                part.append(k)
        for number, (part, cut_by) in enumerate(parts):
            whole = mention
            if cut_by == ROYAL_OF_PLACE:  # "of the Netherlands": the words before the place are O
                while part and not is_capitalized(state.tokens[part[0]]):
                    state.decide(part.pop(0), Mention.of(O, cut_by))
                whole = Mention("LOC", GENERIC_CLASS["LOC"], "", cut_by)
            if not part:
                continue
            placed = whole if number == 0 else aliases.part_mention(tuple(state.tokens[k] for k in part), whole)
            for k in part:
                state.join(k, placed)
            state.close()

    def _match_aliases(self, state: SentenceState, aliases: AliasIndex) -> None:
        """Unlinked mentions through the alias index, longest match first, then inflected forms."""
        tokens, mentions, starts = state.tokens, state.mentions, aliases.first_tokens
        i = 0
        while i < len(tokens):
            token = tokens[i]
            if (not self._inflects and token not in starts) or mentions[i] is not None or not is_capitalized(token):
                i += 1
                continue
            found = aliases.match(tokens, mentions, i)
            if found is not None:
                form, mention = found
                self._place(state, range(i, i + len(form)), mention, aliases)
                state.fire(mention.rule)
                if self._joins_names and i > 0 and _person_alias(state.mentions[i - 1]) and _person_alias(mention):
                    state.extend(i - 1, range(i, i + len(form)))  # "Mary Lincoln": one person, two name parts
                i += len(form)
                continue
            inflected_rule, mention = first_answer(self.inflected_rules, token, aliases, self.pack)
            if inflected_rule is not None:
                state.fire(inflected_rule.name)
                self._place(state, (i,), mention, aliases)
            i += 1

    def _label_capitals(self, state: SentenceState) -> bool:
        """The capitalized words left, by the ``TOKEN`` rules; True when the first word waits for
        its POS (read only if the sentence survives the UNK filter)."""
        waits = False
        mentions = state.mentions
        # A real capital only: a word of a caseless script is never UNK for its "capital".
        for k in [k for k, token in enumerate(state.tokens) if token[:1].isupper()]:
            if mentions[k] is not None:
                continue
            if k != state.first_word:
                self._decide(state, k, self._other_word_rules)
            elif not self._decide(state, k, self._first_word_before_pos):
                waits = bool(self._first_word_by_pos)
        return waits

    def _decide(self, state: SentenceState, k: int, token_rules: Sequence[Rule]) -> bool:
        """Token k by the first of ``token_rules`` that answers; False when none does."""
        token_rule, tag = first_answer(token_rules, state, k, self.pack)
        if token_rule is None:
            return False
        state.fire(token_rule.name)
        state.decide(k, Mention.of(tag, token_rule.name))
        return True
