"""Does a run hold what its inputs promise? Checks that turn a silent bad corpus into a named cause.

Before any work (:func:`input_warnings`): the ``--types`` titles are DBpedia resources of one
language chapter, and the dump's articles read as the run's language (the share of the language
pack's function words in a sample of their text), so English types on a German dump, or a
Hungarian dump whose ``<siteinfo>`` says enwiki built as English, are named before the build.

After the pipeline (:func:`dominant_reject`, :func:`coverage_warnings`): a run in which one reject
reason took more than ``--max-reject-share`` of the pages that could have been used fails
(:class:`CorpusRejected`, exit 1: the corpus is not finished); a run whose link targets found
almost no type, or whose NE density is far below any Wikipedia's, warns with the likely cause.
The floors are far below what the shared real data give in a matching language (docs/output.md).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from wikisilver import paths
from wikisilver.errors import WikisilverError

DEFAULT_MAX_REJECT_SHARE = 0.5

# Coverage: what the sources of class evidence (--types, --sparql, langlinks) typed, of the link
# targets the articles asked about. Matching DBpedia samples type 15-26 % of the link targets of
# the shared English dumps (full DBpedia: far more); English types on Ukrainian text 0.8 %.
TYPED_FLOOR = 0.02
MIN_LINK_TARGETS = 500  # fewer: too small a run to judge
NE_DENSITY_FLOOR = 0.005  # English 2.6-5.6 %, Italian with English types 1.0 %, Ukrainian 0.18 %
MIN_TOKENS = 2_000
CLASS_SOURCES = ("types", "sparql", "langlinks")

# Text language: the share of a pack's function words among the words of the first articles.
# English text: 24-30 % English function words; every other shared dump 1-9 %. Hungarian text:
# 17 % Hungarian ones; other languages 1-12 %.
FUNCTION_WORD_FLOOR = 0.12
SAMPLE_WORDS = 20_000
MIN_SAMPLE_WORDS = 2_000
SAMPLE_PAGES = 50
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class RejectShare:
    """The pages one reject reason took, of the pages that could have been used."""

    reason: str
    pages: int
    candidates: int  # pages used + pages rejected (skipped ones, redirects and the like, never count)

    @property
    def share(self) -> float:
        return self.pages / self.candidates if self.candidates else 0.0


def dominant_reject(stats: Mapping, max_share: float) -> RejectShare | None:
    """The reject reason that took more than ``max_share`` of the candidate pages (None: none did)."""
    rejected: Mapping[str, int] = stats.get("pages_rejected") or {}
    candidates = int(stats.get("pages_used", 0)) + sum(rejected.values())
    if not rejected or not candidates:
        return None
    reason, pages = max(sorted(rejected.items()), key=lambda item: item[1])
    found = RejectShare(reason, pages, candidates)
    return found if found.share > max_share else None


def reject_example(out: str, reason: str, max_lines: int = 10_000) -> str | None:
    """The title and detail of the first reject of ``reason`` in ``out/rejects/``, in one line."""
    seen = 0
    for part in paths.listdir(paths.join(out, "rejects")):
        try:
            text = paths.read_text(part, errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            seen += 1
            if seen > max_lines:
                return None
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("reason") == reason:
                detail = " ".join(str(record.get("detail") or "").split())[:160]
                return f"{record.get('title')!r}: {detail}" if detail else repr(record.get("title"))
    return None


# --------------------------------------------------------------------------- after the run


def coverage_warnings(counts: Mapping[str, int], stats: Mapping, *, class_sources: bool, lang: str,
                      types_lang: str, header_lang: str | None) -> list[str]:
    """Warnings for a run whose typing coverage or NE density is far below what a matching
    language gives. ``counts``: the run's raw counts (``link_targets``: the titles typed for it);
    ``class_sources``: whether --types or --sparql were given; ``header_lang``: the language the
    dump's ``<siteinfo>`` names."""
    causes = []
    targets = int(counts.get("link_targets", 0))
    typed = sum(int(counts.get(f"titles_typed_by.{source}", 0)) for source in CLASS_SOURCES)
    low_typing = class_sources and targets >= MIN_LINK_TARGETS and typed / targets < TYPED_FLOOR
    tokens, density = int(stats.get("tokens_kept", 0)), float(stats.get("ne_density", 0.0))
    low_density = tokens >= MIN_TOKENS and density < NE_DENSITY_FLOOR
    if not (low_typing or low_density):
        return []
    if class_sources:
        causes.append(f"are the --types titles in another language than {types_lang}? (DBpedia's English "
                      "types on another wiki need --types-lang en with --langlinks-sql)")
    if header_lang == lang:
        causes.append(f"is the dump not in {lang}? (its <siteinfo> says {lang}, and can be wrong: pass --lang)")
    else:
        causes.append(f"is --lang {lang} right?")
    found = []
    if low_typing:
        found.append(f"only {typed / targets:.1%} of the {targets:,} link targets found a type")
    if low_density:
        found.append(f"NE density {density:.2%} (Wikipedia text has 2-6 %)")
    return [f"{' and '.join(found)}: {'; '.join(causes)}"]


