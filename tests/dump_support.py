"""Shared by the tests that make dumps: a MediaWiki export of given pages, many pages of random
words, a multistream dump with its index, and the peak memory of a fresh interpreter."""

from __future__ import annotations

import bz2
import random
import re
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

TIMEOUT = 300  # generous: the bound only says "does not hang"


def dump_xml(pages: list[tuple[int, str, str]]) -> str:
    """A MediaWiki export of ``(page id, title, wikitext)`` pages."""
    body = "".join(
        f"<page><title>{escape(title)}</title><ns>0</ns><id>{page_id}</id><revision><id>{page_id}</id>"
        f"<text xml:space=\"preserve\">{escape(text)}</text></revision></page>\n"
        for page_id, title, text in pages
    )
    return ('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" xml:lang="en">\n'
            f"<siteinfo><sitename>Wikipedia</sitename><dbname>enwiki</dbname></siteinfo>\n{body}</mediawiki>\n")


def many_pages(count: int, seed: int = 21) -> list[tuple[int, str, str]]:
    """``count`` pages of a few sentences of random words (text that compresses like prose)."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(3000)]
    return [(i, f"Page {i}", " ".join(rng.choice(words) for _ in range(rng.randint(20, 60))) + ".")
            for i in range(1, count + 1)]


def write_multistream(source: Path, target: Path, pages_per_stream: int = 3) -> Path:
    """A multistream .bz2 (header stream, then streams of bare <page>s) and its index, as Wikimedia does."""
    xml = bz2.decompress(source.read_bytes()).decode("utf-8")
    head, rest = xml.split("  <page>", 1)
    pages = ["  <page>" + chunk for chunk in ("  <page>" + rest).split("  <page>")[1:]]
    pages[-1] = pages[-1].replace("</mediawiki>\n", "")
    streams = [head.encode()]
    index_lines = []
    for i in range(0, len(pages), pages_per_stream):
        streams.append("".join(pages[i:i + pages_per_stream]).encode())
    streams.append(b"</mediawiki>\n")
    offset = 0
    with open(target, "wb") as handle:
        for number, stream in enumerate(streams):
            data = bz2.compress(stream)
            if 0 < number < len(streams) - 1:
                for page in re.finditer(r"<title>(.*?)</title>\s*<ns>\d+</ns>\s*<id>(\d+)</id>", stream.decode()):
                    index_lines.append(f"{offset}:{page.group(2)}:{page.group(1)}\n")
            handle.write(data)
            offset += len(data)
    index = target.with_name(target.name.replace(".xml.bz2", "-index.txt.bz2"))
    index.write_bytes(bz2.compress("".join(index_lines).encode()))
    return index


def build_multistream(source: Path, tmp_path: Path, per_stream: int = 100) -> tuple[str, str, int]:
    """A multistream bz2 dump + index, as Wikimedia writes them: header, ~100 pages, …, footer."""
    raw = bz2.decompress(source.read_bytes())
    first = raw.index(b"  <page>")
    header, body = raw[:first], raw[first:]
    footer_at = body.rindex(b"</mediawiki>")
    body, footer = body[:footer_at], body[footer_at:]
    pages, position = [], 0
    while (start := body.find(b"<page>", position)) >= 0:
        end = body.index(b"</page>", start) + len(b"</page>\n")
        pages.append(body[position:end])
        position = end
    streams = [bz2.compress(header)]
    index_lines = []
    offset = len(streams[0])
    for group_start in range(0, len(pages), per_stream):
        group = pages[group_start : group_start + per_stream]
        for page in group:
            page_id = int(page.split(b"<id>", 1)[1].split(b"</id>", 1)[0])
            title = page.split(b"<title>", 1)[1].split(b"</title>", 1)[0].decode()
            index_lines.append(f"{offset}:{page_id}:{title}")
        streams.append(bz2.compress(b"".join(group)))
        offset += len(streams[-1])
    streams.append(bz2.compress(footer))
    dump_path = tmp_path / "ltgwiki-20170701-pages-articles-multistream.xml.bz2"
    dump_path.write_bytes(b"".join(streams))
    index_path = tmp_path / "ltgwiki-20170701-pages-articles-multistream-index.txt.bz2"
    index_path.write_bytes(bz2.compress(("\n".join(index_lines) + "\n").encode()))
    return str(dump_path), str(index_path), len(pages)


# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so a child of a big pytest process
# would report the parent's size.
PEAK_RSS = """
import sys
{body}
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print(int(hwm.split()[1]) // 1024)  # MiB
"""


def peak_rss_mib(body: str) -> tuple[int, str]:
    """Peak RSS (MiB) of a fresh interpreter running ``body``, and what it printed before."""
    result = subprocess.run([sys.executable, "-c", PEAK_RSS.format(body=body)], capture_output=True, text=True,
                            timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    *printed, peak = result.stdout.splitlines()
    return int(peak), "\n".join(printed)
