"""Anonymization's logic without the command: case endings put back on replacements, the corpus's
entity table and its surrogates, the four methods on a real NerKor news article (gold names as the
detector's), generalization's classes and words, and the gazetteer detector."""

from __future__ import annotations

import random

import pytest
from conftest import shared_file

from wikisilver.anonymize.detect import GazetteerDetector, Span, combine, propagate
from wikisilver.anonymize.documents import documents
from wikisilver.anonymize.generalize import Generalizer, Wording, decamel
from wikisilver.anonymize.inflect import load_inflector
from wikisilver.anonymize.replace import Anonymizer, Options, Replaced, rewrite
from wikisilver.anonymize.surrogates import EntityTable
from wikisilver.corpus.inputs import read_corpus
from wikisilver.corpus.tags import TaggedSentence, iob_to_spans
from wikisilver.ontology.hierarchy import load_builtin_ontology

HU = load_inflector("hu")
ARTICLE = "gold/nerkor/devel/news/globv_17.conllup"  # Fang Licsi … Fang … Fangot; Teng Hsziao-ping … Tenget
TRAIN_FILES = ("gold/nerkor/train/news/globalvoices_12.conllup", "gold/nerkor/train/news/globalvoices_13.conllup",
               "gold/nerkor/train/news/globalvoices_14.conllup", "gold/nerkor/train/wikipedia")


# -- case endings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("original, lemma, replacement, series, expected", [
    ("Budapesten", "Budapest", "Debrecen", "inner", "Debrecenben"),  # the name's series decides: Debrecenben
    ("Budapesten", "Budapest", "Szeged", "outer", "Szegeden"),
    ("Debrecenben", "Debrecen", "Győr", "inner", "Győrben"),
    ("Győrben", "Győr", "Szeged", "outer", "Szegeden"),  # inessive -> superessive, front e
    ("Szegedre", "Szeged", "Pécs", "outer", "Pécsre"),
    ("Szegedről", "Szeged", "Tokió", "inner", "Tokióból"),
    ("Pécsen", "Pécs", "Pápa", "outer", "Pápán"),  # lengthening: a -> á
    ("Győrhöz", "Győr", "Budapest", None, "Budapesthez"),  # three-way harmony
    ("Budapesthez", "Budapest", "Győr", None, "Győrhöz"),
    ("Kovácsnak", "Kovács", "Berger", None, "Bergernek"),
    ("Bergernek", "Berger", "Kovács", None, "Kovácsnak"),
    ("Kovácsné", "Kovács", "Szabó", None, "Szabóné"),  # -né, Mrs
    ("Kováccsal", None, "Berger", None, "Bergerrel"),  # -val assimilates, both ways
    ("Bergerrel", "Berger", "Kovács", None, "Kováccsal"),
    ("Merkellel", "Merkel", "Scott", None, "Scott-tal"),  # no triple letter
    ("Fangot", "Fang", "Budapest", None, "Budapestet"),  # accusative with a linking vowel
    ("Fangot", "Fang", "Berlin", None, "Berlint"),
    ("NATO-nak", None, "IBM", None, "IBM-nek"),  # acronyms: a hyphen, the letter's name (em)
    ("IBM-mel", None, "MOL", None, "MOL-lal"),
    ("Londonig", "London", "Pécs", None, "Pécsig"),  # invariant
    ("Pinerolót", "Pinerolo", "Chicago", "inner", "Chicagót"),  # a foreign -o lengthens too
    ("Oslóban", "Oslo", "Chicago", "inner", "Chicagóban"),
    ("Kovácsnak", "Kovács", "Ady", None, "Adynak"),  # a final y read as a vowel
    ("Kováccsal", "Kovács", "Ady", None, "Adyval"),
    ("Adyval", "Ady", "Kodály", None, "Kodállyal"),  # but ly is a digraph
])
def test_hungarian_replacement_takes_the_case_ending_of_the_name(original, lemma, replacement, series, expected):
    ending = HU.split(original, lemma)
    assert ending.case is not None, original
    assert HU.inflect(replacement, ending.case, series) == expected


def test_a_name_is_not_cut_without_evidence():
    assert HU.split("London", "London").case is None  # -on looks like an ending; the lemma says no
    assert HU.split("Berlin").case is None  # no lemma, nothing known: left whole
    assert HU.split("Kovácsné", None, lambda stem: stem == "Kovács").stem == "Kovács"
    assert HU.split("Pápán", "Pápa").stem == "Pápa"
    assert load_inflector("en").split("Berlin").case is None  # English: no endings


