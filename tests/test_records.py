"""The records that flow between pipeline stages: equal after a pickle round trip (Beam pickles them)."""

import copy
import pickle

from wikisilver.records import (
    Article,
    EntitySpan,
    EntityType,
    LabelledSentence,
    Link,
    Page,
    PageReject,
    TargetInfo,
)


def _records():
    link = Link(4, 10, "Kentucky", "Kentucky")
    entity = EntityType("Kentucky", "AdministrativeRegion", "LOC", "GPE", "types")
    return [
        Page(12, "Abraham Lincoln", 0, "'''Abraham Lincoln''' was born in [[Kentucky]].", revision_id=7, source="d.xml"),
        PageReject("d.xml", "xml_error", "mismatched tag", page_id=3, offset=1024, snippet="<page>"),
        link,
        Article(12, "Abraham Lincoln", "Born Kentucky", (link, Link(0, 4, "Birth", "Born"))),
        entity,
        TargetInfo("Kentucky", entity, exists=True, aliases=("KY", "Commonwealth of Kentucky")),
        TargetInfo("Nowhere", None),
        LabelledSentence(
            12, "Abraham Lincoln", 0, ("Born", "in", "Kentucky", "."), ("bear", "in", "Kentucky", "."),
            ("VERB", "ADP", "PROPN", "PUNCT"), ("O", "O", "B-AdministrativeRegion", "O"), ("O", "O", "B-LOC", "O"),
            (EntitySpan(2, 3, "LOC", "AdministrativeRegion", "Kentucky"),), True, ("no_finite_verb",),
        ),
    ]


def test_records_survive_pickle_and_copy_unchanged():
    for record in _records():
        for protocol in (2, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL):
            again = pickle.loads(pickle.dumps(record, protocol))
            assert again == record and type(again) is type(record)
        assert copy.deepcopy(record) == record
