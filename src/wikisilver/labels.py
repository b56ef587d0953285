"""Steps 3 and 4 of the method: label the tokens of an article, keep the sentences without UNK.

Input: the clean text of one article with its link spans (:class:`~wikisilver.records.Article`)
and what is known of each link target after redirects and typing (:class:`TargetInfo`, joined by
key in the Beam job, so only this article's targets are in memory). Output: the kept
:class:`~wikisilver.records.LabelledSentence` objects and a count of every rule that fired.

The rules (each named in :data:`RULES`, switchable, counted in ``stats.json`` ``rules_fired``):

* links: a link's anchor takes its target's tag; unknown and disambiguation targets are UNK;
  links to calendar pages and to non-entity classes are O; links whose anchor has no capital
  letter are ignored (common nouns);
* derived words: an anchor not contained in its entity's name ("Turkish" -> Turkey) is MISC
  (English) or O (Hungarian, Szeged guidelines);
* unlinked mentions: capitalized token sequences matching the article's alias set (linked
  entities' titles, their redirects, first and last names of persons, the page's own title and
  aliases) take that entity's tag, longest match first;
* reference cleansing: personal titles and trailing punctuation inside a mention are O;
* incidental capitalization (months, "I", listed acronyms) is O;
* the first word of a sentence, unlinked and not an alias, is UNK if tagged a proper noun, else O;
* any other unlinked capitalized word is an unknown name: UNK;
* Hungarian: inflected names ("Berlinben", "NASA-nak") keep the tag; hyphenated compounds with a
  common-noun head ("WorldCom-botrány") are O unless the compound itself is the linked anchor;
* sentences with UNK are dropped; the rest are flagged low quality when they have no final
  punctuation or no finite verb.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from wikisilver.entities.calendar import calendar_words, is_calendar_title
from wikisilver.records import Article, EntitySpan, EntityType, LabelledSentence, TargetInfo
from wikisilver.resources import has_mapping, load_toml
from wikisilver.text.base import is_capitalized

RULES = (
    "link_entity",
    "link_unknown_unk",
    "link_disambiguation_unk",
    "link_calendar_o",
    "link_non_entity_o",
    "link_lowercase_ignored",
    "derived_word",
    "alias_match",
    "alias_person_name_part",
    "personal_title_o",
    "trailing_punctuation_o",
    "lowercase_tail_o",
    "location_comma_split",
    "incidental_capital_o",
    "sentence_initial_o",
    "sentence_initial_unk",
    "unlinked_capitalized_unk",
    "hu_inflected_name",
    "hu_hyphen_compound_o",
    "sentence_dropped_unk",
    "low_quality_no_final_punctuation",
    "low_quality_no_finite_verb",
)

UNK = "UNK"
_FINAL_PUNCTUATION = frozenset({".", "!", "?", "…", "?!", "!?", "...", ".\"", ".'"})
# Sentence-final marks of other scripts: danda (Bengali, Hindi, Marathi), ideographic full stop
# and full-width !/? (Chinese, Japanese), Armenian full stop, Arabic question mark, Urdu full
# stop, Ethiopic full stop and question mark.
_FINAL_MARKS = (".", "!", "?", "।", "॥", "。", "！", "？", "։", "؟", "۔", "።", "፧")
_CLOSING_QUOTES = frozenset({'"', "'", "”", "’", "»", ")", "]"})
_OPENING = frozenset({'"', "'", "“", "‘", "„", "«", "(", "[", "-", "–", "—", "*", "•"})
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")
_NAME_PARTICLES = frozenset({"von", "van", "de", "der", "den", "da", "di", "du", "la", "le", "del", "della", "bin", "ibn", "al", "y"})


def is_lowercase_anchor(anchor: str) -> bool:
    """An anchor written in lower case: common-noun links ("[[city]]") and anchors with no letter
    at all ("[[1848]]"). An anchor in a script without case is not lower case."""
    letters = [ch for ch in anchor if ch.isalpha()]
    if not letters:
        return True
    return not any(ch.isupper() for ch in letters) and any(ch.islower() for ch in letters)


def is_punctuation(token: str) -> bool:
    return all(unicodedata.category(ch).startswith("P") or unicodedata.category(ch).startswith("S") for ch in token)


@dataclass(frozen=True)
class LanguagePack:
    """The language resources the rules read, from mappings/<lang>/labels.toml."""

    lang: str
    derived_tag: str
    capitalization_is_proper_noun: bool
    personal_titles: frozenset[str]
    incidental_capitals: frozenset[str]
    inflection_suffixes: tuple[str, ...]
    class_overrides: Mapping[str, str]
    calendar_words: frozenset[str]
    require_finite_verb: bool = True
    derived_suffixes: tuple[str, ...] = ()

    @classmethod
    def load(cls, lang: str) -> "LanguagePack":
        folder = lang if has_mapping(lang, "labels.toml") else "default"
        data = load_toml(folder, "labels.toml")
        return cls(
            lang=lang,
            derived_tag=data.get("derived_tag", "MISC"),
            capitalization_is_proper_noun=bool(data.get("capitalization_is_proper_noun", False)),
            personal_titles=frozenset(data.get("personal_titles", ())),
            incidental_capitals=frozenset(data.get("incidental_capitals", ())),
            # Longest first, so "ban" is tried before "n".
            inflection_suffixes=tuple(sorted(set(data.get("inflection_suffixes", ())), key=len, reverse=True)),
            class_overrides=dict(data.get("class_overrides", {})),
            calendar_words=calendar_words(lang),
            require_finite_verb=bool(data.get("require_finite_verb", True)),
            derived_suffixes=tuple(data.get("derived_suffixes", ())),
        )


@dataclass(frozen=True)
class LabelConfig:
    """Which rules are on (all by default) and the quality filter settings."""

    disabled_rules: frozenset[str] = frozenset()
    keep_low_quality: bool = True

    def on(self, rule: str) -> bool:
        return rule not in self.disabled_rules


@dataclass
class ArticleResult:
    """The kept sentences of one article and its counts (merged into stats.json)."""

    sentences: list[LabelledSentence] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)


@dataclass(frozen=True)
class _Mention:
    """What a token range refers to: an entity (conll tag + class + target) or O/UNK."""

    conll: str
    dbpedia_class: str
    target: str
    rule: str


# The mentions that carry no target are values, made once: a token made O by a rule, and an
# unlinked capitalized word (UNK).
_RULE_O = {
    rule: _Mention("O", "O", "", rule)
    for rule in ("personal_title_o", "incidental_capital_o", "location_comma_split", "trailing_punctuation_o",
                 "lowercase_tail_o", "hu_hyphen_compound_o")
}
_UNLINKED_CAPITAL_UNK = _Mention(UNK, UNK, "", "unlinked_capitalized_unk")


class Labeller:
    """Labels the articles of one language with the paper's rules.

    ``processor`` is a :class:`wikisilver.text.TextProcessor` (sentences, tokens, lemma/POS).
    """

    def __init__(self, lang: str, processor, config: LabelConfig | None = None) -> None:
        self.lang = lang
        self.pack = LanguagePack.load(lang)
        self.processor = processor
        self.config = config or LabelConfig()

    # -- entity helpers -------------------------------------------------------------------

    def _entity_tag(self, entity: EntityType) -> str:
        if entity.dbpedia_class and entity.dbpedia_class in self.pack.class_overrides:
            return self.pack.class_overrides[entity.dbpedia_class]
        return entity.conll

    def _mention_for(self, info: TargetInfo) -> _Mention:
        entity = info.entity
        assert entity is not None
        conll = self._entity_tag(entity)
        return _Mention(conll, entity.dbpedia_class or conll, info.title, "link_entity")

    def _tokens_of(self, text: str) -> tuple[str, ...]:
        return tuple(text[s:e] for s, e in self.processor.tokenize(text))

    def _alias_forms(self, info: TargetInfo) -> list[str]:
        """Surface forms under which an entity may be mentioned again in the article."""
        forms = [info.title, *info.aliases]
        bare = _PARENTHETICAL.sub("", info.title)
        if bare != info.title:
            forms.append(bare)
        if ", " in bare:  # "Paris, Texas" is mentioned as "Paris"
            forms.append(bare.split(", ", 1)[0])
        return [f for f in forms if f and is_capitalized(f)]

    def _build_aliases(
        self, article: Article, targets: Mapping[str, TargetInfo], own: TargetInfo | None
    ) -> dict[str, list[tuple[tuple[str, ...], _Mention]]]:
        """Alias index: first token -> [(token sequence, mention)], longest first."""
        entries: dict[tuple[str, ...], _Mention] = {}

        def add(form_tokens: tuple[str, ...], mention: _Mention) -> None:
            if form_tokens and form_tokens not in entries and is_capitalized(form_tokens[0]):
                entries[form_tokens] = mention

        ordered: list[tuple[TargetInfo, tuple[str, ...]]] = []
        if own is not None and own.entity is not None and self._entity_tag(own.entity) != "O":
            ordered.append((own, ()))
        for link in article.links:
            info = targets.get(link.target)
            if info is None or info.entity is None or info.is_disambiguation:
                continue
            if self._entity_tag(info.entity) == "O":
                continue
            ordered.append((info, self._tokens_of(link.anchor)))
        def add_name_parts(info: TargetInfo) -> None:
            mention = self._mention_for(info)
            if mention.conll != "PER":
                return
            parts = self._tokens_of(_PARENTHETICAL.sub("", info.title))
            names = [p for p in parts if p.isalpha() and is_capitalized(p) and p.lower() not in _NAME_PARTICLES]
            part_mention = _Mention(mention.conll, mention.dbpedia_class, mention.target, "alias_person_name_part")
            if len(names) >= 2:
                for name in (names[0], names[-1]):
                    if name not in self.pack.personal_titles:
                        add((name,), part_mention)

        for position, (info, anchor_tokens) in enumerate(ordered):
            mention = self._mention_for(info)
            alias_mention = _Mention(mention.conll, mention.dbpedia_class, mention.target, "alias_match")
            if anchor_tokens and all(is_capitalized(t) or not t.isalpha() for t in anchor_tokens):
                add(anchor_tokens, alias_mention)
            for form in self._alias_forms(info):
                add(self._tokens_of(form), alias_mention)
            if position == 0 and own is not None and info is own:
                # The article's own subject comes first: "Lincoln" in "Abraham Lincoln" is Abraham
                # Lincoln, not a linked town of that name.
                add_name_parts(info)
        # First and last names of the other persons, once every full form is in (full forms win).
        for info, _ in ordered:
            add_name_parts(info)
        index: dict[str, list[tuple[tuple[str, ...], _Mention]]] = {}
        for form_tokens, mention in entries.items():
            index.setdefault(form_tokens[0], []).append((form_tokens, mention))
        for candidates in index.values():
            candidates.sort(key=lambda item: len(item[0]), reverse=True)
        return index

    # -- the rules ------------------------------------------------------------------------

    def _link_decision(self, link, info: TargetInfo | None, counts: Counter) -> _Mention | None:
        """Tag of a link's anchor; None means the link is ignored (tokens fall to the other rules)."""
        on = self.config.on
        if on("link_calendar_o") and (
            is_calendar_title(link.target, self.lang)
            or (info is not None and info.entity is not None and info.entity.source == "calendar")
        ):
            counts["link_calendar_o"] += 1
            return _Mention("O", "O", link.target, "link_calendar_o")
        if on("link_lowercase_ignored") and is_lowercase_anchor(link.anchor):
            counts["link_lowercase_ignored"] += 1
            return None
        if info is not None and info.is_disambiguation:
            counts["link_disambiguation_unk"] += 1
            return _Mention(UNK, UNK, link.target, "link_disambiguation_unk")
        if info is None or info.entity is None:
            counts["link_unknown_unk"] += 1
            return _Mention(UNK, UNK, link.target, "link_unknown_unk")
        mention = self._mention_for(info)
        if mention.conll == "O":
            counts["link_non_entity_o"] += 1
            return _Mention("O", "O", info.title, "link_non_entity_o")
        if on("derived_word") and self._is_derived(link.anchor, info):
            counts["derived_word"] += 1
            tag = self.pack.derived_tag
            return _Mention(tag, tag if tag == "O" else "MISC", info.title, "derived_word")
        counts["link_entity"] += 1
        return mention

    def _is_derived(self, anchor: str, info: TargetInfo) -> bool:
        """'Turkish' -> Turkey: a single word not contained in any name of the entity.

        An inflected name is not derived: a name followed by a case ending of the language
        ("Berlinben", "NASA-nak") or a possessive ("Lincoln's") is the name itself.
        """
        words = anchor.split()
        if len(words) != 1:
            return False
        word = words[0].lower()
        names = [w.lower() for form in (info.title, *info.aliases) for w in _PARENTHETICAL.sub("", form).split()]
        if any(word in form.lower() for form in (info.title, *info.aliases)):
            return False
        endings = self.pack.inflection_suffixes + ("'s", "’s", "'")
        for name in names:
            if word.startswith(name):
                rest = word[len(name):].lstrip("-")
                if rest in endings:
                    return False
        # Derived words carry a derivational ending ("Turkish", "American", hu "berlini"); another
        # name of the entity ("Poroszország" for Porosz Királyság, a nickname) is not derived.
        return word.endswith(self.pack.derived_suffixes)

    def label_article(
        self,
        article: Article,
        targets: Mapping[str, TargetInfo],
        own: TargetInfo | None = None,
    ) -> ArticleResult:
        """Label every sentence of an article; return the kept ones and the counts."""
        result = ArticleResult()
        counts = result.counts
        text = article.text
        aliases = self._build_aliases(article, targets, own) if self.config.on("alias_match") else {}
        links = sorted(article.links, key=lambda link: link.start)
        link_pos = 0
        for index, (s_start, s_end) in enumerate(self.processor.split_sentences(text)):
            spans = self.processor.tokenize(text, s_start, s_end)
            if not spans:
                continue
            counts["sentences_total"] += 1
            while link_pos < len(links) and links[link_pos].end <= s_start:
                link_pos += 1
            sentence_links = []
            j = link_pos
            while j < len(links) and links[j].start < s_end:
                sentence_links.append(links[j])
                j += 1
            labelled = self._label_sentence(article, index, text, spans, sentence_links, targets, aliases, counts)
            if labelled is None:
                counts["sentence_dropped_unk"] += 1
                counts["sentences_dropped_unk"] += 1
                continue
            if labelled.low_quality:
                counts["sentences_low_quality"] += 1
                if not self.config.keep_low_quality:
                    counts["sentences_dropped_low_quality"] += 1
                    continue
            counts["sentences_kept"] += 1
            counts["tokens_kept"] += len(labelled.tokens)
            for span in labelled.spans:
                counts[f"entities_by_tag.{span.conll}"] += 1
                counts["entity_tokens"] += span.end - span.start
            result.sentences.append(labelled)
        return result

    def _label_sentence(
        self, article, index, text, spans, sentence_links, targets, aliases, counts
    ) -> LabelledSentence | None:
        tokens = [text[s:e] for s, e in spans]
        n = len(tokens)
        mentions: list[_Mention | None] = [None] * n
        group: list[int] = [-1] * n  # mention id per token, for IOB boundaries
        next_group = 0
        pack = self.pack
        # 1. Links.
        if sentence_links:
            starts = [s for s, _ in spans]
            ends = [e for _, e in spans]
        for link in sentence_links:
            # the tokens overlapping the anchor (spans are in order and do not overlap)
            covered = list(range(bisect_right(ends, link.start), bisect_left(starts, link.end)))
            if not covered:
                continue
            decision = self._link_decision(link, targets.get(link.target), counts)
            if decision is None:
                continue
            if decision.conll not in ("O", UNK):
                decision = self._cleanse(tokens, covered, decision, counts, link, spans, mentions)
                if decision is None:
                    continue
            next_group = self._assign(covered, decision, tokens, mentions, group, next_group, counts)
        # 2. Unlinked mentions through the alias set, longest match first. Without case endings
        # only a token that starts some alias can start a match: the rest are skipped unlooked-at.
        inflected = bool(pack.inflection_suffixes)
        i = 0
        while i < n:
            token = tokens[i]
            if (not inflected and token not in aliases) or mentions[i] is not None or not is_capitalized(token):
                i += 1
                continue
            matched = 0
            for form, mention in aliases.get(token, ()):
                end = i + len(form)
                if end <= n and tuple(tokens[i:end]) == form and all(m is None for m in mentions[i:end]):
                    next_group = self._assign(range(i, end), mention, tokens, mentions, group, next_group, counts)
                    counts[mention.rule] += 1
                    matched = len(form)
                    break
            if not matched and inflected:
                mention = self._inflected_alias(token, aliases, counts)
                if mention is not None:
                    mentions[i] = mention
                    group[i] = next_group
                    next_group += 1
                    matched = 1
            i += matched or 1
        # 3. Remaining capitalized tokens.
        first_word = next((k for k, t in enumerate(tokens) if t not in _OPENING), 0)
        initial_pending = False
        has_unk = False
        for k, token in enumerate(tokens):
            mention = mentions[k]
            if mention is not None:
                has_unk = has_unk or mention.conll == UNK
                continue
            # A real capital only: a word of a caseless script is never UNK for its "capital".
            if not token[:1].isupper():
                continue
            if token in pack.personal_titles and self.config.on("personal_title_o"):
                counts["personal_title_o"] += 1
                mentions[k] = _RULE_O["personal_title_o"]
            elif (token in pack.incidental_capitals or token.lower() in pack.calendar_words) and self.config.on(
                "incidental_capital_o"
            ):
                counts["incidental_capital_o"] += 1
                mentions[k] = _RULE_O["incidental_capital_o"]
            elif k == first_word:
                initial_pending = True
            else:
                counts["unlinked_capitalized_unk"] += 1
                mentions[k] = _UNLINKED_CAPITAL_UNK
                has_unk = True
        if has_unk:
            return None
        # 4. Only surviving sentences pay for lemma and POS.
        annotations = self.processor.annotate(tokens)
        if initial_pending:
            lemma, pos = annotations[first_word]
            if pos == "PROPN" and self.config.on("sentence_initial_unk"):
                counts["sentence_initial_unk"] += 1
                return None
            counts["sentence_initial_o"] += 1
        return self._finish(article, index, tokens, annotations, mentions, group, counts)

    def _assign(self, indices, mention: _Mention, tokens, mentions, group, next_group: int, counts) -> int:
        """Give the still-free tokens at ``indices`` one mention; returns the next mention id.

        A comma inside a location splits it: "Hodgenville, Kentucky" names two places (LOC , LOC).
        """
        split = mention.conll == "LOC" and self.config.on("location_comma_split")
        for i in indices:
            if mentions[i] is not None:
                continue
            if split and tokens[i] == ",":
                counts["location_comma_split"] += 1
                mentions[i] = _RULE_O["location_comma_split"]
                next_group += 1
                continue
            mentions[i] = mention
            group[i] = next_group
        return next_group + 1

    def _cleanse(self, tokens, covered, decision, counts, link, spans, mentions) -> _Mention | None:
        """Reference cleansing and Hungarian hyphen compounds for one entity link (mutates mentions)."""
        # Personal titles leading the anchor are O ("President Lincoln").
        while len(covered) > 1 and tokens[covered[0]] in self.pack.personal_titles and self.config.on("personal_title_o"):
            counts["personal_title_o"] += 1
            mentions[covered[0]] = _RULE_O["personal_title_o"]
            covered.pop(0)
        # Trailing punctuation inside the anchor is O.
        while len(covered) > 1 and is_punctuation(tokens[covered[-1]]) and self.config.on("trailing_punctuation_o"):
            counts["trailing_punctuation_o"] += 1
            mentions[covered[-1]] = _RULE_O["trailing_punctuation_o"]
            covered.pop()
        # A name is written with capitals: lower-case words closing an anchor are common nouns
        # ("a [[Whig Party]] leader" linked whole) or titles ("Frigyes Vilmos brandenburgi
        # választófejedelem"). Hungarian writes the common-noun part of some names in lower case
        # ("Weimari köztársaság", "Kurfürst híd"), so there only persons' anchors are trimmed.
        trim_tail = decision.conll == "PER" or not self.pack.capitalization_is_proper_noun
        if trim_tail and self.config.on("lowercase_tail_o"):
            while len(covered) > 1 and tokens[covered[-1]][:1].islower():
                counts["lowercase_tail_o"] += 1
                mentions[covered[-1]] = _RULE_O["lowercase_tail_o"]
                covered.pop()
        last = covered[-1]
        overhang = spans[last][1] - link.end
        if overhang > 0:
            rest = tokens[last][len(tokens[last]) - overhang:]
            if rest.startswith("-") and self.pack.inflection_suffixes:
                if rest[1:] in self.pack.inflection_suffixes:
                    counts["hu_inflected_name"] += 1
                elif self.config.on("hu_hyphen_compound_o"):
                    counts["hu_hyphen_compound_o"] += 1
                    mentions[last] = _RULE_O["hu_hyphen_compound_o"]
                    covered.pop()
                    if not covered:
                        return None
        return decision

    def _inflected_alias(self, token: str, aliases, counts) -> _Mention | None:
        """Hungarian: 'Berlinben', 'NASA-nak' are the alias 'Berlin'/'NASA' plus a case ending."""
        for suffix in self.pack.inflection_suffixes:
            if len(token) > len(suffix) + 1 and token.endswith(suffix):
                stem = token[: -len(suffix)]
                if stem.endswith("-"):
                    stem = stem[:-1]
                for form, mention in aliases.get(stem, ()):
                    if len(form) == 1:
                        counts["hu_inflected_name"] += 1
                        return mention
        return None

    def _finish(self, article, index, tokens, annotations, mentions, group, counts) -> LabelledSentence:
        conll_tags: list[str] = []
        dbpedia_tags: list[str] = []
        entity_spans: list[EntitySpan] = []
        previous_group = -2
        for k, mention in enumerate(mentions):
            if mention is None or mention.conll == "O":
                conll_tags.append("O")
                dbpedia_tags.append("O")
                previous_group = -2
                continue
            if group[k] == previous_group and conll_tags and conll_tags[-1] != "O":
                conll_tags.append(f"I-{mention.conll}")
                dbpedia_tags.append(f"I-{mention.dbpedia_class}")
                last = entity_spans[-1]
                entity_spans[-1] = EntitySpan(last.start, k + 1, last.conll, last.dbpedia_class, last.target, last.rule)
            else:
                conll_tags.append(f"B-{mention.conll}")
                dbpedia_tags.append(f"B-{mention.dbpedia_class}")
                entity_spans.append(EntitySpan(k, k + 1, mention.conll, mention.dbpedia_class, mention.target, mention.rule))
            previous_group = group[k]
        reasons = []
        last_token = tokens[-1]
        end_token = tokens[-2] if last_token in _CLOSING_QUOTES and len(tokens) > 1 else last_token
        if end_token not in _FINAL_PUNCTUATION and not end_token.endswith(_FINAL_MARKS):
            reasons.append("no_final_punctuation")
            counts["low_quality_no_final_punctuation"] += 1
        if self.pack.require_finite_verb and not self.processor.has_finite_verb(tokens, annotations):
            reasons.append("no_finite_verb")
            counts["low_quality_no_finite_verb"] += 1
        return LabelledSentence(
            page_id=article.page_id,
            title=article.title,
            index=index,
            tokens=tuple(tokens),
            lemmas=tuple(a[0] for a in annotations),
            pos=tuple(a[1] for a in annotations),
            dbpedia_tags=tuple(dbpedia_tags),
            conll_tags=tuple(conll_tags),
            spans=tuple(entity_spans),
            low_quality=bool(reasons),
            quality_reasons=tuple(reasons),
        )


def rules_fired(counts: Mapping[str, int]) -> dict[str, int]:
    """The ``rules_fired`` object of stats.json: every rule, fired or not."""
    return {rule: int(counts.get(rule, 0)) for rule in RULES}