def test_harmony_of_the_last_non_neutral_vowel():
    assert [HU.harmony(w) for w in ("Párizs", "Berlin", "Győr", "Pécs", "Budapest")] == \
        ["back", "front", "rounded", "front", "front"]


def test_an_ending_the_table_lacks_is_not_carried():
    possessive = HU.split("Európája", "Európa")  # the lemma shows the name; -ja is no case of the table
    assert (possessive.stem, possessive.case, possessive.text) == ("Európa", "", "ja")
    assert HU.inflect("Ázsia", possessive.case) is None
    assert HU.inflect("Berger", "no-such-case") is None
    assert HU.inflect("Apollo 11", "inessive") is None  # how "11" is read is not in its spelling


def test_after_a_hyphen_any_form_of_an_ending_is_one():
    # Foreign names and acronyms are spelled otherwise than they sound: Jolie-nak, not Joliénak.
    assert [(e.stem, e.case) for e in map(HU.split, ("Jolie-nak", "Jolie-t", "NB I-ben", "IBM-mel"))] == [
        ("Jolie", "dative"), ("Jolie", "accusative"), ("NB I", "inessive"), ("IBM", "instrumental")]
    assert HU.split("Baden-Baden").case is None


# -- the entity table and its surrogates ---------------------------------------------------------------


@pytest.fixture(scope="module")
def table() -> EntityTable:
    sentences = [s for f in TRAIN_FILES for s in read_corpus(str(shared_file(f)))]
    return EntityTable.from_sentences(sentences, HU)


@pytest.fixture(scope="module")
def article() -> list[TaggedSentence]:
    return list(read_corpus(str(shared_file(ARTICLE))))


def test_table_knows_bases_types_and_locative_series(table):
    assert table.type_of(("Budapest",)) == "LOC"
    assert table.bases[("Budapesten",)] == ("Budapest",)  # NerKor's lemma
    assert table.series("Budapest", HU) == "outer"
    assert table.knows_token("Budapest")


def test_surrogates_are_of_the_type_reproducible_and_share_no_word(table):
    original = ("Fang", "Licsi")
    drawn = [table.surrogate("PER", original, random.Random(f"s{seed}"), set()) for seed in range(20)]
    assert all(d is not None and len(d) == 2 and table.type_of(d) == "PER" for d in drawn)
    assert all(not {"fang", "licsi"} & {w.casefold() for w in d} for d in drawn)
    assert len(set(drawn)) > 5
    again = table.surrogate("PER", original, random.Random("s3"), set())
    assert again == drawn[3]
    taken = set(drawn)
    assert table.surrogate("PER", original, random.Random("s3"), taken) not in taken


# -- the four methods on a real article ------------------------------------------------------------------


def gold_spans(sentences):
    return [[Span(s, e, k) for s, e, k in iob_to_spans(sentence.tags)] for sentence in sentences]


def run(method, article, table, **options):
    generalizer = Generalizer(load_builtin_ontology(), table, "hu", 1, HU)
    anonymizer = Anonymizer(Options(method, **options), HU, table=table, generalizer=generalizer, wording=Wording.load("hu"))
    done = anonymizer.document("globv_17", article, gold_spans(article))
    return done, anonymizer.counts


