"""Shared by tests/test_gold.py and its generator: label one real article with real typing."""

from __future__ import annotations

import re
from pathlib import Path

from wikisilver import wikitext
from wikisilver.dump import iter_pages
from wikisilver.labels import Labeller
from wikisilver.ontology import load_builtin_ontology, most_specific, resolve_classes, tag_for_class
from wikisilver.records import Article, EntityType, TargetInfo
from wikisilver.entities.rdf import iter_instance_types
from wikisilver.text import get_processor
from wikisilver.titles import normalize_title

GOLD = Path(__file__).parent / "gold"


def read_gold(path: Path) -> dict[int, list[tuple[str, str]]]:
    """Gold sentences: '# sentence = N' headers, then 'token<TAB>tag' lines, blank line between."""
    sentences: dict[int, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# sentence = "):
            current = sentences.setdefault(int(line.split("=", 1)[1]), [])
        elif line.startswith("#") or not line.strip():
            continue
        else:
            token, tag = line.split("\t")
            current.append((token, tag))
    return sentences


def label_real_article(dump: Path, title: str, lang: str, typed: dict[str, set[str]], max_chars: int | None = None):
    """Clean and label one article of a dump; link targets typed by `typed` after redirects."""
    pages = list(iter_pages(str(dump)))
    redirects = {normalize_title(p.title): normalize_title(p.redirect) for p in pages if getattr(p, "redirect", None)}
    page = next(p for p in pages if getattr(p, "title", None) == title)
    clean = wikitext.clean_wikitext(page.text, lang=lang)
    text, links = clean.text, clean.links
    if max_chars:
        text, links = text[:max_chars], tuple(link for link in links if link.end <= max_chars)
    article = Article(page.page_id, normalize_title(title), text, links)
    ontology = load_builtin_ontology()
    table = resolve_classes(ontology)
    aliases: dict[str, list[str]] = {}
    for source, target in redirects.items():
        aliases.setdefault(target, []).append(source)

    def info(name: str) -> TargetInfo | None:
        resolved = redirects.get(name, name)
        classes = typed.get(resolved)
        if not classes:
            return None
        best, _ = most_specific(classes, ontology)
        tag = tag_for_class(best, table)
        entity = EntityType(resolved, best, tag.conll, tag.fine, "types")
        return TargetInfo(resolved, entity, exists=True, aliases=tuple(sorted(aliases.get(resolved, ()))))

    targets = {link.target: i for link in article.links if (i := info(link.target)) is not None}
    labeller = Labeller(lang, get_processor(lang))
    return labeller.label_article(article, targets, info(article.title)), redirects


def label_linked_article(dump: Path, title: str, types: list[Path]):
    """Label one English article of ``dump``, its links typed by the ``types`` files (all the dump's
    titles, redirect targets and the article's link targets are looked up)."""
    pages = [p for p in iter_pages(str(dump)) if hasattr(p, "ns")]
    wanted = {normalize_title(p.title) for p in pages} | {normalize_title(p.redirect) for p in pages if p.redirect}
    page = next(p for p in pages if p.title == title)
    wanted |= {normalize_title(m.group(1)) for m in re.finditer(r"\[\[([^|\]#]+)", page.text)}
    return label_real_article(dump, title, "en", types_for(types, wanted))


def types_for(paths: list[Path], wanted: set[str]) -> dict[str, set[str]]:
    typed: dict[str, set[str]] = {}
    for path in paths:
        for title, cls in iter_instance_types(str(path)):
            if title in wanted:
                typed.setdefault(title, set()).add(cls)
    return typed


def hu_types() -> dict[str, set[str]]:
    typed: dict[str, set[str]] = {}
    for line in (GOLD / "hu_types.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or line.startswith("title\t") or not line.strip():
            continue
        title, cls = line.split("\t")
        typed.setdefault(title, set()).add(cls)
    return typed