# --------------------------------------------------------------------------- before the run


def types_language_warnings(types: Iterable[str], types_lang: str, subjects: int = 200) -> list[str]:
    """A warning for each ``--types`` file whose first resources belong to another DBpedia chapter
    than ``types_lang`` (``http://dbpedia.org/resource/`` is English, ``http://de.dbpedia.org/…``
    German): its titles would be looked up as ``types_lang`` titles, and few would match."""
    from wikisilver.entities.rdf import iter_triples, resource_title

    warnings = []
    for path in types:
        chapters: Counter[str] = Counter()
        seen = None
        try:
            for subject, _predicate, _object in iter_triples(path):
                if subject == seen:
                    continue
                seen = subject
                found = resource_title(subject)
                if found is not None:
                    chapters[found[0]] += 1
                    if sum(chapters.values()) >= subjects:
                        break
        except (WikisilverError, OSError, ValueError):
            continue  # a broken file is the header check's and the readers' to report
        if not chapters:
            continue
        chapter, count = chapters.most_common(1)[0]
        if chapter != types_lang and count * 2 > sum(chapters.values()):
            warnings.append(
                f"{path}: its titles are {chapter} DBpedia resources, but they are looked up as {types_lang} "
                f"titles (--types-lang {types_lang}): few will match. Give --types-lang {chapter} with "
                f"--langlinks-sql (the paper's method), or the types of the {types_lang} chapter")
    return warnings


def text_language_warnings(dump: str, lang: str, header_lang: str | None) -> list[str]:
    """A warning when the first articles of ``dump`` do not read as ``lang``: too few of their
    words are function words of the language pack (``mappings/<lang>/function_words.txt``; a
    language without that list is not checked)."""
    from wikisilver.dump import iter_pages
    from wikisilver.records import Page
    from wikisilver.resources import load_word_list

    function_words = load_word_list(lang, "function_words.txt")
    if not function_words:
        return []
    words = hits = pages = 0
    try:
        for page in iter_pages(dump):
            if not isinstance(page, Page) or page.ns != 0 or page.redirect or page.text.lstrip()[:1] == "#":
                continue
            for word in _WORD.findall(page.text[:100_000]):
                words += 1
                hits += word.lower() in function_words
            pages += 1
            if words >= SAMPLE_WORDS or pages >= SAMPLE_PAGES:
                break
    except (WikisilverError, OSError, ValueError):
        return []  # an unreadable dump is the readers' to report, page by page
    if words < MIN_SAMPLE_WORDS or hits / words >= FUNCTION_WORD_FLOOR:
        return []
    where = (f"its <siteinfo> says {lang} too, and can be wrong" if header_lang == lang
             else f"its <siteinfo> says {header_lang or 'nothing'}")
    return [f"{dump}: its articles do not read as {lang}: only {hits / words:.1%} of {words:,} words of its first "
            f"{pages} article(s) are {lang} function words (mappings/{lang}/function_words.txt; {lang} text has "
            f"far more). Pass --lang with the language of the articles ({where})"]
