"""Step 1 of the method: what each title is. The readers of the sources that type entities (DBpedia
RDF, infobox mappings, MediaWiki SQL tables, a SPARQL endpoint, an earlier entity table), the
calendar rule, the Bloom filter of wanted titles, and :mod:`.typing`, the one pure function that
decides a title's type from its evidence."""
