"""Getting the inputs of step 2: the DBpedia ontology and instance types of a release.

DBpedia publishes no checksums in the layout of downloads.dbpedia.org: the size the server announces
is checked instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from wikisilver.download.files import DownloadResult, RemoteFile, download_all
from wikisilver.download.http import RetryPolicy, probe_size

DEFAULT_DBPEDIA_BASE_URL = "https://downloads.dbpedia.org"
DEFAULT_DBPEDIA_RELEASE = "2016-10"


@dataclass(frozen=True)
class DbpediaFile:
    """One file of the DBpedia manifest: a URL template with ``{base}``, ``{release}``, ``{lang}``."""

    name: str
    template: str
    help: str


# The DBpedia files `wikisilver build` reads (`--ontology`, `--types`), in the layout of the
# downloads.dbpedia.org releases (2016-10 is the last release in that layout; a mirror or a local
# copy of it works with --dbpedia-base-url). DBpedia publishes no checksums there: the size the
# server announces is checked instead.
DBPEDIA_MANIFEST: tuple[DbpediaFile, ...] = (
    DbpediaFile("ontology", "{base}/{release}/dbpedia_{release}.owl", "the DBpedia ontology (OWL)"),
    DbpediaFile(
        "instance-types", "{base}/{release}/core-i18n/{lang}/instance_types_{lang}.ttl.bz2",
        "most specific DBpedia class of each article of the language",
    ),
)


def dbpedia_files(
    lang: str, *, base_url: str = DEFAULT_DBPEDIA_BASE_URL, release: str = DEFAULT_DBPEDIA_RELEASE,
    manifest: Iterable[DbpediaFile] = DBPEDIA_MANIFEST,
) -> list[RemoteFile]:
    """The DBpedia files of the manifest for one language (sizes unknown until asked)."""
    files = []
    for entry in manifest:
        url = entry.template.format(base=base_url.rstrip("/"), release=release, lang=lang)
        files.append(RemoteFile(name=url.rsplit("/", 1)[-1], url=url))
    return files


def download_dbpedia(
    lang: str, out_dir: str | Path, *, base_url: str = DEFAULT_DBPEDIA_BASE_URL,
    release: str = DEFAULT_DBPEDIA_RELEASE, policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] | None = None, progress: bool | None = None,
    progress_stream: TextIO | None = None,
) -> list[DownloadResult]:
    """Fetch the DBpedia ontology and instance types; completeness is checked by size."""
    files = [
        RemoteFile(remote.name, remote.url, probe_size(remote.url, policy, sleep))
        for remote in dbpedia_files(lang, base_url=base_url, release=release)
    ]
    return download_all(files, out_dir, policy, sleep, progress, progress_stream)
