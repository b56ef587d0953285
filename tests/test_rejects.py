"""The one error policy of the per-page steps (wikisilver.rejects, pipelines.common.guarded) and
the one list of reject reasons, held against the one table of them in docs/output.md."""

from __future__ import annotations

import ast
import re
import shutil
import time

import apache_beam as beam
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from conftest import REPO, shared_file
from wikisilver.dump import iter_pages
from wikisilver.errors import WikitextBudgetError
from wikisilver.pipelines.common import COUNTS, REJECTS, guarded
from wikisilver.pipelines.extract import _InfoboxClass
from wikisilver.records import Article, Page, PageReject
from wikisilver.rejects import LABELLING, PARSING, RejectReason, page_reject, run_page

BERLIN = "{{Infobox settlement\n| name = Berlin\n}}\n'''Berlin''' is the capital of [[Germany]]."


def page(page_id: int, title: str, text: str = "Some text.") -> Page:
    return Page(page_id, title, 0, text, source="demo.xml", offset=100 * page_id)


class _Step(beam.DoFn):
    """A step on one page under the policy: its work is chosen by the page's title."""

    def __init__(self, max_seconds: float | None) -> None:
        self.max_seconds = max_seconds

    def process(self, item: Page):
        yield from guarded(item, PARSING, self.max_seconds, lambda deadline: self.work(item, deadline))

    @staticmethod
    def work(item: Page, deadline: float | None) -> list:
        if item.title == "Raises":
            raise KeyError("no such template")
        if item.title == "Slow":  # never looks at its deadline, and ends after it
            time.sleep(0.6)
        if item.title == "Budget":
            raise WikitextBudgetError("parsing took longer than the time budget")
        return [item.title.upper(), beam.pvalue.TaggedOutput(COUNTS, {"pages_done": 1})]


def test_a_page_that_raises_or_outlasts_its_deadline_is_a_reject_with_its_reason_and_count():
    pages = [page(1, "Fine"), page(2, "Raises"), page(3, "Slow"), page(4, "Budget")]
    with test_pipeline.TestPipeline() as pipeline:
        result = pipeline | beam.Create(pages) | beam.ParDo(_Step(0.5)).with_outputs(REJECTS, COUNTS, main="out")
        assert_that(result.out, equal_to(["FINE"]), label="OnlyTheGoodPage")
        rejects = result[REJECTS] | beam.Map(
            lambda r: (r.title, r.reason, isinstance(r.reason, RejectReason), r.detail, r.page_id, r.offset))
        assert_that(rejects, equal_to([
            ("Raises", "parse_error", True, "KeyError: 'no such template'", 2, 200),
            ("Slow", "over_budget", True, "parsing took longer than the time budget", 3, 300),
            ("Budget", "over_budget", True, "parsing took longer than the time budget", 4, 400),
        ]), label="Rejects")
        # A failed page's own counts are dropped with its outputs: only its reject is counted.
        assert_that(result[COUNTS], summed({"pages_done": 1, "pages_rejected.parse_error": 1,
                                            "pages_rejected.over_budget": 2}), label="Counts")


def summed(expected: dict):
    """A matcher of a PCollection of count dicts whose sum is ``expected``."""

    def check(found):
        total: dict = {}
        for counts in found:
            for name, n in counts.items():
                total[name] = total.get(name, 0) + n
        assert total == expected
    return check


def test_without_a_budget_a_slow_page_is_kept():
    with test_pipeline.TestPipeline() as pipeline:
        result = pipeline | beam.Create([page(3, "Slow")]) | beam.ParDo(_Step(None)).with_outputs(
            REJECTS, COUNTS, main="out")
        assert_that(result.out, equal_to(["SLOW"]))
        assert_that(result[REJECTS], equal_to([]), label="NoRejects")


