"""``wikisilver download``: fetch a Wikipedia dump set (and the DBpedia files) the build reads."""

from __future__ import annotations

import argparse

from wikisilver.download.dbpedia import (
    DBPEDIA_MANIFEST,
    DEFAULT_DBPEDIA_BASE_URL,
    DEFAULT_DBPEDIA_RELEASE,
    download_dbpedia,
)
from wikisilver.download.dumps import DEFAULT_BASE_URL, DEFAULT_FILES, FILE_KINDS, download_dump
from wikisilver.download.http import RetryPolicy
from wikisilver.errors import InputError
from wikisilver.outputs import check_folder

NAME = "download"
HELP = "Download a Wikipedia dump set (sha1-verified, resumable) and optionally the DBpedia files"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", required=True, help="Wikipedia language code, e.g. hu, en")
    parser.add_argument("--date", default="latest",
                        help="dump run YYYYMMDD, or 'latest' (the newest finished run; default)")
    parser.add_argument("--out", required=True, metavar="DIR", help="directory to download into")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL, metavar="URL",
                        help=f"dump site or a mirror with the same layout (default {DEFAULT_BASE_URL})")
    kinds = ", ".join(f"{k.name} ({k.help})" for k in FILE_KINDS.values())
    parser.add_argument("--files", default=",".join(DEFAULT_FILES), metavar="KIND,…",
                        help=f"comma-separated file kinds (default {','.join(DEFAULT_FILES)}; 'none' with "
                             f"--dbpedia fetches only DBpedia); kinds: {kinds}")
    parser.add_argument("--dbpedia", action="store_true",
                        help="also fetch the DBpedia " + " and ".join(f.name for f in DBPEDIA_MANIFEST))
    parser.add_argument("--dbpedia-base-url", default=DEFAULT_DBPEDIA_BASE_URL, metavar="URL",
                        help=f"DBpedia download site or mirror (default {DEFAULT_DBPEDIA_BASE_URL})")
    parser.add_argument("--dbpedia-release", default=DEFAULT_DBPEDIA_RELEASE, metavar="RELEASE",
                        help=f"DBpedia release directory (default {DEFAULT_DBPEDIA_RELEASE})")
    parser.add_argument("--retries", type=int, default=6, metavar="N",
                        help="attempts per file on connection errors, with backoff (default 6)")
    parser.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                        help="progress bar on stderr (auto: only on a terminal)")


def run(args: argparse.Namespace) -> int:
    kinds = [kind.strip() for kind in args.files.split(",") if kind.strip() not in ("", "none")]
    if not kinds and not args.dbpedia:
        raise InputError(None, "nothing to download: --files none needs --dbpedia")
    check_folder(args.out)  # before the first request
    policy = RetryPolicy(attempts=max(args.retries, 1))
    progress = {"auto": None, "always": True, "never": False}[args.progress]
    date, results = "", []
    if kinds:
        date, results = download_dump(
            args.lang, args.date, args.out, base_url=args.base_url, kinds=kinds, policy=policy,
            progress=progress,
        )
    if args.dbpedia:
        results += download_dbpedia(
            args.lang, args.out, base_url=args.dbpedia_base_url, release=args.dbpedia_release,
            policy=policy, progress=progress,
        )
    print(f"{args.lang}wiki {date}:" if date else f"DBpedia {args.dbpedia_release} ({args.lang}):")
    for result in results:
        print(f"  {result.status:<10} {result.path} ({result.size} bytes)")
    return 0
