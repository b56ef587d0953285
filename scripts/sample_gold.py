"""Sample sentences of real articles for blind hand-annotation (tests/gold/, benchmarks/gold_quality.py).

The annotators get only the tokens of each sentence and the guidelines, never a silver tag. The sample
is drawn per article from a finished corpus of the same dumps (which sentences were kept and which of
them hold a silver entity decides the strata, not what the tags are) and from the sentences the corpus
dropped, which are re-split from the dump with the same cleaner and tokenizer:

    python scripts/sample_gold.py --corpus output/en --dump ../shared/data/wikidumps/X.bz2 \\
        --lang en --articles 30 --with-entity 10 --kept 6 --dropped 12 --seed 1 --out gold-todo.txt

With --across, --with-entity and --kept are totals drawn from one pool per stratum over all articles.

Output: one block per sentence: '# title = …', '# sentence = N' (index in the article as wikisilver
splits it), '# text = …', then one token per line.
"""

from __future__ import annotations

import argparse
import glob
import os
import random

import pyarrow.parquet as pq

from wikisilver import wikitext
from wikisilver.dump import iter_pages
from wikisilver.text import get_processor
from wikisilver.titles import normalize_title


def kept_sentences(corpus: str) -> dict[str, dict[int, bool]]:
    """title -> {sentence index: holds a silver entity} of the kept sentences of a corpus."""
    kept: dict[str, dict[int, bool]] = {}
    for path in sorted(glob.glob(os.path.join(corpus, "parquet", "*.parquet"))):
        table = pq.read_table(path, columns=["title", "sentence_index", "spans"]).to_pylist()
        for row in table:
            kept.setdefault(row["title"], {})[row["sentence_index"]] = bool(row["spans"])
    return kept


def article_sentences(dumps: list[str], lang: str, titles: set[str]) -> dict[str, list[list[str]]]:
    processor = get_processor(lang)
    out: dict[str, list[list[str]]] = {}
    for dump in dumps:
        for page in iter_pages(dump):
            title = normalize_title(getattr(page, "title", "") or "")
            if title not in titles or title in out:
                continue
            text = wikitext.clean_wikitext(page.text, lang=lang).text
            sentences = []
            for start, end in processor.split_sentences(text):
                spans = processor.tokenize(text, start, end)
                if spans:
                    sentences.append([text[s:e] for s, e in spans])
            out[title] = sentences
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--dump", action="append", required=True)
    parser.add_argument("--lang", required=True)
    parser.add_argument("--articles", type=int, default=30)
    parser.add_argument("--title", action="append", default=[], help="sample these articles (repeatable)")
    parser.add_argument("--with-entity", type=int, default=10, help="kept sentences with a silver entity, per article")
    parser.add_argument("--kept", type=int, default=6, help="other kept sentences, per article")
    parser.add_argument("--dropped", type=int, default=12, help="dropped sentences, per article")
    parser.add_argument("--min-tokens", type=int, default=4)
    parser.add_argument("--across", action="store_true",
                        help="draw --with-entity and --kept sentences from all articles together (one pool per stratum), not per article")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    kept = kept_sentences(args.corpus)
    if args.across:
        return _sample_across(args, rng, kept)
    titles = args.title or sorted(t for t, s in kept.items() if len(s) >= args.with_entity + args.kept)
    if not args.title:
        titles = sorted(rng.sample(titles, min(args.articles, len(titles))))
    sentences = article_sentences(args.dump, args.lang, set(titles))
    blocks = []
    for title in titles:
        all_sentences = sentences.get(title, [])
        marks = kept.get(title, {})
        ok = [i for i in range(len(all_sentences)) if len(all_sentences[i]) >= args.min_tokens]
        with_entity = [i for i in ok if marks.get(i)]
        plain = [i for i in ok if i in marks and not marks[i]]
        dropped = [i for i in ok if i not in marks]
        chosen = set()
        for pool, n in ((with_entity, args.with_entity), (plain, args.kept), (dropped, args.dropped)):
            chosen.update(rng.sample(pool, min(n, len(pool))))
        for i in sorted(chosen):
            blocks.append(_block(title, i, all_sentences[i]))
    return _write(args.out, blocks, len(titles))


def _block(title: str, index: int, tokens: list[str]) -> str:
    return "\n".join([f"# title = {title}", f"# sentence = {index}", f"# text = {' '.join(tokens)}", *tokens])


def _write(out: str, blocks: list[str], articles: int) -> int:
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("\n\n".join(blocks) + "\n")
    print(f"{len(blocks)} sentences of {articles} articles -> {out}")
    return 0


def _sample_across(args: argparse.Namespace, rng: random.Random, kept: dict[str, dict[int, bool]]) -> int:
    """--across: the strata are pools over every article of the corpus (kept with a silver entity,
    other kept); the sample comes out in corpus order (title, sentence)."""
    titles = sorted(args.title or kept)
    sentences = article_sentences(args.dump, args.lang, set(titles))
    pools: dict[bool, list[tuple[str, int]]] = {True: [], False: []}
    for title in titles:
        tokens = sentences.get(title, [])
        for index, has_entity in sorted(kept.get(title, {}).items()):
            if index < len(tokens) and len(tokens[index]) >= args.min_tokens:
                pools[has_entity].append((title, index))
    chosen = rng.sample(pools[True], min(args.with_entity, len(pools[True])))
    chosen += rng.sample(pools[False], min(args.kept, len(pools[False])))
    blocks = [_block(title, index, sentences[title][index]) for title, index in sorted(chosen)]
    return _write(args.out, blocks, len({title for title, _ in chosen}))


if __name__ == "__main__":
    raise SystemExit(main())