def test_the_infobox_step_has_the_page_deadline(tmp_path):
    """_InfoboxClass reads templates within the page's budget: over it, the article is a reject
    (and is not passed on to the cleaner: a page is rejected once, or used); within it, the article
    goes on with its infobox class."""
    mappings = tmp_path / "en"
    mappings.mkdir()
    shutil.copy(shared_file("dbpedia/mappings/en/Mapping_en:Infobox_settlement.ttl"), mappings)
    berlin = page(7, "Berlin", BERLIN)
    with test_pipeline.TestPipeline() as pipeline:
        pages = pipeline | beam.Create([berlin])
        late = pages | "Late" >> beam.ParDo(_InfoboxClass(str(mappings), 1_000, 0.0)).with_outputs(
            REJECTS, COUNTS, "infobox", main="articles")
        assert_that(late.articles, equal_to([]), label="LateNotCleaned")
        assert_that(late.infobox, equal_to([]), label="LateNotTyped")
        assert_that(late[REJECTS] | "LateReason" >> beam.Map(lambda r: (r.title, r.reason)),
                    equal_to([("Berlin", "over_budget")]), label="LateRejected")
        timely = pages | "Timely" >> beam.ParDo(_InfoboxClass(str(mappings), 1_000, 60.0)).with_outputs(
            REJECTS, COUNTS, "infobox", main="articles")
        assert_that(timely.articles, equal_to([berlin]), label="TimelyCleaned")
        assert_that(timely.infobox, equal_to([("Berlin", "Settlement")]), label="TimelyTyped")
        assert_that(timely[REJECTS], equal_to([]), label="TimelyNoRejects")


def test_run_page_keeps_the_value_or_says_why_not():
    assert run_page(LABELLING, None, lambda deadline: deadline).value is None
    assert run_page(LABELLING, 60.0, lambda deadline: 42).value == 42
    failed = run_page(LABELLING, 60.0, lambda deadline: 1 / 0)
    assert (failed.reason, failed.detail) == (RejectReason.LABEL_ERROR, "ZeroDivisionError: division by zero")


def test_a_reject_of_an_article_has_no_dump_position_and_bounded_text():
    article = Article(5, "Ada", "x" * 1_000)
    reject = page_reject(article, RejectReason.LABEL_ERROR, "y" * 1_000)
    assert reject == PageReject(source="", reason="label_error", detail="y" * 500, page_id=5, title="Ada",
                                offset=None, snippet="x" * 200)


def documented_reasons() -> dict[str, str]:
    """The reasons of the table in docs/output.md's rejects section (first column, in backticks)."""
    text = (REPO / "docs" / "output.md").read_text(encoding="utf-8")
    section = text[text.index("## `rejects/part-NNNNN.jsonl`"):text.index("## `stats.json`")]
    table = section[section.index("| reason |"):]
    return dict(re.findall(r"^\| `(\w+)` \| (.+?) \|$", table, re.M))


def test_every_reason_is_documented_and_every_documented_reason_exists():
    documented = documented_reasons()
    assert len(documented) >= 10
    assert set(documented) == {reason.value for reason in RejectReason}


def test_the_dump_reader_gives_its_reasons_as_members_of_the_one_list():
    # A truncated real dump: the reader's rejects (here the cut page) carry RejectReason members.
    rejects = [item for item in iter_pages(str(shared_file("wikidumps/viwiki-truncated-100k.xml.xz")))
               if isinstance(item, PageReject)]
    assert rejects and all(isinstance(reject.reason, RejectReason) for reject in rejects)
    assert RejectReason.TRUNCATED in {reject.reason for reject in rejects}


def reason_argument(call: ast.Call) -> ast.expr | None:
    """The reason given to a PageReject (its second argument) or a dump's Break (its first)."""
    for keyword in call.keywords:
        if keyword.arg == "reason":
            return keyword.value
    position = 1 if call.func.id == "PageReject" else 0
    return call.args[position] if len(call.args) > position else None


def reasons_written_out(root) -> list[str]:
    """Where the code under ``root`` makes a reject with a string literal as its reason."""
    found = []
    for path in sorted([*(root / "src" / "wikisilver").rglob("*.py"), *(root / "pipelines").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("PageReject", "Break"):
                if isinstance(reason_argument(node), ast.Constant):
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_reject_is_made_with_a_reason_written_out():
    """Every reject in the code takes its reason from RejectReason (or passes one on), never a
    string literal: a new reason is a member of the enum, and so a row of the table above."""
    assert reasons_written_out(REPO) == []
