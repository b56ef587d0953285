"""The read and extract stages of the Beam job on a real page of a wiki without a mappings table."""

from __future__ import annotations

import pytest

import lzma

from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that
from conftest import shared_file

from wikisilver.dump import wiki_namespaces
from wikisilver.pipelines.extract import ExtractArticles
from wikisilver.pipelines.read import ReadPages

MRWIKI = "wikidumps/mrwiki-truncated-100k.xml.xz"  # Marathi: no table in mappings/wikitext.toml
TITLE = "वसंत पंचमी"


def one_page_dump(tmp_path) -> str:
    """The header of the real mrwiki dump and its page TITLE, as a dump of its own."""
    with lzma.open(shared_file(MRWIKI)) as stream:
        raw = stream.read()
    header = raw[: raw.index(b"  <page>")]
    at = raw.index(f"<title>{TITLE}</title>".encode())
    start = raw.rindex(b"  <page>", 0, at)
    end = raw.index(b"</page>", at) + len(b"</page>\n")
    path = tmp_path / "mrwiki-20240101-pages-articles.xml"
    path.write_bytes(header + raw[start:end] + b"</mediawiki>\n")
    return str(path)


@pytest.mark.slow
def test_the_job_cleans_with_the_namespaces_of_the_dump(tmp_path):
    dumps = [one_page_dump(tmp_path)]

    def check(articles):
        (article,) = articles
        assert article.title == TITLE
        assert article.text.startswith("वसंत पंचमी ही शिशिर ऋतूमध्ये येणारी माघ शुद्ध पंचमी होय.")
        assert "thumb" not in article.text and "पळसाला" not in article.text and "वर्ग:" not in article.text
        assert not any(link.target.startswith(("चित्र:", "वर्ग:")) for link in article.links)

    with test_pipeline.TestPipeline() as pipeline:
        pages = (pipeline | ReadPages(dumps)).pages
        parsed = pages | ExtractArticles("mr", 2_000_000, 10.0, None, namespaces=wiki_namespaces(dumps))
        assert_that(parsed.articles, check)
