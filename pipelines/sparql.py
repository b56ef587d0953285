"""Step 1 of the method, a SPARQL endpoint as an entity source: the DBpedia classes of the titles
asked, in batches, once per title (the client, its limits and retries: wikisilver.entities.sparql).
"""

from __future__ import annotations

from collections.abc import Iterator

import apache_beam as beam

from wikisilver.pipelines.common import counter


class _QuerySparql(beam.DoFn):
    """Batches of titles -> (title, class) from a SPARQL endpoint; a failed batch fails the run."""

    def __init__(self, config) -> None:
        self.config = config

    def process(self, titles: list[str]) -> Iterator[tuple[str, str]]:
        from wikisilver.entities.sparql import query_types

        counter("sparql_titles_queried").inc(len(titles))
        # SparqlError propagates on purpose: partial typing must never pass for a complete corpus.
        yield from query_types(self.config, titles)


class SparqlTypes(beam.PTransform):
    """Titles keyed by title -> their DBpedia classes, asked of a SPARQL endpoint once per title."""

    def __init__(self, config) -> None:
        super().__init__()
        self.config = config

    def expand(self, keyed):
        return (
            keyed
            | "Titles" >> beam.Keys()
            | "DistinctTitles" >> beam.Distinct()
            | "Batch" >> beam.BatchElements(
                min_batch_size=self.config.batch_size, max_batch_size=self.config.batch_size
            )
            | "Query" >> beam.ParDo(_QuerySparql(self.config))
        )
