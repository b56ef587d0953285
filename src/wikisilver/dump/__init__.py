"""Step 2 input: reading MediaWiki XML dumps into pages, with flat memory and dead letters.

A dump is read in layers, one module each:

* :mod:`~wikisilver.dump.streams`: the decompressed bytes (bz2 incl. multistream, xz, gzip,
  plain; by magic bytes), reading on after a corrupt bz2 block (:mod:`~wikisilver.dump.bz2blocks`),
  and the byte ranges of a multistream dump that let workers read one huge file in parallel;
* :mod:`~wikisilver.dump.encoding`: those bytes as UTF-8 (UTF-16 and declared encodings are
  transcoded);
* :mod:`~wikisilver.dump.siteinfo`: the ``<siteinfo>`` header, the wiki's language, namespaces
  and dump date;
* :mod:`~wikisilver.dump.pages`: the ``<page>`` elements as :class:`~wikisilver.records.Page`
  records, and a :class:`~wikisilver.records.PageReject` for every piece that cannot be read.
"""

from wikisilver.dump.pages import first_pages, iter_pages, iter_pages_in_range, names_a_page
from wikisilver.dump.siteinfo import SiteInfo, check_dump, dump_language, read_siteinfo, wiki_date_from_name, wiki_namespaces
from wikisilver.dump.streams import read_multistream_index, stream_ranges

__all__ = [
    "SiteInfo",
    "dump_language",
    "first_pages",
    "iter_pages",
    "iter_pages_in_range",
    "names_a_page",
    "read_multistream_index",
    "read_siteinfo",
    "check_dump",
    "stream_ranges",
    "wiki_date_from_name",
    "wiki_namespaces",
]