def replacements_of(done, article, surface_starts: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for sentence, replaced in zip(article, done.replaced):
        for r in replaced:
            original = " ".join(sentence.tokens[r.start:r.end])
            if original.startswith(surface_starts):
                found.setdefault(original, set()).add(r.text)
    return found


def test_suppress_masks_every_name_and_nothing_else(article, table):
    done, counts = run("suppress", article, table, mask="XXX")
    names = sum(len(gold_spans([s])[0]) for s in article)
    assert sum(counts.mentions.values()) == names > 20
    for before, after in zip(article, done.sentences):
        kept = [t for t, tag in zip(before.tokens, before.tags) if tag == "O"]
        assert [t for t in after.tokens if t != "XXX"] == kept


def test_tag_numbers_entities_and_partial_mentions_follow(article, table):
    done, _ = run("tag", article, table)
    fang = replacements_of(done, article, "Fang")
    assert set().union(*fang.values()) == {"[PER-1]"}  # Fang Licsi, Fang, Fangot: one person
    teng = replacements_of(done, article, "Teng")
    assert len(set().union(*teng.values())) == 1 and "[PER-1]" not in set().union(*teng.values())
    assert done.sentences[0].tokens[:8] == ("2012.", "április", "6-án", "76", "éves", "korában", "elhunyt", "[PER-1]")


def test_substitute_is_consistent_inflected_and_never_the_original(article, table):
    done, counts = run("substitute", article, table, seed=7)
    fang = replacements_of(done, article, "Fang")
    (full,) = fang["Fang Licsi"]
    surname = full.split()[0]
    assert fang["Fang"] == {surname}  # the partial mention follows the full name
    assert fang["Fangot"] == {HU.inflect(surname, "accusative")}
    assert "fang" not in full.casefold() and counts.endings_carried >= 3
    (teng,) = replacements_of(done, article, "Teng Hsziao-ping")["Teng Hsziao-ping"]
    assert replacements_of(done, article, "Tenget")["Tenget"] == {HU.inflect(teng.split()[0], "accusative")}
    texts = [r.text for replaced in done.replaced for r in replaced]
    assert not {"Fang", "Teng", "Pekingi"} & {w for t in texts for w in t.split()}
    assert run("substitute", article, table, seed=7)[0].mapping == done.mapping  # --seed: reproducible
    assert run("substitute", article, table, seed=8)[0].mapping != done.mapping


def test_generalize_words_places_by_class_and_substitutes_persons(article, table):
    done, _ = run("generalize", article, table)
    usa = replacements_of(done, article, "Egyesült Államok")
    # NerKor has no classes: Place, "hely", whose series is the outer one; "az" before it needs no
    # article of ours, and becomes "a" before a consonant.
    assert usa["Egyesült Államokban"] == {"helyen"}
    assert " élt a helyen ." in " ".join(done.sentences[1].tokens)
    fang = replacements_of(done, article, "Fang")
    assert len(fang["Fang"]) == 1 and not next(iter(fang["Fang"])).startswith(("egy", "["))
    assert done.mapping and {m["type"] for m in done.mapping} >= {"PER", "LOC", "ORG"}


def test_classes_option_leaves_other_types_in_clear(article, table):
    done, counts = run("tag", article, table, classes=frozenset({"PER"}))
    assert set(counts.mentions) == {"PER"}
    assert "Egyesült" in [t for s in done.sentences for t in s.tokens]


def test_rewrite_rebuilds_text_offsets_and_articles():
    sentence = TaggedSentence(tokens=("He", "met", "a", "Samsung", "manager", "."), tags=("O",) * 6,
                              text="He met a Samsung manager.", offsets=((0, 2), (3, 6), (7, 8), (9, 16), (17, 24), (24, 25)))
    out = rewrite(sentence, [Replaced(3, 4, "ORG", "ORG-1", "Apple Inc")], wording=Wording.load("en"))
    assert out.text == "He met an Apple Inc manager."
    assert [out.text[s:e] for s, e in out.offsets] == list(out.tokens)
    assert out.tags == ("O", "O", "O", "B-ORG", "I-ORG", "O", "O")


# -- generalization ---------------------------------------------------------------------------------------


def english_table() -> EntityTable:
    rows = [("Hamburg", "City"), ("Munich", "City"), ("Cologne", "City"), ("Potsdam", "Town"),
            ("Bavaria", "AdministrativeRegion"), ("Rhine", "River")]
    sentences = [TaggedSentence(tokens=(name, "is", "in", "Germany", "."), tags=("B-LOC", "O", "O", "B-LOC", "O"),
                                conll_tags=("B-LOC", "O", "O", "B-LOC", "O"),
                                dbpedia_tags=(f"B-{cls}", "O", "O", "B-Country", "O")) for name, cls in rows]
    return EntityTable.from_sentences(sentences, load_inflector("en"))


# Cities 3 (Hamburg, Munich, Cologne), settlements 4 (Potsdam), populated places 6 (Bavaria, Germany),
# places 7 (the Rhine).
@pytest.mark.parametrize("k, cls, phrase", [
    (1, "City", "a city"), (3, "City", "a city"), (4, "Settlement", "a settlement"),
    (5, "PopulatedPlace", "a place"), (7, "Place", "a place"), (100, "Place", "a place"),
])
def test_generalization_climbs_until_k_entities_share_the_class(k, cls, phrase):
    generalizer = Generalizer(load_builtin_ontology(), english_table(), "en", k, load_inflector("en"))
    assert generalizer.class_for(("Hamburg",), "LOC") == cls
    assert generalizer.phrase(cls, None, "in")[0] == phrase
    assert generalizer.phrase(cls, None, "the")[0] == phrase.split(" ", 1)[1]  # after a determiner: no article
    assert generalizer.class_for(("Atlantis",), "LOC") == "Place"  # unknown: the type's top class
    assert generalizer.class_for(("Atlantis",), "ORG") == "Organisation"


def test_class_words_come_from_the_ontology_the_pack_or_the_class_name():
    ontology = load_builtin_ontology()
    assert decamel("PopulatedPlace") == "populated place"
    hu = Generalizer(ontology, None, "hu", 1, HU)
    assert hu.label("City") == "város" and hu.label("BasketballTeam") == "sportcsapat"  # nearest labelled ancestor
    assert hu.phrase("City", "superessive", None) == ("egy városban", True)  # a common noun: the inner series
    assert Generalizer(ontology, None, "en", 1, load_inflector("en")).label("PopulatedPlace") == "place"
    assert Generalizer(ontology, None, "de", 1, load_inflector("de")).label("SoccerClub") == "soccer club"


def test_ontology_labels_in_every_language(shared):
    from wikisilver.ontology import load_ontology

    ontology = load_ontology(str(shared("dbpedia/ontology/dbo-snapshots.owl")))
    assert ontology.labels_by_lang["de"]["City"] == "Stadt"
    assert ontology.labels_by_lang["en"]["City"] == "city"
    generalizer = Generalizer(ontology, english_table(), "de", 1, load_inflector("de"))
    assert generalizer.phrase(generalizer.class_for(("Hamburg",), "LOC"), None, None)[0] == "Stadt"


# -- detection ------------------------------------------------------------------------------------------


def test_gazetteer_finds_longest_names_and_inflected_ones(table):
    found = GazetteerDetector(table, HU).spans(("Tegnap", "Orbán", "Viktor", "Budapesten", "és", "Szegednek", "írt", "."))
    assert [(s.start, s.end, s.kind) for s in found if s.kind] == [(1, 3, "PER"), (3, 4, "LOC"), (5, 6, "LOC")]


def test_gazetteer_leaves_words_more_often_common_than_names(table):
    # "Nagy" ("big", a surname) is a name once in these files and a capitalized word a dozen times.
    assert table.type_of(("Nagy",)) == "PER" and not table.is_name(("Nagy",))
    assert GazetteerDetector(table, HU).spans(("Nagy", "esőzés", "volt", "Budapesten", ".")) == [Span(3, 4, "LOC", "gazetteer")]


def test_overlapping_spans_become_one_of_the_model_type():
    merged = combine([Span(0, 1, "PER")], [Span(0, 2, "LOC", "gazetteer"), Span(4, 5, "ORG", "gazetteer")])
    assert merged == [Span(0, 2, "PER"), Span(4, 5, "ORG", "gazetteer")]


def test_documents_are_runs_of_one_doc_id(article):
    other = TaggedSentence(tokens=("x",), tags=("O",), doc_id="other")
    assert [len(d) for d in documents([*article, other, *article[:2]])] == [len(article), 1, 2]


def test_a_name_found_once_is_found_everywhere_in_the_document(table):
    sentences = [("Fang", "az", "elmúlt", "években", "élt", "."), ("Meghalt", "Fang", "Licsi", "és", "Nagy", "Imre", "."),
                 ("Fangot", "és", "Nagy", "Imrét", "üldözték", "."), ("Nagy", "esőzés", "volt", ".")]
    found = [[], [Span(1, 3, "PER"), Span(4, 6, "PER")], [], []]
    spans = propagate(sentences, found, HU, table)
    assert [(s.start, s.end) for s in spans[0]] == [(0, 1)]  # Fang, before the full name
    assert [(s.start, s.end, s.source) for s in spans[2]] == [(0, 1, "document"), (2, 4, "document")]  # Fangot, Nagy Imrét
    assert spans[3] == []  # "Nagy" alone: more often a common word in the corpus
    assert spans[1] == found[1]


def test_a_person_mention_follows_a_name_the_model_typed_otherwise(table):
    sentences = [TaggedSentence(tokens=("Avril", "Lavigne", "énekelt", "."), tags=("O",) * 4, doc_id="d"),
                 TaggedSentence(tokens=("Lavigne", "és", "az", "EK-Szerződés", "."), tags=("O",) * 5, doc_id="d"),
                 TaggedSentence(tokens=("Az", "EK-szerződést", "Lavigne-nak", "is", "aláírták", "."), tags=("O",) * 6, doc_id="d")]
    spans = [[Span(0, 2, "MISC")], [Span(0, 1, "PER"), Span(3, 4, "MISC")], [Span(1, 2, "MISC"), Span(2, 3, "PER")]]
    done = Anonymizer(Options("tag"), HU).document("d", sentences, spans)
    assert [" ".join(s.tokens) for s in done.sentences] == [
        "[MISC-1] énekelt .", "[MISC-1] és az [MISC-2] .", "Az [MISC-2] [MISC-1] is aláírták ."]
